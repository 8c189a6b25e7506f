#pragma once
// What every command-line test needs: run the built executable (DALEMBERT_EXECUTABLE, set by
// tests/CMakeLists.txt) through the shell, capture its exit status, stdout and stderr, and split
// its CSV output.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "test_files.hpp"

namespace cli_test {

namespace fs = std::filesystem;

struct Result {
  int status;  ///< exit status (-1 if the process did not exit normally)
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// A scratch directory of this test process, removed when it ends.
inline fs::path scratch() { return test_files::process_directory("dalembert_cli"); }

/// Runs a shell command line with stdout and stderr captured.
inline Result shell(const std::string& command) {
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  const std::string cmd = command + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

/// `dalembert ARGS`.
inline Result dalembert(const std::string& args) { return shell(std::string(DALEMBERT_EXECUTABLE) + " " + args); }

inline std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

/// One CSV row as numbers.
inline std::vector<double> numbers(const std::string& line) {
  std::vector<double> v;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) v.push_back(std::stod(cell));
  return v;
}

/// Bad input: exit status 2, a message on stderr that mentions `mentions`, nothing on stdout.
inline void expect_bad_input(const std::string& args, const std::string& mentions) {
  const auto r = dalembert(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << args << "\nstderr: " << r.err;
  EXPECT_TRUE(r.out.empty()) << args;
}

}  // namespace cli_test
