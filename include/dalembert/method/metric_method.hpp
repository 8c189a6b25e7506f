#pragma once
// What the methods written with the metric share (McLachlan–Perlmutter, the discrete gradient,
// SPARK): the state (q, v, p), p = G(q)v (MetricMethodState, which a method may extend), the start
// from (q0, v0), the parts of the model whose shares a method's equations sum (visit_parts: the
// whole model, or the terms of a locally coupled one, model/local_terms.hpp) and the derivatives of
// a step from the method's own equations (metric_method_step_derivatives). A method derives from
// MetricMethod<Method, S, State> and gives
//   step(State&)                                 its step, the storage a policy of its equations;
//   unknowns_at(s, next)                         its unknowns at the solution of the step s → next;
//   step_equations(q0, v0, p0, f, x, t0, width)  its equations, generic in the scalar type, with the
//                                                members residual, q1 and p1, and a constant
//                                                external force f added to the model's (or
//                                                NoConstantForce, model/model.hpp);
// and by terms sparse_step_derivative(s), a map whose products hold δq_{k+1} from the row
// next_position_row(s) and δp_{k+1} last. A method whose equations give the entries of their own
// derivatives (SPARK) gives step_derivative and step_derivatives instead of the two above.
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/local_terms.hpp"
#include "dalembert/model/metric_derivatives.hpp"
#include "dalembert/solve/dual_lu.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of a step of the methods written with the metric from (q0, p0),
/// v0 = G(q0)⁻¹p0, by the implicit-function theorem on the step's equations at their solution x
/// (implicit_step_derivative): equations(q0, v0, p0, f, x, width), generic in the scalar type,
/// returns the residual and the next point (members residual, q1, p1). by_state is 2n × 2n, rows
/// q_{k+1} then p_{k+1}, columns q_k then p_k; with ByForce, by_force is the derivative by a
/// constant external force f added to the model's over the step, at f = 0, from the same
/// factorisation (2n × n).
template <bool ByForce, HasMetric S, class Unknowns, class Equations>
StepDerivatives metric_method_step_derivatives(const S& sys, const VecN<S>& q0, const VecN<S>& p0, const Unknowns& x,
                                               Equations&& equations) {
  constexpr int NX = Unknowns::RowsAtCompileTime, MaxNX = Unknowns::MaxRowsAtCompileTime, blocks = ByForce ? 3 : 2;
  constexpr int NZ = sum_of_sizes(multiple_of_size(blocks, S::n), NX);
  constexpr int MaxNZ = sum_of_sizes(multiple_of_size(blocks, max_n_of<S>()), MaxNX);
  constexpr int NOut = sum_of_sizes(multiple_of_size(2, S::n), NX);
  constexpr int MaxNOut = sum_of_sizes(multiple_of_size(2, max_n_of<S>()), MaxNX);
  const int dn = coordinate_count(sys), nx = static_cast<int>(x.size()), width = blocks * dn + nx;
  Vecd<NZ, MaxNZ> z = Vecd<NZ, MaxNZ>::Zero(width);  // (q0, p0, [f = 0], x)
  z.template head<S::n>(dn) = q0;
  z.template segment<S::n>(dn, dn) = p0;
  z.tail(nx) = x;
  const auto from_z = [&](const auto& y) {
    using U = typename std::decay_t<decltype(y)>::Scalar;
    const VecN<S, U> q = y.template head<S::n>(dn), p = y.template segment<S::n>(dn, dn);
    const VecN<S, U> v = MetricDerivatives<S, U>(sys, q).metric_solve(p);
    const auto f = constant_force_in<ByForce, VecN<S, U>>(y, 2 * dn, dn);
    const auto e = equations(q, v, p, f, Vec<U, NX, MaxNX>(y.tail(nx)), width);
    Vec<U, NOut, MaxNOut> out(nx + 2 * dn);
    out << e.residual, e.q1, e.p1;
    return out;
  };
  const Eigen::MatrixXd D = implicit_step_derivative<NZ, NOut, MaxNZ, MaxNOut>(from_z, z, nx).bottomRows(2 * dn);
  StepDerivatives out{D.leftCols(2 * dn), {}};
  if constexpr (ByForce) out.by_force = D.middleCols(2 * dn, dn);
  return out;
}

