// The run layer behind the command line: columns, thinning, summaries, two-point starts, failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <span>

#include <unistd.h>

#include "catalogue/catalogue.hpp"
#include "dalembert/io/method_descriptions.hpp"
#include "dalembert/io/monitors.hpp"
#include "dalembert/io/run.hpp"
#include "dalembert/models/contact_systems.hpp"
#include "dalembert/models/curvature_particle.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/rigid_bodies.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "modelfile/layout_text.hpp"
#include "modelfile/native.hpp"
#include "support/process.hpp"

using namespace dalembert;
namespace fs = std::filesystem;

namespace {
RunOptions options(const std::string& method, double h, long steps) {
  RunOptions o;
  o.method = method;
  o.h = h;
  o.steps = steps;
  return o;
}

// A stand-in method that fails at step 5.
struct Failing {
  struct State {
    long k = 0;
    double t = 0.0;
    Vecd<3> q;
    int iterations = 2;
  };
  double step_size() const { return 0.1; }
  models::NonholonomicParticle system() const { return {}; }
  void step(State& s) const {
    if (s.k == 4) throw SolverError(5, 0.5, NewtonReport{false, 30, 1.5e-3, "no convergence"});
    s.k += 1;
    s.t += 0.1;
  }
  Vecd<3> velocity(const State&) const { return Vecd<3>(0.3, 0.7, 0.15); }
};

// A stand-in method whose second coordinate becomes NaN at step 3 while its velocity and the
// particle's energy stay finite (the energy does not depend on the position without a potential).
struct LosingItsPosition {
  struct State {
    long k = 0;
    double t = 0.0;
    Vecd<3> q;
    int iterations = 1;
  };
  double step_size() const { return 0.1; }
  models::NonholonomicParticle system() const { return {}; }
  void step(State& s) const {
    s.k += 1;
    s.t += 0.1;
    if (s.k == 3) s.q[1] = std::nan("");
  }
  Vecd<3> velocity(const State&) const { return Vecd<3>(0.3, 0.7, 0.15); }
};

// A row sink that keeps what it is given, and asks the run to stop at a given step.
struct KeepingSink final : RowSink {
  std::vector<std::string> columns;
  std::vector<long> steps;
  std::vector<double> values;
  int begun = 0;
  long stop_at = -1;
  std::atomic<int> stop{0};
  void begin(const std::vector<std::string>& c) override {
    columns = c;
    ++begun;
  }
  void row(long k, std::span<const double> v) override {
    steps.push_back(k);
    values.insert(values.end(), v.begin(), v.end());
    if (k == stop_at) stop = SIGINT;
  }
};
}  // namespace

TEST(Run, ColumnsFollowTheContract) {
  const auto r = catalogue::find("vertical-disk").run({}, {}, options("dla", 0.1, 10));
  const std::vector<std::string> expected = {"t",
                                             "x",
                                             "y",
                                             "theta",
                                             "phi",
                                             "x_t",
                                             "y_t",
                                             "theta_t",
                                             "phi_t",
                                             "energy",
                                             "constraint",
                                             "discrete_constraint",
                                             "newton_iterations",
                                             "p_x",
                                             "p_y",
                                             "p_theta",
                                             "p_phi",
                                             "lambda_1",
                                             "lambda_2"};
  EXPECT_EQ(r.trajectory.columns, expected);
  EXPECT_EQ(r.trajectory.rows(), 11u);
  EXPECT_DOUBLE_EQ(r.trajectory.at(10, 0), 1.0);
  EXPECT_EQ(r.summary.steps, 10);
  EXPECT_FALSE(r.failed());
  // the velocity of the constrained momentum lies in D: the continuous residual is round-off
  EXPECT_LT(r.summary.max_constraint_residual, 1e-13);
  EXPECT_LT(*r.summary.max_discrete_constraint, 1e-12);
}

namespace {
/// The continuous multiplier λ(q, v) of the particle with potential c = 1 at row `row` of a run.
double continuous_multiplier(const Trajectory& t, std::size_t row) {
  models::NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  Vecd<3> q, v;
  for (int i = 0; i < 3; ++i) {
    q[i] = t.at(row, 1 + i);
    v[i] = t.at(row, 4 + i);
  }
  return constrained_acceleration(particle, q, v, 0.0).multiplier[0];
}
}  // namespace

