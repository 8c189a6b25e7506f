// Model files (docs/model-files.md): every catalogue system written as a model file runs the same
// trajectories as the catalogue's C++; the Taylor evaluation of FileModel gives the same derivatives
// as automatic differentiation of the C++ at every nesting depth; systems that exist only as model
// files conserve energy, keep their constraints and converge at the methods' orders.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>

#include "catalogue/catalogue.hpp"
#include "dalembert/discrete/shooting.hpp"
#include "dalembert/method/del.hpp"
#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/exact_flow.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "modelfile/entry.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/model.hpp"
#include "modelfile/run.hpp"
#include "central_differences.hpp"
#include "test_support.hpp"

using namespace dalembert;
namespace fs = std::filesystem;

namespace {

std::string model_path(const std::string& stem) { return std::string(DALEMBERT_SOURCE_DIR) + "/models/" + stem + ".toml"; }

RunOptions options(const std::string& method, double h, long steps) {
  RunOptions o;
  o.method = method;
  o.h = h;
  o.steps = steps;
  return o;
}

bool method_available(const std::string& method) {
  const auto names = method_names();
  return std::find(names.begin(), names.end(), method) != names.end();
}

/// Largest difference between two runs over the columns they share (t, coordinates, energy, ...).
double largest_difference(const Trajectory& a, const Trajectory& b) {
  EXPECT_EQ(a.rows(), b.rows());
  double worst = 0.0;
  for (std::size_t c = 0; c < a.columns.size(); ++c) {
    if (a.columns[c] == "newton_iterations") continue;
    const auto it = std::find(b.columns.begin(), b.columns.end(), a.columns[c]);
    if (it == b.columns.end()) continue;
    const std::size_t cb = static_cast<std::size_t>(it - b.columns.begin());
    for (std::size_t r = 0; r < std::min(a.rows(), b.rows()); ++r)
      worst = std::max(worst, std::abs(a.at(r, c) - b.at(r, cb)));
  }
  return worst;
}

/// A private copy of models/<stem>.toml loaded without a compiler (interpreted kernels): a new
/// path, so that the compiled entry of the same file is not reused. Removed with the object.
struct InterpretedCopy {
  fs::path path;
  const catalogue::Entry* entry = nullptr;
  explicit InterpretedCopy(const std::string& stem)
      : path(fs::temp_directory_path() / ("dalembert_interpreted_" + stem + "_" + std::to_string(::getpid()) + ".toml")) {
    fs::copy_file(model_path(stem), path, fs::copy_options::overwrite_existing);
    ::setenv("DALEMBERT_CC", "none", 1);
    entry = &catalogue::find(path.string());
    ::unsetenv("DALEMBERT_CC");
  }
  ~InterpretedCopy() {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
};

}  // namespace

/// Catalogue systems a model file can describe: coordinates q with velocities q' and linear
/// velocity constraints, the systems dla runs. (Not the rigid bodies on SO(3), whose velocity is
/// the body angular velocity, nor systems with second-order constraints; nor the knife-edge
/// chain, whose number of coordinates 3N is a run-time parameter while a model file lists its
/// coordinates.)
std::vector<const catalogue::Entry*> coordinate_systems() {
  std::vector<const catalogue::Entry*> out;
  for (const auto& e : catalogue::entries()) {
    if (e.name == "knife-edge-chain") continue;
    const auto d = e.describe({});
    if (d.q0.size() != d.v0.size()) continue;
    try {
      e.run({}, {}, options("dla", 0.1, 1));
    } catch (const BadInput&) {
      continue;  // dla does not apply to this kind of system
    }
    out.push_back(&e);
  }
  return out;
}

// Systems added to the catalogue later must come with a model file too.
TEST(ModelFiles, EveryCatalogueSystemHasAModelFile) {
  EXPECT_GE(coordinate_systems().size(), 8u);
  for (const auto* e : coordinate_systems()) EXPECT_TRUE(fs::exists(model_path(e->name))) << model_path(e->name);
}

TEST(ModelFiles, DescribeMatchesTheCatalogue) {
  for (const auto* entry : coordinate_systems()) {
    const auto& e = *entry;
    const auto builtin = e.describe({});
    const auto file = catalogue::find(model_path(e.name)).describe({});
    EXPECT_EQ(file.name, builtin.name);
    EXPECT_EQ(file.coordinates, builtin.coordinates) << e.name;
    EXPECT_EQ(file.constraints, builtin.constraints) << e.name;
    EXPECT_EQ(file.q0, builtin.q0) << e.name;
    EXPECT_EQ(file.v0, builtin.v0) << e.name;
    EXPECT_EQ(file.closed_form, builtin.closed_form) << e.name;
    ASSERT_EQ(file.parameters.size(), builtin.parameters.size()) << e.name;
    for (std::size_t k = 0; k < builtin.parameters.size(); ++k) {
      EXPECT_EQ(file.parameters[k].name, builtin.parameters[k].name) << e.name;
      EXPECT_EQ(file.parameters[k].value, builtin.parameters[k].value) << e.name;
    }
  }
}

/// How a comparison runs a catalogue system's model file: (name, parameters, options) → the run.
using RunTheFile = std::function<RunResult(const std::string&, const catalogue::ParameterValues&, const RunOptions&)>;
/// Catalogue systems with their parameters, for the comparisons below.
using Cases = std::vector<std::pair<std::string, catalogue::ParameterValues>>;

/// The catalogue's systems with coordinates and velocities, some with changed parameters.
const Cases mechanical_cases = {
    {"particle", {}},
    {"particle", {{"potential", 1.0}}},
    {"knife-edge", {}},
    {"knife-edge", {{"k", 0.5}}},
    {"perturbed-knife-edge", {}},
    {"vertical-disk", {}},
    {"vertical-disk", {{"R", 0.7}, {"J", 2.0}}},
    {"chaplygin-sleigh", {}},
    {"pendulum", {}},
    {"harmonic-oscillator", {}},
    {"satellite", {}},
};

/// Runs every method of the build on each case, from the catalogue's C++ and from the system's
/// model file by `run_file`, and expects the same trajectories; returns the largest difference.
/// Methods a model file cannot run are listed; none of those named at the end may be among them.
double expect_the_catalogue_trajectories(const RunTheFile& run_file, const Cases& cases) {
  if (!method_available("mla")) std::printf("[ note ] method mla is not in this build (method_names())\n");
  double worst = 0.0;
  std::set<std::string> compared, refused;
  for (const auto& [name, params] : cases) {
    for (const auto& method : method_names()) {
      // The exact flow shoots with third derivatives at every step, 16–80 ms a step on a model file:
      // 20 steps take the same code paths as 200, in a tenth of the time (a minute in all).
      const long steps = method == "exact" ? 20 : 200;
      std::optional<RunResult> builtin;
      try {
        builtin = catalogue::find(name).run(params, {}, options(method, 0.05, steps));
      } catch (const BadInput&) {
        continue;  // the method does not apply to this system at all
      }
      std::optional<RunResult> file;
      try {
        file = run_file(name, params, options(method, 0.05, steps));
      } catch (const BadInput& e) {
        refused.insert(method + " (" + e.what() + ")");
        continue;
      }
      EXPECT_FALSE(builtin->failed()) << name << " " << method << ": " << builtin->summary.message;
      EXPECT_FALSE(file->failed()) << name << " " << method << ": " << file->summary.message;
      if (builtin->failed() || file->failed()) continue;
      const double d = largest_difference(builtin->trajectory, file->trajectory);
      // 1e-12 for dla and mla (the issue's bound); 1e-11 for the others: iterations to a tolerance
      // (fim's Newton, the reference solver's step control) amplify the rounding differences of the
      // two evaluations (largest measured: 8.0e-12)
      EXPECT_LT(d, method == "dla" || method == "mla" ? 1e-12 : 1e-11) << name << " with " << method;
      worst = std::max(worst, d);
      compared.insert(method);
    }
  }
  std::string list;
  for (const auto& m : compared) list += " " + m;
  std::printf("[ note ] compared:%s\n", list.c_str());
  for (const auto& r : refused) std::printf("[ note ] refused for model files: %s\n", r.c_str());
  for (const char* m : {"dla", "rk4", "reference", "del", "gf", "gf-sym", "gf-cp", "fim", "mla", "mclachlan-perlmutter",
                        "discrete-gradient", "spark", "exact"})
    if (method_available(m)) {
      EXPECT_TRUE(compared.count(m)) << m << " was not compared";
    }
  return worst;
}

// The issue's check: identical trajectories (to 1e-12) for midpoint DLA and MLA, here for every
// method of the build that applies to each catalogue entry: dla, rk4, reference, del, gf, gf-sym,
// gf-cp, fim, and mla, exact, ... when the build has them. The files run as the command line runs
// them: within the bound of sizes::bounded_model_file, where these files are.
TEST(ModelFiles, SameTrajectoriesAsTheCatalogue) {
  Cases with_contact_files = mechanical_cases;
  with_contact_files.push_back({"contact-oscillator", {}});
  with_contact_files.push_back({"non-reversible-contact-oscillator", {{"eps", 0.5}}});
  const double worst = expect_the_catalogue_trajectories(
      [](const std::string& name, const catalogue::ParameterValues& params, const RunOptions& o) {
        return catalogue::find(model_path(name)).run(params, {}, o);
      },
      with_contact_files);
  test::report("model_file_largest_trajectory_difference", worst);
}

// The same files run by the library's instance for files beyond the bound (FileModel on the heap,
// run_unbounded), which the command line takes for more than sizes::bounded_model_file coordinates: every
// method family on the heap gives the catalogue's trajectories too (contact files on the heap:
// ContactModelFiles.MoreThanEightCoordinatesOnTheHeap). These runs are the method layer's tests at
// run-time sizes; test_run_time_sizes*.cpp keeps what no file reaches.
TEST(ModelFiles, SameTrajectoriesAsTheCatalogueOnTheHeap) {
  const double worst = expect_the_catalogue_trajectories(
      [](const std::string& name, const catalogue::ParameterValues& params, const RunOptions& o) {
        const auto bound = modelfile::bind(modelfile::load(model_path(name)), params);
        return modelfile::run_unbounded(bound, {bound->q0, bound->v0, std::nullopt, std::nullopt}, o);
      },
      mechanical_cases);
  test::report("model_file_on_the_heap_largest_trajectory_difference", worst);
}

// Options beside the defaults take the same steps from a file, within the bound and on the heap:
// GF and GF-sym at α = 0.3 (the vertical disk), FIM from start A (the knife edge), DLA with the
// trapezoidal rule (the sleigh); 1e-11 as above.
TEST(ModelFiles, MethodOptionsGiveTheCatalogueTrajectories) {
  struct Case {
    std::string system, method;
    double alpha;
    std::string fim_start, rule;
  };
  const std::vector<Case> cases = {{"vertical-disk", "gf", 0.3, "B", "alpha"},
                                   {"vertical-disk", "gf-sym", 0.3, "B", "alpha"},
                                   {"knife-edge", "fim", 0.5, "A", "alpha"},
                                   {"chaplygin-sleigh", "dla", 0.5, "B", "trapezoid"}};
  for (const auto& c : cases) {
    RunOptions o = options(c.method, 0.05, 200);
    o.alpha = c.alpha;
    o.fim_start = c.fim_start;
    o.rule = c.rule;
    const auto builtin = catalogue::find(c.system).run({}, {}, o);
    const auto bound = modelfile::bind(modelfile::load(model_path(c.system)), {});
    const InitialData init{bound->q0, bound->v0, std::nullopt, std::nullopt};
    const RunResult within = modelfile::run_bounded(bound, init, o), heap = modelfile::run_unbounded(bound, init, o);
    ASSERT_FALSE(builtin.failed() || within.failed() || heap.failed()) << c.system << " " << c.method;
    const double d = std::max(largest_difference(builtin.trajectory, within.trajectory),
                              largest_difference(builtin.trajectory, heap.trajectory));
    test::report("model_file_options_" + c.method + "_difference", d);
    EXPECT_LT(d, 1e-11) << c.system << " with " << c.method;
  }
}

TEST(ModelFiles, ClosedFormsMatchTheCatalogue) {
  for (const char* name : {"particle", "knife-edge", "vertical-disk", "harmonic-oscillator"}) {
    for (double t : {0.0, 0.7, 3.0}) {
      const auto builtin = catalogue::find(name).exact({}, {}, t);
      const auto file = catalogue::find(model_path(name)).exact({}, {}, t);
      ASSERT_TRUE(builtin && file) << name;
      EXPECT_LT((*builtin - *file).lpNorm<Eigen::Infinity>(), 1e-13) << name << " at t = " << t;
    }
  }
  // valid_when_zero: the knife edge's closed form needs k = 0
  EXPECT_FALSE(catalogue::find(model_path("knife-edge")).exact({{"k", 0.5}}, {}, 1.0));
}

// FileModel evaluates L by its Taylor polynomial in the dual numbers. Compare, component by
// component, with automatic differentiation of the sleigh's Lagrangian and constraint written here
// in T arithmetic, for duals nested 1, 2 and 3 deep. (The catalogue's C++ models mix doubles into
// Eigen expressions, which AutoDiffScalar supports only two deep.)
namespace {

template <class T>
T sleigh_lagrangian(const Vec<T, 3>& q, const Vec<T, 3>& v) {
  const auto c = [](double x) { return ad::lift<T>(x); };
  const double m = 1.0, I = 1.0, a = 0.5;
  using std::cos;
  using std::sin;
  return c(m / 2) * (v[0] * v[0] + v[1] * v[1] - c(2 * a) * v[0] * v[2] * sin(q[2]) + c(2 * a) * v[1] * v[2] * cos(q[2])) +
         c((I + m * a * a) / 2) * v[2] * v[2];
}

template <class T>
Mat<T, 1, 3> sleigh_constraint(const Vec<T, 3>& q) {
  using std::cos;
  using std::sin;
  Mat<T, 1, 3> M;
  M << -sin(q[2]), cos(q[2]), ad::lift<T>(0.0);
  return M;
}

/// Largest difference over every component of two (nested) duals.
template <class T>
double largest_component_difference(const T& x, const T& y) {
  if constexpr (ad::is_dual_v<T>) {
    double worst = largest_component_difference(ad::value(x), ad::value(y));
    for (int i = 0; i < x.derivatives().size(); ++i)
      worst = std::max(worst, largest_component_difference(ad::derivative(x, i), ad::derivative(y, i)));
    return worst;
  } else {
    return std::abs(x - y);
  }
}

/// x seeded with a different nonzero derivative at every level and index.
template <class T>
T seeded(double x, int salt) {
  T out = ad::lift<T>(x);
  if constexpr (ad::is_dual_v<T>) {
    using Inner = std::decay_t<decltype(ad::value(out))>;
    out.value() = seeded<Inner>(x, salt + 1);
    for (int k = 0; k < out.derivatives().size(); ++k)
      out.derivatives()[k] = seeded<Inner>(0.1 * (1 + (salt + k) % 4), salt + 2 * k + 1);
  }
  return out;
}

template <class T>
double largest_difference_at_depth(const modelfile::BoundedFileModel& file) {
  const Vecd<3> q(0.3, -0.2, 0.7), v(0.5, 0.1, -1.3);
  Vec<T, 3> qt, vt;
  for (int i = 0; i < 3; ++i) {
    qt[i] = seeded<T>(q[i], i);
    vt[i] = seeded<T>(v[i], 3 + i);
  }
  using Point = modelfile::BoundedFileModel::Point<T>;
  const Point qf = qt, vf = vt;
  double worst = largest_component_difference(file.lagrangian<T>(qf, vf), sleigh_lagrangian<T>(qt, vt));
  const auto Mf = file.constraint_matrix<T>(qf);
  const Mat<T, 1, 3> Ms = sleigh_constraint<T>(qt);
  for (int i = 0; i < 3; ++i) worst = std::max(worst, largest_component_difference(Mf(0, i), Ms(0, i)));
  return worst;
}

}  // namespace

TEST(ModelFiles, TaylorEvaluationIsExactForNestedDuals) {
  const modelfile::BoundedFileModel file(modelfile::bind(modelfile::load(model_path("chaplygin-sleigh")), {}));
  using D1 = ad::Dual<double, 6>;
  using D2 = ad::Dual<ad::Dual<double, 3>, 6>;
  using D3 = ad::Dual<ad::Dual<ad::Dual<double, 2>, 3>, 4>;
  const double depth0 = largest_difference_at_depth<double>(file), depth1 = largest_difference_at_depth<D1>(file),
               depth2 = largest_difference_at_depth<D2>(file), depth3 = largest_difference_at_depth<D3>(file);
  test::report("model_file_taylor_vs_autodiff_depth1", depth1);
  test::report("model_file_taylor_vs_autodiff_depth2", depth2);
  test::report("model_file_taylor_vs_autodiff_depth3", depth3);
  EXPECT_LT(depth0, 1e-15);
  EXPECT_LT(depth1, 1e-14);
  EXPECT_LT(depth2, 1e-14);
  EXPECT_LT(depth3, 1e-14);
  // (Duals four deep cannot even be built with Eigen's AutoDiffScalar: it constructs Scalar(0) from
  // an int. FileModel refuses them at run time all the same, rather than being silently wrong.)
}

namespace {
/// Largest difference between the derivatives of a model file's discrete Lagrangian ld from its
/// Taylor coefficients (file_model.hpp) and from the generic hyper-dual evaluation, relative to the
/// largest entry.
template <class Ld>
double direct_against_hyper_duals(const Ld& ld, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1) {
  const VecN<Ld> x0 = q0, x1 = q1;
  const auto direct = differentiate(ld, x0, x1);
  const auto generic = dalembert::detail::hyper_dual_derivatives(ld, x0, x1);
  const double scale = std::max({std::abs(generic.value), generic.D1.cwiseAbs().maxCoeff(),
                                 generic.D2.cwiseAbs().maxCoeff(), generic.D12.cwiseAbs().maxCoeff()});
  const double worst = std::max({std::abs(direct.value - generic.value), (direct.D1 - generic.D1).cwiseAbs().maxCoeff(),
                                 (direct.D2 - generic.D2).cwiseAbs().maxCoeff(),
                                 (direct.D12 - generic.D12).cwiseAbs().maxCoeff()});
  return worst / scale;
}

/// A point of the chaotic oscillator's 11 coordinates (models/chaotic-oscillator.toml).
Eigen::VectorXd chaotic_oscillator_point(double offset) {
  Eigen::VectorXd q(11);
  for (int i = 0; i < 11; ++i) q[i] = offset + 0.07 * (i + 1) - 0.4;
  return q;
}

template <class File = modelfile::BoundedFileModel>
double alpha_rule_difference(const std::string& stem, double alpha, const Eigen::VectorXd& q0,
                             const Eigen::VectorXd& q1) {
  const File file(modelfile::bind(modelfile::load(model_path(stem)), {}));
  return direct_against_hyper_duals(AlphaRule<File>(file, 0.1, alpha), q0, q1);
}

template <class File = modelfile::BoundedFileModel>
double trapezoid_rule_difference(const std::string& stem, const Eigen::VectorXd& q0, const Eigen::VectorXd& q1) {
  const File file(modelfile::bind(modelfile::load(model_path(stem)), {}));
  return direct_against_hyper_duals(TrapezoidRule<File>(file, 0.1), q0, q1);
}
}  // namespace

// A model file's α-rule derivatives are assembled from the gradient and Hessian of L without dual
// arithmetic; they must equal the generic hyper-dual path, including the mixed q-v block (the
// sleigh's metric depends on θ, the double pendulum's on θ1 − θ2) and α away from ½.
TEST(ModelFiles, AlphaRuleDerivativesEqualHyperDuals) {
  double worst = 0.0;
  const Eigen::VectorXd oscillator0 = chaotic_oscillator_point(0.0), oscillator1 = chaotic_oscillator_point(0.04);
  for (const double alpha : {0.0, 0.3, 0.5, 1.0}) {
    worst = std::max(worst, alpha_rule_difference("chaplygin-sleigh", alpha, Vecd<3>(0.3, -0.2, 0.7),
                                                  Vecd<3>(0.36, -0.17, 0.81)));
    worst = std::max(worst, alpha_rule_difference<modelfile::UnboundedFileModel>("knife-edge", alpha, Vecd<3>(0.3, -0.2, 0.7),
                                                                                 Vecd<3>(0.36, -0.17, 0.81)));
    worst = std::max(worst, alpha_rule_difference("double-pendulum", alpha, Vecd<2>(1.1, -0.4), Vecd<2>(1.2, -0.55)));
    // 11 coordinates on the heap: the generic path takes them in chunks of 8 directions
    worst = std::max(worst, alpha_rule_difference<modelfile::UnboundedFileModel>("chaotic-oscillator", alpha,
                                                                                 oscillator0, oscillator1));
  }
  test::report("model_file_alpha_rule_direct_vs_hyper_dual", worst);
  EXPECT_LT(worst, 1e-14);
}

// The trapezoidal rule of a model file is the mean of its α-rules at α = 0 and 1: the same as the
// generic hyper-dual path, and the same steps as the catalogue's (whose trapezoidal rule takes the
// structured α-rules of its metric) under dla, fim and del.
TEST(ModelFiles, TrapezoidRuleDerivativesEqualHyperDuals) {
  const double worst =
      std::max({trapezoid_rule_difference("chaplygin-sleigh", Vecd<3>(0.3, -0.2, 0.7), Vecd<3>(0.36, -0.17, 0.81)),
                trapezoid_rule_difference<modelfile::UnboundedFileModel>("knife-edge", Vecd<3>(0.3, -0.2, 0.7),
                                                                         Vecd<3>(0.36, -0.17, 0.81)),
                trapezoid_rule_difference("double-pendulum", Vecd<2>(1.1, -0.4), Vecd<2>(1.2, -0.55))});
  test::report("model_file_trapezoid_rule_direct_vs_hyper_dual", worst);
  EXPECT_LT(worst, 1e-14);

  double largest = 0.0;
  for (const auto& [name, method] : std::vector<std::pair<std::string, std::string>>{{"knife-edge", "dla"},
                                                                                     {"chaplygin-sleigh", "dla"},
                                                                                     {"vertical-disk", "dla"},
                                                                                     {"knife-edge", "fim"},
                                                                                     {"vertical-disk", "fim"},
                                                                                     {"pendulum", "del"}}) {
    RunOptions o = options(method, 0.05, 200);
    o.rule = "trapezoid";
    const RunResult builtin = catalogue::find(name).run({}, {}, o);
    const RunResult file = catalogue::find(model_path(name)).run({}, {}, o);
    ASSERT_FALSE(builtin.failed() || file.failed()) << name << " " << method;
    const double d = largest_difference(builtin.trajectory, file.trajectory);
    EXPECT_LT(d, 1e-12) << name << " with " << method;
    largest = std::max(largest, d);
  }
  test::report("model_file_trapezoid_largest_trajectory_difference", largest);
}

// A model file whose metric has no term in q says so (FileModel::metric_is_constant) and gives it,
// evaluated and factorised once (FileModel::constant_metric: G itself), and the methods written with
// the metric then differentiate V alone, as for a compiled constant metric; their steps stay the
// catalogue's (SameTrajectoriesAsTheCatalogue: mclachlan-perlmutter, discrete-gradient and spark
// among them).
TEST(ModelFiles, ConstantMetricsAreKnownAtRunTime) {
  const auto constant = [](const std::string& stem) {
    const modelfile::UnboundedFileModel file(modelfile::bind(modelfile::load(model_path(stem)), {}));
    const auto* G = file.constant_metric();
    EXPECT_EQ(G != nullptr, file.metric_is_constant()) << stem;
    if (G) {
      const Eigen::VectorXd q = Eigen::VectorXd::LinSpaced(file.dimension(), 0.3, -0.7);
      EXPECT_EQ(G->matrix(), file.metric<double>(q)) << stem;
    }
    return file.metric_is_constant();
  };
  for (const std::string stem : {"particle", "knife-edge", "vertical-disk", "two-skates", "chaotic-oscillator"})
    EXPECT_TRUE(constant(stem)) << stem;
  for (const std::string stem : {"chaplygin-sleigh", "double-pendulum", "rolling-disk"})
    EXPECT_FALSE(constant(stem)) << stem;
}

namespace {
/// The same for the α-rule constraint: ω and ∂ω/∂q1 from the entries of M and their gradients
/// (file_model.hpp) against the generic dual-number path, for a step that starts at the time t0.
template <class File = modelfile::BoundedFileModel>
double alpha_constraint_difference(const std::string& stem, double alpha, const Eigen::VectorXd& q0,
                                   const Eigen::VectorXd& q1, double t0 = 0.0) {
  const File file(modelfile::bind(modelfile::load(model_path(stem)), {}));
  const AlphaConstraint<File> c(file, 0.1, alpha);
  const VecN<File> x0 = q0, x1 = q1;
  const auto direct = differentiate(c, x0, x1, t0);
  const auto generic = dalembert::differentiate<AlphaConstraint<File>>(c, x0, x1, t0);
  const double scale = std::max(generic.value.cwiseAbs().maxCoeff(), generic.D2.cwiseAbs().maxCoeff());
  return std::max((direct.value - generic.value).cwiseAbs().maxCoeff(), (direct.D2 - generic.D2).cwiseAbs().maxCoeff()) /
         scale;
}
}  // namespace

TEST(ModelFiles, AlphaConstraintDerivativesEqualDuals) {
  double worst = 0.0;
  const Eigen::VectorXd disk0 = (Eigen::VectorXd(5) << 0.1, -0.2, 0.3, 0.7, 0.2).finished();
  const Eigen::VectorXd disk1 = (Eigen::VectorXd(5) << 0.25, -0.1, 0.33, 0.78, 0.35).finished();
  for (const double alpha : {0.0, 0.3, 0.5, 1.0}) {
    worst = std::max(worst, alpha_constraint_difference("chaplygin-sleigh", alpha, Vecd<3>(0.3, -0.2, 0.7),
                                                        Vecd<3>(0.36, -0.17, 0.81)));
    worst = std::max(worst, alpha_constraint_difference("rolling-disk", alpha, disk0, disk1));
    worst = std::max(worst, alpha_constraint_difference<modelfile::UnboundedFileModel>("rolling-disk", alpha, disk0, disk1));
    worst = std::max(worst,
                     alpha_constraint_difference<modelfile::UnboundedFileModel>(
                         "chaotic-oscillator", alpha, chaotic_oscillator_point(0.0), chaotic_oscillator_point(0.04)));
    // b(q, t) of a table turning at a varying rate, at a step that starts at t0 = 0.7
    const Eigen::VectorXd ball0 = (Eigen::VectorXd(6) << 1.0, 0.5, 0.9, 0.1, -0.2, 0.3).finished();
    const Eigen::VectorXd ball1 = (Eigen::VectorXd(6) << 1.02, 0.53, 0.88, 0.12, -0.19, 0.33).finished();
    worst = std::max(worst, alpha_constraint_difference("varying-turntable-ball", alpha, ball0, ball1, 0.7));
    // a rolling contact and the quaternion's norm, a holonomic constraint imposed at q1, off |q| = 1
    worst = std::max(worst, alpha_constraint_difference("chaplygin-ball", alpha, ball0, ball1));
  }
  test::report("model_file_alpha_constraint_direct_vs_duals", worst);
  EXPECT_LT(worst, 1e-14);
}

namespace {
/// Adds to `difference` and `scale` the differences of two numbers: values and (for duals) every
/// directional derivative.
template <class T>
void compare_numbers(const T& x, const T& y, double& difference, double& scale) {
  if constexpr (std::is_same_v<T, double>) {
    difference = std::max(difference, std::abs(x - y));
    scale = std::max(scale, std::abs(y));
  } else {
    compare_numbers(x.value(), y.value(), difference, scale);
    EXPECT_EQ(x.derivatives().size(), y.derivatives().size());
    for (Eigen::Index k = 0; k < std::min(x.derivatives().size(), y.derivatives().size()); ++k)
      compare_numbers(x.derivatives()[k], y.derivatives()[k], difference, scale);
  }
}

/// (q, v) of a model file carrying 2n seeded directions and one more of arbitrary entries (the
/// Jacobian of the acceleration and a direction of the shooting).
template <class File>
auto seeded_directions(const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  constexpr int width = 2 * sizes::bounded_model_file + 1;
  using D = ad::Dual<double, Eigen::Dynamic, width>;
  const int n = static_cast<int>(q.size());
  VecN<File, D> qx(n), vx(n);
  for (int i = 0; i < n; ++i) {
    qx[i] = ad::variable<Eigen::Dynamic, width>(q[i], i, 2 * n + 1);
    vx[i] = ad::variable<Eigen::Dynamic, width>(v[i], n + i, 2 * n + 1);
    qx[i].derivatives()[2 * n] = 0.3 - 0.7 * i;
    vx[i].derivatives()[2 * n] = -1.1 + 0.4 * i;
  }
  return std::pair{qx, vx};
}

/// The largest relative difference between two LagrangianDerivatives.
template <class D>
double lagrangian_derivatives_difference(const D& a, const D& b) {
  double difference = 0.0, scale = 0.0;
  compare_numbers(a.L, b.L, difference, scale);
  for (Eigen::Index i = 0; i < b.Lq.size(); ++i) {
    compare_numbers(a.Lq[i], b.Lq[i], difference, scale);
    compare_numbers(a.Lv[i], b.Lv[i], difference, scale);
    for (Eigen::Index j = 0; j < b.Lq.size(); ++j) {
      compare_numbers(a.W(i, j), b.W(i, j), difference, scale);
      compare_numbers(a.B(i, j), b.B(i, j), difference, scale);
    }
  }
  return difference / scale;
}

/// L, L_q, L_v, W and B of a model file from its kernels (FileModel::lagrangian_derivatives) against
/// the generic path, which evaluates L on hyper-duals: at doubles, and with (q, v) carrying 2n
/// seeded directions and one more of arbitrary entries (the Jacobian of the acceleration and a
/// direction of the shooting), which takes the third derivatives.
template <class File>
double lagrangian_derivatives_difference(const File& file, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const VecN<File> qd = q, vd = v;
  double worst = lagrangian_derivatives_difference(lagrangian_derivatives(file, qd, vd),
                                                   detail::lagrangian_derivatives_at(file, qd, vd));
  const auto [qx, vx] = seeded_directions<File>(q, v);
  return std::max(worst, lagrangian_derivatives_difference(lagrangian_derivatives(file, qx, vx),
                                                           detail::lagrangian_derivatives_along(file, qx, vx)));
}

/// A general Lagrangian (not ½ vᵀG(q)v − V(q)) whose third derivatives mix q and v in every way.
constexpr const char* cubic_in_velocities = R"(
name = "cubic-in-velocities"
summary = "a Lagrangian with third derivatives in q and v of every kind"
coordinates = ["x", "y", "phi"]
lagrangian = """
(1 + x^2)/2*x_t^2 + y_t^2/2 + (2 + cos(phi))/2*phi_t^2 + x_t^3*y/6 + sin(x)*y_t*phi_t
 + x_t^2*y_t^2/8 + x*y*phi_t - (x^2 + y^2)/2 - cos(phi)
"""
constraints = ["sin(phi)*x_t - cos(phi)*y_t"]

[initial]
q = [0.3, -0.2, 0.7]
v = [0.7648421872844885, 0.644217687237691, 0.4]
)";
}  // namespace

