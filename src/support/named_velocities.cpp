#include "support/named_velocities.hpp"

#include <algorithm>
#include <sstream>

#include <Eigen/Dense>

#include "dalembert/io/errors.hpp"
#include "support/text.hpp"

namespace dalembert::support {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string format(const Eigen::VectorXd& x) {
  std::ostringstream out;
  out.precision(6);
  for (Eigen::Index i = 0; i < x.size(); ++i) out << (i ? "," : "") << x[i];
  return out.str();
}

}  // namespace

Eigen::VectorXd complete_named_velocity(const Eigen::MatrixXd& M, const std::vector<std::string>& coordinates,
                                        const std::vector<std::string>& named, const Eigen::VectorXd& values,
                                        const std::string& system, const Eigen::VectorXd& q0,
                                        const Eigen::VectorXd& b) {
  const auto n = static_cast<Eigen::Index>(coordinates.size());
  const Eigen::Index m = M.rows(), independent = n - m;
  if (static_cast<Eigen::Index>(named.size()) != independent)
    throw BadInput("--v0 names " + std::to_string(named.size()) + " velocit" + (named.size() == 1 ? "y" : "ies") + " (" +
                   joined(named) + ") but " + system + " has " + std::to_string(n) + " coordinates and " +
                   std::to_string(m) + " constraint" + (m == 1 ? "" : "s") + ": name " + std::to_string(independent) +
                   " of " + joined(coordinates) + ", the others follow from the constraints");
  std::vector<bool> given(static_cast<std::size_t>(n), false);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(n);
  for (std::size_t k = 0; k < named.size(); ++k) {
    const auto at = std::find(coordinates.begin(), coordinates.end(), named[k]);
    if (at == coordinates.end())
      throw BadInput("--v0 names the velocity of '" + printable(named[k]) + "', which is not a coordinate of " + system +
                     " (" + joined(coordinates) + ")" + did_you_mean(named[k], coordinates));
    const auto i = static_cast<std::size_t>(at - coordinates.begin());
    if (given[i]) throw BadInput("--v0 names the velocity of '" + printable(named[k]) + "' twice");
    given[i] = true;
    v[static_cast<Eigen::Index>(i)] = values[static_cast<Eigen::Index>(k)];
  }
  if (m == 0) return v;
  // M_D v_D = −M_N v_N − b, with D the coordinates left out and N the named ones.
  std::vector<Eigen::Index> dependent;
  for (Eigen::Index i = 0; i < n; ++i)
    if (!given[static_cast<std::size_t>(i)]) dependent.push_back(i);
  Eigen::MatrixXd M_dependent(m, m);
  for (Eigen::Index j = 0; j < m; ++j) M_dependent.col(j) = M.col(dependent[static_cast<std::size_t>(j)]);
  const Eigen::VectorXd right = b.size() == 0 ? Eigen::VectorXd(-(M * v)) : Eigen::VectorXd(-(M * v + b));
  // The smallest singular value against the largest of all of M: the velocities left out are
  // determined when their columns span the constraints' image, which is full (a model is refused
  // where M(q0) loses rank).
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(M_dependent, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const double scale = Eigen::JacobiSVD<Eigen::MatrixXd>(M).singularValues()[0];
  const double smallest = svd.singularValues()[m - 1];
  std::vector<std::string> left_out;
  for (const Eigen::Index i : dependent) left_out.push_back(coordinates[static_cast<std::size_t>(i)]);
  if (!(smallest > 1e-10 * scale))
    throw BadInput("the constraints of " + system + " at q0 = " + format(q0) + " do not determine the velocit" +
                   (m == 1 ? "y" : "ies") + " of " + joined(left_out) + " from those of " + joined(named) +
                   " (their columns of M(q0) have the relative singular value " + format_residual(smallest / scale) +
                   "): name other velocities");
  const Eigen::VectorXd solved = svd.solve(right);
  for (Eigen::Index j = 0; j < m; ++j) v[dependent[static_cast<std::size_t>(j)]] = solved[j];
  return v;
}

}  // namespace dalembert::support