TEST(Run, VelocityMomentumAndMultiplierColumnsAreTheMethods) {
  // The velocity columns give the energy column: E = ½|v|² + (x² + y²) for the particle with c = 1.
  const auto r = catalogue::find("particle").run({{"potential", 1.0}}, {}, options("dla", 0.1, 50));
  const auto& t = r.trajectory;
  ASSERT_EQ(t.column("x_t"), 4u);
  for (std::size_t k = 0; k < t.rows(); ++k) {
    const double x = t.at(k, 1), y = t.at(k, 2), vx = t.at(k, 4), vy = t.at(k, 5), vz = t.at(k, 6);
    EXPECT_NEAR(t.at(k, t.column("energy")), 0.5 * (vx * vx + vy * vy + vz * vz) + x * x + y * y, 1e-14);
    // M(q) v = ż − y ẋ = 0: the velocity of the constrained momentum lies in D
    EXPECT_NEAR(vz - y * vx, 0.0, 1e-14);
    // The metric is the identity: the momentum's components on D are the velocity's.
    const double px = t.at(k, t.column("p_x")), py = t.at(k, t.column("p_y")), pz = t.at(k, t.column("p_z"));
    EXPECT_NEAR((px + y * pz) / (1 + y * y), vx, 1e-14);
    EXPECT_EQ(py, vy);
  }
  // λ on row k estimates the continuous multiplier at t_{k−1}, with its sign, to O(h²).
  EXPECT_TRUE(std::isnan(t.at(0, t.column("lambda_1"))));  // no step yet
  std::vector<double> errors;
  for (const double h : {0.1, 0.05, 0.025}) {
    const long to_one = std::lround(1.0 / h);
    const auto run = catalogue::find("particle").run({{"potential", 1.0}}, {}, options("dla", h, to_one + 1));
    const double lambda = run.trajectory.at(to_one + 1, run.trajectory.column("lambda_1"));
    const double exact = continuous_multiplier(run.trajectory, to_one);  // at t = 1 on the method's trajectory
    errors.push_back(std::abs(lambda - exact));
    EXPECT_LT(errors.back(), 0.05 * std::abs(exact)) << h;  // λ(t = 1) = −0.049: a wrong sign is far off
  }
  std::printf("[ measured ] dla lambda_1 at t = 1 against the continuous multiplier: %.3g, %.3g, %.3g at h = "
              "0.1, 0.05, 0.025\n",
              errors[0], errors[1], errors[2]);
  EXPECT_NEAR(std::log2(errors[0] / errors[1]), 2.0, 0.1);
  EXPECT_NEAR(std::log2(errors[1] / errors[2]), 2.0, 0.1);
  // Continuous methods carry neither: rk4 has the velocity columns only.
  const auto rk4 = catalogue::find("particle").run({}, {}, options("rk4", 0.1, 1));
  EXPECT_THROW(rk4.trajectory.column("p_x"), std::out_of_range);
  EXPECT_THROW(rk4.trajectory.column("lambda_1"), std::out_of_range);
  EXPECT_EQ(rk4.trajectory.column("z_t"), 6u);
}

// Every family states the minimum API of a method (method/integrate.hpp), on each kind of system it
// runs on; the two-step ones also start from (q0, q1). A family that lost a part fails to compile here.
namespace method_api {
using models::ContactParticle;
using models::CurvatureParticle;
using models::NonholonomicParticle;
using models::Pendulum;
using models::Suslov;
template <class S>
const S& a() { static const S s{}; return s; }
using Particle = NonholonomicParticle;
using DLA = decltype(make_dla(a<Particle>(), 0.1));
using MLA = decltype(make_midpoint_mla(a<Particle>(), 0.1));
using DEL = DiscreteEulerLagrange<Pendulum, AlphaRule<Pendulum>>;
static_assert(Method<DLA> && Method<MLA> && Method<DEL>);
static_assert(Method<decltype(make_gf(a<Particle>(), 0.1))> && Method<decltype(make_gf_sym(a<Particle>(), 0.1))> &&
              Method<decltype(make_gf_cp(a<Particle>(), 0.1))> && Method<decltype(make_fim(a<Particle>(), 0.1))>);
static_assert(Method<McLachlanPerlmutter<Particle>> && Method<DiscreteGradient<Particle>> && Method<Spark<Particle>>);
static_assert(Method<ExactDiscreteFlow<Particle>> && Method<RungeKutta4<Particle>> &&
              Method<ReferenceSolver<Particle>>);
static_assert(Method<decltype(make_thesis_herglotz(a<ContactParticle>(), 0.1))> &&
              Method<RungeKutta4<ContactParticle>> && Method<ReferenceSolver<ContactParticle>>);
static_assert(Method<RigidBodyMomentumEnergy<Suslov>> && Method<RungeKutta4<Suslov>> &&
              Method<ReferenceSolver<Suslov>>);
static_assert(Method<decltype(make_dsocs(a<CurvatureParticle>(), 0.1))> &&
              Method<ReferenceSolver<CurvatureParticle>>);
static_assert(TwoStepMethod<DLA, VecN<Particle>> && TwoStepMethod<MLA, VecN<Particle>> &&
              TwoStepMethod<DEL, VecN<Pendulum>> && TwoStepMethod<ExactDiscreteFlow<Particle>, VecN<Particle>>);
static_assert(!TwoStepMethod<RungeKutta4<Particle>, VecN<Particle>>);
}  // namespace method_api

TEST(Run, EveryMethodHasADescription) {
  const auto names = method_names();
  ASSERT_EQ(names.size(), method_descriptions.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(names[i], method_descriptions[i].name);
    EXPECT_FALSE(method_descriptions[i].summary.empty());
    EXPECT_FALSE(method_descriptions[i].systems.empty());
  }
}

