#pragma once
// Entry::steady for a Lagrange–d'Alembert model of any size, compiled or from a file: the
// symmetric coordinates by name, the errors of diagnostics/steady_motions.hpp as BadInput.
#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalogue/catalogue.hpp"
#include "dalembert/diagnostics/steady_motions.hpp"

namespace dalembert::catalogue {

/// The steady motion of `sys` (called `system`, with the coordinates `coordinates`) through
/// (q0, v0), symmetric in the coordinates named in `symmetric`, or in `declared` (indices) when
/// none are named. Throws BadInput naming what is wrong.
template <Model S>
SteadyMotion steady_motion_of(const S& sys, const std::string& system, const std::vector<std::string>& coordinates,
                              const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                              const std::vector<std::string>& symmetric, const std::vector<int>& declared) {
  std::string list;
  for (const auto& c : coordinates) list += (list.empty() ? "" : ", ") + c;
  if (has_time_dependent_force(sys))
    throw BadInput("a steady motion needs an autonomous system; the force of " + system + " depends on t");
  std::vector<int> indices;
  if (symmetric.empty()) {
    if (declared.empty())
      throw BadInput(system + " declares no symmetric (cyclic) coordinates: name them with --symmetric (coordinates: " +
                     list + ")");
    indices = declared;
  }
  for (const auto& name : symmetric) {
    const auto it = std::find(coordinates.begin(), coordinates.end(), name);
    if (it == coordinates.end())
      throw BadInput("--symmetric: " + system + " has no coordinate '" + name + "' (coordinates: " + list + ")");
    indices.push_back(static_cast<int>(it - coordinates.begin()));
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  SteadyMotion out;
  for (const int i : indices) out.symmetric.push_back(coordinates[i]);
  try {
    const SteadyMotionLinearisation L =
        steady_motion_linearisation(sys, VecN<S>(q0), VecN<S>(v0), std::span<const int>(indices));
    out.on_constraint = L.on_constraint;
    out.eigenvalues = L.eigenvalues;
  } catch (const std::invalid_argument& e) {
    throw BadInput("(q0, v0) of " + system + ": " + e.what() + " (coordinates 0, 1, ...: " + list + ")");
  }
  return out;
}

}  // namespace dalembert::catalogue
