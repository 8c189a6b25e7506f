// The dalembert command: list, describe, run, steady, conjugate, exp, jacobi (the contract: docs/architecture.md,
// README.md), the studies reproduce, compare, convergence (cli/study_commands.cpp) and ensemble
// (cli/ensemble_command.cpp);
// `dalembert --version` prints `dalembert VERSION`: the release (dalembert/version.hpp) and the
// commit the binary was built from (support/build_identity.hpp).
// Exit status: 0 success, 2 bad input (message on stderr), 3 numerical failure (partial output kept)
// or, with run --strict, warnings; 4 internal error; 128 + signal for a run stopped by SIGINT or
// SIGTERM (its rows kept).
#include <malloc.h>

#include <algorithm>
#include <csignal>
#include <cmath>
#include <complex>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include "dalembert/solve/step_limits.hpp"
#include <dalembert/io/method_descriptions.hpp>
#include <dalembert/version.hpp>

#include "catalogue/catalogue.hpp"
#include "cli/ensemble_command.hpp"
#include "cli/output.hpp"
#include "cli/parse.hpp"
#include "cli/progress.hpp"
#include "cli/run_arguments.hpp"
#include "cli/study_commands.hpp"
#include "modelfile/entry.hpp"
#include "modelfile/jacobi_field.hpp"
#include "modelfile/stepper.hpp"
#include "support/build_identity.hpp"
#include "support/data.hpp"
#include "support/digest.hpp"
#include "support/output_file.hpp"
#include "support/text.hpp"

