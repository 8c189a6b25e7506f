#pragma once
// What a run produces: a table of samples and a summary of its diagnostics.
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace dalembert {

/// Row-major table with named columns; the first column is t.
struct Trajectory {
  std::vector<std::string> columns;
  std::vector<double> values;

  std::size_t rows() const { return columns.empty() ? 0 : values.size() / columns.size(); }
  double at(std::size_t row, std::size_t column) const { return values[row * columns.size() + column]; }
  /// Index of a named column; throws std::out_of_range if absent.
  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return i;
    throw std::out_of_range("no column named " + name);
  }
};

/// The name of the velocity column of a coordinate in a run's output: `<coordinate>_t`.
inline std::string velocity_column(const std::string& coordinate) { return coordinate + "_t"; }

/// Where a run's rows go as they are computed, instead of into RunResult::trajectory (which then
/// holds the column names only): memory stays bounded whatever the number of steps.
class RowSink {
 public:
  virtual ~RowSink() = default;
  /// Called once, before the first row.
  virtual void begin(const std::vector<std::string>& columns) = 0;
  /// The row of step k (one number per column).
  virtual void row(long k, std::span<const double> values) = 0;
};

/// A warning of a run's monitors (io/monitors.hpp): what, where, and the numbers in the message.
struct RunWarning {
  std::string kind;  ///< the monitor's name, as io/monitors.hpp lists them ("energy-growth", …)
  long step = 0;
  double t = 0.0;
  std::string message;
};

struct RunSummary {
  std::string system;
  std::string method;
  double h = 0.0;
  long steps = 0;                    ///< steps completed
  double energy0 = 0.0;
  double max_energy_error = 0.0;     ///< max_k |E_k − E_0|
  double max_constraint_residual = 0.0;        ///< max_k |M(q_k) v_k|_inf
  std::optional<double> max_discrete_constraint;  ///< max_k |ω(q_k, q_{k+1})|_inf, if the method has one
  std::optional<double> energy_decay_rate;        ///< contact systems: fitted slope of log|E_k| against t_k
  /// With an external force or affine constraints: max_k |E_k − E_0 − W_k|, W_k their work since the start
  std::optional<double> max_energy_balance_error;
  double newton_iterations_mean = 0.0;
  int newton_iterations_max = 0;
  double wall_time_seconds = 0.0;
  std::string status = "ok";  ///< "ok", "solver-failure", "non-finite" (energy or constraint) or "interrupted"
  std::string message;
  std::vector<RunWarning> warnings;  ///< from the run's monitors; a run with warnings is still "ok"
  /// With InitialData::project_v0: the velocity the run started from, and |v0 − given v0|_inf.
  struct ProjectedVelocity {
    std::vector<double> v0;
    double change = 0.0;
  };
  std::optional<ProjectedVelocity> projected_v0;
  /// With InitialData::v0_names: the velocity the run started from, the named velocities as given
  /// and the others solved from the constraints.
  std::optional<std::vector<double>> completed_v0;
};

struct RunResult {
  Trajectory trajectory;
  RunSummary summary;
  bool failed() const { return summary.status != "ok"; }
};

}  // namespace dalembert
