#include "modelfile/jacobi_field.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/SVD>

#include "dalembert/diagnostics/jacobi_fields.hpp"
#include "dalembert/diagnostics/maupertuis_jacobi.hpp"
#include "dalembert/io/errors.hpp"
#include "dalembert/solve/dual_lu.hpp"
#include "modelfile/entry.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/run.hpp"

namespace dalembert::modelfile {
namespace {

void check_finite(const Eigen::VectorXd& x, const char* name, int n) {
  if (x.size() != n)
    throw BadInput(std::string(name) + " has " + std::to_string(x.size()) + " entries but the model has " +
                   std::to_string(n) + " coordinates");
  for (Eigen::Index i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw BadInput(std::string(name) + "[" + std::to_string(i) + "] = " + format_residual(x[i]) + " is not finite");
}

void check_times(const std::vector<double>& times, const char* name = "times") {
  if (times.empty()) throw BadInput(std::string(name) + " is empty: give the times at which to sample");
  double last = 0.0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double t = times[i];
    if (!std::isfinite(t) || t < 0 || (i > 0 && !(t > last)))
      throw BadInput(std::string(name) + "[" + std::to_string(i) + "] = " + format_residual(t) +
                     " : the sample times must be finite, at least 0 and increasing");
    last = t;
  }
}

/// The velocity variation nearest dv0 in the kinetic metric G = ∂²L/∂v² that makes (dq0, dv0)
/// tangent to the constraint M(q) v + b(q) = 0: M(q0) δv = −c, δv = dv0 − G⁻¹Mᵀ(M G⁻¹ Mᵀ)⁻¹(M dv0 + c)
/// with c = (∂M/∂q·dq0) v0 + ∂b/∂q·dq0 (the projection of the initial velocity, project_v0, in the
/// same metric).
Eigen::VectorXd tangent_velocity_variation(const UnboundedFileModel& file, const Eigen::VectorXd& q0,
                                           const Eigen::VectorXd& v0, const Eigen::VectorXd& dq0,
                                           const Eigen::VectorXd& dv0) {
  const int n = file.dimension(), m = file.constraint_count();
  if (m == 0) return dv0;
  using D = ad::Dual<double, 1>;
  VecN<UnboundedFileModel, D> qd(n);
  for (int i = 0; i < n; ++i) qd[i] = D(q0[i], Vec<double, 1>(dq0[i]));
  const auto Md = file.constraint_matrix<D>(qd);
  Eigen::MatrixXd M(m, n), dM(m, n);
  for (int a = 0; a < m; ++a)
    for (int i = 0; i < n; ++i) {
      M(a, i) = ad::value(Md(a, i));
      dM(a, i) = ad::derivative(Md(a, i), 0);
    }
  const auto bd = file.constraint_offset<D>(qd, 0.0);  // b(q) of affine constraints (checked_start)
  Eigen::VectorXd c = dM * v0;
  for (int a = 0; a < m; ++a) c[a] += ad::derivative(bd[a], 0);
  const Eigen::LDLT<Eigen::MatrixXd> G(lagrangian_derivatives(file, q0, v0).W);
  const Eigen::MatrixXd GinvMt = G.solve(M.transpose());
  const Eigen::VectorXd multiplier = (M * GinvMt).lu().solve(M * dv0 + c);
  return dv0 - GinvMt * multiplier;
}

/// What every function here needs: the bound model, checked to be one whose fields are computed,
/// and the start, filled in, projected if asked and checked.
struct Start {
  std::shared_ptr<BoundModel> bound;
  InitialData init;
  std::string system;
};

/// Jacobi fields and conjugate points take affine constraints M(q) v + b(q) = 0, whose linearised
/// constraint has ∂b/∂q; a computation `linear_only` (the exponential map, whose directions scale
/// velocities of D(q0)) takes linear ones only. Neither takes constraints of t.
Start checked_start(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values, InitialData init,
                    double tolerance, const char* linear_only = nullptr) {
  Start start;
  start.system = "the model file " + model->spec.path;
  if (model->layout.contact)
    throw BadInput("Jacobi fields are those of Lagrange-d'Alembert models; " + start.system + " is a contact system");
  if (model->has_affine_constraints() && (linear_only || model->layout.constraint_offsets_depend_on_time))
    require_constraints_taken(*model, {}, linear_only ? linear_only : "the Jacobi-field computation");
  if (!(tolerance >= 1e-14 && tolerance < 1e-2))
    throw BadInput("tolerance = " + format_residual(tolerance) + " lies outside [1e-14, 1e-2)");
  start.bound = std::make_shared<BoundModel>(*bind(model, values));
  if (UnboundedFileModel(start.bound).force_depends_on_time())
    throw BadInput(start.system + " has a force or Lagrangian that depends on t; its Jacobi fields are not computed");
  fill_initial_data(*start.bound, init);
  if (init.q1) throw BadInput("a Jacobi field starts from (q0, v0); --q1 is not taken");
  if (init.project_v0) init.v0 = project_velocity(start.bound, init.q0, init.v0);
  check_initial_point(*start.bound, init.q0, init.v0, InitialSource::CommandLine);
  start.init = std::move(init);
  return start;
}

/// The trajectory and j Jacobi fields along it, (q, q̇, W, Ẇ) with W n × j, advanced in time.
class Fields {
 public:
  Fields(const UnboundedFileModel& file, const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
         const Eigen::MatrixXd& W0, const Eigen::MatrixXd& W_dot0, double tolerance)
      : file_(&file), n_(file.dimension()), j_(static_cast<int>(W0.cols())), tolerance_(tolerance) {
    x_.resize(static_cast<std::size_t>(2 * n_ + 2 * n_ * j_));
    vec(x_.data()) = q0;
    vec(x_.data() + n_) = v0;
    mat(x_.data() + 2 * n_) = W0;
    mat(x_.data() + 2 * n_ + n_ * j_) = W_dot0;
  }

