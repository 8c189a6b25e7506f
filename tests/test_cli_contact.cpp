// The command line for contact systems (docs/architecture.md): the catalogue entries, describe with
// z0, the CSV contract t, coordinates, z, energy, constraint, ..., the thesis' figures reproduced
// from the command line (Figs. 8.1–8.2), the energy decay rate in the summary, and bad input.
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

TEST(CliContact, ListHasTheContactSystemsAndMethodsOnce) {
  const auto r = dalembert("list --names");
  ASSERT_EQ(r.status, 0);
  const auto l = lines(r.out);
  const auto methods = std::find(l.begin(), l.end(), "methods:");
  for (const char* s : {"contact-particle", "damped-oscillator", "damped-oscillator-2d", "damped-knife-edge"})
    EXPECT_NE(std::find(l.begin(), methods, s), methods) << s;
  for (const char* m : {"herglotz", "exact", "rk4", "reference"})
    EXPECT_EQ(std::count(methods, l.end(), m), 1) << m;
}

TEST(CliContact, DescribeGivesTheThesisDefaults) {
  const auto r = dalembert("describe damped-oscillator --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["coordinates"], nlohmann::json({"q"}));
  EXPECT_DOUBLE_EQ(j["parameters"]["gamma"].get<double>(), -0.05);
  EXPECT_DOUBLE_EQ(j["initial"]["q"][0].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["initial"]["z"].get<double>(), 0.0);
  EXPECT_EQ(j["constraints"], 0);
  const auto k = nlohmann::json::parse(dalembert("describe damped-knife-edge --json").out);
  EXPECT_EQ(k["coordinates"], nlohmann::json({"x", "y", "phi"}));
  EXPECT_EQ(k["constraints"], 1);
  EXPECT_NE(dalembert("describe contact-particle").out.find("--z0 0"), std::string::npos);
}

TEST(CliContact, ThesisFigureOneFromTheCommandLine) {
  // Fig. 8.1: herglotz (the thesis' rule by default) with the thesis' data; first rows and the summary's
  // fitted decay rate of the energy over 100 time units (independently computed: −0.05082).
  const fs::path summary = scratch() / "x8.json";
  const auto r = dalembert("run contact-particle --method herglotz --h 0.5 --q1 2 --t-end 100 --summary " + summary.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = lines(r.out);
  ASSERT_EQ(l.size(), 202u);
  EXPECT_EQ(l[0], "t,q,q_t,z,energy,constraint,newton_iterations,p_q");
  const double q[] = {1, 2, 2.975, 3.925625}, z[] = {0, 1, 1.925625, 2.781172265625};
  for (int k = 0; k < 4; ++k) {
    const auto v = numbers(l[k + 1]);
    EXPECT_DOUBLE_EQ(v[0], 0.5 * k);
    EXPECT_NEAR(v[1], q[k], 1e-14);
    EXPECT_NEAR(v[3], z[k], 1e-14);  // t, q, q_t, z
  }
  EXPECT_NEAR(numbers(l[1])[4], 2.1038790, 5e-8);  // H0 = H ∘ F⁻L_d(q0, q1, z0)
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_NEAR(j["energy_decay_rate"].get<double>(), -0.05082, 5e-6);
  EXPECT_EQ(j["method"], "herglotz");
}

TEST(CliContact, ThesisFigureTwoAndItsExactDynamics) {
  // Fig 8.2 and its "exact dynamics" (as we read them): the exact discrete flow from the same
  // (q0, q1, z0), whose energy decays at exactly γ.
  const fs::path s1 = scratch() / "x9.json", s2 = scratch() / "x9e.json", csv = scratch() / "x9e.csv";
  ASSERT_EQ(dalembert("run damped-oscillator --method herglotz --h 0.5 --q1 2 --t-end 100 --summary " + s1.string()).status, 0);
  EXPECT_NEAR(nlohmann::json::parse(slurp(s1))["energy_decay_rate"].get<double>(), -0.05063, 5e-6);
  const auto r = dalembert("run damped-oscillator --method exact --h 0.5 --q1 2 --t-end 100 --every 200 --out " + csv.string() +
                           " --summary " + s2.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(slurp(s2))["energy_decay_rate"].get<double>(), -0.05, 1e-12);
  const auto exact = lines(slurp(csv));
  ASSERT_EQ(exact.size(), 3u);  // header, k = 0 and k = 200
  EXPECT_DOUBLE_EQ(numbers(exact[1])[1], 1.0);
}

TEST(CliContact, ExactAgreesWithTheReferenceSolver) {
  const auto e = dalembert("run damped-oscillator-2d --param c=0.5 --method exact --h 0.25 --steps 40 --every 40");
  const auto r = dalembert("run damped-oscillator-2d --param c=0.5 --method reference --h 0.25 --steps 40 --every 40");
  ASSERT_EQ(e.status, 0) << e.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(e.out)[0], "t,x,y,x_t,y_t,z,energy,constraint,newton_iterations,p_x,p_y");
  const auto a = numbers(lines(e.out)[2]), b = numbers(lines(r.out)[2]);
  for (int c = 0; c < 7; ++c) EXPECT_NEAR(a[c], b[c], 1e-10) << c;  // t, x, y, x_t, y_t, z, energy
}

TEST(CliContact, ExponentialRuleAndTheDampedKnifeEdge) {
  const fs::path summary = scratch() / "knife.json";
  const auto r = dalembert("run damped-knife-edge --method herglotz --rule exponential --h 0.1 --t-end 50 --every 100 --summary " +
                           summary.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out)[0],
            "t,x,y,phi,x_t,y_t,phi_t,z,energy,constraint,discrete_constraint,newton_iterations,p_x,p_y,p_phi,"
            "lambda_1");
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_LT(j["max_discrete_constraint"].get<double>(), 1e-12);
  EXPECT_LT(j["max_constraint_residual"].get<double>(), 1e-13);
  EXPECT_NEAR(j["energy_decay_rate"].get<double>(), -0.05, 1e-4);  // measured −0.050047
  ASSERT_EQ(dalembert("run damped-knife-edge --method rk4 --h 0.1 --steps 10").status, 0);
}

