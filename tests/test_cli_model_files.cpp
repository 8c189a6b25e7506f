// Model files on the command line (docs/model-files.md): run, describe, compare and convergence
// accept a model file wherever they accept a catalogue name; every malformed file is refused with
// exit status 2 and a message naming the file, the line and the offending expression, before
// anything runs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace fs = std::filesystem;

namespace {

using cli_test::Result;
using cli_test::slurp;
using cli_test::lines;
using cli_test::scratch;


std::string model(const std::string& stem) { return std::string(DALEMBERT_SOURCE_DIR) + "/models/" + stem + ".toml"; }

Result dalembert(const std::string& args, const std::string& environment = "") {
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  const std::string cmd = "cd " + scratch().string() + " && " + environment + " " + std::string(DALEMBERT_EXECUTABLE) +
                          " " + args + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

/// Writes `text` as a model file and returns its path.
std::string write_model(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / (name + ".toml");
  std::ofstream(p) << text;
  return p.string();
}

// A valid knife edge; the malformed cases change one line of it.
const std::string knife_edge = R"(name = "knife edge on an inclined plane"
coordinates = ["x", "y", "phi"]
parameters = { g = 1.0 }
lagrangian = "0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/2"
constraints = ["sin(phi)*x_t - cos(phi)*y_t"]   # linear in the velocities
[initial]
q = [0, 0, 0]
v = [1, 0, 0.5]
)";

std::string replace_line(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

/// The malformed file is refused: status 2, nothing on stdout, and stderr names FILE:LINE and `mentions`.
void expect_refused(const std::string& name, const std::string& text, int line, const std::vector<std::string>& mentions) {
  const std::string path = write_model(name, text);
  const auto r = dalembert("run " + path + " --method dla --h 0.1 --steps 10");
  EXPECT_EQ(r.status, 2) << name << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << name;
  EXPECT_NE(r.err.find(path + ":" + std::to_string(line) + ":"), std::string::npos) << name << "\nstderr: " << r.err;
  for (const auto& m : mentions) EXPECT_NE(r.err.find(m), std::string::npos) << name << ": no '" << m << "' in\n" << r.err;
  // describe refuses it too: the checks come before anything else
  EXPECT_EQ(dalembert("describe " + path).status, 2) << name;
}

}  // namespace

TEST(CliModelFiles, TheIssueExampleRunsAndWritesTheContractCsv) {
  const std::string path = write_model("issue_example", knife_edge);
  const auto r = dalembert("run " + path + " --method dla --h 0.1 --t-end 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = lines(r.out);
  ASSERT_EQ(l.size(), 12u);
  EXPECT_EQ(l[0],
            "t,x,y,phi,x_t,y_t,phi_t,energy,constraint,discrete_constraint,newton_iterations,p_x,p_y,p_phi,lambda_1");
  // E = ½|v|² − g x/2 = ½(1 + 0.25) at the start
  EXPECT_EQ(l[1].rfind("0,0,0,0,1,0,0.5,0.625,", 0), 0u) << l[1];  // t, q, v = (1, 0, 0.5), E
}

TEST(CliModelFiles, ModelFilesAreAcceptedWhereverSystemsAre) {
  const auto d = dalembert("describe " + model("vertical-disk") + " --json");
  ASSERT_EQ(d.status, 0) << d.err;
  const auto j = nlohmann::json::parse(d.out);
  EXPECT_EQ(j["name"], "vertical-disk");
  EXPECT_EQ(j["coordinates"], nlohmann::json({"x", "y", "theta", "phi"}));
  EXPECT_EQ(j["constraints"], 2);
  EXPECT_EQ(j["closed_form"], true);
  EXPECT_DOUBLE_EQ(j["parameters"]["R"].get<double>(), 1.0);

  // The same CSV as the catalogue system (to rounding), with a parameter changed.
  const auto a = dalembert("run knife-edge --method dla --h 0.1 --steps 20 --param k=0.3");
  const auto b = dalembert("run " + model("knife-edge") + " --method dla --h 0.1 --steps 20 --param k=0.3");
  ASSERT_EQ(b.status, 0) << b.err;
  const auto la = lines(a.out), lb = lines(b.out);
  ASSERT_EQ(la.size(), 22u);
  ASSERT_EQ(lb.size(), la.size());
  EXPECT_EQ(la[0], lb[0]);
  for (std::size_t i = 1; i < la.size(); ++i) {
    std::istringstream sa(la[i]), sb(lb[i]);
    for (std::string xa, xb; std::getline(sa, xa, ',') && std::getline(sb, xb, ',');) {
      if (xa == "nan" && xb == "nan") continue;  // the multiplier of the first row
      EXPECT_NEAR(std::stod(xa), std::stod(xb), 1e-12) << "row " << i;
    }
  }

  const auto unknown = dalembert("run " + model("knife-edge") + " --method dla --h 0.1 --steps 2 --param mass=2");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown parameter 'mass'"), std::string::npos) << unknown.err;

  const auto conv = dalembert("convergence " + model("harmonic-oscillator") + " --method dla --h-list 0.1,0.05,0.025 --t-end 1");
  ASSERT_EQ(conv.status, 0) << conv.err;
  EXPECT_NE(conv.out.find("reference: closed form"), std::string::npos) << conv.out;
  const auto fitted = conv.out.find("fitted order: ");
  ASSERT_NE(fitted, std::string::npos) << conv.out;
  EXPECT_NEAR(std::stod(conv.out.substr(fitted + 14)), 2.0, 0.05) << conv.out;
  EXPECT_TRUE(fs::exists(scratch() / "convergence-harmonic-oscillator-dla" / "convergence.csv"));

  const auto cmp = dalembert("compare " + model("double-pendulum") + " --methods dla,rk4 --h 0.1 --t-end 2");
  ASSERT_EQ(cmp.status, 0) << cmp.err;
  EXPECT_NE(cmp.out.find("reference: reference solver"), std::string::npos) << cmp.out;
  EXPECT_TRUE(fs::exists(scratch() / "compare-double-pendulum" / "compare.csv"));
}

TEST(CliModelFiles, AColumnNameThatWouldRepeatIsRefused) {
  // The momentum column of x would be named like the coordinate p_x.
  const std::string path = write_model("repeated_column", R"toml(name = "two particles"
coordinates = ["x", "p_x"]
lagrangian = "0.5*(x_t^2 + p_x_t^2)"
[initial]
q = [0, 0]
v = [1, 0]
)toml");
  const auto r = dalembert("run " + path + " --method dla --h 0.1 --steps 2");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("two columns of the run would be named p_x"), std::string::npos) << r.err;
  EXPECT_EQ(dalembert("run " + path + " --method rk4 --h 0.1 --steps 2").status, 0);  // rk4 carries no momentum
}

TEST(CliModelFiles, DerivedQuantitiesAreColumns) {
  const auto r = dalembert("run " + model("double-pendulum") + " --method dla --h 0.1 --steps 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = lines(r.out);
  EXPECT_EQ(l[0], "t,theta1,theta2,theta1_t,theta2_t,energy,constraint,newton_iterations,p_theta1,p_theta2,x2,y2");
  // x2 = sin 1 + sin 0.5 at the start
  EXPECT_NE(l[1].find(",1.320896"), std::string::npos) << l[1];
}

TEST(CliModelFiles, WithoutACompilerItWarnsAndInterprets) {
  const std::string path = write_model("interpreted", knife_edge);
  const auto r = dalembert("run " + path + " --method dla --h 0.1 --steps 5", "DALEMBERT_CC=none");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("interpret"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.out).size(), 7u);
}

TEST(CliModelFiles, SyntaxErrorsNameTheLine) {
  expect_refused("toml_syntax", replace_line(knife_edge, "g*x/2\"", "g*x/2"), 4, {"TOML syntax error"});
  expect_refused("expression_syntax",
                 replace_line(knife_edge, "0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/2", "0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/"), 4,
                 {"lagrangian: syntax error", "\"0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/\""});
  expect_refused("unknown_function", replace_line(knife_edge, "sin(phi)*x_t", "sine(phi)*x_t"), 5,
                 {"constraints[0]", "no function \"sine\"", "\"sine(phi)*x_t - cos(phi)*y_t\""});
}

TEST(CliModelFiles, UnknownSymbolsAreNamed) {
  expect_refused("unknown_symbol", replace_line(knife_edge, "g*x/2", "g*x/2 + c*y"), 4,
                 {"lagrangian: unknown symbol 'c'", "\"0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/2 + c*y\""});
  expect_refused("velocity_in_potential",
                 replace_line(knife_edge, "lagrangian = \"0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/2\"",
                              "metric = [1, 1, 1]\npotential = \"-g*x/2 + x_t\""),
                 5, {"potential: unknown symbol 'x_t': velocities are not allowed here"});
  expect_refused("unknown_key", replace_line(knife_edge, "constraints =", "constraint ="), 5, {"unknown key 'constraint'"});
  // the time: allowed in the Lagrangian where its part acts as a force, refused elsewhere, saying why
  expect_refused("mass_of_time", replace_line(knife_edge, "phi_t^2", "(1 + t^2)*phi_t^2"), 4,
                 {"lagrangian: d2L/dphi_tdphi_t depends on the time", "a metric d2L/dv2 that does not change in time"});
  expect_refused("undefined_at_start", replace_line(knife_edge, "g*x/2", "g*x/2*log(t)"), 4,
                 {"lagrangian: not defined at t = 0, where runs start"});
  expect_refused("time_in_constraint", replace_line(knife_edge, "cos(phi)*y_t\"", "cos(phi)*y_t*cos(t)\""), 5,
                 {"constraints[0]: the coefficient of y_t, ", "depends on the time t (only the part without"});
  expect_refused(
      "time_in_metric",
      replace_line(knife_edge, "lagrangian = \"0.5*(x_t^2 + y_t^2 + phi_t^2) + g*x/2\"", "metric = [1, 1, \"1 + t\"]"),
      4, {"metric[2]: unknown symbol 't': the time is not allowed here"});
}

// A Lagrangian of t (models/driven-oscillator.toml): described as such, run by every method of
// mechanical models (its time part acts as a force), converging to its closed form.
TEST(CliModelFiles, TimeDependentLagrangiansAreDescribedAndRun) {
  const std::string driven = model("driven-oscillator");
  const auto text = dalembert("describe " + driven);
  EXPECT_NE(text.out.find("external force: no\nlagrangian: depends on t"), std::string::npos) << text.out;
  EXPECT_NE(dalembert("describe " + driven + " --json").out.find("\"lagrangian_depends_on_time\": true"),
            std::string::npos);
  EXPECT_NE(dalembert("describe " + model("knife-edge") + " --json").out.find("\"lagrangian_depends_on_time\": false"),
            std::string::npos);
  for (const char* method : {"dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "rk4", "reference", "exact"}) {
    const auto r = dalembert("run " + driven + " --method " + method + " --h 0.1 --steps 10");
    EXPECT_EQ(r.status, 0) << method << ": " << r.err;
  }
  const auto conv = dalembert("convergence " + driven + " --method dla --h-list 0.1,0.05,0.025 --t-end 4");
  ASSERT_EQ(conv.status, 0) << conv.err;
  EXPECT_NE(conv.out.find("reference: closed form"), std::string::npos) << conv.out;
  const auto fitted = conv.out.find("fitted order: ");
  ASSERT_NE(fitted, std::string::npos) << conv.out;
  EXPECT_NEAR(std::stod(conv.out.substr(fitted + 14)), 2.0, 0.05) << conv.out;
}

TEST(CliModelFiles, NonlinearConstraintsAreRefused) {
  expect_refused("quadratic_constraint", replace_line(knife_edge, "sin(phi)*x_t - cos(phi)*y_t", "sin(phi)*x_t^2 - cos(phi)*y_t"),
                 5, {"constraints[0]: not linear in the velocities", "\"sin(phi)*x_t^2 - cos(phi)*y_t\""});
  // an affine constraint is taken (ABallOnATurntableCirclesAtTwoSeventhsOfItsRate), and the file's v0 must keep it
  expect_refused("affine_constraint", replace_line(knife_edge, "sin(phi)*x_t - cos(phi)*y_t", "sin(phi)*x_t - cos(phi)*y_t + 1"),
                 8, {"initial.v = (1, 0, 0.5) violates constraints[0] \"sin(phi)*x_t - cos(phi)*y_t + 1\"",
                     "its value is 1, not 0"});
  expect_refused("holonomic_constraint", replace_line(knife_edge, "sin(phi)*x_t - cos(phi)*y_t", "x - y"), 5,
                 {"not linear in the velocities (it contains no velocity", "goes in holonomic = [...]", "\"x - y\""});
}

TEST(CliModelFiles, SingularMetricAndConstraintMatrixAreRefused) {
  // phi_t does not appear squared: ∂²L/∂v² is singular
  expect_refused("singular_metric", replace_line(knife_edge, "phi_t^2", "phi_t"), 4,
                 {"the metric d2L/dv2 is singular at the initial point", "\"0.5*(x_t^2 + y_t^2 + phi_t) + g*x/2\""});
  // two dependent constraints at the initial point (phi = 0): both forbid y_t
  expect_refused("dependent_constraints",
                 replace_line(knife_edge, "[\"sin(phi)*x_t - cos(phi)*y_t\"]", "[\"sin(phi)*x_t - cos(phi)*y_t\", \"y_t + phi*x_t\"]") +
                     "",
                 5, {"the constraint matrix M(q) has rank 1 < 2", "\"y_t + phi*x_t\""});
}

TEST(CliModelFiles, InitialVelocityOutsideTheConstraintsIsRefused) {
  expect_refused("bad_velocity", replace_line(knife_edge, "v = [1, 0, 0.5]", "v = [1, 0.2, 0.5]"), 8,
                 {"initial.v = (1, 0.2, 0.5) violates constraints[0] \"sin(phi)*x_t - cos(phi)*y_t\"", "-0.2"});
  // from the command line: the same check, pointing at the constraint
  const std::string path = write_model("good", knife_edge);
  const auto r = dalembert("run " + path + " --method dla --h 0.1 --steps 1 --v0 1,1,0");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(path + ":5:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(--v0)"), std::string::npos) << r.err;
}

// The values of a CSV column over the rows of a run.
std::vector<double> column_values(const std::string& csv, const std::string& name) {
  const auto rows = lines(csv);
  std::stringstream header(rows.at(0));
  std::string cell;
  int column = 0, found = -1;
  while (std::getline(header, cell, ',')) {
    if (cell == name) found = column;
    ++column;
  }
  EXPECT_GE(found, 0) << name << " in " << rows.at(0);
  std::vector<double> values;
  for (std::size_t k = 1; k < rows.size(); ++k) {
    std::stringstream row(rows[k]);
    for (int c = 0; std::getline(row, cell, ','); ++c)
      if (c == found) values.push_back(std::stod(cell));
  }
  return values;
}

// The largest |value| of a CSV column over the rows of a run.
double largest_of_column(const std::string& csv, const std::string& name) {
  double largest = 0.0;
  for (const double x : column_values(csv, name)) largest = std::max(largest, std::abs(x));
  return largest;
}

// The largest change of a CSV column from its first row over a run.
double largest_change_of_column(const std::string& csv, const std::string& name) {
  const auto values = column_values(csv, name);
  double largest = 0.0;
  for (const double x : values) largest = std::max(largest, std::abs(x - values.front()));
  return largest;
}

// The last row of a run's CSV as numbers.
std::vector<double> last_row(const std::string& csv) {
  std::stringstream row(lines(csv).back());
  std::vector<double> values;
  for (std::string cell; std::getline(row, cell, ',');) values.push_back(std::stod(cell));
  return values;
}

// A holonomic constraint φ(q) = 0 (models/pendulum-cartesian.toml, x² + y² = l²) enters the
// reference solver and RK4 as its velocity form dφ(q)·v = 0, and their new states are projected
// back onto φ = 0; its value is the column holonomic_0. The pendulum in Cartesian coordinates
// moves as models/pendulum.toml's in its angle, x = l sin θ, y = −l cos θ (both by the reference
// solver, to 1e-9 at t = 5). DLA imposes φ(q_{k+1}) = 0: the bob stays on the circle to round-off
// over 10⁴ steps, and so does RK4's, whose unprojected positions left it at its order (1.9e-4 at
// h = 0.1 over t = 10); McLachlan–Perlmutter's method, which takes the velocity form alone, leaves
// it at its order.
TEST(CliModelFiles, HolonomicConstraintsRunInTheirVelocityForm) {
  const std::string cartesian = model("pendulum-cartesian");
  const auto reference = dalembert("run " + cartesian + " --method reference --h 0.05 --t-end 5 --every 100");
  ASSERT_EQ(reference.status, 0) << reference.err;
  EXPECT_EQ(lines(reference.out)[0], "t,x,y,x_t,y_t,energy,constraint,newton_iterations,holonomic_0");
  const auto angle = dalembert("run " + model("pendulum") + " --method reference --h 0.05 --t-end 5 --every 100");
  ASSERT_EQ(angle.status, 0) << angle.err;
  const auto xy = last_row(reference.out), theta = last_row(angle.out);
  ASSERT_DOUBLE_EQ(xy[0], 5.0);
  ASSERT_DOUBLE_EQ(theta[0], 5.0);
  EXPECT_NEAR(xy[1], std::sin(theta[1]), 1e-9);
  EXPECT_NEAR(xy[2], -std::cos(theta[1]), 1e-9);
  EXPECT_NEAR(xy[3], std::cos(theta[1]) * theta[2], 1e-9);
  EXPECT_NEAR(xy[4], std::sin(theta[1]) * theta[2], 1e-9);

  const auto dla = dalembert("run " + cartesian + " --method dla --h 0.01 --steps 10000");
  ASSERT_EQ(dla.status, 0) << dla.err;
  EXPECT_LT(largest_of_column(dla.out, "holonomic_0"), 1e-13);
  EXPECT_LT(largest_of_column(dla.out, "constraint"), 1e-12);
  const auto largest_phi = [&](const std::string& method, const std::string& h) {
    const auto r = dalembert("run " + cartesian + " --method " + method + " --h " + h + " --t-end 10");
    EXPECT_EQ(r.status, 0) << r.err;
    return largest_of_column(r.out, "holonomic_0");
  };
  EXPECT_LT(largest_phi("rk4", "0.1"), 1e-15);
  const double coarse = largest_phi("mclachlan-perlmutter", "0.1"), fine = largest_phi("mclachlan-perlmutter", "0.05");
  EXPECT_GT(coarse, 1e-4);  // the velocity form alone: the positions leave φ = 0
  EXPECT_NEAR(std::log2(coarse / fine), 2.0, 0.2) << coarse << " " << fine;
}

// A holonomic constraint that is not quadratic: a bead sliding under gravity on the curve
// y = cosh(x) − 1. The discrete constraint of dla and mla imposes φ(q_{k+1}) = 0 on the new
// positions (docs/methods.md, Holonomic constraints), so the bead stays on the curve to round-off
// over 10⁴ steps whatever α and constraint rule; the discretised velocity form would keep it only to
// O(h²). So does the discrete gradient's row φ(q_{k+1}) = 0, whose force's direction keeps the
// energy to round-off (method/discrete_gradient.hpp) while the velocities leave dφ(q)·v = 0 at its
// order, SPARK's φ(Q_i) = 0 at its stages (method/spark.hpp), and the generating-function family's
// rows φ(q_{k+1}) = 0 with an impulse of their own (method/generating_function.hpp; their velocity
// form had left the curve, 7.8e-3 by t = 1000). dla, the discrete gradient, gf and gf-sym keep their
// order 2 against the reference, SPARK its 2s − 2. None fails at a small step, where φ's round-off
// over h (the rows' old scale) stayed above Newton's tolerance.
// McLachlan–Perlmutter's method, which takes the velocity form, leaves the curve.
TEST(CliModelFiles, HolonomicConstraintsHoldOnTheNewPositions) {
  const std::string bead = write_model("bead_on_catenary", R"toml(name = "bead-on-catenary"
coordinates = ["x", "y"]
parameters = { g = 1.0 }
lagrangian = "(x_t^2 + y_t^2)/2 - g*y"
holonomic = ["y - cosh(x) + 1"]
[initial]
q = [1, "cosh(1) - 1"]
v = [0, 0]
)toml");
  for (const std::string method : {"dla", "dla --alpha 0.3", "dla --constraint-rule trapezoid", "mla",
                                    "discrete-gradient", "spark --stages 2", "spark", "spark --stages 4", "gf",
                                    "gf --alpha 0.3", "gf-sym --alpha 0.25", "gf-cp", "rk4", "reference"}) {
    const auto r = dalembert("run " + bead + " --method " + method + " --h 0.01 --steps 10000 --every 10");
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    EXPECT_LT(largest_of_column(r.out, "holonomic_0"), 1e-14) << method;
    if (method == "rk4" || method == "reference")  // projected onto dφ v = 0 as well
      EXPECT_LT(largest_of_column(r.out, "constraint"), 1e-14) << method;
    if (method == "discrete-gradient") EXPECT_LT(largest_change_of_column(r.out, "energy"), 1e-13);
  }
  for (const std::string method : {"dla", "mla", "discrete-gradient", "spark", "gf"}) {
    const auto r = dalembert("run " + bead + " --method " + method + " --h 0.001 --t-end 5 --every 100");
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    EXPECT_LT(largest_of_column(r.out, "holonomic_0"), 1e-14) << method;
  }
  const auto end_of = [&](const std::string& args) {
    const auto r = dalembert("run " + bead + " --t-end 5 " + args);
    EXPECT_EQ(r.status, 0) << args << ": " << r.err;
    return last_row(r.out);
  };
  const auto reference = end_of("--method reference --h 0.05");
  const auto error_at = [&](const std::string& method, const std::string& h) {
    const auto row = end_of("--method " + method + " --h " + h);
    EXPECT_DOUBLE_EQ(row[0], 5.0);
    return std::hypot(row[1] - reference[1], row[2] - reference[2]);
  };
  // SPARK with φ at its stages keeps its order 2s − 2 (method/spark.hpp)
  const struct {
    const char* method;
    const char* coarse;
    const char* fine;
    double order;
  } refinements[] = {{"dla", "0.1", "0.05", 2.0},
                     {"discrete-gradient", "0.1", "0.05", 2.0},
                     {"gf", "0.1", "0.05", 2.0},
                     {"gf-sym --alpha 0.25", "0.1", "0.05", 2.0},
                     {"spark --stages 2", "0.1", "0.05", 2.0},
                     {"spark", "0.1", "0.05", 4.0},
                     {"spark --stages 4", "0.2", "0.1", 6.0}};
  for (const auto& r : refinements) {
    const double coarse = error_at(r.method, r.coarse), fine = error_at(r.method, r.fine);
    EXPECT_NEAR(std::log2(coarse / fine), r.order, 0.1) << r.method << ": " << coarse << " " << fine;
  }
  // the discrete gradient's velocities: dφ(q)·v = O(h²), bounded over the run
  const auto largest_velocity_form = [&](const std::string& h) {
    const auto r = dalembert("run " + bead + " --method discrete-gradient --h " + h + " --t-end 20");
    EXPECT_EQ(r.status, 0) << r.err;
    return largest_of_column(r.out, "constraint");
  };
  const double velocity_coarse = largest_velocity_form("0.05"), velocity_fine = largest_velocity_form("0.025");
  EXPECT_NEAR(std::log2(velocity_coarse / velocity_fine), 2.0, 0.1) << velocity_coarse << " " << velocity_fine;
  // RK4 projected keeps its order ([HLW06] §IV.4).
  const auto rk4_error_at = [&](const std::string& h) {
    const auto row = end_of("--method rk4 --h " + h);
    return std::hypot(row[1] - reference[1], row[2] - reference[2]);
  };
  const double rk4_coarse = rk4_error_at("0.05"), rk4_fine = rk4_error_at("0.025");
  EXPECT_NEAR(std::log2(rk4_coarse / rk4_fine), 4.0, 0.2) << rk4_coarse << " " << rk4_fine;
  // A step too long for the projection: its Newton corrections do not reach φ = 0 (the bead left at
  // |φ| = 1.6e-4 after step 1, and the next step's state was not a number). The step fails, naming
  // it, and the rows before it are kept.
  const auto too_long = dalembert("run " + bead + " --method rk4 --h 4 --steps 3");
  EXPECT_EQ(too_long.status, 3) << too_long.err;
  EXPECT_NE(too_long.err.find("Newton solver failed at step 1 (t = 4"), std::string::npos) << too_long.err;
  EXPECT_NE(too_long.err.find("the projection onto the holonomic constraints phi(q, t) = 0 did not converge"),
            std::string::npos)
      << too_long.err;
  EXPECT_EQ(last_row(too_long.out).at(0), 0.0);
  const auto velocity_form = dalembert("run " + bead + " --method mclachlan-perlmutter --h 0.05 --t-end 10");
  ASSERT_EQ(velocity_form.status, 0) << velocity_form.err;
  EXPECT_GT(largest_of_column(velocity_form.out, "holonomic_0"), 1e-6);
}

// The free rigid body with its attitude a unit quaternion (models/rigid-body-quaternion.toml: the
// norm a holonomic constraint, the body's angular velocity written once as [definitions]). With
// I1 = I2 = 1, I3 = 3 it is the symmetric Euler top: ω3 stays 0.5 and (ω1, ω2) turns at
// Ω = (I3 − I1) ω3 / I1 = 1, so from ω0 = (1, 0.1, 0.5), ω1 = cos t − 0.1 sin t and
// ω2 = sin t + 0.1 cos t; the reference solver meets them to 1e-9 at t = 10. DLA keeps |q| = 1 to
// round-off (its midpoint constraint is exact for the quadratic norm) and the length of the
// body's angular momentum to the round-off of 10⁴ steps (its drift was 6e-14 of 3.29).
TEST(CliModelFiles, ARigidBodyInQuaternionsIsEulersTop) {
  const std::string top = model("rigid-body-quaternion") + " --param I2=1";
  const auto reference = dalembert("run " + top + " --method reference --h 0.1 --t-end 10 --every 100");
  ASSERT_EQ(reference.status, 0) << reference.err;
  const auto header = lines(reference.out)[0];
  EXPECT_NE(header.find(",omega_1,omega_2,omega_3,momentum_squared,holonomic_0"), std::string::npos) << header;
  const auto last = last_row(reference.out);
  ASSERT_DOUBLE_EQ(last[0], 10.0);
  const std::size_t omega = last.size() - 5;  // omega_1, omega_2, omega_3, momentum_squared, holonomic_0
  EXPECT_NEAR(last[omega], std::cos(10.0) - 0.1 * std::sin(10.0), 1e-9);
  EXPECT_NEAR(last[omega + 1], std::sin(10.0) + 0.1 * std::cos(10.0), 1e-9);
  EXPECT_NEAR(last[omega + 2], 0.5, 1e-9);

  const auto dla = dalembert("run " + model("rigid-body-quaternion") + " --method dla --h 0.01 --steps 10000");
  ASSERT_EQ(dla.status, 0) << dla.err;
  EXPECT_LT(largest_of_column(dla.out, "holonomic_0"), 1e-13);
  EXPECT_LT(largest_change_of_column(dla.out, "momentum_squared"), 1e-11);
}

// A body's full inertia tensor ([[bodies]] inertia = [I11, I22, I33, I12, I13, I23]): the symmetric
// top I = R diag(1, 1, 3) Rᵀ, R = Rz(0.4) Rx(0.7), written on body axes that are not its principal
// ones. Its body angular velocity Ω turns about the symmetry axis e = R e3 at the rate
// (I3 − I1)(Ω·e)/I1, Ω(t) = Rot(e, 2 (Ω0·e) t) Ω0; the reference solver meets that to 1e-9 at t = 10.
// Products of inertia with the wrong sign, twice or half as large move Ω by 0.8, 1.9 and 0.5 there.
TEST(CliModelFiles, ABodyWithAFullInertiaTensorIsTheTopOnOtherAxes) {
  using Vector = std::array<double, 3>;
  const auto dot = [](const Vector& a, const Vector& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  const auto cross = [](const Vector& a, const Vector& b) {
    return Vector{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  const double ca = std::cos(0.7), sa = std::sin(0.7), cb = std::cos(0.4), sb = std::sin(0.4);
  const double R[3][3] = {{cb, -sb * ca, sb * sa}, {sb, cb * ca, -cb * sa}, {0, sa, ca}};  // Rz(0.4) Rx(0.7)
  const double moment[3] = {1, 1, 3};
  const auto I = [&](int i, int j) {
    double x = 0;
    for (int k = 0; k < 3; ++k) x += R[i][k] * moment[k] * R[j][k];
    return x;
  };
  std::ostringstream file;
  file.precision(17);
  file << "name = \"tilted-top\"\ncoordinates = [\"qw\", \"qx\", \"qy\", \"qz\"]\n"
       << "[[bodies]]\nname = \"top\"\nmass = 1\n"
       << "inertia = [" << I(0, 0) << ", " << I(1, 1) << ", " << I(2, 2) << ", " << I(0, 1) << ", " << I(0, 2) << ", "
       << I(1, 2) << "]\nposition = [0, 0, 0]\nquaternion = [\"qw\", \"qx\", \"qy\", \"qz\"]\n"
       << "[initial]\nq = [1, 0, 0, 0]\nv = [0, 0.5, 0.05, 0.25]\n";
  const std::string top = write_model("tilted_top", file.str());
  const auto r = dalembert("run " + top + " --method reference --h 0.1 --t-end 10 --every 100");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto last = last_row(r.out);
  ASSERT_DOUBLE_EQ(last[0], 10.0);
  const double w = last[1], w_t = last[5];
  const Vector v{last[2], last[3], last[4]}, v_t{last[6], last[7], last[8]}, v_x_v_t = cross(v, v_t);
  const Vector Omega0{1, 0.1, 0.5}, e{R[0][2], R[1][2], R[2][2]};
  // Rodrigues: Ω0 turned about e by the angle 2 (Ω0·e) t
  const double angle = 2 * dot(Omega0, e) * 10.0, along = dot(Omega0, e);
  const Vector e_x_Omega0 = cross(e, Omega0);
  for (int i = 0; i < 3; ++i) {
    const double Omega = 2 * (w * v_t[i] - w_t * v[i] - v_x_v_t[i]);  // the body angular velocity
    const double expected = Omega0[i] * std::cos(angle) + e_x_Omega0[i] * std::sin(angle) +
                            e[i] * along * (1 - std::cos(angle));
    EXPECT_NEAR(Omega, expected, 1e-9) << i;
  }
  const auto dla = dalembert("run " + top + " --method dla --h 0.01 --steps 10000 --every 100");
  ASSERT_EQ(dla.status, 0) << dla.err;
  EXPECT_LT(largest_of_column(dla.out, "holonomic_0"), 1e-14);
  EXPECT_LT(largest_change_of_column(dla.out, "energy"), 1e-12);
}

// Chaplygin's ball (models/chaplygin-ball.toml: two rolling constraints in the spatial angular
// velocity, the attitude a unit quaternion). Its angular momentum about the contact point, a vector
// fixed in space, and its energy are conserved: the reference solver keeps them to 1e-9 over t = 10
// (its tolerance, 1e-13, gives about 1e-13). Written with the body's angular velocity in the rolling
// constraints, a usual mistake, or without the holonomic constraint, the momentum moves by 0.2 to
// 1.7 in that time. DLA keeps all three components of the momentum to round-off (4e-15 of 1.4 over
// 2000 steps here; the same from other starts and moments), and |q| = 1 to round-off.
TEST(CliModelFiles, ChaplyginsBallKeepsItsMomentumAboutTheContact) {
  const std::string ball = model("chaplygin-ball");
  const auto reference = dalembert("run " + ball + " --method reference --h 0.1 --t-end 10");
  ASSERT_EQ(reference.status, 0) << reference.err;
  for (const char* column : {"momentum_x", "momentum_y", "momentum_z", "energy", "holonomic_0"})
    EXPECT_LT(largest_change_of_column(reference.out, column), 1e-9) << column;
  const auto dla = dalembert("run " + ball + " --method dla --h 0.05 --t-end 100");
  ASSERT_EQ(dla.status, 0) << dla.err;
  for (const char* column : {"momentum_x", "momentum_y", "momentum_z"})
    EXPECT_LT(largest_change_of_column(dla.out, column), 1e-12) << column;
  EXPECT_LT(largest_of_column(dla.out, "holonomic_0"), 1e-13);
  EXPECT_GT(largest_change_of_column(dla.out, "energy"), 1e-6);  // DLA's energy is not conserved here
}

// A homogeneous ball on a turntable turning at Ω (models/turntable-ball.toml): rolling is two
// affine constraints, ẋ − r ω_s,2 + Ω y = 0 and ẏ + r ω_s,1 − Ω x = 0, with the attitude a unit
// quaternion. Then ü = i ν u̇ for u = x + i y with ν = Ω I/(I + m r²) = 2Ω/7: the centre runs on a
// circle at the rate 2Ω/7 with constant speed, u(t) = u0 + u̇0 (e^{iνt} − 1)/(iν). The reference
// solver meets that closed form to 1e-10 at t = 10 (and the columns circle_x, circle_y, speed stay
// constant), and so does `exact` with steps of h = 0.5; dla and rk4 converge to it at their orders
// 2 and 4; a method that would leave b out refuses the file, naming the constraint.
TEST(CliModelFiles, ABallOnATurntableCirclesAtTwoSeventhsOfItsRate) {
  const std::complex<double> u0(1.0, 0.5), i(0.0, 1.0);
  const auto centre_at = [&](double omega, double t) {
    const std::complex<double> du0(0.2 - 0.5 * omega, -0.3 + omega);  // the file's v0: ω_s = (0.3, 0.2, 0.5)
    const double nu = 2.0 * omega / 7.0;
    return u0 + du0 * (std::exp(i * nu * t) - 1.0) / (i * nu);
  };
  const auto end_of = [&](const std::string& args) {
    const auto r = dalembert("run " + model("turntable-ball") + " " + args + " --t-end 10 --every 1000000");
    EXPECT_EQ(r.status, 0) << r.err;
    const auto last = last_row(r.out);
    EXPECT_DOUBLE_EQ(last.at(0), 10.0);
    return std::complex<double>(last.at(1), last.at(2));  // t, x, y, ...
  };
  for (const double omega : {1.0, 2.5}) {
    const std::string table = " --param Omega=" + std::to_string(omega);
    EXPECT_LT(std::abs(end_of("--method reference --h 0.1" + table) - centre_at(omega, 10.0)), 1e-10) << omega;
    EXPECT_LT(std::abs(end_of("--method exact --h 0.5" + table) - centre_at(omega, 10.0)), 1e-10) << omega;
  }
  const auto reference = dalembert("run " + model("turntable-ball") + " --method reference --h 0.1 --t-end 10");
  ASSERT_EQ(reference.status, 0) << reference.err;
  for (const char* column : {"circle_x", "circle_y", "speed", "spin_z", "holonomic_0", "constraint"})
    EXPECT_LT(largest_change_of_column(reference.out, column), 1e-10) << column;
  EXPECT_GT(largest_change_of_column(reference.out, "energy"), 1e-2);  // the table does work on the ball

  const std::vector<std::pair<std::string, double>> orders = {
      {"dla", 2.0}, {"dla --rule trapezoid", 2.0}, {"dla --constraint-rule trapezoid", 2.0}, {"mla", 2.0},
      {"gf", 2.0}, {"gf-sym", 2.0}, {"gf-cp", 2.0}, {"fim", 2.0}, {"mclachlan-perlmutter", 2.0}, {"spark", 4.0},
      {"rk4", 4.0}};
  for (const auto& [method, order] : orders) {
    const double coarse = std::abs(end_of("--method " + method + " --h 0.05") - centre_at(1.0, 10.0));
    const double fine = std::abs(end_of("--method " + method + " --h 0.025") - centre_at(1.0, 10.0));
    // rk4's observed order is still coming down to 4 (4.38 from h = 0.1, 4.24 from h = 0.05)
    EXPECT_NEAR(std::log2(coarse / fine), order, order == 4.0 ? 0.3 : 0.05) << method << ": " << coarse << " " << fine;
  }
  // DLA keeps the circle's centre and the spin to round-off over 2000 steps, from two starts (an
  // observation, not a theorem we know); its reported velocity is the one on the affine constraints.
  for (const std::string start : {"", " --param Omega=1.5 --q0 -2,0.3,0.6,0.8,0,0 --v0 qx=0.3,qy=-0.2,qz=0.1"}) {
    const auto dla = dalembert("run " + model("turntable-ball") + " --method dla --h 0.05 --steps 2000" + start);
    ASSERT_EQ(dla.status, 0) << dla.err;
    for (const char* column : {"circle_x", "circle_y", "spin_z", "holonomic_0", "constraint"})
      EXPECT_LT(largest_change_of_column(dla.out, column), 1e-12 * (1.0 + largest_of_column(dla.out, column)))
          << column << start;
  }
  // fim's momentum jump holds the constraint force's impulse, which grows 18-fold by t = 10 as the table
  // spins the ball up: the run's monitor reads the jump's alternating part, the period-2 mode alone
  for (const std::string h : {"0.02", "0.005"}) {
    const auto fim = dalembert("run " + model("turntable-ball") + " --method fim --h " + h + " --t-end 10 --every 100");
    EXPECT_EQ(fim.status, 0) << fim.err;
    EXPECT_EQ(fim.err.find("warning"), std::string::npos) << h << ": " << fim.err;
    EXPECT_LT(largest_of_column(fim.out, "constraint"), 1e-14) << h;  // its velocity is on M v + b = 0
  }
  const auto refused = dalembert("run " + model("turntable-ball") + " --method discrete-gradient --h 0.1 --steps 1");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("method discrete-gradient does not take affine constraints"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("constraints[0] \"x_t - r*ws2 + Omega*y\""), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("(the methods that take them: dla, mla, gf, gf-sym, gf-cp, fim, mclachlan-perlmutter, "
                             "spark, rk4, reference, exact)"),
            std::string::npos)
      << refused.err;
  const auto steady = dalembert("steady " + model("turntable-ball") + " --symmetric x");
  EXPECT_EQ(steady.status, 2);
  EXPECT_NE(steady.err.find("the steady-motion analysis does not take affine constraints"), std::string::npos)
      << steady.err;
}

/// A run of a model file of models/ whose energy balance is watched, without warnings: its summary's
/// largest |E − E0 − W| and |E − E0|.
std::pair<double, double> energy_balance_errors(const std::string& file, const std::string& args) {
  const fs::path summary = scratch() / "balance.json";
  const auto run = dalembert("run " + model(file) + " " + args + " --every 1000000 --summary " + summary.string());
  EXPECT_EQ(run.status, 0) << file << " " << args << "\n" << run.err;
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_TRUE(j.contains("max_energy_balance_error")) << j.dump();
  EXPECT_EQ(j["warnings"].size(), 0u) << j.dump();
  return std::pair(j.value("max_energy_balance_error", INFINITY), j["max_energy_error"].get<double>());
}

// The work of moving constraints: a string pulled through its hole does work on the ball
// (E grows from 0.53 to 2.0 over t = 2), and the energy monitors watch the balance E − E0 − W instead,
// W the integral of the constraint force's power M(q)ᵀλ·v: by the trapezoidal rule on the rows for
// dla, whose max_energy_balance_error falls at order 2 (the rule's and the method's), and with the
// stages for rk4, at order 4. It is a thousandth of the energy's change: with the power's sign
// reversed it would be twice the change.
TEST(CliModelFiles, MovingConstraintsKeepTheEnergyBalance) {
  for (const auto& [method, order] : {std::pair{"dla", 2.0}, {"rk4", 4.0}}) {
    const std::string args = std::string("--method ") + method + " --t-end 2 --param u=-0.25";
    const auto [coarse, change] = energy_balance_errors("string-through-a-hole", args + " --h 0.02");
    const auto [fine, change_fine] = energy_balance_errors("string-through-a-hole", args + " --h 0.01");
    EXPECT_GT(change, 1.0) << method;
    EXPECT_LT(fine, 1e-3 * change_fine) << method;
    EXPECT_NEAR(std::log2(coarse / fine), order, 0.2) << method << ": " << coarse << " " << fine;
  }
  // the table turning at a varying rate: b(q, t)
  const auto [coarse, change] = energy_balance_errors("varying-turntable-ball", "--method dla --h 0.02 --t-end 5");
  const auto [fine, change_fine] = energy_balance_errors("varying-turntable-ball", "--method dla --h 0.01 --t-end 5");
  EXPECT_LT(fine, 1e-3 * change_fine);
  EXPECT_NEAR(std::log2(coarse / fine), 2.0, 0.2) << coarse << " " << fine;
}

// The reference solver integrates W with the motion, as one more equation of its steps, so that its
// balance E − E0 − W stays at round-off however long its steps: one step of h = 5 on the turntable
// ball, whose rows' trapezoidal rule left 0.187 and a false energy-error warning (in `convergence`'s
// reference run too). With the power's sign reversed the balance error would be twice the change.
TEST(CliModelFiles, TheReferenceSolverKeepsTheEnergyBalanceToRoundOff) {
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"turntable-ball", "--h 5 --steps 1"},
      {"varying-turntable-ball", "--h 0.5 --t-end 4"},
      {"string-through-a-hole", "--h 0.5 --t-end 4"},  // let out
      {"driven-oscillator", "--h 0.5 --t-end 4"},  // an external force of t
      {"spinning-frame", "--h 0.5 --t-end 4"}};    // a Lagrangian of t
  for (const auto& [file, args] : runs) {
    const auto [balance, change] = energy_balance_errors(file, "--method reference " + args);
    EXPECT_GT(change, 0.1) << file << ": the energy is not conserved";
    EXPECT_LT(balance, 1e-12 * change) << file << " " << args;
  }
  const auto conv = dalembert("convergence " + model("turntable-ball") +
                              " --method dla --h-list 0.1,0.05 --t-end 5 --out-dir " + (scratch() / "conv").string());
  EXPECT_EQ(conv.status, 0) << conv.err;
  EXPECT_EQ(conv.err.find("warning"), std::string::npos) << conv.err;
}

// SPARK adds the Lobatto quadrature of its stages' power to W, so that its balance error falls at
// its order 2s − 2 (the rows' trapezoidal rule left order 2: 2.3e-4 with 3, 4 and 5 stages on the
// driven oscillator at h = 0.1), on a string pulled through its hole (affine, the multipliers' power)
// and on the spinning frame (a force of t). Five stages at h = 0.5 on the spinning frame, where the
// rule left 0.50 and a false energy-error warning: 8.0e-6, no warning.
TEST(CliModelFiles, SparkKeepsTheEnergyBalanceAtItsOrder) {
  const std::vector<std::pair<std::string, std::string>> runs = {{"string-through-a-hole", "--param u=-0.25 --t-end 2"},
                                                                 {"spinning-frame", "--t-end 4"}};
  for (const auto& [file, args] : runs)
    for (const int stages : {2, 3, 4}) {
      const std::string method = "--method spark --stages " + std::to_string(stages) + " " + args;
      const auto [coarse, change] = energy_balance_errors(file, method + " --h 0.1");
      const auto [fine, change_fine] = energy_balance_errors(file, method + " --h 0.05");
      EXPECT_GT(change_fine, 1.0) << file;
      EXPECT_NEAR(std::log2(coarse / fine), 2 * stages - 2, 0.2) << file << " " << method << ": " << coarse << " "
                                                                   << fine;
    }
  const auto [balance, change] = energy_balance_errors("spinning-frame", "--method spark --stages 5 --h 0.5 --t-end 4");
  EXPECT_LT(balance, 1e-5 * change);
}

// A Lagrangian of the time: its energy E = v·∂L/∂v − L changes as dE/dt = −∂L/∂t + F·v. The run
// watches E − E0 − W, W the work of the force its time part exerts and the change of that part's
// energy, which vanishes along the exact motion: the error of W's quadrature and of the method's
// motion, of order 2 with dla (W by the trapezoidal rule on the rows) and 4 with rk4 (by its stages),
// 5 on the driven oscillator, which is linear: there RK4 changes the energy by O(h⁶) a step, its
// stability function having |R(iθ)|² = 1 − θ⁶/72 + θ⁸/576.
TEST(CliModelFiles, LagrangiansOfTheTimeKeepTheEnergyBalance) {
  for (const auto& [file, rk4_order] : {std::pair{"driven-oscillator", 5.0}, {"spinning-frame", 4.0}}) {
    for (const auto& [method, order] : {std::pair{"dla", 2.0}, {"rk4", rk4_order}}) {
      const std::string args = std::string("--method ") + method + " --t-end 4";
      const auto [coarse, change] = energy_balance_errors(file, args + " --h 0.02");
      const auto [fine, change_fine] = energy_balance_errors(file, args + " --h 0.01");
      EXPECT_GT(change, 0.1) << file << " " << method << ": the energy is not conserved";
      // dla on the spinning frame, whose forces grow like (a t)² |q|: 1.7e-3 of the change at h = 0.01
      EXPECT_LT(fine, 5e-3 * change_fine) << file << " " << method;
      EXPECT_NEAR(std::log2(coarse / fine), order, 0.2) << file << " " << method << ": " << coarse << " " << fine;
    }
  }
}

// A holonomic constraint of the time, x² + y² = (l + u t)²: the ball on a string through a hole
// (models/string-through-a-hole.toml), here pulled in to half its length. From the file's start,
// (1, 0) with velocity (u, 1), the angular momentum is 1 and the ball has turned by
// t / (l (l + u t)) at the distance l + u t.
TEST(CliModelFiles, AStringThroughAHoleFollowsItsClosedForm) {
  const double l = 1.0, u = -0.25, T = 2.0, r = l + u * T, angle = T / (l * r);
  const auto end_error = [&](const std::string& args) -> double {
    const auto run = dalembert("run " + model("string-through-a-hole") + " " + args +
                               " --param u=-0.25 --t-end 2 --every 1000000");
    EXPECT_EQ(run.status, 0) << args << "\n" << run.err;
    if (run.status != 0) return INFINITY;
    const auto last = last_row(run.out);
    EXPECT_DOUBLE_EQ(last.at(0), T);
    return std::hypot(last.at(1) - r * std::cos(angle), last.at(2) - r * std::sin(angle));
  };
  EXPECT_LT(end_error("--method reference --h 0.1"), 1e-10);
  EXPECT_LT(end_error("--method exact --h 0.25"), 1e-10);  // arcs from each t_k that keep dφ v + ∂φ/∂t = 0
  const std::vector<std::pair<std::string, double>> orders = {
      {"dla", 2.0},        {"dla --rule trapezoid", 2.0}, {"dla --constraint-rule trapezoid", 2.0},
      {"mla", 2.0},        {"gf", 2.0},                   {"gf-sym --alpha 0.25", 2.0}, {"gf-cp", 2.0},
      {"fim", 2.0},        {"mclachlan-perlmutter", 2.0}, {"spark --stages 2", 2.0}, {"spark", 4.0},
      {"spark --stages 4", 6.0},     {"rk4", 4.0}};
  for (const auto& [method, order] : orders) {
    const double coarse = end_error("--method " + method + " --h 0.05");
    const double fine = end_error("--method " + method + " --h 0.025");
    EXPECT_NEAR(std::log2(coarse / fine), order, 0.1) << method << ": " << coarse << " " << fine;
  }
  // dla, mla and the gf family impose φ(q_{k+1}, t_{k+1}) = 0 on each step's new positions, spark
  // φ(Q_i, t_i) = 0 at its stages, and rk4 projects onto it: the positions stay at the string's length
  // to round-off, let out (the file's u) or pulled in. The string's pull is central, and all but rk4
  // keep the angular momentum at 1 to round-off too.
  for (const std::string rate : {"", " --param u=-0.25"})
    for (const std::string method :
         {"dla", "mla", "gf", "gf-sym --alpha 0.25", "gf-cp", "spark --stages 2", "spark", "spark --stages 4", "rk4"}) {
      const auto run =
          dalembert("run " + model("string-through-a-hole") + " --method " + method + " --h 0.05 --t-end 2" + rate);
      ASSERT_EQ(run.status, 0) << run.err;
      EXPECT_LT(largest_of_column(run.out, "holonomic_0"), 2e-15) << method << rate;  // a few ulps of r² ≤ 2.25
      if (method != "rk4")
        EXPECT_LT(largest_change_of_column(run.out, "angular_momentum"), 1e-14) << method << rate;
      EXPECT_GT(largest_change_of_column(run.out, "energy"), 0.2) << method << rate;  // the string does work
    }
  const auto refused =
      dalembert("run " + model("string-through-a-hole") + " --method discrete-gradient --h 0.1 --steps 1");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("method discrete-gradient does not take holonomic constraints of the time, phi(q, t) = 0"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("holonomic[0] \"x^2 + y^2 - (l + u*t)^2\""), std::string::npos) << refused.err;
  const auto described = dalembert("describe " + model("string-through-a-hole"));
  EXPECT_NE(described.out.find("constraints: 1 (of which 1 holonomic, phi(q, t) = 0)"), std::string::npos)
      << described.out;
}

TEST(CliModelFiles, HolonomicConstraintsAreChecked) {
  const std::string pendulum = R"toml(name = "pendulum"
coordinates = ["x", "y"]
parameters = { l = 1.0 }
lagrangian = "(x_t^2 + y_t^2)/2 - y"
holonomic = ["x^2 + y^2 - l^2"]
[initial]
q = ["l*sin(1)", "-l*cos(1)"]
v = [0, 0]
)toml";
  expect_refused("holonomic_velocity", replace_line(pendulum, "- l^2\"", "- l^2 + x_t\""), 5,
                 {"holonomic[0]: unknown symbol 'x_t': velocities are not allowed here"});
  expect_refused("holonomic_constant", replace_line(pendulum, "x^2 + y^2 - l^2", "l - 1"), 5,
                 {"holonomic[0]: contains no coordinate", "\"l - 1\""});
  // a constraint of the time whose velocity form has coefficients of t: a rod turning about the pivot
  expect_refused("holonomic_turning", replace_line(pendulum, "x^2 + y^2 - l^2", "y*cos(t) - x*sin(t)"), 5,
                 {"holonomic[0]: its derivative by x, \"-sin(t)\", depends on the time t",
                  "a holonomic constraint of the time is psi(q) + c(t)"});
  expect_refused("holonomic_too_many", replace_line(pendulum, "\"x^2 + y^2 - l^2\"", "\"x^2 + y^2 - l^2\", \"x - y\""),
                 5, {"2 holonomic constraints for 2 coordinates leave no motion"});
  expect_refused("holonomic_position", replace_line(pendulum, "q = [\"l*sin(1)\", \"-l*cos(1)\"]", "q = [1, 1]"), 7,
                 {"the initial position initial.q = (1, 1) violates holonomic[0] \"x^2 + y^2 - l^2\": its value is 1, "
                  "not 0"});
  expect_refused("holonomic_velocity_form", replace_line(pendulum, "v = [0, 0]", "v = [0, 1]"), 8,
                 {"violates holonomic[0] in its velocity form d/dt \"x^2 + y^2 - l^2\""});
  const std::string path = write_model("holonomic_good", pendulum);
  const auto off = dalembert("run " + path + " --method dla --h 0.1 --steps 1 --q0 1,0.5");
  EXPECT_EQ(off.status, 2);
  EXPECT_NE(off.err.find(path + ":5: the initial position (--q0) = (1, 0.5) violates holonomic[0]"), std::string::npos)
      << off.err;
  EXPECT_EQ(dalembert("run " + path + " --method dla --h 0.1 --steps 1 --q0 1,0 --v0 0,1").status, 0);
}

// The last row of 200 steps of h = 0.02 of `method` on `file` (empty, and a failure, if it fails).
std::vector<double> final_state(const std::string& file, const std::string& method) {
  const auto r = dalembert("run " + file + " --method " + method + " --h 0.02 --steps 200 --every 200");
  EXPECT_EQ(r.status, 0) << file << " " << method << "\n" << r.err;
  return r.status == 0 ? last_row(r.out) : std::vector<double>{};
}

// The largest difference of t, q and v (the columns before the energy) of two rows of a model of n
// coordinates; infinite if either row is short.
double apart(const std::vector<double>& a, const std::vector<double>& b, std::size_t n = 5) {
  double d = a.size() > 2 * n && b.size() > 2 * n ? 0.0 : INFINITY;
  for (std::size_t i = 0; i <= 2 * n && i < a.size() && i < b.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// Rigid bodies and contacts: the library derives L (kinetic energy of each body, gravity) and the
// rolling constraints. The disk from a body and a rim contact (models/rolling-disk-from-bodies.toml)
// and the thesis' ball from a body and a sphere contact give the trajectories of the files written
// by hand, with every method, to round-off (their constraint rows span the same distribution).
TEST(CliModelFiles, BodiesAndContactsGiveTheLagrangianAndTheRollingConstraints) {
  for (const char* method : {"dla", "mla", "rk4", "spark", "discrete-gradient", "fim", "exact"})
    EXPECT_LT(apart(final_state(model("rolling-disk"), method), final_state(model("rolling-disk-from-bodies"), method)),
              1e-12)
        << method;
  const std::string ball = R"toml(name = "ball"
coordinates = ["x", "y", "phi", "psi", "theta"]
[[bodies]]
name = "ball"
mass = 1
inertia = [1, 1, 1]
position = ["x", "y", 1]
euler = ["phi", "theta", "psi"]
[[contacts]]
body = "ball"
sphere = 1
[initial]
q = [0, 0, 0, 0, 1]
v = ["-0.5*sin(1)", -0.2, 0.3, 0.5, 0.2]
)toml";
  const std::string path = write_model("bodies_ball", ball);
  for (const char* method : {"dla", "rk4"})
    EXPECT_LT(apart(final_state(model("rolling-ball"), method), final_state(path, method)), 1e-12) << method;
  // Chaplygin's ball from a body in a unit quaternion (its norm a holonomic constraint, the radial
  // term's weight the mean moment): models/chaplygin-ball.toml with J0 = 0.5.
  const std::string quaternion_ball = R"toml(name = "chaplygin-ball"
coordinates = ["x", "y", "qw", "qx", "qy", "qz"]
[[bodies]]
name = "ball"
mass = 1
inertia = [0.4, 0.5, 0.6]
position = ["x", "y", 1]
quaternion = ["qw", "qx", "qy", "qz"]
[[contacts]]
body = "ball"
sphere = 1
[initial]
q = [0, 0, 1, 0, 0, 0]
v = [0.3, -1, 0, 0.5, 0.15, 0.4]
)toml";
  const std::string chaplygin = write_model("bodies_chaplygin", quaternion_ball);
  for (const char* method : {"dla", "rk4", "spark"}) {
    const auto by_hand = final_state(model("chaplygin-ball") + " --param J0=0.5", method);
    EXPECT_LT(apart(by_hand, final_state(chaplygin, method), 6), 1e-12) << method;
  }
  expect_refused("bodies_two_orientations",
                 replace_line(quaternion_ball, "quaternion = [", "euler = [\"qx\", \"qy\", \"qz\"]\nquaternion = ["), 3,
                 {"give its orientation, euler = [phi, theta, psi] (z-x-z angles) or quaternion = [w, x, y, z]"});
  expect_refused("bodies_quaternion_norm",
                 replace_line(quaternion_ball, "q = [0, 0, 1, 0, 0, 0]", "q = [0, 0, 1, 1, 0, 0]"), 13,
                 {"violates bodies.ball.quaternion (its norm)"});
  const auto described = dalembert("describe " + path + " --json");
  ASSERT_EQ(described.status, 0) << described.err;
  EXPECT_EQ(nlohmann::json::parse(described.out)["constraints"].get<int>(), 2) << described.out;

  expect_refused("bodies_height", replace_line(ball, "position = [\"x\", \"y\", 1]", "position = [\"x\", \"y\", 2]"),
                 11, {"the contact of body 'ball' is not on the plane z = 0"});
  expect_refused("bodies_unknown", replace_line(ball, "body = \"ball\"", "body = \"bal\""), 9,
                 {"contact 1: no body named 'bal' among [[bodies]]"});
  expect_refused("bodies_two_shapes", replace_line(ball, "sphere = 1", "sphere = 1\nrim = 1"), 9,
                 {"give the shape that touches the plane, sphere = \"radius\" or rim = \"radius\""});
  expect_refused("bodies_axis", replace_line(ball, "sphere = 1", "sphere = 1\naxis = 2"), 12,
                 {"axis is the axle of a rim; a sphere has none"});
  expect_refused("bodies_inertia", replace_line(ball, "inertia = [1, 1, 1]", "inertia = [1, 1]"), 6,
                 {"bodies.ball.inertia has 2 value(s) but a body's inertia about its mass centre is three "
                  "principal moments [I1, I2, I3] or the six entries [I11, I22, I33, I12, I13, I23] of its "
                  "tensor on the body axes"});
  expect_refused("bodies_and_lagrangian",
                 replace_line(ball, "coordinates = [", "lagrangian = \"x_t^2\"\ncoordinates = ["), 2,
                 {"a model with [[bodies]] has their kinetic and gravitational energy as its Lagrangian"});
  expect_refused("bodies_gravity_alone", "name = \"p\"\ncoordinates = [\"x\"]\nlagrangian = \"x_t^2/2\"\ngravity = 1\n",
                 4, {"gravity acts on [[bodies]], and the file has none"});
  expect_refused("bodies_mass_of_q", replace_line(ball, "mass = 1", "mass = \"1 + x\""), 5,
                 {"bodies.ball.mass: unknown symbol 'x'"});
  expect_refused("bodies_contact_system", replace_line(ball, "coordinates = [", "action = \"z\"\ncoordinates = ["), 4,
                 {"[[bodies]] with an action variable (action = \"z\") is not supported yet"});
}

// Hinges ([[bodies]] parent and hinge): a body turned about an axis of its parent, at a point of
// the parent. A pendulum hung from a fixed support by a hinge at an offset, its axis given
// unnormalised, is the hand-written compound pendulum L = ½ (m l² + I22) θ̇² + m g l cos θ; the rolling
// disk built as its spin hinged to a massless frame (heading and tilt) is
// models/rolling-disk-from-bodies.toml, with its contact on the hinged body. Both to 1e-12 over 200
// steps with each method.
TEST(CliModelFiles, HingesJoinBodies) {
  const std::string parameters = "parameters = { g = 9.81, m = 2.0, l = 0.7, a = 0.3 }\n";
  const std::string initial = "[initial]\nq = [1]\nv = [0.5]\n";
  const std::string hinged = write_model("hinged_pendulum", "name = \"hinged-pendulum\"\ncoordinates = [\"theta\"]\n"
                                                            "gravity = \"g\"\n" + parameters + R"toml([[bodies]]
name = "support"
mass = 0
inertia = [0, 0, 0]
position = [0, 0, 1]
euler = [0, 0, 0]
[[bodies]]
name = "bob"
mass = "m"
inertia = [0.1, 0.2, 0.3]
parent = "support"
hinge = { axis = [0, 2, 0], angle = "theta", at = ["a", 0, 0], centre = [0, 0, "-l"] }
)toml" + initial);
  const std::string by_hand =
      write_model("compound_pendulum", "name = \"compound-pendulum\"\ncoordinates = [\"theta\"]\n"
                                       "lagrangian = \"(m*l^2 + 0.2)*theta_t^2/2 + m*g*l*cos(theta)\"\n" +
                                           parameters + initial);
  for (const char* method : {"dla", "rk4"})
    EXPECT_LT(apart(final_state(hinged, method), final_state(by_hand, method), 1), 1e-12) << method;

  std::ifstream in(model("rolling-disk-from-bodies"));
  std::string disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string euler = R"toml(name = "disk"
mass = "m"
inertia = ["A", "A", "C"]                      # about two diameters and the axle (body axis 3)
position = ["x + R*sin(theta)*sin(phi)", "y - R*sin(theta)*cos(phi)", "R*cos(theta)"]
euler = ["phi", "pi/2 + theta", "-psi"]        # z-x-z: heading, axle tilted by theta, spin)toml";
  ASSERT_NE(disk.find(euler), std::string::npos);
  disk.replace(disk.find(euler), euler.size(), R"toml(name = "frame"
mass = 0
inertia = [0, 0, 0]
position = ["x + R*sin(theta)*sin(phi)", "y - R*sin(theta)*cos(phi)", "R*cos(theta)"]
euler = ["phi", "pi/2 + theta", 0]
[[bodies]]
name = "disk"
mass = "m"
inertia = ["A", "A", "C"]
parent = "frame"
hinge = { axis = [0, 0, 1], angle = "-psi" })toml");
  const std::string spun = write_model("hinged_disk", disk);
  for (const char* method : {"dla", "rk4", "spark"})
    EXPECT_LT(apart(final_state(model("rolling-disk-from-bodies"), method), final_state(spun, method), 5), 1e-12)
        << method;

  expect_refused("hinge_unknown_parent", replace_line(disk, "parent = \"frame\"", "parent = \"wheel\""), 20,
                 {"no body named 'wheel' above it among [[bodies]]"});
  expect_refused("hinge_and_position",
                 replace_line(disk, "parent = \"frame\"", "parent = \"frame\"\nposition = [0, 0, 0]"), 21,
                 {"a body joined to a parent is placed by its joint, not by position, euler or quaternion"});
  expect_refused("hinge_without_parent", replace_line(disk, "parent = \"frame\"", ""), 21,
                 {"a joint joins the body to its parent, and it has none"});
  expect_refused("contact_held_needlessly", replace_line(disk, "axis = 3", "axis = 3\nholonomic = true"), 27,
                 {"the contact of body 'disk' is on the plane z = 0 at every configuration: its height needs no "
                  "holonomic constraint"});
  expect_refused("contact_holonomic_not_boolean", replace_line(disk, "axis = 3", "axis = 3\nholonomic = 1"), 27,
                 {"contact 1: holonomic is true (the contact's height is a holonomic constraint) or false"});
  expect_refused("hinge_zero_axis",
                 replace_line(disk, "hinge = {", "hinge = { axis = [0, 0, 0], angle = \"-psi\" }\n#"), 21,
                 {"the hinge's axis of body 'disk' is zero"});
}

// A slider: a sleeve that slides along a rod turning freely about the vertical, its track offset
// from the axis by c. With the rod's angle φ and the distance r, the sleeve's centre is at
// Rz(φ) (r, c, h), so |ṗ|² = ṙ² + (r² + c²) φ̇² − 2 c ṙ φ̇, and it turns with the rod, Ω = φ̇ e3.
TEST(CliModelFiles, SlidersJoinBodies) {
  const std::string parameters = "parameters = { J = 0.5, m = 2.0, c = 0.2, h = 0.3, Ic = 0.05 }\n";
  const std::string initial = "[initial]\nq = [0, 1]\nv = [1, 0.2]\n";
  const std::string sliding =
      "name = \"sleeve-on-a-rod\"\ncoordinates = [\"phi\", \"r\"]\n" + parameters + R"toml([[bodies]]
name = "rod"
mass = 1
inertia = [0.1, 0.1, "J"]
position = [0, 0, 0]
euler = ["phi", 0, 0]
[[bodies]]
name = "sleeve"
mass = "m"
inertia = [0.01, 0.02, "Ic"]
parent = "rod"
slider = { axis = [2, 0, 0], distance = "r", at = [0, "c", "h"] }
)toml" + initial;
  const std::string by_hand = write_model(
      "sleeve_by_hand", "name = \"sleeve-by-hand\"\ncoordinates = [\"phi\", \"r\"]\n"
                        "lagrangian = \"(J + Ic)/2*phi_t^2 + m/2*(r_t^2 + (r^2 + c^2)*phi_t^2 - 2*c*r_t*phi_t)\"\n" +
                            parameters + initial);
  const std::string slid = write_model("sleeve_on_a_rod", sliding);
  for (const char* method : {"dla", "rk4", "spark"})
    EXPECT_LT(apart(final_state(slid, method), final_state(by_hand, method), 2), 1e-12) << method;

