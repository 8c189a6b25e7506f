#pragma once
// FileModel<N, M>: a model file as a catalogue system (models/catalogue_entry.hpp), so that every
// method family runs on it unchanged.
//
// Its functions must work for any scalar the integrators use: double and nested duals of
// automatic differentiation. The kernels give the Taylor coefficients of L (and of the entries of
// M) at the point x0 = plain(x), and with δ = x − x0 computed in the scalar type T,
//   f(x) = c0 + Σ c_i δ_i + Σ c_ij δ_i δ_j + Σ c_ijk δ_i δ_j δ_k
// is exact, not an approximation: every part of δ has a zero value, and a product of more than d
// such numbers vanishes in duals nested d deep. So the first d orders suffice, and T carries
// exactly the derivatives that code written in T would have produced. Kernels of order 3 cover
// nesting up to three deep; deeper nesting is refused at run time.
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/core/tangent.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/models/catalogue_entry.hpp"
#include "modelfile/model.hpp"

namespace dalembert::modelfile {

namespace detail {

/// ad::Tangent: the outer level of third derivatives (core/tangent.hpp), used by
/// lagrangian_derivatives when the Jacobian of the acceleration is wanted (MLA, exact).
template <class T>
struct is_tangent : std::false_type {};
template <class T, int K>
struct is_tangent<ad::Tangent<T, K>> : std::true_type {};

/// x as a constant of type T (ad::lift does not know Tangent, which converts from a double itself).
template <class T>
T constant(double x) {
  if constexpr (is_tangent<T>::value) {
    return T(x);
  } else {
    return ad::lift<T>(x);
  }
}

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

/// Monomials of degree at most 3 in k variables: an upper bound of one function's coefficients.
constexpr int max_coefficients(int k) { return 1 + k + k * (k + 1) / 2 + k * (k + 1) * (k + 2) / 6; }

/// The Taylor polynomial in T arithmetic, for any T. (The coefficients are lifted to T: Eigen's
/// AutoDiffScalar does not multiply a double by duals nested more than two deep.)
template <int Order, class T>
T taylor(const TaylorTerms& f, const double* c, const T* delta) {
  const double* k = c + f.offset;
  T r = detail::constant<T>(*k++);
  for (int i : f.first) r += detail::constant<T>(*k++) * delta[i];
  if constexpr (Order >= 2) {
    for (const auto& [i, j] : f.second) r += detail::constant<T>(*k++) * (delta[i] * delta[j]);
  }
  if constexpr (Order >= 3) {
    for (const auto& [i, j, l] : f.third) r += detail::constant<T>(*k++) * (delta[i] * delta[j] * delta[l]);
  }
  return r;
}

#if !defined(DALEMBERT_AD_CERES)
/// Duals two deep over double, AutoDiffScalar<Matrix<AutoDiffScalar<Matrix<double, N1>>, N2>>:
/// the hyper-duals of the discrete Lagrangian's Newton Jacobian and of the continuous equations.
template <class T>
struct HyperDual : std::false_type {};
template <int N1, int N2>
struct HyperDual<Eigen::AutoDiffScalar<Eigen::Matrix<Eigen::AutoDiffScalar<Eigen::Matrix<double, N1, 1>>, N2, 1>>>
    : std::true_type {};

/// Duals one deep over double: the first-order polynomial needs only the variables' derivatives.
template <class T>
struct PlainDual : std::false_type {};
template <int N1>
struct PlainDual<Eigen::AutoDiffScalar<Eigen::Matrix<double, N1, 1>>> : std::true_type {};

template <class T, class Variable>
T taylor_dual(const TaylorTerms& f, const double* c, Variable&& x) {
  const double* k = c + f.offset;
  T r;
  r.value() = *k++;
  r.derivatives().setZero();
  for (int i : f.first) r.derivatives() += *k++ * x(i).derivatives();
  return r;
}

/// The second-order Taylor polynomial in hyper-duals, written out by the chain rule instead of
/// in dual arithmetic (the same numbers, a quarter of the work): with x_i = (x0_i + A_i ε) +
/// (b_i + C_i ε) η, where ε has N1 and η N2 components,
///   f = c0 + (Σ c_i A_i) ε + Σ_k [(Σ c_i b_ik) + (Σ c_i C_ik + Σ c_ij (b_ik A_j + b_jk A_i)) ε] η_k.
/// `x(i)` is the i-th variable.
template <class T, class Variable>
T taylor_hyperdual(const TaylorTerms& f, const double* c, Variable&& x) {
  using Inner = std::decay_t<decltype(ad::value(std::declval<const T&>()))>;
  constexpr int N1 = Inner::DerType::RowsAtCompileTime;
  constexpr int N2 = T::DerType::RowsAtCompileTime;
  const double* k = c + f.offset;
  Eigen::Matrix<double, N1, 1> value_derivatives = Eigen::Matrix<double, N1, 1>::Zero();
  Eigen::Matrix<double, N2, 1> outer_values = Eigen::Matrix<double, N2, 1>::Zero();
  Eigen::Matrix<double, N1, N2> mixed = Eigen::Matrix<double, N1, N2>::Zero();  // column k: along η_k
  const double c0 = *k++;
  for (int i : f.first) {
    const double ci = *k++;
    const T& xi = x(i);
    value_derivatives += ci * xi.value().derivatives();
    for (int o = 0; o < N2; ++o) {
      outer_values[o] += ci * xi.derivatives()[o].value();
      mixed.col(o) += ci * xi.derivatives()[o].derivatives();
    }
  }
  for (const auto& [i, j] : f.second) {
    const double cij = *k++;
    const T &xi = x(i), &xj = x(j);
    for (int o = 0; o < N2; ++o)
      mixed.col(o) += cij * (xi.derivatives()[o].value() * xj.value().derivatives() +
                             xj.derivatives()[o].value() * xi.value().derivatives());
  }
  T r;
  r.value() = Inner(c0, value_derivatives);
  for (int o = 0; o < N2; ++o) r.derivatives()[o] = Inner(outer_values[o], mixed.col(o));
  return r;
}
#endif

[[noreturn]] inline void too_deep(int depth) {
  throw std::logic_error("model files provide derivatives up to order 3, but a method asked for order " +
                         std::to_string(depth) + " (duals nested " + std::to_string(depth) +
                         " deep); raise max_taylor_order in src/modelfile/evaluator.hpp");
}

}  // namespace detail

/// A model file with n = N coordinates and m = M constraints. One type serves files of both kinds:
/// when the file's L is ½ vᵀG(q)v − V(q) (`is_mechanical()`, decided when the file is read), metric<T>
/// and potential<T> evaluate G and V, and the library takes its metric paths (model/model.hpp,
/// MechanicalAtRunTime); otherwise it uses the general ones and refuses the methods that project
/// with G (fim, gf-cp). A type per kind would double the compiled instances (docs/decisions.md).
template <int N, int M>
class FileModel {
 public:
  static constexpr int n = N;
  static constexpr int m = M;
  // The generic run layer reads a catalogue system's name and coordinates from the type; a model
  // file knows them only at run time. MetadataScope sets them for the runs of the calling thread.
  static inline thread_local std::string_view name = "model file";
  static inline thread_local std::string_view summary = "";
  static inline thread_local std::array<std::string_view, N> coordinates{};
  /// Parameters are set through bind() (model.hpp), not through data members.
  static std::array<Parameter<FileModel>, 0> parameters() { return {}; }

