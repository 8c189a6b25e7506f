// The dalembert command: list, describe, run (the contract is ../shared/DESIGN.md), the
// studies reproduce, compare, convergence (cli/study_commands.cpp) and ensemble (cli/ensemble_command.cpp).
// Exit status: 0 success, 2 bad input (message on stderr), 3 numerical failure (partial output kept).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>

#include "catalogue/catalogue.hpp"
#include "cli/ensemble_command.hpp"
#include "cli/output.hpp"
#include "cli/parse.hpp"
#include "cli/run_arguments.hpp"
#include "cli/study_commands.hpp"
#include "support/output_file.hpp"

namespace dalembert::cli {
namespace {

/// A message for the terminal: control characters (from a file name or a model file) escaped.
std::string printable(const std::string& message) {
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

int run_command(const std::string& system, const RunArguments& a, const std::string& out,
                const std::optional<std::string>& summary) {
  const auto& entry = catalogue::find(system);
  const RunOptions options = a.options();
  const InitialData init = a.initial();
  const auto parameters = a.parameters();
  // Open the outputs before running: a path that cannot be written fails now, not after the run.
  support::OutputFile csv_file("--out", out);
  std::optional<support::OutputFile> summary_file;
  if (summary) summary_file.emplace("--summary", *summary);

  const RunResult result = entry.run(parameters, init, options);

  std::ostringstream csv;
  write_csv(csv, result.trajectory);
  csv_file.write(csv.str());
  csv_file.commit();
  if (summary_file) {
    summary_file->write(summary_json(result.summary).dump(2) + "\n");
    summary_file->commit();
  }
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

  std::string run_system, run_out, run_summary;
  RunArguments run_arguments;
  auto* run = app.add_subcommand("run", "integrate a system and write a CSV trajectory");
  run->add_option("SYSTEM", run_system, "catalogue system or model file (.toml)")->required();
  run_arguments.add_to(*run, kMethod | kStepSize | kStepCount | kEvery | kInitialData | kStartOptions | kDiscretisation |
                                 kNewton | kMethodSpecific | kParameters);
  auto* run_out_option =
      run->add_option("--out", run_out, "CSV output file (default: standard output; - is standard output)")->type_name("FILE");
  auto* run_summary_option = run->add_option("--summary", run_summary, "JSON summary file")->type_name("FILE");

  const auto studies = add_study_commands(app);
  const auto ensemble = add_ensemble_command(app);

  // The command, if the first argument names one: error messages point to its --help.
  std::string command;
  std::string commands;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
    if (argc > 1 && sub->get_name() == argv[1]) command = argv[1];
  }
  if (argc > 1 && command.empty() && argv[1][0] != '-') {
    std::cerr << "dalembert: unknown command '" << argv[1] << "' (known: " << commands << ")\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "dalembert: " << e.what() << "\n(run `dalembert " << (command.empty() ? "" : command + " ")
              << "--help`)\n";
    return 2;
  }
  try {
    if (*list) return list_command();
    if (*describe) return describe_command(describe_name, describe_json, describe_params);
    if (*run)
      return run_command(run_system, run_arguments, run_out_option->count() ? run_out : "-",
                         run_summary_option->count() ? std::optional(run_summary) : std::nullopt);
    if (const int status = run_study_command(*studies); status >= 0) return status;
    if (const int status = run_ensemble_command(*ensemble); status >= 0) return status;
  } catch (const BadInput& e) {
    std::cerr << "dalembert: " << printable(e.what()) << '\n';
    return 2;
  } catch (const NumericalFailure& e) {
    std::cerr << "dalembert: " << printable(e.what()) << '\n';
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "dalembert: internal error: " << printable(e.what()) << '\n';
    return 4;
  }
  return 0;
}