TEST(Run, EveryKeepsEveryKthRowAndTheLast) {
  const auto r = catalogue::find("particle").run({}, {}, options("rk4", 0.1, 10));
  auto o = options("rk4", 0.1, 10);
  o.every = 3;
  const auto thin = catalogue::find("particle").run({}, {}, o);
  ASSERT_EQ(thin.trajectory.rows(), 5u);  // k = 0, 3, 6, 9 and the last, 10
  for (std::size_t c = 0; c < r.trajectory.columns.size(); ++c) {
    EXPECT_EQ(thin.trajectory.at(1, c), r.trajectory.at(3, c));
    EXPECT_EQ(thin.trajectory.at(4, c), r.trajectory.at(10, c));
  }
  // the summary still covers every step
  EXPECT_EQ(thin.summary.max_energy_error, r.summary.max_energy_error);
}

TEST(Run, TwoPointStartFollowsThePapers) {
  // thesis Ex. 7.5.1: q0 = 0, q1 = (0.4, 0.4, 0.08) on the midpoint discrete constraint, h = 0.5.
  InitialData init;
  init.q0 = Eigen::Vector3d::Zero();
  init.q1 = Eigen::Vector3d(0.4, 0.4, 0.08);
  const auto r = catalogue::find("particle").run({}, init, options("dla", 0.5, 4));
  ASSERT_EQ(r.trajectory.rows(), 5u);
  EXPECT_DOUBLE_EQ(r.trajectory.at(1, 1), 0.4);
  EXPECT_DOUBLE_EQ(r.trajectory.at(2, 2), 0.8);  // y2 = 2 y1 − y0
  // the velocity at k = 0 is that of −D1 L_d(q0, q1), here (0.8, 0.8, 0) projected on D_0 = {ż = 0}
  EXPECT_NEAR(r.trajectory.at(0, r.trajectory.column("energy")), 0.5 * (0.64 + 0.64), 1e-14);

  init.q1 = Eigen::Vector3d(0.4, 0.4, 0.5);  // off the discrete constraint
  EXPECT_THROW(catalogue::find("particle").run({}, init, options("dla", 0.5, 4)), BadInput);
}

TEST(Run, BadInputIsRejectedWithItsName) {
  const auto& particle = catalogue::find("particle");
  EXPECT_THROW(catalogue::find("no-such-system"), BadInput);
  EXPECT_THROW(particle.run({{"mass", 1.0}}, {}, options("dla", 0.1, 1)), BadInput);
  EXPECT_THROW(particle.run({}, {}, options("no-such-method", 0.1, 1)), BadInput);
  EXPECT_THROW(particle.run({}, {}, options("del", 0.1, 1)), BadInput);  // del ignores constraints
  InitialData off_d;
  off_d.v0 = Eigen::Vector3d(1.0, 0.0, 0.0);  // ż ≠ y ẋ at the default q0 = (1, 0.5, 0)
  try {
    particle.run({}, off_d, options("dla", 0.1, 1));
    FAIL() << "expected BadInput";
  } catch (const BadInput& e) {
    EXPECT_NE(std::string(e.what()).find("violates the constraints"), std::string::npos);
  }
}

TEST(Run, SolverFailureKeepsTheCompletedSteps) {
  // A method that fails at step 5: rows 0..4 are kept and the summary says what happened.
  const models::NonholonomicParticle particle;
  Failing::State s;
  s.q = particle.default_initial().q;
  const auto r = detail::observe_run(particle, Failing{}, s, options("failing", 0.1, 10), "failing", std::nullopt);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.summary.status, "solver-failure");
  EXPECT_EQ(r.summary.steps, 4);
  EXPECT_EQ(r.trajectory.rows(), 5u);
  EXPECT_NE(r.summary.message.find("step 5"), std::string::npos);
  EXPECT_EQ(r.summary.newton_iterations_max, 2);
}

TEST(Run, AStateThatIsNotFiniteEndsTheRunNamingIt) {
  // Runs of gf ended with exit 0 and a coordinate column that was not a number: the energy and the
  // constraint residual were finite. Every coordinate and velocity is checked on every row.
  const models::NonholonomicParticle particle;
  LosingItsPosition::State s;
  s.q = particle.default_initial().q;
  const auto r = detail::observe_run(particle, LosingItsPosition{}, s, options("losing", 0.1, 10), "losing", std::nullopt);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.summary.status, "non-finite");
  EXPECT_EQ(r.summary.steps, 2);
  EXPECT_EQ(r.trajectory.rows(), 3u);  // the rows before it
  EXPECT_EQ(r.summary.message, "the coordinate y is nan at step 3 (t = 0.300000)");
}

