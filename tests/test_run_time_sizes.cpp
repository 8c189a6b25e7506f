// One method layer for every size: each method family on a model of run-time size (the catalogue's
// models behind tests/at_run_time.hpp, with sizes known only at run time, stored within a bound or
// on the heap) gives the steps it gives on the compiled fixed-size model.
#include <gtest/gtest.h>

#include "same_steps_at_run_time.hpp"
#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
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
const auto rk4 = [](const auto& sys) { return RungeKutta4<std::decay_t<decltype(sys)>>(sys, 0.1); };
const auto reference = [](const auto& sys) { return ReferenceSolver<std::decay_t<decltype(sys)>>(sys, 0.1, 1e-12); };
const auto del = [](const auto& sys) {
  using S = std::decay_t<decltype(sys)>;
  return DiscreteEulerLagrange<S, AlphaRule<S>>(sys, AlphaRule<S>(sys, 0.1));
};

}  // namespace

// Each family on one model, within the bound. On the heap, where sizes are not bounded, every
// family runs in the library on the catalogue's model files (FileModel<Eigen::Dynamic>, the same
// method templates at unbounded storage): ModelFiles.SameTrajectoriesAsTheCatalogueOnTheHeap, and
// model_files_of_any_size_against_scipy on files of 11 coordinates. Compiling them here again at that
// storage would only lengthen the build (docs/decisions.md, Build: precompiled headers, -O1 tests,
// and nothing compiled twice). The scalar-form test below keeps a step on the heap, where constants
// meet derivatives of run-time width.
TEST(RunTimeSizes, DlaVerticalDisk) {
  const models::VerticalDisk disk;
  const auto x0 = disk.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("dla_vertical_disk", disk, dla, x0.q, x0.v);
}

TEST(RunTimeSizes, DelPendulum) {
  const models::Pendulum pendulum;
  const auto x0 = pendulum.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("del_pendulum", pendulum, del, x0.q, x0.v);
}

TEST(RunTimeSizes, MlaVerticalDisk) {
  const models::VerticalDisk disk;
  const auto x0 = disk.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("mla_vertical_disk", disk, mla, x0.q, x0.v, 50);
}

TEST(RunTimeSizes, Rk4AndReferenceSleigh) {
  const models::ChaplyginSleigh sleigh;
  const auto s0 = sleigh.default_initial();
  test::expect_same_steps_at_run_time<test::Storage::bounded>("rk4_sleigh", sleigh, rk4, s0.q, s0.v);
  test::expect_same_steps_at_run_time<test::Storage::bounded>("reference_sleigh", sleigh, reference, s0.q, s0.v, 20);
}

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
