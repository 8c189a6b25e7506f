#pragma once
// FileModel<MaxN>: a model file as a catalogue system (models/catalogue_entry.hpp) whose sizes are
// known only when the file is read (n = m = Eigen::Dynamic), so that every method family runs on
// it unchanged and one compiled type serves files of every size. MaxN bounds n at compile time
// (storage inside the vectors, no heap allocation per step); FileModel<Eigen::Dynamic> takes any n
// (src/modelfile/entry.cpp picks the bounded one when the file fits, docs/decisions.md). A file
// with an action variable is a contact system instead: ContactFileModel at the end of this file.
//
// Its functions must work for any scalar the integrators use: double and nested duals of
// automatic differentiation. The kernels give the Taylor coefficients of L (and of the entries of
// M) at the point x0 = plain(x), and with δ = x − x0 computed in the scalar type T,
//   f(x) = c0 + Σ c_i δ_i + Σ c_ij δ_i δ_j + Σ c_ijk δ_i δ_j δ_k
// is exact, not an approximation: every part of δ has a zero value, and a product of more than d
// such numbers vanishes in duals nested d deep. So the first d orders suffice, and T carries
// exactly the derivatives that code written in T would have produced. Kernels of order 3 cover
// nesting up to three deep; deeper nesting is refused at run time.
#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/core/tangent.hpp"
#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/constant_metric.hpp"
#include "dalembert/models/catalogue_entry.hpp"
#include "dalembert/models/contact_entry.hpp"
#include "modelfile/model.hpp"

