#pragma once
// The nonholonomic Maupertuis–Jacobi principle (Anahory Simoes, thesis 2021, Theorem 5.3.2): the
// trajectories of energy e of a mechanical system L = ½ vᵀG(q)v − V(q) with constraints M(q)v = 0
// are, reparametrised, the trajectories of the kinetic system of the Jacobi metric
//   G_e(q) = (e − V(q)) G(q)   on {V < e},   with the same constraints.
// For a direction v ∈ D(q0) scaled to P = √(2(e − V(q0))) v/|v|_G (energy e) and
// Q = P/(e − V(q0)) (the same direction for the Jacobi metric),
//   c_P(s) = c^e_Q(h(s)),   dh/ds = e − V(c_P(s)),   h(0) = 0,
// where c_P is the mechanical trajectory and c^e_Q the Jacobi metric's. maupertuis_jacobi computes
// both sides independently, each with the library's Bulirsch–Stoer loop, so that their difference
// checks the principle, the model's equations and the integration at once.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/first_order_field.hpp"
#include "dalembert/solve/bulirsch_stoer.hpp"

namespace dalembert {

/// The kinetic system of the Jacobi metric (e − V(q)) G(q) of a mechanical model at energy e, with
/// the model's constraints: L_e(q, v) = ½ (e − V(q)) vᵀG(q)v.
template <HasMetric S>
class JacobiMetric {
 public:
  static constexpr int n = S::n, m = S::m, max_n = max_n_of<S>(), max_m = max_m_of<S>();

  JacobiMetric(const S& sys, double energy) : sys_(sys), energy_(energy) {}

  int dimension() const { return coordinate_count(sys_); }
  int constraint_count() const { return dalembert::constraint_count(sys_); }
  double energy() const { return energy_; }

  template <class T>
  T lagrangian(const VecN<S, T>& q, const VecN<S, T>& v) const {
    const T f = T(energy_) - sys_.template potential<T>(q);
    return T(0.5) * f * v.dot(sys_.template metric<T>(q) * v);
  }
  template <class T>
  MatMN<S, T> constraint_matrix(const VecN<S, T>& q) const {
    return sys_.template constraint_matrix<T>(q);
  }

 private:
  const S& sys_;
  double energy_;
};

/// One side of the principle at each parameter s_i: the mechanical trajectory and its h(s_i), and
/// the Jacobi metric's trajectory at h(s_i).
template <int N, int MaxN = N>
struct MaupertuisJacobiSample {
  double s = 0.0, h = 0.0;
  Vecd<N, MaxN> q;         ///< c_P(s), the mechanical trajectory of energy e
  Vecd<N, MaxN> q_jacobi;  ///< c^e_Q(h(s)), the Jacobi metric's trajectory
};
template <class S>
using MaupertuisJacobiSampleOf = MaupertuisJacobiSample<S::n, max_n_of<S>()>;

/// Both sides of the principle from q0 along the direction v ∈ D(q0) (v ≠ 0) at energy e > V(q0),
/// at the increasing parameters `s` (≥ 0), each integrated to the absolute and relative
/// `tolerance`. The model must be mechanical (metric and potential) without an external force.
/// Throws std::invalid_argument for e ≤ V(q0) or v = 0, and IntegrationLimit where an interval
/// needs more than `max_substeps` substeps (a trajectory reaching the boundary V = e).
template <HasMetric S>
std::vector<MaupertuisJacobiSampleOf<S>> maupertuis_jacobi(const S& sys, const VecN<S>& q0, const VecN<S>& v,
                                                           double energy, const std::vector<double>& s,
                                                           double tolerance = 1e-12, long max_substeps = 100000) {
  constexpr int N = S::n;
  const int d = coordinate_count(sys);
  const double f0 = energy - sys.template potential<double>(q0);
  const double speed = std::sqrt(v.dot(sys.template metric<double>(q0) * v));
  if (!(f0 > 0)) throw std::invalid_argument("the energy must exceed the potential at q0");
  if (!(speed > 0)) throw std::invalid_argument("the direction v must not vanish");
  const VecN<S> P = std::sqrt(2 * f0) / speed * v, Q = P / f0;

  using Mechanical = OdeintState<N == Dynamic ? Dynamic : 2 * N + 1>;  // q, q̇, h
  using Kinetic = OdeintState<N == Dynamic ? Dynamic : 2 * N>;        // q, q̇
  Mechanical x{};
  Kinetic y{};
  if constexpr (N == Dynamic) {
    x.assign(2 * d + 1, 0.0);
    y.assign(2 * d, 0.0);
  }
  // Each side on the first-order field of the reference solutions, q̇ = v, v̇ = q̈(q, v); the
  // mechanical one carries h along.
  const MechanicalField<S> mechanical_field{{sys}};
  const MechanicalField<JacobiMetric<S>> kinetic_field{{JacobiMetric<S>(sys, energy)}};
  const auto position = [d](const auto& z) { return VecN<S>(detail::phase_block<S>(z.data(), 0, d)); };
  detail::phase_block<S>(x.data(), 0, d) = q0;
  detail::phase_block<S>(x.data(), d, d) = P;
  detail::phase_block<S>(y.data(), 0, d) = q0;
  detail::phase_block<S>(y.data(), d, d) = Q;
  const auto mechanical = [&](const Mechanical& z, Mechanical& dz, double t) {
    mechanical_field.rate(t, z.data(), dz.data());
    dz[2 * d] = energy - sys.template potential<double>(position(z));
  };
  const auto kinetic = [&](const Kinetic& z, Kinetic& dz, double t) { kinetic_field.rate(t, z.data(), dz.data()); };

  std::vector<MaupertuisJacobiSampleOf<S>> out;
  out.reserve(s.size());
  double s_now = 0.0, h_now = 0.0, ds = 0.0, dh = 0.0;
  for (const double si : s) {
    if (si > s_now) {
      bulirsch_stoer_interval(mechanical, x, s_now, si, tolerance, ds, max_substeps);
      s_now = si;
    }
    const double h = x[2 * d];
    if (h > h_now) {  // h increases with s, at the rate e − V > 0
      bulirsch_stoer_interval(kinetic, y, h_now, h, tolerance, dh, max_substeps);
      h_now = h;
    }
    MaupertuisJacobiSampleOf<S> sample;
    sample.s = si;
    sample.h = h;
    sample.q = position(x);
    sample.q_jacobi = position(y);
    out.push_back(std::move(sample));
  }
  return out;
}

}  // namespace dalembert
