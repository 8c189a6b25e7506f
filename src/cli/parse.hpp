#pragma once
// Parsing of command-line values with messages that name the option and the offending text.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "dalembert/io/errors.hpp"

namespace dalembert::cli {

/// A finite double; throws BadInput("--h: 'abc' is not a number") and the like.
double parse_number(const std::string& option, const std::string& text);

/// A comma-separated list of finite doubles.
Eigen::VectorXd parse_list(const std::string& option, const std::string& text);

/// The names and values of a comma-separated list of name=value items (--v0 x=1,theta=0.2); names
/// as of --param, each once.
std::pair<std::vector<std::string>, Eigen::VectorXd> parse_named_list(const std::string& option,
                                                                      const std::string& text);

/// A whole number in [lo, hi]; throws BadInput("--every: must lie in 1..10^15, got 0") and the like.
long parse_whole(const std::string& option, const std::string& text, long lo, long hi);

/// name=value pairs of --param (names: letters, digits and _, not starting with a digit).
std::vector<std::pair<std::string, double>> parse_parameters(const std::vector<std::string>& items);

/// The flag of an option named as RunOptions and the Python package name it: shooting_tolerance is
/// --shooting-tolerance.
std::string option_flag(std::string_view name);

/// A BadInput's message as the command line shows it: a BadOption's with its option's flag.
std::string command_line_message(const BadInput& e);

/// `x` as text that reads back to the same double ("1e-320", "0.1").
std::string format_number(double x);

}  // namespace dalembert::cli
