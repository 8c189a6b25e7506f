#pragma once
// Text for the terminal: a message may quote a file name, an option value or a model file's text,
// and their control characters (an escape sequence, a carriage return) must not reach the terminal.
#include <cstdio>
#include <string>
#include <string_view>

namespace dalembert::support {

/// `message` with its control characters written as \xNN.
inline std::string printable(std::string_view message) {
  std::string out;
  for (const char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", u);
      out += escaped;
    }
  }
  return out;
}

}  // namespace dalembert::support