namespace dalembert::modelfile {

namespace detail {

/// ad::Tangent: the outer level of third derivatives (core/tangent.hpp), used by
/// lagrangian_derivatives when the Jacobian of the acceleration is wanted (MLA, exact).
template <class T>
struct is_tangent : std::false_type {};
template <class T, int K, int MaxK>
struct is_tangent<ad::Tangent<T, K, MaxK>> : std::true_type {};

/// How deeply duals are nested in T (double: 0).
template <class T>
constexpr int dual_depth() {
  if constexpr (is_tangent<T>::value) {
    return 1 + dual_depth<std::decay_t<decltype(std::declval<const T&>().a)>>();
  } else if constexpr (ad::is_dual_v<T>) {
    return 1 + dual_depth<std::decay_t<decltype(ad::value(std::declval<const T&>()))>>();
  } else {
    return 0;
  }
}

/// The constant x in T with the shape of `like`: the same number of derivatives at every level,
/// all zero. At a run-time width a constant must store its zeros (core/autodiff.hpp, constant()).
template <class T>
T constant_like(const T& like, double x) {
  if constexpr (is_tangent<T>::value) {
    T r = like;
    r.a = constant_like(like.a, x);
    for (auto& d : r.d) d = constant_like(d, 0.0);
    return r;
  } else if constexpr (ad::is_dual_v<T>) {
    T r = like;
    r.value() = constant_like(like.value(), x);
    for (Eigen::Index k = 0; k < r.derivatives().size(); ++k) r.derivatives()[k] = constant_like(like.derivatives()[k], 0.0);
    return r;
  } else {
    return x;
  }
}

/// The Taylor polynomial in T arithmetic, for any T; `delta` has the variables' shape.
template <int Order, class T>
T taylor(const TaylorTerms& f, const double* c, const std::vector<T>& delta) {
  const double* k = c + f.offset;
  T r = constant_like(delta[0], *k++);
  for (int i : f.first) r += constant_like(delta[i], *k++) * delta[i];
  if constexpr (Order >= 2) {
    for (const auto& [i, j] : f.second) r += constant_like(delta[i], *k++) * (delta[i] * delta[j]);
  }
  if constexpr (Order >= 3) {
    for (const auto& [i, j, l] : f.third) r += constant_like(delta[i], *k++) * (delta[i] * delta[j] * delta[l]);
  }
  return r;
}

#if !defined(DALEMBERT_AD_CERES)
/// Duals two deep over double: the hyper-duals of the discrete Lagrangian's Newton Jacobian and of
/// the continuous equations.
template <class T>
struct HyperDual : std::false_type {};
template <int N1, int O1, int M1, int N2, int O2, int M2>
struct HyperDual<Eigen::AutoDiffScalar<Eigen::Matrix<Eigen::AutoDiffScalar<Eigen::Matrix<double, N1, 1, O1, M1, 1>>, N2, 1, O2, M2, 1>>>
    : std::true_type {};

/// Duals one deep over double: the first-order polynomial needs only the variables' derivatives.
template <class T>
struct PlainDual : std::false_type {};
template <int N1, int O1, int M1>
struct PlainDual<Eigen::AutoDiffScalar<Eigen::Matrix<double, N1, 1, O1, M1, 1>>> : std::true_type {};

/// The width of the variables' derivatives (a run-time one: the largest stored, where a constant
/// may store none).
template <class Variable>
Eigen::Index outer_width(int count, Variable&& x) {
  Eigen::Index w = 0;
  for (int i = 0; i < count; ++i) w = std::max(w, x(i).derivatives().size());
  return w;
}
template <class Variable>
Eigen::Index inner_width(int count, Variable&& x) {
  Eigen::Index w = 0;
  for (int i = 0; i < count; ++i) w = std::max(w, x(i).value().derivatives().size());
  return w;
}

template <class T, class Variable>
T taylor_dual(const TaylorTerms& f, const double* c, int count, Variable&& x) {
  const double* k = c + f.offset;
  T r;
  r.value() = *k++;
  r.derivatives().setZero(outer_width(count, x));
  for (int i : f.first) {
    const double ci = *k++;
    if (x(i).derivatives().size() > 0) r.derivatives() += ci * x(i).derivatives();
  }
  return r;
}

/// The second-order Taylor polynomial in hyper-duals, written out by the chain rule instead of
/// in dual arithmetic (the same numbers, a quarter of the work): with x_i = (x0_i + A_i ε) +
/// (b_i + C_i ε) η, where ε has N1 and η N2 components,
///   f = c0 + (Σ c_i A_i) ε + Σ_k [(Σ c_i b_ik) + (Σ c_i C_ik + Σ c_ij (b_ik A_j + b_jk A_i)) ε] η_k.
/// `x(i)` is the i-th of `count` variables; a constant may store no derivatives (zero).
template <class T, class Variable>
T taylor_hyperdual(const TaylorTerms& f, const double* c, int count, Variable&& x) {
  using Inner = std::decay_t<decltype(ad::value(std::declval<const T&>()))>;
  using InnerDer = typename Inner::DerType;
  using OuterDer = typename T::DerType;
  using Mixed = Eigen::Matrix<double, InnerDer::RowsAtCompileTime, OuterDer::RowsAtCompileTime, 0,
                              InnerDer::MaxRowsAtCompileTime, OuterDer::MaxRowsAtCompileTime>;
  const Eigen::Index n1 = inner_width(count, x), n2 = outer_width(count, x);
  const double* k = c + f.offset;
  InnerDer value_derivatives = InnerDer::Zero(n1);
  Eigen::Matrix<double, OuterDer::RowsAtCompileTime, 1, 0, OuterDer::MaxRowsAtCompileTime, 1> outer_values =
      decltype(outer_values)::Zero(n2);
  Mixed mixed = Mixed::Zero(n1, n2);  // column o: along η_o
  // b_io and C_io of variable i, zero where it stores none.
  const auto b = [&](const T& xi, Eigen::Index o) { return o < xi.derivatives().size() ? xi.derivatives()[o].value() : 0.0; };
  const auto A_times = [&](const T& xi, double s, auto&& into) {
    if (xi.value().derivatives().size() > 0) into += s * xi.value().derivatives();
  };
  const double c0 = *k++;
  for (int i : f.first) {
    const double ci = *k++;
    const T& xi = x(i);
    A_times(xi, ci, value_derivatives);
    for (Eigen::Index o = 0; o < xi.derivatives().size(); ++o) {
      outer_values[o] += ci * xi.derivatives()[o].value();
      if (xi.derivatives()[o].derivatives().size() > 0) mixed.col(o) += ci * xi.derivatives()[o].derivatives();
    }
  }
  for (const auto& [i, j] : f.second) {
    const double cij = *k++;
    const T &xi = x(i), &xj = x(j);
    for (Eigen::Index o = 0; o < n2; ++o) {
      auto column = mixed.col(o);
      A_times(xj, cij * b(xi, o), column);
      A_times(xi, cij * b(xj, o), column);
    }
  }
  T r;
  r.value() = Inner(c0, value_derivatives);
  r.derivatives().resize(n2);
  for (Eigen::Index o = 0; o < n2; ++o) r.derivatives()[o] = Inner(outer_values[o], mixed.col(o));
  return r;
}
#endif

/// First-order duals over double, whose derivatives model files compute without dual arithmetic
/// (FileModel::lagrangian_derivatives).
template <class T>
inline constexpr bool is_plain_dual_v =
#if !defined(DALEMBERT_AD_CERES)
    PlainDual<T>::value;
#else
    false;
#endif

/// Per-thread room for kernel arguments and results: it grows to the largest model seen and is
/// then reused, so a step allocates nothing. Slot 0 holds the point, slot 1 the coefficients and
/// slot 2 a gradient.
inline double* scratch(int slot, std::size_t size) {
  thread_local std::vector<double> buffers[3];
  std::vector<double>& b = buffers[slot];
  if (b.size() < size) b.resize(size);
  return b.data();
}

[[noreturn]] inline void too_deep(int depth) {
  throw std::logic_error("model files provide derivatives up to order 3, but a method asked for order " +
                         std::to_string(depth) + " (duals nested " + std::to_string(depth) +
                         " deep); raise max_taylor_order in src/modelfile/evaluator.hpp");
}

}  // namespace detail

/// A model file. One type serves files of every size and of both kinds: when the file's L is
/// ½ vᵀG(q)v − V(q) (`is_mechanical()`, decided when the file is read), metric<T> and potential<T>
/// evaluate G and V, and the library takes its metric paths (model/model.hpp, MechanicalAtRunTime);
/// otherwise it uses the general ones and refuses the methods that project with G (fim, gf-cp).
/// Likewise the file may give an external force (`has_force()`). Name, summary and coordinate
/// names are values of the object (the file's).
template <int MaxN>
class FileModel {
 public:
  static constexpr int n = Eigen::Dynamic, m = Eigen::Dynamic, max_n = MaxN, max_m = MaxN;
  template <class T>
  using Point = Vec<T, n, max_n>;

  /// Parameters are set through bind() (model.hpp), not through data members.
  static std::array<Parameter<FileModel>, 0> parameters() { return {}; }

  explicit FileModel(std::shared_ptr<const BoundModel> model) : bound_(std::move(model)) {
    if (MaxN != Eigen::Dynamic && dimension() > MaxN)
      throw std::logic_error("FileModel<" + std::to_string(MaxN) + "> for a model with n = " + std::to_string(dimension()));
    if (is_mechanical() && metric_is_constant())
      constant_metric_ = std::make_shared<const ConstantMetric<Mat<double, n, n, max_n, max_n>>>(
          metric<double>(Point<double>::Zero(dimension())));
  }

