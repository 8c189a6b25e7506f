// The executables of dalembert_tests_over_the_library (tests/CMakeLists.txt) have no sources of
// their own: their tests come from a static library linked after the catalogue's, whole.