template <class Method, HasMetric S, class MethodState = MetricMethodState<S>>
class MetricMethod {
 public:
  using State = MethodState;
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  /// Whether a step is assembled term by term, with a sparse Jacobian (a locally coupled model).
  static constexpr bool by_terms = SteppedByTerms<S>;

  MetricMethod(const S& system, double h, NewtonOptions options) : system_(system), h_(h), options_(options) {}

  double step_size() const { return h_; }
  const S& system() const { return system_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    State s;
    static_cast<MetricMethodState<S>&>(s) = metric_method_start(system_, q0, v0);
    return s;
  }

  VecN<S> velocity(const State& s) const { return s.v; }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s, with v_k = G(q_k)⁻¹p_k: a 2n × 2n matrix,
  /// rows q_{k+1} then p_{k+1}, columns q_k then p_k, by the implicit-function theorem on the step's
  /// equations at their solution. It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const
    requires(!by_terms)
  {
    return derivatives<false>(s).by_state;
  }

  /// step_derivative(s) and the derivative of the step's result by a constant external force f
  /// added to the model's over the step, at f = 0 (2n × n), from one factorisation: the A and B of
  /// the step's linearisation, for control. It takes a step of its own.
  StepDerivatives step_derivatives(const State& s) const
    requires(!by_terms)
  {
    return derivatives<true>(s);
  }

  /// The same matrix on a locally coupled model, from the method's derivative by terms, a map
  /// (sparse_step_derivative): the rows of q_{k+1} (from next_position_row(s)) and of p_{k+1} (the
  /// last) of its product with every direction.
  Eigen::MatrixXd step_derivative(const State& s) const
    requires by_terms
  {
    const Eigen::MatrixXd D = method().sparse_step_derivative(s).matrix();
    const Eigen::Index n = s.q.size();
    Eigen::MatrixXd by_state(2 * n, 2 * n);
    by_state << D.middleRows(method().next_position_row(s), n), D.bottomRows(n);
    return by_state;
  }

 protected:
  const Method& method() const { return static_cast<const Method&>(*this); }

  /// visit(part, indices, first constraint row, add_force) for the parts of the model whose shares
  /// a method's equations sum: the whole model, whose external force add_force(R, Q, V, t, factor)
  /// adds as factor F(Q, V, t), or each term of a locally coupled model (SteppedByTerms), which has
  /// none.
  template <class Visit>
  void visit_parts(Visit&& visit) const {
    if constexpr (by_terms) {
      int constraint_row = 0;
      system_.visit_terms([&](const auto& term, const auto& indices) {
        visit(term, indices, constraint_row, [](auto&&...) {});
        constraint_row += std::decay_t<decltype(term)>::m;
      });
    } else {
      visit(system_, detail::EveryCoordinate{}, 0,
            [&](auto& R, const auto& Q, const auto& V, double t, double factor) DALEMBERT_INLINE {
              if constexpr (HasExternalForce<S>) {
                using T = typename std::decay_t<decltype(R)>::Scalar;
                if (has_external_force(system_)) R += factor * system_.template force<T>(Q, V, t);
              }
            });
    }
  }

  template <bool ByForce>
  StepDerivatives derivatives(const State& s) const {
    const State next = step_from(method(), s);
    const auto equations = [&](const auto& q0, const auto& v0, const auto& p0, const auto& f, const auto& x,
                               int width) { return method().step_equations(q0, v0, p0, f, x, s.t, width); };
    return metric_method_step_derivatives<ByForce>(system_, s.q, s.p, method().unknowns_at(s, next), equations);
  }

  S system_;
  double h_;
  NewtonOptions options_;
};

}  // namespace dalembert