  int dimension() const { return bound_->model->n(); }
  int constraint_count() const { return bound_->model->m(); }
  std::string_view name() const { return bound_->model->spec.name; }
  std::string_view summary() const { return bound_->model->spec.summary; }
  const std::vector<std::string>& coordinate_names() const { return bound_->model->spec.coordinates; }

  const BoundModel& bound() const { return *bound_; }
  bool is_mechanical() const { return bound_->model->layout.mechanical; }
  /// Whether G(q) is constant: no entry of the metric has a term in q. The methods written with the
  /// metric then differentiate V alone (model/metric_derivatives.hpp), as for a compiled model whose
  /// metric has double entries.
  bool metric_is_constant() const { return bound_->model->layout.constant_metric; }
  /// G evaluated and factorised once, while it is constant (model/constant_metric.hpp); null otherwise.
  const ConstantMetric<Mat<double, n, n, max_n, max_n>>* constant_metric() const { return constant_metric_.get(); }

  template <class T>
  T lagrangian(const Point<T>& q, const Point<T>& v) const {
    const LoadedModel& model = *bound_->model;
    return taylor_in_qv<T>(
        q, v, model.layout.lagrangian_size,
        [&](int order, const double* x, double* c) { model.evaluator->lagrangian(order, x, bound_->parameters.data(), c); },
        [&](const auto& value) { return value(model.layout.lagrangian); });
  }

  /// L(q, v, z) of a contact file (`action`), whose kernels take x = (q, v, z): ContactFileModel
  /// below.
  template <class T>
  T lagrangian_with_action(const Point<T>& q, const Point<T>& v, const T& z) const {
    const LoadedModel& model = *bound_->model;
    const int N = dimension();
    return taylor_at<T>(
        2 * N + 1, [&](int i) -> const T& { return i < N ? q[i] : i < 2 * N ? v[i - N] : z; },
        model.layout.lagrangian_size,
        [&](int order, const double* x, double* c) { model.evaluator->lagrangian(order, x, bound_->parameters.data(), c); },
        [&](const auto& value) { return value(model.layout.lagrangian); });
  }

  /// Whether the methods add a force: the file's `force`, or what a Lagrangian that depends on the
  /// time exerts (below). They ask before they evaluate it (has_external_force in model/model.hpp),
  /// so a file without one costs nothing.
  bool has_force() const { return !bound_->model->layout.force.empty(); }
  /// Whether that force depends on t (has_time_dependent_force in model/model.hpp).
  bool force_depends_on_time() const {
    return bound_->model->layout.force_depends_on_time || lagrangian_depends_on_time();
  }
  /// Whether the file's Lagrangian depends on t. lagrangian() is then L(q, v, 0), and the force
  /// includes what the rest, L_t = L − L(q, v, 0), exerts (symbolic.cpp, TimeDependence).
  bool lagrangian_depends_on_time() const { return bound_->model->layout.lagrangian_depends_on_time; }
  /// The energy's part that lagrangian() leaves out: v·∂L_t/∂v − L_t = −L_t(q, 0, t) (0 if L has no t).
  double energy_at_time(const Point<double>& q, double t) const {
    return lagrangian_depends_on_time() ? time_terms(q, t)[0] : 0.0;
  }
  /// Adds to p the momentum's part that lagrangian() leaves out, ∂L_t/∂v(q, t), so that p becomes
  /// ∂L/∂v at time t (nothing if L has no t).
  void add_momentum_at_time(const Point<double>& q, double t, double* p) const {
    if (!lagrangian_depends_on_time()) return;
    const double* terms = time_terms(q, t);
    for (int i = 0; i < dimension(); ++i) p[i] += terms[1 + i];
  }

  /// The external force F(q, v, t) (has_force), a covector in the coordinates' basis.
  template <class T>
  Point<T> force(const Point<T>& q, const Point<T>& v, double t) const {
    if (!has_force()) throw std::logic_error("the force of model file '" + std::string(name()) + "', which has none, was asked for");
    const LoadedModel& model = *bound_->model;
    Point<T> F(dimension());
    taylor_in_qv<T>(
        q, v, model.layout.force_size,
        [&](int order, const double* x, double* c) {
          model.evaluator->force(order, x, bound_->parameters.data(), t + bound_->time_offset, c);
        },
        [&](const auto& value) {
          for (int i = 0; i < dimension(); ++i) F[i] = value(model.layout.force[i]);
        });
    return F;
  }