TEST(Run, RowsGoToTheSinkAsTheyComeAndAreNotStored) {
  // The rows a sink receives are those the trajectory holds without it, every K-th and the last.
  for (const std::string system : {"particle", "suslov"}) {
    auto o = options(system == "particle" ? "dla" : "fim-lie", 0.1, 100);
    o.every = 7;
    const auto& entry = catalogue::find(system);
    const auto stored = entry.run({}, {}, o);
    KeepingSink sink;
    o.rows = &sink;
    const auto streamed = entry.run({}, {}, o);
    EXPECT_EQ(sink.begun, 1) << system;
    EXPECT_EQ(sink.columns, stored.trajectory.columns) << system;
    EXPECT_EQ(streamed.trajectory.columns, stored.trajectory.columns) << system;
    EXPECT_TRUE(streamed.trajectory.values.empty()) << system;
    // bit for bit (dla's first multiplier is NaN: compared as bits)
    ASSERT_EQ(sink.values.size(), stored.trajectory.values.size()) << system;
    EXPECT_EQ(std::memcmp(sink.values.data(), stored.trajectory.values.data(), sink.values.size() * sizeof(double)), 0)
        << system;
    EXPECT_EQ(sink.steps.back(), 100) << system;
    EXPECT_EQ(sink.steps.size(), 16u) << system;  // k = 0, 7, ..., 98 and 100
    EXPECT_EQ(streamed.summary.max_energy_error, stored.summary.max_energy_error) << system;
  }
}

TEST(Run, AStopRequestEndsTheRunAfterTheCurrentStep) {
  // RunOptions::stop, set (as by a signal) while step 37 is recorded: the run ends after it,
  // with status "interrupted", the rows up to it kept and the last row written although --every
  // skips it.
  for (const std::string system : {"chaplygin-sleigh", "suslov"}) {
    auto o = options(system == "chaplygin-sleigh" ? "mla" : "rk4", 0.05, 1000);
    KeepingSink sink;
    sink.stop_at = 35;
    o.every = 5;
    o.rows = &sink;
    o.stop = &sink.stop;
    const auto r = catalogue::find(system).run({}, {}, o);
    EXPECT_EQ(r.summary.status, "interrupted") << system;
    EXPECT_TRUE(r.failed());
    EXPECT_EQ(r.summary.steps, 35) << system;
    EXPECT_EQ(r.summary.message, "stopped by SIGINT after step 35 (t = 1.750000)") << system;
    EXPECT_EQ(sink.steps.back(), 35) << system;
    EXPECT_EQ(sink.steps.size(), 8u) << system;  // k = 0, 5, ..., 35
  }
}

TEST(Run, EveryCatalogueSystemDescribesAndRunsEveryApplicableMethod) {
  for (const auto& e : catalogue::entries()) {
    const auto d = e.describe({});
    EXPECT_EQ(d.name, e.name);
    EXPECT_EQ(d.q0.size(), d.coordinates.size());
    const bool contact = d.z0.has_value();
    for (const auto& m : method_names()) {
      if (m == "del" && d.constraints > 0) continue;
      RunResult r;
      try {
        r = e.run({}, {}, options(m, 0.05, 20));
      } catch (const BadInput& error) {
        // methods for another kind of system (fim-lie on R^n, dla on SO(3) or on a contact system,
        // herglotz on a Lagrange–d'Alembert system) and methods that need a metric (gf-cp, fim on a
        // general Lagrangian) or no constraints (exact for contact systems) are refused with a
        // message naming the system
        EXPECT_NE(std::string(error.what()).find("system " + e.name), std::string::npos) << error.what();
        continue;
      }
      EXPECT_FALSE(r.failed()) << e.name << " " << m << ": " << r.summary.message;
      EXPECT_TRUE(r.summary.warnings.empty()) << e.name << " " << m << ": " << r.summary.warnings.front().message;
      EXPECT_EQ(r.trajectory.rows(), 21u) << e.name << " " << m;
      if (contact) {  // dissipative: E = E0 e^{γt}, γ = −0.05 in every contact system of the catalogue; over
                      // t = 1 the discrete energy's O(h²) oscillation moves the fitted rate of the thesis'
                      // rule by up to 2.2e-3 (damped oscillator), the continuous methods are within 1e-7
        ASSERT_TRUE(r.summary.energy_decay_rate.has_value()) << e.name << " " << m;
        EXPECT_NEAR(*r.summary.energy_decay_rate, -0.05, m == "herglotz" ? 3e-3 : 1e-6) << e.name << " " << m;
      } else if (d.name != "inertia-wheel-pendulum") {  // controlled: its energy is not conserved
        EXPECT_LT(r.summary.max_energy_error, 1e-2) << e.name << " " << m;
      }
    }
  }
}

