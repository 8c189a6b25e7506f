#pragma once
// Discrete Herglotz integrators (contact variational integrators; [AS21] §8.1, §8.3)
// and, with linear constraints, discrete Herglotz–d'Alembert integrators (ours; docs/methods.md).
//
// The discrete Herglotz equations (8.1.5), z-recursion (8.1.1):
//   D1 L_d(q_k, q_{k+1}, z_k) + σ_d(q_k, q_{k+1}, z_k) D2 L_d(q_{k−1}, q_k, z_{k−1}) = M(q_k)ᵀ Λ_k,
//   z_{k+1} = z_k + L_d(q_k, q_{k+1}, z_k),   σ_d = 1 + D_z L_d,   ω(q_k, q_{k+1}) = 0,
// with M, Λ, ω absent without constraints. Criticality of the discrete action z_N under variations
// δq_k ∈ D_{q_k} gives the first line (derivation in docs/methods.md).
// Position–momentum form, state (q_k, p_k, z_k) with p_k = D2 L_d(q_{k−1}, q_k, z_{k−1}): solve
//   p_k + D1 L_d(q_k, q_{k+1}, z_k)/σ_d − M(q_k)ᵀ λ = 0,   ω(q_k, q_{k+1}) = 0
// for (q_{k+1}, λ) — momentum matching F⁺L_d = F⁻L_d of (8.1.7) — then
// p_{k+1} = D2 L_d(q_k, q_{k+1}, z_k) and z_{k+1} = z_k + L_d. σ_d = 0 (h = −1/γ for the thesis'
// rule with L = … + γz) leaves F⁻L_d undefined: the step reports it.
#include <cmath>
#include <string>
#include <type_traits>

#include "dalembert/discrete/contact_lagrangian.hpp"
#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/exact_contact.hpp"
#include "dalembert/model/contact.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// A point (q, p, z) of T*Q × R.
template <int N, int MaxN = N>
struct ContactPhasePoint {
  Vecd<N, MaxN> q;
  Vecd<N, MaxN> p;
  double z = 0.0;
};
template <class X>
using ContactPhasePointOf = ContactPhasePoint<X::n, max_n_of<X>()>;

/// The discrete Legendre maps (8.1.6): F⁺L_d(q0, q1, z0) = (q1, D2 L_d, z0 + L_d) and
/// F⁻L_d(q0, q1, z0) = (q0, −D1 L_d/σ_d, z0).
template <ContactDiscreteLagrangian Ld>
ContactPhasePointOf<Ld> discrete_legendre_plus(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1, double z0) {
  const auto d = differentiate(ld, q0, q1, z0);
  return {q1, d.D2, z0 + d.value};
}

template <ContactDiscreteLagrangian Ld>
ContactPhasePointOf<Ld> discrete_legendre_minus(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1, double z0) {
  return {q0, differentiate(ld, q0, q1, z0).minus_momentum(), z0};
}

/// Residual of the two-point discrete Herglotz equation (8.1.5) at q1 for the triple (q0, q1, q2)
/// started at z0: D1 L_d(q1, q2, z1) + σ_d(q1, q2, z1) D2 L_d(q0, q1, z0), z1 = z0 + L_d(q0, q1, z0).
template <ContactDiscreteLagrangian Ld>
VecN<Ld> discrete_herglotz_residual(const Ld& ld, const VecN<Ld>& q0, const VecN<Ld>& q1, const VecN<Ld>& q2,
                                    double z0) {
  const auto a = differentiate(ld, q0, q1, z0);
  const auto b = differentiate(ld, q1, q2, z0 + a.value);
  return b.D1 + b.sigma() * a.D2;
}

/// Minimal |σ_d| accepted: below it F⁻L_d = −D1 L_d/σ_d is numerically undefined.
inline constexpr double minimal_conformal_factor = 1e-12;

template <ContactModel S, ContactDiscreteLagrangian Ld, DiscreteConstraint Dc>
class DiscreteHerglotz {
 public:
  static constexpr int n = S::n;
  static constexpr int m = contact_constraint_count<S>();
  static_assert(Ld::n == n && Dc::n == n && Dc::m == m, "inconsistent dimensions");
  using Sizes = FrozenAction<S>;  // the model's sizes, m included

