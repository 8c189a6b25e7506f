#include "cli/parse.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "dalembert/io/errors.hpp"

namespace dalembert::cli {

namespace {
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool is_name(const std::string& s) {
  const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (s.empty() || !letter(s[0])) return false;
  for (const char c : s)
    if (!letter(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}
}  // namespace

double parse_number(const std::string& option, const std::string& raw) {
  const std::string text = trim(raw);
  double x = 0.0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, x);
  if (text.empty() || ec != std::errc() || end != last) {
    if (ec == std::errc::result_out_of_range) throw BadInput(option + ": '" + raw + "' is out of range");
    throw BadInput(option + ": '" + raw + "' is not a number");
  }
  if (!std::isfinite(x)) throw BadInput(option + ": '" + raw + "' is not a finite number");
  return x;
}

Eigen::VectorXd parse_list(const std::string& option, const std::string& text) {
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    values.push_back(parse_number(option, item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

std::pair<std::vector<std::string>, Eigen::VectorXd> parse_named_list(const std::string& option,
                                                                      const std::string& text) {
  std::vector<std::string> names;
  std::vector<double> values;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw BadInput(option + ": '" + item + "' is not of the form name=value (give every value by name, or none)");
    const std::string name = trim(item.substr(0, eq));
    if (!is_name(name))
      throw BadInput(option + ": '" + item + "' does not start with a coordinate's name (name=value)");
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw BadInput(option + ": the velocity of '" + name + "' is given twice");
    names.push_back(name);
    values.push_back(parse_number(option + " " + name, item.substr(eq + 1)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {names, Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()))};
}

long parse_whole(const std::string& option, const std::string& raw, long lo, long hi) {
  const std::string text = trim(raw);
  long n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  if (ec == std::errc::result_out_of_range) throw BadInput(option + ": must lie in " + range + ", got " + raw);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw BadInput(option + ": '" + raw + "' is not a whole number");
  if (n < lo || n > hi) throw BadInput(option + ": must lie in " + range + ", got " + raw);
  return n;
}

std::vector<std::pair<std::string, double>> parse_parameters(const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw BadInput("--param: '" + item + "' is not of the form name=value");
    const std::string name = trim(item.substr(0, eq));
    if (!is_name(name)) throw BadInput("--param: '" + item + "' does not start with a parameter name (name=value)");
    out.emplace_back(name, parse_number("--param " + name, item.substr(eq + 1)));
  }
  return out;
}

std::string format_number(double x) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
  return std::string(buffer, end);
}

std::string option_flag(std::string_view name) {
  std::string flag = "--" + std::string(name);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string command_line_message(const BadInput& e) {
  if (const auto* bad = dynamic_cast<const BadOption*>(&e)) return option_flag(bad->option()) + ": " + bad->detail();
  return e.what();
}

}  // namespace dalembert::cli