namespace dalembert::cli {
namespace {

using support::printable;

/// The entries of x, for JSON.
std::vector<double> entries(const Eigen::VectorXd& x) { return std::vector<double>(x.data(), x.data() + x.size()); }

/// `label` and the entries of x as --q0 takes them, comma-separated, on a line.
void print_entries(const std::string& label, const Eigen::VectorXd& x) {
  std::cout << label;
  for (Eigen::Index i = 0; i < x.size(); ++i) std::cout << (i ? "," : "") << x[i];
  std::cout << '\n';
}

/// The loaded model file `name` names, or the one installed for the compiled system `name`
/// (modelfile::model_file_behind), for `what`, which is computed for model files only.
std::shared_ptr<const modelfile::LoadedModel> model_file_named(const std::string& name, const std::string& what) {
  auto model = modelfile::model_file_behind(catalogue::find(name));
  if (!model)
    throw BadInput(what + " computed for model files (docs/jacobi-fields.md); " + name +
                   " is a compiled catalogue system without one: write it as a model file");
  return model;
}

/// The positive number `text` of the option `flag` (`option` as RunOptions names it).
double positive_number(const std::string& flag, const std::string& option, const std::string& text) {
  const double x = parse_number(flag, text);
  if (!(x > 0)) throw BadOption(option, "must be a positive number, got " + text);
  return x;
}

/// Systems, methods and the model files found by name in three sections, a line each: the name,
/// then (unless `names_only`) a one-line description and, for a method, the kinds of system it runs
/// on, for a model file its path.
int list_command(bool names_only) {
  std::size_t width = 0;
  for (const auto& e : catalogue::entries()) width = std::max(width, e.name.size());
  for (const auto& file : support::named_model_files()) width = std::max(width, file.name.size());
  const auto line = [&](std::string_view name, const std::string& description) {
    std::cout << name;
    if (!names_only) std::cout << std::string(width + 2 - name.size(), ' ') << description;
    std::cout << '\n';
  };
  std::cout << "systems:\n";
  for (const auto& e : catalogue::entries()) line(e.name, e.describe({}).summary);
  std::cout << "\nmethods:\n";
  for (const auto& m : method_descriptions) line(m.name, std::string(m.summary) + " [" + std::string(m.systems) + "]");
  // model files that describe, run and the studies take by name (./models, then dalembert's own)
  std::cout << "\nmodel files:\n";
  for (const auto& file : support::named_model_files()) line(file.name, file.path);
  return 0;
}

int describe_command(const std::string& name, bool json, const std::vector<std::string>& params) {
  const auto d = catalogue::find(name).describe(parse_parameters(params));
  if (json) {
    nlohmann::ordered_json j;
    j["name"] = d.name;
    j["coordinates"] = d.coordinates;
    j["velocities"] = d.velocities;
    nlohmann::ordered_json p = nlohmann::ordered_json::object();
    for (const auto& x : d.parameters) p[x.name] = x.value;
    j["parameters"] = p;
    j["initial"] = {{"q", d.q0}, {"v", d.v0}};
    if (d.z0) j["initial"]["z"] = *d.z0;
    j["constraints"] = d.constraints;
    j["holonomic_constraints"] = d.holonomic_constraints;
    j["holonomic_constraints_depend_on_time"] = d.holonomic_constraints_depend_on_time;
    j["affine_constraints"] = d.affine_constraints;
    j["constraints_depend_on_time"] = d.constraints_depend_on_time;
    j["summary"] = d.summary;
    j["closed_form"] = d.closed_form;
    j["external_force"] = d.external_force;
    j["force_depends_on_time"] = d.force_depends_on_time;
    j["lagrangian_depends_on_time"] = d.lagrangian_depends_on_time;
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
  std::cout << "\nconstraints: " << d.constraints;
  if (d.holonomic_constraints > 0 || d.affine_constraints > 0) {
    std::cout << " (of which ";
    if (d.holonomic_constraints > 0)
      std::cout << d.holonomic_constraints << " holonomic"
                << (d.holonomic_constraints_depend_on_time ? ", phi(q, t) = 0" : "");
    if (d.holonomic_constraints > 0 && d.affine_constraints > 0) std::cout << ", ";
    if (d.affine_constraints > 0)
      std::cout << d.affine_constraints << " affine, M(q) v + " << (d.constraints_depend_on_time ? "b(q, t)" : "b(q)")
                << " = 0";
    std::cout << ")";
  }
  std::cout << "\nexternal force: "
            << (d.external_force ? (d.force_depends_on_time ? "yes, depends on t" : "yes") : "no");
  if (d.lagrangian_depends_on_time) std::cout << "\nlagrangian: depends on t (its time-dependent part acts as a force)";
  std::cout << "\nparameters:";
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

std::vector<double> values_of(const Eigen::VectorXd& x) { return {x.data(), x.data() + x.size()}; }

/// What a run's summary records about where it came from, enough to run it again: the version and
/// build of dalembert, the command line, the parameters and initial data actually used (the
/// system's defaults where none were given) and every run option.
nlohmann::ordered_json provenance_json(const std::vector<std::string>& command_line, const catalogue::Entry& entry,
                                       const catalogue::ParameterValues& given, const InitialData& init,
                                       const RunOptions& o) {
  const auto d = entry.describe(given);
  nlohmann::ordered_json j;
  j["dalembert"] = {{"version", support::full_version()},
                    {"commit", std::string(support::build_commit())},
                    {"modified", support::build_modified()},
                    {"compiler", __VERSION__},
                    {"build_type", DALEMBERT_BUILD_TYPE}};
  j["command_line"] = command_line;
  if (entry.source_text)  // the model as it was read: the run can be repeated even if the file changes
    j["model_file"] = {{"path", entry.name},
                       {"sha256", support::sha256_hex(*entry.source_text)},
                       {"text", *entry.source_text}};
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  for (const auto& p : d.parameters) parameters[p.name] = p.value;
  j["parameters"] = parameters;
  nlohmann::ordered_json initial;
  initial["q0"] = init.q0.size() ? values_of(init.q0) : d.q0;
  if (init.q1) initial["q1"] = values_of(*init.q1);
  else if (!init.v0_names.empty()) {  // as given: the summary's completed_v0 holds the whole v0
    nlohmann::ordered_json named = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < init.v0_names.size(); ++k)
      named[init.v0_names[k]] = init.v0[static_cast<Eigen::Index>(k)];
    initial["v0"] = named;
  } else initial["v0"] = init.v0.size() ? values_of(init.v0) : d.v0;
  if (init.z0 || d.z0) initial["z0"] = init.z0 ? *init.z0 : *d.z0;
  if (init.project_v0) initial["project_v0"] = true;
  j["initial"] = initial;
  j["options"] = run_options_json(o);
  return j;
}

int run_command(const std::string& system, const RunArguments& a, const std::string& out, const std::string& format,
                const std::optional<std::string>& summary, bool progress, bool strict,
                const std::vector<std::string>& command_line) {
  const auto& entry = catalogue::find(system);
  RunOptions options = a.options();
  const InitialData init = a.initial();
  const auto parameters = a.parameters();
  // Open the outputs before running: a path that cannot be written fails now, not after the run.
  support::OutputFile rows_file("--out", out);
  std::optional<support::OutputFile> summary_file;
  if (summary) summary_file.emplace("--summary", *summary);
  // after the paths: an output naming an input is refused as such, whatever its extension
  const OutputFormat rows_format = output_format(out, format);

  // Rows go to the file as they are computed; SIGINT or SIGTERM ends the run after its current
  // step, with what was computed written as after a failure.
  std::unique_ptr<RunRowWriter> writer;
  if (rows_format == OutputFormat::npz) writer = std::make_unique<NpzRowWriter>(rows_file);
  else writer = std::make_unique<CsvRowWriter>(rows_file);
  ProgressLine line("steps", options.steps, progress);
  RowsWithProgress rows(*writer, line);
  const support::StopOnSignal stop;
  options.rows = &rows;
  options.stop = &stop.requested();
  const RunResult result = entry.run(parameters, init, options);
  line.finish(result.summary.steps);

  writer->finish(result.trajectory.columns);
  rows_file.commit();
  // --strict: warnings fail the run, and its summary says so
  const bool strict_failure = strict && !result.failed() && !result.summary.warnings.empty();
  if (summary_file) {
    nlohmann::ordered_json j = summary_json(result.summary);
    if (strict_failure) {
      j["status"] = "warnings";
      j["message"] = "--strict: the run has " + std::to_string(result.summary.warnings.size()) + " warning(s)";
    }
    j["provenance"] = provenance_json(command_line, entry, parameters, init, options);
    // a command line need not be UTF-8: invalid bytes are replaced, not refused
    summary_file->write(j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
    summary_file->commit();
  }
  for (const auto& w : result.summary.warnings) std::cerr << "dalembert: warning: " << printable(w.message) << '\n';
  if (result.failed()) {
    std::cerr << "dalembert: " << printable(result.summary.message) << "; kept " << result.summary.steps
              << " completed step(s)\n";
  }
  if (const int signal = stop.requested().load(); signal != 0) return 128 + signal;
  if (result.failed()) return 3;
  if (strict_failure) {
    std::cerr << "dalembert: --strict: the run has " << result.summary.warnings.size() << " warning(s)\n";
    return 3;
  }
  return 0;
}

/// The eigenvalues of the steady motion through (q0, v0), or of the one nearest it, on the
/// linearised constraint (docs/methods.md, Steady motions and their stability): as text, or JSON
/// with `json`.
int steady_command(const std::string& name, const RunArguments& a, const catalogue::SteadyRequest& request,
                   bool json) {
  const catalogue::Entry& entry = catalogue::find(name);
  if (!entry.steady)
    throw BadInput("steady motions are those of Lagrange-d'Alembert models of compiled sizes or from a file; " + name +
                   " is not one");
  InitialData init = a.initial();
  const bool with_step = a.step_given();
  const auto model = with_step ? modelfile::model_file_behind(entry) : nullptr;
  if (with_step && !model)
    throw BadInput("--method: the eigenvalues of a step are computed for model files; " + name +
                   " is a compiled catalogue system without one: write it as a model file");
  const catalogue::SteadyMotion motion = entry.steady(a.parameters(), init, request);
  // the step's linearisation at the motion found or given, with the same symmetry
  std::optional<catalogue::SteadyMotion> step;
  RunOptions options;
  if (with_step) {
    options = a.options();
    InitialData start;
    start.q0 = motion.q0;
    start.v0 = motion.v0;
    // the motion's symmetry (a compiled system's declared cyclic coordinates by name) and what find held
    catalogue::SteadyRequest symmetry = request;
    symmetry.symmetric = motion.symmetric;
    step = modelfile::Stepper(model, a.parameters(), start, options).steady_motion(symmetry);
  }
  const auto sorted = [](const Eigen::VectorXcd& x) {
    std::vector<std::complex<double>> out(x.data(), x.data() + x.size());
    std::sort(out.begin(), out.end(), [](const auto& u, const auto& w) {
      return u.real() != w.real() ? u.real() > w.real() : u.imag() > w.imag();
    });
    return out;
  };
  const std::vector<std::complex<double>> values = sorted(motion.eigenvalues);
  const double largest = values.empty() ? 0.0 : values.front().real();
  std::vector<std::string> rate_names = motion.symmetric;  // a translation by its coordinate's name
  if (!motion.rotation.empty()) rate_names.push_back("rotation");
  if (json) {
    nlohmann::ordered_json j;
    j["system"] = name;
    j["symmetric"] = motion.symmetric;
    if (!motion.rotation.empty()) j["rotation"] = motion.rotation;
    j["rates"] = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < rate_names.size(); ++i)
      j["rates"][rate_names[i]] = motion.rates[static_cast<Eigen::Index>(i)];
    j["q0"] = entries(motion.q0);
    j["v0"] = entries(motion.v0);
    if (request.find) j["iterations"] = motion.iterations;
    j["eigenvalues"] = nlohmann::ordered_json::array();
    for (const auto& x : values) j["eigenvalues"].push_back({x.real(), x.imag()});
    j["largest_real_part"] = largest;
    j["resolution"] = motion.resolution;
    j["growing_modes"] = motion.growing_modes;
    if (step) {
      nlohmann::ordered_json d;
      d["method"] = options.method;
      d["h"] = options.h;
      d["iterations"] = step->iterations;
      d["q0"] = entries(step->q0);
      d["v0"] = entries(step->v0);
      d["rates"] = nlohmann::ordered_json::object();
      for (std::size_t i = 0; i < rate_names.size(); ++i)
        d["rates"][rate_names[i]] = step->rates[static_cast<Eigen::Index>(i)];
      d["eigenvalues"] = nlohmann::ordered_json::array();
      for (const auto& x : sorted(step->eigenvalues)) d["eigenvalues"].push_back({x.real(), x.imag()});
      d["multipliers"] = nlohmann::ordered_json::array();
      for (const auto& x : step->multipliers) d["multipliers"].push_back({x.real(), x.imag()});
      d["resolution"] = step->resolution;
      d["growing_modes"] = step->growing_modes;
      j["step"] = std::move(d);
    }
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  std::cout.precision(12);
  std::cout << "steady motion of " << name << '\n';
  if (request.find) std::cout << "found in " << motion.iterations << " Gauss-Newton iteration(s)\n";
  const auto print_motion = [&](const catalogue::SteadyMotion& m) {
    print_entries("  q0 ", m.q0);
    print_entries("  v0 ", m.v0);
    std::cout << "rates of the symmetry:\n";
    for (std::size_t i = 0; i < rate_names.size(); ++i) {
      std::string label = "translation of " + rate_names[i];
      if (i == m.symmetric.size()) {  // the rotation
        label = "rotation of (" + m.rotation[0] + ", " + m.rotation[1] + ")";
        if (m.rotation.size() == 3) label += " turning " + m.rotation[2];
      }
      std::cout << "  " << label << ": " << m.rates[static_cast<Eigen::Index>(i)] << '\n';
    }
  };
  print_motion(motion);
  const auto print_values = [](const std::vector<std::complex<double>>& xs) {
    for (const auto& x : xs) {
      std::cout << "  " << x.real();
      if (x.imag() != 0) std::cout << (x.imag() > 0 ? " + " : " - ") << std::abs(x.imag()) << "i";
      std::cout << '\n';
    }
  };
  std::cout << "eigenvalues on the linearised constraint (" << values.size() << "):\n";
  print_values(values);
  std::cout.precision(2);
  std::cout << (motion.growing_modes ? "unstable: " + std::to_string(motion.growing_modes) + " growing mode(s)"
                                     : "no growing mode: linearly stable or neutral to first order")
            << "\n(real parts within " << motion.resolution << " count as zero)\n";
  if (step) {
    std::cout.precision(12);
    std::cout << "steady motion of the " << options.method << " step at h = " << options.h << ", found in "
              << step->iterations << " Gauss-Newton iteration(s)\n";
    print_motion(*step);
    std::cout << "rates log(mu)/h of the step there (" << step->eigenvalues.size() << "):\n";
    print_values(sorted(step->eigenvalues));
  }
  return 0;
}

/// The points conjugate to q0 along the trajectory from (q0, v0) of a model file in (0, t_end]
/// (docs/jacobi-fields.md): as text, or JSON with `json`. SIGINT or SIGTERM stops the search.
int conjugate_command(const std::string& name, const RunArguments& a, const std::string& t_end_text,
                      const std::string& samples_text, bool json) {
  const auto model = model_file_named(name, "conjugate points are");
  const double t_end = positive_number("--t-end", "t_end", t_end_text);
  const int samples = static_cast<int>(parse_whole("--samples", samples_text, 3, 1000000));
  const support::StopOnSignal stop;
  const auto points = modelfile::conjugate_points(model, a.parameters(), a.initial(), t_end, samples, 1e-12,
                                                  &stop.requested());
  if (json) {
    nlohmann::ordered_json j;
    j["system"] = name;
    j["t_end"] = t_end;
    j["samples"] = samples;
    j["conjugate_points"] = nlohmann::ordered_json::array();
    for (const auto& c : points) {
      nlohmann::ordered_json p;
      p["t"] = c.t;
      p["multiplicity"] = c.multiplicity;
      p["directions"] = nlohmann::ordered_json::array();
      for (Eigen::Index k = 0; k < c.directions.cols(); ++k)
        p["directions"].push_back(std::vector<double>(c.directions.col(k).begin(), c.directions.col(k).end()));
      p["smallest_singular_value"] = c.smallest_singular_value;
      p["relative_size"] = c.relative_size;
      j["conjugate_points"].push_back(std::move(p));
    }
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  std::cout << "points conjugate to q0 along the trajectory of " << printable(name) << " in (0, "
            << format_number(t_end) << "]: " << points.size() << '\n';
  std::cout.precision(12);
  for (const auto& c : points) {
    std::cout << "  t = " << c.t << "  multiplicity " << c.multiplicity << "  relative size "
              << format_residual(c.relative_size) << "  directions";
    for (Eigen::Index k = 0; k < c.directions.cols(); ++k) {
      std::cout << (k ? ", (" : " (");
      for (Eigen::Index i = 0; i < c.directions.rows(); ++i)
        std::cout << (i ? ", " : "") << format_number(c.directions(i, k));
      std::cout << ')';
    }
    std::cout << '\n';
  }
  return 0;
}

/// The nonholonomic exponential map exp_h(v0) of a model file from q0 and its differential on an
/// orthonormal basis of D(q0), with the pulled-back metric and the two sides of the Gauss condition
/// (docs/jacobi-fields.md): as text, or JSON with `json`.
int exp_command(const std::string& name, const RunArguments& a, const std::string& h_text, bool json) {
  const auto model = model_file_named(name, "the exponential map is");
  const double h = positive_number("--h", "h", h_text);
  const support::StopOnSignal stop;
  const auto e = modelfile::exponential_map(model, a.parameters(), a.initial(), h, {}, 1e-12, &stop.requested());
  const auto columns = [&](const Eigen::MatrixXd& X) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (Eigen::Index k = 0; k < X.cols(); ++k) out.push_back(entries(X.col(k)));
    return out;
  };
  if (json) {
    nlohmann::ordered_json j;
    j["system"] = name;
    j["h"] = h;
    j["q"] = entries(e.q);
    j["v"] = entries(e.v);
    j["directions"] = columns(e.directions);
    j["differential"] = columns(e.differential);
    j["metric"] = columns(e.metric);
    j["radial"] = entries(e.radial);
    j["initial"] = entries(e.initial);
    std::cout << j.dump(2) << '\n';
    return 0;
  }
  std::cout.precision(12);
  std::cout << "exponential map of " << name << " over h = " << h << '\n';
  print_entries("  q(h)  ", e.q);
  print_entries("  q'(h) ", e.v);
  std::cout << "an orthonormal basis w of D(q0), the differential T exp_h w and the pulled-back metric "
               "G0(w_a, w_b), a column each:\n";
  for (Eigen::Index k = 0; k < e.directions.cols(); ++k) {
    std::cout << "  w_" << k + 1 << '\n';
    print_entries("    w            ", e.directions.col(k));
    print_entries("    T exp_h w    ", e.differential.col(k));
    print_entries("    G0(w_a, w)   ", e.metric.col(k));
    std::cout << "    Gauss condition: G0(v0)(v0, w) = " << e.radial[k] << ", h^2 G(q0)(v0, w) = " << e.initial[k]
              << '\n';
  }
  return 0;
}

/// The Jacobi field of a model file from (dq0, dv0) along the trajectory from (q0, v0), sampled at
/// `samples` + 1 equal times of [0, t_end] (docs/jacobi-fields.md), as CSV on standard output: t,
/// the coordinates, the field W_i, its derivative W_i_t and the linearised constraint's residual.
/// SIGINT or SIGTERM stops it.
int jacobi_command(const std::string& name, const RunArguments& a, const std::string& dq0_text,
                   const std::string& dv0_text, bool project_dv0, const std::string& t_end_text,
                   const std::string& samples_text) {
  const auto model = model_file_named(name, "Jacobi fields are");
  const Eigen::VectorXd dq0 = parse_list("--dq0", dq0_text), dv0 = parse_list("--dv0", dv0_text);
  const double t_end = positive_number("--t-end", "t_end", t_end_text);
  const long samples = parse_whole("--samples", samples_text, 1, 1000000);
  std::vector<double> times(static_cast<std::size_t>(samples) + 1);
  for (long k = 0; k <= samples; ++k) times[static_cast<std::size_t>(k)] = t_end * static_cast<double>(k) / samples;
  const support::StopOnSignal stop;
  const auto field = modelfile::jacobi_field(model, a.parameters(), a.initial(), dq0, dv0, times, project_dv0, 1e-12,
                                             &stop.requested());
  const auto& names = model->spec.coordinates;
  Trajectory rows;
  rows.columns.push_back("t");
  for (const auto& c : names) rows.columns.push_back(c);
  for (const auto& c : names) rows.columns.push_back("W_" + c);
  for (const auto& c : names) rows.columns.push_back(velocity_column("W_" + c));
  rows.columns.push_back("linearised_constraint");
  for (std::size_t k = 0; k < field.t.size(); ++k) {
    const auto row = static_cast<Eigen::Index>(k);
    rows.values.push_back(field.t[k]);
    for (const Eigen::MatrixXd* block : {&field.q, &field.W, &field.W_dot})
      for (Eigen::Index i = 0; i < block->cols(); ++i) rows.values.push_back((*block)(row, i));
    rows.values.push_back(field.linearised_constraint[k]);
  }
  write_csv(std::cout, rows);
  return 0;
}

}  // namespace
}  // namespace dalembert::cli

int main(int argc, char** argv) {
  using namespace dalembert;
  using namespace dalembert::cli;
  // A write beyond `ulimit -f` fails with EFBIG, reported like a full disk, instead of killing the
  // process with SIGXFSZ and leaving its temporary files behind.
  ::signal(SIGXFSZ, SIG_IGN);
  // Steps on the heap (model files beyond the bounded size, the chain) allocate and free blocks of
  // tens to hundreds of KB at every step; by default glibc gives the top of its heap back to the
  // kernel and maps large blocks afresh each time, and the page faults then cost more than the
  // steps. Kept instead (docs/decisions.md, Steps on the heap: glibc keeps its memory).
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 64 << 20);
  CLI::App app{"dalembert: structure-preserving integrators for nonholonomic mechanics", "dalembert"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dalembert " + support::full_version(),
                       "print `dalembert VERSION`: the release, and the commit it was built from");

