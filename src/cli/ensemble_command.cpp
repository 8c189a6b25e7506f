#include "cli/ensemble_command.hpp"

#include <cmath>
#include <limits>

#include "cli/parse.hpp"
#include "cli/progress.hpp"
#include "cli/run_arguments.hpp"
#include "support/output_file.hpp"
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
};

std::shared_ptr<EnsembleCommand> add_ensemble_command(CLI::App& app) {
  auto c = std::make_shared<EnsembleCommand>();
  auto* cmd = app.add_subcommand("ensemble",
                                 "many runs over a parameter range or a file of initial data, one CSV row of "
                                 "summary statistics per run, on all cores (and MPI ranks)");
  c->app = cmd;
  cmd->add_option("SYSTEM", c->system, "catalogue system or model file (.toml)")->required();
  c->run.add_to(*cmd, kMethod | kStepSize | kStepCount | kDiscretisation | kNewton | kParameters);
  cmd->add_option("--samples", c->samples,
                  "grid: values per ranged parameter (N^d samples); random: number of samples; "
                  "--initial-file: use the first N rows")
      ->type_name("N");
  cmd->add_option("--param-range", c->ranges, "vary a parameter: name=lo:hi (repeatable)")->type_name("NAME=LO:HI ...");
  cmd->add_option("--sampling", c->sampling, "grid (default: equally spaced, ends included) or random (uniform)")
      ->type_name("NAME");
  cmd->add_option("--seed", c->seed, "seed of --sampling random, 0..2^63-1 (default 1)")->type_name("N");
  cmd->add_option("--initial-file", c->initial_file,
                  "CSV of samples: columns named like the coordinates (q0), v_<coordinate> (v0), or parameters")
      ->type_name("FILE");
  cmd->add_option("--threads", c->threads, "threads per MPI rank, 1..4096 (default: all cores)")->type_name("N");
  cmd->add_option("--out", c->out, "CSV output file (default: standard output)")->type_name("FILE");
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
  if (!a.out.empty()) support::check_output_path("--out", a.out);
  std::optional<unsigned> threads;
  if (!a.threads.empty()) threads = static_cast<unsigned>(parse_whole("--threads", a.threads, 1, 4096));

  const auto fixed = a.run.parameters();
  // describe() rejects unknown parameters and bad values before anything runs
  const auto description = plan.entry->describe(fixed);
  plan.state_columns = ensemble::state_columns(description);
  const long samples = a.samples.empty() ? -1 : parse_whole("--samples", a.samples, 1, ensemble::max_samples);
  if (a.ranges.empty() == a.initial_file.empty())
    throw BadInput("give either --param-range name=lo:hi (one or more) or --initial-file FILE.csv");
  if (!a.initial_file.empty()) {
    if (a.sampling != "grid" || !a.seed.empty())
      throw BadInput("--sampling and --seed apply to --param-range, not to --initial-file");
    plan.samples = ensemble::file_samples(a.initial_file, description, fixed, samples, plan.varied_columns);
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
      if (!a.seed.empty()) throw BadInput("--seed applies to --sampling random; the grid is not random");
      plan.samples = ensemble::grid_samples(fixed, ranges, samples);
    } else if (a.sampling == "random") {
      const long seed = a.seed.empty() ? 1 : parse_whole("--seed", a.seed, 0, std::numeric_limits<long>::max());
      plan.samples = ensemble::random_samples(fixed, ranges, samples, static_cast<std::uint64_t>(seed));
    } else {
      throw BadInput("--sampling: unknown sampling '" + a.sampling + "' (known: grid, random)");
    }
  }

#ifdef DALEMBERT_WITH_MPI
  if (ensemble::mpi::launched()) return ensemble::mpi::run(plan, threads, a.out);
#endif
  ProgressLine line("runs", static_cast<long>(plan.samples.size()), show_progress(a.progress, a.quiet));
  const auto all = ensemble::run_chunk(plan, 0, plan.samples.size(), threads.value_or(ensemble::default_threads()),
                                       [&](std::size_t finished) { line.update(static_cast<long>(finished)); });
  line.finish(static_cast<long>(plan.samples.size()));
  return ensemble::finish(plan, all, a.out);
}

}  // namespace dalembert::cli
