#pragma once
// Discrete second-order constrained systems (DSOCS, [BFG13] Def. 3.1): a discrete Lagrangian
// L_d(q0, q1), discrete kinematic constraints D_K = {g_K(q0, q1, q2) = 0} ⊂ Q³ and discrete
// variational constraints D_V|_(q0,q1,q2) ⊂ T_{q1}Q spanned by the columns of B_d(q0, q1, q2).
// A DSOCS is any object with
//   static constexpr int n, m;   double step_size() const;   (sizes as for models: Eigen::Dynamic
//                                with dimension(), constraint_count() and optional max_n, max_m)
//   template <class T> T lagrangian(const Vec<T,n>& q0, const Vec<T,n>& q1) const;
//   template <class T> Vec<T,m> kinematic_constraint(q0, q1, q2) const;
//   template <class T> Mat<T,n,n-m> variational_frame(q0, q1, q2) const;
// and optionally physical_factor / spurious_factor (q0, q1, q2) (see model/second_order.hpp) and
// system() returning the continuous SOCS it discretizes (for second-order starts and diagnostics).
//
// Two ways to obtain one:
//  * discretize(socs, h): the paper's recipe ([BFG13] §4): L_d = L ∘ φ_{L_d}⁻¹, D_K = φ_{D_K}(C_K),
//    D_V = C_V ∘ φ_{D_K}⁻¹, with the discretization maps below;
//  * CortesMartinezEmbedding: a discrete nonholonomic system (L_d, ω, D) as a DSOCS (Remark 3.4).
#include <concepts>

#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/second_order.hpp"

namespace dalembert {

template <class T, int N, int MaxN = N>
struct TangentPoint {
  Vec<T, N, MaxN> q, v;
};

template <class T, int N, int MaxN = N>
struct SecondOrderPoint {
  Vec<T, N, MaxN> q, v, a;
};

/// A column vector of N entries (N possibly Eigen::Dynamic) within the bound MaxN, the argument of
/// the discretization maps (so that N and MaxN are deduced from it).
template <class T, int N, int MaxN>
using BoundedVec = Eigen::Matrix<T, N, 1, Eigen::ColMajor, MaxN, 1>;

/// φ_{L_d}⁻¹(q0, q1) = ((1−α) q0 + α q1, (q1 − q0)/h). The paper's choice (§4.1.2) is α = 0: the
/// left point and the forward difference.
class TangentDiscretization {
 public:
  explicit TangentDiscretization(double h, double alpha = 0.0) : h_(h), alpha_(alpha) {}
  template <class T, int N, int MaxN>
  TangentPoint<T, N, MaxN> operator()(const BoundedVec<T, N, MaxN>& q0, const BoundedVec<T, N, MaxN>& q1) const {
    return {(1.0 - alpha_) * q0 + alpha_ * q1, (q1 - q0) / h_};
  }

 private:
  double h_, alpha_;
};

/// φ_{D_K}⁻¹(q0, q1, q2) = (q1, (q2 − q0)/(2h), (q2 − 2q1 + q0)/h²), the paper's choice (§4.1.2):
/// central differences at the middle point, second-order accurate and symmetric under h → −h.
class CentralDifferences {
 public:
  explicit CentralDifferences(double h) : h_(h) {}
  template <class T, int N, int MaxN>
  SecondOrderPoint<T, N, MaxN> operator()(const BoundedVec<T, N, MaxN>& q0, const BoundedVec<T, N, MaxN>& q1,
                                          const BoundedVec<T, N, MaxN>& q2) const {
    return {q1, (q2 - q0) / (2.0 * h_), (q2 - 2.0 * q1 + q0) / (h_ * h_)};
  }

 private:
  double h_;
};

template <class Ds>
concept DiscreteSecondOrderSystem = requires(const Ds& d, const VecN<Ds>& q) {
  { Ds::n } -> std::convertible_to<int>;
  { Ds::m } -> std::convertible_to<int>;
  { coordinate_count(d) } -> std::convertible_to<int>;
  { constraint_count(d) } -> std::convertible_to<int>;
  { d.step_size() } -> std::convertible_to<double>;
  { d.template lagrangian<double>(q, q) } -> std::convertible_to<double>;
  { d.template kinematic_constraint<double>(q, q, q) } -> std::convertible_to<VecM<Ds>>;
  { d.template variational_frame<double>(q, q, q) } -> std::convertible_to<MatNK<Ds>>;
};

template <class Ds>
concept HasFactoredDiscreteConstraint = DiscreteSecondOrderSystem<Ds> && requires(const Ds& d, const VecN<Ds>& q) {
  { d.template physical_factor<double>(q, q, q) } -> std::convertible_to<VecM<Ds>>;
  { d.template spurious_factor<double>(q, q, q) } -> std::convertible_to<VecM<Ds>>;
};

template <class Ds>
concept HasContinuousSystem = DiscreteSecondOrderSystem<Ds> && requires(const Ds& d) {
  requires SecondOrderSystem<std::decay_t<decltype(d.system())>>;
};

/// The DSOCS of a SOCS by the paper's recipe ([BFG13] §4). L_d carries no factor h (as there): the
/// discrete equations are homogeneous in L_d, so the trajectories are the same.
template <SecondOrderSystem S, class TangentMap = TangentDiscretization, class SecondOrderMap = CentralDifferences>
class DiscretizedSecondOrderSystem {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  static constexpr int max_n = max_n_of<S>(), max_m = max_m_of<S>();

