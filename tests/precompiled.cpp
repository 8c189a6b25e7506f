// The target that builds the test files' precompiled header (precompiled.hpp, tests/CMakeLists.txt).