  /// The α-rule's derivatives at q̄ = (1−α) q0 + α q1, v = (q1 − q0)/h from one kernel call of
  /// order 2, whose coefficients are those of L(q̄ + δq, v + δv) = c0 + Σ c_i δ_i + Σ c_ij δ_i δ_j
  /// in δ = (δq, δv): L_x(i) = c_i and L_xx(i, j) = L_xx(j, i) gets c_ij (twice on the diagonal).
  /// Each coefficient goes straight to where the formulas
  ///   D1 = h(1−α) L_q − L_v,   D2 = hα L_q + L_v,
  ///   D12 = hα(1−α) L_qq + (1−α) L_qv − α L_vq − L_vv / h,   L_qv(i, j) = ∂²L/∂q_i∂v_j,
  /// put it, with no 2n × 2n Hessian in between, where the generic path composes the same
  /// coefficients into hyper-duals along q0 and q1. The library's differentiate(AlphaRule) and
  /// differentiate(TrapezoidRule) take it (DifferentiatesItsAlphaRule, discrete/discrete_lagrangian.hpp;
  /// docs/decisions.md, Model files: compiled Taylor coefficients); the tests
  /// ModelFiles.AlphaRuleDerivativesEqualHyperDuals and TrapezoidRuleDerivativesEqualHyperDuals hold
  /// it equal to the generic path.
  template <class Derivatives>
  void alpha_rule_derivatives(const Point<double>& q0, const Point<double>& q1, double h, double alpha,
                              Derivatives& d) const {
    const LoadedModel& model = *bound_->model;
    const int N = dimension();
    const double a = alpha, b = 1.0 - alpha;
    double* x = detail::scratch(0, 2 * N);
    for (int i = 0; i < N; ++i) {
      x[i] = b * q0[i] + a * q1[i];
      x[N + i] = (q1[i] - q0[i]) / h;
    }
    double* c = detail::scratch(1, model.layout.lagrangian_size);
    model.evaluator->lagrangian(2, x, bound_->parameters.data(), c);
    const TaylorTerms& f = model.layout.lagrangian;
    const double* k = c + f.offset;
    d.value = h * *k++;
    // The gradient, in increasing order of the variables as the layout lists them (zero where L
    // does not depend on one); D1 and D2 written once each, not zeroed and then updated.
    double* gradient = detail::scratch(2, 2 * N);
    auto listed = f.first.begin();
    for (int i = 0; i < 2 * N; ++i) {
      const bool is_listed = listed != f.first.end() && *listed == i;
      gradient[i] = is_listed ? *k++ : 0.0;
      if (is_listed) ++listed;
    }
    d.D1.resize(N);
    d.D2.resize(N);
    for (int i = 0; i < N; ++i) {  // D1 = h(1−α) L_q − L_v, D2 = hα L_q + L_v
      d.D1[i] = h * b * gradient[i] - gradient[N + i];
      d.D2[i] = h * a * gradient[i] + gradient[N + i];
    }
    // D12 = hα(1−α) L_qq + (1−α) L_qv − α L_vq − L_vv/h: the weight of the entry (i, j) of L_xx.
    const double weight[2][2] = {{h * a * b, b}, {-a, -1.0 / h}};
    d.D12.setZero(N, N);
    const auto add = [&](int i, int j, double value) {
      const int bi = i < N ? 0 : 1, bj = j < N ? 0 : 1;
      d.D12(i - bi * N, j - bj * N) += weight[bi][bj] * value;
    };
    for (const auto& [i, j] : f.second) {
      const double cij = *k++;
      if (i == j) {
        add(i, i, 2.0 * cij);
      } else {
        add(i, j, cij);
        add(j, i, cij);
      }
    }
  }

  /// L, L_q, L_v, W = L_vv and B = L_vq at (q, v) (LagrangianDerivatives, model/dynamics.hpp),
  /// read from one kernel call: of order 2 at doubles; of order 3 when q and v carry K first
  /// derivatives (the Jacobian of the acceleration, for the shooting of `exact` and the forces of
  /// `mla`), where each entry's derivative along direction k is the next order contracted with
  /// X_k = (q', v')_k. With g and H the gradient and Hessian of L in x = (q, v) and T its third
  /// derivatives, the Taylor coefficients are c_i = g_i, c_ij = H_ij (½ H_ii) and c_ijl = T_ijl
  /// (½ T_iil, ⅙ T_iii), and
  ///   (g_a)' = Σ_b H_ab X_b,   (H_ab)' = Σ_c T_abc X_c.
  /// Done in doubles: the generic path evaluates L on hyper-duals inside a third level of duals,
  /// which at a run-time width allocates at every operation (docs/decisions.md, Run-time sizes).
  template <class T, class Derivatives>
    requires(std::is_same_v<T, double> || detail::is_plain_dual_v<T>)
  void lagrangian_derivatives(const Point<T>& q, const Point<T>& v, Derivatives& d) const {
    constexpr bool along = !std::is_same_v<T, double>;
    const LoadedModel& model = *bound_->model;
    const int N = dimension();
    double* x = detail::scratch(0, 2 * N);
    for (int i = 0; i < N; ++i) {
      x[i] = ad::plain(q[i]);
      x[N + i] = ad::plain(v[i]);
    }
    double* c = detail::scratch(1, model.layout.lagrangian_size);
    model.evaluator->lagrangian(along ? 3 : 2, x, bound_->parameters.data(), c);
    const TaylorTerms& f = model.layout.lagrangian;
    const double* k = c + f.offset;

    // The entries start with K zero derivatives, K the number of directions X_k of (q, v).
    Eigen::Index K = 0;
    if constexpr (along) {
      for (int i = 0; i < N; ++i) K = std::max({K, q[i].derivatives().size(), v[i].derivatives().size()});
    }
    const auto zero = [&]() {
      if constexpr (along) {
        return T(0.0, T::DerType::Zero(K));
      } else {
        return 0.0;
      }
    };
    // Adds s X_i to the derivatives of `entry` (a variable that stores none has X_i = 0).
    const auto add_along = [&](T& entry, double s, int i) {
      if constexpr (along) {
        const auto& X = i < N ? q[i].derivatives() : v[i - N].derivatives();
        if (X.size() > 0) entry.derivatives() += s * X;
      }
    };
    const auto value_of = [](T& entry) -> double& {
      if constexpr (along) {
        return entry.value();
      } else {
        return entry;
      }
    };
    d.L = zero();
    d.Lq.resize(N);
    d.Lv.resize(N);
    d.W.resize(N, N);
    d.B.resize(N, N);
    for (int i = 0; i < N; ++i) {
      d.Lq[i] = zero();
      d.Lv[i] = zero();
      for (int j = 0; j < N; ++j) d.W(i, j) = d.B(i, j) = zero();
    }
    const auto gradient = [&](int a) -> T& { return a < N ? d.Lq[a] : d.Lv[a - N]; };
    // H_ab for a ≥ N (a velocity): W(a − N, b − N) or B(a − N, b); the other rows are not wanted.
    const auto hessian = [&](int a, int b) -> T* {
      if (a < N) return nullptr;
      return b < N ? &d.B(a - N, b) : &d.W(a - N, b - N);
    };

    value_of(d.L) = *k++;
    for (int i : f.first) {
      const double gi = *k++;
      value_of(gradient(i)) = gi;
      add_along(d.L, gi, i);
    }
    for (const auto& [i, j] : f.second) {
      const double Hij = (i == j ? 2.0 : 1.0) * *k++;
      if (T* e = hessian(i, j)) value_of(*e) = Hij;
      add_along(gradient(i), Hij, j);
      if (i != j) {
        if (T* e = hessian(j, i)) value_of(*e) = Hij;
        add_along(gradient(j), Hij, i);
      }
    }
    if constexpr (along) {
      for (const auto& [i, j, l] : f.third) {
        const double Tijl = (i == j && j == l ? 6.0 : i == j || j == l ? 2.0 : 1.0) * *k++;
        // Every distinct ordering (a, b, c) of (i, j, l): (H_ab)' += T X_c.
        const std::array<std::array<int, 3>, 6> orderings{
            {{i, j, l}, {i, l, j}, {j, i, l}, {j, l, i}, {l, i, j}, {l, j, i}}};
        for (std::size_t o = 0; o < orderings.size(); ++o) {
          const auto& [a, b, e] = orderings[o];
          if (std::find(orderings.begin(), orderings.begin() + o, orderings[o]) != orderings.begin() + o) continue;
          if (T* entry = hessian(a, b)) add_along(*entry, Tijl, e);
        }
      }
    }
  }

