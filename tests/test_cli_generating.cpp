// Command line of the generating-function family, FIM and the rigid bodies on SO(3): names in
// `list`, `describe --json` of a rigid body, the CSV columns and their numbers, bad input.
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

TEST(CliGeneratingFunction, ListHasTheNewMethodsAndSystemsOnce) {
  const auto r = dalembert("list --names");
  ASSERT_EQ(r.status, 0);
  const auto l = lines(r.out);
  const auto methods = std::find(l.begin(), l.end(), "methods:");
  ASSERT_NE(methods, l.end());
  for (const char* s : {"suslov", "rigid-body-attitude-constraint"}) EXPECT_NE(std::find(l.begin(), methods, s), methods) << s;
  for (const char* m : {"gf", "gf-sym", "gf-cp", "fim", "fim-lie", "rk4", "reference"})
    EXPECT_EQ(std::count(methods, l.end(), m), 1) << m;
}

TEST(CliGeneratingFunction, DescribeRigidBodyFollowsTheContract) {
  const auto r = dalembert("describe rigid-body-attitude-constraint --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "rigid-body-attitude-constraint");
  EXPECT_EQ(j["coordinates"], nlohmann::json({"g11", "g12", "g13", "g21", "g22", "g23", "g31", "g32", "g33"}));
  for (const char* p : {"I1", "I2", "I3"}) EXPECT_DOUBLE_EQ(j["parameters"][p].get<double>(), 1.0) << p;
  EXPECT_EQ(j["initial"]["q"].size(), 9u);
  EXPECT_EQ(j["initial"]["v"].size(), 3u);
  EXPECT_EQ(j["constraints"], 1);
  const auto s = nlohmann::json::parse(dalembert("describe suslov --json").out);
  EXPECT_DOUBLE_EQ(s["parameters"]["I3"].get<double>(), 3.0);
  EXPECT_EQ(s["closed_form"], true);
}

namespace {
/// Column `name` of a CSV text as numbers.
std::vector<double> column(const std::string& csv, const std::string& name) {
  const auto l = lines(csv);
  std::vector<std::string> header;
  std::stringstream hs(l.at(0));
  for (std::string c; std::getline(hs, c, ',');) header.push_back(c);
  const auto idx = std::find(header.begin(), header.end(), name) - header.begin();
  std::vector<double> out;
  for (std::size_t i = 1; i < l.size(); ++i) {
    std::stringstream rs(l[i]);
    std::string cell;
    for (long c = 0; c <= idx; ++c) std::getline(rs, cell, ',');
    out.push_back(std::stod(cell));
  }
  return out;
}
double spread(const std::vector<double>& x) {
  return *std::max_element(x.begin(), x.end()) - *std::min_element(x.begin(), x.end());
}
}  // namespace

TEST(CliGeneratingFunction, GfAndGfCpRunsWriteTheContractColumns) {
  const auto gf = dalembert("run particle --method gf --h 0.1 --steps 20 --param potential=1");
  ASSERT_EQ(gf.status, 0) << gf.err;
  EXPECT_EQ(lines(gf.out)[0],
            "t,x,y,z,x_t,y_t,z_t,energy,constraint,discrete_constraint,newton_iterations,p_x,p_y,p_z");
  EXPECT_EQ(lines(gf.out).size(), 22u);
  const auto cp = dalembert("run knife-edge --method gf-cp --h 0.1 --steps 200 --param k=0.5");
  ASSERT_EQ(cp.status, 0) << cp.err;
  const auto c = column(cp.out, "constraint");
  EXPECT_LT(*std::max_element(c.begin(), c.end()), 1e-13);  // GF-CP: Ψ(q_k, p_k) = 0
  const auto sym = dalembert("run knife-edge --method gf-sym --alpha 0 --h 0.1 --steps 10");
  EXPECT_EQ(sym.status, 0) << sym.err;
}

TEST(CliGeneratingFunction, FimWritesTheMomentumDiagnostics) {
  const auto r = dalembert("run particle --method fim --h 0.1 --steps 500 --param potential=1 --every 10");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(
      lines(r.out)[0],
      "t,x,y,z,x_t,y_t,z_t,energy,constraint,newton_iterations,p_x,p_y,p_z,energy_pminus,energy_pplus,qstar_p_average,"
      "qstar_p_plus");
  EXPECT_LT(spread(column(r.out, "energy_pminus")), 1e-12);  // constant metric, quadratic V
  EXPECT_GT(spread(column(r.out, "energy")), 1e-4);          // the energy of p~ is not exact
  const auto b = dalembert("run knife-edge --method fim --fim-start B --h 0.1 --steps 10");
  EXPECT_EQ(b.status, 0) << b.err;
}

TEST(CliGeneratingFunction, RigidBodiesRunWithFimLieRk4AndReference) {
  const auto r = dalembert("run rigid-body-attitude-constraint --method fim-lie --h 0.1 --steps 300 --every 30");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out)[0],
            "t,g11,g12,g13,g21,g22,g23,g31,g32,g33,energy,constraint,newton_iterations,omega1,omega2,omega3,"
            "energy_pminus,energy_pplus,qstar_p_average,qstar_p_plus");
  EXPECT_EQ(lines(r.out).size(), 12u);
  EXPECT_LT(spread(column(r.out, "energy_pminus")), 1e-14);
  const auto ref = dalembert("run suslov --method reference --h 0.5 --t-end 2 --v0 0.3,-0.2,0");
  ASSERT_EQ(ref.status, 0) << ref.err;
  EXPECT_LT(spread(column(ref.out, "omega1")), 1e-12);  // a = e3: Ω constant
  EXPECT_EQ(dalembert("run suslov --method rk4 --h 0.1 --steps 5").status, 0);
}