TEST(ModelFiles, LagrangianDerivativesEqualHyperDuals) {
  const auto file = [](const std::string& stem) { return modelfile::bind(modelfile::load(model_path(stem)), {}); };
  const auto cubic = modelfile::bind(modelfile::load_text(cubic_in_velocities, "cubic-in-velocities"), {});
  double worst = 0.0;
  worst = std::max(worst, lagrangian_derivatives_difference(modelfile::BoundedFileModel(file("chaplygin-sleigh")),
                                                            Vecd<3>(0.3, -0.2, 0.7), Vecd<3>(0.4, -0.5, 1.1)));
  worst = std::max(worst, lagrangian_derivatives_difference(modelfile::BoundedFileModel(file("double-pendulum")),
                                                            Vecd<2>(1.1, -0.4), Vecd<2>(0.3, -0.8)));
  worst = std::max(worst, lagrangian_derivatives_difference(modelfile::BoundedFileModel(cubic), Vecd<3>(0.3, -0.2, 0.7),
                                                            Vecd<3>(0.4, -0.5, 1.1)));
  worst = std::max(worst, lagrangian_derivatives_difference(modelfile::UnboundedFileModel(cubic),
                                                            Vecd<3>(-0.6, 0.9, 2.1), Vecd<3>(1.3, 0.2, -0.7)));
  test::report("model_file_lagrangian_derivatives_direct_vs_hyper_dual", worst);
  EXPECT_LT(worst, 1e-14);
}

