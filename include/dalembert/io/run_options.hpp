#pragma once
// What a run is asked to do: the method and its options, the step size and count, and the initial
// data. The command line builds these in one place (src/cli/run_arguments.cpp).
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "dalembert/io/trajectory.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

struct RunOptions {
  std::string method = "dla";
  double h = 0.1;
  long steps = 100;
  /// The time of the first row: row k is at t0 + k h, and a model file's force, Lagrangian and
  /// derived quantities are evaluated at that time (a restart continues the clock of the run it
  /// continues). The catalogue's compiled systems do not depend on t: for them t0 only shifts the
  /// column t.
  double t0 = 0.0;
  long every = 1;              ///< keep every K-th row (and always the last)
  double alpha = 0.5;          ///< α of the α-rule discrete Lagrangian and constraint
  std::string rule = "alpha";  ///< discrete Lagrangian: "alpha" (midpoint for α = ½), "trapezoid" or, for
                               ///< contact systems, "exponential"
  std::string constraint_rule = "alpha";  ///< dla's discrete constraint: "alpha" (M at the α point) or
                                          ///< "trapezoid" (M averaged over both ends)
  std::string fim_start = "B";  ///< first pre-momentum of fim/fim-lie: "B" (G v0 − h/2 Λ~) or "A" (G v0)
  int stages = 3;               ///< spark: Lobatto IIIA–IIIB stages s = 2 … 5 (order 2s − 2)
  NewtonOptions newton;
  double reference_tolerance = 1e-13;
  std::string root_rule = "physical";  ///< dsocs: "physical" or "closest" (the paper's rule)
  std::string dsocs_start = "taylor2";  ///< dsocs from (q0, v0): "taylor2" or "euler" (the paper's)
  double shooting_tolerance = 1e-12;  ///< inner integration and shooting of the exact discrete flow
  /// Not owned. Null: the kept rows are stored in RunResult::trajectory. Otherwise each kept row
  /// goes to the sink as soon as it is computed and is not stored.
  RowSink* rows = nullptr;
  /// Not owned, may be null. Read after every step and by the loops inside a step (solve/step_limits.hpp):
  /// a non-zero value (the number of the signal that asked for it) ends the run after the step it
  /// completes, or abandons the step under way, with status "interrupted" and the rows of the
  /// completed steps kept.
  const std::atomic<int>* stop = nullptr;
};

struct InitialData {
  Eigen::VectorXd q0;
  Eigen::VectorXd v0;
  std::optional<Eigen::VectorXd> q1;  ///< two-point start (q0, q1) instead of (q0, v0)
  std::optional<double> z0;           ///< initial action variable of a contact system
  /// Replace v0 by its projection onto the constraint distribution D(q0) orthogonal in the kinetic
  /// metric: the v ∈ D with the same momentum components on D, E^T ∂L/∂v(q0, v) = E^T ∂L/∂v(q0, v0)
  /// (for L = ½ vᵀG v − V, v = v0 − G⁻¹Mᵀ(M G⁻¹ Mᵀ)⁻¹ M v0). The run's summary reports it.
  bool project_v0 = false;
  /// The coordinates whose velocities v0 gives, n − m of them: the other velocities are solved from
  /// the constraints at q0, M(q0) v0 = 0 (Kane's independent and dependent speeds). Empty: v0 gives
  /// all n. The run's summary reports the completed v0.
  std::vector<std::string> v0_names = {};
};

/// The largest number of steps a run accepts: far beyond any run that can finish, and below 2^53,
/// so that every step index k is an exact double in t = k h.
inline constexpr long max_steps = 1'000'000'000'000'000;

}  // namespace dalembert