TEST(CliGeneratingFunction, BadInputForTheNewMethodsAndSystems) {
  expect_bad_input("run knife-edge --method fim --h 0.1 --steps 5 --fim-start C", "--fim-start: unknown value 'C'");
  expect_bad_input("run particle --method fim-lie --h 0.1 --steps 5", "method fim-lie does not apply to system particle");
  expect_bad_input("run suslov --method gf --h 0.1 --steps 5", "method gf does not apply to system suslov");
  expect_bad_input("run suslov --method dla --h 0.1 --steps 5", "method dla does not apply to system suslov");
  expect_bad_input("run suslov --method fim-lie --h 0.1 --steps 5 --q0 1,0,0,0,1,0,0,0,2", "not a rotation matrix");
  expect_bad_input("run suslov --method fim-lie --h 0.1 --steps 5 --q0 1,0,0", "takes the 9 entries");
  expect_bad_input("run suslov --method fim-lie --h 0.1 --steps 5 --v0 1,0,1", "violates the constraint");
  expect_bad_input("run suslov --method fim-lie --h 0.1 --steps 5 --q1 1,0,0,0,1,0,0,0,1", "--q1");
  expect_bad_input("run suslov --method fim-lie --h 0.1 --steps 5 --param I1=-1", "positive definite");
  expect_bad_input("run particle --method gf --h 0.1 --steps 5 --rule trapezoid", "--rule: trapezoid does not apply");
  expect_bad_input("run particle --method gf --h 0.1 --steps 5 --q0 0,0,0 --q1 0.4,0.4,0.5", "phi~");
}

TEST(CliGeneratingFunction, TwoPointStartOfFimReproducesTheSecondPoint) {
  const auto r = dalembert("run knife-edge --method fim --h 0.1 --steps 3 --q0 0,0,0 --q1 0.05,0,0.1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(column(r.out, "x").at(1), 0.05, 1e-15);
  EXPECT_NEAR(column(r.out, "phi").at(1), 0.1, 1e-15);
}
