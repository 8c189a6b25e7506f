// Zero heap allocation per step (issue 8): a run of every single-trajectory step function (dla,
// mla, gf, gf-sym, gf-cp, fim, rk4 on the particle and the Chaplygin sleigh; del, which runs
// unconstrained systems only, on the pendulum; the same on model files of at most 8 coordinates,
// whose sizes are known only at run time) performs no heap allocation after its first step, the
// run's own work per step included. The runs are the library's (the command line's), so this file
// does not compile those methods again.
//
// The counter replaces both the global operator new/delete family and malloc/calloc/realloc/free
// (glibc supports replacing malloc from the executable; the replacements forward to
// __libc_malloc and friends). Eigen's dynamic-size types allocate with std::malloc, not with
// operator new, so counting operator new alone would miss them. The counter tests check that it
// sees both kinds of allocation, in this file and in the library's runs, so a zero below is a
// measured zero.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "catalogue/catalogue.hpp"
#include "dalembert/io/run_options.hpp"
#include "test_support.hpp"

// ---------------------------------------------------------------------------------------------
// Counting allocator.

namespace {
std::atomic<long> allocation_count{0};
}

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  void* p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
void free(void* p) { __libc_free(p); }
}

namespace {
void* counted_new(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = __libc_malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* counted_new_aligned(std::size_t size, std::align_val_t alignment) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = __libc_memalign(static_cast<std::size_t>(alignment), size ? size : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t size) { return counted_new(size); }
void* operator new[](std::size_t size) { return counted_new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try { return counted_new(size); } catch (...) { return nullptr; }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try { return counted_new(size); } catch (...) { return nullptr; }
}
void* operator new(std::size_t size, std::align_val_t a) { return counted_new_aligned(size, a); }
void* operator new[](std::size_t size, std::align_val_t a) { return counted_new_aligned(size, a); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }

// ---------------------------------------------------------------------------------------------

using namespace dalembert;

namespace {

constexpr double h = 0.05;
constexpr long steps = 200;

std::string model_file(const std::string& stem) {
  return std::string(DALEMBERT_SOURCE_DIR) + "/models/" + stem + ".toml";
}

/// Reports the count of `what` (system/method) and asserts that it is zero.
void expect_zero(const std::string& what, long count) {
  test::report("allocations_in_" + std::to_string(steps) + "_steps/" + what, static_cast<double>(count));
  EXPECT_EQ(count, 0) << what << " allocates " << count << " times in " << steps << " steps";
}

/// Counts the heap allocations of a run after its first step, at the rows it hands over as they are
/// computed (every row is kept): the steps of the method and the run's own work per step (the
/// recorder's statistics, the monitors), all of it compiled in the library.
class AllocationsAfterTheFirstStep final : public RowSink {
 public:
  void begin(const std::vector<std::string>&) override {}
  void row(long k, std::span<const double>) override {
    if (k == 1) first_ = allocation_count.load();
    if (k >= 1) last_ = allocation_count.load();
  }
  long count() const { return last_ - first_; }

 private:
  long first_ = 0, last_ = 0;
};

/// The allocations of a run of `method` on the catalogue entry `name` (a system or a model file's
/// path) after its first step, every row handed to the counter; the run must end "ok".
long allocations_of_a_run(const std::string& name, const std::string& method, long step_count = steps,
                          const catalogue::ParameterValues& parameters = {}) {
  AllocationsAfterTheFirstStep rows;
  RunOptions options;
  options.method = method;
  options.h = h;
  options.steps = step_count;
  options.rows = &rows;
  const RunResult result = catalogue::find(name).run(parameters, {}, options);
  EXPECT_EQ(result.summary.status, "ok") << name << " " << method << ": " << result.summary.message;
  return rows.count();
}

/// Runs of each method on the entry `name`; each count is reported as <label>/<method> and must be zero.
void expect_no_allocations_in_runs(const std::string& name, const std::string& label,
                                   const std::vector<std::string>& methods,
                                   const catalogue::ParameterValues& parameters = {}) {
  for (const std::string& method : methods)
    expect_zero(label + "/" + method, allocations_of_a_run(name, method, steps, parameters));
}

TEST(AllocationCounter, SeesOperatorNew) {
  const long before = allocation_count.load();
  {
    std::vector<double> v(100, 1.0);
    EXPECT_DOUBLE_EQ(v[99], 1.0);
  }
  EXPECT_EQ(allocation_count.load() - before, 1);
}

TEST(AllocationCounter, SeesEigenDynamicMatrices) {
  const long before = allocation_count.load();
  {
    Eigen::VectorXd v = Eigen::VectorXd::Ones(50);
    Eigen::MatrixXd m = Eigen::MatrixXd::Identity(50, 50);
    EXPECT_DOUBLE_EQ((m * v).sum(), 50.0);  // the product's temporary allocates too
  }
  EXPECT_GE(allocation_count.load() - before, 2);
}

TEST(AllocationCounter, FixedSizeEigenDoesNotAllocate) {
  const long before = allocation_count.load();
  Vecd<3> v(1.0, 2.0, 3.0);
  Matd<3, 3> m = Matd<3, 3>::Identity();
  const Vecd<3> w = m * v;
  EXPECT_DOUBLE_EQ(w.sum(), 6.0);
  EXPECT_EQ(allocation_count.load() - before, 0);
}

// A model with a potential and one with a constraint force, run as the command line runs them, and
// `del`, which runs unconstrained systems only, on the pendulum. The knife edge, of the particle's
// sizes, was a third until 27 Nov 2026: it took the same code (docs/decisions.md, Build).
const std::vector<std::string> constrained_step_functions = {"dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "rk4"};
TEST(NoAllocationPerStep, Particle) {
  expect_no_allocations_in_runs("particle", "particle", constrained_step_functions, {{"potential", 1.0}});
}
TEST(NoAllocationPerStep, ChaplyginSleigh) {
  expect_no_allocations_in_runs("chaplygin-sleigh", "chaplygin-sleigh", constrained_step_functions);
}
TEST(NoAllocationPerStep, Pendulum) { expect_no_allocations_in_runs("pendulum", "pendulum", {"del"}); }

// Model files within the bound of 8 (FileModel<8>, src/modelfile/file_model.hpp), the systems of
// run-time size within a bound that the library runs, as the command line runs them (the catalogue
// library): no heap per step either, `mla` included, whose third derivatives of L a model file reads
// from its kernels in doubles (FileModel::lagrangian_derivatives). The kernels write into
// per-thread buffers that grow once, at the first evaluation.
TEST(NoAllocationPerStep, ModelFileRunsWithinTheBound) {
  for (const std::string stem : {"knife-edge", "chaplygin-sleigh", "rolling-disk", "two-skates"})
    expect_no_allocations_in_runs(model_file(stem), "model-file-" + stem, constrained_step_functions);
  expect_no_allocations_in_runs(model_file("pendulum"), "model-file-pendulum", {"del"});
}

// The counter sees what the library allocates in a run: a file of 11 coordinates, beyond the bound,
// runs on the heap (FileModel<Eigen::Dynamic>) and allocates at every step.
TEST(AllocationCounter, SeesTheHeapOfAModelFileBeyondTheBound) {
  EXPECT_GT(allocations_of_a_run(model_file("chaotic-oscillator"), "dla", 20), 0);
}

TEST(NoAllocationPerStep, LieGroupContactAndSecondOrderFamilies) {
  expect_no_allocations_in_runs("suslov", "suslov", {"fim-lie"});
  expect_no_allocations_in_runs("damped-knife-edge", "damped-knife-edge", {"herglotz"});
  expect_no_allocations_in_runs("curvature-particle", "curvature-particle", {"dsocs"});
}

// The exact discrete flow integrates each arc with Boost.Odeint, whose steppers keep their state in
// std::vector: it allocates on every shooting iteration. Measured, not asserted; that the counter
// sees it shows it sees the allocations of the library's runs of compiled systems.
TEST(NoAllocationPerStep, ExactFlowAllocatesInItsInnerIntegrator) {
  const long count = allocations_of_a_run("knife-edge", "exact");
  test::report("allocations_in_" + std::to_string(steps) + "_steps/knife-edge/exact", static_cast<double>(count));
  EXPECT_GT(count, 0);
}

}  // namespace