  explicit FileModel(std::shared_ptr<const BoundModel> model) : bound_(std::move(model)) {
    if (bound_->model->n() != N || bound_->model->m() != M)
      throw std::logic_error("FileModel<" + std::to_string(N) + ", " + std::to_string(M) + "> for a model with n = " +
                             std::to_string(bound_->model->n()) + ", m = " + std::to_string(bound_->model->m()));
  }

  const BoundModel& bound() const { return *bound_; }
  bool is_mechanical() const { return bound_->model->layout.mechanical; }

  template <class T>
  T lagrangian(const Vec<T, N>& q, const Vec<T, N>& v) const {
    constexpr int depth = detail::dual_depth<T>();
    constexpr int order = depth < max_taylor_order ? depth : max_taylor_order;
    if constexpr (depth > max_taylor_order) detail::too_deep(depth);
    const LoadedModel& model = *bound_->model;
    std::array<double, 2 * N> x;
    for (int i = 0; i < N; ++i) {
      x[i] = ad::plain(q[i]);
      x[N + i] = ad::plain(v[i]);
    }
    std::array<double, detail::max_coefficients(2 * N)> c;
    model.evaluator->lagrangian(order, x.data(), bound_->parameters.data(), c.data());
    if constexpr (order == 0) {
      return c[model.layout.lagrangian.offset];
#if !defined(DALEMBERT_AD_CERES)
    } else if constexpr (detail::PlainDual<T>::value) {
      return detail::taylor_dual<T>(model.layout.lagrangian, c.data(),
                                    [&](int i) -> const T& { return i < N ? q[i] : v[i - N]; });
    } else if constexpr (detail::HyperDual<T>::value) {
      return detail::taylor_hyperdual<T>(model.layout.lagrangian, c.data(),
                                         [&](int i) -> const T& { return i < N ? q[i] : v[i - N]; });
#endif
    } else {
      std::array<T, 2 * N> delta;
      for (int i = 0; i < N; ++i) {
        delta[i] = q[i] - detail::constant<T>(x[i]);
        delta[N + i] = v[i] - detail::constant<T>(x[N + i]);
      }
      return detail::taylor<order>(model.layout.lagrangian, c.data(), delta.data());
    }
  }

