/* A program whose thread-local array uses the initial-exec TLS model (as code compiled
 * without -fPIC, or with -ftls-model=initial-exec, does): every loaded copy takes static TLS,
 * of which glibc keeps little. tests/mpi_front/measure_load.cpp counts how many copies load. */
__attribute__((tls_model("initial-exec"))) _Thread_local int state[32];
int main(int argc, char** argv) { return ++state[argc % 32] + (argv != 0); }