/// The curvature (∂(M v)/∂q) v of a model file from its kernels (FileModel::constraint_curvature)
/// against the generic path, which differentiates M(q) v in duals: at doubles, and with (q, v)
/// carrying 2n seeded directions and one more of arbitrary entries (the Jacobian of the
/// acceleration), which takes the second derivatives of M.
template <class File>
double constraint_curvature_difference(const File& file, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  double difference = 0.0, scale = 0.0;
  const VecN<File> qd = q, vd = v;
  const auto a = constraint_curvature(file, qd, vd), b = detail::constraint_curvature_by_duals(file, qd, vd);
  for (Eigen::Index r = 0; r < b.size(); ++r) compare_numbers(a[r], b[r], difference, scale);
  const auto [qx, vx] = seeded_directions<File>(q, v);
  const auto ax = constraint_curvature(file, qx, vx), bx = detail::constraint_curvature_by_duals(file, qx, vx);
  for (Eigen::Index r = 0; r < bx.size(); ++r) compare_numbers(ax[r], bx[r], difference, scale);
  return difference / scale;
}

TEST(ModelFiles, ConstraintCurvatureEqualsDuals) {
  const auto file = [](const std::string& stem) { return modelfile::bind(modelfile::load(model_path(stem)), {}); };
  const auto cubic = modelfile::bind(modelfile::load_text(cubic_in_velocities, "cubic-in-velocities"), {});
  double worst = 0.0;
  worst = std::max(worst, constraint_curvature_difference(modelfile::BoundedFileModel(file("chaplygin-sleigh")),
                                                          Vecd<3>(0.3, -0.2, 0.7), Vecd<3>(0.4, -0.5, 1.1)));
  worst = std::max(worst, constraint_curvature_difference(modelfile::BoundedFileModel(file("rolling-disk")),
                                                          Eigen::VectorXd::LinSpaced(5, -0.4, 0.9),
                                                          Eigen::VectorXd::LinSpaced(5, 1.2, -0.3)));
  worst = std::max(worst, constraint_curvature_difference(modelfile::BoundedFileModel(cubic), Vecd<3>(0.3, -0.2, 0.7),
                                                          Vecd<3>(0.4, -0.5, 1.1)));
  worst = std::max(worst, constraint_curvature_difference(modelfile::UnboundedFileModel(cubic), Vecd<3>(-0.6, 0.9, 2.1),
                                                          Vecd<3>(1.3, 0.2, -0.7)));
  test::report("model_file_constraint_curvature_direct_vs_duals", worst);
  EXPECT_LT(worst, 1e-14);
}