  /// L, its gradient and its Hessian in x = (q, v) at one point, from one kernel call of order 2.
  /// The coefficients are those of c0 + Σ c_i δ_i + Σ c_ij δ_i δ_j, so H(i, j) = c_ij + c_ji.
  void lagrangian_second_order(const Vecd<N>& q, const Vecd<N>& v, double& L, Vecd<2 * N>& gradient,
                               Matd<2 * N, 2 * N>& hessian) const {
    const LoadedModel& model = *bound_->model;
    std::array<double, 2 * N> x;
    for (int i = 0; i < N; ++i) {
      x[i] = q[i];
      x[N + i] = v[i];
    }
    std::array<double, detail::max_coefficients(2 * N)> c;
    model.evaluator->lagrangian(2, x.data(), bound_->parameters.data(), c.data());
    const TaylorTerms& f = model.layout.lagrangian;
    const double* k = c.data() + f.offset;
    L = *k++;
    gradient.setZero();
    for (int i : f.first) gradient[i] = *k++;
    hessian.setZero();
    for (const auto& [i, j] : f.second) {
      const double cij = *k++;
      hessian(i, j) += cij;
      hessian(j, i) += cij;
    }
  }

  template <class T>
  Mat<T, M, N> constraint_matrix(const Vec<T, N>& q) const {
    Mat<T, M, N> out;
    if constexpr (M > 0) {
      out.setConstant(detail::constant<T>(0.0));
      const LoadedModel& model = *bound_->model;
      taylor_in_q<T, M * N * detail::max_coefficients(N)>(
          q, [&](int order, const double* x, double* c) { model.evaluator->constraints(order, x, bound_->parameters.data(), c); },
          [&](const auto& value) {
            for (const auto& e : model.layout.constraints) out(e.row, e.column) = value(e.terms);
          });
    }
    return out;
  }

  /// G(q) of L = ½ vᵀG(q)v − V(q), for model files of that form (is_mechanical()).
  template <class T>
  Mat<T, N, N> metric(const Vec<T, N>& q) const {
    require_mechanical("metric");
    Mat<T, N, N> G;
    G.setConstant(detail::constant<T>(0.0));
    mechanics<T>(q, [&](const auto& value) {
      for (const auto& e : bound_->model->layout.metric) G(e.row, e.column) = G(e.column, e.row) = value(e.terms);
    });
    return G;
  }

  template <class T>
  T potential(const Vec<T, N>& q) const {
    require_mechanical("potential");
    T V;
    mechanics<T>(q, [&](const auto& value) { V = value(bound_->model->layout.potential); });
    return V;
  }

  PhasePoint<N> default_initial() const {
    return {Vecd<N>(bound_->q0), Vecd<N>(bound_->v0)};
  }

  /// The file's closed form, where it gives one that holds for these parameters and is finite at t.
  std::optional<PhasePoint<N>> exact_solution(const PhasePoint<N>& x0, double t) const {
    Eigen::VectorXd start(2 * N);
    start << x0.q, x0.v;
    const auto x = bound_->model->solution(start, bound_->parameters, t);
    if (!x) return std::nullopt;
    return PhasePoint<N>{x->head(N), x->tail(N)};
  }

  /// Derived quantities: extra output columns (models/catalogue_entry.hpp).
  std::vector<std::string> derived_quantity_names() const {
    std::vector<std::string> names;
    for (const auto& d : bound_->model->spec.derived) names.push_back(d.name);
    return names;
  }
  void derived_quantities(const Vecd<N>& q, const Vecd<N>& v, double t, double* out) const {
    if (bound_->model->layout.derived == 0) return;
    std::array<double, 2 * N> x;
    for (int i = 0; i < N; ++i) {
      x[i] = q[i];
      x[N + i] = v[i];
    }
    bound_->model->evaluator->derived(x.data(), bound_->parameters.data(), t, out);
  }

 private:
  void require_mechanical(const char* what) const {
    if (!is_mechanical())
      throw std::logic_error(std::string("the ") + what + " of model file '" + std::string(name) +
                             "' was asked for, but its Lagrangian is not 1/2 v^T G(q) v - V(q)");
  }

