#pragma once
// A loaded model file: its description (spec.hpp), the layout and kernels of its derivatives
// (evaluator.hpp), and the checks at an initial point. No GiNaC or TOML types here, so that the
// heavy template instantiations (file_model.hpp) do not see them.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "dalembert/core/sizes.hpp"
#include "modelfile/evaluator.hpp"
#include "modelfile/spec.hpp"

namespace dalembert::modelfile {

struct LoadedModel {
  ModelSpec spec;
  Layout layout;
  std::unique_ptr<Evaluator> evaluator;
  bool compiled = false;         ///< the native library was compiled by this load (not cached)
  double compile_seconds = 0.0;  ///< time spent in the system compiler
  double analysis_seconds = 0.0; ///< parsing, checking, differentiating, generating C

  int n() const { return layout.n; }
  int m() const { return layout.m; }
  /// ∂²L/∂v² at x = (q, v), or (q, v, z) for a contact system.
  Eigen::MatrixXd velocity_hessian(const Eigen::VectorXd& x, const std::vector<double>& p) const;
  /// M(q), rows the constraint 1-forms.
  Eigen::MatrixXd constraint_matrix(const Eigen::VectorXd& q, const std::vector<double>& p) const;
  /// b(q, t) of affine constraints M(q) v + b(q, t) = 0 (zero for linear ones), t the file's time.
  Eigen::VectorXd constraint_offset(const Eigen::VectorXd& q, const std::vector<double>& p, double t) const;
  bool has_affine_constraints() const { return !layout.constraint_offsets.empty(); }
  /// L at x = (q, v), or (q, v, z).
  double lagrangian(const Eigen::VectorXd& x, const std::vector<double>& p) const;
  /// The closed form (q(t), v(t)) from x0 = (q0, v0), if the file has one, its conditions
  /// (valid_when_zero) hold and it is finite there.
  std::optional<Eigen::VectorXd> solution(const Eigen::VectorXd& x0, const std::vector<double>& p, double t) const;
};

/// How a loaded model evaluates its derivatives: compiled by the system compiler (or found in the
/// cache; interpreted, with a warning, where it cannot be compiled), or interpreted, as asked for a
/// large model that is evaluated a few times (compiling the bicycle's kernels takes minutes).
enum class Kernels { compiled, interpreted };

/// Reads, checks and compiles (or finds in the cache) a model file, and checks its own initial
/// data. Throws ModelFileError for every mistake in the file.
std::shared_ptr<const LoadedModel> load(const std::string& path, Kernels kernels = Kernels::compiled);
/// The same for a model given as TOML text, named `label` in messages.
std::shared_ptr<const LoadedModel> load_text(const std::string& text, const std::string& label);

/// A loaded model with values for its parameters.
struct BoundModel {
  std::shared_ptr<const LoadedModel> model;
  std::vector<double> parameters;
  Eigen::VectorXd q0, v0;  ///< the file's initial data for these parameters
  double z0 = 0.0;         ///< and the initial action of a contact system
  /// Added to the methods' time, which starts at 0, where the file's expressions see t (RunOptions::t0).
  double time_offset = 0.0;
};

using ParameterOverrides = std::vector<std::pair<std::string, double>>;

/// The model with the file's parameter values, overridden by `overrides` (unknown names: BadInput).
std::shared_ptr<const BoundModel> bind(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& overrides);

/// The methods that take affine constraints M(q) v + b(q) = 0: those whose constraint rows add b
/// (add_constraint_offset: dla's and mla's α-rule or trapezoidal rule, mclachlan-perlmutter's end
/// point, spark's stages and end point, exact's M(q_k) R^{e−} + b, the projections of gf-cp and
/// fim), and those whose equations take the constrained acceleration, whose curvature includes
/// (∂b/∂q) v (mla's and the gf family's forces, rk4, reference, exact's arcs). The discrete gradient
/// balances the energy with M v = 0 (docs/methods.md, Affine constraints).
inline constexpr const char* methods_taking_affine_constraints[] = {
    "dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "mclachlan-perlmutter", "spark", "rk4", "reference", "exact"};
/// Those of them that take b(q, t) of the time: each evaluates b, and for the constrained
/// acceleration ∂b/∂t, at the times of its own points (`gf` and `gf-sym` their constraint force at
/// the times of q_α and q_{1−α}, `gf-cp` and `fim` their projections at t_{k+1}, `exact` along
/// arcs that start at t_k).
inline constexpr const char* methods_taking_time_dependent_constraints[] = {
    "dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "mclachlan-perlmutter", "spark", "rk4", "reference", "exact"};

/// Throws BadInput when the model has an affine constraint and `method` is not among
/// methods_taking_affine_constraints (or, with method empty, for `what`: a computation that takes
/// linear constraints only), naming the constraint.
void require_constraints_taken(const LoadedModel& model, const std::string& method, const std::string& what = {});

/// Where initial data came from, for the messages.
enum class InitialSource { File, CommandLine };

/// Checks before anything runs: a finite Lagrangian, a regular metric ∂²L/∂v² and a constraint
/// matrix of full rank at (q0, v0), and v0 in D (at the action z0 for a contact system). Throws
/// ModelFileError naming the expression.
void check_initial_point(const BoundModel& model, const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                         InitialSource source, double z0 = 0.0);

}  // namespace dalembert::modelfile