  expect_refused("slider_and_hinge",
                 replace_line(sliding, "slider = {", "hinge = { axis = [0, 0, 1], angle = \"r\" }\nslider = {"), 16,
                 {"a body has one joint to its parent, a hinge, a slider or a ball"});
  expect_refused("slider_zero_axis", replace_line(sliding, "axis = [2, 0, 0]", "axis = [0, 0, 0]"), 15,
                 {"the slider's axis of body 'sleeve' is zero"});
  expect_refused("slider_with_angle", replace_line(sliding, "distance = \"r\"", "angle = \"r\""), 15,
                 {"bodies.sleeve.slider: unknown key 'angle' (known: axis, distance, at, centre)"});
  const std::string slider_line = "slider = { axis = [2, 0, 0], distance = \"r\", at = [0, \"c\", \"h\"] }\n";
  expect_refused("joint_missing", replace_line(sliding, slider_line, ""), 10,
                 {"body 2 (joined to 'rod') has no joint: hinge = { axis, angle, at, centre }, slider = { axis, "
                  "distance, at, centre } or ball = { at, centre }"});
}

// Ball joints: a body turned from its parent's axes by its own Euler angles or quaternion about a
// point of the parent. The heavy symmetric top on a fixed point is Lagrange's,
// L = ½ (A + m l²)(θ̇² + sin²θ φ̇²) + ½ C (ψ̇ + cos θ φ̇)² − m g l cos θ; on a turntable, with a full
// inertia tensor and an offset mass centre, it is the same body on three hinges about z, x and z
// through the same point (R = Rz(φ) Rx(θ) Rz(ψ) either way); in a quaternion, it is the body
// placed by hand at R(q) (0, 0, l). Each to 1e-12 over 200 steps.
TEST(CliModelFiles, BallJointsJoinBodies) {
  const std::string top = "parameters = { m = 1.5, A = 0.2, C = 0.4, l = 0.3, g = 9.81 }\ngravity = \"g\"\n";
  const std::string support = "[[bodies]]\nname = \"support\"\nmass = 0\ninertia = [0, 0, 0]\n"
                              "position = [0, 0, 0]\neuler = [0, 0, 0]\n";
  const std::string euler_start = "[initial]\nq = [0, 0.4, 0]\nv = [0.3, 0.1, 20]\n";
  const std::string on_a_ball = "name = \"top\"\ncoordinates = [\"phi\", \"theta\", \"psi\"]\n" + top + support +
                                R"toml([[bodies]]
name = "top"
mass = "m"
inertia = ["A", "A", "C"]
parent = "support"
ball = { centre = [0, 0, "l"] }
euler = ["phi", "theta", "psi"]
)toml" + euler_start;
  const std::string lagrange = write_model(
      "lagrange_top", "name = \"lagrange-top\"\ncoordinates = [\"phi\", \"theta\", \"psi\"]\n"
                      "parameters = { m = 1.5, A = 0.2, C = 0.4, l = 0.3, g = 9.81 }\n"
                      "lagrangian = \"(A + m*l^2)/2*(theta_t^2 + sin(theta)^2*phi_t^2) + C/2*(psi_t + "
                      "cos(theta)*phi_t)^2 - m*g*l*cos(theta)\"\n" + euler_start);
  const std::string ball = write_model("top_on_a_ball", on_a_ball);
  for (const char* method : {"dla", "rk4"})
    EXPECT_LT(apart(final_state(ball, method), final_state(lagrange, method), 3), 1e-12) << method;

  const std::string table = R"toml(coordinates = ["alpha", "phi", "theta", "psi"]