  auto* list = app.add_subcommand(
      "list",
      "systems, methods and model files in three sections, one per line: the name, a description and, for a "
      "method, the kinds of system it runs on in brackets, for a model file its path");
  bool list_names_only = false;
  list->add_flag("--names", list_names_only, "the names only");

  std::string describe_name;
  bool describe_json = false;
  std::vector<std::string> describe_params;
  auto* describe = app.add_subcommand("describe", "coordinates, parameters, default initial data of a system");
  describe->add_option("SYSTEM", describe_name, "catalogue system or model file (.toml)")->required();
  describe->add_flag("--json", describe_json, "machine-readable output");
  describe->add_option("--param", describe_params, "override a parameter (repeatable)")->type_name("NAME=NUMBER ...");

  std::string run_system, run_out, run_summary, run_format;
  RunArguments run_arguments;
  auto* run = app.add_subcommand("run", "integrate a system and write a CSV trajectory");
  run->add_option("SYSTEM", run_system, "catalogue system or model file (.toml)")->required();
  run_arguments.add_to(*run, kMethod | kStepSize | kStepCount | kEvery | kInitialData | kStartOptions | kMethodOptions |
                                 kParameters);
  auto* run_out_option =
      run->add_option("--out", run_out,
                      "output file of the rows: CSV, or NumPy's .npz by the extension (default: standard output; - is "
                      "standard output)")
          ->type_name("FILE");
  run->add_option("--format", run_format, "csv or npz (default: by the extension of --out, csv without one)")
      ->type_name("NAME");
  auto* run_summary_option = run->add_option("--summary", run_summary, "JSON summary file")->type_name("FILE");
  bool run_progress = false, run_quiet = false;
  run->add_flag("--progress", run_progress,
                "show progress on standard error (percentage, rate, time left); the default on a terminal");
  run->add_flag("--quiet", run_quiet, "no progress line");
  bool run_strict = false;
  run->add_flag("--strict", run_strict,
                "exit with status 3 if the run has warnings (they are in the summary either way)");

