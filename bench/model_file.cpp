// Model files (docs/model-files.md, docs/benchmarks.md):
//  - one midpoint DLA step of a system read from a model file against the same system written in
//    C++ (the catalogue's), for the knife edge (constant metric) and the Chaplygin sleigh (a metric
//    depending on q): the goal is at most 1.5 times the catalogue's time;
//  - loading a model with n = 3 the first time (parse, differentiate, generate C, compile with the
//    system compiler; goal: under 5 s) and from the cache afterwards.
//   build/bench/bench_model_file
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "dalembert/method/dla.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/model.hpp"

namespace {

namespace fs = std::filesystem;
using namespace dalembert;

std::string model_path(const std::string& stem) { return std::string(DALEMBERT_SOURCE_DIR) + "/models/" + stem + ".toml"; }

template <class S>
void dla_steps(benchmark::State& state, const S& sys) {
  const auto dla = make_dla(sys, 0.1);
  const auto x0 = sys.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  long iterations = 0;
  long k = 0;
  for (auto _ : state) {
    if (++k % 1000 == 0) s = dla.initial_state(x0.q, x0.v);  // stay near the initial data
    dla.step(s);
    iterations += s.iterations;
    benchmark::DoNotOptimize(s.q.data());
  }
  state.counters["newton_iterations"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
}

template <class File = modelfile::BoundedFileModel>
File file_model(const std::string& stem) {
  return File(modelfile::bind(modelfile::load(model_path(stem)), {}));
}

void KnifeEdgeCatalogueStep(benchmark::State& state) { dla_steps(state, models::KnifeEdge{}); }
void KnifeEdgeModelFileStep(benchmark::State& state) { dla_steps(state, file_model("knife-edge")); }
void SleighCatalogueStep(benchmark::State& state) { dla_steps(state, models::ChaplyginSleigh{}); }
void SleighModelFileStep(benchmark::State& state) { dla_steps(state, file_model("chaplygin-sleigh")); }
// The same on the heap: FileModel<Eigen::Dynamic>, what files of more than 8 coordinates run on.
void KnifeEdgeModelFileUnboundedStep(benchmark::State& state) {
  dla_steps(state, file_model<modelfile::UnboundedFileModel>("knife-edge"));
}
void SleighModelFileUnboundedStep(benchmark::State& state) {
  dla_steps(state, file_model<modelfile::UnboundedFileModel>("chaplygin-sleigh"));
}
BENCHMARK(KnifeEdgeCatalogueStep);
BENCHMARK(KnifeEdgeModelFileStep);
BENCHMARK(SleighCatalogueStep);
BENCHMARK(SleighModelFileStep);
BENCHMARK(KnifeEdgeModelFileUnboundedStep);
BENCHMARK(SleighModelFileUnboundedStep);

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

BENCHMARK_MAIN();