/// V and ∇V of a model file from its Taylor terms (FileModel::potential_with_gradient) against V
/// differentiated along q in duals, what MetricDerivatives does without it: at doubles, and at a q
/// carrying n seeded directions and one of arbitrary entries, where ∇V's derivatives are products
/// of the Hessian.
template <class File>
double potential_gradient_difference(const File& file, const Eigen::VectorXd& q) {
  double difference = 0.0, scale = 0.0;
  const auto against_duals = [&](const auto& at) {
    using T = typename std::decay_t<decltype(at)>::Scalar;
    constexpr int max_n = max_n_of<File>();
    const int n = static_cast<int>(at.size());
    VecN<File, ad::Dual<T, Eigen::Dynamic, max_n>> along(n);
    for (int i = 0; i < n; ++i) along[i] = ad::variable<Eigen::Dynamic, max_n>(at[i], i, n);
    const auto V = file.potential(along);
    VecN<File, T> gradient;
    compare_numbers(file.potential_with_gradient(at, gradient), ad::value(V), difference, scale);
    for (int k = 0; k < n; ++k) compare_numbers(gradient[k], ad::derivative(V, k), difference, scale);
  };
  against_duals(VecN<File>(q));
  const int n = static_cast<int>(q.size());
  VecN<File, ad::Dual<double, Eigen::Dynamic, Eigen::Dynamic>> seeded(n);
  for (int i = 0; i < n; ++i) {
    seeded[i] = ad::variable<Eigen::Dynamic, Eigen::Dynamic>(q[i], i, n + 1);
    seeded[i].derivatives()[n] = 0.3 - 0.7 * i;
  }
  against_duals(seeded);
  return difference / scale;
}

TEST(ModelFiles, PotentialGradientEqualsDuals) {
  const auto file = [](const std::string& stem) { return modelfile::bind(modelfile::load(model_path(stem)), {}); };
  double worst = potential_gradient_difference(modelfile::BoundedFileModel(file("double-pendulum")), Vecd<2>(1.1, -0.4));
  worst = std::max(worst, potential_gradient_difference(modelfile::UnboundedFileModel(file("chaotic-oscillator")),
                                                        chaotic_oscillator_point(0.0)));
  worst = std::max(worst, potential_gradient_difference(modelfile::BoundedFileModel(file("chaplygin-sleigh-spring")),
                                                        Vecd<3>(0.3, -0.2, 0.7)));
  test::report("model_file_potential_gradient_direct_vs_duals", worst);
  EXPECT_LT(worst, 1e-14);
}

namespace {
/// A constant metric with entries off its diagonal, and a constraint.
constexpr const char* coupled_masses = R"toml(
name = "coupled-masses"
summary = "a constant metric that is not diagonal"
coordinates = ["x", "y", "phi"]
lagrangian = "(2*x_t^2 + x_t*y_t + y_t^2 + phi_t^2)/2 - (x^2 + 2*y^2)/2 - cos(phi)"
constraints = ["sin(phi)*x_t - cos(phi)*y_t"]

[initial]
q = [0.3, -0.2, 0.7]
v = [0.7648421872844885, 0.644217687237691, 0.4]
)toml";

/// The acceleration and multipliers from L's second derivatives, W = L_vv and r = L_q − L_vq v: what
/// constrained_acceleration computes for a model file whose metric varies.
template <class File, class T>
ConstrainedAccelerationOf<File, T> acceleration_from_lagrangian(const File& file, const VecN<File, T>& q,
                                                                const VecN<File, T>& v) {
  const auto d = lagrangian_derivatives(file, q, v);
  const VecN<File, T> r = d.Lq - d.B * v;
  const MatMN<File, T> M = file.template constraint_matrix<T>(q);
  return detail::saddle_point_acceleration<File>(DualLU<MatNN<File, T>>(d.W), M, r,
                                                 [&] { return constraint_curvature(file, q, v); });
}

/// The largest relative difference between constrained_acceleration of a file with a constant
/// metric (G and ∇V: W = G in doubles, r = −∇V) and the same from L's second derivatives, at (q, v)
/// and with (q, v) carrying a chunk of directions of arbitrary entries (the Jacobian of `mla`'s
/// force takes such chunks).
template <class File>
double constant_metric_acceleration_difference(const File& file, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  EXPECT_TRUE(file.metric_is_constant());
  double difference = 0.0, scale = 0.0;
  const auto compare = [&](const auto& at_q, const auto& at_v) {
    const auto a = constrained_acceleration(file, at_q, at_v, 0.0), b = acceleration_from_lagrangian(file, at_q, at_v);
    for (Eigen::Index i = 0; i < b.acceleration.size(); ++i)
      compare_numbers(a.acceleration[i], b.acceleration[i], difference, scale);
    EXPECT_EQ(a.multiplier.size(), b.multiplier.size());
    for (Eigen::Index r = 0; r < b.multiplier.size(); ++r)
      compare_numbers(a.multiplier[r], b.multiplier[r], difference, scale);
  };
  compare(VecN<File>(q), VecN<File>(v));
  constexpr int W = sizes::chunk_width;
  using D = ad::Dual<double, W>;
  const int n = static_cast<int>(q.size());
  VecN<File, D> qx(n), vx(n);
  for (int i = 0; i < n; ++i) {
    qx[i] = D(q[i], Vecd<W>::NullaryExpr([&](Eigen::Index k) { return std::sin(1.0 + i + 3.0 * k); }));
    vx[i] = D(v[i], Vecd<W>::NullaryExpr([&](Eigen::Index k) { return std::cos(0.5 + 2.0 * i - k); }));
  }
  compare(qx, vx);
  return difference / scale;
}
}  // namespace

// A model file whose metric is constant takes its constrained acceleration from G in doubles and
// ∇V (constrained_acceleration, model/dynamics.hpp), without L's second derivatives: the same
// numbers, values and derivatives, as from those, on files with a diagonal metric (the oscillator of
// 11 coordinates on the heap, the knife edge, two skates with two constraints) and with one that is
// not diagonal, each at three points off the constraint distribution. A sign of ∇V or a misplaced
// derivative is off by the size of the acceleration.
TEST(ModelFiles, ConstantMetricAccelerationEqualsTheLagrangiansDerivatives) {
  const auto file = [](const std::string& stem) { return modelfile::bind(modelfile::load(model_path(stem)), {}); };
  const auto coupled = modelfile::bind(modelfile::load_text(coupled_masses, "coupled-masses"), {});
  double worst = 0.0;
  for (int point = 0; point < 3; ++point) {
    const double s = 0.4 * point;
    const auto line = [&](int n, double from, double to) { return Eigen::VectorXd::LinSpaced(n, from + s, to - s); };
    worst = std::max(worst, constant_metric_acceleration_difference(
                                modelfile::UnboundedFileModel(file("chaotic-oscillator")),
                                chaotic_oscillator_point(0.1 * point), line(11, -0.9, 1.3)));
    worst = std::max(worst, constant_metric_acceleration_difference(modelfile::BoundedFileModel(file("knife-edge")),
                                                                    line(3, 0.3, -0.5), line(3, 1.2, -0.4)));
    worst = std::max(worst, constant_metric_acceleration_difference(modelfile::BoundedFileModel(file("two-skates")),
                                                                    line(6, -0.7, 0.8), line(6, 0.5, -1.1)));
    worst = std::max(worst, constant_metric_acceleration_difference(modelfile::BoundedFileModel(coupled),
                                                                    line(3, 0.3, -0.2), line(3, 0.4, -0.5)));
    worst = std::max(worst, constant_metric_acceleration_difference(modelfile::UnboundedFileModel(coupled),
                                                                    line(3, -0.6, 0.9), line(3, 1.3, 0.2)));
  }
  test::report("model_file_constant_metric_acceleration_vs_lagrangian_derivatives", worst);
  EXPECT_LT(worst, 1e-13);
}

TEST(ModelFiles, InterpretedWithoutACompilerGivesTheSameTrajectory) {
  const InterpretedCopy interpreted("chaplygin-sleigh");
  const auto a = interpreted.entry->run({}, {}, options("dla", 0.1, 50));
  const auto b = catalogue::find("chaplygin-sleigh").run({}, {}, options("dla", 0.1, 50));
  EXPECT_LT(largest_difference(a.trajectory, b.trajectory), 1e-12);
}

TEST(ModelFiles, DerivedQuantitiesAreOutputColumns) {
  // The satellite's angular momentum m r^2 theta' is conserved exactly by DLA (discrete Noether).
  const auto r = catalogue::find(model_path("satellite")).run({}, {}, options("dla", 0.1, 500));
  const std::size_t column = r.trajectory.column("angular_momentum");
  EXPECT_EQ(column, r.trajectory.columns.size() - 1);
  double drift = 0.0;
  for (std::size_t row = 0; row < r.trajectory.rows(); ++row)
    drift = std::max(drift, std::abs(r.trajectory.at(row, column) - 1.2));
  test::report("satellite_angular_momentum_drift", drift);
  EXPECT_LT(drift, 1e-12);
}

// --- Systems that exist only as model files ------------------------------------------------------

namespace {

/// Max-norm error of q(T) for `method` with step T/N against the reference solver.
double error_against_reference(const std::string& path, const std::string& method, double T, long N) {
  const auto& e = catalogue::find(path);
  const auto run = e.run({}, {}, options(method, T / static_cast<double>(N), N));
  auto ro = options("reference", T, 1);
  ro.reference_tolerance = 1e-14;
  const auto ref = e.run({}, {}, ro);
  const int n = static_cast<int>(e.describe({}).coordinates.size());
  double worst = 0.0;
  for (int i = 0; i < n; ++i)
    worst = std::max(worst, std::abs(run.trajectory.at(run.trajectory.rows() - 1, 1 + i) -
                                     ref.trajectory.at(ref.trajectory.rows() - 1, 1 + i)));
  return worst;
}

}  // namespace

TEST(FileOnlySystems, OrdersOfConvergence) {
  const std::vector<long> N = {40, 80, 160, 320};
  for (const char* stem : {"chaplygin-sleigh-spring", "double-pendulum"}) {
    const std::string path = model_path(stem);
    std::vector<double> dla_errors, rk4_errors;
    const double dla = test::measured_order(
        2.0, N, [&](double, long n) { return error_against_reference(path, "dla", 2.0, n); }, &dla_errors);
    const double rk4 = test::measured_order(
        2.0, N, [&](double, long n) { return error_against_reference(path, "rk4", 2.0, n); }, &rk4_errors);
    test::report(std::string(stem) + "_dla_error_h0.05", dla_errors.front());
    test::report(std::string(stem) + "_rk4_error_h0.05", rk4_errors.front());
    test::report(std::string(stem) + "_dla_order", dla);
    test::report(std::string(stem) + "_rk4_order", rk4);
    EXPECT_NEAR(dla, 2.0, 0.1) << stem;
    EXPECT_NEAR(rk4, 4.0, 0.2) << stem;
  }
}