  template <class T>
  Mat<T, m, n, max_m, max_n> constraint_matrix(const Point<T>& q) const {
    const LoadedModel& model = *bound_->model;
    Mat<T, m, n, max_m, max_n> out(constraint_count(), dimension());
    if (constraint_count() == 0) return out;
    const T zero = detail::constant_like(q[0], 0.0);
    for (Eigen::Index i = 0; i < out.size(); ++i) out.data()[i] = zero;
    taylor_in_q<T>(
        q, model.layout.constraints_size,
        [&](int order, const double* x, double* c) {
          model.evaluator->constraints(order, x, bound_->parameters.data(), bound_->time_offset, c);
        },
        [&](const auto& value) {
          for (const auto& e : model.layout.constraints) out(e.row, e.column) = value(e.terms);
        });
    return out;
  }

  /// Whether a constraint is affine, M(q) v + b(q) = 0 with b not zero (a ball on a turntable).
  /// Only the methods whose discrete constraint and constrained acceleration add b take such a file
  /// (methods_taking_affine_constraints in modelfile/model.hpp); the others refuse it.
  bool has_constraint_offset() const { return bound_->model->has_affine_constraints(); }
  /// Whether b depends on the time: M(q) v + b(q, t) = 0 (a table turning at a varying rate).
  bool constraint_offset_depends_on_time() const {
    return bound_->model->layout.constraint_offsets_depend_on_time;
  }

  /// b(q, t) of the affine constraints M(q) v + b(q, t) = 0 (zero rows for the linear ones).
  template <class T>
  Vec<T, m, max_m> constraint_offset(const Point<T>& q, double t) const {
    const LoadedModel& model = *bound_->model;
    Vec<T, m, max_m> out(constraint_count());
    const T zero = detail::constant_like(q[0], 0.0);
    for (Eigen::Index i = 0; i < out.size(); ++i) out[i] = zero;
    if (!has_constraint_offset()) return out;
    const auto kernel = [&](int order, const double* x, double* c) {
      model.evaluator->constraints(order, x, bound_->parameters.data(), t + bound_->time_offset, c);
    };
    taylor_in_q<T>(q, model.layout.constraints_size, kernel, [&](const auto& value) {
      for (const auto& e : model.layout.constraint_offsets) out[e.row] = value(e.terms);
    });
    return out;
  }

  /// The number of holonomic constraints φ_b(q) = 0 (the file's `holonomic`), whose velocity forms
  /// dφ_b are the last rows of M (MayHaveHolonomicConstraints, model/model.hpp).
  int holonomic_constraint_count() const { return static_cast<int>(bound_->model->layout.holonomic.size()); }

  /// φ_b(q, t) of the holonomic constraints at the time t, in the order of the file.
  template <class T>
  Vec<T, m, max_m> holonomic_values(const Point<T>& q, double t) const {
    const LoadedModel& model = *bound_->model;
    Vec<T, m, max_m> out(holonomic_constraint_count());
    if (out.size() == 0) return out;
    taylor_in_q<T>(
        q, model.layout.constraints_size,
        [&](int order, const double* x, double* c) {
          model.evaluator->constraints(order, x, bound_->parameters.data(), t + bound_->time_offset, c);
        },
        [&](const auto& value) {
          for (Eigen::Index b = 0; b < out.size(); ++b)
            out[b] = value(model.layout.holonomic[static_cast<std::size_t>(b)].terms);
        });
    return out;
  }