parameters = { m = 1.5, A = 0.2, B = 0.25, C = 0.4, l = 0.3, c = 0.5, J = 2.0, g = 9.81 }
gravity = "g"
[initial]
q = [0, 0.3, 0.4, 0.2]
v = [1.0, 0.3, 0.1, 10]
[[bodies]]
name = "table"
mass = 3
inertia = [1, 1, "J"]
position = [0, 0, 0]
euler = ["alpha", 0, 0]
)toml";
  const std::string tensor = "mass = \"m\"\ninertia = [\"A\", \"B\", \"C\", 0.01, 0.02, 0.03]\n";
  const std::string turned = write_model("top_on_a_table", "name = \"ball\"\n" + table +
                                                               "[[bodies]]\nname = \"top\"\n" + tensor +
                                                               R"toml(parent = "table"
ball = { at = ["c", 0, 0.1], centre = [0.05, 0, "l"] }
euler = ["phi", "theta", "psi"]
)toml");
  const std::string hinged = write_model("top_on_three_hinges", "name = \"hinges\"\n" + table + R"toml([[bodies]]
name = "yaw"
mass = 0
inertia = [0, 0, 0]
parent = "table"
hinge = { axis = [0, 0, 1], angle = "phi", at = ["c", 0, 0.1] }
[[bodies]]
name = "tilt"
mass = 0
inertia = [0, 0, 0]
parent = "yaw"
hinge = { axis = [1, 0, 0], angle = "theta" }
[[bodies]]
name = "top"
)toml" + tensor + R"toml(parent = "tilt"
hinge = { axis = [0, 0, 1], angle = "psi", centre = [0.05, 0, "l"] }
)toml");
  for (const char* method : {"dla", "rk4", "spark"})
    EXPECT_LT(apart(final_state(turned, method), final_state(hinged, method), 4), 1e-12) << method;

  // q̇ = ½ q ⊗ (0, Ω) at q = (cos 0.2, sin 0.2, 0, 0) with the Euler start's Ω
  const std::string quaternion_start = "[initial]\nq = [0.9800665778412416, 0.19866933079506122, 0, 0]\n"
                                       "v = [-0.00993346653975306, 0.04900332889206208, 1.9880723007795012, "
                                       "9.831332207001072]\n";
  const std::string quaternion = "name = \"top\"\ncoordinates = [\"w\", \"x\", \"y\", \"z\"]\n" + top;
  const std::string on_a_quaternion_ball = quaternion + support + R"toml([[bodies]]
