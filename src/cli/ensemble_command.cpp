#include "cli/ensemble_command.hpp"

#include <cmath>
#include <iostream>
#include <limits>

#include "cli/parse.hpp"
#include "cli/progress.hpp"
#include "cli/run_arguments.hpp"
#include "support/output_file.hpp"
#include "support/signals.hpp"
#include "ensemble/ensemble.hpp"
#ifdef DALEMBERT_WITH_MPI
#include "ensemble/ensemble_mpi.hpp"
#endif

namespace dalembert::cli {

struct EnsembleCommand {
  CLI::App* app = nullptr;
  std::string system, samples, initial_file, threads, out, seed;
  std::string sampling = "grid";
  std::vector<std::string> ranges;
  bool progress = false, quiet = false;
  RunArguments run;
  CLI::Option *samples_option = nullptr, *seed_option = nullptr, *threads_option = nullptr, *out_option = nullptr,
              *initial_file_option = nullptr;

  /// The value of an option that was given: an empty one ('') is refused, not taken for an absent one.
  const std::string* given(const CLI::Option* option, const std::string& value) const {
    if (!option->count()) return nullptr;
    if (value.empty()) throw BadInput(option->get_name() + ": the value is empty");
    return &value;
  }
};

std::shared_ptr<EnsembleCommand> add_ensemble_command(CLI::App& app) {
  auto c = std::make_shared<EnsembleCommand>();
  auto* cmd = app.add_subcommand("ensemble",
                                 "many runs over a parameter range or a file of initial data, one CSV row of "
                                 "summary statistics per run, on all cores (and MPI ranks)");
  c->app = cmd;
  cmd->add_option("SYSTEM", c->system, "catalogue system or model file (.toml)")->required();
  c->run.add_to(*cmd, kMethod | kStepSize | kStepCount | kMethodOptions | kParameters);
  c->samples_option = cmd->add_option("--samples", c->samples,
                  "grid: values per ranged parameter (N^d samples); random: number of samples; "
                  "--initial-file: use the first N rows")
      ->type_name("N");
  cmd->add_option("--param-range", c->ranges, "vary a parameter: name=lo:hi (repeatable)")->type_name("NAME=LO:HI ...");
  cmd->add_option("--sampling", c->sampling, "grid (default: equally spaced, ends included) or random (uniform)")
      ->type_name("NAME");
  c->seed_option = cmd->add_option("--seed", c->seed, "seed of --sampling random, 0..2^63-1 (default 1)")->type_name("N");
  c->initial_file_option = cmd->add_option("--initial-file", c->initial_file,
                  "CSV of samples: columns named like the coordinates (q0), v_<coordinate> (v0), or parameters")
      ->type_name("FILE");
  c->threads_option = cmd->add_option("--threads", c->threads, "threads per MPI rank, 1..4096 (default: all cores)")->type_name("N");
  c->out_option = cmd->add_option("--out", c->out, "CSV output file (default: standard output)")->type_name("FILE");
  cmd->add_flag("--progress", c->progress,
                "show progress on standard error (runs done, rate, time left); the default on a terminal");
  cmd->add_flag("--quiet", c->quiet, "no progress line");
  return c;
}

int run_ensemble_command(const EnsembleCommand& a) {
  if (!a.app || !a.app->parsed()) return -1;
  ensemble::Plan plan;
  plan.entry = &catalogue::find(a.system);
  plan.options = a.run.options();
  const std::string* initial_file = a.given(a.initial_file_option, a.initial_file);
  if (initial_file) support::protect_input("the --initial-file", *initial_file);
  const std::string* out = a.given(a.out_option, a.out);
  if (out) support::check_output_path("--out", *out);
  std::optional<unsigned> threads;
  if (const auto* text = a.given(a.threads_option, a.threads))
    threads = static_cast<unsigned>(parse_whole("--threads", *text, 1, 4096));
  const std::string* seed = a.given(a.seed_option, a.seed);

  const auto fixed = a.run.parameters();
  // describe() rejects unknown parameters and bad values before anything runs
  const auto description = plan.entry->describe(fixed);
  plan.state_columns = ensemble::state_columns(description);
  const auto* samples_text = a.given(a.samples_option, a.samples);
  const long samples = samples_text ? parse_whole("--samples", *samples_text, 1, ensemble::max_samples) : -1;
  if (a.ranges.empty() == !initial_file)
    throw BadInput("give either --param-range name=lo:hi (one or more) or --initial-file FILE.csv");
  if (initial_file) {
    if (a.sampling != "grid" || seed)
      throw BadInput("--sampling and --seed apply to --param-range, not to --initial-file");
    plan.samples = ensemble::file_samples(*initial_file, description, fixed, samples, plan.varied_columns);
  } else {
    if (samples < 0) throw BadInput("--param-range needs --samples N");
    std::vector<ensemble::Range> ranges;
    for (const auto& text : a.ranges) {
      ranges.push_back(ensemble::parse_range(text));
      for (std::size_t j = 0; j + 1 < ranges.size(); ++j)
        if (ranges[j].name == ranges.back().name) throw BadInput("--param-range: " + ranges.back().name + " given twice");
      for (const auto& [name, value] : fixed)
        if (name == ranges.back().name) throw BadInput("--param-range: " + name + " is also fixed by --param");
      plan.varied_columns.push_back(ranges.back().name);
    }
    catalogue::ParameterValues check = fixed;  // unknown names fail here, with the known ones listed
    for (const auto& r : ranges) check.emplace_back(r.name, r.lo);
    plan.entry->describe(check);
    if (a.sampling == "grid") {
      if (seed) throw BadInput("--seed applies to --sampling random; the grid is not random");
      plan.samples = ensemble::grid_samples(fixed, ranges, samples);
    } else if (a.sampling == "random") {
      const long seed_value = seed ? parse_whole("--seed", *seed, 0, std::numeric_limits<long>::max()) : 1;
      plan.samples = ensemble::random_samples(fixed, ranges, samples, static_cast<std::uint64_t>(seed_value));
    } else {
      throw BadInput("--sampling: unknown sampling '" + a.sampling + "' (known: grid, random)");
    }
  }

#ifdef DALEMBERT_WITH_MPI
  if (ensemble::mpi::launched()) return ensemble::mpi::run(plan, threads, out ? *out : "");
#endif
  // SIGINT or SIGTERM: the runs under way end within their step, no further sample starts, and the
  // rows so far are written.
  const support::StopOnSignal stop;
  plan.options.stop = &stop.requested();
  ProgressLine line("runs", static_cast<long>(plan.samples.size()), show_progress(a.progress, a.quiet));
  const int status = ensemble::run_streamed(plan, threads.value_or(ensemble::default_threads()), out ? *out : "",
                                            [&](std::size_t finished) { line.update(static_cast<long>(finished)); });
  line.finish(static_cast<long>(plan.samples.size()));
  if (const int signal = stop.requested().load(); signal != 0 && status != 2 && status != 4) {
    std::cerr << "dalembert: ensemble stopped by signal " << signal
              << ": the rows of the samples run so far are written (status interrupted for those under way)\n";
    return 128 + signal;
  }
  return status;
}

}  // namespace dalembert::cli