  /// The curvature a = (∂(M v + b)/∂q) v + ∂b/∂t at the time t, a_r = Σ_(r,i) Σ_j g_j v_i v_j over
  /// the entries M_ri (and b_r, with v_i = 1) with gradient g and Hessian H, plus ∂b_r/∂t, from one
  /// kernel call: of order 1 at doubles; of order 2 when q and v
  /// carry K first derivatives X_k = (q', v')_k (the Jacobian of the acceleration in `gf`, `mla`
  /// and `exact`), where a_r' = Σ_(r,i) [Σ_jl H_jl q'_l v_i v_j + Σ_j g_j (v'_i v_j + v_i v'_j)].
  /// Done in doubles: the generic path (detail::constraint_curvature_by_duals) nests a second
  /// level of duals inside T, hyper-duals when T is a dual.
  template <class T, class Out>
    requires(std::is_same_v<T, double> || detail::is_plain_dual_v<T>)
  void constraint_curvature(const Point<T>& q, const Point<T>& v, double t, Out& out) const {
    constexpr bool along = !std::is_same_v<T, double>;
    const LoadedModel& model = *bound_->model;
    const int N = dimension(), M = constraint_count();
    Eigen::Index K = 0;
    if constexpr (along) {
      for (int i = 0; i < N; ++i) K = std::max({K, q[i].derivatives().size(), v[i].derivatives().size()});
    }
    out.resize(M);
    for (int r = 0; r < M; ++r) {
      if constexpr (along) {
        out[r] = T(0.0, T::DerType::Zero(K));
      } else {
        out[r] = 0.0;
      }
    }
    if (M == 0) return;
    double* x = detail::scratch(0, N);
    for (int i = 0; i < N; ++i) x[i] = ad::plain(q[i]);
    double* c = detail::scratch(1, model.layout.constraints_size);
    model.evaluator->constraints(along ? 2 : 1, x, bound_->parameters.data(), t + bound_->time_offset, c);
    // Adds s X to the derivatives of `entry` (a variable that stores none has X = 0).
    const auto add_along = [&](T& entry, double s, const T& variable) {
      if constexpr (along) {
        if (variable.derivatives().size() > 0) entry.derivatives() += s * variable.derivatives();
      }
    };
    // An entry of M multiplies v_i; an affine constraint's b (column N) multiplies 1, which has no
    // derivatives: (∂b/∂q) v and its derivative are the same sums with v_i = 1.
    const auto add_entry = [&](const ConstraintEntry& e) {
      const double* k = c + e.terms.offset + 1;  // past the entry's value
      const int i = e.column;
      const bool offset = i == N;
      const double vi = offset ? 1.0 : ad::plain(v[i]);
      T& a = out[e.row];
      for (int j : e.terms.first) {
        const double g = *k++, vj = ad::plain(v[j]);
        if constexpr (along) {
          a.value() += g * vi * vj;
        } else {
          a += g * vi * vj;
        }
        if (!offset) add_along(a, g * vj, v[i]);
        add_along(a, g * vi, v[j]);
      }
      if constexpr (along) {
        for (const auto& [j, l] : e.terms.second) {
          const double H = (j == l ? 2.0 : 1.0) * *k++;
          add_along(a, H * vi * ad::plain(v[j]), q[l]);
          if (j != l) add_along(a, H * vi * ad::plain(v[l]), q[j]);
        }
      }
    };
    for (const auto& e : model.layout.constraints) add_entry(e);
    for (const auto& e : model.layout.constraint_offsets) add_entry(e);
    for (const auto& e : model.layout.constraint_offset_rates) {  // + ∂b/∂t, whose derivative is along q
      const double* k = c + e.terms.offset;
      T& a = out[e.row];
      if constexpr (along) {
        a.value() += *k++;
      } else {
        a += *k++;
      }
      for (int j : e.terms.first) add_along(a, *k++, q[j]);
    }
  }

  /// ω = M(q̄) v + b(q̄, t) and ∂ω/∂q1 = α ∂(M v + b)/∂q(q̄) + M(q̄)/h of the α-rule constraint, from one
  /// kernel call of order 1 (the entries of M and b and their gradients): the derivative of AlphaConstraint
  /// without dual numbers, which the library's differentiate(AlphaConstraint) takes
  /// (DifferentiatesItsAlphaConstraint, discrete/discrete_constraint.hpp); the test
  /// ModelFiles.AlphaConstraintDerivativesEqualDuals holds it equal to the generic path.
  template <class Value, class Jacobian>
  void alpha_constraint_derivatives(const Point<double>& q_bar, const Point<double>& v, double alpha, double h,
                                    double t, Value& omega, Jacobian& omega_by_q1) const {
    const LoadedModel& model = *bound_->model;
    const int N = dimension(), M = constraint_count();
    omega.setZero(M);
    omega_by_q1.setZero(M, N);
    if (M == 0) return;
    double* c = detail::scratch(1, model.layout.constraints_size);
    model.evaluator->constraints(1, q_bar.data(), bound_->parameters.data(), t + bound_->time_offset, c);
    for (const auto& e : model.layout.constraints) {
      const double* k = c + e.terms.offset;
      const double entry = *k++;
      omega[e.row] += entry * v[e.column];
      omega_by_q1(e.row, e.column) += entry / h;
      for (int i : e.terms.first) omega_by_q1(e.row, i) += alpha * *k++ * v[e.column];
    }
    for (const auto& e : model.layout.constraint_offsets) {  // + b(q̄, t)
      const double* k = c + e.terms.offset;
      omega[e.row] += *k++;
      for (int i : e.terms.first) omega_by_q1(e.row, i) += alpha * *k++;
    }
  }

  /// G(q) of L = ½ vᵀG(q)v − V(q), for model files of that form (is_mechanical()).
  template <class T>
  Mat<T, n, n, max_n, max_n> metric(const Point<T>& q) const {
    require_mechanical("metric");
    Mat<T, n, n, max_n, max_n> G(dimension(), dimension());
    const T zero = detail::constant_like(q[0], 0.0);
    for (Eigen::Index i = 0; i < G.size(); ++i) G.data()[i] = zero;
    mechanics<T>(q, [&](const auto& value) {
      for (const auto& e : bound_->model->layout.metric) G(e.row, e.column) = G(e.column, e.row) = value(e.terms);
    });
    return G;
  }

