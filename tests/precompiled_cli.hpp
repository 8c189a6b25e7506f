#pragma once
// The headers the tests of the executable include, parsed once for all of them
// (tests/CMakeLists.txt). A test file still includes what it uses.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
