#pragma once
// Runner of the rigid bodies on SO(3): `fim-lie` (FIM in body form with the Moser–Veselov L_d),
// and `rk4` / `reference` on the continuous body equations. CSV: t, the entries of g row by row
// (g11 … g33), energy = ½ΩᵀIΩ, constraint = |A(g)Ω|, newton_iterations, omega1..omega3 (the
// method's body angular velocity; for fim-lie that of p~), then the method's extra columns.
// Initial data: --q0 is g0 (9 numbers, row by row), --v0 is Ω0 (3 numbers).
#include "dalembert/io/observe.hpp"
#include "dalembert/io/runners/momentum_energy.hpp"
#include "dalembert/method/momentum_energy_lie.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/reference.hpp"

namespace dalembert {

namespace detail {

template <RigidBodySystem B, class Method>
RunResult observe_rigid_body_run(const B& body, const Method& method, typename Method::State state,
                                 const RunOptions& options, const std::string& method_name) {
  using State = typename Method::State;
  RunResult result;
  auto& sum = result.summary;
  sum.system = std::string(B::name);
  sum.method = method_name;
  sum.h = options.h;
  std::vector<std::string> columns{"t"};
  for (const auto& c : rotation_matrix_coordinates) columns.emplace_back(c);
  columns.insert(columns.end(), {"energy", "constraint", "newton_iterations", "omega1", "omega2", "omega3"});
  if constexpr (HasExtraColumns<Method>)
    for (const auto& c : Method::extra_columns) columns.emplace_back(c);
  RunRecorder recorder(result, std::move(columns), options, false);

  std::vector<double> row(recorder.width());
  const long k_start = state.k;
  const auto record = [&](const State& s) {
    const Vecd<3> omega = method.velocity(s);
    if (!s.g.allFinite() || !omega.allFinite())  // the state not finite ends the run, even if E is
      throw NonFiniteDiagnostics(s.k, s.t, std::string(s.g.allFinite() ? "the angular velocity" : "the attitude") +
                                               " is not finite");
    const double E = energy(body, s.g, omega);
    const double c = constraint_residual(body, s.g, omega);
    std::size_t i = 0;
    row[i++] = options.t0 + s.t;
    for (int r = 0; r < 3; ++r)
      for (int c2 = 0; c2 < 3; ++c2) row[i++] = s.g(r, c2);
    row[i++] = E;
    row[i++] = c;
    row[i++] = s.iterations;
    for (int j = 0; j < 3; ++j) row[i++] = omega[j];
    if constexpr (HasExtraColumns<Method>)
      for (double x : method.extra_values(s)) row[i++] = x;
    recorder.add(s.k, row, E, c, 0.0, s.iterations, s.k > k_start);
    recorder.parasitic_mode_of(method, s, s.k > k_start);
  };

  recorder.record([&] { integrate(method, state, options.steps - state.k, record); });
  return result;
}

}  // namespace detail

namespace runners {

struct RigidBody {
  static std::vector<std::string> names() { return {"fim-lie", "rk4", "reference"}; }

  template <class S>
  static constexpr bool supports() {
    return RigidBodySystem<S>;
  }

  template <RigidBodySystem B>
  static RunResult run(const B& body, const InitialData& init, const RunOptions& o) {
    if (init.q1) throw BadOption("q1", "rigid bodies start from (g0, Omega0) only");
    if (init.q0.size() != 9 || init.v0.size() != 3)
      throw BadInput("rigid bodies take q0 with 9 numbers (g0 row by row) and v0 with 3 (Omega0)");
    const Matd<3, 3> g0 = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(init.q0.data());
    const Vecd<3> omega0 = init.v0;
    if (o.method == "fim-lie") {
      if (o.rule != "alpha" || o.alpha != 0.5)
        throw BadOption(o.rule != "alpha" ? "rule" : "alpha",
                        "does not apply to fim-lie, which uses the Moser-Veselov discrete Lagrangian");
      const RigidBodyMomentumEnergy<B> method(body, o.h, parse_fim_start(o.fim_start), o.newton);
      return detail::observe_rigid_body_run(body, method, method.initial_state(g0, omega0), o, o.method);
    }
    if (o.method == "rk4") {
      const RungeKutta4<B> method(body, o.h);
      return detail::observe_rigid_body_run(body, method, method.initial_state(g0, omega0), o, o.method);
    }
    const ReferenceSolver<B> method(body, o.h, o.reference_tolerance);
    return detail::observe_rigid_body_run(body, method, method.initial_state(g0, omega0), o, o.method);
  }
};

}  // namespace runners

}  // namespace dalembert