  template <class T>
  T potential(const Point<T>& q) const {
    require_mechanical("potential");
    return mechanics<T>(q, [&](const auto& value) { return value(bound_->model->layout.potential); });
  }

  /// V(q), and ∇V(q) in `gradient`, at q of doubles or of first-order duals, from the potential's
  /// Taylor terms at q's values: ∇V's derivatives are its Hessian applied to q's derivatives, a
  /// product, where differentiating V along q in duals would nest them (model/metric_derivatives.hpp
  /// takes this).
  template <class T>
    requires(std::is_same_v<T, double> || detail::is_plain_dual_v<T>)
  T potential_with_gradient(const Point<T>& q, Point<T>& gradient) const {
    require_mechanical("potential");
    const LoadedModel& model = *bound_->model;
    const int N = dimension();
    double* x = detail::scratch(0, N);
    for (int i = 0; i < N; ++i) x[i] = ad::plain(q[i]);
    double* c = detail::scratch(1, model.layout.mechanics_size);
    constexpr int order = std::is_same_v<T, double> ? 1 : 2;
    model.evaluator->mechanics(order, x, bound_->parameters.data(), c);
    const TaylorTerms& f = model.layout.potential;
    const double* k = c + f.offset;
    gradient.resize(N);
    if constexpr (std::is_same_v<T, double>) {
      const double V = *k++;
      gradient.setZero();
      for (int i : f.first) gradient[i] = *k++;
      return V;
    } else {
      using Derivatives = typename T::DerType;
      Eigen::Index width = 0;  // a constant among q's entries may store no derivatives
      for (int i = 0; i < N; ++i) width = std::max(width, q[i].derivatives().size());
      T V(*k++, Derivatives::Zero(width));
      for (int i = 0; i < N; ++i) gradient[i] = T(0.0, Derivatives::Zero(width));
      const auto add = [&](T& to, double factor, const T& along) {
        if (along.derivatives().size() > 0) to.derivatives() += factor * along.derivatives();
      };
      for (int i : f.first) {
        const double ci = *k++;
        gradient[i].value() = ci;
        add(V, ci, q[i]);
      }
      for (const auto& [i, j] : f.second) {  // c_ij δq_i δq_j
        const double cij = *k++;
        add(gradient[i], cij, q[j]);
        add(gradient[j], cij, q[i]);
      }
      return V;
    }
  }

  PhasePoint<n, max_n> default_initial() const { return {bound_->q0, bound_->v0}; }

  /// The file's closed form, where it gives one that holds for these parameters and is finite at t.
  /// Its t is the time since 0: none for a model of t started at another time (RunOptions::t0).
  std::optional<PhasePoint<n, max_n>> exact_solution(const PhasePoint<n, max_n>& x0, double t) const {
    if (bound_->time_offset != 0.0 && force_depends_on_time()) return std::nullopt;
    const int N = dimension();
    Eigen::VectorXd start(2 * N);
    start << x0.q, x0.v;
    const auto x = bound_->model->solution(start, bound_->parameters, t);
    if (!x) return std::nullopt;
    return PhasePoint<n, max_n>{x->head(N), x->tail(N)};
  }

  /// Derived quantities: extra output columns (models/catalogue_entry.hpp).
  std::vector<std::string> derived_quantity_names() const {
    std::vector<std::string> names;
    for (const auto& d : bound_->model->spec.derived) names.push_back(d.name);
    return names;
  }
  void derived_quantities(const Point<double>& q, const Point<double>& v, double t, double* out) const {
    const int derived = bound_->model->layout.derived;
    if (derived == 0) return;
    const int N = dimension();
    double* x = detail::scratch(0, 2 * N);
    for (int i = 0; i < N; ++i) {
      x[i] = q[i];
      x[N + i] = v[i];
    }
    // The kernel writes time_terms after the derived quantities (when L has t).
    double* all = detail::scratch(1, derived + 1 + N);
    bound_->model->evaluator->derived(x, bound_->parameters.data(), t + bound_->time_offset, all);
    std::copy(all, all + derived, out);
  }

 private:
  /// −L_t(q, 0, t), then ∂L_t/∂v(q, t): what the derived kernel writes after the derived quantities.
  const double* time_terms(const Point<double>& q, double t) const {
    const int N = dimension(), derived = bound_->model->layout.derived;
    double* x = detail::scratch(0, 2 * N);
    for (int i = 0; i < N; ++i) x[i] = q[i], x[N + i] = 0.0;
    double* out = detail::scratch(1, derived + 1 + N);
    bound_->model->evaluator->derived(x, bound_->parameters.data(), t + bound_->time_offset, out);
    return out + derived;
  }

  void require_mechanical(const char* what) const {
    if (!is_mechanical())
      throw std::logic_error(std::string("the ") + what + " of model file '" + std::string(name()) +
                             "' was asked for, but its Lagrangian is not 1/2 v^T G(q) v - V(q)");
  }

