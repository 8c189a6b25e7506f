#pragma once
// FIM on the Lie group SO(3) ([FIM08] §3, eq. (2)) in body (left-trivialised)
// form, with the Moser–Veselov discrete Lagrangian
//   L_d(g_k, g_{k+1}) = l_d(W_k),  W_k = g_k⁻¹ g_{k+1},  l_d(W) = (1/h) tr((I₃ − W) J_d),
//   J_d = ½ tr(I) I₃ − I.
// Body momentum p_k = L*_{g_k} p⁻_{k,k+1} = (1/h) vee(W_k J_d − J_d W_kᵀ). One step:
//   1. solve (1/h) vee(W J_d − J_d Wᵀ) = p_k for W_k (Newton on Cayley coordinates, W = cay(x));
//   2. g_{k+1} = g_k W_k;
//   3. μ⁺_{k+1} = Ad*_{W_k} p_k = W_kᵀ p_k   (the post-momentum p⁺_{k,k+1} in the body frame);
//   4. p_{k+1} = (P* − Q*) μ⁺_{k+1},  p~_{k+1} = P* μ⁺_{k+1},  projectors of the inertia metric and
//      the body covectors A(g_{k+1}).
// For a left-invariant D this is FIM's displayed p_k = (P − Q)*(Ad*_{W_{k−1}} p_{k−1}). With a
// bi-invariant metric (I a multiple of the identity) Wᵀ and P* − Q* are isometries, so
// ½|p_k|² is conserved exactly (FIM Theorem 1), independently of the Newton tolerance.
#include <array>
#include <string_view>

#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/model/rigid_body.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

template <RigidBodyModel B>
class RigidBodyMomentumEnergy {
 public:
  static constexpr int m = B::m;

  struct State : OnTheGrid {
    Matd<3, 3> g;
    Vecd<3> p;          ///< body pre-momentum p_k = L*_{g_k} p⁻_{k,k+1}
    Vecd<3> p_plus;     ///< body post-momentum μ⁺_k = Ad*_{W_{k−1}} p_{k−1}  (at k = 0: R* p_0)
    Vecd<3> p_average;  ///< p~_k = ½(μ⁺_k + p_k) = P* μ⁺_k
    Vecd<3> last_jump;  ///< j_{k−1} = μ⁺_{k−1} − p_{k−1}, for the monitor of the period-2 mode
    Vecd<3> increment;  ///< Cayley coordinates of the last W (Newton initial guess)
  };

  RigidBodyMomentumEnergy(const B& body, double h, FimStart start = FimStart::B, NewtonOptions options = {})
      : body_(body), h_(h), start_(start), options_(options) {
    const Matd<3, 3> I = body_.inertia();
    Jd_ = 0.5 * I.trace() * Matd<3, 3>::Identity() - I;
  }

  double step_size() const { return h_; }
  const B& system() const { return body_; }

  /// p_0 = I Ω0 (start A), or I Ω0 − (h/2) Λ~(g0, Ω0) (start B, half the constraint impulse).
  State initial_state(const Matd<3, 3>& g0, const Vecd<3>& omega0) const {
    Vecd<3> p = body_.inertia() * omega0;
    if (start_ == FimStart::B) p -= 0.5 * h_ * rigid_body_constraint_force_form(body_, g0, omega0);
    State s;
    s.g = g0;
    s.increment = 0.5 * h_ * omega0;  // cay(hΩ/2) ≈ exp(hΩ)
    const auto pr = body_projectors(body_, g0);
    s.p = p;
    s.p_plus = pr.reflection() * p;
    s.p_average = pr.P * p;
    s.last_jump = s.p_plus - s.p;
    return s;
  }

  /// (1/h) vee(W J_d − J_d Wᵀ), the right-trivialised derivative of l_d at W.
  template <class T>
  Vec<T, 3> momentum_of(const Mat<T, 3, 3>& W) const {
    const Mat<T, 3, 3> Jd = Jd_.template cast<T>();
    return (1.0 / h_) * so3::vee(Mat<T, 3, 3>(W * Jd - Jd * W.transpose()));
  }

  void step(State& s) const {
    Vecd<3> x = s.increment;
    const auto evaluate = [&](const Vecd<3>& y, Vecd<3>& F, Matd<3, 3>& J) {
      momentum_and_jacobian(y, F, J);
      F -= s.p;
    };
    const NewtonReport r =
        solve_step<Matd<3, 3>>(s, h_, JointEquations{evaluate}, x, s.p.template lpNorm<Eigen::Infinity>(), options_);
    const Matd<3, 3> W = so3::cayley(x);
    s.g = s.g * W;
    const auto pr = body_projectors(body_, s.g);
    s.last_jump = s.p_plus - s.p;
    s.p_plus = so3::coadjoint(W, s.p);
    s.p = pr.reflection() * s.p_plus;
    s.p_average = pr.P * s.p_plus;
    s.increment = x;
    advance(s, h_);
    s.iterations = r.iterations;
  }

