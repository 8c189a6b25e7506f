// One method layer for every size, second-order constrained systems: the DSOCS integrator and the
// second-order reference solver on systems of run-time size (the catalogue's SOCS behind
// tests/at_run_time_second_order.hpp, nonholonomic models behind tests/at_run_time.hpp, with sizes
// known only at run time, stored within a bound or on the heap) give the steps they give on the
// compiled fixed-size systems.
#include <gtest/gtest.h>

#include <type_traits>

#include "at_run_time.hpp"
#include "at_run_time_second_order.hpp"
#include "dalembert/discrete/second_order.hpp"
#include "dalembert/method/second_order_constrained.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/curvature_particle.hpp"
#include "dalembert/models/inertia_wheel_pendulum.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;
using test::AtRunTime;
using test::SecondOrderAtRunTime;

namespace {

SecondOrderMethodOptions start_with(SecondOrderStart start, RootRule roots = RootRule::physical) {
  SecondOrderMethodOptions o;
  o.start = start;
  o.roots = roots;
  return o;
}

/// The paper's DSOCS of a SOCS with the given options.
auto dsocs(SecondOrderMethodOptions options) {
  return [options](const auto& sys) { return make_dsocs(sys, 0.1, options); };
}

/// The DSOCS of the midpoint DLA of a nonholonomic model (Remark 3.4).
auto embedded_dla(SecondOrderMethodOptions options) {
  return [options](const auto& sys) { return DiscreteSecondOrderConstrained(embed_dla(sys, 0.1), options); };
}

/// The paper's DSOCS of a nonholonomic model seen as a SOCS (Remark 2.3): kernel frames and the
/// explicit Lagrange–d'Alembert acceleration.
const auto dsocs_of_nonholonomic = [](const auto& sys) {
  return make_dsocs(NonholonomicAsSecondOrder<std::decay_t<decltype(sys)>>{sys}, 0.1);
};

const auto reference = [](const auto& sys) {
  return ReferenceSolver<std::decay_t<decltype(sys)>>(sys, 0.1, 1e-12);
};
const auto reference_of_nonholonomic = [](const auto& sys) {
  using S = NonholonomicAsSecondOrder<std::decay_t<decltype(sys)>>;
  return ReferenceSolver<S>(S{sys}, 0.1, 1e-12);
};

}  // namespace

TEST(RunTimeSizes, DsocsCurvatureParticle) {
  const models::CurvatureParticle particle;
  const auto x0 = particle.default_initial();
  test::expect_same_second_order_steps<SecondOrderAtRunTime, test::Storage::bounded>(
      "dsocs_curvature_euler", particle, dsocs(start_with(SecondOrderStart::forward_euler)), x0.q, x0.v);
  test::expect_same_second_order_steps<SecondOrderAtRunTime, test::Storage::bounded>(
      "dsocs_curvature_taylor2", particle, dsocs(start_with(SecondOrderStart::taylor2)), x0.q, x0.v);
}

TEST(RunTimeSizes, DsocsInertiaWheelPendulum) {
  const models::InertiaWheelPendulum pendulum;
  const auto x0 = pendulum.default_initial();
  test::expect_same_second_order_steps<SecondOrderAtRunTime, test::Storage::heap>(
      "dsocs_wheel_pendulum_physical", pendulum, dsocs(start_with(SecondOrderStart::taylor2)), x0.q, x0.v);
  // the paper's rule: both roots solved at every step, the closer one in θ taken
  test::expect_same_second_order_steps<SecondOrderAtRunTime, test::Storage::heap>(
      "dsocs_wheel_pendulum_closest", pendulum, dsocs(start_with(SecondOrderStart::forward_euler, RootRule::closest)),
      x0.q, x0.v);
}

TEST(RunTimeSizes, DsocsEmbeddedDla) {
  const auto options = start_with(SecondOrderStart::taylor2);
  const models::KnifeEdge knife;
  const auto k0 = knife.default_initial();
  test::expect_same_second_order_steps<AtRunTime, test::Storage::bounded>("dsocs_embedded_knife_edge", knife,
                                                                          embedded_dla(options), k0.q, k0.v);
  const models::ChaplyginSleigh sleigh;
  const auto s0 = sleigh.default_initial();
  test::expect_same_second_order_steps<AtRunTime, test::Storage::heap>("dsocs_embedded_sleigh", sleigh,
                                                                       embedded_dla(options), s0.q, s0.v);
  // no constraints (m = 0 at run time): the discrete Euler–Lagrange step
  const models::Pendulum pendulum;
  const auto p0 = pendulum.default_initial();
  test::expect_same_second_order_steps<AtRunTime, test::Storage::bounded>("dsocs_embedded_pendulum", pendulum,
                                                                          embedded_dla(options), p0.q, p0.v);
}

TEST(RunTimeSizes, DsocsNonholonomicAsSecondOrder) {
  const models::VerticalDisk disk;
  const auto d0 = disk.default_initial();
  test::expect_same_second_order_steps<AtRunTime, test::Storage::bounded>("dsocs_nonholonomic_vertical_disk", disk,
                                                                          dsocs_of_nonholonomic, d0.q, d0.v);
  const models::KnifeEdge knife;
  const auto k0 = knife.default_initial();
  test::expect_same_second_order_steps<AtRunTime, test::Storage::heap>("dsocs_nonholonomic_knife_edge", knife,
                                                                       dsocs_of_nonholonomic, k0.q, k0.v);
}

TEST(RunTimeSizes, SecondOrderReferenceCurvatureAndPendulum) {
  // accelerations by Newton on [Φ; Bᵀ D_EL L] = 0 at every evaluation
  const models::CurvatureParticle particle;
  const auto c0 = particle.default_initial();
  test::expect_same_second_order_steps<SecondOrderAtRunTime, test::Storage::heap>("reference_curvature", particle,
                                                                                  reference, c0.q, c0.v, 200);
  const models::InertiaWheelPendulum pendulum;
  const auto p0 = pendulum.default_initial();
  test::expect_same_second_order_steps<SecondOrderAtRunTime, test::Storage::bounded>(
      "reference_wheel_pendulum", pendulum, reference, p0.q, p0.v, 200);
}

TEST(RunTimeSizes, SecondOrderReferenceNonholonomic) {
  // the explicit Lagrange–d'Alembert acceleration of the embedding
  const models::KnifeEdge knife;
  const auto k0 = knife.default_initial();
  test::expect_same_second_order_steps<AtRunTime, test::Storage::bounded>("reference_nonholonomic_knife_edge", knife,
                                                                          reference_of_nonholonomic, k0.q, k0.v, 200);
  test::expect_same_second_order_steps<AtRunTime, test::Storage::heap>("reference_nonholonomic_knife_edge", knife,
                                                                       reference_of_nonholonomic, k0.q, k0.v, 200);
}