  std::string steady_system;
  RunArguments steady_arguments;
  catalogue::SteadyRequest steady_request;
  bool steady_json = false;
  auto* steady = app.add_subcommand(
      "steady", "the eigenvalues of a steady motion (relative equilibrium) on the linearised constraint");
  steady->add_option("SYSTEM", steady_system, "catalogue system or model file (.toml)")->required();
  steady_arguments.add_to(*steady, kInitialData | kParameters | kOptionalStep | kMethodOptions);
  steady->add_option("--symmetric", steady_request.symmetric,
                     "the coordinates the system does not depend on, by name (default: those it declares cyclic)")
      ->delimiter(',')
      ->type_name("NAME,...");
  steady->add_option("--rotation", steady_request.rotation,
                     "a rotation of the (X, Y) plane about its origin that leaves the system unchanged, turning "
                     "ANGLE with it")
      ->delimiter(',')
      ->type_name("X,Y[,ANGLE]");
  steady->add_flag("--find", steady_request.find,
                   "find the steady motion nearest (q0, v0) by Gauss-Newton, then linearise there");
  steady->add_option("--hold", steady_request.hold,
                     "with --find: keep these positions (NAME) and velocities (NAME_t) at their values in (q0, v0), "
                     "in the step's own steady motion too with --method")
      ->delimiter(',')
      ->type_name("NAME,...");
  steady->add_flag("--json", steady_json, "machine-readable output");

  std::string conjugate_system, conjugate_t_end, conjugate_samples = "400";
  RunArguments conjugate_arguments;
  bool conjugate_json = false;
  auto* conjugate = app.add_subcommand(
      "conjugate", "the points conjugate to q0 along a model file's trajectory (docs/jacobi-fields.md)");
  conjugate->add_option("SYSTEM", conjugate_system, "model file (.toml)")->required();
  conjugate_arguments.add_to(*conjugate, kInitialData | kParameters);
  conjugate->add_option("--t-end", conjugate_t_end, "search (0, T]")->required()->type_name("T");
  conjugate->add_option("--samples", conjugate_samples,
                        "sample (0, T] at N equal intervals; conjugate points closer than two are missed (default 400)")
      ->type_name("N");
  conjugate->add_flag("--json", conjugate_json, "machine-readable output");

  std::string jacobi_system, jacobi_dq0, jacobi_dv0, jacobi_t_end, jacobi_samples = "100";
  RunArguments jacobi_arguments;
  bool jacobi_project_dv0 = false;
  auto* jacobi = app.add_subcommand(
      "jacobi", "the Jacobi field along a model file's trajectory from a variation of its start, as CSV "
                "(docs/jacobi-fields.md)");
  jacobi->add_option("SYSTEM", jacobi_system, "model file (.toml)")->required();
  jacobi_arguments.add_to(*jacobi, kInitialData | kParameters);
  jacobi->add_option("--dq0", jacobi_dq0, "the variation of q0")->required()->type_name("LIST");
  jacobi->add_option("--dv0", jacobi_dv0, "the variation of v0, tangent to the linearised constraint")
      ->required()
      ->type_name("LIST");
  jacobi->add_flag("--project-dv0", jacobi_project_dv0,
                   "replace dv0 by the nearest variation tangent to the linearised constraint");
  jacobi->add_option("--t-end", jacobi_t_end, "sample [0, T]")->required()->type_name("T");
  jacobi->add_option("--samples", jacobi_samples, "rows after t = 0, at equal intervals (default 100)")
      ->type_name("N");

  std::string exp_system, exp_h = "1";
  RunArguments exp_arguments;
  bool exp_json = false;
  auto* exp = app.add_subcommand("exp",
                                 "the nonholonomic exponential map of a model file at (q0, v0) and its differential on "
                                 "D(q0) (docs/jacobi-fields.md)");
  exp->add_option("SYSTEM", exp_system, "model file (.toml)")->required();
  exp_arguments.add_to(*exp, kInitialData | kParameters);
  exp->add_option("--h", exp_h, "the time h > 0 of exp_h(v0) = q(h) (default 1)")->type_name("NUMBER");
  exp->add_flag("--json", exp_json, "machine-readable output");

  const auto studies = add_study_commands(app);
  const auto ensemble = add_ensemble_command(app);

  // The command, if the first argument names one: error messages point to its --help.
  std::string command;
  std::string commands;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
    if (argc > 1 && sub->get_name() == argv[1]) command = argv[1];
  }
  if (argc == 1) {  // a bare `dalembert`: what it can do
    std::cout << app.help();
    return 0;
  }
  if (argc > 1 && command.empty() && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    std::cerr << "dalembert: unknown command '" << printable(argv[1]) << "'" << support::did_you_mean(argv[1], names)
              << " (known: " << commands << ")\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);  // prints `dalembert VERSION` on standard output, exit status 0
  } catch (const CLI::ParseError& e) {
    std::cerr << "dalembert: " << printable(e.what()) << "\n(run `dalembert " << (command.empty() ? "" : command + " ")
              << "--help`)\n";
    return 2;
  }
  const int status = [&]() -> int {
    try {
      if (*list) return list_command(list_names_only);
      if (*describe) return describe_command(describe_name, describe_json, describe_params);
      if (*run)
        return run_command(run_system, run_arguments, run_out_option->count() ? run_out : "-", run_format,
                           run_summary_option->count() ? std::optional(run_summary) : std::nullopt,
                           show_progress(run_progress, run_quiet), run_strict,
                           std::vector<std::string>(argv, argv + argc));
      if (*steady) return steady_command(steady_system, steady_arguments, steady_request, steady_json);
      if (*conjugate)
        return conjugate_command(conjugate_system, conjugate_arguments, conjugate_t_end, conjugate_samples,
                                 conjugate_json);
      if (*exp) return exp_command(exp_system, exp_arguments, exp_h, exp_json);
      if (*jacobi)
        return jacobi_command(jacobi_system, jacobi_arguments, jacobi_dq0, jacobi_dv0, jacobi_project_dv0,
                              jacobi_t_end, jacobi_samples);
      if (const int status = run_study_command(*studies); status >= 0) return status;
      if (const int status = run_ensemble_command(*ensemble); status >= 0) return status;
    } catch (const BadInput& e) {
      std::cerr << "dalembert: " << printable(command_line_message(e)) << '\n';
      return 2;
    } catch (const NumericalFailure& e) {
      std::cerr << "dalembert: " << printable(e.what()) << '\n';
      return 3;
    } catch (const Interrupted& e) {
      std::cerr << "dalembert: " << printable(e.what()) << '\n';
      return 128 + e.signal();
    } catch (const std::exception& e) {
      std::cerr << "dalembert: internal error: " << printable(e.what()) << '\n';
      return 4;
    }
    return 0;
  }();
  // Output that standard output did not take (a full disk, /dev/full) is lost: the command failed.
  if (std::cout.flush(); !std::cout) {
    std::cerr << "dalembert: standard output cannot be written (a full disk?): what it shows is incomplete\n";
    return status == 0 ? 2 : status;
  }
  return status;
}
