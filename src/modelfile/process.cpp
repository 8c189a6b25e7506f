#include "modelfile/process.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>

namespace dalembert::modelfile {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int run_command(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 512> buffer;
  while (fgets(buffer.data(), buffer.size(), pipe))
    if (output.size() < 4000) output += buffer.data();
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace dalembert::modelfile
