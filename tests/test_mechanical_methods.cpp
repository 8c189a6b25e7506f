// McLachlan–Perlmutter's integrator and the energy-preserving discrete gradient: orders by
// refinement against closed forms and the reference solver, the constraint at every step point,
// the discrete gradient's energy to round-off (and its exact balance with a force), and symmetry.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

namespace {

template <class S>
McLachlanPerlmutter<S> mp(const S& sys, double h) {
  return McLachlanPerlmutter<S>(sys, h);
}
template <class S>
DiscreteGradient<S> dg(const S& sys, double h) {
  return DiscreteGradient<S>(sys, h);
}

/// Max-norm error in q at T against the closed form.
template <class S, class Make>
auto closed_form_error(const S& sys, double T, Make make) {
  return [&sys, T, make](double h, long N) {
    const auto x0 = sys.default_initial();
    const auto s = test::final_state(make(sys, h), x0, N);
    return (s.q - sys.exact_solution(x0, T)->q).template lpNorm<Eigen::Infinity>();
  };
}

/// The largest |M(q_k) v_k|, |E_k − E_0| / |E_0| and |E_{k+1} − E_k| / |E_0| over `steps` steps.
struct Drift {
  double constraint = 0.0, energy = 0.0, energy_per_step = 0.0;
};
template <class Method, int N>
Drift drift(const Method& method, const PhasePoint<N>& x0, long steps) {
  const auto& sys = method.system();
  auto s = method.initial_state(x0.q, x0.v);
  const double E0 = energy(sys, x0.q, x0.v);
  Drift d;
  double E = E0;
  for (long k = 0; k < steps; ++k) {
    method.step(s);
    const double E_next = energy(sys, s.q, s.v);
    d.constraint = std::max(d.constraint, constraint_residual(sys, s.q, s.v));
    d.energy = std::max(d.energy, std::abs(E_next - E0) / std::abs(E0));
    d.energy_per_step = std::max(d.energy_per_step, std::abs(E_next - E) / std::abs(E0));
    E = E_next;
  }
  return d;
}


/// The sleigh pulled by a linear drag on its blade's normal motion and a constant push along x.
struct PushedSleigh : ChaplyginSleigh {
  template <class T>
  Vec<T, 3> force(const Vec<T, 3>&, const Vec<T, 3>& v, double) const {
    Vec<T, 3> f = -0.3 * v;
    f[0] += 0.2;
    return f;
  }
};

}  // namespace

namespace {

/// Orders of `make(system, h)` at T = 2, N = 20 … 160: against the closed forms of the particle,
/// the knife edge and the vertical disk and the reference solver on the sleigh; each is reported as
/// <name>_order_<system> and must be 2 within 0.1.
template <class Make>
void expect_second_order(const std::string& name, Make make) {
  const std::vector<long> N = {20, 40, 80, 160};
  const NonholonomicParticle particle;
  const KnifeEdge knife;
  const VerticalDisk disk;
  const ChaplyginSleigh sleigh;
  const auto x0 = sleigh.default_initial();
  const auto ref = reference_solution(sleigh, x0.q, x0.v, 2.0);
  const std::vector<std::pair<std::string, double>> orders = {
      {"particle", test::measured_order(2.0, N, closed_form_error(particle, 2.0, make))},
      {"knife_edge", test::measured_order(2.0, N, closed_form_error(knife, 2.0, make))},
      {"vertical_disk", test::measured_order(2.0, N, closed_form_error(disk, 2.0, make))},
      {"chaplygin_sleigh", test::measured_order(2.0, N, [&](double h, long steps) {
         return (test::final_state(make(sleigh, h), x0, steps).q - ref.q).template lpNorm<Eigen::Infinity>();
       })}};
  for (const auto& [system, order] : orders) {
    test::report(name + "_order_" + system, order);
    EXPECT_NEAR(order, 2.0, 0.1) << name << " on " << system;
  }
}

}  // namespace

TEST(McLachlanPerlmutter, SecondOrderAgainstClosedFormsAndTheReference) {
  expect_second_order("mclachlan_perlmutter", [](const auto& sys, double h) { return mp(sys, h); });
}

TEST(DiscreteGradient, SecondOrderAgainstClosedFormsAndTheReference) {
  expect_second_order("discrete_gradient", [](const auto& sys, double h) { return dg(sys, h); });
}

