// What no model file reaches at run-time sizes (test_run_time_sizes.cpp says why the rest is not
// here): MLA with the exact ingredients (shooting with sensitivities), the exact discrete
// Lagrangian's objects and completion, and the exponential Herglotz rule, which needs a compiled
// L0(q, v) + γz; each gives the values of the compiled fixed-size model. Few steps where every step
// shoots.
#include <gtest/gtest.h>

#include "same_steps_at_run_time.hpp"
#include "at_run_time_contact.hpp"
#include "dalembert/discrete/exact_nonholonomic.hpp"
#include "dalembert/method/herglotz.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/models/damped_knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

// MLA with the exact ingredients (ExactNonholonomic, ExactDiscreteConstraint) is the exact flow.
const auto mla_exact = [](const auto& sys) {
  using S = std::decay_t<decltype(sys)>;
  NewtonOptions newton;
  newton.tolerance = 1e-11;  // residuals are known to the shooting accuracy
  const ExactNonholonomic<S> e(sys, 0.1);
  return ModifiedLagrangeDAlembert<S, ExactNonholonomic<S>, ExactDiscreteConstraint<S>>(
      sys, e, ExactDiscreteConstraint<S>(e), newton);
};

const auto exponential_herglotz = [](const auto& sys) {
  return make_herglotz(sys, ExponentialRule<std::decay_t<decltype(sys)>>(sys, 0.1));
};

}  // namespace

TEST(RunTimeSizes, ExactIngredientsInMlaParticle) {
  models::NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  test::expect_same_steps_at_run_time<test::Storage::bounded>("mla_exact_particle", particle, mla_exact,
                                                              Vecd<3>(0.1, 0.2, 0.0), Vecd<3>(1.0, 0.5, 0.2), 3);
}

TEST(RunTimeSizes, ExactCompletionAndObjectsVerticalDisk) {
  // complete() (indices of the independent coordinates at run time) and the exact discrete
  // Lagrangian and forces give the same values at run time.
  const models::VerticalDisk disk;
  const ExactNonholonomic<models::VerticalDisk> fixed(disk, 0.3);
  const Vecd<4> q0(0.1, -0.2, 0.3, 0.4), q1(0.0, 0.0, 0.75, 1.0);
  const auto c = fixed.complete(q0, q1, {2, 3});
  const auto o = fixed.objects(q0, c.q1);
  const auto compare = [&](const auto& sys, const std::string& label) {
    using S = std::decay_t<decltype(sys)>;
    const ExactNonholonomic<S> at_run_time(sys, 0.3);
    const auto c_rt = at_run_time.complete(VecN<S>(q0), VecN<S>(q1), {2, 3});
    const auto o_rt = at_run_time.objects(VecN<S>(q0), VecN<S>(c_rt.q1));
    const double difference = std::max({(Vecd<4>(c_rt.q1) - c.q1).lpNorm<Eigen::Infinity>(),
                                        (Vecd<4>(o_rt.D1) - o.D1).lpNorm<Eigen::Infinity>(),
                                        (Vecd<4>(o_rt.D2) - o.D2).lpNorm<Eigen::Infinity>(),
                                        (Vecd<4>(o_rt.force_plus) - o.force_plus).lpNorm<Eigen::Infinity>(),
                                        std::abs(o_rt.lagrangian - o.lagrangian)});
    test::report(label, difference);
    EXPECT_LT(difference, 1e-12) << label;
  };
  compare(test::AtRunTime<models::VerticalDisk, 8, 8>(disk), "exact_objects_vertical_disk_run_time_bounded");
}

TEST(RunTimeSizes, HerglotzExponentialRuleDampedKnifeEdge) {
  // The discrete Herglotz–d'Alembert integrator with the exponential rule, on a constrained model.
  const models::DampedKnifeEdge knife;
  const auto x0 = knife.default_initial();
  test::expect_same_contact_steps_at_run_time<test::Storage::bounded>("herglotz_exponential_damped_knife_edge", knife,
                                                                      exponential_herglotz, x0.q, x0.v, x0.z);
}
