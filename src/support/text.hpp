#pragma once
// Text for the terminal: a message may quote a file name, an option value or a model file's text,
// and their control characters (an escape sequence, a carriage return) must not reach the terminal.
#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

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

/// " (did you mean 'knife-edge'?)" for the candidate closest to `name` in edits (an inserted,
/// deleted or changed character, or two neighbours swapped), if it is close enough to be a slip: one
/// edit, or two in a name of six characters or more; "" otherwise.
inline std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  const auto distance = [](std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
      for (std::size_t j = 1; j <= b.size(); ++j) {
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  const std::size_t allowed = name.size() >= 6 ? 2 : 1;
  const std::string* best = nullptr;
  std::size_t best_distance = allowed + 1;
  for (const auto& c : candidates)
    if (const std::size_t d = distance(name, c); d < best_distance) {
      best = &c;
      best_distance = d;
    }
  return best ? " (did you mean '" + *best + "'?)" : "";
}

}  // namespace dalembert::support