TEST(DiscreteGradient, EnergyToRoundOffAndConstraintAtEveryStepOverTenThousandSteps) {
  // The sleigh's metric depends on its heading (the gyroscopic term and ∂G enter); the particle's
  // potential is not quadratic in its coordinates' coupling.
  const ChaplyginSleigh sleigh;
  const Drift on_sleigh = drift(dg(sleigh, 0.1), sleigh.default_initial(), 10000);
  const auto particle = test::particle_with_potential();
  const PhasePoint<3> p0{Vecd<3>(1, 0.5, 0), Vecd<3>(0.3, 0.7, 0.15)};
  const Drift on_particle = drift(dg(particle, 0.1), p0, 10000);
  const KnifeEdge knife;
  const Drift on_knife = drift(dg(knife, 0.1), knife.default_initial(), 10000);
  test::report("discrete_gradient_energy_sleigh_1e4_steps", on_sleigh.energy);
  test::report("discrete_gradient_energy_particle_1e4_steps", on_particle.energy);
  test::report("discrete_gradient_energy_knife_edge_1e4_steps", on_knife.energy);
  test::report("discrete_gradient_energy_per_step_sleigh", on_sleigh.energy_per_step);
  test::report("discrete_gradient_energy_per_step_particle", on_particle.energy_per_step);
  test::report("discrete_gradient_energy_per_step_knife_edge", on_knife.energy_per_step);
  test::report("discrete_gradient_constraint_sleigh", on_sleigh.constraint);
  // Round-off: a few units of 1e-16 per step, a random walk of them over the run.
  for (const Drift& d : {on_sleigh, on_particle, on_knife}) {
    EXPECT_LT(d.energy_per_step, 2e-15);
    EXPECT_LT(d.energy, 1e-13);
    EXPECT_LT(d.constraint, 1e-12);
  }
}

TEST(McLachlanPerlmutter, ConstraintAtEveryStepAndEnergyBounded) {
  const ChaplyginSleigh sleigh;
  const Drift on_sleigh = drift(mp(sleigh, 0.1), sleigh.default_initial(), 10000);
  const KnifeEdge knife;
  const Drift on_knife = drift(mp(knife, 0.1), knife.default_initial(), 10000);
  const Drift first_tenth = drift(mp(sleigh, 0.1), sleigh.default_initial(), 1000);
  test::report("mclachlan_perlmutter_energy_sleigh_1e4_steps", on_sleigh.energy);
  test::report("mclachlan_perlmutter_energy_sleigh_1e3_steps", first_tenth.energy);
  test::report("mclachlan_perlmutter_energy_knife_edge_1e4_steps", on_knife.energy);
  test::report("mclachlan_perlmutter_constraint_sleigh", on_sleigh.constraint);
  EXPECT_LT(on_sleigh.constraint, 1e-12);
  EXPECT_LT(on_knife.constraint, 1e-12);
  // Not conserved, but an O(h²) oscillation without drift: the first thousand steps reach the
  // largest error of ten thousand.
  EXPECT_LT(on_sleigh.energy, 1e-2);
  EXPECT_LE(on_sleigh.energy, 1.05 * first_tenth.energy);
  EXPECT_LT(on_knife.energy, 1e-2);
}

TEST(DiscreteGradient, AForceChangesTheEnergyByItsDiscreteWork) {
  // E(q1, v1) − E(q0, v0) = (q1 − q0)·F(q̄, v̄) at every step.
  const PushedSleigh sleigh;
  const auto method = dg(sleigh, 0.05);
  auto s = method.initial_state(Vecd<3>::Zero(), Vecd<3>(1.0, 0.0, 1.0));
  double worst = 0.0, total_work = 0.0;
  for (int k = 0; k < 400; ++k) {
    const Vecd<3> q0 = s.q, v0 = s.v;
    const double E0 = energy(sleigh, q0, v0), t_mid = s.t + 0.5 * 0.05;
    method.step(s);
    const double work = (s.q - q0).dot(sleigh.force<double>(0.5 * (q0 + s.q), 0.5 * (v0 + s.v), t_mid));
    total_work += work;
    worst = std::max(worst, std::abs(energy(sleigh, s.q, s.v) - E0 - work));
  }
  test::report("discrete_gradient_energy_minus_work", worst);
  test::report("discrete_gradient_total_work", total_work);
  EXPECT_LT(worst, 2e-15);
  EXPECT_GT(std::abs(total_work), 0.1);  // the force does work
}

TEST(MechanicalMethods, AreSymmetric) {
  // A step with h then one with −h gives back the start (to Newton's tolerance).
  const ChaplyginSleigh sleigh;
  const auto x0 = sleigh.default_initial();
  const auto back = [&](const auto& forward, const auto& backward) {
    auto s = forward.initial_state(x0.q, x0.v);
    for (int k = 0; k < 5; ++k) forward.step(s);
    auto r = backward.initial_state(s.q, s.v);
    for (int k = 0; k < 5; ++k) backward.step(r);
    return std::max((r.q - x0.q).template lpNorm<Eigen::Infinity>(), (r.v - x0.v).template lpNorm<Eigen::Infinity>());
  };
  const double mp_back = back(mp(sleigh, 0.1), mp(sleigh, -0.1));
  const double dg_back = back(dg(sleigh, 0.1), dg(sleigh, -0.1));
  test::report("mclachlan_perlmutter_forward_backward", mp_back);
  test::report("discrete_gradient_forward_backward", dg_back);
  EXPECT_LT(mp_back, 1e-12);
  EXPECT_LT(dg_back, 1e-12);
}
