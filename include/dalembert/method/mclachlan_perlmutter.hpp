#pragma once
// The nonholonomic integrator of McLachlan and Perlmutter ([MP06] eq. (4.18)) for mechanical models
// L = ½ vᵀG(q)v − V(q) with constraints M(q)v = 0 and an external force F(q, v, t). With
// H(q, p) = ½ pᵀG(q)⁻¹p + V(q) and v = G(q)⁻¹p, one step from (q0, p0), v0 = G(q0)⁻¹p0:
//   q½ = q0 + (h/2) v0,
//   p1 = p0 − (h/2) [H_q(q½, p0) + H_q(q½, p1)] + h M(q½)ᵀλ + h F(q½, (q1 − q0)/h, t0 + h/2),
//   q1 = q½ + (h/2) v1,   v1 = G(q1)⁻¹p1,
//   M(q1) v1 = 0   (M(q1) v1 + b(q1) = 0 for affine constraints),
// with H_q(q, p) = ∇V(q) − ½ wᵀ∂_qG(q) w, w = G(q)⁻¹p. For G = I this is (4.18) as odelab's
// `McLachlan` reads it; for a metric the drifts move with the velocities of the step points (docs/methods.md).
// The scheme is symmetric on D (the same equations from (q1, p1) with −h give back (q0, p0)),
// hence of order 2, and the constraint holds at every step point to Newton's tolerance.
// One Newton solve per step for (v1, λ), n + m unknowns, with q1 = q½ + (h/2) v1 and p1 = G(q1) v1
// (with q1 as the unknown, v1 = 2(q1 − q½)/h would carry q's rounding error times 2/h into the
// residual, above Newton's tolerance for small h); the Jacobian comes from forward automatic
// differentiation of the residual. The equations are written once, generic in the scalar type of
// the start (q0, p0) too, and the step's derivative by its start comes from the same equations by
// the implicit-function theorem (step_derivative).
// A locally coupled model without external force (model/local_terms.hpp) is stepped with the same
// equations assembled term by term, and Newton factorises a sparse Jacobian (EquationsByTerms).
#include <stdexcept>
#include <type_traits>

#include "dalembert/model/local_terms.hpp"
#include "dalembert/method/metric_method.hpp"
#include "dalembert/model/metric_derivatives.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

template <HasMetric S>
class McLachlanPerlmutter : public MetricMethod<McLachlanPerlmutter<S>, S> {
  using Base = MetricMethod<McLachlanPerlmutter<S>, S>;
  friend Base;
  using Base::options_, Base::h_, Base::system_;

 public:
  using Base::n, Base::m, Base::by_terms;
  /// The unknowns of a step, (v1, λ), in the scalar type T.
  template <class T>
  using Unknowns = Vec<T, sum_of_sizes(n, m), sum_of_sizes(max_n_of<S>(), max_m_of<S>())>;

  /// The multiplier is λ of the last step.
  using typename Base::State;

  McLachlanPerlmutter(const S& system, double h, NewtonOptions options = {}) : Base(system, h, options) {}

  /// One step from s: Newton on (v1, λ) from (v_k, λ_k), then q1 = q½ + (h/2) v1, p1 = G(q1) v1; the
  /// equations dense or, on a locally coupled model, term by term with a sparse Jacobian.
  void step(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = h_;
    using StepEquations = std::conditional_t<by_terms, EquationsByTerms, DenseEquations>;
    StepEquations at(*this, s);
    const auto residual = [&](const Unknowns<double>& x, Unknowns<double>& F) { at.residual(x, F); };
    const auto jacobian = [&](const Unknowns<double>& x, typename StepEquations::Jacobian& J) { at.jacobian(x, J); };
    Unknowns<double> x(dn + dm);
    x << s.v, s.multiplier;
    const NewtonReport r = solve_step<typename StepEquations::Jacobian>(
        s, h, SeparateEquations{residual, jacobian}, x, s.p.template lpNorm<Eigen::Infinity>(), options_);
    s.v = x.template head<n>(dn);
    s.q = at.q_half() + (0.5 * h) * s.v;
    s.p = at.next_momentum(s.q, s.v);
    s.multiplier = x.template segment<m>(dn, dm);
    advance(s, h);
    s.iterations = r.iterations;
  }