name = "top"
mass = "m"
inertia = ["A", "A", "C"]
parent = "support"
ball = { centre = [0, 0, "l"] }
quaternion = ["w", "x", "y", "z"]
)toml" + quaternion_start;
  const std::string placed = write_model("quaternion_top_placed", quaternion + R"toml([[bodies]]
name = "top"
mass = "m"
inertia = ["A", "A", "C"]
position = ["2*l*(x*z + w*y)", "2*l*(y*z - w*x)", "l*(1 - 2*(x^2 + y^2))"]
quaternion = ["w", "x", "y", "z"]
)toml" + quaternion_start);
  const std::string quaternion_ball = write_model("quaternion_top_on_a_ball", on_a_quaternion_ball);
  for (const char* method : {"dla", "rk4"})
    EXPECT_LT(apart(final_state(quaternion_ball, method), final_state(placed, method), 4), 1e-12) << method;
  // the ball's quaternion keeps its norm (a holonomic constraint) to round-off with dla
  const auto r = dalembert("run " + quaternion_ball + " --method dla --h 0.02 --steps 200");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_LT(std::abs(last_row(r.out).back()), 1e-14) << r.out.substr(0, r.out.find('\n'));

  expect_refused("ball_with_axis", replace_line(on_a_ball, "ball = { centre", "ball = { axis = [0, 0, 1], centre"), 16,
                 {"bodies.top.ball: unknown key 'axis' (known: at, centre)"});
  expect_refused("ball_without_orientation", replace_line(on_a_ball, "euler = [\"phi\", \"theta\", \"psi\"]\n", ""),
                 11, {"give its orientation from its parent's axes, euler = [phi, theta, psi]"});
  expect_refused("ball_with_position",
                 replace_line(on_a_ball, "ball = {", "position = [0, 0, 0]\nball = {"), 16,
                 {"a body on a ball joint is placed by its joint, not by position"});
  expect_refused("ball_and_hinge",
                 replace_line(on_a_ball, "ball = {", "hinge = { axis = [0, 0, 1], angle = \"psi\" }\nball = {"), 17,
                 {"a body has one joint to its parent, a hinge, a slider or a ball"});
  expect_refused("ball_not_a_table", replace_line(on_a_ball, "ball = { centre = [0, 0, \"l\"] }", "ball = 1"), 16,
                 {"bodies.top.ball must be a table, ball = { at = [0, 0, 0], centre = [0, 0, 0] }"});
}

