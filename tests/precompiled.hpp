#pragma once
// The headers most test files of the library include, parsed once for all of them
// (tests/CMakeLists.txt). A test file still includes what it uses.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"
