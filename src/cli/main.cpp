// The dalembert command: list, describe, run (the contract is ../shared/DESIGN.md), the
// studies reproduce, compare, convergence (cli/study_commands.cpp) and ensemble (cli/ensemble_command.cpp).
// Exit status: 0 success, 2 bad input (message on stderr), 3 numerical failure (partial output kept).
#include <cmath>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "catalogue/catalogue.hpp"
#include "cli/ensemble_command.hpp"
#include "cli/output.hpp"
#include "cli/parse.hpp"
#include "cli/study_commands.hpp"

namespace dalembert::cli {
namespace {

int list_command() {
  std::cout << "systems:\n";
  for (const auto& e : catalogue::entries()) std::cout << e.name << '\n';
  std::cout << "\nmethods:\n";
  for (const auto& m : method_names()) std::cout << m << '\n';
  return 0;
}

int describe_command(const std::string& name, bool json, const std::vector<std::string>& params) {
  const auto d = catalogue::find(name).describe(parse_parameters(params));
  if (json) {
    nlohmann::ordered_json j;
    j["name"] = d.name;
    j["coordinates"] = d.coordinates;
    nlohmann::ordered_json p = nlohmann::ordered_json::object();
    for (const auto& x : d.parameters) p[x.name] = x.value;
    j["parameters"] = p;
    j["initial"] = {{"q", d.q0}, {"v", d.v0}};
    if (d.z0) j["initial"]["z"] = *d.z0;
    j["constraints"] = d.constraints;
    j["summary"] = d.summary;
    j["closed_form"] = d.closed_form;
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  const auto list = [](const std::vector<double>& x) {
    std::ostringstream s;
    for (std::size_t i = 0; i < x.size(); ++i) s << (i ? "," : "") << x[i];
    return s.str();
  };
  std::cout << d.name << ": " << d.summary << "\n\ncoordinates: ";
  for (std::size_t i = 0; i < d.coordinates.size(); ++i) std::cout << (i ? ", " : "") << d.coordinates[i];
  std::cout << "\nconstraints: " << d.constraints << "\nparameters:";
  if (d.parameters.empty()) std::cout << " none";
  std::cout << '\n';
  for (const auto& p : d.parameters) std::cout << "  " << p.name << " = " << p.value << "  (" << p.description << ")\n";
  std::cout << "default initial data: --q0 " << list(d.q0) << " --v0 " << list(d.v0);
  if (d.z0) std::cout << " --z0 " << *d.z0;
  std::cout << '\n';
  std::cout << "closed-form solution: " << (d.closed_form ? "yes" : "no (errors are measured against the reference solver)")
            << '\n';
  return 0;
}

struct RunArguments {
  std::string system, method, h, steps, t_end, q0, v0, q1, z0, alpha, rule = "alpha", every = "1", out, summary;
  std::string tolerance, max_iterations, fim_start, shooting_tolerance;
  std::string root_rule = "physical", dsocs_start = "taylor2";
  std::vector<std::string> params;
};

int run_command(const RunArguments& a) {
  const auto& entry = catalogue::find(a.system);
  RunOptions o;
  o.method = a.method;
  o.h = parse_number("--h", a.h);
  if (!(o.h > 0)) throw BadInput("--h: the step size must be positive, got " + a.h);
  if (a.steps.empty() == a.t_end.empty()) throw BadInput("give exactly one of --steps N or --t-end T");
  if (!a.steps.empty()) {
    o.steps = parse_count("--steps", a.steps);
  } else {
    const double T = parse_number("--t-end", a.t_end);
    if (!(T > 0)) throw BadInput("--t-end: the final time must be positive, got " + a.t_end);
    o.steps = static_cast<long>(std::ceil(T / o.h - 1e-9));
  }
  o.every = parse_count("--every", a.every);
  if (o.every < 1) throw BadInput("--every: must be at least 1");
  if (!a.alpha.empty()) {
    o.alpha = parse_number("--alpha", a.alpha);
    if (o.alpha < 0 || o.alpha > 1) throw BadInput("--alpha: must lie in [0, 1], got " + a.alpha);
  }
  o.rule = a.rule;
  if (!a.fim_start.empty()) {
    if (a.fim_start != "A" && a.fim_start != "B")
      throw BadInput("--fim-start: '" + a.fim_start + "' is not a start of fim (known: A, B)");
    o.fim_start = a.fim_start;
  }
  if (a.root_rule != "physical" && a.root_rule != "closest")
    throw BadInput("--root-rule: unknown rule '" + a.root_rule + "' (known: physical, closest)");
  o.root_rule = a.root_rule;
  if (a.dsocs_start != "taylor2" && a.dsocs_start != "euler")
    throw BadInput("--dsocs-start: unknown start '" + a.dsocs_start + "' (known: taylor2, euler)");
  o.dsocs_start = a.dsocs_start;
  if (!a.tolerance.empty()) {
    o.newton.tolerance = parse_number("--tolerance", a.tolerance);
    if (!(o.newton.tolerance > 0)) throw BadInput("--tolerance: must be positive");
    o.reference_tolerance = std::max(o.newton.tolerance, 1e-15);
  }
  if (!a.shooting_tolerance.empty()) {
    o.shooting_tolerance = parse_number("--shooting-tolerance", a.shooting_tolerance);
    if (!(o.shooting_tolerance >= 1e-12 && o.shooting_tolerance <= 1e-6))
      throw BadInput("--shooting-tolerance: must lie in [1e-12, 1e-6], got " + a.shooting_tolerance);
  }
  if (!a.max_iterations.empty()) {
    o.newton.max_iterations = static_cast<int>(parse_count("--max-iterations", a.max_iterations));
    if (o.newton.max_iterations < 1) throw BadInput("--max-iterations: must be at least 1");
  }
  InitialData init;
  if (!a.z0.empty()) init.z0 = parse_number("--z0", a.z0);
  if (!a.q0.empty()) init.q0 = parse_list("--q0", a.q0);
  if (!a.v0.empty()) init.v0 = parse_list("--v0", a.v0);
  if (!a.q1.empty()) init.q1 = parse_list("--q1", a.q1);

  const RunResult result = entry.run(parse_parameters(a.params), init, o);

  if (a.out.empty()) {
    write_csv(std::cout, result.trajectory);
    std::cout.flush();
  } else {
    std::ostringstream csv;
    write_csv(csv, result.trajectory);
    write_file_atomically(a.out, csv.str());
  }
  if (!a.summary.empty()) write_file_atomically(a.summary, summary_json(result.summary).dump(2) + "\n");
  if (result.failed()) {
    std::cerr << "dalembert: " << result.summary.message << "; kept " << result.summary.steps
              << " completed step(s)\n";
    return 3;
  }
  return 0;
}

}  // namespace
}  // namespace dalembert::cli

int main(int argc, char** argv) {
  using namespace dalembert;
  using namespace dalembert::cli;
  CLI::App app{"dalembert: structure-preserving integrators for nonholonomic mechanics"};
  app.require_subcommand(1);

  auto* list = app.add_subcommand("list", "systems and methods, one name per line, in two sections");

  std::string describe_name;
  bool describe_json = false;
  std::vector<std::string> describe_params;
  auto* describe = app.add_subcommand("describe", "coordinates, parameters, default initial data of a system");
  describe->add_option("SYSTEM", describe_name, "catalogue system or model file (.toml)")->required();
  describe->add_flag("--json", describe_json, "machine-readable output");
  describe->add_option("--param", describe_params, "override a parameter: name=value");

  RunArguments ra;
  auto* run = app.add_subcommand("run", "integrate a system and write a CSV trajectory");
  run->add_option("SYSTEM", ra.system, "catalogue system or model file (.toml)")->required();
  run->add_option("--method", ra.method, "integrator (see `dalembert list`)")->required();
  run->add_option("--h", ra.h, "time step")->required();
  run->add_option("--steps", ra.steps, "number of steps");
  run->add_option("--t-end", ra.t_end, "final time (steps = ceil(T/h))");
  run->add_option("--q0", ra.q0, "initial position, comma separated");
  run->add_option("--v0", ra.v0, "initial velocity (must satisfy the constraints)");
  run->add_option("--q1", ra.q1, "second position: start a two-step method from (q0, q1)");
  run->add_option("--z0", ra.z0, "initial action variable of a contact system");
  run->add_option("--param", ra.params, "override a parameter: name=value (repeatable)");
  run->add_option("--alpha", ra.alpha, "alpha of the alpha-rule discrete Lagrangian and constraint (default 0.5)");
  run->add_option("--rule", ra.rule,
                  "discrete Lagrangian: alpha (default) or trapezoid; for herglotz also exponential");
  run->add_option("--fim-start", ra.fim_start,
                  "first momentum of fim/fim-lie: B = G v0 - (h/2) constraint force (default), A = G v0");
  run->add_option("--root-rule", ra.root_rule,
                  "dsocs: root of the discrete constraint, physical (default, the physical branch) or closest "
                  "(the paper's rule: closest to the previous theta)");
  run->add_option("--dsocs-start", ra.dsocs_start,
                  "dsocs from (q0, v0): taylor2 (default, q1 = q0 + h v0 + h^2 a0 / 2) or euler (the paper's, "
                  "q1 = q0 + h v0)");
  run->add_option("--every", ra.every, "write every K-th step (and the last)");
  run->add_option("--out", ra.out, "CSV output file (default: standard output)");
  run->add_option("--summary", ra.summary, "JSON summary file");
  run->add_option("--tolerance", ra.tolerance, "Newton tolerance, relative to the momentum scale (default 1e-13)");
  run->add_option("--max-iterations", ra.max_iterations, "Newton iterations per step (default 30)");
  run->add_option("--shooting-tolerance", ra.shooting_tolerance,
                  "exact: tolerance of the inner integration and shooting, 1e-12 to 1e-6 (default 1e-12)");

  const auto studies = add_study_commands(app);
  const auto ensemble = add_ensemble_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "dalembert: " << e.what() << "\n(run `dalembert --help`)\n";
    return 2;
  }
  try {
    if (*list) return list_command();
    if (*describe) return describe_command(describe_name, describe_json, describe_params);
    if (*run) return run_command(ra);
    if (const int status = run_study_command(*studies); status >= 0) return status;
    if (const int status = run_ensemble_command(*ensemble); status >= 0) return status;
  } catch (const BadInput& e) {
    std::cerr << "dalembert: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dalembert: internal error: " << e.what() << '\n';
    return 4;
  }
  return 0;
}