// Loops: a point of one body held at a point of another, the joint that closes a loop of joints,
// as one holonomic constraint per axis. A parallelogram four-bar linkage in the x-z plane: two
// cranks of length l hung from the ground d apart, a coupler hinged to the left crank's tip whose
// far end the loop holds at the right crank's tip along x and z. Its motion keeps a = c = −b, the
// coupler level, so its Lagrangian on that line is the one-coordinate
// L = ½ (2 (Ic + mc l²/4) + mk l²) ȧ² + g l (mc + mk) cos a. The line is a linear subspace, on which
// DLA's steps are those of the one-coordinate file (to round-off), and the reference solver agrees
// with that file's to 1e-10.
TEST(CliModelFiles, LoopsCloseChainsOfJoints) {
  const std::string parameters = "parameters = { l = 0.5, d = 0.8, mc = 1.0, Ic = 0.02, mk = 2.0, g = 9.81 }\n";
  const std::string four_bar = "name = \"four-bar\"\ncoordinates = [\"a\", \"b\", \"c\"]\n" + parameters +
                               R"toml(gravity = "g"
[[bodies]]
name = "ground"
mass = 0
inertia = [0, 0, 0]
position = [0, 0, 0]
euler = [0, 0, 0]
[[bodies]]
name = "left"
mass = "mc"
inertia = ["Ic", "Ic", "Ic"]
parent = "ground"
hinge = { axis = [0, 1, 0], angle = "a", centre = [0, 0, "-l/2"] }
[[bodies]]
name = "coupler"
mass = "mk"
inertia = [0.01, 0.05, 0.05]
parent = "left"
hinge = { axis = [0, 1, 0], angle = "b", at = [0, 0, "-l"], centre = ["d/2", 0, 0] }
[[bodies]]
name = "right"
mass = "mc"
inertia = ["Ic", "Ic", "Ic"]
parent = "ground"
hinge = { axis = [0, 1, 0], angle = "c", at = ["d", 0, 0], centre = [0, 0, "-l/2"] }
[[loops]]
points = [{ body = "coupler", at = ["d", 0, 0] }, { body = "right", at = [0, 0, "-l"] }]
axes = [1, 3]
[initial]
q = [0.5, -0.5, 0.5]
v = [1, -1, 1]
)toml";
  const std::string linkage = write_model("four_bar", four_bar);
  const std::string crank = write_model(
      "parallelogram", "name = \"parallelogram\"\ncoordinates = [\"a\"]\n" + parameters +
                           "lagrangian = \"(2*(Ic + mc*l^2/4) + mk*l^2)/2*a_t^2 + g*l*(mc + mk)*cos(a)\"\n"
                           "[initial]\nq = [0.5]\nv = [1]\n");
  for (const auto& [method, within] : {std::pair{"dla", 1e-12}, std::pair{"reference", 1e-10}}) {
    const auto coupled = final_state(linkage, method), alone = final_state(crank, method);
    ASSERT_GE(coupled.size(), 12u) << method;  // t, q, v, ..., and the two holonomic columns last
    ASSERT_GE(alone.size(), 3u) << method;
    EXPECT_LT(std::abs(coupled[1] - alone[1]), within) << method;  // a
    EXPECT_LT(std::abs(coupled[4] - alone[2]), within) << method;  // its rate
    EXPECT_LT(std::abs(coupled[1] + coupled[2]) + std::abs(coupled[1] - coupled[3]), 1e-10) << method;
    EXPECT_LT(std::abs(coupled.end()[-2]) + std::abs(coupled.back()), 1e-14) << method;  // the loop's x and z
  }

  const std::string axes = "axes = [1, 3]\n";
  // on a cart (a fourth coordinate), with y among the axes: the points coincide along y by construction
  std::string on_a_cart = replace_line(four_bar, axes, "");
  for (const auto& [from, to] : {std::pair{"position = [0, 0, 0]", "position = [\"s\", 0, 0]"},
                                 {"coordinates = [\"a\", \"b\", \"c\"]", "coordinates = [\"a\", \"b\", \"c\", \"s\"]"},
                                 {"q = [0.5, -0.5, 0.5]", "q = [0.5, -0.5, 0.5, 0]"},
                                 {"v = [1, -1, 1]", "v = [1, -1, 1, 0]"}})
    on_a_cart = replace_line(on_a_cart, from, to);
  expect_refused("loop_along_a_vanishing_axis", on_a_cart, 29,
                 {"the points of loop 1 coincide along y at every configuration: leave y out of its axes"});
  expect_refused("loop_unknown_body", replace_line(four_bar, "body = \"right\", at", "body = \"rite\", at"), 30,
                 {"loop 1: no body named 'rite' among [[bodies]]"});
  expect_refused("loop_of_the_ground",
                 replace_line(four_bar, "{ body = \"coupler\", at = [\"d\", 0, 0] }, { body = \"right\",",
                              "{ at = [\"d\", 0, 0] }, {"),
                 30, {"loop 1: both points are the ground's; a loop holds a point of a body"});
  expect_refused("loop_one_point", replace_line(four_bar, ", { body = \"right\", at = [0, 0, \"-l\"] }", ""), 30,
                 {"loop 1: points are the two points that the loop holds together"});
  expect_refused("loop_repeated_axis", replace_line(four_bar, axes, "axes = [1, 1]\n"), 31,
                 {"loop 1: axes are the ground's axes along which the points coincide, distinct numbers among 1, "
                  "2 and 3"});
  expect_refused("loop_moving_point", replace_line(four_bar, "at = [\"d\", 0, 0] }, {", "at = [\"d\", 0, \"a\"] }, {"),
                 30, {"loops.1.points[0].at[2]: unknown symbol 'a': coordinates are not allowed here"});
  expect_refused("loop_not_closed", replace_line(four_bar, "q = [0.5, -0.5, 0.5]", "q = [0.5, -0.4, 0.5]"), 33,
                 {"violates loops.1 (along x)"});
}

