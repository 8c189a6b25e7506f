// Catalogue entry `knife-edge-chain`: N skates joined by springs (models/knife_edge_chain.hpp), N
// chosen at run time (--param N=1000), stepped by the midpoint DLA with sparse Newton
// (method/knife_edge_chain_dla.hpp). Only `dla` runs on it: the other methods are templates over
// compile-time sizes (from C++, models::KnifeEdgeChain<N> runs every method for small N).
#include <cmath>
#include <string>

#include "catalogue/make_entry.hpp"
#include "dalembert/io/recorder.hpp"
#include "dalembert/method/knife_edge_chain_dla.hpp"

namespace dalembert::catalogue {

namespace {

constexpr const char* chain_name = "knife-edge-chain";
constexpr int max_skates = 100000;

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

std::vector<std::string> chain_coordinates(int N) {
  std::vector<std::string> names;
  for (int i = 1; i <= N; ++i)
    for (const char* c : {"x", "y", "phi"}) names.push_back(c + std::to_string(i));
  return names;
}

SystemDescription describe_chain(const ParameterValues& values) {
  const ChainSetup c = configure_chain(values);
  const auto& p = c.parameters;
  SystemDescription d;
  d.name = chain_name;
  d.summary =
      "chain of N knife edges joined by springs: L = sum m/2 (x_i'^2 + y_i'^2) + J/2 phi_i'^2 - V, "
      "V = sum k/2 ((x_{i+1} - x_i - l)^2 + (y_{i+1} - y_i)^2) + kappa/2 (phi_{i+1} - phi_i)^2, "
      "blade i along (cos phi_i, sin phi_i); N at run time, dla only (sparse Newton)";
  d.coordinates = chain_coordinates(c.skates);
  d.parameters = {{"N", static_cast<double>(c.skates), "number of skates (3N coordinates)"},
                  {"m", p.mass, "mass of each skate"},
                  {"J", p.inertia, "moment of inertia of each skate about its vertical axis"},
                  {"k", p.spring, "stiffness of the springs between neighbouring skates"},
                  {"kappa", p.torsion, "stiffness of the torsional springs between headings"},
                  {"l", p.length, "rest offset along x between neighbours"}};
  d.constraints = c.skates;
  Eigen::VectorXd q0, v0;
  models::knife_edge_chain_initial(c.skates, p, q0, v0);
  d.q0.assign(q0.data(), q0.data() + q0.size());
  d.v0.assign(v0.data(), v0.data() + v0.size());
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
  if (!(o.h > 0) || !std::isfinite(o.h)) throw BadInput("step size h must be a positive number");
  if (o.steps < 0) throw BadInput("number of steps must not be negative");
  if (o.every < 1) throw BadInput("--every must be at least 1");
  if (o.method != "dla")
    throw BadInput("method " + o.method + " does not apply to system " + chain_name +
                   ": its number of skates is chosen at run time, and only dla (midpoint, sparse Newton) runs on it");
  if (o.alpha != 0.5 || o.rule != "alpha")
    throw BadInput(std::string("system ") + chain_name + " runs the midpoint dla only (alpha = 0.5, rule alpha)");
  if (init.z0) throw BadInput(std::string("--z0 is the action variable of a contact system; ") + chain_name + " is not one");

  Eigen::VectorXd q0, v0;
  models::knife_edge_chain_initial(N, c.parameters, q0, v0);
  const bool default_v0 = init.v0.size() == 0;
  if (init.q0.size()) check_chain_size("--q0", init.q0, N), q0 = init.q0;
  if (!default_v0) check_chain_size("--v0", init.v0, N), v0 = init.v0;
  const KnifeEdgeChainDla dla(N, c.parameters, o.h, KnifeEdgeChainDla::Linear::sparse, o.newton);

  KnifeEdgeChainDla::State state;
  std::optional<Eigen::VectorXd> first_velocity;  // the row at k = 0 of a two-point start
  if (init.q1) {
    if (o.steps < 1) throw BadInput("a two-point start (--q1) needs at least one step");
    check_chain_size("--q1", *init.q1, N);
    const double w = dla.discrete_constraint(q0, *init.q1);
    if (w > 1e-10 * (1.0 + ((*init.q1 - q0) / o.h).lpNorm<Eigen::Infinity>()))
      throw BadInput(std::string("(q0, q1) violates the discrete constraint of ") + chain_name +
                     ": |omega(q0, q1)| = " + std::to_string(w) + " (tolerance 1e-10)");
    first_velocity = dla.velocity_of(q0, dla.pre_momentum(q0, *init.q1));
    state = dla.initial_state_two_point(q0, *init.q1);
  } else {
    const double residual = dla.constraint_residual(q0, v0);
    if (residual > 1e-10 * (1.0 + v0.lpNorm<Eigen::Infinity>()))
      throw BadInput("v0 = " + detail::format_vector(v0) + " violates the constraints of " + chain_name + " at q0 = " +
                     detail::format_vector(q0) + ": |M(q0) v0| = " + std::to_string(residual) +
                     (default_v0 ? " (v0 is the default; pass --v0 with a velocity in D)" : ""));
    state = dla.initial_state(q0, v0);
  }

  RunResult result;
  result.summary.system = chain_name;
  result.summary.method = "dla";
  result.summary.h = o.h;
  std::vector<std::string> columns{"t"};
  for (auto& name : chain_coordinates(N)) columns.push_back(std::move(name));
  columns.insert(columns.end(), {"energy", "constraint", "discrete_constraint", "newton_iterations"});
  RunRecorder recorder(result, std::move(columns), o.every, true);
  std::vector<double> row(recorder.width());
  const auto record = [&](long k, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v, double discrete,
                          int iterations, bool stepped) {
    const double E = dla.energy(q, v), residual = dla.constraint_residual(q, v);
    std::size_t i = 0;
    row[i++] = t;
    for (Eigen::Index j = 0; j < q.size(); ++j) row[i++] = q[j];
    row[i++] = E;
    row[i++] = residual;
    row[i++] = discrete;
    row[i++] = iterations;
    recorder.add(k, row, E, residual, discrete, iterations, stepped);
  };
  try {
    if (first_velocity) record(0, 0.0, q0, *first_velocity, 0.0, 0, false);
    record(state.k, state.t, state.q, dla.velocity(state), state.discrete_constraint, 0, false);
    while (state.k < o.steps) {
      dla.step(state);
      record(state.k, state.t, state.q, dla.velocity(state), state.discrete_constraint, state.iterations, true);
    }
  } catch (const SolverError& e) {
    recorder.fail(e.what());
  } catch (const NonFiniteDiagnostics& e) {
    recorder.fail(e.what(), "non-finite");
  }
  recorder.finish();
  return result;
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