  /// ∂/∂(q_k, p_k) of the step by terms from s, as a map (solve/step_driver.hpp): D * (δq_k, δp_k) is
  /// (δv_{k+1}, δλ, δq_{k+1}, δp_{k+1}). By the implicit-function theorem on the step's equations by
  /// terms, differentiated by (q_k, v_k), v_k = G(q_k)⁻¹p_k: with every term's metric constant,
  /// H_q(q½, p) = ∇V(q½), and the momentum rows G(q1) v1 − G(q0) v0 + h ∇V(q½) − h M(q½)ᵀλ are a
  /// sum of the terms' shares, each differentiated at its fixed size by its own (q_k, v_k, v_{k+1}, λ);
  /// q_{k+1} = q_k + (h/2)(v_k + v_{k+1}). A term whose metric varies couples every coordinate through
  /// G(q½)⁻¹ in H_q: not implemented (std::logic_error). It takes a step of its own.
  SparseStepDerivativeByVelocity sparse_step_derivative(const State& s) const
    requires by_terms
  {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = h_;
    const State next = step_from(*this, s);
    local::Triplets F_sigma, F_x, y_sigma, y_x, metric, momentum_by_q;  // F_σ by σ = (q_k, v_k)
    int constraint_row = 0;
    system_.visit_terms([&](const auto& term, const auto& indices) {
      using Term = std::decay_t<decltype(term)>;
      constexpr int K = Term::n, m_e = Term::m, Z = 3 * K + m_e, R = 3 * K + m_e;
      const Vecd<K> term_q0 = local::gather(s.q, indices), term_v0 = local::gather(s.v, indices);
      const MetricDerivatives<Term> at_half(term, Vecd<K>(term_q0 + (0.5 * h) * term_v0));
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < K; ++i)
          for (int j = 0; j < K; ++j)
            if (at_half.metric_derivative(k, i, j) != 0.0)
              throw std::logic_error(
                  "the McLachlan-Perlmutter step's derivative by terms is implemented for terms of constant metric");
      // z = (q0, v0, v1, λ) of the term ↦ (its momentum rows' share, its constraint rows, G(q1) v1,
      // G(q0) v0)
      const auto shares = [&](const auto& z) {
        using T = typename std::decay_t<decltype(z)>::Scalar;
        const Vec<T, K> q0 = z.template head<K>(), v0 = z.template segment<K>(K), v1 = z.template segment<K>(2 * K);
        const Vec<T, K> q_half = q0 + (0.5 * h) * v0, q1 = q_half + (0.5 * h) * v1;
        const MetricDerivatives<Term, T> half(term, q_half);
        const Vec<T, K> p1 = dense_metric(term, q1) * v1, p0 = dense_metric(term, q0) * v0;
        Vec<T, R> out;
        out.template head<K>() = p1 - p0 + h * half.potential_gradient_plus_half_quadratic(Vec<T, K>(p0 * 0.0));
        if constexpr (m_e > 0) {
          const Vec<T, m_e> lambda = z.template tail<m_e>();
          out.template head<K>() -= h * (term.template constraint_matrix<T>(q_half).transpose() * lambda);
          out.template segment<m_e>(K) = term.template constraint_matrix<T>(q1) * v1;
        }
        out.template segment<K>(K + m_e) = p1;
        out.template tail<K>() = p0;
        return out;
      };
      Vecd<Z> z;
      z.template head<3 * K>() << term_q0, term_v0, local::gather(next.v, indices);
      if constexpr (m_e > 0) z.template tail<m_e>() = next.multiplier.segment(constraint_row, m_e);
      Vecd<R> value;
      Matd<R, Z> J;
      ad::value_and_jacobian<Z, R>(shares, z, value, J);
      const auto column_of_x = [&](int j) {  // v1 and λ of the term among the unknowns (v1, λ)
        return j < 3 * K ? indices[j - 2 * K] : dn + constraint_row + (j - 3 * K);
      };
      for (int r = 0; r < R; ++r) {
        for (int j = 0; j < Z; ++j) {
          if (J(r, j) == 0.0) continue;
          const bool by_start = j < 2 * K;
          const int start_column = j < K ? indices[j] : dn + indices[j % K];
          if (r < K + m_e) {  // the equations
            const int row = r < K ? indices[r] : dn + constraint_row + (r - K);
            (by_start ? F_sigma : F_x).emplace_back(row, by_start ? start_column : column_of_x(j), J(r, j));
          } else if (r < 2 * K + m_e) {  // p1, the rows after q1's
            const int row = dn + indices[r - K - m_e];
            (by_start ? y_sigma : y_x).emplace_back(row, by_start ? start_column : column_of_x(j), J(r, j));
          } else {  // p0 = G(q0) v0
            (j < K ? momentum_by_q : metric).emplace_back(indices[r - 2 * K - m_e], indices[j % K], J(r, j));
          }
        }
      }
      constraint_row += m_e;
    });
    for (int i = 0; i < dn; ++i) {  // q1 = q0 + (h/2)(v0 + v1)
      y_sigma.emplace_back(i, i, 1.0);
      y_sigma.emplace_back(i, dn + i, 0.5 * h);
      y_x.emplace_back(i, i, 0.5 * h);
    }
    using local::sparse_matrix;
    return SparseStepDerivativeByVelocity(sparse_matrix(dn + dm, 2 * dn, F_sigma), sparse_matrix(dn + dm, dn + dm, F_x),
                                          sparse_matrix(2 * dn, 2 * dn, y_sigma), sparse_matrix(2 * dn, dn + dm, y_x),
                                          sparse_matrix(dn, dn, metric), sparse_matrix(dn, dn, momentum_by_q));
  }

  /// Where δq_{k+1} is among the rows of sparse_step_derivative's products: after δv_{k+1} and δλ.
  Eigen::Index next_position_row(const State& s) const {
    return s.q.size() + s.multiplier.size();
  }

 private:
  /// What the step's equations take from their start (q0, p0), v0 = G(q0)⁻¹p0, in the scalar type T:
  /// q½, the model's derivatives there and −p0 + (h/2) H_q(q½, p0), the part of the momentum residual
  /// fixed by the start. T is double in a step (once per step), a dual number for its derivative.
  template <class T>
  struct Start {
    Start(const McLachlanPerlmutter& mp, const VecN<S, T>& q0, const VecN<S, T>& v0, const VecN<S, T>& p0)
        : v0(v0), q_half(q0 + (0.5 * mp.h_) * v0), at_half(mp.system_, q_half),
          G_half_inverse(at_half.constant() ? MatNN<S, T>() : MatNN<S, T>(at_half.metric().partialPivLu().inverse())),
          M_half(mp.system_.template constraint_matrix<T>(q_half)), known(-p0 + (0.5 * mp.h_) * H_q(p0)) {}
    /// H_q(q½, p) for the momentum p of the velocity w = G(q½)⁻¹p. With a constant metric H_q is ∇V
    /// and w enters only with the width of its derivatives, which p has: no n² product with G⁻¹.
    template <class U>
    VecN<S, U> H_q(const VecN<S, U>& p) const {
      if (at_half.constant()) return at_half.potential_gradient_plus_half_quadratic(p, -1.0);
      return at_half.potential_gradient_plus_half_quadratic(times(G_half_inverse, p), -1.0);
    }
    VecN<S, T> v0, q_half;
    MetricDerivatives<S, T> at_half;
    MatNN<S, T> G_half_inverse;
    MatMN<S, T> M_half;
    VecN<S, T> known;
  };

  /// The step's residual at x = (v1, λ) from `start` (momentum rows, then constraint rows), with a
  /// constant external force f added to the model's, and the next point (q1, p1) it implies;
  /// generic in x's scalar U, with `width` derivatives.
  template <class U>
  struct Equations {
    Unknowns<U> residual;
    VecN<S, U> q1, p1;
  };
  template <class T, class X, class F = NoConstantForce>
  DALEMBERT_INLINE auto equations(const Start<T>& start, const X& x, double t0, int width, const F& f = {}) const {
    using U = typename X::Scalar;
    const auto lift = [&](const VecN<S, T>& v) { return VecN<S, U>(ad::in_scalar<U>(v, width)); };
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = h_;
    Equations<U> e;
    const VecN<S, U> v1 = x.template head<n>(dn);
    const VecM<S, U> lambda = x.template segment<m>(dn, dm);
    e.q1 = lift(start.q_half) + (0.5 * h) * v1;
    // A constant metric multiplies in doubles over its entries that are not zero, to the bit of the
    // dense product; a varying one is evaluated at q1 in U.
    e.p1 = start.at_half.constant() ? start.at_half.metric_product(v1)
                                    : VecN<S, U>(coefficient_product(dense_metric(system_, e.q1), v1));
    VecN<S, U> momentum_residual = e.p1 + lift(start.known) + (0.5 * h) * start.H_q(e.p1);
    if constexpr (m != 0) {
      if (dm > 0) momentum_residual -= h * transpose_times(start.M_half, lambda);
    }
    if constexpr (HasExternalForce<S>) {
      if (has_external_force(system_)) {
        const VecN<S, U> velocity = 0.5 * (lift(start.v0) + v1);  // (q1 − q0)/h
        momentum_residual -= h * system_.template force<U>(lift(start.q_half), velocity, t0 + 0.5 * h);
      }
    }
    add_constant_force(momentum_residual, f, -h);
    e.residual.resize(dn + dm);
    e.residual << momentum_residual, VecM<S, U>(coefficient_product(system_.template constraint_matrix<U>(e.q1), v1));
    add_constraint_offset(system_, e.q1, t0 + h, e.residual.tail(dm));
    return e;
  }

  /// The unknowns at the solution of the step s → next, and the equations from a start (q0, v0, p0)
  /// in any scalar type: what the step's derivatives differentiate (MetricMethod::step_derivatives).
  Unknowns<double> unknowns_at(const State&, const State& next) const {
    Unknowns<double> x(next.v.size() + next.multiplier.size());
    x << next.v, next.multiplier;
    return x;
  }
  template <class Q, class F, class X>
  auto step_equations(const Q& q0, const Q& v0, const Q& p0, const F& f, const X& x, double t0, int width) const {
    return equations(Start<typename Q::Scalar>(*this, q0, v0, p0), x, t0, width, f);
  }

  /// The step's equations on a model stepped densely: the residual with its Jacobian, by forward
  /// automatic differentiation in the n + m unknowns; p1 = G(q1) v1.
  class DenseEquations {
   public:
    static constexpr int N = sum_of_sizes(n, m), MaxN = sum_of_sizes(max_n_of<S>(), max_m_of<S>());
    using Jacobian = Matd<N, N, MaxN, MaxN>;

    DenseEquations(const McLachlanPerlmutter& mp, const State& s) : mp_(mp), t0_(s.t), start_(mp, s.q, s.v, s.p) {}
    const VecN<S>& q_half() const { return start_.q_half; }
    /// F at x; the Jacobian there is kept for jacobian(), which Newton asks for at the x of the latest
    /// residual.
    void residual(const Unknowns<double>& x, Unknowns<double>& F) {
      const int width = static_cast<int>(x.size());
      const auto equations = [&](const auto& y) { return mp_.equations(start_, y, t0_, width).residual; };
      ad::value_and_jacobian<N, N, MaxN, MaxN>(equations, x, F, latest_);
    }
    void jacobian(const Unknowns<double>&, Jacobian& J) const { J = latest_; }
    VecN<S> next_momentum(const VecN<S>& q1, const VecN<S>& v1) const {
      return metric_matrix(mp_.system_, q1) * v1;
    }

   private:
    const McLachlanPerlmutter& mp_;
    double t0_;
    Start<double> start_;
    Jacobian latest_;
  };

  /// The same equations on a locally coupled model, term by term, with a sparse Jacobian
  /// [∂p1/∂v1, −h M(q½)ᵀ; ∂(M(q1) v1)/∂v1, 0]. It leaves out (h/2) ∂H_q(q½, p1)/∂v1, which is zero when
  /// no term's metric varies (the chain) and otherwise of size h |v| and dense (G(q½)⁻¹ couples the
  /// terms): Newton then converges linearly to the same solution. p1 = G(q1) v1 is the latest
  /// residual's, which Newton evaluates at the solution.
  class EquationsByTerms {
   public:
    using Jacobian = Eigen::SparseMatrix<double>;

    EquationsByTerms(const McLachlanPerlmutter& mp, const State& s)
        : mp_(mp), q_half_(s.q + (0.5 * mp.h_) * s.v), M_half_(local::constraint_matrix(mp.system_, q_half_)),
          H_q_(mp.system_, q_half_), known_(-s.p + (0.5 * mp.h_) * H_q_(s.p)) {}
    EquationsByTerms(const EquationsByTerms&) = delete;  // H_q_ refers to q_half_
    const Eigen::VectorXd& q_half() const { return q_half_; }
    void residual(const Eigen::VectorXd& x, Eigen::VectorXd& F) {
      const int dn = static_cast<int>(q_half_.size());
      const double h = mp_.h_;
      evaluate_end_point(x.head(dn));
      F.head(dn) = p1_ + known_ + (0.5 * h) * H_q_(p1_) - h * (M_half_.transpose() * x.tail(x.size() - dn));
      F.tail(x.size() - dn) = constraint_;
    }
    void jacobian(const Eigen::VectorXd&, Jacobian& J) {
      const int dn = static_cast<int>(q_half_.size());
      entries_ = by_v1_;
      for (int k = 0; k < M_half_.outerSize(); ++k)
        for (Jacobian::InnerIterator it(M_half_, k); it; ++it)
          entries_.emplace_back(it.col(), dn + it.row(), -mp_.h_ * it.value());
      J.setFromTriplets(entries_.begin(), entries_.end());
    }
    const Eigen::VectorXd& next_momentum(const Eigen::VectorXd&, const Eigen::VectorXd&) const { return p1_; }

   private:
    /// At v1, term by term: each term's G_e(q1) v1 and M_e(q1) v1, q1 = q½ + (h/2) v1, with their
    /// derivatives along its own velocities (automatic differentiation at the term's fixed size):
    /// ∂p1/∂v1 in the rows 0..n−1 of by_v1_, ∂(M(q1) v1)/∂v1 in the rows n..n+m−1.
    void evaluate_end_point(const Eigen::VectorXd& v1) {
      const int dn = static_cast<int>(v1.size());
      const double h = mp_.h_;
      p1_.setZero(dn);
      constraint_.resize(constraint_count(mp_.system_));
      by_v1_.clear();
      int row = dn;
      mp_.system_.visit_terms([&](const auto& term, const auto& indices) {
        using Term = std::decay_t<decltype(term)>;
        constexpr int K = Term::n, R = K + Term::m;
        const Vecd<K> qe = local::gather(q_half_, indices);
        Vecd<R> value;
        Matd<R, K> by_v;
        ad::value_and_jacobian<K, R>(
            [&](const auto& v) {
              using T = typename std::decay_t<decltype(v)>::Scalar;
              const Vec<T, K> q1 = ad::constants<T>(qe, K) + (0.5 * h) * v;
              Vec<T, R> out;
              out.template head<K>() = dense_metric(term, q1) * v;
              if constexpr (Term::m > 0) out.template tail<Term::m>() = term.template constraint_matrix<T>(q1) * v;
              return out;
            },
            local::gather(v1, indices), value, by_v);
        local::scatter_add(value.template head<K>(), indices, p1_);
        for (int i = 0; i < K; ++i)
          for (int j = 0; j < K; ++j) by_v1_.emplace_back(indices[i], indices[j], by_v(i, j));
        for (int r = K; r < R; ++r, ++row) {
          constraint_[row - dn] = value[r];
          for (int j = 0; j < K; ++j) by_v1_.emplace_back(row, indices[j], by_v(r, j));
        }
      });
    }

    const McLachlanPerlmutter& mp_;
    Eigen::VectorXd q_half_;
    Eigen::SparseMatrix<double> M_half_;
    local::HamiltonianGradient<S> H_q_;
    Eigen::VectorXd known_;  ///< −p0 + (h/2) H_q(q½, p0)
    Eigen::VectorXd p1_, constraint_;
    local::Triplets by_v1_, entries_;
  };

  /// A x for a matrix of doubles and a vector of any scalar (x's derivatives keep their width).
  template <class Matrix, class Vector>
  static Vector times(const Matrix& A, const Vector& x) {
    Vector out(A.rows());
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      out[i] = A(i, 0) * x[0];
      for (Eigen::Index j = 1; j < A.cols(); ++j) out[i] += A(i, j) * x[j];
    }
    return out;
  }
  /// Aᵀ y, likewise (y non-empty).
  template <class Matrix, class Vector>
  static VecN<S, typename Vector::Scalar> transpose_times(const Matrix& A, const Vector& y) {
    VecN<S, typename Vector::Scalar> out(A.cols());
    for (Eigen::Index j = 0; j < A.cols(); ++j) {
      out[j] = A(0, j) * y[0];
      for (Eigen::Index i = 1; i < A.rows(); ++i) out[j] += A(i, j) * y[i];
    }
    return out;
  }

};

}  // namespace dalembert