// The energy error of midpoint DLA is O(h²) over a fixed time, and stays small over long runs. For
// the double pendulum (unconstrained: DLA is a variational integrator) it is bounded: no larger over
// the second half of a run to t = 2000 than over the first. For the sleigh on a spring nothing
// guarantees that (nonholonomic integrators need not preserve energy): its error with h = 0.1,
// 3.0e-3 up to t = 1000 and 5.0e-3 up to t = 2000, grows slowly (RK4's, fourth order, is 4e-4).
TEST(FileOnlySystems, EnergyErrorIsSecondOrderAndStaysSmall) {
  for (const char* stem : {"chaplygin-sleigh-spring", "double-pendulum"}) {
    const auto& e = catalogue::find(model_path(stem));
    const double order = test::measured_order(20.0, {200, 400, 800}, [&](double h, long N) {
      return e.run({}, {}, options("dla", h, N)).summary.max_energy_error;
    });
    test::report(std::string(stem) + "_dla_energy_error_order", order);
    EXPECT_NEAR(order, 2.0, 0.15) << stem;

    auto o = options("dla", 0.1, 20000);
    o.every = 10;
    const auto dla = e.run({}, {}, o);
    ASSERT_FALSE(dla.failed()) << dla.summary.message;
    o.method = "rk4";
    const auto rk4 = e.run({}, {}, o);
    const auto& t = dla.trajectory;
    const std::size_t E = t.column("energy");
    double first_half = 0.0, second_half = 0.0;
    for (std::size_t r = 0; r < t.rows(); ++r) {
      double& half = 2 * r < t.rows() ? first_half : second_half;
      half = std::max(half, std::abs(t.at(r, E) - dla.summary.energy0));
    }
    test::report(std::string(stem) + "_dla_max_energy_error_t1000", first_half);
    test::report(std::string(stem) + "_dla_max_energy_error_t2000", dla.summary.max_energy_error);
    test::report(std::string(stem) + "_rk4_max_energy_error_t2000", rk4.summary.max_energy_error);
    if (std::string(stem) == "double-pendulum") {
      EXPECT_LT(dla.summary.max_energy_error, 1e-3);
      EXPECT_LE(second_half, 1.2 * first_half);
    } else {
      EXPECT_LT(dla.summary.max_energy_error, 1e-2);
    }
  }
}

TEST(FileOnlySystems, ConstraintsHoldToRoundOff) {
  const auto r = catalogue::find(model_path("chaplygin-sleigh-spring")).run({}, {}, options("dla", 0.1, 5000));
  test::report("sleigh_spring_max_discrete_constraint", *r.summary.max_discrete_constraint);
  EXPECT_LT(*r.summary.max_discrete_constraint, 1e-12);
  EXPECT_LT(r.summary.max_constraint_residual, 1e-12);
  // The reference solver keeps M(q) v = 0 to its tolerance, RK4 only to its truncation error.
  const auto rk4 = catalogue::find(model_path("chaplygin-sleigh-spring")).run({}, {}, options("rk4", 0.1, 5000));
  test::report("sleigh_spring_rk4_max_constraint", rk4.summary.max_constraint_residual);
  EXPECT_GT(rk4.summary.max_constraint_residual, 1e-9);
}

// --- External forces (`force = [...]`) -----------------------------------------------------------

namespace {

/// The compiled twin of models/dragged-knife-edge.toml: the knife edge on a level plane with the
/// drag F = −c (ẋ, ẏ, 0) on its blade.
struct LevelDraggedKnifeEdge : models::KnifeEdge {
  double drag = 0.2;
  LevelDraggedKnifeEdge() { slope = 0.0; }
  template <class T>
  Vec<T, 3> force(const Vec<T, 3>&, const Vec<T, 3>& v, double) const {
    Vec<T, 3> f;
    f << -drag * v[0], -drag * v[1], 0.0 * v[2];
    return f;
  }
};

/// The largest difference of the positions and velocities of the compiled method's steps from the
/// rows of a run (of a model file, by the library as the command line runs it) from (q0, v0).
template <class Method>
double largest_difference_from_run(const Method& method, const Vecd<3>& q0, const Vecd<3>& v0, const RunResult& run) {
  const Trajectory& rows = run.trajectory;
  EXPECT_FALSE(run.failed()) << run.summary.message;
  EXPECT_EQ(rows.rows(), static_cast<std::size_t>(run.summary.steps + 1));
  EXPECT_EQ(rows.columns[1], "x");
  EXPECT_EQ(rows.columns[4], "x_t");
  auto s = method.initial_state(q0, v0);
  double worst = 0.0;
  for (std::size_t k = 1; k < rows.rows(); ++k) {
    method.step(s);
    const Vecd<3> v = method.velocity(s);
    for (int i = 0; i < 3; ++i)
      worst = std::max({worst, std::abs(rows.at(k, 1 + i) - s.q[i]), std::abs(rows.at(k, 4 + i) - v[i])});
  }
  return worst;
}

RunOptions options(const std::string& method, double h, long steps, double alpha) {
  RunOptions o = options(method, h, steps);
  o.alpha = alpha;
  return o;
}

}  // namespace

/// The largest differences of the compiled model's steps from those of the file `name`, within a
/// bound and on the heap, under dla, dla with α = 0.3, mla and rk4 (200 steps of h = 0.1): each
/// reported as <label>_<method>_difference and expected below 1e-12.
template <class Compiled>
void expect_the_steps_of_the_file(const Compiled& compiled, const std::string& name, const std::string& label) {
  const auto bound = modelfile::bind(modelfile::load(model_path(name)), {});
  ASSERT_TRUE(modelfile::BoundedFileModel(bound).has_force());
  const Vecd<3> q0(0.1, -0.2, 0.3), v0 = 0.5 * Vecd<3>(std::cos(0.3), std::sin(0.3), 2.0);
  const InitialData init{q0, v0, std::nullopt, std::nullopt};
  const auto compare = [&](const std::string& label_of_method, const auto& method, const RunOptions& o) {
    const double d = std::max(largest_difference_from_run(method, q0, v0, modelfile::run_bounded(bound, init, o)),
                              largest_difference_from_run(method, q0, v0, modelfile::run_unbounded(bound, init, o)));
    test::report(label + "_" + label_of_method + "_difference", d);
    EXPECT_LT(d, 1e-12) << label_of_method;
  };
  compare("dla", make_dla(compiled, 0.1), options("dla", 0.1, 200));
  compare("dla_alpha", make_dla(compiled, 0.1, 0.3), options("dla", 0.1, 200, 0.3));
  compare("mla", make_midpoint_mla(compiled, 0.1), options("mla", 0.1, 200));
  compare("rk4", RungeKutta4<Compiled>(compiled, 0.1), options("rk4", 0.1, 200));
}

// A file's force enters gf and fim as the compiled force does: gf's Λ~ of the forced motion from the
// multiplier of the file's constrained acceleration and from the compiled model's formula with first
// derivatives of G, V and M, fim's discrete forces on the file's path and on the compiled model's,
// which carries the momentum below its last bit (model/projectors.hpp, method/momentum_energy.hpp).
template <class Compiled>
void expect_the_forced_gf_and_fim_steps_of_the_file(const Compiled& compiled, const std::string& name,
                                                   const std::string& label) {
  const auto bound = modelfile::bind(modelfile::load(model_path(name)), {});
  const Vecd<3> q0(0.1, -0.2, 0.3), v0 = 0.5 * Vecd<3>(std::cos(0.3), std::sin(0.3), 2.0);
  const InitialData init{q0, v0, std::nullopt, std::nullopt};
  const auto compare = [&](const std::string& label_of_method, const auto& method, const RunOptions& o) {
    const double d = largest_difference_from_run(method, q0, v0, modelfile::run_unbounded(bound, init, o));
    test::report(label + "_" + label_of_method + "_difference", d);
    EXPECT_LT(d, 1e-12) << label_of_method;
  };
  compare("gf", make_gf(compiled, 0.1), options("gf", 0.1, 200));
  compare("fim", make_fim(compiled, 0.1), options("fim", 0.1, 200));
}

/// The largest error of the three positions of `method` (N steps to T) against the entry's closed form.
double error_at_the_end(const catalogue::Entry& e, const std::string& method, double T, long N) {
  const auto exact = e.exact({}, {}, T);
  const auto run = e.run({}, {}, options(method, T / static_cast<double>(N), N));
  double worst = 0.0;
  for (int i = 0; i < 3; ++i)
    worst = std::max(worst, std::abs(run.trajectory.at(run.trajectory.rows() - 1, 1 + i) - (*exact)[i]));
  return worst;
}

// A file's force enters every method that takes one as the compiled force does: dla and mla (the
// midpoint and α-rule discrete forces, with their derivatives for Newton) and rk4 (the constrained
// acceleration) take the same steps, to 1e-12, within a bound and on the heap.
TEST(ModelFileForces, SameStepsAsTheCompiledForce) {
  const LevelDraggedKnifeEdge compiled;
  expect_the_steps_of_the_file(compiled, "dragged-knife-edge", "model_file_force");
  expect_the_forced_gf_and_fim_steps_of_the_file(compiled, "dragged-knife-edge", "model_file_force");
  // The drag does work: without it (c = 0) the runs differ by far more than the bound.
  const auto undragged = modelfile::bind(modelfile::load(model_path("dragged-knife-edge")), {{"c", 0.0}});
  const Vecd<3> q0(0.1, -0.2, 0.3), v0 = 0.5 * Vecd<3>(std::cos(0.3), std::sin(0.3), 2.0);
  EXPECT_GT(largest_difference_from_run(
                make_dla(compiled, 0.1), q0, v0,
                modelfile::run_bounded(undragged, {q0, v0, std::nullopt, std::nullopt}, options("dla", 0.1, 200))),
            1e-2);
}

