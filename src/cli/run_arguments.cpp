#include "cli/run_arguments.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "cli/parse.hpp"
#include "dalembert/io/errors.hpp"
#include "dalembert/io/method_descriptions.hpp"
#include "support/text.hpp"

namespace dalembert::cli {

namespace {

void add(CLI::App& command, const std::string& name, Given& value, const std::string& type, const std::string& help) {
  value.option = command.add_option(name, value.text, help)->type_name(type);
}

double positive(const std::string& option, const std::string& text) {
  const double x = parse_number(option, text);
  if (!(x > 0)) throw BadInput(option + ": must be positive, got " + text);
  return x;
}

}  // namespace

void RunArguments::add_to(CLI::App& c, unsigned groups) {
  groups_ = groups;
  const RunOptions defaults;
  if (groups & kMethod) {
    add(c, "--method", method_, "NAME", "integrator (see `dalembert list`)");
    method_.option->required();
  }
  if (groups & kStepSize) {
    add(c, "--h", h_, "NUMBER", "time step h > 0");
    h_.option->required();
  }
  if (groups & kOptionalStep) {
    add(c, "--method", method_, "NAME", "a method whose step to linearise as well, with --h");
    add(c, "--h", h_, "NUMBER", "its time step h > 0");
  }
  if (groups & kStepCount) {
    add(c, "--steps", steps_, "N", "number of steps, 0.." + std::to_string(max_steps));
    add(c, "--t-end", t_end_, "NUMBER", "final time T > 0, a multiple of --h (steps = T/h); give --steps or --t-end");
  }
  if (groups & kEvery) add(c, "--every", every_, "K", "write every K-th step (and the last), K >= 1 (default 1)");
  if (groups & kInitialData) {
    add(c, "--q0", q0_, "LIST", "initial position, comma-separated numbers (default: the system's)");
    add(c, "--v0", v0_, "LIST",
        "initial velocity, must satisfy the constraints (default: the system's); or n - m velocities by name, "
        "x=1,theta=0.2, the others solved from the constraints at q0");
    c.add_flag("--project-v0", project_v0_,
               "replace v0 by its projection onto the constraints at q0, orthogonal in the kinetic metric "
               "(reported in the summary)");
  }
  if (groups & kStartOptions) {
    add(c, "--q1", q1_, "LIST", "second position: start a two-step method from (q0, q1)");
    add(c, "--z0", z0_, "NUMBER", "initial action variable of a contact system (default 0)");
    add(c, "--t0", t0_, "NUMBER", "time of the first row, seen by a model file's t: a restart continues its clock (default 0)");
  }
  if (groups & kMethodOptions) {
    for (std::size_t k = 0; k < method_options.size(); ++k) {
      const MethodOption& d = method_options[k];
      std::string placeholder = d.kind == OptionKind::number ? "NUMBER" : d.kind == OptionKind::whole ? "N" : "";
      for (const auto choice : d.choices)
        if (!choice.empty()) placeholder += (placeholder.empty() ? "" : "|") + std::string(choice);
      add(c, option_flag(d.name), method_options_[k], placeholder,
          std::string(d.help) + "; " + option_values(d) + " (default " +
              option_text(option_value(defaults, d.name)) + ")");
    }
  }
  if (groups & kParameters)
    c.add_option("--param", params_, "override a parameter (repeatable)")->type_name("NAME=NUMBER");
}

long RunArguments::steps_for(double t_end, double h, const std::string& t_end_text, const std::string& h_text) {
  if (!(t_end > 0)) throw BadInput("--t-end: the final time must be positive, got " + t_end_text);
  const double ratio = t_end / h;
  if (!(ratio <= static_cast<double>(max_steps)))
    throw BadInput("--t-end " + t_end_text + " with --h " + h_text + " makes " + format_number(ratio) +
                   " steps, more than the limit of " + std::to_string(max_steps));
  // the same rule as convergence's --h-list (analysis/study.cpp): T/h within 1e-8 T/h of a whole number >= 1
  const double steps = std::round(ratio);
  if (steps < 1 || std::abs(ratio - steps) > 1e-8 * ratio)
    throw BadInput("--t-end " + t_end_text + " is not a multiple of --h " + h_text + " (T/h = " + format_number(ratio) +
                   "); give a multiple, or --steps");
  return static_cast<long>(steps);
}

bool RunArguments::step_given() const {
  if (method_.given() != h_.given()) throw BadInput("give --method and --h together (the step to linearise)");
  return method_.given();
}

RunOptions RunArguments::options() const {
  RunOptions o;
  if (method_.given()) {
    o.method = method_.text;
    std::vector<std::string> names;
    for (const auto& m : method_descriptions) names.emplace_back(m.name);
    if (std::find(names.begin(), names.end(), o.method) == names.end()) {
      std::string known;
      for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
      throw BadInput("--method: unknown method '" + support::printable(o.method) + "'" +
                     support::did_you_mean(o.method, names) + " (known: " + known + ")");
    }
  }
  if ((groups_ & kStepSize) || ((groups_ & kOptionalStep) && h_.given())) {
    o.h = positive("--h", h_.text);
  }
  if (t0_.given()) o.t0 = parse_number("--t0", t0_.text);
  if (groups_ & kStepCount) {
    if (steps_.given() == t_end_.given()) throw BadInput("give exactly one of --steps N or --t-end T");
    if (steps_.given()) {
      o.steps = parse_whole("--steps", steps_.text, 0, max_steps);
    } else {  // the final time T: the run covers [t0, T]
      const double t_end = parse_number("--t-end", t_end_.text);
      if (t0_.given() && !(t_end > o.t0))
        throw BadInput("--t-end " + t_end_.text + " is not after --t0 " + t0_.text + " (the run covers [t0, T])");
      o.steps = steps_for(t_end - o.t0, o.h, t_end_.text, h_.text);
    }
  }
  if (every_.given()) o.every = parse_whole("--every", every_.text, 1, max_steps);
  for (std::size_t k = 0; k < method_options.size(); ++k) {
    const MethodOption& d = method_options[k];
    const Given& given = method_options_[k];
    if (!given.given()) continue;
    const std::string flag = option_flag(d.name);
    switch (d.kind) {
      case OptionKind::number:
        set_option(o, d.name, parse_number(flag, given.text));
        break;
      case OptionKind::whole:  // parse_whole refuses a value out of range before it can overflow
        set_option(o, d.name, parse_whole(flag, given.text, static_cast<long>(d.low), static_cast<long>(d.high)));
        break;
      case OptionKind::choice:
        set_option(o, d.name, given.text);
        break;
    }
  }
  return o;
}

InitialData RunArguments::initial() const {
  InitialData init;
  if (q0_.given()) init.q0 = parse_list("--q0", q0_.text);
  if (v0_.given() && v0_.text.find('=') != std::string::npos)
    std::tie(init.v0_names, init.v0) = parse_named_list("--v0", v0_.text);
  else if (v0_.given())
    init.v0 = parse_list("--v0", v0_.text);
  if (q1_.given()) init.q1 = parse_list("--q1", q1_.text);
  if (q1_.given() && v0_.given())
    throw BadInput("--q1 " + q1_.text + " and --v0 " + v0_.text +
                   " are two starts: (q0, q1) of a two-step method, or (q0, v0); give one");
  if (z0_.given()) init.z0 = parse_number("--z0", z0_.text);
  if (project_v0_ && q1_.given())
    throw BadInput("--project-v0 projects v0; the start from (q0, --q1 " + q1_.text + ") has no v0 to project");
  init.project_v0 = project_v0_;
  return init;
}

std::vector<std::pair<std::string, double>> RunArguments::parameters() const { return parse_parameters(params_); }

}  // namespace dalembert::cli