  void advance_to(double t1) {
    if (!(t1 > t_)) return;
    const auto rhs = [this](const std::vector<double>& y, std::vector<double>& dy, double) {
      const Eigen::VectorXd q = cvec(y.data()), v = cvec(y.data() + n_);
      const auto J = acceleration_jacobian(*file_, q, v);
      vec(dy.data()) = v;
      vec(dy.data() + n_) = J.acceleration;
      const auto W = cmat(y.data() + 2 * n_), W_dot = cmat(y.data() + 2 * n_ + n_ * j_);
      mat(dy.data() + 2 * n_) = W_dot;
      mat(dy.data() + 2 * n_ + n_ * j_) = J.B * W + J.F * W_dot;
    };
    try {
      bulirsch_stoer_interval(rhs, x_, t_, t1, tolerance_, dt_, kMaxSubsteps);
    } catch (const IntegrationLimit& e) {
      throw NumericalFailure(std::string("the Jacobi fields: ") + e.what());
    }
    t_ = t1;
  }

  double t() const { return t_; }
  Eigen::VectorXd q() const { return cvec(x_.data()); }
  Eigen::VectorXd v() const { return cvec(x_.data() + n_); }
  Eigen::MatrixXd W() const { return cmat(x_.data() + 2 * n_); }

 private:
  static constexpr long kMaxSubsteps = 100000;  // per interval between samples
  Eigen::Map<Eigen::VectorXd> vec(double* p) const { return {p, n_}; }
  Eigen::Map<const Eigen::VectorXd> cvec(const double* p) const { return {p, n_}; }
  Eigen::Map<Eigen::MatrixXd> mat(double* p) const { return {p, n_, j_}; }
  Eigen::Map<const Eigen::MatrixXd> cmat(const double* p) const { return {p, n_, j_}; }