// The derivative of a step on a model file: DLA's and MLA's equations through the file's Taylor
// kernels with dual numbers two deep (discrete/position_momentum_derivative.hpp), against central
// differences of the step (bound as for the compiled models, test_step_derivatives.cpp): two skates
// joined by a spring (6 coordinates, 2 constraints) and the knife edge with viscous drag (a force)
// within the bound; and on the chaotic oscillator (11 coordinates) on the heap, every discrete
// method that runs on model files (the exact flow with entries moved by 1e-4, as in test_exact.cpp:
// its steps hold to the shooting tolerance).
TEST(ModelFiles, StepDerivativesAgreeWithCentralDifferences) {
  const auto skates = modelfile::bind(modelfile::load(model_path("two-skates")), {});
  const auto dragged = modelfile::bind(modelfile::load(model_path("dragged-knife-edge")), {});
  const modelfile::BoundedFileModel skates_file(skates), dragged_file(dragged);
  using Point = modelfile::BoundedFileModel::Point<double>;
  const Point q0 = skates->q0, v0 = skates->v0, dragged_q0 = dragged->q0, dragged_v0 = dragged->v0;
  EXPECT_LT(test::step_derivative_error("model_file_two_skates_dla", make_dla(skates_file, 0.1), q0, v0), 1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_two_skates_mla", make_midpoint_mla(skates_file, 0.1), q0, v0),
            1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_dragged_knife_edge_dla", make_dla(dragged_file, 0.1), dragged_q0,
                                        dragged_v0),
            1e-8);
  // the generating functions' Λ~ − F and fim's discrete forces, in dual numbers
  EXPECT_LT(test::step_derivative_error("model_file_dragged_knife_edge_gf_sym", make_gf_sym(dragged_file, 0.1, 0.25),
                                        dragged_q0, dragged_v0),
            1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_dragged_knife_edge_fim", make_fim(dragged_file, 0.1), dragged_q0,
                                        dragged_v0),
            1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_dragged_knife_edge_mla", make_midpoint_mla(dragged_file, 0.1),
                                        dragged_q0, dragged_v0),
            1e-8);
  const auto oscillator = modelfile::bind(modelfile::load(model_path("chaotic-oscillator")), {});
  const modelfile::UnboundedFileModel oscillator_file(oscillator);
  const Eigen::VectorXd oscillator_q0 = oscillator->q0, oscillator_v0 = oscillator->v0;
  ASSERT_EQ(oscillator_q0.size(), 11);
  EXPECT_LT(test::step_derivative_error("model_file_chaotic_oscillator_dla", make_dla(oscillator_file, 0.1),
                                        oscillator_q0, oscillator_v0),
            1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_chaotic_oscillator_mla", make_midpoint_mla(oscillator_file, 0.1),
                                        oscillator_q0, oscillator_v0),
            1e-8);
  using Oscillator = modelfile::UnboundedFileModel;
  const auto expect_derivative = [&](const std::string& name, const auto& method) {
    EXPECT_LT(test::step_derivative_error("model_file_chaotic_oscillator_" + name, method, oscillator_q0,
                                          oscillator_v0),
              1e-8)
        << name;
  };
  expect_derivative("del", DiscreteEulerLagrange<Oscillator, AlphaRule<Oscillator>>(
                               oscillator_file, AlphaRule<Oscillator>(oscillator_file, 0.1)));
  expect_derivative("gf", make_gf(oscillator_file, 0.1));
  expect_derivative("gf_sym", make_gf_sym(oscillator_file, 0.1, 0.25));
  expect_derivative("gf_cp", make_gf_cp(oscillator_file, 0.1));
  expect_derivative("fim", make_fim(oscillator_file, 0.1));
  expect_derivative("mp", McLachlanPerlmutter<Oscillator>(oscillator_file, 0.1));
  expect_derivative("dg", DiscreteGradient<Oscillator>(oscillator_file, 0.1));
  expect_derivative("spark", Spark<Oscillator>(oscillator_file, 0.1, 3));
  EXPECT_LT(test::step_derivative_error("model_file_chaotic_oscillator_exact",
                                        ExactDiscreteFlow<Oscillator>(oscillator_file, 0.1), oscillator_q0,
                                        oscillator_v0, 3, 1e-4),
            1e-6);
  // On a table whose rate varies, b(q, t) is among the equations of v_k and the arcs start at t_k
  // (exact), and in the projections of gf-cp and fim at t_{k+1}.
  const auto varying = modelfile::bind(modelfile::load(model_path("varying-turntable-ball")), {});
  const modelfile::UnboundedFileModel varying_file(varying);
  EXPECT_LT(test::step_derivative_error("model_file_varying_turntable_ball_exact",
                                        ExactDiscreteFlow<Oscillator>(varying_file, 0.1), varying->q0, varying->v0,
                                        3, 1e-4),
            1e-6);
  EXPECT_LT(test::step_derivative_error("model_file_varying_turntable_ball_gf_cp", make_gf_cp(varying_file, 0.1),
                                        varying->q0, varying->v0),
            1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_varying_turntable_ball_fim", make_fim(varying_file, 0.1),
                                        varying->q0, varying->v0),
            1e-8);
  // RK4 projects its new state onto a holonomic constraint (model/constraint_projection.hpp): the
  // differences move the state off the pendulum's circle and off its tangent, where the projection
  // acts, so they check the projection's derivative too.
  const auto pendulum = modelfile::bind(modelfile::load(model_path("pendulum-cartesian")), {});
  const modelfile::UnboundedFileModel pendulum_file(pendulum);
  const Eigen::VectorXd pendulum_q0 = pendulum->q0, pendulum_v0 = pendulum->v0;
  EXPECT_LT(test::step_derivative_error("model_file_pendulum_cartesian_rk4",
                                        RungeKutta4<Oscillator>(pendulum_file, 0.1), pendulum_q0, pendulum_v0),
            1e-8);
  // The discrete gradient imposes φ(q1) = 0 with Gonzalez's discrete gradient of φ as the force's
  // direction (method/discrete_gradient.hpp): off the circle ψ(q1) − ψ(q0) is not zero, and the
  // derivative differentiates it.
  EXPECT_LT(test::step_derivative_error("model_file_pendulum_cartesian_dg",
                                        DiscreteGradient<Oscillator>(pendulum_file, 0.1), pendulum_q0, pendulum_v0),
            1e-8);
  // SPARK imposes φ(Q_i) = 0 at its stages (method/spark.hpp), and the derivative differentiates it.
  EXPECT_LT(test::step_derivative_error("model_file_pendulum_cartesian_spark",
                                        Spark<Oscillator>(pendulum_file, 0.1, 3), pendulum_q0, pendulum_v0),
            1e-8);
  // The generating-function family imposes φ(q1) = 0 with an impulse along dφ(q_k) of its own
  // (method/generating_function.hpp), and the derivative differentiates both.
  EXPECT_LT(test::step_derivative_error("model_file_pendulum_cartesian_gf", make_gf(pendulum_file, 0.1), pendulum_q0,
                                        pendulum_v0),
            1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_pendulum_cartesian_gf_sym", make_gf_sym(pendulum_file, 0.1, 0.25),
                                        pendulum_q0, pendulum_v0),
            1e-8);
  EXPECT_LT(test::step_derivative_error("model_file_pendulum_cartesian_gf_cp", make_gf_cp(pendulum_file, 0.1),
                                        pendulum_q0, pendulum_v0),
            1e-8);
  // A bead on the line y = 0 in a potential: RK4 keeps this φ exactly zero on its own, so the
  // projection's Newton loop starts at φ = 0 and must still act on the derivatives.
  const fs::path line_path =
      fs::temp_directory_path() / ("dalembert_bead_on_a_line_" + std::to_string(::getpid()) + ".toml");
  std::ofstream(line_path) << "name = \"bead-on-a-line\"\ncoordinates = [\"x\", \"y\"]\n"
                              "lagrangian = \"(x_t^2 + y_t^2)/2 - y - x^4/4\"\nholonomic = [\"y\"]\n"
                              "[initial]\nq = [1, 0]\nv = [0.4, 0]\n";
  const auto line = modelfile::bind(modelfile::load(line_path.string()), {});
  fs::remove(line_path);
  const modelfile::UnboundedFileModel line_file(line);
  const Eigen::VectorXd line_q0 = line->q0, line_v0 = line->v0;
  EXPECT_LT(test::step_derivative_error("model_file_bead_on_a_line_rk4", RungeKutta4<Oscillator>(line_file, 0.1),
                                        line_q0, line_v0),
            1e-8);
}

