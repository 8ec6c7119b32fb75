// The precompiled header is built with this empty file (tests/CMakeLists.txt).