  const UnboundedFileModel* file_;  // copies of the fields share the model
  int n_, j_;
  double tolerance_;
  std::vector<double> x_;
  double t_ = 0.0, dt_ = 0.0;
};

/// An orthonormal basis of D(q0) = ker M(q0), as columns.
Eigen::MatrixXd basis_of_distribution(const UnboundedFileModel& file, const Eigen::VectorXd& q0) {
  const int n = file.dimension();
  if (file.constraint_count() == 0) return Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd M = file.constraint_matrix<double>(q0);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(M, Eigen::ComputeFullV);
  const Eigen::Index rank = svd.rank();  // M has full rank at an admissible start (check_initial_point)
  return svd.matrixV().rightCols(n - rank);
}

template <class T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

/// Γ^k_ij of the nonholonomic connection at q, as gamma[k](i, j), in the scalar of q (thesis
/// (6.2.24)): G and P' with their derivatives along each coordinate, from one dual number each (the
/// solves by DualLU, which takes nested dual numbers).
template <class T>
std::vector<Matrix<T>> nonholonomic_christoffels(const UnboundedFileModel& file,
                                                 const Eigen::Matrix<T, Eigen::Dynamic, 1>& q) {
  using D = ad::Dual<T, 1>;
  const int n = file.dimension(), m = file.constraint_count();
  Matrix<T> G(n, n), P_perp = Matrix<T>::Zero(n, n);
  std::vector<Matrix<T>> dG(n, Matrix<T>(n, n)), dP_perp(n, Matrix<T>::Zero(n, n));
  for (int i = 0; i < n; ++i) {
    VecN<UnboundedFileModel, D> qd(n);
    for (int a = 0; a < n; ++a) qd[a] = a == i ? ad::variable<1>(q[a], 0) : ad::constant<1>(q[a]);
    const Matrix<D> Gd = file.metric<D>(qd);
    Matrix<D> Pd = Matrix<D>::Zero(n, n);
    if (m > 0) {
      const Matrix<D> M = file.constraint_matrix<D>(qd);
      const Matrix<D> GinvMt = dual_lu(Gd).solve(Matrix<D>(M.transpose()));
      Pd = GinvMt * dual_lu(Matrix<D>(M * GinvMt)).solve(M);
    }
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        G(r, c) = ad::value(Gd(r, c));
        dG[i](r, c) = ad::derivative(Gd(r, c), 0);
        P_perp(r, c) = ad::value(Pd(r, c));
        dP_perp[i](r, c) = ad::derivative(Pd(r, c), 0);
      }
  }
  // Γ(g)^l_ij = ½ G^lm (∂_i G_mj + ∂_j G_mi − ∂_m G_ij), for each pair (i, j) a column of G⁻¹
  std::vector<Matrix<T>> levi_civita(n, Matrix<T>(n, n));
  Matrix<T> first_kind(n, n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < n; ++l) first_kind(l, i * n + j) = T(0.5) * (dG[i](l, j) + dG[j](l, i) - dG[l](i, j));
  const Matrix<T> second_kind = dual_lu(G).solve(first_kind);
  for (int l = 0; l < n; ++l)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) levi_civita[l](i, j) = second_kind(l, i * n + j);
  const Matrix<T> P = Matrix<T>::Identity(n, n) - P_perp;
  std::vector<Matrix<T>> gamma(n, Matrix<T>(n, n));
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        T sum = dP_perp[i](k, j);
        for (int l = 0; l < n; ++l) sum += levi_civita[l](i, j) * P(k, l) + P_perp(l, j) * levi_civita[k](i, l);
        gamma[k](i, j) = sum;
      }
  return gamma;
}

/// P G⁻¹ ∇V at q, in the scalar of q (doubles or first-order duals): the potential's force
/// projected onto D along D^⊥, the term the nonholonomic geodesic equation adds,
/// q̈ + Γ(q̇, q̇) = −P G⁻¹ ∇V.
template <class T>
Eigen::Matrix<T, Eigen::Dynamic, 1> projected_potential_gradient(const UnboundedFileModel& file,
                                                                 const Eigen::Matrix<T, Eigen::Dynamic, 1>& q) {
  const int m = file.constraint_count();
  VecN<UnboundedFileModel, T> gradient;
  file.potential_with_gradient<T>(q, gradient);
  const Matrix<T> G = file.metric<T>(q);
  const Eigen::Matrix<T, Eigen::Dynamic, 1> Ginv_gradient = dual_lu(G).solve(gradient);
  if (m == 0) return Ginv_gradient;
  const Matrix<T> M = file.constraint_matrix<T>(q);
  const Matrix<T> GinvMt = dual_lu(G).solve(Matrix<T>(M.transpose()));
  const Eigen::Matrix<T, Eigen::Dynamic, 1> M_Ginv_gradient = M * Ginv_gradient;
  return Ginv_gradient - GinvMt * dual_lu(Matrix<T>(M * GinvMt)).solve(M_Ginv_gradient);
}