  struct State : OnTheGrid {
    VecN<S> q;
    VecN<S> p;              ///< p_k = D2 L_d(q_{k−1}, q_k, z_{k−1}) (post-momentum)
    double z = 0.0;         ///< action variable z_k
    VecM<Sizes> multiplier;  ///< λ of the last step
    VecN<S> last_velocity;  ///< (q_k − q_{k−1})/h, the Newton initial guess of the next step
    double sigma = 1.0;     ///< σ_d(q_{k−1}, q_k, z_{k−1}) of the last step
    double discrete_constraint = 0.0;  ///< |ω(q_{k−1}, q_k)|_inf
  };

  DiscreteHerglotz(const S& system, Ld discrete_lagrangian, Dc discrete_constraint, NewtonOptions options = {})
      : system_(system), ld_(std::move(discrete_lagrangian)), dc_(std::move(discrete_constraint)), options_(options) {}

  double step_size() const { return ld_.step_size(); }
  const S& system() const { return system_; }
  const Ld& discrete_lagrangian() const { return ld_; }
  const Dc& discrete_constraint() const { return dc_; }

  /// Position–momentum start from (q0, v0, z0), v0 ∈ D: p0 = ∂L/∂v(q0, v0, z0).
  State initial_state(const VecN<S>& q0, const VecN<S>& v0, double z0) const {
    State s;
    s.q = q0;
    s.p = contact_momentum(system_, q0, v0, z0);
    s.z = z0;
    s.multiplier = VecM<Sizes>::Zero(contact_constraint_count(system_));
    s.last_velocity = v0;
    return s;
  }

  /// Two-point start from (q0, q1, z0) as in the thesis; the returned state is at k = 1.
  State initial_state_two_point(const VecN<S>& q0, const VecN<S>& q1, double z0) const {
    const double h = step_size();
    State s;
    s.k = 1;
    s.t = h;
    s.q = q1;
    s.multiplier = VecM<Sizes>::Zero(contact_constraint_count(system_));
    s.last_velocity = (q1 - q0) / h;
    const auto d = evaluate_ld(s, q0, q1, z0);
    check_sigma(d.sigma(), s);
    s.p = d.D2;
    s.z = z0 + d.value;
    s.sigma = d.sigma();
    if constexpr (m != 0) {
      if (contact_constraint_count(system_) > 0) s.discrete_constraint = dc_(q0, q1).template lpNorm<Eigen::Infinity>();
    }
    return s;
  }

  void step(State& s) const {
    constexpr int N = sum_of_sizes(n, m), MaxN = sum_of_sizes(max_n_of<S>(), Sizes::max_m);
    const int dn = coordinate_count(system_), dm = contact_constraint_count(system_);
    const double h = step_size();
    const MatMN<Sizes> Mq = contact_constraint_matrix<S, double>(system_, s.q);
    Vecd<N, MaxN> x(dn + dm);
    x << predict(s), s.multiplier;
    ContactDiscreteDerivativesOf<Ld> d;  // of the last evaluation = at the solution
    DiscreteConstraintDerivatives<n, m, max_n_of<S>(), Sizes::max_m> w;
    const auto evaluate = [&](const Vecd<N, MaxN>& unknowns, Vecd<N, MaxN>& F, Matd<N, N, MaxN, MaxN>& J) {
      const VecN<S> q1 = unknowns.template head<n>(dn);
      d = evaluate_ld(s, s.q, q1, s.z);
      check_sigma(d.sigma(), s);
      F.template head<n>(dn) = s.p - d.minus_momentum();
      J.template topLeftCorner<n, n>(dn, dn) = -d.minus_momentum_jacobian();
      add_constraint_rows<n, m>(dc_, s.q, q1, Mq, unknowns, F, J, w);
    };
    const double scale =
        std::max(s.p.template lpNorm<Eigen::Infinity>(), s.last_velocity.template lpNorm<Eigen::Infinity>());
    const NewtonReport r = solve_step<Matd<N, N, MaxN, MaxN>>(s, h, JointEquations{evaluate}, x, scale, options_);
    const VecN<S> q1 = x.template head<n>(dn);
    s.p = d.D2;
    s.z += d.value;
    s.sigma = d.sigma();
    s.multiplier = x.template segment<m>(dn, dm);
    if constexpr (m != 0) {
      if (dm > 0) s.discrete_constraint = w.value.template lpNorm<Eigen::Infinity>();
    }
    s.last_velocity = (q1 - s.q) / h;
    s.q = q1;
    advance(s, h);
    s.iterations = r.iterations;
  }

