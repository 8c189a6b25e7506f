#include "modelfile/model.hpp"

#include <chrono>
#include <cmath>
#include <iostream>
#include <span>
#include <sstream>
#include <vector>

#include <Eigen/SVD>

#include "dalembert/io/errors.hpp"
#include "modelfile/native.hpp"
#include "modelfile/symbolic.hpp"
#include "support/text.hpp"

namespace dalembert::modelfile {

namespace {

std::string format_vector(const Eigen::VectorXd& x) {
  std::ostringstream out;
  out.precision(6);
  out << "(";
  for (Eigen::Index i = 0; i < x.size(); ++i) out << (i ? ", " : "") << x[i];
  out << ")";
  return out.str();
}

/// An expression in a message: quoted, and cut after 80 characters.
std::string quote(const std::string& s) { return "\"" + (s.size() > 80 ? s.substr(0, 77) + "..." : s) + "\""; }

/// Smallest over largest singular value; 0 for a zero or non-finite matrix.
double relative_rank_gap(const Eigen::MatrixXd& A) {
  if (!A.allFinite()) return 0.0;
  const Eigen::VectorXd s = Eigen::JacobiSVD<Eigen::MatrixXd>(A).singularValues();
  return s[0] > 0 ? s[s.size() - 1] / s[0] : 0.0;
}

}  // namespace

double LoadedModel::lagrangian(const Eigen::VectorXd& x, const std::vector<double>& p) const {
  std::vector<double> c(layout.lagrangian_size);
  evaluator->lagrangian(0, x.data(), p.data(), c.data());
  return c[layout.lagrangian.offset];
}

Eigen::MatrixXd LoadedModel::velocity_hessian(const Eigen::VectorXd& x, const std::vector<double>& p) const {
  const int n = layout.n;
  std::vector<double> c(layout.lagrangian_size);
  evaluator->lagrangian(2, x.data(), p.data(), c.data());
  const TaylorTerms& L = layout.lagrangian;
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(n, n);
  int k = L.offset + 1 + static_cast<int>(L.first.size());
  for (const auto& [i, j] : L.second) {
    const double coefficient = c[k++];
    if (i < n || j < n || i >= 2 * n || j >= 2 * n) continue;  // only velocities (not q, nor z)
    // c_ij = ½ ∂²L on the diagonal, ∂²L off it
    W(i - n, j - n) = i == j ? 2.0 * coefficient : coefficient;
    W(j - n, i - n) = W(i - n, j - n);
  }
  return W;
}

Eigen::MatrixXd LoadedModel::constraint_matrix(const Eigen::VectorXd& q, const std::vector<double>& p) const {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(layout.m, layout.n);
  std::vector<double> c(layout.constraints_size);
  if (layout.constraints_size > 0) evaluator->constraints(0, q.data(), p.data(), 0.0, c.data());
  for (const auto& e : layout.constraints) M(e.row, e.column) = c[e.terms.offset];
  return M;
}

Eigen::VectorXd LoadedModel::constraint_offset(const Eigen::VectorXd& q, const std::vector<double>& p,
                                               double t) const {
  Eigen::VectorXd b = Eigen::VectorXd::Zero(layout.m);
  if (layout.constraint_offsets.empty()) return b;
  std::vector<double> c(layout.constraints_size);
  evaluator->constraints(0, q.data(), p.data(), t, c.data());
  for (const auto& e : layout.constraint_offsets) b[e.row] = c[e.terms.offset];
  return b;
}

void require_constraints_taken(const LoadedModel& model, const std::string& method, const std::string& what) {
  if (!model.has_affine_constraints()) return;
  const bool of_time = model.layout.constraint_offsets_depend_on_time;
  std::string taking;
  for (const char* name : of_time ? std::span<const char* const>(methods_taking_time_dependent_constraints)
                                  : std::span<const char* const>(methods_taking_affine_constraints)) {
    if (!method.empty() && method == name) return;
    taking += (taking.empty() ? "" : ", ") + std::string(name);
  }
  const auto& offsets = of_time ? model.layout.constraint_offset_rates : model.layout.constraint_offsets;
  const int row = offsets.front().row;
  const Expression& e = model.spec.constraint_source(row);
  const std::string kind =
      row >= model.spec.velocity_rows()
          ? "holonomic constraints of the time, phi(q, t) = 0 (whose velocity form dphi(q) v + dphi/dt = 0 is affine)"
      : of_time ? "affine constraints of the time, M(q) v + b(q, t) = 0 with b depending on t"
                : "affine constraints, M(q) v + b(q) = 0 with b not zero";
  throw BadInput((method.empty() ? what : "method " + method) + " does not take " + kind + ", and the model file " +
                 model.spec.path + " has one: " + e.key + " " + quote(e.text) + " (the methods that take them: " +
                 taking + ")");
}

std::optional<Eigen::VectorXd> LoadedModel::solution(const Eigen::VectorXd& x0, const std::vector<double>& p,
                                                      double t) const {
  if (!layout.has_solution) return std::nullopt;
  Eigen::VectorXd out(2 * layout.n + layout.solution_conditions);
  evaluator->solution(x0.data(), p.data(), t, out.data());
  if (!out.tail(layout.solution_conditions).isZero(0.0)) return std::nullopt;
  Eigen::VectorXd x = out.head(2 * layout.n);
  if (!x.allFinite()) return std::nullopt;
  return x;
}

namespace {

/// Analyses (checks, differentiates) and compiles a model, or finds its kernels in the cache.
void analyse_and_compile(LoadedModel& model, const std::string& path, Kernels kernels) {
  const SymbolicModel symbolic = analyse(model.spec);
  model.layout = symbolic.layout;
  NativeBuild native;
  if (kernels == Kernels::compiled) {
    native = native_evaluator(c_source(symbolic), model.layout, model.spec.text);
    if (!native.warning.empty()) std::cerr << "dalembert: warning: " << support::printable(native.warning) << '\n';
  }
  if (native.evaluator) {
    model.evaluator = std::move(native.evaluator);
    model.compiled = native.compiled;
    model.compile_seconds = native.compile_seconds;
  } else {
    if (kernels == Kernels::compiled)
      std::cerr << "dalembert: warning: " << support::printable(native.problem + "; evaluating the model file " + path)
                << " by interpretation (correct but much slower)\n";
    model.evaluator = interpreted_evaluator(symbolic);
  }
}

/// Reads a model from `read()`; analyses and compiles it unless the cache records both for its text
/// (an analysis is a function of the text: the bicycle's takes seconds).
template <class Read>
std::shared_ptr<const LoadedModel> load_with(const std::string& path, Read read, Kernels kernels) {
  auto model = std::make_shared<LoadedModel>();
  const auto start = std::chrono::steady_clock::now();
  model->spec = read();
  auto recorded = kernels == Kernels::compiled ? recorded_model(model->spec.text) : std::nullopt;
  if (recorded) {
    model->layout = std::move(recorded->layout);
    model->evaluator = std::move(recorded->build.evaluator);
  } else {
    analyse_and_compile(*model, path, kernels);
  }
  model->analysis_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - model->compile_seconds;
  const auto defaults = bind(model, {});
  model->spec.q0.assign(defaults->q0.data(), defaults->q0.data() + model->n());
  model->spec.v0.assign(defaults->v0.data(), defaults->v0.data() + model->n());
  check_initial_point(*defaults, defaults->q0, defaults->v0, InitialSource::File, defaults->z0);
  return model;
}

}  // namespace

std::shared_ptr<const LoadedModel> load(const std::string& path, Kernels kernels) {
  return load_with(path, [&] { return parse_spec(path); }, kernels);
}

std::shared_ptr<const LoadedModel> load_text(const std::string& text, const std::string& label) {
  return load_with(label, [&] { return parse_spec_text(text, label); }, Kernels::compiled);
}

std::shared_ptr<const BoundModel> bind(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& overrides) {
  auto bound = std::make_shared<BoundModel>();
  for (const auto& p : model->spec.parameters) bound->parameters.push_back(p.value);
  for (const auto& override_ : overrides) {
    const std::string& name = override_.first;  // not a structured binding: clang 14 cannot capture one
    const double value = override_.second;
    const auto& params = model->spec.parameters;
    const auto it = std::find_if(params.begin(), params.end(), [&](const ParameterSpec& p) { return p.name == name; });
    if (it == params.end()) {
      std::string known;
      for (const auto& p : params) known += (known.empty() ? "" : ", ") + p.name;
      throw BadInput("unknown parameter '" + name + "' for model file " + model->spec.path +
                     (known.empty() ? " (it has no parameters)" : " (known: " + known + ")"));
    }
    if (!std::isfinite(value)) throw BadInput("parameter " + name + " must be a finite number");
    bound->parameters[it - params.begin()] = value;
  }
  const int n = model->n();
  Eigen::VectorXd initial(2 * n + (model->layout.contact ? 1 : 0));
  model->evaluator->initial(bound->parameters.data(), initial.data());
  bound->q0 = initial.head(n);
  bound->v0 = initial.segment(n, n);
  if (model->layout.contact) bound->z0 = initial[2 * n];
  if (!initial.allFinite())
    throw ModelFileError(model->spec.path, model->spec.q0_line, "the initial data are not finite for these parameters");
  bound->model = std::move(model);
  return bound;
}

void check_initial_point(const BoundModel& bound, const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                         InitialSource source, double z0) {
  const LoadedModel& model = *bound.model;
  const ModelSpec& spec = model.spec;
  const int n = model.n(), m = model.m();
  const auto& p = bound.parameters;
  Eigen::VectorXd x(2 * n + (model.layout.contact ? 1 : 0));
  x.head(n) = q0;
  x.segment(n, n) = v0;
  if (model.layout.contact) x[2 * n] = z0;
  const std::string where = "the initial point q0 = " + format_vector(q0) + ", v0 = " + format_vector(v0);
  const Expression lagrangian = spec.lagrangian ? *spec.lagrangian
                                                : Expression{"metric " + std::string(spec.potential ? "and potential" : ""),
                                                             spec.metric_line, "metric"};
  const auto fail = [&](const Expression& e, const std::string& message) {
    throw ModelFileError(spec.path, e.line, e.key + ": " + message + ": " + quote(e.text));
  };

  if (!std::isfinite(model.lagrangian(x, p))) fail(lagrangian, "the Lagrangian is not finite at " + where);
  // The methods use derivatives up to the third: all must be finite where the motion starts (the
  // derivative of sqrt(u) is infinite where u = 0).
  const auto singular = " at " + where + " (a function that is not differentiable there, such as sqrt at 0?)";
  std::vector<double> coefficients(model.layout.lagrangian_size);
  model.evaluator->lagrangian(max_taylor_order, x.data(), p.data(), coefficients.data());
  for (const double c : coefficients)
    if (!std::isfinite(c)) fail(lagrangian, "a derivative of the Lagrangian up to the third is not finite" + singular);
  if (model.layout.mechanics_size > 0) {
    coefficients.resize(model.layout.mechanics_size);
    model.evaluator->mechanics(max_taylor_order, q0.data(), p.data(), coefficients.data());
    for (const double c : coefficients)
      if (!std::isfinite(c)) fail(lagrangian, "a derivative of the metric or the potential is not finite" + singular);
  }
  if (model.layout.force_size > 0) {
    coefficients.resize(model.layout.force_size);
    model.evaluator->force(max_taylor_order, x.data(), p.data(), 0.0, coefficients.data());
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < model.layout.force[i].size(); ++k)
        if (!std::isfinite(coefficients[model.layout.force[i].offset + k])) {
          // The force may be (or include) what a Lagrangian of t exerts (symbolic.cpp, TimeDependence).
          const bool of_time = model.layout.lagrangian_depends_on_time;
          fail(spec.force.empty() ? lagrangian : spec.force[i],
               std::string(of_time ? "the force of the part of the Lagrangian that depends on t" : "the force") +
                   (of_time && !spec.force.empty() ? " plus the file's force" : "") +
                   " or a derivative of it up to the third is not finite" + singular);
        }
  }
  const Eigen::MatrixXd W = model.velocity_hessian(x, p);
  if (!(relative_rank_gap(W) > 1e-12))
    fail(lagrangian, "the metric d2L/dv2 is singular at " + where +
                         " (the equations of motion need it invertible; does every velocity appear squared?)");
  if (m == 0) return;