// The compiler of a model file's kernels (modelfile/native.hpp): $DALEMBERT_CC if set, else cc, or
// clang for a generated source of 512 KB or more when clang is on PATH (the bicycle's 2.0 MB took
// gcc 92 s and clang 15 s; docs/decisions.md, Model kernels: cc, and clang for long sources).
TEST(ModelKernels, LongSourcesGoToClangWhenDalembertCcNamesNoCompiler) {
  const std::string chosen = support::environment("DALEMBERT_CC"), path = support::environment("PATH");
  ::unsetenv("DALEMBERT_CC");
  ASSERT_TRUE(support::found_on_path("clang"));  // scripts/install-deps.sh installs it
  EXPECT_EQ(modelfile::kernel_compiler(std::size_t{100} << 10), "cc");
  EXPECT_EQ(modelfile::kernel_compiler((std::size_t{512} << 10) - 1), "cc");
  EXPECT_EQ(modelfile::kernel_compiler(std::size_t{512} << 10), "clang");
  EXPECT_EQ(modelfile::kernel_compiler(std::size_t{2} << 20), "clang");
  ::setenv("PATH", "/nonexistent", 1);  // no clang on PATH: cc
  EXPECT_FALSE(support::found_on_path("clang"));
  EXPECT_EQ(modelfile::kernel_compiler(std::size_t{2} << 20), "cc");
  ::setenv("PATH", path.c_str(), 1);
  ::setenv("DALEMBERT_CC", "gcc -O1", 1);
  EXPECT_EQ(modelfile::kernel_compiler(100), "gcc -O1");
  EXPECT_EQ(modelfile::kernel_compiler(std::size_t{2} << 20), "gcc -O1");
  if (chosen.empty()) {
    ::unsetenv("DALEMBERT_CC");
  } else {
    ::setenv("DALEMBERT_CC", chosen.c_str(), 1);
  }
  EXPECT_TRUE(support::found_on_path("/bin/sh"));
  EXPECT_FALSE(support::found_on_path("/nonexistent/clang"));
  EXPECT_FALSE(support::found_on_path("/tmp"));  // a folder is not a program
  EXPECT_FALSE(support::found_on_path(""));
}

// A model's layout as the model cache records it (modelfile/layout_text.hpp): every field written
// and read back, and a text that is not exactly what was written refused.
TEST(ModelKernels, ALayoutIsReadBackFromItsTextAndNothingElse) {
  using modelfile::TaylorTerms;
  const auto terms = [](int offset, int shift) {
    return TaylorTerms{offset, {shift, shift + 1}, {{shift, shift + 2}}, {{shift, shift + 1, shift + 3}}};
  };
  modelfile::Layout l;
  l.n = 3, l.m = 2, l.contact = true, l.lagrangian = terms(0, 1), l.lagrangian_size = 7;
  l.constraints = {{1, 2, terms(0, 0)}, {0, 1, terms(6, 2)}};
  l.constraint_offsets = {{1, 3, terms(12, 1)}};
  l.constraint_offset_rates = {{1, 4, terms(18, 0)}};
  l.constraint_offsets_depend_on_time = true;
  l.holonomic = {{1, 5, terms(24, 2)}};
  l.constraints_size = 30, l.mechanical = true, l.metric = {{0, 0, terms(0, 1)}};
  l.constant_metric = true, l.potential = terms(6, 0), l.mechanics_size = 12;
  l.force = {terms(0, 0), terms(6, 1), terms(12, 2)};
  l.force_size = 18, l.force_depends_on_time = true, l.derived = 4, l.lagrangian_depends_on_time = true;
  l.has_solution = true, l.solution_conditions = 2;
  const std::string text = modelfile::layout_text(l);
  const auto read = modelfile::read_layout_text(text);
  ASSERT_TRUE(read);
  const auto same_terms = [](const TaylorTerms& a, const TaylorTerms& b) {
    return a.offset == b.offset && a.first == b.first && a.second == b.second && a.third == b.third;
  };
  const auto same_entries = [&](const auto& a, const auto& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [&](const auto& x, const auto& y) {
      return x.row == y.row && x.column == y.column && same_terms(x.terms, y.terms);
    });
  };
  const modelfile::Layout& r = *read;
  EXPECT_TRUE(r.n == 3 && r.m == 2 && r.contact && r.lagrangian_size == 7 && r.constraints_size == 30);
  EXPECT_TRUE(same_terms(r.lagrangian, l.lagrangian) && same_terms(r.potential, l.potential));
  EXPECT_TRUE(same_entries(r.constraints, l.constraints) && same_entries(r.constraint_offsets, l.constraint_offsets) &&
              same_entries(r.constraint_offset_rates, l.constraint_offset_rates) &&
              same_entries(r.holonomic, l.holonomic) && same_entries(r.metric, l.metric));
  EXPECT_TRUE(r.constraint_offsets_depend_on_time && r.mechanical && r.constant_metric && r.mechanics_size == 12);
  ASSERT_EQ(r.force.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(same_terms(r.force[i], l.force[i])) << i;
  EXPECT_TRUE(r.force_size == 18 && r.force_depends_on_time && r.derived == 4 && r.lagrangian_depends_on_time &&
              r.has_solution && r.solution_conditions == 2);
  EXPECT_EQ(modelfile::layout_text(modelfile::Layout{}), modelfile::layout_text(*modelfile::read_layout_text(
                                                           modelfile::layout_text(modelfile::Layout{}))));
  // Anything else: the text cut short anywhere, a field's name or a whole field taken out, a
  // negative, a boolean of 2, a count larger than the text, more after the end. (A number taken out
  // of a list may still read as a shorter list: the record's digest, not this, detects that.)
  for (std::size_t size = 0; size < text.size(); ++size)
    EXPECT_FALSE(modelfile::read_layout_text(text.substr(0, size))) << "cut at " << size;
  for (std::size_t a = 0; a < text.size(); a = text.find('\n', a) + 1) {
    const std::size_t name_end = text.find(' ', a), line_end = text.find('\n', a);
    for (const std::size_t b : {name_end, line_end + 1}) {
      std::string shorter = text;
      shorter.erase(a, b - a);
      EXPECT_FALSE(modelfile::read_layout_text(shorter)) << "without " << text.substr(a, b - a);
    }
  }
  const auto changed = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return modelfile::read_layout_text(t);
  };
  EXPECT_FALSE(changed("\nm 2\n", "\n"));
  EXPECT_FALSE(changed("\nm 2\n", "\nm -2\n"));
  EXPECT_FALSE(changed("\ncontact 1\n", "\ncontact 2\n"));
  EXPECT_FALSE(changed("\nforce 3 ", "\nforce 99999999 "));
  EXPECT_FALSE(modelfile::read_layout_text(text + "n 3\n"));
  EXPECT_FALSE(modelfile::read_layout_text(""));
}

