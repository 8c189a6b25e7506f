#pragma once
// Small process helpers shared by the two things model files build at run time: native kernels
// (native.cpp) and shape modules (shapes.cpp).
#include <string>

namespace dalembert::modelfile {

/// The value of an environment variable, empty if unset.
std::string environment(const char* name);

/// `s` quoted for /bin/sh.
std::string shell_quote(const std::string& s);

/// Runs a shell command with its standard error joined to its output; returns the exit status
/// (-1 if it could not run or was killed) and the first 4000 characters of the output.
int run_command(const std::string& command, std::string& output);

}  // namespace dalembert::modelfile