  // The positions on the holonomic constraints φ_b(q) = 0, whose values the derived kernel gives
  // (spec.hpp, holonomic_<b>), to a tolerance relative to the coordinates' size.
  if (!spec.holonomic.empty()) {
    std::vector<double> derived(static_cast<std::size_t>(model.layout.derived + 1 + n));
    model.evaluator->derived(x.data(), p.data(), bound.time_offset, derived.data());
    const double position_tolerance = 1e-10 * (1.0 + q0.lpNorm<Eigen::Infinity>());
    for (std::size_t k = 0; k < spec.derived.size(); ++k) {
      const int b = spec.derived[k].holonomic;
      if (b < 0 || std::abs(derived[k]) <= position_tolerance) continue;
      std::ostringstream value;
      value.precision(6);
      value << derived[k];
      const Expression& e = spec.holonomic[static_cast<std::size_t>(b)];
      // `source` tells where v0 came from; q0 is the file's when it is the file's value
      const bool from_file = q0.size() == bound.q0.size() && q0 == bound.q0;
      const std::string position = from_file ? "the initial position initial.q" : "the initial position (--q0)";
      throw ModelFileError(spec.path, from_file ? spec.q0_line : e.line,
                           position + " = " + format_vector(q0) + " violates " + e.key + " " + quote(e.text) +
                               ": its value is " + value.str() + ", not 0");
    }
  }
  const Eigen::MatrixXd M = model.constraint_matrix(q0, p);
  for (int a = 0; a < m; ++a)
    if (!M.row(a).allFinite()) fail(spec.constraint_source(a), "not finite at " + where);
  coefficients.resize(model.layout.constraints_size);
  model.evaluator->constraints(max_taylor_order, q0.data(), p.data(), bound.time_offset, coefficients.data());
  for (const auto* entries :
       {&model.layout.constraints, &model.layout.constraint_offsets, &model.layout.constraint_offset_rates})
    for (const auto& entry : *entries)
      for (int k = 0; k < entry.terms.size(); ++k)
        if (!std::isfinite(coefficients[entry.terms.offset + k]))
          fail(spec.constraint_source(entry.row), "a derivative of the constraint is not finite" + singular);
  if (!(relative_rank_gap(M) > 1e-12)) {
    for (int a = 0; a < m; ++a)
      if (M.row(a).lpNorm<Eigen::Infinity>() == 0.0)
        fail(spec.constraint_source(a), "the constraint vanishes identically in the velocities at " + where);
    const Eigen::Index rank = Eigen::JacobiSVD<Eigen::MatrixXd>(M).setThreshold(1e-12).rank();
    std::string all;
    for (int a = 0; a < m; ++a) all += (all.empty() ? "" : ", ") + quote(spec.constraint_source(a).text);
    const std::string key = spec.contact_rows() > 0     ? "contacts"
                            : !spec.constraints.empty() ? "constraints"
                                                        : "holonomic";
    const long line = spec.contact_rows() > 0     ? spec.contacts.front().line
                      : !spec.constraints.empty() ? spec.constraints_line
                                                  : spec.holonomic_line;
    throw ModelFileError(spec.path, line, key +
                             ": the constraint matrix M(q) has rank " + std::to_string(rank) + " < " +
                             std::to_string(m) + " at " + where + " (the constraints are dependent there): [" + all + "]");
  }
  const Eigen::VectorXd residual = M * v0 + model.constraint_offset(q0, p, bound.time_offset);
  const double tolerance = 1e-10 * (1.0 + v0.lpNorm<Eigen::Infinity>());
  for (int a = 0; a < m; ++a) {
    if (std::abs(residual[a]) <= tolerance) continue;
    std::ostringstream value;
    value.precision(6);
    value << residual[a];
    const std::string velocity = source == InitialSource::File ? "the initial velocity initial.v" : "the initial velocity (--v0)";
    const Expression& e = spec.constraint_source(a);
    const std::string form = a < spec.contact_rows()    ? " (rolling of its body on z = 0, of radius) "
                             : a < spec.velocity_rows() ? " "
                                                        : " in its velocity form d/dt ";
    throw ModelFileError(spec.path, source == InitialSource::File ? spec.v0_line : e.line,
                         velocity + " = " + format_vector(v0) + " violates " + e.key + form + quote(e.text) +
                             " at q0 = " + format_vector(q0) + ": its value is " +
                             value.str() + ", not 0");
  }
}

}  // namespace dalembert::modelfile
