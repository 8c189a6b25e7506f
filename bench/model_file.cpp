// Model files (docs/model-files.md):
//  - one step of every single-trajectory method (bench/step_timing.hpp) on a system read from a
//    model file against the same system written in C++ (the catalogue's), h = 0.1: the particle
//    (potential c = 1) and the knife edge (constant metrics) and the Chaplygin sleigh (a metric
//    depending on q), from the catalogue's initial data. Names: Step/<system>/<method> for the
//    catalogue, Step/<system>-model-file/<method> for the file within the bound of 8 coordinates
//    (BoundedFileModel, what files of up to 8 coordinates run on) and
//    Step/<system>-model-file-unbounded/<method> on the heap (what larger files run on). Goals:
//    the DLA step within 1.5 times the catalogue's, every step of this run-time-sized system within
//    2 times the fixed-size one;
//  - loading a model with n = 3 the first time (parse, differentiate, generate C, compile with the
//    system compiler; goal: under 5 s) and from the cache afterwards.
//   build/bench/bench_model_file
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/model.hpp"
#include "step_timing.hpp"

namespace {

namespace fs = std::filesystem;
using namespace dalembert;

constexpr double h = 0.1;

std::string model_path(const std::string& stem) { return std::string(DALEMBERT_SOURCE_DIR) + "/models/" + stem + ".toml"; }

/// Every method on the catalogue's system and on its model file, bounded and on the heap.
template <class S>
void register_catalogue_and_file(const std::string& stem, const S& sys,
                                 const modelfile::ParameterOverrides& overrides) {
  const auto x0 = sys.default_initial();
  bench::register_steps(stem, sys, x0, h);
  const auto bound = modelfile::bind(modelfile::load(model_path(stem)), overrides);
  using Bounded = modelfile::BoundedFileModel;
  using Unbounded = modelfile::UnboundedFileModel;
  bench::register_steps(stem + "-model-file", Bounded(bound), PhasePointOf<Bounded>{x0.q, x0.v}, h);
  bench::register_steps(stem + "-model-file-unbounded", Unbounded(bound), PhasePointOf<Unbounded>{x0.q, x0.v}, h);
}

void register_steps_of_model_files() {
  models::NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  register_catalogue_and_file("particle", particle, {{"potential", 1.0}});
  register_catalogue_and_file("knife-edge", models::KnifeEdge{}, {});
  register_catalogue_and_file("chaplygin-sleigh", models::ChaplyginSleigh{}, {});
}

/// A fresh cache directory for each load: the time includes the system compiler.
void LoadAndCompileSleigh(benchmark::State& state) {
  const fs::path root = fs::temp_directory_path() / ("dalembert_bench_cache_" + std::to_string(::getpid()));
  long round = 0;
  double compile = 0.0;
  for (auto _ : state) {
    const fs::path dir = root / std::to_string(round++);
    ::setenv("DALEMBERT_CACHE_DIR", dir.c_str(), 1);
    const auto m = modelfile::load(model_path("chaplygin-sleigh"));
    if (!m->compiled) state.SkipWithError("the model was not compiled (no compiler?)");
    compile += m->compile_seconds;
  }
  state.counters["compiler_seconds"] = benchmark::Counter(compile, benchmark::Counter::kAvgIterations);
  ::unsetenv("DALEMBERT_CACHE_DIR");
  fs::remove_all(root);
}
BENCHMARK(LoadAndCompileSleigh)->Unit(benchmark::kMillisecond)->Iterations(5);

void LoadSleighFromCache(benchmark::State& state) {
  const fs::path dir = fs::temp_directory_path() / ("dalembert_bench_cached_" + std::to_string(::getpid()));
  ::setenv("DALEMBERT_CACHE_DIR", dir.c_str(), 1);
  modelfile::load(model_path("chaplygin-sleigh"));  // fill the cache
  for (auto _ : state) {
    const auto m = modelfile::load(model_path("chaplygin-sleigh"));
    if (m->compiled) state.SkipWithError("compiled again: the cache did not work");
    benchmark::DoNotOptimize(m.get());
  }
  ::unsetenv("DALEMBERT_CACHE_DIR");
  fs::remove_all(dir);
}
BENCHMARK(LoadSleighFromCache)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  register_steps_of_model_files();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