  /// Evaluates functions of q given by Taylor coefficients: `kernel(order, q0, out)` fills the
  /// coefficients (at most Capacity) and `use(value)` reads the functions, value(terms) -> T.
  template <class T, std::size_t Capacity, class Kernel, class Use>
  void taylor_in_q(const Vec<T, N>& q, Kernel&& kernel, Use&& use) const {
    constexpr int depth = detail::dual_depth<T>();
    constexpr int order = depth < max_taylor_order ? depth : max_taylor_order;
    if constexpr (depth > max_taylor_order) detail::too_deep(depth);
    std::array<double, N> x;
    for (int i = 0; i < N; ++i) x[i] = ad::plain(q[i]);
    std::array<double, Capacity> c;
    kernel(order, x.data(), c.data());
    if constexpr (order == 0) {
      use([&](const TaylorTerms& f) -> T { return c[f.offset]; });
#if !defined(DALEMBERT_AD_CERES)
    } else if constexpr (detail::PlainDual<T>::value) {
      use([&](const TaylorTerms& f) -> T { return detail::taylor_dual<T>(f, c.data(), [&](int i) -> const T& { return q[i]; }); });
    } else if constexpr (detail::HyperDual<T>::value) {
      use([&](const TaylorTerms& f) -> T {
        return detail::taylor_hyperdual<T>(f, c.data(), [&](int i) -> const T& { return q[i]; });
      });
#endif
    } else {
      std::array<T, N> delta;
      for (int i = 0; i < N; ++i) delta[i] = q[i] - detail::constant<T>(x[i]);
      use([&](const TaylorTerms& f) -> T { return detail::taylor<order>(f, c.data(), delta.data()); });
    }
  }

  template <class T, class Use>
  void mechanics(const Vec<T, N>& q, Use&& use) const {
    const LoadedModel& model = *bound_->model;
    taylor_in_q<T, (N * (N + 1) / 2 + 1) * detail::max_coefficients(N)>(
        q, [&](int order, const double* x, double* c) { model.evaluator->mechanics(order, x, bound_->parameters.data(), c); },
        std::forward<Use>(use));
  }

  std::shared_ptr<const BoundModel> bound_;
};

/// The α-rule's derivatives of a model file, assembled from the gradient and Hessian of L at
/// (q̄, v), q̄ = (1−α) q0 + α q1, v = (q1 − q0)/h: one kernel call and no dual arithmetic, where the
/// generic path composes the same coefficients into hyper-duals along q0 and q1.
///   D1 = h(1−α) L_q − L_v,   D2 = hα L_q + L_v,
///   D12 = hα(1−α) L_qq + (1−α) L_qv − α L_vq − L_vv / h,   L_qv(i, j) = ∂²L/∂q_i∂v_j.
/// Found by argument-dependent lookup; ModelFiles.AlphaRuleDerivativesEqualHyperDuals holds it equal
/// to the generic path.
template <int N, int M>
DiscreteLagrangianDerivatives<N> differentiate(const AlphaRule<FileModel<N, M>>& ld, const Vecd<N>& q0,
                                               const Vecd<N>& q1) {
  const double h = ld.step_size(), a = ld.alpha(), b = 1.0 - a;
  double L;
  Vecd<2 * N> g;
  Matd<2 * N, 2 * N> H;
  ld.system().lagrangian_second_order(b * q0 + a * q1, (q1 - q0) / h, L, g, H);
  const auto Lq = g.template head<N>();
  const auto Lv = g.template tail<N>();
  DiscreteLagrangianDerivatives<N> d;
  d.value = h * L;
  d.D1 = h * b * Lq - Lv;
  d.D2 = h * a * Lq + Lv;
  d.D12 = (h * a * b) * H.template topLeftCorner<N, N>() + b * H.template topRightCorner<N, N>() -
          a * H.template bottomLeftCorner<N, N>() - H.template bottomRightCorner<N, N>() / h;
  return d;
}

/// Sets the thread's FileModel<N, M> name, summary and coordinates for the lifetime of the scope.
template <int N, int M>
class MetadataScope {
  using System = FileModel<N, M>;

 public:
  explicit MetadataScope(const LoadedModel& model)
      : name_(System::name), summary_(System::summary), coordinates_(System::coordinates) {
    System::name = model.spec.name;
    System::summary = model.spec.summary;
    for (int i = 0; i < N; ++i) System::coordinates[i] = model.spec.coordinates[i];
  }
  ~MetadataScope() {
    System::name = name_;
    System::summary = summary_;
    System::coordinates = coordinates_;
  }
  MetadataScope(const MetadataScope&) = delete;
  MetadataScope& operator=(const MetadataScope&) = delete;

 private:
  std::string_view name_, summary_;
  std::array<std::string_view, N> coordinates_;
};

}  // namespace dalembert::modelfile
