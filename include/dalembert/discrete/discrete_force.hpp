#pragma once
// Discrete forces F_d^±(q0, q1) ≈ ∫ F·∂q/∂q_{0,1} dt for models with an external force F(q, v)
// (forced discrete mechanics, thesis §3.7.7). The midpoint rule
//   F_d^-(q0, q1) = F_d^+(q0, q1) = (h/2) F((q0 + q1)/2, (q1 − q0)/h)
// is second order with any second-order discrete Lagrangian; DEL and DLA add it to their
// residuals when the model has a force, so forces are never silently ignored.
#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"

namespace dalembert {

template <int N>
struct DiscreteForceDerivatives {
  Vecd<N> value;     ///< F_d^- = F_d^+
  Matd<N, N> D2;     ///< ∂F_d/∂q1
};

template <Model S>
class MidpointForce {
 public:
  static constexpr int n = S::n;
  MidpointForce(const S& system, double h) : system_(system), h_(h) {}

  template <class T>
  Vec<T, n> operator()(const Vec<T, n>& q0, const Vec<T, n>& q1) const {
    const Vec<T, n> q = 0.5 * (q0 + q1);
    const Vec<T, n> v = (q1 - q0) / h_;
    return 0.5 * h_ * system_.template force<T>(q, v);
  }

 private:
  S system_;
  double h_;
};

template <Model S>
[[gnu::flatten]] DiscreteForceDerivatives<S::n> differentiate(const MidpointForce<S>& f, const Vecd<S::n>& q0,
                                                             const Vecd<S::n>& q1) {
  DiscreteForceDerivatives<S::n> d;
  ad::value_and_jacobian<S::n, S::n>(
      [&](const auto& x1) {
        using D = typename std::decay_t<decltype(x1)>::Scalar;
        const Vec<D, S::n> x0 = q0.template cast<D>();
        return f(x0, x1);
      },
      q1, d.value, d.D2);
  return d;
}

}  // namespace dalembert