  /// ∂(g_{k+1}, p_{k+1})/∂(g_k, p_k) of the step from s, 6 × 6, with g moved along the left-trivialised
  /// chart g exp(hat ξ): columns ξ_k then p_k, rows ξ_{k+1} then p_{k+1}. The step's equation
  /// momentum_of(cay(x)) = p_k makes x a function of p_k alone, dx = (∂r/∂x)⁻¹ dp_k (the
  /// implicit-function theorem); g_{k+1} = g_k exp(hat ξ_k) cay(x) and p_{k+1} = (P* − Q*)(g_{k+1})
  /// cay(x)ᵀ p_k are then differentiated in dual numbers, ξ_{k+1} read as vee(g_{k+1}ᵀ g'_{k+1}), which
  /// is it to first order. It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const {
    const State next = step_from(*this, s);
    Vecd<3> r;
    Matd<3, 3> r_by_x;
    momentum_and_jacobian(next.increment, r, r_by_x);
    using D = ad::Dual<double, 6>;
    Vec<D, 3> xi, p;
    for (int i = 0; i < 3; ++i) {
      xi[i] = ad::variable<6>(0.0, i);
      p[i] = ad::variable<6>(s.p[i], 3 + i);
    }
    const Vec<D, 3> x = next.increment.template cast<D>() +
                        Matd<3, 3>(r_by_x.inverse()).template cast<D>() * Vec<D, 3>(p - s.p.template cast<D>());
    const Mat<D, 3, 3> W = so3::cayley(x);
    const Mat<D, 3, 3> g1 = s.g.template cast<D>() * so3::exp(xi) * W;
    const Vec<D, 3> xi1 = so3::vee(Mat<D, 3, 3>(next.g.transpose().template cast<D>() * g1));
    const Vec<D, 3> p1 = (Mat<D, 3, 3>::Identity() - 2.0 * body_constraint_projector<D>(body_, g1)) *
                         so3::coadjoint(W, p);
    Eigen::MatrixXd derivative(6, 6);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 6; ++j) {
        derivative(i, j) = ad::derivative(xi1[i], j);
        derivative(3 + i, j) = ad::derivative(p1[i], j);
      }
    return derivative;
  }

  /// Ω of the average momentum: I⁻¹ p~ (satisfies A(g) Ω = 0).
  Vecd<3> velocity(const State& s) const { return body_.inertia().ldlt().solve(s.p_average); }

  /// Extra CSV columns, as for FIM in R^n: energies of p⁻ (conserved) and p⁺, |Q* p~|, |Q* p⁺|.
  static constexpr std::array<std::string_view, 4> extra_columns = {"energy_pminus", "energy_pplus",
                                                                   "qstar_p_average", "qstar_p_plus"};
  std::array<double, 4> extra_values(const State& s) const {
    const Eigen::LDLT<Matd<3, 3>> I(body_.inertia());
    const auto pr = body_projectors(body_, s.g);
    return {0.5 * s.p.dot(I.solve(s.p)), 0.5 * s.p_plus.dot(I.solve(s.p_plus)),
            (pr.Q * s.p_average).template lpNorm<Eigen::Infinity>(),
            (0.5 * (s.p_plus - s.p)).template lpNorm<Eigen::Infinity>()};
  }

  /// The amplitude of the parasitic period-2 mode, the alternating part ¼|j_k − j_{k−1}|_inf of the
  /// jump j = μ⁺ − p, as for FIM in R^n (method/momentum_energy.hpp).
  static constexpr std::string_view parasitic_mode_name = "FIM's period-2 mode |j_k - j_(k-1)|/4 (j = p+ - p-)";
  double parasitic_mode(const State& s) const {
    return (0.25 * ((s.p_plus - s.p) - s.last_jump)).template lpNorm<Eigen::Infinity>();
  }

 private:
  /// momentum_of(cay(x)) and its Jacobian in x: the step's residual (less p_k) and its derivative.
  void momentum_and_jacobian(const Vecd<3>& x, Vecd<3>& r, Matd<3, 3>& J) const {
    using D = ad::Dual<double, 3>;
    Vec<D, 3> xd;
    for (int i = 0; i < 3; ++i) xd[i] = ad::variable<3>(x[i], i);
    const Vec<D, 3> rd = momentum_of<D>(so3::cayley(xd));
    for (int i = 0; i < 3; ++i) {
      r[i] = ad::value(rd[i]);
      for (int j = 0; j < 3; ++j) J(i, j) = ad::derivative(rd[i], j);
    }
  }

  B body_;
  double h_;
  FimStart start_;
  NewtonOptions options_;
  Matd<3, 3> Jd_;
};

}  // namespace dalembert
