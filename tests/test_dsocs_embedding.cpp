// Remark 3.4: a discrete nonholonomic system of Cortés–Martínez as a DSOCS (D_K = (Q×M_d) ∩ (M_d×Q),
// D_V = D_{q1}). Its DSOCS step (Theorem 3.3, no multipliers, a frame of D instead) gives the
// iterates of DLA (method/dla.hpp, position–momentum form with multipliers) to round-off.
#include <gtest/gtest.h>

#include "dalembert/discrete/second_order.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/second_order_constrained.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"

using namespace dalembert;
using namespace dalembert::models;

namespace {

/// max_k |q_k(DSOCS) − q_k(DLA)|_inf / max(1, |q_k|_inf) over `steps` steps from the two-point start
/// (q0, q1), with q1 the first DLA step from the default initial data (so (q0, q1) ∈ M_d).
template <class S>
double largest_difference(const S& sys, double h, double alpha, long steps) {
  const auto dla = make_dla(sys, h, alpha);
  const auto x0 = sys.default_initial();
  auto a = dla.initial_state(x0.q, x0.v);
  dla.step(a);
  SecondOrderMethodOptions options;
  options.start = SecondOrderStart::forward_euler;  // unused: the start is two-point
  const DiscreteSecondOrderConstrained dsocs(embed_dla(sys, h, alpha), options);
  auto b = dsocs.initial_state_two_point(x0.q, a.q);
  double worst = 0.0;
  for (long k = 0; k < steps; ++k) {
    dla.step(a);
    dsocs.step(b);
    worst = std::max(worst, (a.q - b.q).template lpNorm<Eigen::Infinity>() /
                                std::max(1.0, a.q.template lpNorm<Eigen::Infinity>()));
    EXPECT_EQ(a.k, b.k);
  }
  // and the discrete constraint holds on every pair
  if constexpr (S::m > 0) {
    EXPECT_LT(dsocs.discrete_system().discrete_constraint()(b.previous, b.q).template lpNorm<Eigen::Infinity>(), 1e-12);
  }
  return worst;
}

}  // namespace

TEST(DsocsEmbedding, DsocsOfADlaSystemGivesTheDlaIterates) {
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  EXPECT_LT(largest_difference(particle, 0.1, 0.5, 2000), 1e-12);
  EXPECT_LT(largest_difference(KnifeEdge{}, 0.1, 0.5, 2000), 1e-12);
  EXPECT_LT(largest_difference(PerturbedKnifeEdge{}, 0.1, 0.5, 2000), 1e-12);
  EXPECT_LT(largest_difference(VerticalDisk{}, 0.1, 0.5, 2000), 1e-12);
  EXPECT_LT(largest_difference(ChaplyginSleigh{}, 0.1, 0.5, 2000), 1e-12);
  EXPECT_LT(largest_difference(ChaplyginSleigh{}, 0.1, 0.0, 2000), 1e-12);  // also off-centre α-rules
  // without constraints (D_K = Q³, D_V = TQ) the DSOCS is the discrete Euler–Lagrange step
  EXPECT_LT(largest_difference(Pendulum{}, 0.1, 0.5, 2000), 1e-12);
  EXPECT_LT(largest_difference(HarmonicOscillator{}, 0.1, 0.0, 2000), 1e-12);
}