TEST(CliContact, BadInputIsNamed) {
  expect_bad_input("run contact-particle --method herglotz --h 20 --steps 3", "--h: 20 makes sigma_d");  // σ_d = 1 + hγ = 0
  expect_bad_input("run contact-particle --method herglotz --h 0.5 --steps 3 --z0 abc", "'abc' is not a number");
  expect_bad_input("run contact-particle --method herglotz --h 0.5 --steps 3 --rule simpson", "--rule: unknown value 'simpson'");
  expect_bad_input("run contact-particle --method dla --h 0.5 --steps 3", "does not apply to system contact-particle");
  expect_bad_input("run damped-knife-edge --method exact --h 0.5 --steps 3", "1 constraint(s)");
  expect_bad_input("run damped-knife-edge --method herglotz --h 0.5 --steps 3 --v0 1,1,0", "violates the constraints");
  expect_bad_input("run damped-knife-edge --method herglotz --h 0.5 --steps 3 --q0 0,0,0 --q1 0.1,0.1,0", "discrete constraint");
  expect_bad_input("run contact-particle --method rk4 --h 0.5 --steps 3 --q1 2", "--q1");
  expect_bad_input("run contact-particle --method herglotz --h 0.5 --steps 3 --q0 1,2", "--q0 has 2 value(s)");
  expect_bad_input("run particle --method dla --h 0.5 --steps 3 --rule exponential", "contact rule");
  expect_bad_input("run particle --method dla --h 0.5 --steps 3 --z0 1", "--z0");
  expect_bad_input("run damped-oscillator --method exact --param gamma=0 --h 3.141592653589793 --steps 2", "conjugate");
}
