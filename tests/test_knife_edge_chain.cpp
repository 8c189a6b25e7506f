// The chain of knife edges: the sparse, run-time-sized midpoint DLA of
// method/knife_edge_chain_dla.hpp takes the same steps as the generic DLA (automatic
// differentiation, dense Newton) on KnifeEdgeChain<N>, keeps the constraints and the energy, and
// its sparse and dense linear algebra agree.
#include <gtest/gtest.h>

#include <cmath>

#include "dalembert/method/dla.hpp"
#include "dalembert/method/knife_edge_chain_dla.hpp"
#include "dalembert/model/dynamics.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

/// Skates along x, headings 0.1 i, each moving along its blade with speed 1 − 0.2 i, turning at 0.3 (−1)^i.
void chain_start(int N, Eigen::VectorXd& q0, Eigen::VectorXd& v0) {
  q0.resize(3 * N);
  v0.resize(3 * N);
  for (int i = 0; i < N; ++i) {
    const double phi = 0.1 * i, s = 1.0 - 0.2 * i;
    q0.segment<3>(3 * i) << 1.0 * i, 0.0, phi;
    v0.segment<3>(3 * i) << s * std::cos(phi), s * std::sin(phi), 0.3 * (i % 2 ? -1 : 1);
  }
}

template <int N>
void compare_with_generic_dla(long steps) {
  models::KnifeEdgeChain<N> chain;
  const double h = 0.05;
  Eigen::VectorXd q0, v0;
  chain_start(N, q0, v0);
  const auto generic = make_dla(chain, h);
  auto g = generic.initial_state(Vecd<3 * N>(q0), Vecd<3 * N>(v0));
  const KnifeEdgeChainDla sparse(N, chain.chain_parameters(), h);
  auto s = sparse.initial_state(q0, v0);
  double max_difference = 0.0;
  for (long k = 0; k < steps; ++k) {
    generic.step(g);
    sparse.step(s);
    max_difference = std::max(max_difference, (Eigen::VectorXd(g.q) - s.q).lpNorm<Eigen::Infinity>());
  }
  test::report("chain N=" + std::to_string(N) + " max |q_sparse - q_generic|", max_difference);
  EXPECT_LT(max_difference, 1e-11);
  EXPECT_LT((Eigen::VectorXd(g.p) - s.p).lpNorm<Eigen::Infinity>(), 1e-10);
}

}  // namespace

TEST(KnifeEdgeChain, SparseStepsEqualTheGenericDlaForOneAndThreeSkates) {
  compare_with_generic_dla<1>(200);
  compare_with_generic_dla<3>(200);
}

TEST(KnifeEdgeChain, LongChainKeepsConstraintsAndEnergyAndSparseEqualsDense) {
  const int N = 40;
  const double h = 0.05;
  models::KnifeEdgeChainParameters p;
  Eigen::VectorXd q0, v0;
  chain_start(N, q0, v0);
  const KnifeEdgeChainDla sparse(N, p, h), dense(N, p, h, KnifeEdgeChainDla::Linear::dense);
  auto s = sparse.initial_state(q0, v0), d = dense.initial_state(q0, v0);
  const double E0 = sparse.energy(q0, v0);
  double max_drift = 0.0, max_omega = 0.0;
  for (int k = 0; k < 400; ++k) {
    const Eigen::VectorXd q_prev = s.q;
    sparse.step(s);
    dense.step(d);
    // discrete constraint ω(q_k, q_{k+1}) and energy at the midpoint velocity
    for (int i = 0; i < N; ++i) {
      const double phim = 0.5 * (q_prev[3 * i + 2] + s.q[3 * i + 2]);
      const Eigen::Vector2d vm = (s.q.segment<2>(3 * i) - q_prev.segment<2>(3 * i)) / h;
      max_omega = std::max(max_omega, std::abs(std::sin(phim) * vm[0] - std::cos(phim) * vm[1]));
    }
    max_drift = std::max(max_drift, std::abs(sparse.energy(0.5 * (q_prev + s.q), s.last_velocity) - E0));
  }
  test::report("chain N=40 energy drift (midpoint), t = 20", max_drift);
  test::report("chain N=40 sparse vs dense max |dq|", (s.q - d.q).lpNorm<Eigen::Infinity>());
  EXPECT_LT(max_omega, 1e-12);
  EXPECT_LT(max_drift, 1e-2 * E0);
  EXPECT_LT((s.q - d.q).lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_LE(s.iterations, 4);
}
