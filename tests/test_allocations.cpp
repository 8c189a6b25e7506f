// Zero heap allocation per step (issue 8): every single-trajectory step function — dla, del, mla,
// gf, gf-sym, gf-cp, fim, rk4 — on the particle and the Chaplygin sleigh, and on the sleigh at
// run-time size within a bound, performs no heap allocation once the method is constructed and has
// taken its first step; so do dla, fim and rk4 on model files of at most 8 coordinates.
//
// The counter replaces both the global operator new/delete family and malloc/calloc/realloc/free
// (glibc supports replacing malloc from the executable; the replacements forward to
// __libc_malloc and friends). Eigen's dynamic-size types allocate with std::malloc, not with
// operator new, so counting operator new alone would miss them. The first two tests check that
// the counter sees both kinds of allocation, so a zero below is a measured zero.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include <Eigen/Core>

#include "dalembert/method/del.hpp"
#include "dalembert/method/exact_flow.hpp"
#include "dalembert/method/herglotz.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/momentum_energy_lie.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/second_order_constrained.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/curvature_particle.hpp"
#include "dalembert/models/damped_knife_edge.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/rigid_bodies.hpp"
#include "at_run_time.hpp"
#include "modelfile/file_model.hpp"
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
using namespace dalembert::models;

namespace {

constexpr double h = 0.05;
constexpr long steps = 200;

/// Heap allocations made by `steps` further steps of `method` from state `s`, after one first step
/// (construction, the initial state and the first step are allowed to allocate).
template <class Method>
long allocations_of_steps(const Method& method, typename Method::State s) {
  method.step(s);
  const long before = allocation_count.load();
  for (long k = 0; k < steps; ++k) method.step(s);
  const long after = allocation_count.load();
  // Keep the result observable so that the steps are not optimised away.
  if constexpr (requires { s.q; }) EXPECT_TRUE(s.q.allFinite());
  else EXPECT_TRUE(s.g.allFinite());
  return after - before;
}

template <class Method, int N, int MaxN>
long allocations_per_run(const Method& method, const PhasePoint<N, MaxN>& x0) {
  return allocations_of_steps(method, method.initial_state(x0.q, x0.v));
}

NonholonomicParticle particle_with_potential() {
  NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  return p;
}

/// Reports the count of `what` (system/method) and asserts that it is zero.
void expect_zero(const std::string& what, long count) {
  test::report("allocations_in_" + std::to_string(steps) + "_steps/" + what, static_cast<double>(count));
  EXPECT_EQ(count, 0) << what << " allocates " << count << " times in " << steps << " steps";
}

/// All eight step functions on one system; each count is reported and must be zero.
template <class S>
void expect_no_allocations(const S& sys, const std::string& label) {
  const auto x0 = sys.default_initial();
  const auto check = [&](const std::string& method, long count) { expect_zero(label + "/" + method, count); };
  check("dla", allocations_per_run(make_dla(sys, h), x0));
  check("del", allocations_per_run(DiscreteEulerLagrange<S, AlphaRule<S>>(sys, AlphaRule<S>(sys, h)), x0));
  check("mla", allocations_per_run(make_midpoint_mla(sys, h), x0));
  check("gf", allocations_per_run(make_gf(sys, h), x0));
  check("gf-sym", allocations_per_run(make_gf_sym(sys, h, 0.25), x0));
  check("gf-cp", allocations_per_run(make_gf_cp(sys, h), x0));
  check("fim", allocations_per_run(make_fim(sys, h), x0));
  check("rk4", allocations_per_run(RungeKutta4<S>(sys, h), x0));
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

// A model with a potential and one with a constraint force. The knife edge, of their sizes, was a
// third until 27 Nov 2026: it took the same code (docs/decisions.md, Build).
TEST(NoAllocationPerStep, Particle) { expect_no_allocations(particle_with_potential(), "particle"); }
TEST(NoAllocationPerStep, ChaplyginSleigh) { expect_no_allocations(ChaplyginSleigh{}, "chaplygin-sleigh"); }

/// The same step functions on the system seen with sizes known only at run time, stored within a
/// bound of 8: no heap either, `mla` included, whose third derivatives (the Jacobian of the
/// constraint force) are nested at the fixed widths of ad::at_width (on the heap until 27 Nov 2026).
template <class S>
void expect_no_allocations_at_run_time(const S& fixed, const std::string& label) {
  using R = test::AtRunTime<S, 8, 8>;
  const R sys(fixed);
  const auto x0 = fixed.default_initial();
  const PhasePointOf<R> y0{x0.q, x0.v};
  const auto check = [&](const std::string& method, long count) { expect_zero(label + "/" + method, count); };
  check("dla", allocations_per_run(make_dla(sys, h), y0));
  check("del", allocations_per_run(DiscreteEulerLagrange<R, AlphaRule<R>>(sys, AlphaRule<R>(sys, h)), y0));
  check("gf", allocations_per_run(make_gf(sys, h), y0));
  check("gf-sym", allocations_per_run(make_gf_sym(sys, h, 0.25), y0));
  check("gf-cp", allocations_per_run(make_gf_cp(sys, h), y0));
  check("fim", allocations_per_run(make_fim(sys, h), y0));
  check("rk4", allocations_per_run(RungeKutta4<R>(sys, h), y0));
  check("mla", allocations_per_run(make_midpoint_mla(sys, h), y0));
}

TEST(NoAllocationPerStep, RunTimeSizesWithinABound) {
  expect_no_allocations_at_run_time(ChaplyginSleigh{}, "chaplygin-sleigh-at-run-time");
}

// Model files within the bound of 8 (FileModel<8>, src/modelfile/file_model.hpp): no heap either,
// `mla` included, whose third derivatives of L a model file reads from its kernels in doubles
// (FileModel::lagrangian_derivatives). The kernels write into per-thread buffers that grow once,
// at the first evaluation.
TEST(NoAllocationPerStep, ModelFilesWithinTheBound) {
  using File = modelfile::BoundedFileModel;
  for (const std::string stem : {"knife-edge", "chaplygin-sleigh", "rolling-disk", "two-skates"}) {
    const File file(modelfile::bind(modelfile::load(std::string(DALEMBERT_SOURCE_DIR) + "/models/" + stem + ".toml"), {}));
    const auto x0 = file.default_initial();
    expect_zero("model-file-" + stem + "/dla", allocations_per_run(make_dla(file, h), x0));
    expect_zero("model-file-" + stem + "/mla", allocations_per_run(make_midpoint_mla(file, h), x0));
    expect_zero("model-file-" + stem + "/gf", allocations_per_run(make_gf(file, h), x0));
    expect_zero("model-file-" + stem + "/gf-sym", allocations_per_run(make_gf_sym(file, h, 0.25), x0));
    expect_zero("model-file-" + stem + "/fim", allocations_per_run(make_fim(file, h), x0));
    expect_zero("model-file-" + stem + "/rk4", allocations_per_run(RungeKutta4<File>(file, h), x0));
  }
}

TEST(NoAllocationPerStep, LieGroupContactAndSecondOrderFamilies) {
  const auto check = expect_zero;
  const Suslov suslov;
  const auto g0 = suslov.default_initial();
  const RigidBodyMomentumEnergy<Suslov> fim_lie(suslov, h);
  check("suslov/fim-lie", allocations_of_steps(fim_lie, fim_lie.initial_state(g0.g, g0.omega)));
  const DampedKnifeEdge damped;
  const auto c0 = damped.default_initial();
  const auto herglotz = make_thesis_herglotz(damped, h);
  check("damped-knife-edge/herglotz", allocations_of_steps(herglotz, herglotz.initial_state(c0.q, c0.v, c0.z)));
  const CurvatureParticle curvature;
  check("curvature-particle/dsocs", allocations_per_run(make_dsocs(curvature, h), curvature.default_initial()));
}

// The exact discrete flow integrates each arc with Boost.Odeint, whose steppers keep their state in
// std::vector: it allocates on every shooting iteration. Measured, not asserted.
TEST(NoAllocationPerStep, ExactFlowAllocatesInItsInnerIntegrator) {
  const KnifeEdge knife;
  const long count = allocations_per_run(ExactDiscreteFlow<KnifeEdge>(knife, h), knife.default_initial());
  test::report("allocations_in_" + std::to_string(steps) + "_steps/knife-edge/exact", static_cast<double>(count));
  EXPECT_GT(count, 0);
}

}  // namespace
