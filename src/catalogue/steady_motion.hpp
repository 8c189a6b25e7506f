#pragma once
// Entry::steady for a Lagrange–d'Alembert model of any size, compiled or from a file: the symmetry
// and what find holds by name, the errors of diagnostics/steady_motions.hpp as BadInput.
#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "catalogue/catalogue.hpp"
#include "dalembert/diagnostics/steady_motions.hpp"

namespace dalembert::catalogue {

/// The coordinates' names separated by commas, for messages.
inline std::string coordinate_list(const std::vector<std::string>& coordinates) {
  std::string list;
  for (const auto& c : coordinates) list += (list.empty() ? "" : ", ") + c;
  return list;
}

/// The symmetry a request names, with the translated coordinates' indices: the translations of
/// the coordinates request.symmetric names (of `declared`, indices, when it names none) and the
/// rotation request.rotation names. Throws BadInput naming what is wrong.
struct NamedSymmetry {
  Symmetry symmetry;
  std::vector<int> translated;
};
inline NamedSymmetry symmetry_of(const std::string& system, const std::vector<std::string>& coordinates,
                                 const SteadyRequest& request, const std::vector<int>& declared) {
  const int n = static_cast<int>(coordinates.size());
  const std::string list = coordinate_list(coordinates);
  const auto index_of = [&](const std::string& option, const std::string& name) {
    const auto it = std::find(coordinates.begin(), coordinates.end(), name);
    if (it == coordinates.end())
      throw BadInput(option + ": " + system + " has no coordinate '" + name + "' (coordinates: " + list + ")");
    return static_cast<int>(it - coordinates.begin());
  };
  NamedSymmetry out;
  for (const auto& name : request.symmetric) out.translated.push_back(index_of("--symmetric", name));
  if (request.symmetric.empty()) {
    if (declared.empty() && request.rotation.empty())
      throw BadInput(system + " declares no symmetric (cyclic) coordinates: name them with --symmetric (coordinates: " +
                     list + ")");
    out.translated = declared;
  }
  std::sort(out.translated.begin(), out.translated.end());
  out.translated.erase(std::unique(out.translated.begin(), out.translated.end()), out.translated.end());
  for (const int i : out.translated) out.symmetry.push_back(translation(n, i, "translation of " + coordinates[i]));
  if (!request.rotation.empty()) {
    if (request.rotation.size() < 2 || request.rotation.size() > 3)
      throw BadInput("--rotation: give two coordinates and optionally an angle (X,Y[,ANGLE]), not " +
                     std::to_string(request.rotation.size()) + " names");
    std::vector<int> r;
    for (const auto& name : request.rotation) r.push_back(index_of("--rotation", name));
    if (r[0] == r[1] || (r.size() == 3 && (r[2] == r[0] || r[2] == r[1])))
      throw BadInput("--rotation: its coordinates must differ");
    std::string name = "rotation of " + coordinates[r[0]] + ", " + coordinates[r[1]];
    if (r.size() == 3) name += " turning " + coordinates[r[2]];
    out.symmetry.push_back(rotation(n, r[0], r[1], r.size() == 3 ? r[2] : -1, name));
  }
  return out;
}

/// What request.hold names for find to keep: coordinates (positions) and NAME_t (velocities).
/// Throws BadInput naming an unknown coordinate, or a hold without find.
inline SteadyMotionHold hold_of(const std::string& system, const std::vector<std::string>& coordinates,
                                const SteadyRequest& request) {
  SteadyMotionHold hold;
  for (const auto& name : request.hold) {
    if (!request.find) throw BadInput("--hold: what to hold is for --find");
    const bool velocity = name.size() > 2 && name.ends_with("_t") &&
                          std::find(coordinates.begin(), coordinates.end(), name) == coordinates.end();
    const std::string coordinate = velocity ? name.substr(0, name.size() - 2) : name;
    const auto it = std::find(coordinates.begin(), coordinates.end(), coordinate);
    if (it == coordinates.end())
      throw BadInput("--hold: " + system + " has no coordinate '" + coordinate +
                     "' (coordinates: " + coordinate_list(coordinates) + ")");
    (velocity ? hold.velocities : hold.positions).push_back(static_cast<int>(it - coordinates.begin()));
  }
  return hold;
}

/// Entry::steady's result: the linearisation L at (q0, v0), with the symmetry `named` of the
/// coordinates `coordinates` and the rotation `rotation` by name.
inline SteadyMotion steady_motion_result(const NamedSymmetry& named, const std::vector<std::string>& coordinates,
                                         const std::vector<std::string>& rotation, Eigen::VectorXd q0,
                                         Eigen::VectorXd v0, const SteadyMotionLinearisation& L) {
  SteadyMotion out;
  for (const int i : named.translated) out.symmetric.push_back(coordinates[static_cast<std::size_t>(i)]);
  out.rotation = rotation;
  out.q0 = std::move(q0);
  out.v0 = std::move(v0);
  out.rates = L.rates;
  out.on_constraint = L.on_constraint;
  out.eigenvalues = L.eigenvalues;
  out.multipliers = L.multipliers;
  out.resolution = L.resolution;
  out.growing_modes = L.growing_modes();
  return out;
}

/// The steady motion of `sys` (called `system`, with the coordinates `coordinates`) through
/// (q0, v0), or with request.find the one nearest it, and its eigenvalues, with the symmetry
/// symmetry_of names. Throws BadInput naming what is wrong.
template <Model S>
SteadyMotion steady_motion_of(const S& sys, const std::string& system, const std::vector<std::string>& coordinates,
                              const Eigen::VectorXd& q0, const Eigen::VectorXd& v0, const SteadyRequest& request,
                              const std::vector<int>& declared) {
  const std::string list = coordinate_list(coordinates);
  if (has_time_dependent_force(sys))
    throw BadInput("a steady motion needs an autonomous system; the force of " + system + " depends on t");
  const NamedSymmetry named = symmetry_of(system, coordinates, request, declared);
  const Symmetry& symmetry = named.symmetry;
  const SteadyMotionHold hold = hold_of(system, coordinates, request);
  try {
    SteadyMotionPoint p{q0, v0, {}, 0, 0.0};
    if (request.find) p = find_steady_motion(sys, VecN<S>(q0), VecN<S>(v0), symmetry, hold);
    const SteadyMotionLinearisation L = steady_motion_linearisation(sys, VecN<S>(p.q), VecN<S>(p.v), symmetry);
    SteadyMotion out = steady_motion_result(named, coordinates, request.rotation, p.q, p.v, L);
    out.iterations = p.iterations;
    return out;
  } catch (const std::invalid_argument& e) {
    throw BadInput("(q0, v0) of " + system + ": " + e.what() + " (coordinates 0, 1, ...: " + list + ")");
  }
}

}  // namespace dalembert::catalogue