  DiscretizedSecondOrderSystem(const S& system, double h, TangentMap tangent, SecondOrderMap second_order)
      : system_(system), h_(h), tangent_(std::move(tangent)), second_order_(std::move(second_order)) {}

  double step_size() const { return h_; }
  const S& system() const { return system_; }
  int dimension() const { return coordinate_count(system_); }
  int constraint_count() const { return dalembert::constraint_count(system_); }

  template <class T>
  T lagrangian(const VecN<S, T>& q0, const VecN<S, T>& q1) const {
    const auto x = tangent_(q0, q1);
    return system_.template lagrangian<T>(x.q, x.v);
  }
  template <class T>
  VecM<S, T> kinematic_constraint(const VecN<S, T>& q0, const VecN<S, T>& q1, const VecN<S, T>& q2) const {
    const auto x = second_order_(q0, q1, q2);
    return system_.template kinematic_constraint<T>(x.q, x.v, x.a);
  }
  template <class T>
  MatNK<S, T> variational_frame(const VecN<S, T>& q0, const VecN<S, T>& q1, const VecN<S, T>& q2) const {
    const auto x = second_order_(q0, q1, q2);  // φ_{D_V} = φ_{D_K}, as in the paper
    return system_.template variational_frame<T>(x.q, x.v, x.a);
  }
  template <class T>
  VecM<S, T> physical_factor(const VecN<S, T>& q0, const VecN<S, T>& q1, const VecN<S, T>& q2) const
    requires HasFactoredKinematicConstraint<S>
  {
    const auto x = second_order_(q0, q1, q2);
    return system_.template physical_factor<T>(x.q, x.v, x.a);
  }
  template <class T>
  VecM<S, T> spurious_factor(const VecN<S, T>& q0, const VecN<S, T>& q1, const VecN<S, T>& q2) const
    requires HasFactoredKinematicConstraint<S>
  {
    const auto x = second_order_(q0, q1, q2);
    return system_.template spurious_factor<T>(x.q, x.v, x.a);
  }

 private:
  S system_;
  double h_;
  TangentMap tangent_;
  SecondOrderMap second_order_;
};

/// The paper's DSOCS of a SOCS: forward-difference L_d and central-difference D_K, D_V ([BFG13] §4).
template <SecondOrderSystem S>
DiscretizedSecondOrderSystem<S> discretize(const S& system, double h) {
  return DiscretizedSecondOrderSystem<S>(system, h, TangentDiscretization(h), CentralDifferences(h));
}

/// Remark 3.4: the discrete nonholonomic system (L_d, M_d = {ω = 0}, D) of Cortés–Martínez as a
/// DSOCS with D_K = (Q × M_d) ∩ (M_d × Q) and D_V|_(q0,q1,q2) = D_{q1}. The condition ω(q0, q1) = 0
/// does not involve q2: it holds for the starting pair and is then carried along by ω(q1, q2) = 0,
/// so the step equations are ω(q1, q2) = 0 and E(q1)ᵀ (D2 L_d(q0, q1) + D1 L_d(q1, q2)) = 0.
template <Model S, DiscreteLagrangian Ld, DiscreteConstraint Dc>
class CortesMartinezEmbedding {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  static constexpr int max_n = max_n_of<S>(), max_m = max_m_of<S>();
  static_assert(Ld::n == n && Dc::n == n && Dc::m == m, "inconsistent dimensions");

  CortesMartinezEmbedding(const S& system, Ld discrete_lagrangian, Dc discrete_constraint)
      : continuous_{system}, ld_(std::move(discrete_lagrangian)), dc_(std::move(discrete_constraint)) {}

  double step_size() const { return ld_.step_size(); }
  int dimension() const { return coordinate_count(continuous_.system); }
  int constraint_count() const { return dalembert::constraint_count(continuous_.system); }
  const NonholonomicAsSecondOrder<S>& system() const { return continuous_; }
  const Dc& discrete_constraint() const { return dc_; }

  template <class T>
  T lagrangian(const VecN<S, T>& q0, const VecN<S, T>& q1) const { return ld_(q0, q1); }
  template <class T>
  VecM<S, T> kinematic_constraint(const VecN<S, T>&, const VecN<S, T>& q1, const VecN<S, T>& q2) const {
    return dc_(q1, q2);
  }
  template <class T>
  MatNK<S, T> variational_frame(const VecN<S, T>&, const VecN<S, T>& q1, const VecN<S, T>&) const {
    return kernel_frame<T, m, n, max_m, max_n>(continuous_.system.template constraint_matrix<T>(q1));
  }

 private:
  NonholonomicAsSecondOrder<S> continuous_;
  Ld ld_;
  Dc dc_;
};

/// The DSOCS of the midpoint DLA of make_dla() (α-rule L_d and ω with the same α).
template <Model S>
auto embed_dla(const S& system, double h, double alpha = 0.5) {
  return CortesMartinezEmbedding<S, AlphaRule<S>, AlphaConstraint<S>>(system, AlphaRule<S>(system, h, alpha),
                                                                      AlphaConstraint<S>(system, h, alpha));
}

}  // namespace dalembert