  /// Evaluates functions of `count` variables given by Taylor coefficients: `kernel(order, x0,
  /// out)` fills the coefficients (`size` of them) at x0 = plain(x), and `use(value)` reads the
  /// functions, value(terms) -> T, and its result is returned. `variable(i)` is the i-th variable.
  template <class T, class Variable, class Kernel, class Use>
  decltype(auto) taylor_at(int count, Variable&& variable, int size, Kernel&& kernel, Use&& use) const {
    constexpr int depth = detail::dual_depth<T>();
    constexpr int order = depth < max_taylor_order ? depth : max_taylor_order;
    if constexpr (depth > max_taylor_order) detail::too_deep(depth);
    double* x = detail::scratch(0, count);
    for (int i = 0; i < count; ++i) x[i] = ad::plain(variable(i));
    double* c = detail::scratch(1, size);
    kernel(order, x, c);
    if constexpr (order == 0) {
      return use([&](const TaylorTerms& f) -> T { return c[f.offset]; });
#if !defined(DALEMBERT_AD_CERES)
    } else if constexpr (detail::PlainDual<T>::value) {
      return use([&](const TaylorTerms& f) -> T { return detail::taylor_dual<T>(f, c, count, variable); });
    } else if constexpr (detail::HyperDual<T>::value) {
      return use([&](const TaylorTerms& f) -> T { return detail::taylor_hyperdual<T>(f, c, count, variable); });
#endif
    } else {
      std::vector<T> delta(count);
      for (int i = 0; i < count; ++i) delta[i] = variable(i) - detail::constant_like(variable(i), x[i]);
      return use([&](const TaylorTerms& f) -> T { return detail::taylor<order>(f, c, delta); });
    }
  }

  /// Functions of q (the constraint matrix, the metric and the potential).
  template <class T, class Kernel, class Use>
  decltype(auto) taylor_in_q(const Point<T>& q, int size, Kernel&& kernel, Use&& use) const {
    return taylor_at<T>(dimension(), [&](int i) -> const T& { return q[i]; }, size, std::forward<Kernel>(kernel),
                 std::forward<Use>(use));
  }

  /// Functions of x = (q, v) (the Lagrangian and the force).
  template <class T, class Kernel, class Use>
  decltype(auto) taylor_in_qv(const Point<T>& q, const Point<T>& v, int size, Kernel&& kernel, Use&& use) const {
    const int N = dimension();
    return taylor_at<T>(2 * N, [&](int i) -> const T& { return i < N ? q[i] : v[i - N]; }, size,
                 std::forward<Kernel>(kernel), std::forward<Use>(use));
  }

  template <class T, class Use>
  decltype(auto) mechanics(const Point<T>& q, Use&& use) const {
    const LoadedModel& model = *bound_->model;
    return taylor_in_q<T>(
        q, model.layout.mechanics_size,
        [&](int order, const double* x, double* c) { model.evaluator->mechanics(order, x, bound_->parameters.data(), c); },
        std::forward<Use>(use));
  }

  std::shared_ptr<const BoundModel> bound_;
  std::shared_ptr<const ConstantMetric<Mat<double, n, n, max_n, max_n>>> constant_metric_;
};

/// The two instances (src/modelfile/run.hpp): within a bound (no heap allocation per step) and
/// unbounded.
using BoundedFileModel = FileModel<sizes::bounded_model_file>;
using UnboundedFileModel = FileModel<Eigen::Dynamic>;

/// A model file with an action variable (`action = "z"`) as a contact catalogue system
/// (models/contact_entry.hpp): L(q, v, z), linear constraints M(q) v = 0, run by `herglotz`,
/// contact `exact` (without constraints), `rk4` and `reference`. M is 0 (no constraints: the exact
/// discrete flow needs that at compile time) or Eigen::Dynamic; MaxN bounds the size, or is
/// Eigen::Dynamic (on the heap).
template <int MaxN, int M>
class ContactFileModel {
 public:
  static constexpr int n = Eigen::Dynamic, max_n = MaxN, m = M, max_m = M == 0 ? 0 : MaxN;
  template <class T>
  using Point = Vec<T, n, max_n>;

  static std::array<Parameter<ContactFileModel>, 0> parameters() { return {}; }

  explicit ContactFileModel(std::shared_ptr<const BoundModel> model) : file_(std::move(model)) {
    if ((M == 0) != (file_.constraint_count() == 0))
      throw std::logic_error("ContactFileModel<" + std::to_string(MaxN) + ", " + std::to_string(M) + "> for a model with " +
                             std::to_string(file_.constraint_count()) + " constraint(s)");
  }

  int dimension() const { return file_.dimension(); }
  int constraint_count() const { return file_.constraint_count(); }
  std::string_view name() const { return file_.name(); }
  std::string_view summary() const { return file_.summary(); }
  const std::vector<std::string>& coordinate_names() const { return file_.coordinate_names(); }

  template <class T>
  T lagrangian(const Point<T>& q, const Point<T>& v, const T& z) const {
    return file_.lagrangian_with_action(q, v, z);
  }

  template <class T>
    requires(M != 0)
  Mat<T, m, n, max_m, max_n> constraint_matrix(const Point<T>& q) const {
    return file_.constraint_matrix(q);
  }

  ContactPoint<n, max_n> default_initial() const {
    const BoundModel& b = file_.bound();
    return {b.q0, b.v0, b.z0};
  }
  /// Contact files have no closed form yet (the file's [solution] is refused with an action).
  std::optional<ContactPoint<n, max_n>> exact_solution(const ContactPoint<n, max_n>&, double) const { return std::nullopt; }

 private:
  FileModel<MaxN> file_;
};

/// The contact instances (src/modelfile/run_contact.cpp, run_contact_constrained.cpp): without and
/// with constraints, each within the bound and on the heap, as for FileModel.
template <int MaxN>
using ContactFileModelWithoutConstraints = ContactFileModel<MaxN, 0>;
template <int MaxN>
using ContactFileModelWithConstraints = ContactFileModel<MaxN, Eigen::Dynamic>;

}  // namespace dalembert::modelfile
