#include "cli/ensemble_command.hpp"

#include <cmath>

#include "cli/parse.hpp"
#include "ensemble/ensemble.hpp"
#ifdef DALEMBERT_WITH_MPI
#include "ensemble/ensemble_mpi.hpp"
#endif

namespace dalembert::cli {

struct EnsembleCommand {
  CLI::App* app = nullptr;
  std::string system, method, h, steps, t_end, samples, initial_file, threads, out, seed;
  std::string sampling = "grid", alpha, rule = "alpha", tolerance, max_iterations;
  std::vector<std::string> params, ranges;
};

std::shared_ptr<EnsembleCommand> add_ensemble_command(CLI::App& app) {
  auto c = std::make_shared<EnsembleCommand>();
  auto* cmd = app.add_subcommand("ensemble",
                                 "many runs over a parameter range or a file of initial data, one CSV row of "
                                 "summary statistics per run, on all cores (and MPI ranks)");
  c->app = cmd;
  cmd->add_option("SYSTEM", c->system, "catalogue system")->required();
  cmd->add_option("--method", c->method, "integrator (see `dalembert list`)")->required();
  cmd->add_option("--h", c->h, "time step")->required();
  cmd->add_option("--steps", c->steps, "number of steps");
  cmd->add_option("--t-end", c->t_end, "final time (steps = ceil(T/h))");
  cmd->add_option("--samples", c->samples,
                  "grid: values per ranged parameter (N^d samples); random: number of samples; "
                  "--initial-file: use the first N rows");
  cmd->add_option("--param-range", c->ranges, "vary a parameter: name=lo:hi (repeatable)");
  cmd->add_option("--sampling", c->sampling, "grid (default: equally spaced, ends included) or random (uniform)");
  cmd->add_option("--seed", c->seed, "seed of --sampling random (default 1)");
  cmd->add_option("--initial-file", c->initial_file,
                  "CSV of samples: columns named like the coordinates (q0), v_<coordinate> (v0), or parameters");
  cmd->add_option("--param", c->params, "fix a parameter for all samples: name=value (repeatable)");
  cmd->add_option("--threads", c->threads, "threads (per MPI rank); default: all cores");
  cmd->add_option("--out", c->out, "CSV output file (default: standard output)");
  cmd->add_option("--alpha", c->alpha, "alpha of the alpha-rule discrete Lagrangian and constraint (default 0.5)");
  cmd->add_option("--rule", c->rule, "discrete Lagrangian: alpha (default) or trapezoid; for herglotz also exponential");
  cmd->add_option("--tolerance", c->tolerance, "Newton tolerance, relative to the momentum scale (default 1e-13)");
  cmd->add_option("--max-iterations", c->max_iterations, "Newton iterations per step (default 30)");
  return c;
}

int run_ensemble_command(const EnsembleCommand& a) {
  if (!a.app || !a.app->parsed()) return -1;
  ensemble::Plan plan;
  plan.entry = &catalogue::find(a.system);
  RunOptions& o = plan.options;
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
  if (!a.alpha.empty()) {
    o.alpha = parse_number("--alpha", a.alpha);
    if (o.alpha < 0 || o.alpha > 1) throw BadInput("--alpha: must lie in [0, 1], got " + a.alpha);
  }
  o.rule = a.rule;
  if (!a.tolerance.empty()) {
    o.newton.tolerance = parse_number("--tolerance", a.tolerance);
    if (!(o.newton.tolerance > 0)) throw BadInput("--tolerance: must be positive");
    o.reference_tolerance = std::max(o.newton.tolerance, 1e-15);
  }
  if (!a.max_iterations.empty()) {
    o.newton.max_iterations = static_cast<int>(parse_count("--max-iterations", a.max_iterations));
    if (o.newton.max_iterations < 1) throw BadInput("--max-iterations: must be at least 1");
  }
  std::optional<unsigned> threads;
  if (!a.threads.empty()) {
    const long k = parse_count("--threads", a.threads);
    if (k < 1 || k > 4096) throw BadInput("--threads: must lie in 1..4096, got " + a.threads);
    threads = static_cast<unsigned>(k);
  }

  const auto fixed = parse_parameters(a.params);
  // describe() rejects unknown parameters and bad values before anything runs
  const auto description = plan.entry->describe(fixed);
  plan.state_columns = ensemble::state_columns(description);
  const long samples = a.samples.empty() ? -1 : parse_count("--samples", a.samples);
  if (a.ranges.empty() == a.initial_file.empty())
    throw BadInput("give either --param-range name=lo:hi (one or more) or --initial-file FILE.csv");
  if (!a.initial_file.empty()) {
    if (a.sampling != "grid" || !a.seed.empty())
      throw BadInput("--sampling and --seed apply to --param-range, not to --initial-file");
    if (samples == 0) throw BadInput("--samples: must be at least 1");
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
      const long seed = a.seed.empty() ? 1 : parse_count("--seed", a.seed);
      plan.samples = ensemble::random_samples(fixed, ranges, samples, static_cast<std::uint64_t>(seed));
    } else {
      throw BadInput("--sampling: unknown sampling '" + a.sampling + "' (known: grid, random)");
    }
  }

#ifdef DALEMBERT_WITH_MPI
  if (ensemble::mpi::launched()) return ensemble::mpi::run(plan, threads, a.out);
#endif
  const auto all = ensemble::run_chunk(plan, 0, plan.samples.size(), threads.value_or(ensemble::default_threads()));
  return ensemble::finish(plan, all, a.out);
}

}  // namespace dalembert::cli