/// The model file bound to `values`, for `what`, which is defined for L = ½ vᵀG(q)v − V(q) with
/// constraints; throws BadInput naming why the file is not one.
UnboundedFileModel mechanical_file(const std::shared_ptr<const LoadedModel>& model, const ParameterOverrides& values,
                                   const std::string& what) {
  const std::string system = "the model file " + model->spec.path;
  if (model->layout.contact) throw BadInput(system + " is a contact system: it has no nonholonomic connection");
  // the connection and the Jacobi equation are those of the distribution D(q) = ker M(q)
  if (model->has_affine_constraints()) require_constraints_taken(*model, {}, what);
  UnboundedFileModel file(std::make_shared<BoundModel>(*bind(model, values)));
  if (!file.is_mechanical())
    throw BadInput(what + " is that of L = 1/2 v^T G(q) v - V(q); the Lagrangian of " + system +
                   " is not of that form");
  return file;
}

}  // namespace

NonholonomicConnection nonholonomic_connection(std::shared_ptr<const LoadedModel> model,
                                               const ParameterOverrides& values, const Eigen::VectorXd& q) {
  const UnboundedFileModel file = mechanical_file(model, values, "the nonholonomic connection");
  const int n = file.dimension();
  check_finite(q, "q", n);
  NonholonomicConnection c;
  c.christoffel = nonholonomic_christoffels<double>(file, q);
  for (int k = 0; k < n; ++k) c.torsion.push_back(c.christoffel[k] - c.christoffel[k].transpose());
  // ∂_iΓ from Γ in dual numbers along each coordinate
  using D = ad::Dual<double, 1>;
  std::vector<std::vector<Eigen::MatrixXd>> d_gamma(n, std::vector<Eigen::MatrixXd>(n, Eigen::MatrixXd(n, n)));
  for (int i = 0; i < n; ++i) {
    Eigen::Matrix<D, Eigen::Dynamic, 1> qd(n);
    for (int a = 0; a < n; ++a) qd[a] = a == i ? ad::variable<1>(q[a], 0) : ad::constant<1>(q[a]);
    const auto gamma = nonholonomic_christoffels<D>(file, qd);
    for (int l = 0; l < n; ++l)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < n; ++k) d_gamma[i][l](j, k) = ad::derivative(gamma[l](j, k), 0);
  }
  const auto& gamma = c.christoffel;
  c.curvature.assign(n, std::vector<Eigen::MatrixXd>(n, Eigen::MatrixXd(n, n)));
  for (int l = 0; l < n; ++l)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        for (int k = 0; k < n; ++k) {
          double r = d_gamma[i][l](j, k) - d_gamma[j][l](i, k);
          for (int s = 0; s < n; ++s) r += gamma[s](j, k) * gamma[l](i, s) - gamma[s](i, k) * gamma[l](j, s);
          c.curvature[l][i](j, k) = r;
        }
  return c;
}