// --- The monitors of a run's known failure modes (io/monitors.hpp) ---------------------------------

TEST(Warnings, GrowthMonitorReportsOnceBeyondBothBounds) {
  GrowthMonitor m(10, 100.0, 1e-6);
  for (long k = 0; k <= 10; ++k) EXPECT_FALSE(m.grew(k, k == 4 ? 1e-5 : 1e-7));  // the envelope: 1e-5
  EXPECT_EQ(m.envelope(), 1e-5);
  EXPECT_FALSE(m.grew(11, 0.99e-3));  // below 100 times the envelope
  EXPECT_TRUE(m.grew(12, 1.01e-3));
  EXPECT_FALSE(m.grew(13, 1.0));  // once
  GrowthMonitor tiny(10, 100.0, 1e-6);
  for (long k = 0; k <= 10; ++k) tiny.grew(k, 1e-12);
  EXPECT_FALSE(tiny.grew(11, 0.9e-6));  // 9e5 times the envelope, but below the floor
  EXPECT_FALSE(tiny.grew(12, std::nan("")));
  EXPECT_TRUE(tiny.grew(13, 1.1e-6));
}

TEST(Warnings, KnownFailureModesAreReported) {
  // The failure modes measured in docs/methods.md ("Failure modes and the run's warnings"), each
  // reported once by its monitor, at a step in the range where it shows, with that step in the message.
  struct Case {
    std::string system, method;
    double h;
    long steps;
    catalogue::ParameterValues parameters;
    std::vector<double> v0;
    std::string kind;
    long first, last;  ///< the step of the warning lies in [first, last]
  };
  const std::vector<Case> cases = {
      {"chaplygin-sleigh", "fim", 0.01, 10000, {}, {}, "parasitic-mode", 2000, 3500},
      {"chaplygin-sleigh", "fim", 0.01, 10000, {}, {}, "energy-growth", 2000, 3500},
      {"vertical-disk", "gf-cp", 0.025, 8000, {}, {1, 0, 1, 20}, "energy-growth", 3500, 5500},
      {"knife-edge", "gf", 0.1, 4000, {{"k", 2}, {"g", 0}, {"J", 0.5}}, {}, "energy-growth", 2000, 3000},
      {"knife-edge", "gf", 0.1, 4000, {{"k", 2}, {"g", 0}, {"J", 0.5}}, {}, "constraint-drift", 3200, 3999},
      {"rigid-body-attitude-constraint", "fim-lie", 0.1, 1000, {}, {}, "parasitic-mode", 300, 600},
      // energy errors as large as the energy's terms, some before the growth monitors see them
      {"chaplygin-sleigh", "fim", 0.01, 10000, {}, {}, "energy-error", 2500, 3500},
      {"vertical-disk", "gf-cp", 0.025, 8000, {}, {1, 0, 1, 20}, "energy-error", 2200, 2700},
      {"knife-edge", "gf", 0.1, 4000, {{"k", 2}, {"g", 0}, {"J", 0.5}}, {}, "energy-error", 400, 700},
      // no reversing symmetry: the knife edge drifts downhill, nearly at rest, E = -m g x; neither
      // growth monitor sees it in a run of 10^7 steps at h = 0.01 (docs/methods.md)
      {"perturbed-knife-edge", "gf", 0.1, 10000, {}, {}, "energy-error", 300, 800},
      // RK4 loses 23.6 % of E0 in its first steps, then keeps its energy: within the early window of
      // the growth monitors, below the quarter the energy-error monitor needed
      {"chaplygin-sleigh", "rk4", 0.45, 1000, {}, {1, 0, 5}, "energy-error", 2, 2},
      // GF on the knife edge: the energy falls to 0.80 E0 and back over 10^5 steps (docs/methods.md)
      {"knife-edge", "gf", 0.1, 10000, {}, {}, "energy-error", 100, 4000},
  };
  for (const auto& c : cases) {
    InitialData init;
    if (!c.v0.empty()) init.v0 = Eigen::Map<const Eigen::VectorXd>(c.v0.data(), static_cast<long>(c.v0.size()));
    const auto r = catalogue::find(c.system).run(c.parameters, init, options(c.method, c.h, c.steps));
    const std::string label = c.system + " " + c.method + " " + c.kind;
    EXPECT_FALSE(r.failed()) << label;  // a warning does not end the run
    const auto w = std::find_if(r.summary.warnings.begin(), r.summary.warnings.end(),
                                [&](const RunWarning& x) { return x.kind == c.kind; });
    ASSERT_NE(w, r.summary.warnings.end()) << label;
    EXPECT_EQ(std::count_if(r.summary.warnings.begin(), r.summary.warnings.end(),
                            [&](const RunWarning& x) { return x.kind == c.kind; }),
              1)
        << label;
    EXPECT_GE(w->step, c.first) << label;
    EXPECT_LE(w->step, c.last) << label;
    EXPECT_DOUBLE_EQ(w->t, static_cast<double>(w->step) * c.h) << label;
    EXPECT_NE(w->message.find("at step " + std::to_string(w->step)), std::string::npos) << w->message;
  }
}

