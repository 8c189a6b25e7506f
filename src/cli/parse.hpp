#pragma once
// Parsing of command-line values with messages that name the option and the offending text.
#include <string>
#include <vector>

#include <Eigen/Core>

namespace dalembert::cli {

/// A finite double; throws BadInput("--h: 'abc' is not a number") and the like.
double parse_number(const std::string& option, const std::string& text);

/// A comma-separated list of finite doubles.
Eigen::VectorXd parse_list(const std::string& option, const std::string& text);

/// A non-negative integer.
long parse_count(const std::string& option, const std::string& text);

/// name=value pairs of --param.
std::vector<std::pair<std::string, double>> parse_parameters(const std::vector<std::string>& items);

}  // namespace dalembert::cli