Eigen::VectorXd jacobi_equation_residual(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                                         const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& W,
                                         const Eigen::VectorXd& W_dot, const std::optional<Eigen::VectorXd>& W_ddot) {
  const UnboundedFileModel file = mechanical_file(model, values, "the Jacobi equation (6.2.22)");
  if (file.has_force())
    throw BadInput("the Jacobi equation (6.2.22) has no external force; the model file " + model->spec.path +
                   " has one");
  const int n = file.dimension(), m = file.constraint_count();
  for (const auto& [x, name] :
       {std::pair{&q, "q"}, std::pair{&v, "v"}, std::pair{&W, "W"}, std::pair{&W_dot, "W_dot"}})
    check_finite(*x, name, n);
  if (W_ddot) check_finite(*W_ddot, "W_ddot", n);
  // v in D(q) and (W, Ẇ) tangent to the constraint, relative to the sizes of the terms
  const Eigen::MatrixXd M = m > 0 ? Eigen::MatrixXd(file.constraint_matrix<double>(q)) : Eigen::MatrixXd(0, n);
  const double size = 1 + M.lpNorm<Eigen::Infinity>(), Mv = m > 0 ? (M * v).lpNorm<Eigen::Infinity>() : 0.0;
  if (Mv > 1e-9 * size * (1 + v.lpNorm<Eigen::Infinity>()))
    throw BadInput("v is not in D(q): M(q) v = " + format_residual(Mv));
  const double off = linearised_constraint(file, VecN<UnboundedFileModel>(q), VecN<UnboundedFileModel>(v),
                                           VecN<UnboundedFileModel>(W), VecN<UnboundedFileModel>(W_dot));
  if (off > 1e-9 * size * (W.lpNorm<Eigen::Infinity>() * (1 + v.lpNorm<Eigen::Infinity>()) +
                           W_dot.lpNorm<Eigen::Infinity>()))
    throw BadInput("(W, W_dot) is not tangent to the constraint: M(q) W_dot + (dM/dq . W) v = " +
                   format_residual(off));
  // Γ at q, and Γ and P G⁻¹∇V differentiated along W (one dual number seeded with W)
  using D = ad::Dual<double, 1>;
  Eigen::Matrix<D, Eigen::Dynamic, 1> qd(n);
  for (int a = 0; a < n; ++a) qd[a] = D(q[a], Vec<double, 1>(W[a]));
  const auto gamma = nonholonomic_christoffels<D>(file, qd);
  const auto force = projected_potential_gradient<D>(file, qd);
  Eigen::VectorXd residual(n);
  if (W_ddot) {
    residual = *W_ddot;
  } else {  // Ẅ of the linearised Lagrange–d'Alembert dynamics
    const auto J = acceleration_jacobian(file, VecN<UnboundedFileModel>(q), VecN<UnboundedFileModel>(v));
    residual = Eigen::MatrixXd(J.B) * W + Eigen::MatrixXd(J.F) * W_dot;
  }
  for (int k = 0; k < n; ++k) {
    double r = ad::derivative(force[k], 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        r += v[i] * v[j] * ad::derivative(gamma[k](i, j), 0) +
             W_dot[i] * v[j] * (ad::value(gamma[k](i, j)) + ad::value(gamma[k](j, i)));
    residual[k] += r;
  }
  return residual;
}

JacobiField jacobi_field(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values, InitialData init,
                         const Eigen::VectorXd& dq0, const Eigen::VectorXd& dv0, const std::vector<double>& times,
                         bool project_dv0, double tolerance, const std::atomic<int>* stop) {
  check_times(times);
  const Start start = checked_start(std::move(model), values, std::move(init), tolerance);
  const UnboundedFileModel file(start.bound);
  const Eigen::VectorXd &q0 = start.init.q0, &v0 = start.init.v0;
  const int n = file.dimension();
  check_finite(dq0, "dq0", n);
  check_finite(dv0, "dv0", n);
  const Eigen::VectorXd dv = project_dv0 ? tangent_velocity_variation(file, q0, v0, dq0, dv0) : dv0;
  // Tangent to the constraint M(q)v = 0, relative to the sizes of the terms it sums.
  const double off = linearised_constraint(file, q0, v0, dq0, dv);
  const double scale =
      (dq0.lpNorm<Eigen::Infinity>() * (1 + v0.lpNorm<Eigen::Infinity>()) + dv.lpNorm<Eigen::Infinity>()) *
      (1 + (file.constraint_count() > 0 ? file.constraint_matrix<double>(q0).lpNorm<Eigen::Infinity>() : 0.0));
  if (off > 1e-9 * scale)
    throw BadInput("(dq0, dv0) is not tangent to the constraint: M(q0) dv0 + (dM/dq . dq0) v0 + db/dq . dq0 = " +
                   format_residual(off) +
                   " (it must vanish for the field to vary among the constrained trajectories; "
                   "project_dv0 projects dv0)");

  std::vector<JacobiSampleOf<UnboundedFileModel>> samples;
  const StepLimits limits(stop, std::numeric_limits<long>::max());  // each interval keeps its own limit
  try {
    samples = dalembert::jacobi_field(file, q0, v0, dq0, dv, times, tolerance);
  } catch (const IntegrationLimit& e) {
    throw NumericalFailure("the Jacobi field of " + start.system + ": " + e.what());
  }
  JacobiField field;
  const auto rows = static_cast<Eigen::Index>(samples.size());
  for (Eigen::MatrixXd* m : {&field.q, &field.v, &field.W, &field.W_dot, &field.dp}) m->resize(rows, n);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& s = samples[static_cast<std::size_t>(i)];
    field.t.push_back(s.t);
    field.q.row(i) = s.q.transpose();
    field.v.row(i) = s.v.transpose();
    field.W.row(i) = s.W.transpose();
    field.W_dot.row(i) = s.W_dot.transpose();
    field.dp.row(i) = s.dp.transpose();
    field.linearised_constraint.push_back(s.linearised_constraint);
  }
  return field;
}

