#pragma once
// The catalogue of named systems behind the command line: each entry knows its metadata and can
// run any method on itself. Entries are type-erased here; catalogue_entry.hpp builds them from a
// model type, one translation unit per system so that the heavy templates compile in parallel.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dalembert/io/run.hpp"

namespace dalembert::catalogue {

struct ParameterInfo {
  std::string name;
  double value;
  std::string description;
};

struct SystemDescription {
  std::string name;
  std::string summary;
  std::vector<std::string> coordinates;
  std::vector<std::string> velocities;  ///< a run's velocity columns: <coordinate>_t (rigid bodies: omega1..3)
  std::vector<ParameterInfo> parameters;
  int constraints = 0;
  int holonomic_constraints = 0;  ///< of those, rows of φ(q, t) = 0 in their velocity form
  bool holonomic_constraints_depend_on_time = false;  ///< some φ depends on the time t
  int affine_constraints = 0;     ///< of those, velocity rows M(q) v + b(q, t) = 0 with b not zero
  bool constraints_depend_on_time = false;  ///< some b (or ∂φ/∂t) depends on the time t
  std::vector<double> q0, v0;  ///< default initial data
  std::optional<double> z0;    ///< default initial action variable (contact systems only)
  bool closed_form = false;    ///< a closed-form solution exists for these parameters
  bool external_force = false; ///< the system has an external force besides its constraints
  bool force_depends_on_time = false;  ///< that force depends on the time t
  bool lagrangian_depends_on_time = false;  ///< the Lagrangian depends on the time t
};

using ParameterValues = std::vector<std::pair<std::string, double>>;

/// What Entry::steady is asked: the symmetry, by coordinate names, and whether to find the steady
/// motion nearest (q0, v0) first (dalembert/diagnostics/steady_motions.hpp).
struct SteadyRequest {
  std::vector<std::string> symmetric;  ///< translated coordinates (the declared cyclic ones when empty)
  std::vector<std::string> rotation;   ///< x, y[, angle]: the (x, y) plane rotated, the angle turned with it
  bool find = false;                   ///< find the steady motion nearest (q0, v0) by Gauss-Newton
  std::vector<std::string> hold;       ///< what find keeps: coordinates (positions) and NAME_t (velocities)
};

/// Entry::steady's result: a steady motion and its eigenvalues on the linearised constraint.
struct SteadyMotion {
  std::vector<std::string> symmetric;  ///< the translated coordinates, by name
  std::vector<std::string> rotation;   ///< the rotation's coordinates, as asked (none without one)
  Eigen::VectorXd q0, v0;              ///< the motion's start (found, or as given)
  Eigen::VectorXd rates;               ///< the rate of each translation, then of the rotation
  int iterations = 0;                  ///< Gauss-Newton iterations of find (0 without it)
  Eigen::MatrixXd on_constraint;       ///< the linearised field on the linearised constraint
  Eigen::VectorXcd eigenvalues;        ///< its eigenvalues; of a step, log(μ)/h
  Eigen::VectorXcd multipliers;        ///< μ of a step (empty for the continuous linearisation)
  double resolution = 0.0;             ///< real parts within it are not resolved from zero
  int growing_modes = 0;               ///< eigenvalues with a real part above the resolution
};

struct Entry {
  std::string name;
  std::function<SystemDescription(const ParameterValues&)> describe;
  /// Fills in default q0/v0 where `init` leaves them empty, validates, and runs.
  std::function<RunResult(const ParameterValues&, InitialData, const RunOptions&)> run;
  /// The closed-form positions q(t) from (q0, v0) (defaults filled in as for run), if the system
  /// has a closed form for these parameters; std::nullopt otherwise or for two-point starts.
  std::function<std::optional<Eigen::VectorXd>(const ParameterValues&, InitialData, double t)> exact;
  /// The steady motion through (q0, v0) (defaults filled in as for run), or the one nearest it, and
  /// its eigenvalues; empty for a system that is not a Lagrange–d'Alembert model of compiled sizes or
  /// a model file.
  std::function<SteadyMotion(const ParameterValues&, InitialData, const SteadyRequest&)> steady;
  /// A model file's text as it was read (a run's provenance holds it and its SHA-256); none for a
  /// compiled system.
  std::optional<std::string> source_text;
};

const std::vector<Entry>& entries();

/// The entry called `name`, or the entry of the model file at the path `name` (loaded on first
/// use, docs/model-files.md); throws BadInput naming the known systems otherwise.
const Entry& find(const std::string& name);

}  // namespace dalembert::catalogue
