// The command-line contract (docs/architecture.md, *Running and the command line*): list,
// describe --json, run's CSV and summary, exit status 2 for each kind of bad input (with a message
// naming the bad value) and 3 for a solver failure with the completed rows kept.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using namespace cli_test;

namespace fs = std::filesystem;

TEST(Cli, ListPrintsSystemsMethodsAndModelFilesInThreeSections) {
  const auto r = dalembert("list --names");
  ASSERT_EQ(r.status, 0);
  const auto l = lines(r.out);
  const auto methods = std::find(l.begin(), l.end(), "methods:");
  const auto files = std::find(l.begin(), l.end(), "model files:");
  ASSERT_EQ(l.front(), "systems:");
  ASSERT_NE(methods, l.end());
  ASSERT_NE(files, l.end());
  for (const char* s : {"particle", "knife-edge", "perturbed-knife-edge", "vertical-disk", "chaplygin-sleigh"})
    EXPECT_NE(std::find(l.begin(), methods, s), methods) << s;
  for (const char* m : {"del", "dla", "rk4", "reference"}) EXPECT_NE(std::find(methods, files, m), files) << m;
  // the model files of models/ (the build tree's copy), which every command takes by name
  for (const char* f : {"rolling-disk", "two-skates", "chaotic-oscillator"}) EXPECT_NE(std::find(files, l.end(), f), l.end()) << f;
  const auto disk = dalembert("describe rolling-disk --json");
  ASSERT_EQ(disk.status, 0) << disk.err;
  EXPECT_EQ(nlohmann::json::parse(disk.out)["coordinates"].size(), 5u);
}

TEST(Cli, ABareCommandPrintsTheHelpAndSlipsGetASuggestion) {
  const auto r = dalembert("");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: dalembert [OPTIONS] SUBCOMMAND"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("convergence"), std::string::npos) << r.out;
  expect_bad_input("rnu particle", "unknown command 'rnu' (did you mean 'run'?)");
  expect_bad_input("describe knife-egde", "unknown system 'knife-egde' (did you mean 'knife-edge'?)");
  expect_bad_input("describe rolling-dsik", "(did you mean 'rolling-disk'?)");
  expect_bad_input("describe zzz", "unknown system 'zzz' (known: ");
}

TEST(Cli, ListDescribesEverySystemAndMethod) {
  const auto r = dalembert("list");
  ASSERT_EQ(r.status, 0);
  const auto l = lines(r.out);
  const auto starting = [&](const std::string& name) {
    return std::find_if(l.begin(), l.end(), [&](const std::string& s) { return s.rfind(name + "  ", 0) == 0; });
  };
  ASSERT_NE(starting("particle"), l.end());
  EXPECT_NE(starting("particle")->find("nonholonomic particle in R^3"), std::string::npos) << *starting("particle");
  ASSERT_NE(starting("dla"), l.end());
  EXPECT_NE(starting("dla")->find("Cortes and Martinez (2001)"), std::string::npos);
  EXPECT_NE(starting("dla")->find("[nonholonomic]"), std::string::npos);
  ASSERT_NE(starting("fim-lie"), l.end());
  EXPECT_NE(starting("fim-lie")->find("[rigid body]"), std::string::npos);
  // every line of both sections has a description
  const auto names = lines(dalembert("list --names").out);
  ASSERT_EQ(names.size(), l.size());
  for (std::size_t i = 0; i < l.size(); ++i) {
    if (names[i].empty() || names[i].back() == ':') continue;
    EXPECT_GT(l[i].size(), names[i].size() + 10) << l[i];
  }
}