ExponentialMap exponential_map(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                               InitialData init, double h, const Eigen::MatrixXd& directions, double tolerance,
                               const std::atomic<int>* stop) {
  if (!(std::isfinite(h) && h > 0)) throw BadInput("h = " + format_residual(h) + " must be a positive number");
  const Start start = checked_start(std::move(model), values, std::move(init), tolerance, "the exponential map");
  const UnboundedFileModel file(start.bound);
  const int n = file.dimension();
  ExponentialMap e;
  if (directions.size() == 0) {
    e.directions = basis_of_distribution(file, start.init.q0);
  } else {
    if (directions.rows() != n)
      throw BadInput("directions has " + std::to_string(directions.rows()) + " rows but the model has " +
                     std::to_string(n) + " coordinates (one column per direction)");
    if (!directions.allFinite()) throw BadInput("directions has an entry that is not finite");
    if (file.constraint_count() > 0) {
      const Eigen::MatrixXd M = file.constraint_matrix<double>(start.init.q0);
      for (Eigen::Index c = 0; c < directions.cols(); ++c) {
        const double off = (M * directions.col(c)).lpNorm<Eigen::Infinity>();
        if (off > 1e-9 * (1 + M.lpNorm<Eigen::Infinity>()) * directions.col(c).lpNorm<Eigen::Infinity>())
          throw BadInput("direction " + std::to_string(c) + " is not in D(q0): M(q0) w = " + format_residual(off));
      }
    }
    e.directions = directions;
  }
  // One more field, from (0, v0): T_{v0} exp_h · v0, the radial direction of the Gauss condition.
  const Eigen::Index j = e.directions.cols();
  Eigen::MatrixXd W_dot0(n, j + 1);
  W_dot0 << e.directions, start.init.v0;
  const StepLimits limits(stop, std::numeric_limits<long>::max());
  Fields fields(file, start.init.q0, start.init.v0, Eigen::MatrixXd::Zero(n, j + 1), W_dot0, tolerance);
  fields.advance_to(h);
  e.q = fields.q();
  e.v = fields.v();
  const Eigen::MatrixXd W = fields.W();
  e.differential = W.leftCols(j);
  const Eigen::MatrixXd G_end = lagrangian_derivatives(file, e.q, e.v).W;
  e.metric = e.differential.transpose() * G_end * e.differential;
  e.radial = e.differential.transpose() * (G_end * W.col(j));
  const Eigen::MatrixXd G_start = lagrangian_derivatives(file, start.init.q0, start.init.v0).W;
  e.initial = h * h * (e.directions.transpose() * (G_start * start.init.v0));
  return e;
}

