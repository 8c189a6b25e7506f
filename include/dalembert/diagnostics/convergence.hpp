#pragma once
// Empirical order of convergence: least-squares slope of log(error) against log(h).
#include <cmath>
#include <stdexcept>
#include <vector>

namespace dalembert {

/// Least-squares slope of log(errors) against log(step_sizes).
inline double fitted_order(const std::vector<double>& step_sizes, const std::vector<double>& errors) {
  if (step_sizes.size() != errors.size() || step_sizes.size() < 2)
    throw std::invalid_argument("fitted_order: need at least two (h, error) pairs of equal length");
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(step_sizes.size());
  for (std::size_t i = 0; i < step_sizes.size(); ++i) {
    const double x = std::log(step_sizes[i]), y = std::log(errors[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace dalembert