// The derivative by a constant external force f (step_derivatives' by_force) on a model file, against
// central differences in f: the dragged knife edge with f1, f2, f3 added to its force as parameters
// (zero), bound at ±1e-5 for the differences; three steps of h = 0.1 in, every method that takes
// the file's force and has step_derivatives. The bound instance is what `run` steps.
TEST(ModelFiles, StepDerivativesByAConstantForce) {
  const fs::path path =
      fs::temp_directory_path() / ("dalembert_constant_force_" + std::to_string(::getpid()) + ".toml");
  {
    std::ifstream in(model_path("dragged-knife-edge"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string force = "force = [\"-c*x_t\", \"-c*y_t\", 0]";
    ASSERT_NE(text.find(force), std::string::npos);
    text.replace(text.find(force), force.size(), "force = [\"-c*x_t + f1\", \"-c*y_t + f2\", \"f3\"]");
    const std::string parameters = "[parameters]\n";
    ASSERT_NE(text.find(parameters), std::string::npos);
    text.insert(text.find(parameters) + parameters.size(), "f1 = 0.0\nf2 = 0.0\nf3 = 0.0\n");
    std::ofstream(path) << text;
  }
  const auto loaded = modelfile::load(path.string());
  fs::remove(path);
  using File = modelfile::BoundedFileModel;
  const auto bound = modelfile::bind(loaded, {});
  const File file(bound);
  const File::Point<double> q0 = bound->q0, v0 = bound->v0;
  const auto by_force_error = [&](const std::string& name, const auto& make) {
    const auto method = make(file, 0.1);
    auto s = method.initial_state(q0, v0);
    for (int k = 0; k < 3; ++k) method.step(s);
    const StepDerivatives d = method.step_derivatives(s);
    Eigen::MatrixXd reference(6, 3);
    for (int j = 0; j < 3; ++j) {
      const std::string f = "f" + std::to_string(j + 1);
      const File up(modelfile::bind(loaded, {{f, 1e-5}})), down(modelfile::bind(loaded, {{f, -1e-5}}));
      auto s_up = s, s_down = s;
      make(up, 0.1).step(s_up);
      make(down, 0.1).step(s_down);
      reference.col(j) << (s_up.q - s_down.q) / 2e-5, (s_up.p - s_down.p) / 2e-5;
    }
    const double error = (d.by_force - reference).cwiseAbs().maxCoeff() / d.by_force.cwiseAbs().maxCoeff();
    test::report("model_file_force_derivative_" + name, error);
    EXPECT_LT(error, 1e-8) << name;
  };
  by_force_error("dla", [](const File& f, double h) { return make_dla(f, h); });
  by_force_error("mla", [](const File& f, double h) { return make_midpoint_mla(f, h); });
  by_force_error("mp", [](const File& f, double h) { return McLachlanPerlmutter<File>(f, h); });
  by_force_error("dg", [](const File& f, double h) { return DiscreteGradient<File>(f, h); });
  by_force_error("spark", [](const File& f, double h) { return Spark<File>(f, h, 3); });
}

// Every method that takes a force converges to the file's closed form at its order, and the energy
// decays as the closed form says, ½ m s0² e^{−2ct/m} + ½ J ω².
TEST(ModelFileForces, OrdersAgainstTheClosedForm) {
  const auto& e = catalogue::find(model_path("dragged-knife-edge"));
  const double T = 4.0;
  ASSERT_TRUE(e.exact({}, {}, T));
  const auto error = [&](const std::string& method, long N) { return error_at_the_end(e, method, T, N); };
  const std::vector<std::pair<std::string, double>> expected_orders = {
      {"dla", 2.0}, {"mla", 2.0}, {"gf", 2.0}, {"gf-sym", 2.0}, {"gf-cp", 2.0}, {"fim", 2.0}, {"rk4", 4.0}};
  for (const auto& [name, expected] : expected_orders) {
    if (!method_available(name)) continue;
    const std::string method = name;
    const double order = test::measured_order(T, {20, 40, 80, 160}, [&](double, long N) { return error(method, N); });
    test::report("dragged_knife_edge_" + method + "_order", order);
    EXPECT_NEAR(order, expected, 0.1) << method;
  }
  const auto run = e.run({}, {}, options("dla", 0.01, 400));
  const double s0 = 0.5, w = 1.0, E = 0.5 * s0 * s0 * std::exp(-2 * 0.2 * T) + 0.5 * w * w;
  test::report("dragged_knife_edge_dla_energy_error_t4", std::abs(run.trajectory.at(400, run.trajectory.column("energy")) - E));
  EXPECT_LT(std::abs(run.trajectory.at(400, run.trajectory.column("energy")) - E), 1e-7);
}

// The force kernels also run without a compiler (interpreted): the same trajectory.
TEST(ModelFileForces, InterpretedWithoutACompilerGivesTheSameTrajectory) {
  const InterpretedCopy interpreted("dragged-knife-edge");
  for (const char* method : {"dla", "mla", "rk4"}) {
    const auto a = interpreted.entry->run({}, {}, options(method, 0.1, 50));
    const auto b = catalogue::find(model_path("dragged-knife-edge")).run({}, {}, options(method, 0.1, 50));
    EXPECT_LT(largest_difference(a.trajectory, b.trajectory), 1e-12) << method;
  }
}

// --- A force that depends on the time ------------------------------------------------------------

namespace {
/// The compiled twin of models/pushed-knife-edge.toml: the knife edge on a level plane pushed along
/// its blade by F = A sin(W t) (cos φ, sin φ, 0).
struct PushedKnifeEdge : models::KnifeEdge {
  double amplitude = 0.5, frequency = 3.0;
  PushedKnifeEdge() { slope = 0.0; }
  template <class T>
  Vec<T, 3> force(const Vec<T, 3>& q, const Vec<T, 3>& v, double t) const {
    using std::cos, std::sin;
    const double push = amplitude * std::sin(frequency * t);
    Vec<T, 3> f;
    f << push * cos(q[2]), push * sin(q[2]), 0.0 * v[2];
    return f;
  }
};
}  // namespace

// The file's force of t enters every method at the times of its steps and stages as the compiled
// force does: the same steps to 1e-12, within a bound and on the heap.
TEST(ModelFileForces, TimeDependentForceSameStepsAsTheCompiledForce) {
  const modelfile::BoundedFileModel file(modelfile::bind(modelfile::load(model_path("pushed-knife-edge")), {}));
  EXPECT_TRUE(file.force_depends_on_time());
  EXPECT_TRUE(has_time_dependent_force(file));
  expect_the_steps_of_the_file(PushedKnifeEdge{}, "pushed-knife-edge", "model_file_time_force");
}

// Every method that takes a force converges to the closed form of the pushed knife edge at its
// order; a force read at the start of each step instead of at its stages would give order 1. The
// energy follows ½ m s(t)² + ½ J ω² with the blade speed s = s0 + A/(m W) (1 − cos W t).
TEST(ModelFileForces, TimeDependentForceOrdersAgainstTheClosedForm) {
  const auto& e = catalogue::find(model_path("pushed-knife-edge"));
  EXPECT_TRUE(e.describe({}).external_force);
  const double T = 4.0;
  ASSERT_TRUE(e.exact({}, {}, T));
  const auto error = [&](const std::string& method, long N) { return error_at_the_end(e, method, T, N); };
  const std::vector<std::pair<std::string, double>> expected_orders = {
      {"dla", 2.0},        {"mla", 2.0},   {"gf", 2.0},        {"gf-sym", 2.0},
      {"gf-cp", 2.0},      {"fim", 2.0},   {"rk4", 4.0},       {"mclachlan-perlmutter", 2.0},
      {"discrete-gradient", 2.0},          {"spark", 4.0}};
  for (const auto& [name, expected] : expected_orders) {
    if (!method_available(name)) continue;
    const std::string method = name;
    const double order = test::measured_order(T, {20, 40, 80, 160}, [&](double, long N) { return error(method, N); });
    test::report("pushed_knife_edge_" + method + "_order", order);
    EXPECT_NEAR(order, expected, 0.15) << method;
  }
  EXPECT_LT(error("reference", 40), 1e-9);
  const auto run = e.run({}, {}, options("dla", 0.01, 400));
  const double b = 0.5 / 3.0, s = 0.5 + b * (1.0 - std::cos(3.0 * T)), E = 0.5 * s * s + 0.5;
  const double energy_error = std::abs(run.trajectory.at(400, run.trajectory.column("energy")) - E);
  test::report("pushed_knife_edge_dla_energy_error_t4", energy_error);
  EXPECT_LT(energy_error, 1e-4);
}

// The exact flow's arcs start at each step's time t_k: with the force of t, steps of h = 0.5 meet
// the closed form above to the shooting's accuracy (arcs that all started at t = 0 would give every
// step the first step's push, 0.15 of speed, where the true push averages out), the energy's
// balance with the force's work holds to the integration's accuracy, and the compiled twin shoots
// the same arcs as the file.
TEST(ModelFileForces, ExactShootsEachArcFromItsStepsTime) {
  const auto& e = catalogue::find(model_path("pushed-knife-edge"));
  const double error = error_at_the_end(e, "exact", 4.0, 8);
  test::report("pushed_knife_edge_exact_error_h0.5", error);
  EXPECT_LT(error, 1e-9);
  // The force's work is integrated along the arcs (the trapezoidal rule on the rows: 4.3e-2 by t = 50)
  const auto long_run = e.run({}, {}, options("exact", 0.5, 100));
  ASSERT_TRUE(long_run.summary.max_energy_balance_error);
  test::report("pushed_knife_edge_exact_energy_balance_h0.5", *long_run.summary.max_energy_balance_error);
  EXPECT_LT(*long_run.summary.max_energy_balance_error, 1e-9);
  EXPECT_TRUE(long_run.summary.warnings.empty());
  const auto bound = modelfile::bind(modelfile::load(model_path("pushed-knife-edge")), {});
  const Vecd<3> q0 = Vecd<3>::Zero(), v0(0.5, 0.0, 1.0);  // the file's
  const InitialData init{q0, v0, std::nullopt, std::nullopt};
  const double d = largest_difference_from_run(ExactDiscreteFlow<PushedKnifeEdge>(PushedKnifeEdge{}, 0.5), q0, v0,
                                               modelfile::run_bounded(bound, init, options("exact", 0.5, 8)));
  EXPECT_LT(d, 1e-10);
}

// --- A Lagrangian that depends on the time ------------------------------------------------------

namespace {
/// The compiled twin of models/rocking-knife-edge.toml, written with the force its potential
/// V = −m g cos(W t) x exerts instead: F = m g cos(W t) e_x on the knife edge of a level plane.
struct RockingKnifeEdge : models::KnifeEdge {
  double pull = 0.5, frequency = 0.8;
  RockingKnifeEdge() { slope = 0.0; }
  template <class T>
  Vec<T, 3> force(const Vec<T, 3>&, const Vec<T, 3>& v, double t) const {
    Vec<T, 3> f;
    f << mass * pull * std::cos(frequency * t) + 0.0 * v[0], 0.0 * v[1], 0.0 * v[2];
    return f;
  }
};

/// The largest error of the positions at T of `method` (N steps) against the entry's closed form.
double position_error_at_the_end(const catalogue::Entry& e, const std::string& method, double T, long N) {
  const auto exact = e.exact({}, {}, T);
  const auto run = e.run({}, {}, options(method, T / static_cast<double>(N), N));
  EXPECT_FALSE(run.failed()) << method << ": " << run.summary.message;
  double worst = 0.0;
  for (Eigen::Index i = 0; i < exact->size(); ++i)
    worst = std::max(worst, std::abs(run.trajectory.at(run.trajectory.rows() - 1, 1 + i) - (*exact)[i]));
  return worst;
}
}  // namespace

// A time-dependent potential is the force it exerts: the file, whose steps see L(q, v, 0) and the
// force of the rest, takes the steps of its compiled twin, which has no potential and the force
// m g cos(W t) e_x, under dla, mla and rk4 (200 steps of h = 0.1, within a bound and on the heap).
// A wrong sign of the time-dependent force would leave them 1e-1 apart.
TEST(TimeDependentLagrangians, APotentialOfTimeTakesTheStepsOfItsForce) {
  const auto bound = modelfile::bind(modelfile::load(model_path("rocking-knife-edge")), {});
  const modelfile::BoundedFileModel file(bound);
  EXPECT_TRUE(file.lagrangian_depends_on_time());
  EXPECT_TRUE(has_time_dependent_force(file));
  const RockingKnifeEdge compiled;
  const Vecd<3> q0(0.1, -0.2, 0.3), v0 = 0.5 * Vecd<3>(std::cos(0.3), std::sin(0.3), 2.0);
  const InitialData init{q0, v0, std::nullopt, std::nullopt};
  const auto compare = [&](const std::string& name, const auto& method) {
    const RunOptions o = options(name, 0.1, 200);
    const double d = std::max(largest_difference_from_run(method, q0, v0, modelfile::run_bounded(bound, init, o)),
                              largest_difference_from_run(method, q0, v0, modelfile::run_unbounded(bound, init, o)));
    test::report("rocking_knife_edge_" + name + "_difference", d);
    EXPECT_LT(d, 1e-12) << name;
  };
  compare("dla", make_dla(compiled, 0.1));
  compare("mla", make_midpoint_mla(compiled, 0.1));
  compare("rk4", RungeKutta4<RockingKnifeEdge>(compiled, 0.1));
}

// Every method that takes a force converges at its order to the closed forms of a driven
// oscillator (a potential of t) and of a free particle seen from spinning axes (terms of t linear
// in the velocities), and the reference solver to 1e-9. From N = 40 steps to T = 4: from 20, rk4's
// error on the driven oscillator is not yet asymptotic (its ratios grow 13.0, 14.7, 15.4, 15.7).
TEST(TimeDependentLagrangians, OrdersAgainstTheClosedForms) {
  const std::vector<std::pair<std::string, double>> expected_orders = {{"del", 2.0},
                                                                       {"dla", 2.0},
                                                                       {"mla", 2.0},
                                                                       {"gf", 2.0},
                                                                       {"gf-sym", 2.0},
                                                                       {"gf-cp", 2.0},
                                                                       {"fim", 2.0},
                                                                       {"rk4", 4.0},
                                                                       {"mclachlan-perlmutter", 2.0},
                                                                       {"discrete-gradient", 2.0},
                                                                       {"spark", 4.0}};
  for (const char* stem : {"driven-oscillator", "spinning-frame"}) {
    const auto& e = catalogue::find(model_path(stem));
    EXPECT_TRUE(e.describe({}).lagrangian_depends_on_time) << stem;
    EXPECT_FALSE(e.describe({}).external_force) << stem;
    const double T = 4.0;
    ASSERT_TRUE(e.exact({}, {}, T)) << stem;
    for (const auto& [name, expected] : expected_orders) {
      if (!method_available(name)) continue;
      const std::string method = name;
      const double order = test::measured_order(
          T, {40, 80, 160, 320}, [&](double, long N) { return position_error_at_the_end(e, method, T, N); });
      test::report(std::string(stem) + "_" + method + "_order", order);
      EXPECT_NEAR(order, expected, 0.15) << stem << " " << method;
    }
    EXPECT_LT(position_error_at_the_end(e, "reference", T, 40), 1e-9) << stem;
    if (method_available("exact")) EXPECT_LT(position_error_at_the_end(e, "exact", T, 8), 1e-9) << stem;
  }
}

// The energy column is v·∂L/∂v − L at the row's time, an identity to round-off on every row
// (relative to the size of its terms): ½ m v² + ½ k x² − A x cos(W t) for the driven oscillator,
// ½|v|² − ½ (a t)² |q|² for the spinning axes (lagrangian() is L at t = 0; the rest comes from
// energy_at_time). A wrong sign of either part is off by its size.
TEST(TimeDependentLagrangians, EnergyIsThatOfTheLagrangianAtTheRowsTime) {
  const auto driven = catalogue::find(model_path("driven-oscillator")).run({}, {}, options("dla", 0.1, 100));
  const auto spinning = catalogue::find(model_path("spinning-frame")).run({}, {}, options("rk4", 0.1, 100));
  double worst_driven = 0.0, worst_spinning = 0.0;
  const Trajectory& a = driven.trajectory;
  for (std::size_t k = 0; k < a.rows(); ++k) {
    const double t = a.at(k, 0), x = a.at(k, 1), v = a.at(k, 2);
    const double E = 0.5 * v * v + 0.5 * x * x - 0.5 * x * std::cos(0.6 * t);
    const double size = 0.5 * v * v + 0.5 * x * x + std::abs(0.5 * x * std::cos(0.6 * t));
    worst_driven = std::max(worst_driven, std::abs(a.at(k, a.column("energy")) - E) / size);
  }
  const Trajectory& b = spinning.trajectory;
  for (std::size_t k = 0; k < b.rows(); ++k) {
    const double t = b.at(k, 0), rate = 0.5 * t;
    const double q2 = b.at(k, 1) * b.at(k, 1) + b.at(k, 2) * b.at(k, 2),
                 v2 = b.at(k, 3) * b.at(k, 3) + b.at(k, 4) * b.at(k, 4);
    const double size = 0.5 * v2 + 0.5 * rate * rate * q2;
    worst_spinning =
        std::max(worst_spinning, std::abs(b.at(k, b.column("energy")) - (0.5 * v2 - 0.5 * rate * rate * q2)) / size);
  }
  test::report("driven_oscillator_energy_identity_relative", worst_driven);
  test::report("spinning_frame_energy_identity_relative", worst_spinning);
  EXPECT_LT(worst_driven, 1e-14);
  EXPECT_LT(worst_spinning, 1e-14);
}

// The momentum columns are ∂L/∂v at the row's time: for the spinning axes (x_t − a t y, y_t + a t x)
// with the velocity columns of the same row, under dla and mla, whose velocity is the inverse
// Legendre map of their momentum of L(q, v, 0) (add_momentum_at_time adds a t J q). Without that
// term they would be off by a t |q| (up to 5 here).
TEST(TimeDependentLagrangians, MomentumColumnsAreThoseOfTheLagrangianAtTheRowsTime) {
  for (const char* method : {"dla", "mla"}) {
    const auto run = catalogue::find(model_path("spinning-frame")).run({}, {}, options(method, 0.1, 100));
    const Trajectory& r = run.trajectory;
    const std::size_t px = r.column("p_x"), py = r.column("p_y");
    double worst = 0.0;
    for (std::size_t k = 1; k < r.rows(); ++k) {
      const double rate = 0.5 * r.at(k, 0), x = r.at(k, 1), y = r.at(k, 2);
      const double size = std::abs(r.at(k, 3)) + std::abs(r.at(k, 4)) + rate * (std::abs(x) + std::abs(y));
      worst = std::max(
          worst,
          (std::abs(r.at(k, px) - (r.at(k, 3) - rate * y)) + std::abs(r.at(k, py) - (r.at(k, 4) + rate * x))) / size);
    }
    test::report(std::string("spinning_frame_") + method + "_momentum_identity_relative", worst);
    EXPECT_LT(worst, 1e-14) << method;
  }
}

// --- Contact systems (`action = "z"`) ------------------------------------------------------------

// The catalogue's contact systems written as model files take the same steps with every contact
// method that applies: herglotz (the thesis' rule, --alpha, the trapezoid), exact (without
// constraints), rk4 and reference; positions, z and energy to 1e-12 (1e-11 for the reference
// solver, whose step control amplifies rounding differences).
TEST(ContactModelFiles, SameTrajectoriesAsTheCatalogue) {
  struct Case {
    std::string method, rule;
    double alpha;
  };
  const std::vector<Case> cases = {{"herglotz", "alpha", 0.5}, {"herglotz", "alpha", 0.3}, {"herglotz", "trapezoid", 0.5},
                                   {"exact", "alpha", 0.5},    {"rk4", "alpha", 0.5},      {"reference", "alpha", 0.5}};
  double worst = 0.0;
  int compared = 0;
  for (const char* name : {"damped-oscillator", "damped-oscillator-2d", "damped-knife-edge"}) {
    for (const auto& c : cases) {
      auto o = options(c.method, 0.05, c.method == "exact" ? 40 : 200);
      o.rule = c.rule;
      o.alpha = c.alpha;
      std::optional<RunResult> builtin;
      try {
        builtin = catalogue::find(name).run({}, {}, o);
      } catch (const BadInput&) {
        continue;  // exact on the constrained knife edge
      }
      const auto file = catalogue::find(model_path(name)).run({}, {}, o);
      ASSERT_FALSE(builtin->failed()) << name << " " << c.method;
      ASSERT_FALSE(file.failed()) << name << " " << c.method << ": " << file.summary.message;
      EXPECT_EQ(file.trajectory.columns, builtin->trajectory.columns) << name;
      const double d = largest_difference(builtin->trajectory, file.trajectory);
      EXPECT_LT(d, c.method == "reference" ? 1e-11 : 1e-12) << name << " with " << c.method << " " << c.rule << " "
                                                             << c.alpha;
      worst = std::max(worst, d);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 17);  // every case but exact on the knife edge
  test::report("contact_model_file_largest_trajectory_difference", worst);
  // The exponential rule needs L = L0(q, v) + gamma z as a compiled form: refused for files.
  auto o = options("herglotz", 0.05, 10);
  o.rule = "exponential";
  EXPECT_THROW(catalogue::find(model_path("damped-oscillator")).run({}, {}, o), BadInput);
}

// describe gives the initial action; --z0 and --param apply as for the catalogue.
TEST(ContactModelFiles, InitialActionAndParameters) {
  const auto d = catalogue::find(model_path("damped-knife-edge")).describe({});
  ASSERT_TRUE(d.z0);
  EXPECT_EQ(*d.z0, 0.0);
  InitialData init;
  init.z0 = 0.7;
  auto o = options("herglotz", 0.05, 100);
  const catalogue::ParameterValues params = {{"gamma", -0.2}};
  const auto a = catalogue::find("damped-knife-edge").run(params, init, o);
  const auto b = catalogue::find(model_path("damped-knife-edge")).run(params, init, o);
  EXPECT_LT(largest_difference(a.trajectory, b.trajectory), 1e-12);
  EXPECT_EQ(b.trajectory.at(0, b.trajectory.column("z")), 0.7);
}

namespace {

/// K copies of the catalogue's damped oscillator (one coordinate) or damped knife edge (three, one
/// constraint) in one contact file, sharing the action: L = Σ_c L_c + γ z. Since ∂L/∂z = γ does not
/// depend on the state, the Herglotz(–d'Alembert) equations of each copy, continuous and discrete,
/// involve only its own coordinates, so each copy moves as the catalogue system does alone. Copy c
/// starts from its own point; its coordinates are named with the letter 'a' + c.
struct ContactCopies {
  std::string text;
  std::vector<InitialData> starts;  ///< the catalogue system's initial data of each copy
};

ContactCopies contact_copies(int K, bool knife_edge) {
  const auto list = [](const std::vector<std::string>& items) {
    std::string s;
    for (const auto& item : items) s += (s.empty() ? "" : ", ") + item;
    return "[" + s + "]";
  };
  std::vector<std::string> coordinates, lagrangian, constraints, q, v;
  ContactCopies copies;
  for (int c = 0; c < K; ++c) {
    const std::string id(1, static_cast<char>('a' + c));
    InitialData start;
    if (knife_edge) {
      const std::string x = "x" + id, y = "y" + id, phi = "phi" + id;
      coordinates.insert(coordinates.end(), {"\"" + x + "\"", "\"" + y + "\"", "\"" + phi + "\""});
      lagrangian.push_back("m/2*(" + x + "_t^2 + " + y + "_t^2) + J/2*" + phi + "_t^2 + m*g*" + x);
      constraints.push_back("\"sin(" + phi + ")*" + x + "_t - cos(" + phi + ")*" + y + "_t\"");
      start.q0 = Eigen::Vector3d(0.1 * c, -0.1 * c, 0.0);
      start.v0 = Eigen::Vector3d(0.5 + 0.1 * c, 0.0, 1.0 - 0.2 * c);  // in the distribution at phi = 0
    } else {
      coordinates.push_back("\"q" + id + "\"");
      lagrangian.push_back("(q" + id + "_t^2 - q" + id + "^2)/2");
      start.q0 = Eigen::VectorXd::Constant(1, 1.0 + 0.1 * c);
      start.v0 = Eigen::VectorXd::Constant(1, 2.0 - 0.2 * c);
    }
    for (Eigen::Index i = 0; i < start.q0.size(); ++i) {
      q.push_back(std::to_string(start.q0[i]));
      v.push_back(std::to_string(start.v0[i]));
    }
    copies.starts.push_back(start);
  }
  std::string L;
  for (const auto& term : lagrangian) L += term + " + ";
  copies.text = "name = \"copies\"\ncoordinates = " + list(coordinates) + "\naction = \"z\"\nlagrangian = \"" + L +
                "gamma*z\"\n" + (knife_edge ? "constraints = " + list(constraints) + "\n" : "") +
                "[parameters]\ngamma = -0.05\n" + (knife_edge ? "m = 1.0\nJ = 1.0\ng = 0.5\n" : "") +
                "[initial]\nq = " + list(q) + "\nv = " + list(v) + "\nz = 0\n";
  return copies;
}

}  // namespace

// Contact files of more than sizes::bounded_model_file coordinates run on the heap instances: ten damped
// oscillators (10 coordinates) with herglotz, exact and rk4, three damped knife edges (9
// coordinates, 3 constraints) with herglotz, rk4 and the reference solver, each copy against the
// catalogue system alone.
TEST(ContactModelFiles, MoreThanEightCoordinatesOnTheHeap) {
  struct Case {
    int copies;
    bool knife_edge;
    std::string method;
    long steps;
  };
  const std::vector<Case> cases = {{10, false, "herglotz", 200}, {10, false, "exact", 20}, {10, false, "rk4", 200},
                                   {3, true, "herglotz", 200},   {3, true, "rk4", 200},    {3, true, "reference", 20}};
  const std::vector<std::string> oscillator = {"q"}, knife_edge = {"x", "y", "phi"};
  double worst = 0.0;
  for (const auto& c : cases) {
    const ContactCopies copies = contact_copies(c.copies, c.knife_edge);
    const auto& entry = modelfile::model_text_entry(copies.text, "copies-" + std::to_string(c.copies));
    ASSERT_GT(entry.describe({}).coordinates.size(), static_cast<std::size_t>(sizes::bounded_model_file));
    const RunOptions o = options(c.method, 0.05, c.steps);
    const RunResult all = entry.run({}, {}, o);
    ASSERT_FALSE(all.failed()) << c.method << ": " << all.summary.message;
    const auto& names = c.knife_edge ? knife_edge : oscillator;
    for (int k = 0; k < c.copies; ++k) {
      const RunResult alone =
          catalogue::find(c.knife_edge ? "damped-knife-edge" : "damped-oscillator").run({}, copies.starts[k], o);
      ASSERT_FALSE(alone.failed());
      ASSERT_EQ(alone.trajectory.rows(), all.trajectory.rows());
      const std::string id(1, static_cast<char>('a' + k));
      for (const auto& name : names) {
        const std::size_t a = alone.trajectory.column(name), b = all.trajectory.column(name + id);
        for (std::size_t r = 0; r < alone.trajectory.rows(); ++r) {
          const double d = std::abs(alone.trajectory.at(r, a) - all.trajectory.at(r, b));
          EXPECT_LT(d, 1e-12) << c.method << " copy " << k << " " << name << " row " << r;
          worst = std::max(worst, d);
        }
      }
    }
  }
  test::report("contact_copies_largest_difference_from_the_catalogue", worst);
}