  /// ∂(q_{k+1}, p_{k+1}, z_{k+1})/∂(q_k, p_k, z_k) of the step from s: a (2n + 1) × (2n + 1) matrix,
  /// rows and columns in that order. By the implicit-function theorem on the step's equations at
  /// their solution x = (q_{k+1}, λ) (solve/step_driver.hpp, implicit_step_derivative),
  ///   F = (p_k + D1 L_d(q_k, q_{k+1}, z_k)/σ_d − M(q_k)ᵀλ, ω(q_k, q_{k+1})) = 0,
  ///   p_{k+1} = D2 L_d(q_k, q_{k+1}, z_k),   z_{k+1} = z_k + L_d(q_k, q_{k+1}, z_k),
  /// with every derivative by automatic differentiation, for discrete Lagrangians generic in the
  /// scalar type. It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const
    requires(!HasClosedDerivatives<Ld>)
  {
    const State next = step_from(*this, s);
    constexpr int max_n = max_n_of<S>(), max_m = Sizes::max_m;
    constexpr int NS = sum_of_sizes(multiple_of_size(2, n), 1), MaxNS = sum_of_sizes(multiple_of_size(2, max_n), 1);
    constexpr int NZ = sum_of_sizes(sum_of_sizes(NS, n), m);
    constexpr int MaxNZ = sum_of_sizes(sum_of_sizes(MaxNS, max_n), max_m);
    constexpr int NOut = sum_of_sizes(NS, m), MaxNOut = sum_of_sizes(MaxNS, max_m);  // F, p_{k+1}, z_{k+1}
    const int dn = coordinate_count(system_), dm = contact_constraint_count(system_), start = 2 * dn + 1;
    // z = (q_k, p_k, z_k, q_{k+1}, λ) ↦ (F, p_{k+1}, z_{k+1})
    const auto equations = [&](const auto& z) {
      using T = typename std::decay_t<decltype(z)>::Scalar;
      const VecN<S, T> q0 = z.template segment<n>(0, dn), q1 = z.template segment<n>(start, dn);
      Vec<T, NS, MaxNS> w(2 * dn + 1), slots;  // (q0, q1, z0) and (D1, D2, ∂L_d/∂z)
      w << q0, q1, z[2 * dn];
      T value;
      ad::value_and_gradient<NS, MaxNS>(
          [&](const auto& y) {
            using U = typename std::decay_t<decltype(y)>::Scalar;
            return ld_(VecN<S, U>(y.template head<n>(dn)), VecN<S, U>(y.template segment<n>(dn, dn)), U(y[2 * dn]));
          },
          w, value, slots);
      Vec<T, NOut, MaxNOut> out(2 * dn + dm + 1);
      out.template head<n>(dn) = z.template segment<n>(dn, dn) + slots.template head<n>(dn) / (1.0 + slots[2 * dn]);
      if constexpr (m != 0) {
        if (dm > 0) {
          out.template head<n>(dn) -=
              contact_constraint_matrix<S, T>(system_, q0).transpose() * z.template segment<m>(start + dn, dm);
          out.template segment<m>(dn, dm) = dc_(q0, q1);
        }
      }
      out.template segment<n>(dn + dm, dn) = slots.template segment<n>(dn, dn);
      out[2 * dn + dm] = z[2 * dn] + value;
      return out;
    };
    Vecd<NZ, MaxNZ> z(start + dn + dm);
    z << s.q, s.p, s.z, next.q, next.multiplier;
    const Eigen::MatrixXd D = implicit_step_derivative<NZ, NOut, MaxNZ, MaxNOut>(equations, z, dn + dm);
    Eigen::MatrixXd out(2 * dn + 1, 2 * dn + 1);
    out << D.topRows(dn), D.bottomRows(dn + 1);  // without λ
    return out;
  }

  /// The same derivative for a discrete Lagrangian that gives it for its own step, as the exact one,
  /// which shoots, does from the flow's variational equations (ExactContactLagrangian).
  Eigen::MatrixXd step_derivative(const State& s) const
    requires(HasClosedDerivatives<Ld> && requires(const Ld& ld) { ld.step_derivative(s.q, s.p, s.z); })
  {
    return ld_.step_derivative(s.q, s.p, s.z);
  }