// [definitions]: each name written out in parentheses wherever a later expression uses it, so a
// file with definitions is the file with them written out by hand: the same generated code, the
// same CSV to the last digit.
TEST(CliModelFiles, DefinitionsAreWrittenOut) {
  const std::string by_hand = R"toml(name = "sleigh"
coordinates = ["x", "y", "theta"]
parameters = { m = 1.0, I = 1.0, a = 0.5 }
lagrangian = "m/2*((x_t - a*sin(theta)*theta_t)^2 + (y_t + a*cos(theta)*theta_t)^2) + I/2*theta_t^2"
constraints = ["(y_t*cos(theta) - x_t*sin(theta))"]
[initial]
q = [0, 0, 0]
v = [1, 0, 1]
)toml";
  const std::string defined = R"toml(name = "sleigh"
coordinates = ["x", "y", "theta"]
parameters = { m = 1.0, I = 1.0, a = 0.5 }
lagrangian = "m/2*(u^2 + w^2) + I/2*theta_t^2"
constraints = ["sideways"]
[initial]
q = [0, 0, 0]
v = [1, 0, 1]
[definitions]
u = "x_t - a*sin(theta)*theta_t"   # the centre of mass' velocity
w = "y_t + a*cos(theta)*theta_t"
sideways = "y_t*cos(theta) - x_t*sin(theta)"
)toml";
  const auto a = dalembert("run " + write_model("by_hand", by_hand) + " --method mla --h 0.05 --steps 200");
  const auto b = dalembert("run " + write_model("defined", defined) + " --method mla --h 0.05 --steps 200");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.out, b.out);

  expect_refused("definition_unknown", replace_line(defined, "sideways = \"y_t", "sideways = \"c*y_t"), 12,
                 {"definitions.sideways: unknown symbol 'c'"});
  expect_refused("definition_later", replace_line(defined, "u = \"x_t", "u = \"w + x_t"), 10,
                 {"definitions.u: unknown symbol 'w': a definition may use only the definitions above it"});
  expect_refused("definition_velocity_in_potential",
                 replace_line(defined, "+ I/2*theta_t^2\"", "+ I/2*theta_t^2\"\npotential = \"u\""), 5,
                 {"potential: unknown symbol 'x_t': velocities are not allowed here", "(with the definitions u written "
                  "out)", "\"u\""});
  expect_refused("definition_of_a_coordinate", replace_line(defined, "u = \"x_t", "x = \"x_t"), 10,
                 {"definition 'x' is defined twice"});
  std::string doubling = "name = \"doubling\"\ncoordinates = [\"x\"]\nlagrangian = \"x_t^2/2 - d20\"\n[definitions]\n"
                         "d0 = \"x\"\n";
  for (int k = 1; k <= 20; ++k)
    doubling += "d" + std::to_string(k) + " = \"d" + std::to_string(k - 1) + "*d" + std::to_string(k - 1) + "\"\n";
  expect_refused("definitions_doubling", doubling, 20, {"definitions.d15: with the definitions it uses written out, it "
                                                        "is longer than the limit of 100000 characters"});
}

TEST(CliModelFiles, SizesAndLimitsAreChecked) {
  expect_refused("short_initial", replace_line(knife_edge, "q = [0, 0, 0]", "q = [0, 0]"), 7,
                 {"initial.q has 2 value(s) but the system has 3 coordinates (x, y, phi)"});
  std::string many;  // more coordinates than the limit of 1000 (docs/security.md)
  for (int i = 0; i < 1001; ++i) many += (i == 0 ? "\"q" : ", \"q") + std::to_string(i) + "\"";
  expect_refused("too_many", "name = \"many\"\ncoordinates = [" + many + "]\nmetric = [1]\n", 2,
                 {"the model has 1001 coordinates, more than the limit of 1000"});
  const auto missing = dalembert("run no-such-model.toml --method dla --h 0.1 --steps 1");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("model file 'no-such-model.toml' not found"), std::string::npos) << missing.err;
}

