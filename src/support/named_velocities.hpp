#pragma once
// Initial velocities given by name (InitialData::v0_names): the n − m independent velocities of a
// system with m linear velocity constraints M(q) v = 0, the other m solved from the constraints at
// q0, as Kane's independent and dependent speeds. The named coordinates are the frame: the columns
// of E(q0) with v = E(q0) u are ∂/∂(named coordinate) corrected along the dependent ones.
#include <string>
#include <vector>

#include <Eigen/Core>

namespace dalembert::support {

/// The velocity v with v[named[i]] = values[i] and M v + b = 0 (b empty: zero; BadInput naming the
/// value when the names are not n − m distinct coordinates of `coordinates`, or when the constraints
/// at q0 do not determine the velocities left out). `system` names the system in messages; `q0` is
/// quoted in them.
Eigen::VectorXd complete_named_velocity(const Eigen::MatrixXd& M, const std::vector<std::string>& coordinates,
                                        const std::vector<std::string>& named, const Eigen::VectorXd& values,
                                        const std::string& system, const Eigen::VectorXd& q0,
                                        const Eigen::VectorXd& b = {});

}  // namespace dalembert::support
