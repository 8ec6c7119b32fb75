// A shared library without vmc's entry point: loading it must fail (load_test.cpp).
extern "C" __attribute__((visibility("default"))) int not_an_algorithm_library() { return 1; }
