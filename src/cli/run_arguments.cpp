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

void one_of(const std::string& option, const std::string& value, const std::vector<std::string>& known) {
  for (const auto& k : known)
    if (value == k) return;
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw BadInput(option + ": unknown value '" + value + "' (known: " + list + ")");
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
  if (groups & kDiscretisation) {
    add(c, "--alpha", alpha_, "NUMBER", "alpha of the alpha-rule discrete Lagrangian and constraint, in [0, 1] (default 0.5)");
    add(c, "--rule", rule_, "NAME", "discrete Lagrangian: alpha (default) or trapezoid; for herglotz also exponential");
  }
  if (groups & kNewton) {
    add(c, "--tolerance", tolerance_, "NUMBER", "Newton tolerance > 0, relative to the momentum scale (default 1e-13)");
    add(c, "--max-iterations", max_iterations_, "N", "Newton iterations per step, 1..1000 (default " +
                                                         std::to_string(defaults.newton.max_iterations) + ")");
  }
  if (groups & kMethodSpecific) {
    add(c, "--fim-start", fim_start_, "A|B", "first momentum of fim/fim-lie: B = G v0 - (h/2) constraint force (default), A = G v0");
    add(c, "--stages", stages_, "S", "spark: Lobatto IIIA-IIIB stages, 2 to 5 (order 2S - 2; default 3)");
    add(c, "--root-rule", root_rule_, "NAME",
        "dsocs: root of the discrete constraint, physical (default, the physical branch) or closest (the paper's "
        "rule: closest to the previous theta)");
    add(c, "--dsocs-start", dsocs_start_, "NAME",
        "dsocs from (q0, v0): taylor2 (default, q1 = q0 + h v0 + h^2 a0 / 2) or euler (the paper's, q1 = q0 + h v0)");
    add(c, "--shooting-tolerance", shooting_tolerance_, "NUMBER",
        "exact: tolerance of the inner integration and shooting, 1e-12 to 1e-6 (default 1e-12)");
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
  if (groups_ & kStepSize) {
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
  if (alpha_.given()) {
    o.alpha = parse_number("--alpha", alpha_.text);
    if (o.alpha < 0 || o.alpha > 1) throw BadInput("--alpha: must lie in [0, 1], got " + alpha_.text);
  }
  if (rule_.given()) {
    one_of("--rule", rule_.text, {"alpha", "trapezoid", "exponential"});
    o.rule = rule_.text;
  }
  if (tolerance_.given()) {
    o.newton.tolerance = positive("--tolerance", tolerance_.text);
    o.reference_tolerance = std::max(o.newton.tolerance, 1e-15);
  }
  if (max_iterations_.given())
    o.newton.max_iterations = static_cast<int>(parse_whole("--max-iterations", max_iterations_.text, 1, 1000));
  if (fim_start_.given()) {
    one_of("--fim-start", fim_start_.text, {"A", "B"});
    o.fim_start = fim_start_.text;
  }
  if (stages_.given()) o.stages = static_cast<int>(parse_whole("--stages", stages_.text, 2, 5));
  if (root_rule_.given()) {
    one_of("--root-rule", root_rule_.text, {"physical", "closest"});
    o.root_rule = root_rule_.text;
  }
  if (dsocs_start_.given()) {
    one_of("--dsocs-start", dsocs_start_.text, {"taylor2", "euler"});
    o.dsocs_start = dsocs_start_.text;
  }
  if (shooting_tolerance_.given()) {
    o.shooting_tolerance = parse_number("--shooting-tolerance", shooting_tolerance_.text);
    if (!(o.shooting_tolerance >= 1e-12 && o.shooting_tolerance <= 1e-6))
      throw BadInput("--shooting-tolerance: must lie in [1e-12, 1e-6], got " + shooting_tolerance_.text);
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
