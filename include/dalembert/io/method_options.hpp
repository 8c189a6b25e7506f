#pragma once
// The options of the methods, described once. The command line's flags (`--name`, with '-' for
// '_'; src/cli/run_arguments.cpp), the Python package's keywords and their checks
// (python/dalembert/__init__.py), a run's provenance and the library's own check of a RunOptions
// (io/run.hpp) all derive from method_options below.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "dalembert/io/errors.hpp"
#include "dalembert/io/run_options.hpp"

namespace dalembert {

/// How an option's value is written and checked.
enum class OptionKind {
  number,  ///< a finite real number in [low, high] (above low, excluded, if above_low)
  whole,   ///< a whole number in low..high
  choice,  ///< one of the strings in choices
};

/// An option's value: a number, a whole number or a choice.
using OptionValue = std::variant<double, long, std::string>;

/// A number or whole number's value as a double.
inline double number_of(const OptionValue& v) {
  return std::holds_alternative<long>(v) ? static_cast<double>(std::get<long>(v)) : std::get<double>(v);
}

struct MethodOption {
  std::string_view name;  ///< as RunOptions, Python and the provenance name it
  OptionKind kind;
  std::string_view help;  ///< what it sets; its values and default are told from the rest
  double low = 0.0, high = 0.0;
  bool above_low = false;
  std::array<std::string_view, 3> choices = {};  ///< "" past the last
  OptionValue (*get)(const RunOptions&) = nullptr;         ///< its value in RunOptions
  void (*set)(RunOptions&, const OptionValue&) = nullptr;  ///< sets it there, to a value already checked
};

inline constexpr double unbounded = std::numeric_limits<double>::infinity();

/// get and set of an option that is one field of RunOptions: a double (a number), an int (a whole
/// number) or a string (a choice).
template <auto Field>
OptionValue field_value(const RunOptions& o) {
  const auto& x = o.*Field;
  if constexpr (std::is_same_v<std::decay_t<decltype(x)>, int>) {
    return static_cast<long>(x);
  } else {
    return x;
  }
}
template <auto Field>
void set_field(RunOptions& o, const OptionValue& v) {
  auto& x = o.*Field;
  using T = std::decay_t<decltype(x)>;
  if constexpr (std::is_same_v<T, std::string>) {
    x = std::get<std::string>(v);
  } else {
    x = static_cast<T>(number_of(v));
  }
}

/// Every option a method takes, in the order of the provenance. Which methods read which option
/// is stated in its help; a method ignores the others.
inline constexpr std::array<MethodOption, 10> method_options = {{
    {.name = "alpha",
     .kind = OptionKind::number,
     .help = "alpha of the alpha-rule discrete Lagrangian and constraint",
     .low = 0.0,
     .high = 1.0,
     .get = field_value<&RunOptions::alpha>,
     .set = set_field<&RunOptions::alpha>},
    {.name = "rule",
     .kind = OptionKind::choice,
     .help = "discrete Lagrangian (exponential: contact systems, method herglotz)",
     .choices = {"alpha", "trapezoid", "exponential"},
     .get = field_value<&RunOptions::rule>,
     .set = set_field<&RunOptions::rule>},
    {.name = "constraint_rule",
     .kind = OptionKind::choice,
     .help = "dla: discrete constraint, M at the alpha point or M averaged over both ends of the step",
     .choices = {"alpha", "trapezoid"},
     .get = field_value<&RunOptions::constraint_rule>,
     .set = set_field<&RunOptions::constraint_rule>},
    {.name = "fim_start",
     .kind = OptionKind::choice,
     .help = "first momentum of fim and fim-lie: B = G v0 - (h/2) constraint force, A = G v0",
     .choices = {"A", "B"},
     .get = field_value<&RunOptions::fim_start>,
     .set = set_field<&RunOptions::fim_start>},
    {.name = "stages",
     .kind = OptionKind::whole,
     .help = "spark: Lobatto IIIA-IIIB stages S (order 2S - 2)",
     .low = 2.0,
     .high = 5.0,
     .get = field_value<&RunOptions::stages>,
     .set = set_field<&RunOptions::stages>},
    {.name = "tolerance",
     .kind = OptionKind::number,
     .help = "Newton tolerance, relative to the momentum scale",
     .low = 0.0,
     .high = unbounded,
     .above_low = true,
     .get = [](const RunOptions& o) -> OptionValue { return o.newton.tolerance; },
     .set =
         [](RunOptions& o, const OptionValue& v) {
           o.newton.tolerance = number_of(v);
           o.reference_tolerance = std::max(number_of(v), 1e-15);
         }},
    {.name = "max_iterations",
     .kind = OptionKind::whole,
     .help = "Newton iterations per step",
     .low = 1.0,
     .high = 1000.0,
     .get = [](const RunOptions& o) -> OptionValue { return static_cast<long>(o.newton.max_iterations); },
     .set = [](RunOptions& o, const OptionValue& v) {
       o.newton.max_iterations = static_cast<int>(number_of(v));
     }},
    {.name = "root_rule",
     .kind = OptionKind::choice,
     .help = "dsocs: root of the discrete constraint, the physical branch or closest to the previous theta (the "
             "paper's rule)",
     .choices = {"physical", "closest"},
     .get = field_value<&RunOptions::root_rule>,
     .set = set_field<&RunOptions::root_rule>},
    {.name = "dsocs_start",
     .kind = OptionKind::choice,
     .help = "dsocs from (q0, v0): q1 = q0 + h v0 + h^2 a0 / 2 (taylor2) or the paper's q1 = q0 + h v0 (euler)",
     .choices = {"taylor2", "euler"},
     .get = field_value<&RunOptions::dsocs_start>,
     .set = set_field<&RunOptions::dsocs_start>},
    {.name = "shooting_tolerance",
     .kind = OptionKind::number,
     .help = "exact: tolerance of the inner integration and shooting",
     .low = 1e-12,
     .high = 1e-6,
     .get = field_value<&RunOptions::shooting_tolerance>,
     .set = set_field<&RunOptions::shooting_tolerance>},
}};

/// The description of a method option, or null.
constexpr const MethodOption* find_method_option(std::string_view name) {
  for (const auto& o : method_options)
    if (o.name == name) return &o;
  return nullptr;
}

/// A number as its shortest text that reads back as the same double: 2, 0.001, 1e-12, inf.
inline std::string number_text(double x) {
  char text[32];
  std::string s(text, std::to_chars(text, text + sizeof text, x).ptr);
  if (const auto e = s.find('e'); e != std::string::npos) {  // 1e-06 as 1e-6, 1e+20 as 1e20
    std::size_t digits = e + 1;
    if (s[digits] == '+') s.erase(digits, 1);
    if (s[digits] == '-') ++digits;
    while (digits + 1 < s.size() && s[digits] == '0') s.erase(digits, 1);
  }
  return s;
}

/// The values an option takes, as its help and its errors say: "in [0, 1]", "positive", "2..5",
/// "alpha, trapezoid or exponential".
inline std::string option_values(const MethodOption& d) {
  switch (d.kind) {
    case OptionKind::number:
      if (d.high == unbounded && d.low == 0.0) return d.above_low ? "positive" : "not negative";
      return (d.above_low ? "in (" : "in [") + number_text(d.low) + ", " + number_text(d.high) + "]";
    case OptionKind::whole:
      return std::to_string(static_cast<long>(d.low)) + ".." + std::to_string(static_cast<long>(d.high));
    case OptionKind::choice: {
      std::string list;
      std::size_t count = 0;
      for (const auto c : d.choices) count += !c.empty();
      for (std::size_t k = 0; k < count; ++k)
        list += (k == 0 ? "" : k + 1 == count ? " or " : ", ") + std::string(d.choices[k]);
      return list;
    }
  }
  return {};
}

/// Whether x is a value of the number or whole option d.
inline bool in_range(const MethodOption& d, double x) {
  return std::isfinite(x) && (d.above_low ? x > d.low : x >= d.low) && x <= d.high;
}

/// Whether s is one of the choices of d.
inline bool is_choice(const MethodOption& d, std::string_view s) {
  for (const auto c : d.choices)
    if (!c.empty() && c == s) return true;
  return false;
}

/// The value of the option `name` in o.
inline OptionValue option_value(const RunOptions& o, std::string_view name) {
  const MethodOption* d = find_method_option(name);
  if (!d) throw BadInput("unknown method option '" + std::string(name) + "'");
  return d->get(o);
}

/// The option's value as text: "0.5", "3", "alpha".
inline std::string option_text(const OptionValue& v) {
  if (const auto* x = std::get_if<double>(&v)) return number_text(*x);
  if (const auto* k = std::get_if<long>(&v)) return std::to_string(*k);
  return std::get<std::string>(v);
}

/// Throws BadOption naming d and the value unless v is one of d's values.
inline void check_option(const MethodOption& d, const OptionValue& v) {
  const std::string key(d.name);
  const auto* s = std::get_if<std::string>(&v);
  if (d.kind == OptionKind::choice) {
    if (s && is_choice(d, *s)) return;
    std::string known;
    for (const auto c : d.choices)
      if (!c.empty()) known += (known.empty() ? "" : ", ") + std::string(c);
    throw BadOption(key, "unknown value '" + option_text(v) + "' (known: " + known + ")");
  }
  const bool fits =
      !s && (d.kind == OptionKind::number || std::holds_alternative<long>(v)) && in_range(d, number_of(v));
  if (fits) return;
  const std::string values = option_values(d);
  const bool interval = values.starts_with("in ");
  const char* verb = interval ? "must lie " : d.kind == OptionKind::whole ? "must lie in " : "must be ";
  throw BadOption(key, verb + values + ", got " + option_text(v));
}

/// Sets the option `name` of o to v, checked against its description (check_option). Setting the
/// Newton tolerance sets the reference solver's to the same, and not below 1e-15, as every
/// interface does.
inline void set_option(RunOptions& o, std::string_view name, const OptionValue& v) {
  const MethodOption* d = find_method_option(name);
  if (!d) throw BadInput("unknown method option '" + std::string(name) + "'");
  check_option(*d, v);
  d->set(o, v);
}

/// Checks every option of o against its description, and the step size, count and output stride:
/// throws BadOption naming the first one out of its range.
inline void check_options(const RunOptions& o) {
  if (!(o.h > 0) || !std::isfinite(o.h)) throw BadOption("h", "must be positive, got " + number_text(o.h));
  if (o.steps < 0 || o.steps > max_steps)
    throw BadOption("steps", "must lie in 0.." + std::to_string(max_steps) + ", got " + std::to_string(o.steps));
  if (o.every < 1) throw BadOption("every", "must be at least 1");
  for (const auto& d : method_options) check_option(d, option_value(o, d.name));
}

}  // namespace dalembert
