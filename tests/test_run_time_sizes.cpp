// One method layer for every size: the catalogue's models seen at run time (tests/at_run_time.hpp,
// sizes known only at run time, stored within a bound or on the heap) give the steps of the compiled
// fixed-size model. Every method family runs in the library on the catalogue's model files, within
// the bound and on the heap, with the catalogue's trajectories to 1e-12 (dla, mla) and 1e-11
// (ModelFiles.SameTrajectoriesAsTheCatalogue and …OnTheHeap; options beside the defaults:
// ModelFiles.MethodOptionsGiveTheCatalogueTrajectories; contact families:
// ContactModelFiles.SameTrajectoriesAsTheCatalogue), so the tests here do not compile the families
// again at run-time sizes (docs/decisions.md, Build: precompiled headers, -O1 tests, and nothing
// compiled twice). They keep what no model file reaches: a Lagrangian written in scalars, whose
// constants meet derivatives of run-time width; MLA with the exact ingredients and those
// ingredients themselves; the exponential Herglotz rule (test_run_time_sizes_exact.cpp).
#include <gtest/gtest.h>

#include "same_steps_at_run_time.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

/// A general Lagrangian written with scalar operations, so that at a run-time width the constant
/// positions of momentum() meet the velocities inside one expression: L = ½|v|² − ½k|q|² on a
/// particle in the plane with the constraint v_x + sin(x) v_y = 0.
struct ScalarFormOscillator {
  static constexpr int n = 2, m = 1;
  double k = 1.5;
  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    return 0.5 * (v[0] * v[0] + v[1] * v[1]) - 0.5 * k * (q[0] * q[0] + q[1] * q[1]);
  }
  template <class T>
  Mat<T, 1, 2> constraint_matrix(const Vec<T, 2>& q) const {
    using std::sin;
    Mat<T, 1, 2> M;
    M << T(1.0), sin(q[0]);
    return M;
  }
};

const auto dla = [](const auto& sys) { return make_dla(sys, 0.1); };
const auto mla = [](const auto& sys) { return make_midpoint_mla(sys, 0.1); };
}  // namespace

// A Lagrangian in scalar operations: momentum(), energy() and DLA, MLA steps at run-time width.
TEST(RunTimeSizes, ConstantsCarryTheFullWidthOfDerivatives) {
  const ScalarFormOscillator fixed;
  const test::AtRunTime<ScalarFormOscillator, 8, 8> bounded(fixed);
  const test::AtRunTime<ScalarFormOscillator, Eigen::Dynamic, Eigen::Dynamic> heap(fixed);
  const Vecd<2> q(0.3, -0.7), v(-std::sin(0.3), 1.0);
  using QB = VecN<decltype(bounded)>;
  using QH = VecN<decltype(heap)>;
  const double p_bounded = (Vecd<2>(momentum(bounded, QB(q), QB(v))) - momentum(fixed, q, v)).lpNorm<Eigen::Infinity>();
  const double p_heap = (Vecd<2>(momentum(heap, QH(q), QH(v))) - momentum(fixed, q, v)).lpNorm<Eigen::Infinity>();
  const double e_bounded = std::abs(energy(bounded, QB(q), QB(v)) - energy(fixed, q, v));
  test::report("scalar_form_momentum_bounded", p_bounded);
  test::report("scalar_form_momentum_heap", p_heap);
  EXPECT_EQ(p_bounded, 0.0);
  EXPECT_EQ(p_heap, 0.0);
  EXPECT_EQ(e_bounded, 0.0);
  test::expect_same_steps_at_run_time<test::Storage::heap>("dla_scalar_form", fixed, dla, q, v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("mla_scalar_form", fixed, mla, q, v, 50);
}