TEST(Warnings, TheMonitorsOfModelFilesCatchTheirFailureModes) {
  // A reversible system whose motion is attracted to a periodic orbit: the reversible methods' energy
  // drifts, one-signed and linear in t (docs/methods.md, "Energy over long runs"); FIM's period-2 mode
  // grows sixfold within the first 80 steps, before the energy falls (from step 85); a forced motion
  // through a finite-time blow-up.
  struct Case {
    std::string model, method;
    double h;
    long steps;
    std::string kind;
    long first, last;
  };
  const std::string robot = std::string(DALEMBERT_SOURCE_DIR) + "/models/differential-drive.toml";
  const fs::path blow_up = fs::temp_directory_path() / ("dalembert_blow_up_" + std::to_string(::getpid()) + ".toml");
  // x'' = x'^3: v = v0 / sqrt(1 - 2 v0^2 t) ends at t = 0.5
  std::ofstream(blow_up) << "name = \"blow-up\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5*x_t^2\"\n"
                            "force = [\"x_t^3\"]\n[initial]\nq = [0]\nv = [1]\n";
  const std::vector<Case> cases = {
      {robot, "dla", 0.02, 30000, "energy-trend", 10000, 22000},
      {robot, "mla", 0.02, 30000, "energy-trend", 10000, 22000},
      {robot, "mclachlan-perlmutter", 0.02, 30000, "energy-trend", 10000, 22000},
      {robot, "fim", 0.085, 115, "parasitic-mode", 60, 90},
      {blow_up.string(), "dla", 0.01, 100, "energy-error", 40, 60},
  };
  for (const auto& c : cases) {
    const auto r = catalogue::find(c.model).run({}, {}, options(c.method, c.h, c.steps));
    const std::string label = c.model + " " + c.method + " " + c.kind;
    const auto w = std::find_if(r.summary.warnings.begin(), r.summary.warnings.end(),
                                [&](const RunWarning& x) { return x.kind == c.kind; });
    ASSERT_NE(w, r.summary.warnings.end()) << label << ": " << r.summary.message;
    EXPECT_GE(w->step, c.first) << label << ": " << w->message;
    EXPECT_LE(w->step, c.last) << label << ": " << w->message;
  }
  fs::remove(blow_up);
}

TEST(Warnings, TheHolonomicMonitorReportsAResidualThatGrows) {
  // On the files of models/ every method now keeps the holonomic constraints to round-off or in a
  // band (docs/methods.md, Holonomic constraints): the generating-function family, whose velocity
  // form let the bead's and the four-bar linkage's positions drift, imposes φ(q_{k+1}) = 0. So the
  // recorder's monitor is held to residuals given by hand: a band up to 1e-5 over the early steps
  // (1000 of them), then a residual growing from there by 1e-7 a step, beyond 10 times the band from
  // step 1900.
  const auto holonomic_warnings = [](bool grows) {
    RunResult result;
    RunRecorder recorder(result, {"t", "x"}, options("dla", 0.01, 5000), false);
    for (long k = 0; k <= 5000; ++k) {
      const double t = 0.01 * static_cast<double>(k);
      const double band = k % 2 == 0 ? 1e-5 : 4e-6;
      recorder.holonomic_residual(k, t, grows && k > 1000 ? 1.005e-5 + 1e-7 * static_cast<double>(k - 1000) : band);
      std::vector<double> row{t, 0.0};
      recorder.add(k, row, 1.0, 0.0, 0.0, 1, k > 0);
    }
    std::vector<RunWarning> out;
    for (const auto& w : result.summary.warnings)
      if (w.kind == "holonomic-drift") out.push_back(w);
    return out;
  };
  EXPECT_TRUE(holonomic_warnings(false).empty());
  const auto warnings = holonomic_warnings(true);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].step, 1900);
  EXPECT_DOUBLE_EQ(warnings[0].t, 19.0);
  EXPECT_NE(warnings[0].message.find("holonomic constraint residual |phi|"), std::string::npos) << warnings[0].message;
}

