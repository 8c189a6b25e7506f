// Catalogue entry `knife-edge-chain`: N skates joined by springs (models/knife_edge_chain.hpp), N
// chosen at run time (--param N=1000). Every method runs on it. All but exact assemble their
// derivatives term by term into sparse matrices (model/local_terms.hpp) and take any N; exact
// differentiates the whole system densely and is refused above a size where a step would take
// seconds.
#include <cmath>
#include <string>

#include "catalogue/make_entry.hpp"
#include "dalembert/models/knife_edge_chain.hpp"

namespace dalembert::catalogue {

namespace {

constexpr const char* chain_name = "knife-edge-chain";
constexpr int max_skates = 100000;
/// The largest chain `exact` takes: it shoots along the whole system's flow, differentiated densely,
/// at a cost that grows with a power of N (5 and more); a step at this N takes a fraction of a
/// second (docs/decisions.md, Large systems). Every other method assembles its steps term by term, at
/// any N.
constexpr int largest_exact_chain = 3;

struct ChainSetup {
  int skates = 2;
  models::KnifeEdgeChainParameters parameters;
};

ChainSetup configure_chain(const ParameterValues& values) {
  ChainSetup c;
  auto& p = c.parameters;
  for (const auto& [name, value] : values) {
    if (!std::isfinite(value)) throw BadInput("parameter " + name + " must be a finite number");
    if (name == "N") {
      if (value != std::floor(value) || value < 1 || value > max_skates)
        throw BadInput("parameter N (the number of skates) must be a whole number from 1 to " +
                       std::to_string(max_skates) + ", got " + detail::format_vector(Eigen::VectorXd::Constant(1, value)));
      c.skates = static_cast<int>(value);
    } else if (name == "m") p.mass = value;
    else if (name == "J") p.inertia = value;
    else if (name == "k") p.spring = value;
    else if (name == "kappa") p.torsion = value;
    else if (name == "l") p.length = value;
    else throw BadInput("unknown parameter '" + name + "' for system " + chain_name + " (known: N, m, J, k, kappa, l)");
  }
  if (!(p.mass > 0) || !(p.inertia > 0))
    throw BadInput(std::string("parameters m and J of system ") + chain_name + " must be positive (a regular metric)");
  return c;
}

SystemDescription describe_chain(const ParameterValues& values) {
  const ChainSetup c = configure_chain(values);
  const models::KnifeEdgeChain chain(c.skates, c.parameters);
  const auto& p = c.parameters;
  SystemDescription d;
  d.name = chain_name;
  d.summary = std::string(chain.summary());
  d.coordinates = chain.coordinate_names();
  for (const auto& name : d.coordinates) d.velocities.push_back(velocity_column(name));
  d.parameters = {{"N", static_cast<double>(c.skates), "number of skates (3N coordinates)"},
                  {"m", p.mass, "mass of each skate"},
                  {"J", p.inertia, "moment of inertia of each skate about its vertical axis"},
                  {"k", p.spring, "stiffness of the springs between neighbouring skates"},
                  {"kappa", p.torsion, "stiffness of the torsional springs between headings"},
                  {"l", p.length, "rest offset along x between neighbours"}};
  d.constraints = c.skates;
  const auto x0 = chain.default_initial();
  d.q0.assign(x0.q.data(), x0.q.data() + x0.q.size());
  d.v0.assign(x0.v.data(), x0.v.data() + x0.v.size());
  return d;
}

void check_chain_size(const char* option, const Eigen::VectorXd& x, int N) {
  if (x.size() != 3 * N)
    throw BadInput(std::string(option) + " has " + std::to_string(x.size()) + " value(s) but system " + chain_name +
                   " with N = " + std::to_string(N) + " skates has " + std::to_string(3 * N) +
                   " coordinates (x1, y1, phi1, ..., xN, yN, phiN)");
}

RunResult run_chain(const ParameterValues& values, InitialData init, const RunOptions& o) {
  const ChainSetup c = configure_chain(values);
  const int N = c.skates;
  if (o.method == "exact" && N > largest_exact_chain)
    throw BadInput("method exact differentiates system " + std::string(chain_name) +
                   " as a whole, at a cost that grows with a power of N: N = " + std::to_string(N) +
                   " is above its limit of " + std::to_string(largest_exact_chain) +
                   " skates (every other method takes any N)");
  if (init.z0) throw BadInput(std::string("--z0 is the action variable of a contact system; ") + chain_name + " is not one");
  const models::KnifeEdgeChain chain(N, c.parameters);
  const auto x0 = chain.default_initial();
  const bool default_v0 = init.v0.size() == 0;
  if (init.q0.size()) check_chain_size("--q0", init.q0, N); else init.q0 = x0.q;
  if (!init.v0_names.empty()) detail::complete_initial_velocity(chain, chain.coordinate_names(), init);
  else if (!default_v0) check_chain_size("--v0", init.v0, N); else init.v0 = x0.v;
  if (init.q1) check_chain_size("--q1", *init.q1, N);
  const Eigen::VectorXd given_v0 = init.v0;
  detail::project_initial_velocity(chain, init);
  if (!init.q1) {
    const double residual = constraint_residual(chain, init.q0, init.v0);
    if (residual > 1e-10 * (1.0 + init.v0.lpNorm<Eigen::Infinity>()))
      throw BadInput("v0 = " + detail::format_vector(init.v0) + " violates the constraints of " + chain_name +
                     " at q0 = " + detail::format_vector(init.q0) + ": |M(q0) v0| = " + format_residual(residual) +
                     (default_v0 ? " (v0 is the default; pass --v0 with a velocity in D)" : ""));
  }
  return detail::with_projection(run(chain, init, o), given_v0, init);
}

}  // namespace

Entry knife_edge_chain_entry() {
  Entry e;
  e.name = chain_name;
  e.describe = describe_chain;
  e.run = run_chain;
  e.exact = [](const ParameterValues& values, InitialData, double) -> std::optional<Eigen::VectorXd> {
    configure_chain(values);  // no closed form, but bad parameters are still named
    return std::nullopt;
  };
  return e;
}

}  // namespace dalembert::catalogue
