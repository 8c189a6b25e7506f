// The target that builds the precompiled header of the tests of the executable (precompiled_cli.hpp,
// tests/CMakeLists.txt).