/// The runs of the healthy-runs test: every catalogue system and model file with every method that
/// runs it, at h = 0.01. CI takes 2·10^4 steps of the methods with cheap steps on small systems and
/// 5000 of the others; DALEMBERT_LONG_TESTS=1 takes 10^5 of every one (docs/methods.md gives the result).
long healthy_run_steps(const std::string& method, int coordinates) {
  if (std::getenv("DALEMBERT_LONG_TESTS")) return 100000;
  const bool cheap = method == "dla" || method == "del" || method == "mla" || method == "gf" || method == "gf-sym" ||
                     method == "gf-cp" || method == "fim" || method == "rk4" || method == "mclachlan-perlmutter" ||
                     method == "herglotz" || method == "dsocs";
  return cheap && coordinates <= 6 ? 20000 : 5000;
}

/// Every catalogue system and model file of models/, sorted.
std::vector<std::string> every_system() {
  std::vector<std::string> systems;
  for (const auto& e : catalogue::entries()) systems.push_back(e.name);
  for (const auto& f : fs::directory_iterator(fs::path(DALEMBERT_SOURCE_DIR) / "models"))
    if (f.path().extension() == ".toml") systems.push_back(f.path().string());
  std::sort(systems.begin(), systems.end());
  return systems;
}

class HealthyRuns : public ::testing::TestWithParam<std::string> {};

TEST_P(HealthyRuns, HaveNoWarning) {
  // No false alarms: the monitors say nothing on the runs that have none of the failure modes of
  // docs/methods.md. Left out, with the failure they show: the knife edge with gf and gf-sym (its
  // energy falls to 0.80 E0 and back; pushed along its blade, by a tenth of the energy's terms near
  // t = 194), FIM's period-2 mode on the sleigh (steered or not: the steered sleigh's energy dips
  // to a fifth near t = 85) and FIM-Lie's on the rigid
  // body (both in the table of failure modes), the two systems without a reversing symmetry
  // (perturbed-knife-edge, non-reversible-contact-oscillator: a slow drift), the robot of
  // differential-drive.toml (drift), the spinning frame with explicit steps (its rate a t grows
  // without bound and h a t passes rk4's stability limit near t = 600, mclachlan-perlmutter's near
  // t = 97, spark's near t = 210 in a run of 10^5 steps: the run ends non-finite, exit 3), and exact
  // on every system (a shooting per step: too slow for these runs). The spinning frame's energy
  // grows like t⁴ and its balance error with the step against the frame's rate, h a t: every
  // method's `energy-growth` fires near t = 42, where it is 1 % of the energy's terms; skipped.
  const std::set<std::pair<std::string, std::string>> failing = {
      {"knife-edge", "gf"},
      {"knife-edge", "gf-sym"},
      {"knife-edge.toml", "gf"},
      {"knife-edge.toml", "gf-sym"},
      {"pushed-knife-edge.toml", "gf"},
      {"pushed-knife-edge.toml", "gf-sym"},
      {"chaplygin-sleigh", "fim"},
      {"chaplygin-sleigh.toml", "fim"},
      {"steered-sleigh.toml", "fim"},
      {"rigid-body-attitude-constraint", "fim-lie"},
      {"spinning-frame.toml", "rk4"},
      {"spinning-frame.toml", "mclachlan-perlmutter"},
      {"spinning-frame.toml", "spark"}};
  const std::string system = GetParam();
  const std::string name = fs::path(system).filename().string();
  if (name.starts_with("perturbed-knife-edge") || name.starts_with("non-reversible-contact-oscillator") ||
      name.starts_with("differential-drive"))
    GTEST_SKIP() << name << " drifts (docs/methods.md)";
  if (name == "spinning-frame.toml") GTEST_SKIP() << name << ": its energy balance error grows with h a t";
  const auto& entry = catalogue::find(system);
  const int n = static_cast<int>(entry.describe({}).coordinates.size());
  int runs = 0;
  for (const auto& m : method_names()) {
    if (m == "exact" || failing.count({name, m})) continue;
    RunResult r;
    try {
      r = entry.run({}, {}, options(m, 0.01, healthy_run_steps(m, n)));
    } catch (const BadInput&) {
      continue;  // a method for another kind of system
    }
    ++runs;
    EXPECT_FALSE(r.failed()) << name << " " << m << ": " << r.summary.message;
    EXPECT_TRUE(r.summary.warnings.empty()) << name << " " << m << ": " << r.summary.warnings.front().message;
  }
  EXPECT_GT(runs, 0) << name;
}

INSTANTIATE_TEST_SUITE_P(EveryCatalogueSystemAndModelFile, HealthyRuns, ::testing::ValuesIn(every_system()),
                         [](const auto& info) {
                           std::string name = fs::path(info.param).stem().string();
                           if (info.param.ends_with(".toml")) name += "_toml";
                           std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });
