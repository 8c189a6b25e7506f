#include "cli/study_commands.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>

#include "analysis/study.hpp"
#include "cli/parse.hpp"
#include "cli/progress.hpp"
#include "cli/run_arguments.hpp"
#include "ensemble/ensemble.hpp"
#include "report/figures.hpp"
#include "report/report.hpp"
#include "support/output_file.hpp"
#include "support/text.hpp"

namespace dalembert::cli {

namespace fs = std::filesystem;

/// Arguments shared by compare and convergence: the problem, the run options and --out-dir.
struct ProblemArguments {
  std::string system, out_dir;
  CLI::Option* out_dir_option = nullptr;
  RunArguments run;

  void add_to(CLI::App* cmd, unsigned run_groups) {
    cmd->add_option("SYSTEM", system, "catalogue system or model file (.toml)")->required();
    run.add_to(*cmd, run_groups | kInitialData | kMethodOptions | kParameters);
    out_dir_option = cmd->add_option("--out-dir", out_dir, "directory for the CSV and the figures")->type_name("DIR");
  }
  /// The system's name in directory names and titles: a model file's stem ("models/top.toml" -> "top").
  std::string label() const {
    for (const auto& e : catalogue::entries())
      if (e.name == system) return system;
    return fs::path(system).stem().string();
  }
  /// --out-dir, or `fallback` if not given; checked (and created) before anything runs.
  std::string prepare_out_dir(const std::string& fallback) const {
    const std::string dir = out_dir_option->count() ? out_dir : fallback;
    support::prepare_directory("--out-dir", dir);
    return dir;
  }
  analysis::Problem problem() const { return {&catalogue::find(system), run.parameters(), run.initial()}; }
};

struct StudyCommands {
  CLI::App* reproduce = nullptr;
  CLI::App* compare = nullptr;
  CLI::App* convergence = nullptr;
  std::vector<std::string> only;
  std::string reproduce_out = "results";
  std::string reproduce_threads;
  CLI::Option* reproduce_threads_option = nullptr;
  bool quick = false;
  ProblemArguments compare_args, convergence_args;
  std::string methods, convergence_methods;
  CLI::Option *convergence_method_option = nullptr, *convergence_methods_option = nullptr;
  std::string h_list, convergence_t_end;
  bool progress = false, quiet = false;
  bool no_figures = false;
};

namespace {

void add_figures_flag(CLI::App* cmd, StudyCommands& c) {
  cmd->add_flag("--no-figures", c.no_figures, "write the tables only, no figures (no Python needed)");
}

void add_progress_flags(CLI::App* cmd, StudyCommands& c) {
  cmd->add_flag("--progress", c.progress,
                "show progress on standard error (runs done, rate, time left); the default on a terminal");
  cmd->add_flag("--quiet", c.quiet, "no progress line");
}

/// The runs of the reference solver a study makes per time grid: none where there is a closed form.
long reference_runs(const analysis::Problem& problem) {
  return problem.system->describe(problem.parameters).closed_form ? 0 : 1;
}

/// A progress line counting the runs a study makes (at most `most` of them) while it lives.
class RunsWithProgress {
 public:
  RunsWithProgress(long most, const StudyCommands& c) : line_("runs", most, show_progress(c.progress, c.quiet)) {
    analysis::after_each_run([this] { line_.update(++done_); });
  }
  ~RunsWithProgress() {
    analysis::after_each_run({});
    line_.finish(done_);
  }
  RunsWithProgress(const RunsWithProgress&) = delete;
  RunsWithProgress& operator=(const RunsWithProgress&) = delete;

 private:
  ProgressLine line_;
  long done_ = 0;
};

}  // namespace

std::shared_ptr<StudyCommands> add_study_commands(CLI::App& app) {
  auto c = std::make_shared<StudyCommands>();
  c->reproduce = app.add_subcommand("reproduce", "rerun the papers' experiments: CSV, figures, report.md and report.html");
  c->reproduce->add_option("--only", c->only, "run only these experiments (repeatable)")->type_name("NAME");
  c->reproduce->add_option("--out", c->reproduce_out, "output directory (default results)")->type_name("DIR");
  c->reproduce->add_flag("--quick", c->quick, "reduced step counts (the verdict checks stay meaningful)");
  c->reproduce->add_flag("--quiet", c->quiet,
                         "no line per experiment on standard output (the report is written all the same)");
  c->reproduce_threads_option =
      c->reproduce->add_option("--threads", c->reproduce_threads, "experiments run at once, 1..4096 (default: all cores)")
          ->type_name("N");
  add_figures_flag(c->reproduce, *c);

  c->compare = app.add_subcommand("compare", "run methods side by side: energy error, constraint, error over time");
  c->compare_args.add_to(c->compare, kStepSize | kStepCount | kEvery);
  c->compare->add_option("--methods", c->methods, "comma-separated methods")->required()->type_name("LIST");
  add_progress_flags(c->compare, *c);
  add_figures_flag(c->compare, *c);

  c->convergence = app.add_subcommand("convergence", "errors against the reference for several step sizes, fitted order");
  c->convergence_args.add_to(c->convergence, kMethod);
  c->convergence_method_option = c->convergence->get_option("--method")->required(false);  // or --methods
  c->convergence_methods_option = c->convergence->add_option("--methods", c->convergence_methods,
                             "comma-separated methods, each fitted and drawn in one figure (instead of --method)")
      ->type_name("LIST");
  c->convergence->add_option("--h-list", c->h_list, "comma-separated step sizes, each dividing --t-end")
      ->required()
      ->type_name("LIST");
  c->convergence->add_option("--t-end", c->convergence_t_end, "final time T > 0")->required()->type_name("NUMBER");
  add_progress_flags(c->convergence, *c);
  add_figures_flag(c->convergence, *c);
  return c;
}

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = s.find(',', start);
    std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

/// --methods a,b,c as a list: each method once, at least one.
std::vector<std::string> method_list(const std::string& text) {
  const auto methods = split(text);
  if (methods.empty()) throw BadInput("--methods: give at least one method, got '" + text + "'");
  for (std::size_t i = 0; i < methods.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (methods[i] == methods[j])
        throw BadInput("--methods: " + methods[i] + " is given twice in '" + text + "' (its columns would repeat)");
  return methods;
}

int compare(const StudyCommands& c) {
  const auto problem = c.compare_args.problem();
  const RunOptions o = c.compare_args.run.options();
  const auto methods = method_list(c.methods);
  const std::string dir = c.compare_args.prepare_out_dir("compare-" + c.compare_args.label());
  analysis::take_warnings();
  const auto cmp = [&] {
    RunsWithProgress progress(static_cast<long>(methods.size()) + reference_runs(problem), c);
    return analysis::compare_methods(problem, methods, o);
  }();
  const std::string csv = dir + "/compare.csv";
  report::write_table(csv, cmp.table);
  std::vector<report::Figure> figures;
  const std::string title = report::plain_text(c.compare_args.label()) + ", h = " + report::format(o.h);
  struct Panel {
    const char* column;
    const char* stem;
    const char* ylabel;
  };
  for (const Panel p : {Panel{"energy_error", "energy_error", "|E_k - E_0|"},
                        Panel{"constraint", "constraint", "|M(q_k) v_k| (continuous constraint)"},
                        Panel{"error", "error", "max |q_k - q_ref(t_k)|"}}) {
    report::Figure f{dir + "/" + p.stem, title + ": " + p.stem, "t", p.ylabel, "linear", "log", false, {}};
    for (const auto& m : methods) f.series.push_back({csv, "t", m + ":" + p.column, m, "line", "abs"});
    figures.push_back(f);
  }
  const std::string figure_failure = c.no_figures ? "" : report::render(figures, dir);
  std::cout << "reference: " << cmp.reference_kind << "\n";
  std::printf("%-12s %14s %14s %14s %10s\n", "method", "max|dE|", "max|M v|", "max error", "seconds");
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const auto& r = cmp.runs[i];
    double worst = 0.0;
    const std::size_t col = cmp.table.column(methods[i] + ":error");
    for (std::size_t row = 0; row < cmp.table.rows(); ++row) worst = std::max(worst, cmp.table.at(row, col));
    std::printf("%-12s %14.4e %14.4e %14.4e %10.3f%s\n", methods[i].c_str(), r.summary.max_energy_error,
                r.summary.max_constraint_residual, worst, r.summary.wall_time_seconds,
                r.failed() ? "  (failed; partial)" : "");
  }
  std::cout << "wrote " << csv
            << (figure_failure.empty() && !c.no_figures ? " and " + dir + "/{energy_error,constraint,error}.{png,svg}" : "")
            << "\n";
  if (!figure_failure.empty()) std::cerr << "dalembert: warning: " << support::printable(figure_failure) << '\n';
  for (const auto& w : analysis::take_warnings()) std::cerr << "dalembert: warning: " << support::printable(w) << '\n';
  if (!cmp.reference_failure.empty())
    std::cerr << "dalembert: " << support::printable(cmp.reference_failure) << "; no errors\n";
  for (std::size_t i = 0; i < methods.size(); ++i)
    if (cmp.runs[i].failed())
      std::cerr << "dalembert: " << methods[i] << ": " << support::printable(cmp.runs[i].summary.message) << "; kept "
                << cmp.runs[i].summary.steps << " completed step(s)\n";
  return cmp.failed() ? 3 : 0;
}

int convergence(const StudyCommands& c) {
  const auto problem = c.convergence_args.problem();
  const RunOptions base = c.convergence_args.run.options();
  const bool one_method = c.convergence_method_option->count() > 0;
  if (one_method == (c.convergence_methods_option->count() > 0))
    throw BadInput("give --method M, or --methods A,B,... to study several methods in one table and figure");
  const std::vector<std::string> methods = one_method ? std::vector{base.method} : method_list(c.convergence_methods);
  const Eigen::VectorXd hs = parse_list("--h-list", c.h_list);
  const double T = parse_number("--t-end", c.convergence_t_end);
  if (!(T > 0)) throw BadInput("--t-end: the final time must be positive, got " + c.convergence_t_end);
  std::string names;
  for (const auto& m : methods) names += (names.empty() ? "" : "-") + m;
  const std::string dir = c.convergence_args.prepare_out_dir("convergence-" + c.convergence_args.label() + "-" + names);
  analysis::take_warnings();
  std::vector<analysis::Convergence> studies;
  {
    RunsWithProgress progress(static_cast<long>(methods.size() * hs.size()) * (1 + reference_runs(problem)), c);
    for (const auto& m : methods) {
      RunOptions options = base;
      options.method = m;
      studies.push_back(
          analysis::convergence_study(problem, m, std::vector<double>(hs.begin(), hs.end()), T, options));
    }
  }
  // One method: h, steps, error, fitted. Several: h, steps, then <method>:error and <method>:fitted.
  Trajectory t;
  t.columns = {"h", "steps"};
  for (const auto& m : methods) {
    t.columns.push_back(one_method ? "error" : m + ":error");
    t.columns.push_back(one_method ? "fitted" : m + ":fitted");
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(hs.size()); ++i) {
    t.values.insert(t.values.end(), {studies[0].rows[i].h, static_cast<double>(studies[0].rows[i].steps)});
    for (const auto& study : studies) t.values.insert(t.values.end(), {study.rows[i].error, study.rows[i].fitted ? 1.0 : 0.0});
  }
  const std::string csv = dir + "/convergence.csv";
  report::write_table(csv, t);
  report::Figure figure{dir + "/convergence",
                        report::plain_text(c.convergence_args.label()) + ": " + (one_method ? methods[0] : "") +
                            (one_method ? ", " : "") + "error at T = " + report::format(T),
                        "h", "max |q(T) - q_ref(T)|", "log", "log", false, {}};
  for (std::size_t k = 0; k < methods.size(); ++k)
    figure.series.push_back({csv, "h", t.columns[2 + 2 * k],
                             methods[k] + " (fitted order " + report::format(studies[k].order, 3) + ")", "line+markers", ""});
  const std::string figure_failure = c.no_figures ? "" : report::render({figure}, dir);
  std::cout << "reference: " << studies[0].reference_kind << "\n";
  for (std::size_t k = 0; k < methods.size(); ++k) {
    const auto& study = studies[k];
    if (!one_method) std::cout << (k ? "\n" : "") << "method: " << methods[k] << "\n";
    std::printf("%12s %10s %14s %8s\n", "h", "steps", "error", "fitted");
    for (const auto& row : study.rows)
      std::printf("%12.6g %10ld %14.6e %8s\n", row.h, row.steps, row.error,
                  row.fitted ? "yes" : row.failure.empty() ? "" : "failed");
    if (std::isfinite(study.order)) std::printf("fitted order: %.3f\n", study.order);
    else std::printf("fitted order: none (fewer than two usable errors)\n");
  }
  std::cout << "wrote " << csv
            << (figure_failure.empty() && !c.no_figures ? " and " + dir + "/convergence.{png,svg}" : "") << "\n";
  if (!figure_failure.empty()) std::cerr << "dalembert: warning: " << support::printable(figure_failure) << '\n';
  for (const auto& w : analysis::take_warnings()) std::cerr << "dalembert: warning: " << support::printable(w) << '\n';
  bool failed = false;
  for (std::size_t k = 0; k < methods.size(); ++k)
    for (const auto& row : studies[k].rows)
      if (!row.failure.empty()) {
        failed = true;
        std::cerr << "dalembert: " << (one_method ? "" : methods[k] + ": ") << support::printable(row.failure) << '\n';
      }
  return failed ? 3 : 0;
}

}  // namespace

int run_study_command(const StudyCommands& c) {
  if (*c.reproduce) {
    std::ostream discard(nullptr);  // --quiet: a stream without a buffer drops what it is given
    const unsigned threads = c.reproduce_threads_option->count() > 0
                                 ? static_cast<unsigned>(parse_whole("--threads", c.reproduce_threads, 1, 4096))
                                 : ensemble::default_threads();
    const auto results =
        report::reproduce(c.only, c.reproduce_out, c.quick, !c.no_figures, threads, c.quiet ? discard : std::cout);
    for (const auto& r : results)
      if (r.error) return 3;
    return 0;
  }
  if (*c.compare) return compare(c);
  if (*c.convergence) return convergence(c);
  return -1;
}

}  // namespace dalembert::cli