  /// The velocity in D of the momentum p_k at (q_k, z_k) (inverse contact Legendre map).
  VecN<S> velocity(const State& s) const { return contact_velocity(system_, s.q, s.p, s.z); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }
  /// −λ/h of the last step, an estimate of the continuous multiplier at t_{k−1} (to O(h)).
  auto carried_multiplier(const State& s) const { return -s.multiplier / step_size(); }

  /// The contact Hamiltonian H(q_k, p_k, z_k) = H ∘ F⁻L_d(q_k, q_{k+1}, z_k), the thesis' energy monitor.
  double hamiltonian(const State& s) const { return contact_hamiltonian(system_, s.q, s.p, s.z); }

 private:
  VecN<S> predict(const State& s) const {
    if constexpr (m == 0 && requires { ld_.predict(s.q, s.p, s.z); }) {
      try {
        return ld_.predict(s.q, s.p, s.z);  // e.g. the exact flow: Newton then only confirms it
      } catch (const DiscreteLagrangianError& e) {
        throw SolverError(s.k + 1, grid_time(s.k + 1, step_size()), std::string(e.what()));
      }
    } else {
      return s.q + step_size() * s.last_velocity;
    }
  }

  ContactDiscreteDerivativesOf<Ld> evaluate_ld(const State& s, const VecN<S>& q0, const VecN<S>& q1, double z0) const {
    try {
      return differentiate(ld_, q0, q1, z0);
    } catch (const DiscreteLagrangianError& e) {
      NewtonReport r;
      r.reason = e.what();
      throw SolverError(s.k + 1, grid_time(s.k + 1, step_size()), r);
    }
  }

  void check_sigma(double sigma, const State& s) const {
    if (std::abs(sigma) > minimal_conformal_factor) return;
    NewtonReport r;
    r.reason = "sigma_d = 1 + D_z L_d = " + std::to_string(sigma) +
               " vanishes, so the discrete Legendre map F-L_d = -D1 L_d / sigma_d is undefined "
               "(for the thesis' rule and L = ... + gamma z this happens at h = -1/gamma); change h";
    throw SolverError(s.k + 1, grid_time(s.k + 1, step_size()), r);
  }

  S system_;
  Ld ld_;
  Dc dc_;
  NewtonOptions options_;
};

/// The discrete constraint of a contact system: the α-rule ω = M((1−α) q0 + α q1)(q1 − q0)/h.
template <ContactModel S>
using ContactConstraint = AlphaConstraint<FrozenAction<S>>;

template <ContactModel S>
ContactConstraint<S> make_contact_constraint(const S& system, double h, double alpha = 0.5) {
  return ContactConstraint<S>(at_action(system, 0.0), h, alpha);
}

/// The discrete Herglotz(–d'Alembert) integrator with any discrete contact Lagrangian and the
/// α-rule discrete constraint.
template <ContactModel S, ContactDiscreteLagrangian Ld>
DiscreteHerglotz<S, Ld, ContactConstraint<S>> make_herglotz(const S& system, Ld ld, double alpha = 0.5,
                                                           NewtonOptions options = {}) {
  const double h = ld.step_size();
  return DiscreteHerglotz<S, Ld, ContactConstraint<S>>(system, std::move(ld), make_contact_constraint(system, h, alpha),
                                                      options);
}

/// The thesis' integrator: midpoint in q, left end in z (α = ½).
template <ContactModel S>
auto make_thesis_herglotz(const S& system, double h, double alpha = 0.5, NewtonOptions options = {}) {
  return make_herglotz(system, ContactAlphaRule<S>(system, h, alpha), alpha, options);
}

/// The exact discrete Herglotz flow (thesis Thm 8.2.5): the discrete Herglotz equations of the exact
/// discrete contact Lagrangian. Its momentum residual cannot be smaller than the shooting accuracy
/// allows (|δq(h)| ≤ shooting_tolerance·max(1, |q|) gives |δp| ≈ |W δq|/h), so Newton's tolerance is
/// raised to 10·shooting_tolerance/h where it is tighter.
template <ContactModel S>
auto make_exact_herglotz(const S& system, double h, double tolerance = 1e-13, double shooting_tolerance = 1e-12,
                         NewtonOptions options = {}) {
  options.tolerance = std::max(options.tolerance, 10 * shooting_tolerance / h);
  return make_herglotz(system, ExactContactLagrangian<S>(system, h, tolerance, shooting_tolerance), 0.5, options);
}

}  // namespace dalembert