// The generating functions take a force beside their constraint force at the points of their rule,
// and fim DLA's midpoint forces (docs/methods.md, External forces in the GF family and FIM): on the
// knife edge pushed along its blade by a force of t, GF-sym at α = ¼ (its symmetric average of the
// two points) and fim with the trapezoidal L_d converge at order 2 to the reference solver, GF-α at
// α = ¼ at its order 1. At α = ½, where the other order tests run them, GF-sym is GF and the
// symmetric average of the force is not exercised.
TEST(CliModelFiles, TheGeneratingFunctionsAndFimTakeAForceAtTheirOrders) {
  const auto end_of = [](const std::string& args) {
    const auto r = dalembert("run " + model("pushed-knife-edge") + " " + args + " --t-end 4 --every 1000000");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return last_row(r.out);  // t, x, y, phi, ...
  };
  const auto reference = end_of("--method reference --h 0.1");
  const auto error = [&](const std::string& method, const std::string& h) {
    const auto row = end_of("--method " + method + " --h " + h);
    double worst = 0.0;
    for (int i = 1; i <= 3; ++i) worst = std::max(worst, std::abs(row.at(i) - reference.at(i)));
    return worst;
  };
  for (const auto& [method, order] : std::vector<std::pair<std::string, double>>{
           {"gf-sym --alpha 0.25", 2.0}, {"fim --rule trapezoid", 2.0}, {"gf --alpha 0.25", 1.0}}) {
    const double coarse = error(method, "0.05"), fine = error(method, "0.025");
    EXPECT_NEAR(std::log2(coarse / fine), order, 0.1) << method << ": " << coarse << " " << fine;
  }
}

// force = [...]: one expression per coordinate, in q, v and t; mistakes name the line, and every
// method of mechanical models runs a file with one, of t too.
TEST(CliModelFiles, ForcesAreCheckedAndRun) {
  const std::string forced =
      replace_line(knife_edge, "constraints =", "force = [\"-0.1*x_t\", \"-0.1*y_t\", 0]\nconstraints =");
  expect_refused("short_force", replace_line(forced, ", 0]", "]"), 5,
                 {"force has 2 value(s) but the system has 3 coordinates (x, y, phi)"});
  expect_refused("singular_force", replace_line(forced, "-0.1*x_t\"", "-sqrt(x)\""), 5,
                 {"force[0]: the force or a derivative of it up to the third is not finite", "\"-sqrt(x)\""});
  const std::string path = write_model("forced", forced);
  const auto run = dalembert("run " + path + " --method dla --h 0.1 --steps 10");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(dalembert("describe " + path).out.find("external force: yes\n"), std::string::npos);
  const std::string timed = write_model("forced_in_time", replace_line(forced, "-0.1*x_t\"", "-0.1*x_t*cos(t)\""));
  EXPECT_NE(dalembert("describe " + timed).out.find("external force: yes, depends on t"), std::string::npos);
  EXPECT_NE(dalembert("describe " + timed + " --json").out.find("\"force_depends_on_time\": true"), std::string::npos);
  for (const char* method : {"dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "rk4", "reference", "exact"}) {
    const auto r = dalembert("run " + timed + " --method " + method + " --h 0.1 --steps 10");
    EXPECT_EQ(r.status, 0) << method << ": " << r.err;
  }
}

// action = "z": a contact system; its mistakes name the line like the others.
TEST(CliModelFiles, ContactFilesAreCheckedAndRun) {
  const std::string contact = R"(name = "damped particle"
coordinates = ["x", "y"]
action = "z"
lagrangian = "(x_t^2 + y_t^2)/2 - 0.1*z"
[initial]
q = [0, 0]
v = [1, 0]
z = 0.5
)";
  const std::string path = write_model("contact", contact);
  const auto run = dalembert("run " + path + " --method herglotz --h 0.1 --steps 10");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("t,x,y,x_t,y_t,z,energy"), std::string::npos) << run.out;
  EXPECT_NE(dalembert("describe --json " + path).out.find("\"z\": 0.5"), std::string::npos);
  const auto dla = dalembert("run " + path + " --method dla --h 0.1 --steps 10");
  EXPECT_EQ(dla.status, 2);
  expect_refused("action_in_constraint",
                 replace_line(contact, "lagrangian =", "constraints = [\"x_t*z\"]\nlagrangian ="), 4,
                 {"constraints[0]: unknown symbol 'z': the action variable is allowed only in the lagrangian"});
  expect_refused("action_with_time", replace_line(contact, "0.1*z", "0.1*z*cos(t)"), 4,
                 {"lagrangian: unknown symbol 't': the time is not allowed here"});
  expect_refused("action_with_force", replace_line(contact, "[initial]", "force = [0, 0]\n[initial]"), 5,
                 {"an external force with an action variable (action = \"z\") is not supported yet"});
  expect_refused("initial_action_without_action", replace_line(contact, "action = \"z\"\n", ""), 7,
                 {"initial: unknown key 'z' (known: q, v; z only with an action variable"});
  expect_refused("action_is_a_coordinate", replace_line(contact, "action = \"z\"", "action = \"x\""), 3,
                 {"action variable 'x' is defined twice"});
  expect_refused("action_with_affine_constraint",
                 replace_line(contact, "lagrangian =", "constraints = [\"y_t - x\"]\nlagrangian ="), 4,
                 {"constraints[0]: not linear in the velocities (the part without velocities, \"-x\", is not zero; "
                  "a contact system takes linear constraints only)"});
}

// Compiled once, then found in the cache: the generated code must not depend on the run (GiNaC
// orders terms by address-dependent hashes; src/modelfile/symbolic.cpp prints a canonical form).
TEST(CliModelFiles, CompiledOnceThenCached) {
  const fs::path cache = scratch() / "cache";
  fs::remove_all(cache);
  for (int run = 0; run < 3; ++run)
    for (const char* stem : {"knife-edge", "particle", "chaplygin-sleigh-spring"})
      ASSERT_EQ(dalembert("describe " + model(stem), "DALEMBERT_CACHE_DIR=" + cache.string()).status, 0);
  int libraries = 0;
  for (const auto& f : fs::directory_iterator(cache)) libraries += f.path().extension() == ".so";
  EXPECT_EQ(libraries, 3);
}

// L = ½|v|² + B x y': a term linear in the velocity (a magnetic field) makes L not mechanical.
// Methods that need the metric of L = ½ vᵀGv − V refuse it by name; the others run it.
TEST(CliModelFiles, NonMechanicalLagrangiansRunWithTheMethodsThatAcceptThem) {
  const std::string path = write_model("magnetic", R"(name = "charged particle in a magnetic field"
coordinates = ["x", "y"]
parameters = { B = 1.0 }
lagrangian = "(x_t^2 + y_t^2)/2 + B*x*y_t"
[initial]
q = [1, 0]
v = [0, 1]
)");
  const auto dla = dalembert("run " + path + " --method dla --h 0.01 --steps 628");
  ASSERT_EQ(dla.status, 0) << dla.err;
  // a circle of radius 1/B = 1 about (0, 0): back at (1, 0) after t = 2π
  const auto l = lines(dla.out);
  std::istringstream last(l.back());
  std::string t, x, y;
  std::getline(last, t, ',');
  std::getline(last, x, ',');
  std::getline(last, y, ',');
  EXPECT_NEAR(std::stod(x), 1.0, 1e-3) << l.back();
  EXPECT_NEAR(std::stod(y), 0.0, 1e-2) << l.back();
  const auto fim = dalembert("run " + path + " --method fim --h 0.01 --steps 2");
  EXPECT_EQ(fim.status, 2);
  EXPECT_NE(fim.err.find("metric"), std::string::npos) << fim.err;
}

TEST(CliModelFiles, NonMechanicalLagrangiansWithConstraints) {
  // The magnetic Lagrangian with the nonholonomic particle's constraint z' = y x': neither the
  // magnetic force nor the constraint force does work, so E = |v|²/2 is conserved by the flow.
  // The same compiled model type serves mechanical files; here every method that does not need a
  // metric runs (the constraint force of gf comes from the constrained acceleration), and fim and
  // gf-cp are refused.
  const std::string path = write_model("magnetic_constrained", R"(name = "charged particle with a constraint"
coordinates = ["x", "y", "z"]
parameters = { B = 1.0 }
lagrangian = "(x_t^2 + y_t^2 + z_t^2)/2 + B*x*y_t"
constraints = ["z_t - y*x_t"]
[initial]
q = [1, 0.5, 0]
v = [0.2, 1, 0.1]
)");
  const fs::path summary = scratch() / "magnetic.json";
  for (const std::string method : {"dla", "mla", "gf", "gf-sym", "rk4", "reference"}) {
    const auto r = dalembert("run " + path + " --method " + method + " --h 0.01 --steps 300 --every 300 --summary " +
                             summary.string());
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    const auto j = nlohmann::json::parse(slurp(summary));
    EXPECT_NEAR(j["energy0"].get<double>(), 0.5 * (0.04 + 1 + 0.01), 1e-15) << method;
    EXPECT_LT(j["max_energy_error"].get<double>(), 1e-4) << method;
    EXPECT_LT(j["max_constraint_residual"].get<double>(), method == "rk4" ? 1e-8 : 1e-12) << method;
  }
  for (const std::string method : {"fim", "gf-cp"}) {
    const auto r = dalembert("run " + path + " --method " + method + " --h 0.01 --steps 2");
    EXPECT_EQ(r.status, 2) << method;
    EXPECT_NE(r.err.find("is not 1/2 v^T G(q) v - V(q)"), std::string::npos) << method << ": " << r.err;
  }
}

// The discrete gradient's step of 2n + m >= 14 unknowns (sizes::discrete_gradient_chord_unknowns)
// solves by chord iterations on a factorisation kept from step to step, then takes one Newton
// correction (docs/decisions.md, Newton: a fresh Jacobian at every iterate, no reuse): the energy
// stays at round-off and the constraint holds at the step points, as with Newton on smaller systems.
// Two skates (14 unknowns) and the chaotic oscillator (23), 2·10⁴ steps of h = 0.05: measured
// 3.1e-13 and 6.4e-15 (with Newton at every iterate 2.2e-13 and 7.6e-15); the chord's own stopping
// point, Newton's tolerance, left 600 times Newton's error on the sleigh's file.
TEST(CliModelFiles, DiscreteGradientKeepsTheEnergyOnLargerFiles) {
  const fs::path summary = scratch() / "discrete_gradient.json";
  for (const auto& [stem, energy_bound] : {std::pair{"two-skates", 3e-12}, std::pair{"chaotic-oscillator", 1e-13}}) {
    const auto r = dalembert("run " + model(stem) + " --method discrete-gradient --h 0.05 --steps 20000 " +
                             "--every 20000 --summary " + summary.string());
    ASSERT_EQ(r.status, 0) << stem << ": " << r.err;
    const auto j = nlohmann::json::parse(slurp(summary));
    EXPECT_LT(j["max_energy_error"].get<double>(), energy_bound) << stem;
    EXPECT_LT(j["max_constraint_residual"].get<double>(), 1e-12) << stem;
  }
}

// One compiled type runs model files of every size (src/modelfile/file_model.hpp): a file with
// more coordinates than the bound of 8 (stored on the heap) runs at once, with nothing compiled
// but its own kernels, and by an executable copied out of the build tree, which holds no path
// into it. A free particle in R^12 moves on a straight line, which DLA reproduces to round-off.
TEST(CliModelFiles, FilesOfAnySizeRunWithoutTheBuildTree) {
  std::string coordinates, metric, q0, v0;
  for (int i = 0; i < 12; ++i) {
    const std::string sep = i == 0 ? "" : ", ";
    coordinates += sep + "\"x" + std::to_string(i) + "\"";
    metric += sep + "1";
    q0 += sep + "0";
    v0 += sep + std::to_string(0.1 * (i + 1));
  }
  const std::string path = write_model("free_particle_12", "name = \"free particle in R^12\"\ncoordinates = [" +
                                                               coordinates + "]\nmetric = [" + metric +
                                                               "]\n[initial]\nq = [" + q0 + "]\nv = [" + v0 + "]\n");
  const fs::path elsewhere = scratch() / "elsewhere";
  fs::create_directories(elsewhere);
  fs::copy_file(DALEMBERT_EXECUTABLE, elsewhere / "dalembert", fs::copy_options::overwrite_existing);
  const std::string executable = slurp(elsewhere / "dalembert");
  EXPECT_EQ(executable.find(DALEMBERT_BINARY_DIR), std::string::npos) << "the executable names its build tree";

  const fs::path out = scratch() / "free12.out", err = scratch() / "free12.err";
  const std::string cmd = (elsewhere / "dalembert").string() + " run " + path + " --method dla --h 0.1 --steps 10 --every 10 >" +
                          out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << slurp(err);
  const auto rows = lines(slurp(out));
  ASSERT_EQ(rows.size(), 3u);  // header, k = 0, k = 10
  std::stringstream last(rows[2]);
  std::string cell;
  std::getline(last, cell, ',');
  EXPECT_DOUBLE_EQ(std::stod(cell), 1.0);
  for (int i = 0; i < 12; ++i) {
    std::getline(last, cell, ',');
    EXPECT_NEAR(std::stod(cell), 0.1 * (i + 1), 1e-14) << "x" << i;
  }
}

// A file's steady motion is the catalogue's: the sleigh sliding straight, whose Jacobian of the
// acceleration (θ̇ = 0, λ = 0) lost a derivative in Eigen's triangular solve at run-time sizes
// (docs/decisions.md, Linear solves in dual numbers), and the particle at rest in its well.
TEST(CliModelFiles, SteadyMotionsAreTheCatalogues) {
  const auto eigenvalues = [](const std::string& args) {
    const Result r = cli_test::dalembert("steady " + args + " --json");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(r.out.empty() ? "{}" : r.out)["eigenvalues"];
  };
  const auto largest_difference = [](const nlohmann::json& a, const nlohmann::json& b) {
    EXPECT_EQ(a.size(), b.size());
    double d = 0.0;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
      for (int k = 0; k < 2; ++k) d = std::max(d, std::abs(a[i][k].get<double>() - b[i][k].get<double>()));
    return d;
  };
  std::ostringstream backwards;  // at speed −2 along a heading of 0.4, exactly in D
  backwards.precision(17);
  backwards << "--q0 0.3,-1,0.4 --v0 " << -2 * std::cos(0.4) << "," << -2 * std::sin(0.4) << ",0 --param a=0.7";
  for (const std::string& start : {std::string("--q0 0,0,0 --v0 1,0,0"), backwards.str()}) {
    const auto file = eigenvalues(model("chaplygin-sleigh") + " --symmetric x,y " + start);
    const auto catalogue = eigenvalues("chaplygin-sleigh " + start);
    EXPECT_LT(largest_difference(file, catalogue), 1e-12) << start << "\n" << file << "\n" << catalogue;
  }
  const std::string at_rest = " --q0 0,0,0 --v0 0,0,0 --param potential=1";
  EXPECT_LT(largest_difference(eigenvalues(model("particle") + " --symmetric z" + at_rest),
                               eigenvalues("particle" + at_rest)),
            1e-12);
  cli_test::expect_bad_input("steady " + model("chaplygin-sleigh") + " --q0 0,0,0 --v0 1,0,0",
                             "declares no symmetric (cyclic) coordinates: name them with --symmetric");
}