TEST(Cli, DescribeJsonHasTheContractKeys) {
  const auto r = dalembert("describe vertical-disk --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "vertical-disk");
  EXPECT_EQ(j["coordinates"], nlohmann::json({"x", "y", "theta", "phi"}));
  for (const char* p : {"m", "R", "I", "J"}) EXPECT_TRUE(j["parameters"].contains(p)) << p;
  EXPECT_EQ(j["initial"]["q"].size(), 4u);
  EXPECT_EQ(j["initial"]["v"].size(), 4u);
  EXPECT_EQ(j["constraints"], 2);
  const auto p = nlohmann::json::parse(dalembert("describe perturbed-knife-edge --json").out);
  EXPECT_EQ(p["coordinates"], nlohmann::json({"x", "y", "phi"}));
  EXPECT_DOUBLE_EQ(p["parameters"]["eps"].get<double>(), 0.1);
  EXPECT_EQ(dalembert("describe particle").status, 0);
}

TEST(Cli, RunWritesTheContractCsvAndSummary) {
  const fs::path csv = scratch() / "disk.csv", summary = scratch() / "disk.json";
  const auto r = dalembert("run vertical-disk --method dla --h 0.1 --t-end 1 --out " + csv.string() + " --summary " +
                           summary.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = lines(slurp(csv));
  ASSERT_EQ(l.size(), 12u);  // header + 11 rows (k = 0..10)
  EXPECT_EQ(l[0].rfind("t,x,y,theta,phi,x_t,y_t,theta_t,phi_t,energy,constraint", 0), 0u) << l[0];
  EXPECT_EQ(l[11].rfind("1,", 0), 0u) << l[11];
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(j["system"], "vertical-disk");
  EXPECT_EQ(j["method"], "dla");
  EXPECT_EQ(j["steps"], 10);
  EXPECT_DOUBLE_EQ(j["h"].get<double>(), 0.1);
  // The summary's numbers are those of the rows: the largest |E_k − E_0| of the energy column.
  double max_energy_error = 0.0, E0 = 0.0;
  for (std::size_t k = 1; k < l.size(); ++k) {
    const double E = cli_test::numbers(l[k])[9];  // t, 4 coordinates, 4 velocities, energy
    if (k == 1) E0 = E;
    max_energy_error = std::max(max_energy_error, std::abs(E - E0));
  }
  EXPECT_GT(max_energy_error, 0.0);
  EXPECT_EQ(j["max_energy_error"].get<double>(), max_energy_error);
  EXPECT_EQ(j["energy0"].get<double>(), E0);
  EXPECT_LT(j["max_constraint_residual"].get<double>(), 1e-13);  // the velocity of the momentum lies in D
  EXPECT_LT(j["max_discrete_constraint"].get<double>(), 1e-12);
  const double mean = j["newton_iterations"]["mean"].get<double>();
  EXPECT_GE(mean, 1.0);
  EXPECT_LE(mean, j["newton_iterations"]["max"].get<int>());
  EXPECT_LE(j["newton_iterations"]["max"].get<int>(), 4);
  EXPECT_GT(j["wall_time_seconds"].get<double>(), 0.0);
  // Written through a temporary file renamed into place: none is left behind.
  for (const auto& f : fs::directory_iterator(scratch()))
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
}

TEST(Cli, RunToStdoutWithEveryAndParameters) {
  const auto r = dalembert("run particle --method rk4 --h 0.1 --steps 10 --every 4 --param potential=1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = lines(r.out);
  ASSERT_EQ(l.size(), 5u);  // header, k = 0, 4, 8, 10
  EXPECT_EQ(l[0], "t,x,y,z,x_t,y_t,z_t,energy,constraint,newton_iterations");
  EXPECT_EQ(l[4].rfind("1,", 0), 0u);
  // E0 = ½(0.09 + 0.49 + 0.0225) + 1 + 0.25 = 1.55125 with the potential switched on
  EXPECT_NE(l[1].find(",1.55125,"), std::string::npos) << l[1];
}

TEST(Cli, TwoPointStart) {
  const auto r = dalembert("run particle --method dla --h 0.5 --steps 3 --q0 0,0,0 --q1 0.4,0.4,0.08");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out).size(), 5u);
}

TEST(Cli, BadInputExitsWithStatusTwoAndNamesTheValue) {
  expect_bad_input("run particle --method dla --h abc --steps 10", "'abc' is not a number");
  expect_bad_input("run particle --method dla --h nan --steps 10", "'nan' is not a finite number");
  expect_bad_input("run particle --method dla --h 0 --steps 10", "must be positive, got 0");
  expect_bad_input("run particle --method dla --h -0.1 --steps 10", "must be positive, got -0.1");
  expect_bad_input("run particle --method dla --h 0.1 --steps 10 --q0 1,2", "--q0 has 2 value(s)");
  expect_bad_input("run particle --method dla --h 0.1 --steps 10 --q0 1,x,3", "'x' is not a number");
  expect_bad_input("run particle --method dla --h 0.1 --steps 10 --v0 1,0,0", "v0 = (1, 0, 0) violates the constraints");
  expect_bad_input("run no-such-system --method dla --h 0.1 --steps 10", "unknown system 'no-such-system'");
  expect_bad_input("run particle --method warp --h 0.1 --steps 10", "unknown method 'warp'");
  expect_bad_input("run particle --method dla --h 0.1 --steps 10 --param mass=2", "unknown parameter 'mass'");
  expect_bad_input("run particle --method dla --h 0.1 --steps 10 --param potential=inf", "'inf' is not a finite number");
  expect_bad_input("run particle --method spark --stages 6 --h 0.1 --steps 10", "--stages: must lie in 2..5, got 6");
  expect_bad_input("run particle --method spark --stages 1 --h 0.1 --steps 10", "--stages: must lie in 2..5, got 1");
  expect_bad_input("run particle --method dla --h 0.1", "exactly one of --steps");
  expect_bad_input("run particle --method dla --h 0.1 --steps 10 --q0 0,0,0 --q1 0.4,0.4,0.5",
                   "violates the discrete constraint");
  expect_bad_input("run particle --h 0.1 --steps 10", "--method");
  expect_bad_input("describe nothing", "unknown system");
}

TEST(Cli, SolverFailureExitsWithStatusThreeAndKeepsTheRows) {
  // The sleigh needs three Newton iterations per step; allowing one makes step 1 fail.
  const fs::path csv = scratch() / "fail.csv", summary = scratch() / "fail.json";
  const auto r = dalembert("run chaplygin-sleigh --method dla --h 0.1 --steps 10 --max-iterations 1 --out " +
                           csv.string() + " --summary " + summary.string());
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("step 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("residual norm"), std::string::npos) << r.err;
  EXPECT_EQ(lines(slurp(csv)).size(), 2u);  // header and the initial row
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(j["status"], "solver-failure");
  EXPECT_EQ(j["steps"], 0);
}

TEST(Cli, SolverFailureMidRunKeepsEveryCompletedStep) {
  // L = ẋ²/2 + x⁴/4 (V = −x⁴/4) blows up in finite time; with h = 0.1 the discrete equation of step
  // 12 has no solution near the extrapolated guess, after 11 good steps.
  const fs::path model = scratch() / "blow-up.toml", csv = scratch() / "blow.csv", summary = scratch() / "blow.json";
  std::ofstream(model) << "name = \"blow-up\"\ncoordinates = [\"x\"]\nlagrangian = \"x_t^2/2 + x^4/4\"\n"
                          "[initial]\nq = [1]\nv = [1]\n";
  const auto r = dalembert("run " + model.string() + " --method dla --h 0.1 --steps 40 --out " + csv.string() +
                           " --summary " + summary.string());
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("failed at step 12"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept 11 completed step(s)"), std::string::npos) << r.err;
  const auto l = lines(slurp(csv));
  ASSERT_EQ(l.size(), 13u);  // header and k = 0..11
  EXPECT_EQ(l[12].rfind("1.1,", 0), 0u) << l[12];
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(j["status"], "solver-failure");
  EXPECT_EQ(j["steps"], 11);
  // With --every 5 the rows k = 0, 5, 10 and the last good one, 11, are kept.
  const auto thin = dalembert("run " + model.string() + " --method dla --h 0.1 --steps 40 --every 5");
  EXPECT_EQ(thin.status, 3);
  const auto t = lines(thin.out);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[4].rfind("1.1,", 0), 0u) << t[4];
}

TEST(Cli, SteadyGivesTheEigenvaluesOfASteadyMotion) {
  // The sleigh sliding straight at speed u: 0, 0 and −m a u/(I + m a²) = −0.4 u (docs/methods.md,
  // Steady motions and their stability); from its file: CliModelFiles.SteadyMotionsAreTheCatalogues.
  const auto eigenvalues = [](const std::string& args) {
    const auto r = dalembert("steady " + args + " --json");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
  };
  for (const double u : {1.0, -2.0}) {
    const auto j = eigenvalues("chaplygin-sleigh --q0 0,0,0 --v0 " + std::to_string(u) + ",0,0");
    ASSERT_EQ(j["eigenvalues"].size(), 3u);
    EXPECT_EQ(j["symmetric"], nlohmann::json({"x", "y"}));
    const double rate = -0.4 * u;  // sorted by real part, largest first
    const auto& first = j["eigenvalues"][u > 0 ? 2 : 0];
    EXPECT_NEAR(first[0].get<double>(), rate, 1e-12);
    EXPECT_EQ(first[1].get<double>(), 0.0);
    EXPECT_EQ(j["growing_modes"], u > 0 ? 0 : 1);
    EXPECT_NEAR(j["largest_real_part"].get<double>(), std::max(0.0, rate), 1e-12);
  }
  // the particle at rest at the bottom of V = c (x² + y²): ±i√(2c), each twice
  const auto particle = eigenvalues("particle --param potential=2 --q0 0,0,0 --v0 0,0,0");
  ASSERT_EQ(particle["eigenvalues"].size(), 4u);
  for (const auto& x : particle["eigenvalues"]) {
    EXPECT_NEAR(x[0].get<double>(), 0.0, 1e-12);
    EXPECT_NEAR(std::abs(x[1].get<double>()), 2.0, 1e-12);
  }
  const auto text = dalembert("steady chaplygin-sleigh --q0 0,0,0 --v0 -1,0,0");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("unstable: 1 growing mode(s)"), std::string::npos) << text.out;
  // what is not a steady motion, not a symmetry, or not a model with steady motions
  expect_bad_input("steady chaplygin-sleigh --q0 0,0,0 --v0 1,0,0.5",
                   "not a steady motion: the velocity of coordinate 2 is 0.5, not 0");
  expect_bad_input("steady chaplygin-sleigh --q0 0,0,0 --v0 1,0,0 --symmetric x,q", "has no coordinate 'q'");
  expect_bad_input("steady chaplygin-sleigh --q0 0,0,0 --v0 1,0,0 --symmetric x,y,theta", "it is not a symmetry");
  expect_bad_input("steady suslov", "suslov is not one");
}