std::vector<ConjugatePoint> conjugate_points(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                                             InitialData init, double t_end, int samples, double tolerance,
                                             const std::atomic<int>* stop) {
  if (!(std::isfinite(t_end) && t_end > 0))
    throw BadInput("t_end = " + format_residual(t_end) + " must be a positive number");
  if (samples < 3 || samples > 1'000'000)
    throw BadInput("samples = " + std::to_string(samples) + " lies outside [3, 1000000]");
  const Start start = checked_start(std::move(model), values, std::move(init), tolerance);
  const UnboundedFileModel file(start.bound);
  const int n = file.dimension();
  const Eigen::MatrixXd E = basis_of_distribution(file, start.init.q0);
  const StepLimits limits(stop, std::numeric_limits<long>::max());

  // The smallest singular value σ(t) of the differential on D(q0) at the sample times t_i. Each
  // local minimum, σ(t_{i−1}) > σ(t_i) ≤ σ(t_{i+1}) (or at t_end), is refined on [t_{i−1}, t_{i+1}]
  // from the fields kept at t_{i−1} by golden-section search: near a conjugate point σ grows like
  // |t − t*|, a minimum the search locates to round-off. Which minima are conjugate points is known
  // once the largest singular value of the whole run is.
  struct Minimum {
    double t;
    Eigen::VectorXd sigma;
    Eigen::MatrixXd V;
  };
  const auto smallest_at = [](const Fields& from, double t) {
    Fields f = from;
    f.advance_to(t);
    return Eigen::JacobiSVD<Eigen::MatrixXd>(f.W()).singularValues().tail(1)(0);
  };
  const auto refine = [&](const Fields& from, double b) {
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    double a = from.t(), c = b - ratio * (b - a), d = a + ratio * (b - a);
    double fc = smallest_at(from, c), fd = smallest_at(from, d);
    while (b - a > 1e-12 * (1 + b)) {
      if (fc < fd) {
        b = d, d = c, fd = fc;
        c = b - ratio * (b - a);
        fc = smallest_at(from, c);
      } else {
        a = c, c = d, fc = fd;
        d = a + ratio * (b - a);
        fd = smallest_at(from, d);
      }
    }
    Fields f = from;
    f.advance_to((a + b) / 2);
    const Eigen::JacobiSVD<Eigen::MatrixXd> svd(f.W(), Eigen::ComputeThinV);
    return Minimum{f.t(), svd.singularValues(), svd.matrixV()};
  };

  Fields fields(file, start.init.q0, start.init.v0, Eigen::MatrixXd::Zero(n, E.cols()), E, tolerance);
  Fields two_back = fields, one_back = fields;  // the fields at t_{i−2} and t_{i−1}
  double sigma_two_back = 0.0, sigma_one_back = 0.0, largest = 0.0;
  std::vector<Minimum> minima;
  for (int i = 0; i <= samples; ++i) {
    fields.advance_to(t_end * i / samples);
    const Eigen::VectorXd sigma = Eigen::JacobiSVD<Eigen::MatrixXd>(fields.W()).singularValues();
    const double smallest = sigma[sigma.size() - 1];
    largest = std::max(largest, sigma[0]);
    if (i >= 2 && sigma_one_back < sigma_two_back && sigma_one_back <= smallest)
      minima.push_back(refine(two_back, fields.t()));
    if (i == samples && i >= 1 && smallest < sigma_one_back) minima.push_back(refine(one_back, fields.t()));
    two_back = std::exchange(one_back, fields);
    sigma_two_back = std::exchange(sigma_one_back, smallest);
  }

  std::vector<ConjugatePoint> points;
  const double threshold = 1e-6 * largest;
  for (const Minimum& m : minima) {
    const double smallest = m.sigma[m.sigma.size() - 1];
    if (!(smallest <= threshold)) continue;
    ConjugatePoint p;
    p.t = m.t;
    p.multiplicity = static_cast<int>((m.sigma.array() <= threshold).count());
    p.directions = E * m.V.rightCols(p.multiplicity);
    p.smallest_singular_value = smallest;
    p.relative_size = smallest / largest;
    points.push_back(std::move(p));
  }
  return points;
}

MaupertuisJacobi maupertuis_jacobi(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values,
                                   InitialData init, double energy, const std::vector<double>& s, double tolerance,
                                   const std::atomic<int>* stop) {
  check_times(s, "s");
  if (!std::isfinite(energy)) throw BadInput("energy = " + format_residual(energy) + " is not finite");
  const Start start = checked_start(std::move(model), values, std::move(init), tolerance,
                                    "the Maupertuis-Jacobi principle");
  const UnboundedFileModel file(start.bound);
  if (!file.is_mechanical())
    throw BadInput("the Maupertuis-Jacobi principle is that of L = 1/2 v^T G(q) v - V(q); the Lagrangian of " +
                   start.system + " is not of that form");
  if (file.has_force()) throw BadInput(start.system + " has a force: the Maupertuis-Jacobi principle is conservative");
  const Eigen::VectorXd &q0 = start.init.q0, &v = start.init.v0;
  const double potential = file.potential<double>(q0);
  if (!(energy > potential))
    throw BadInput("energy = " + format_residual(energy) + " must exceed the potential V(q0) = " +
                   format_residual(potential));
  if (v.lpNorm<Eigen::Infinity>() == 0) throw BadInput("the direction (v0) is zero");

  std::vector<MaupertuisJacobiSampleOf<UnboundedFileModel>> samples;
  const StepLimits limits(stop, std::numeric_limits<long>::max());
  try {
    samples = dalembert::maupertuis_jacobi(file, q0, v, energy, s, tolerance);
  } catch (const IntegrationLimit& e) {
    throw NumericalFailure("the Maupertuis-Jacobi trajectories of " + start.system + ": " + e.what() +
                           " (the Jacobi metric degenerates where the motion reaches V = e, at a turning point)");
  }
  MaupertuisJacobi out;
  const auto rows = static_cast<Eigen::Index>(samples.size());
  out.q.resize(rows, file.dimension());
  out.q_jacobi.resize(rows, file.dimension());
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& sample = samples[static_cast<std::size_t>(i)];
    out.s.push_back(sample.s);
    out.h.push_back(sample.h);
    out.q.row(i) = sample.q.transpose();
    out.q_jacobi.row(i) = sample.q_jacobi.transpose();
  }
  return out;
}

}  // namespace dalembert::modelfile