// `steady --find` with a rotation: the rolling disk (m = R = g = 1, A = 1/4, C = 1/2), tilted by 0.3
// and spinning at ψ̇ = 2, turns steadily; held, θ and ψ̇ keep their values, θ̇ is 0 and the
// rotation's rate is the turning rate φ̇. Upright and rolling straight at w = 2 it tilts at
// λ² = (m g R − C (C + m R²) w²/A)/(A + m R²) = −8.8, with its neutral Jordan block counted as no
// growing mode (docs/methods.md, Steady motions and their stability).
TEST(CliModelFiles, SteadyTurnOfTheRollingDiskIsFoundWithWhatIsHeld) {
  const auto json_of = [](const std::string& args) {
    const Result r = cli_test::dalembert("steady " + model("rolling-disk") + " " + args + " --json");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
  };
  const auto upright = json_of("--symmetric x,y,psi --q0 0,0,0,0,0 --v0 2,0,0,0,2");
  EXPECT_EQ(upright["growing_modes"], 0);
  double pair = 0.0;
  for (const auto& x : upright["eigenvalues"]) pair = std::max(pair, std::abs(x[1].get<double>()));
  EXPECT_NEAR(pair, std::sqrt(8.8), 1e-10);
  const auto turn = json_of("--symmetric x,y,psi --rotation x,y,phi --find --hold theta,psi_t --q0 0,0,0.3,0,0 "
                            "--v0 2,0,0,0.5,2");
  EXPECT_GE(turn["iterations"].get<int>(), 1);
  EXPECT_NEAR(turn["q0"][2].get<double>(), 0.3, 1e-15);
  EXPECT_NEAR(turn["v0"][4].get<double>(), 2.0, 1e-14);
  EXPECT_NEAR(turn["v0"][2].get<double>(), 0.0, 1e-14);
  EXPECT_NEAR(turn["rates"]["rotation"].get<double>(), turn["v0"][3].get<double>(), 1e-12);
  EXPECT_LT(turn["v0"][3].get<double>(), 0.0) << "leaning towards −y, it turns that way";
  EXPECT_EQ(turn["rotation"], nlohmann::json({"x", "y", "phi"}));
  EXPECT_EQ(turn["eigenvalues"].size(), 4u);
  // spark's own steady turn nearby, with the same tilt and spin, and its step there turned back by
  // the rotation: the turning rate and the tilt pair within its order-4 error
  const auto step = json_of("--symmetric x,y,psi --rotation x,y,phi --find --hold theta,psi_t --q0 0,0,0.3,0,0 "
                            "--v0 2,0,0,0.5,2 --method spark --h 0.05")["step"];
  EXPECT_EQ(step["method"], "spark");
  EXPECT_NEAR(step["q0"][2].get<double>(), 0.3, 1e-15);
  EXPECT_NEAR(step["rates"]["psi"].get<double>(), 2.0, 1e-13);
  const double turning_error =
      std::abs(step["rates"]["rotation"].get<double>() - turn["rates"]["rotation"].get<double>());
  EXPECT_GT(turning_error, 0.0);
  EXPECT_LT(turning_error, 1e-5);
  ASSERT_EQ(step["eigenvalues"].size(), 4u);
  const auto largest_imaginary = [](const nlohmann::json& values) {
    double out = 0.0;
    for (const auto& x : values) out = std::max(out, x[1].get<double>());
    return out;
  };
  EXPECT_NEAR(largest_imaginary(step["eigenvalues"]), largest_imaginary(turn["eigenvalues"]), 1e-4);
  EXPECT_EQ(step["growing_modes"], 0);
  const std::string start = " --q0 0,0,0,0,0 --v0 2,0,0,0,2";
  cli_test::expect_bad_input("steady " + model("rolling-disk") + " --symmetric x,y,psi --method dla" + start,
                             "give --method and --h together");
  // a compiled system's step is its installed model file's, with the symmetry it declares: the
  // sleigh's straight motion backwards, whose rates 0.4, 0, 0 dla's midpoint step keeps to O(h²)
  const auto sleigh = nlohmann::json::parse(
      cli_test::dalembert("steady chaplygin-sleigh --q0 0,0,0 --v0 -1,0,0 --method dla --h 0.1 --json").out);
  const auto sleigh_file = nlohmann::json::parse(
      cli_test::dalembert("steady " + model("chaplygin-sleigh") + " --symmetric x,y --q0 0,0,0 --v0 -1,0,0 "
                          "--method dla --h 0.1 --json").out);
  EXPECT_EQ(sleigh["step"], sleigh_file["step"]);
  EXPECT_NEAR(sleigh["step"]["eigenvalues"][0][0].get<double>(), 0.4, 1e-2);
  cli_test::expect_bad_input("steady suslov --method dla --h 0.1", "suslov is not one");
  cli_test::expect_bad_input("steady " + model("rolling-disk") + " --symmetric x,y,psi --hold theta" + start,
                             "--hold: what to hold is for --find");
  cli_test::expect_bad_input("steady " + model("rolling-disk") + " --symmetric psi --rotation x" + start,
                             "give two coordinates and optionally an angle");
  cli_test::expect_bad_input("steady " + model("rolling-disk") + " --symmetric psi --rotation x,x,phi" + start,
                             "--rotation: its coordinates must differ");
  cli_test::expect_bad_input("steady " + model("rolling-disk") + " --symmetric x,y,psi --find --hold tilt" + start,
                             "has no coordinate 'tilt'");
  cli_test::expect_bad_input("steady " + model("rolling-disk") + " --symmetric x,y,psi --rotation x,y" + start,
                             "it is not a symmetry");
  cli_test::expect_bad_input("steady " + model("rolling-disk") + " --symmetric x,y,psi --find --hold theta "
                             "--q0 0,0,0.3,0,0 --v0 2,0,0,0,2",
                             "no steady motion found near (q0, v0)");
}

// `dalembert exp`: homogeneity exp_1(2 v) = exp_2(v) with T exp_1 at 2v equal to T exp_2 at v / 2
// (Lemma 5.2.2), and the radial part of the Gauss condition, G0(v)(v, v) = h² |v|²_G (the speed is
// kept without a potential), from the particle's start along a basis of D(q0) (docs/jacobi-fields.md).
TEST(CliModelFiles, ExponentialMapIsHomogeneousAndRadiallyGauss) {
  const auto json_of = [](const std::string& args) {
    const Result r = cli_test::dalembert("exp " + model("particle") + " --q0 1,0.5,0 " + args + " --json");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
  };
  const auto doubled = json_of("--v0 0.6,1.4,0.3 --h 1"), longer = json_of("--v0 0.3,0.7,0.15 --h 2");
  double apart = 0.0, differentials = 0.0;
  for (int i = 0; i < 3; ++i)
    apart = std::max(apart, std::abs(doubled["q"][i].get<double>() - longer["q"][i].get<double>()));
  ASSERT_EQ(doubled["differential"].size(), 2u);
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i)
      differentials = std::max(differentials, std::abs(2 * doubled["differential"][k][i].get<double>() -
                                                       longer["differential"][k][i].get<double>()));
  EXPECT_LT(apart, 1e-10);
  EXPECT_LT(differentials, 1e-9);
  // v = Σ c_k w_k on the orthonormal basis: Σ c_k G0(v)(v, w_k) = Σ c_k h² G(q0)(v, w_k) = h² |v|²
  const std::vector<double> v = {0.3, 0.7, 0.15};
  double radial = 0.0, initial = 0.0;
  for (int k = 0; k < 2; ++k) {
    double c = 0.0;
    for (int i = 0; i < 3; ++i) c += v[static_cast<std::size_t>(i)] * longer["directions"][k][i].get<double>();
    radial += c * longer["radial"][k].get<double>();
    initial += c * longer["initial"][k].get<double>();
  }
  EXPECT_NEAR(initial, 4 * (0.09 + 0.49 + 0.0225), 1e-12);
  EXPECT_NEAR(radial, initial, 1e-9);
  const Result text = cli_test::dalembert("exp " + model("particle") + " --h 0.5");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("Gauss condition"), std::string::npos) << text.out;
  cli_test::expect_bad_input("exp " + model("particle") + " --h -1", "must be a positive number, got -1");
  // a compiled system takes the model file installed under its name: the file's numbers
  const Result sleigh = cli_test::dalembert("exp chaplygin-sleigh");
  const Result sleigh_file = cli_test::dalembert("exp " + model("chaplygin-sleigh"));
  ASSERT_EQ(sleigh.status, 0) << sleigh.err;
  EXPECT_EQ(sleigh.out.substr(sleigh.out.find('\n')), sleigh_file.out.substr(sleigh_file.out.find('\n')));
  cli_test::expect_bad_input("exp suslov", "suslov is a compiled catalogue system without one");
  cli_test::expect_bad_input("exp " + model("particle") + " --q0 0,0,0 --v0 1,0,1", "violates constraints[0]");
}

// `dalembert conjugate`: the particle in the potential c (x² + y²) from the origin along x has its
// conjugate points where the oscillation returns, t = kπ/√(2c), each of multiplicity 2
// (docs/jacobi-fields.md); bad values exit 2 naming them.
TEST(CliModelFiles, JacobiFieldOfTheParticleInItsWellAsCsv) {
  // V = 2(x² + y²), from the origin along x (x = sin(2t)/2), varied by δv0 = ∂y: W_y = sin(2t)/2 and,
  // from ż = y ẋ, W_z = (1 − cos 4t)/16, with W_x = 0 (the variation of x is of second order).
  const Result r = cli_test::dalembert("jacobi " + model("particle") +
                                       " --param potential=2 --q0 0,0,0 --v0 1,0,0 --dq0 0,0,0 --dv0 0,1,0"
                                       " --t-end 3 --samples 30");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream rows(r.out);
  std::string line;
  std::getline(rows, line);
  EXPECT_EQ(line, "t,x,y,z,W_x,W_y,W_z,W_x_t,W_y_t,W_z_t,linearised_constraint");
  int count = 0;
  double worst = 0.0;
  while (std::getline(rows, line)) {
    std::vector<double> v;
    std::istringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) v.push_back(std::stod(cell));
    ASSERT_EQ(v.size(), 11u) << line;
    const double t = v[0];
    EXPECT_NEAR(t, 0.1 * count, 1e-15);
    worst = std::max({worst, std::abs(v[4]), std::abs(v[5] - std::sin(2 * t) / 2),
                      std::abs(v[6] - (1 - std::cos(4 * t)) / 16), std::abs(v[8] - std::cos(2 * t)), std::abs(v[10])});
    ++count;
  }
  EXPECT_EQ(count, 31);
  EXPECT_LT(worst, 1e-10);
  cli_test::expect_bad_input("jacobi " + model("particle") + " --dq0 0,0,0 --dv0 0,0,1 --t-end 1",
                             "is not tangent to the constraint");
  cli_test::expect_bad_input("jacobi " + model("particle") + " --dq0 0,0 --dv0 0,1,0 --t-end 1", "dq0 has 2 entries");
  cli_test::expect_bad_input("jacobi " + model("particle") + " --dq0 0,0,0 --dv0 0,1,0 --t-end 0", "--t-end");
  const std::string variation = " --param potential=2 --q0 0,0,0 --v0 1,0,0 --dq0 0,0,0 --dv0 0,1,0 --t-end 1";
  const Result by_name = cli_test::dalembert("jacobi particle" + variation);
  ASSERT_EQ(by_name.status, 0) << by_name.err;
  EXPECT_EQ(by_name.out, cli_test::dalembert("jacobi " + model("particle") + variation).out);
  cli_test::expect_bad_input("jacobi suslov --dq0 0,0,0 --dv0 0,1,0 --t-end 1",
                             "suslov is a compiled catalogue system");
}

TEST(CliModelFiles, ConjugatePointsOfTheParticleInItsWell) {
  const Result r = cli_test::dalembert("conjugate " + model("particle") +
                                       " --param potential=2 --q0 0,0,0 --v0 1,0,0 --t-end 7 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto points = nlohmann::json::parse(r.out)["conjugate_points"];
  ASSERT_EQ(points.size(), 4u) << r.out;
  for (std::size_t k = 0; k < points.size(); ++k) {
    EXPECT_NEAR(points[k]["t"].get<double>(), (k + 1) * M_PI / 2, 1e-9) << k;
    EXPECT_EQ(points[k]["multiplicity"].get<int>(), 2) << k;
    EXPECT_EQ(points[k]["directions"].size(), 2u) << k;
  }
  const Result text = cli_test::dalembert("conjugate " + model("chaplygin-sleigh") + " --t-end 10");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("in (0, 10]: 0"), std::string::npos) << text.out;
  cli_test::expect_bad_input("conjugate " + model("particle") + " --t-end -1", "--t-end: must be a positive number");
  cli_test::expect_bad_input("conjugate " + model("particle") + " --t-end 1 --samples 2", "--samples");
  const Result by_name =
      cli_test::dalembert("conjugate particle --param potential=2 --q0 0,0,0 --v0 1,0,0 --t-end 7 --json");
  ASSERT_EQ(by_name.status, 0) << by_name.err;
  EXPECT_EQ(nlohmann::json::parse(by_name.out)["conjugate_points"], points);
  cli_test::expect_bad_input("conjugate suslov --t-end 1", "suslov is a compiled catalogue system");
}
