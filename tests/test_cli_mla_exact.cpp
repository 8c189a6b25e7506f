// The command line for methods mla and exact: the papers' experiments as commands, the exact flow
// against closed forms, a conjugate point as a numerical failure (exit 3), bad input (exit 2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

namespace fs = std::filesystem;

namespace {

using cli_test::Result;
using cli_test::slurp;
using cli_test::dalembert;
using cli_test::scratch;


/// CSV → header and rows of numbers.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
  std::size_t column(const std::string& name) const {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  }
};

Csv parse(const std::string& text) {
  Csv csv;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  for (std::stringstream s(line); std::getline(s, line, ',');) csv.header.push_back(line);
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (std::stringstream s(line); std::getline(s, line, ',');) row.push_back(std::stod(line));
    csv.rows.push_back(row);
  }
  return csv;
}

void expect_bad_input(const std::string& args, const std::string& mentions) {
  const auto r = dalembert(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << args << "\nstderr: " << r.err;
}

}  // namespace

TEST(CliMlaExact, ListedMethods) {
  const auto r = dalembert("list --names");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\nmla\n"), std::string::npos);
  EXPECT_NE(r.out.find("\nexact\n"), std::string::npos);
}

TEST(CliMlaExact, ParticleExperimentOfThePaper) {
  // [ASMM22] Example 3 / thesis Ex. 7.5.1: q0 = 0, q1 = (0.4, 0.4, 0.08), h = 0.5, N = 1200.
  const fs::path summary = scratch() / "particle.json";
  const auto mla = dalembert("run particle --method mla --h 0.5 --steps 1200 --q0 0,0,0 --q1 0.4,0.4,0.08 --every 600 "
                             "--summary " + summary.string());
  ASSERT_EQ(mla.status, 0) << mla.err;
  const Csv csv = parse(mla.out);
  EXPECT_EQ(csv.header, (std::vector<std::string>{"t", "x", "y", "z", "x_t", "y_t", "z_t", "energy", "constraint",
                                                  "discrete_constraint", "newton_iterations", "p_x", "p_y", "p_z"}));
  ASSERT_EQ(csv.rows.size(), 3u);  // k = 0, 600, 1200
  EXPECT_NEAR(csv.rows[0][csv.column("energy")], 0.665088757396, 1e-11);  // H|D* at F^−l_d(q0, q1)
  EXPECT_NEAR(csv.rows[2][csv.column("x")], 7.117945976832498, 1e-8);
  EXPECT_NEAR(csv.rows[2][csv.column("z")], 497.4561242740663, 1e-8);
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(j["method"], "mla");
  EXPECT_NEAR(j["max_energy_error"].get<double>(), 4.43e-5, 0.01e-5);
  EXPECT_LT(j["max_discrete_constraint"].get<double>(), 1e-12);

  const auto dla = dalembert("run particle --method dla --h 0.5 --steps 1200 --q0 0,0,0 --q1 0.4,0.4,0.08 --every 600 "
                             "--summary " + summary.string());
  ASSERT_EQ(dla.status, 0) << dla.err;
  EXPECT_NEAR(nlohmann::json::parse(slurp(summary))["max_energy_error"].get<double>(), 6.61e-3, 0.01e-3);
}

TEST(CliMlaExact, KnifeEdgeExperimentsOfThePaper) {
  // Thesis Ex. 7.5.2–7.5.3: (x1, φ1) = (0.4, 0.4), y1 on the midpoint constraint, h = 0.5, N = 600.
  const fs::path summary = scratch() / "knife.json";
  const auto spread = [&](const std::string& system, const std::string& method, const std::string& y1) {
    const auto r = dalembert("run " + system + " --method " + method + " --h 0.5 --steps 600 --q0 0,0,0 --q1 0.4," +
                             y1 + ",0.4 --every 600 --summary " + summary.string());
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(slurp(summary))["max_energy_error"].get<double>();
  };
  const std::string y1 = "0.08108401420346905", y1_perturbed = "0.09029740967206684";
  EXPECT_LT(10 * spread("knife-edge", "mla", y1), spread("knife-edge", "dla", y1));
  EXPECT_LT(spread("perturbed-knife-edge", "mla", y1_perturbed), spread("perturbed-knife-edge", "dla", y1_perturbed));
}

TEST(CliMlaExact, ExactFlowMatchesTheClosedForm) {
  // Vertical disk, rolling rate 1, heading rate 2, to t = 2: x, y on a circle of radius R/2.
  const auto r = dalembert("run vertical-disk --method exact --h 0.2 --t-end 2 --every 10");
  ASSERT_EQ(r.status, 0) << r.err;
  const Csv csv = parse(r.out);
  ASSERT_EQ(csv.rows.size(), 2u);
  const auto& last = csv.rows.back();
  EXPECT_DOUBLE_EQ(last[0], 2.0);
  EXPECT_NEAR(last[csv.column("x")], 0.5 * std::sin(4.0), 1e-10);
  EXPECT_NEAR(last[csv.column("y")], 0.5 * (1 - std::cos(4.0)), 1e-10);
  EXPECT_NEAR(last[csv.column("theta")], 2.0, 1e-10);
  EXPECT_NEAR(last[csv.column("phi")], 4.0, 1e-10);
  EXPECT_NEAR(last[csv.column("energy")], 3.0, 1e-10);
  EXPECT_LT(last[csv.column("discrete_constraint")], 1e-10);

  // Two-point start on the exact constraint submanifold: the particle through q0 = 0 and
  // (x1, y1) = (0.4, 0.4) has z1 = 0.07900101095683879 (an independently computed value).
  const auto two = dalembert("run particle --method exact --h 0.5 --steps 4 --q0 0,0,0 --q1 0.4,0.4,0.07900101095683879");
  ASSERT_EQ(two.status, 0) << two.err;
  const Csv c = parse(two.out);
  ASSERT_EQ(c.rows.size(), 5u);
  EXPECT_NEAR(c.rows[0][c.column("energy")], 0.5 * (0.8204385187170077 * 0.8204385187170077 + 0.64), 1e-10);
  EXPECT_NEAR(c.rows[4][c.column("y")], 1.6, 1e-10);
}

TEST(CliMlaExact, ConjugatePointIsANumericalFailure) {
  // The harmonic oscillator's exponential map is singular at h = π.
  const auto r = dalembert("run harmonic-oscillator --method exact --h 3.141592653589793 --steps 3");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("conjugate point"), std::string::npos) << r.err;
  EXPECT_EQ(parse(r.out).rows.size(), 1u);  // the initial row is kept
  // From two points the exact retraction R^{e−}(q0, q1) itself fails: nothing but the header.
  const auto pair = dalembert("run harmonic-oscillator --method exact --h 3.141592653589793 --steps 3 --q0 1 --q1 -1");
  EXPECT_EQ(pair.status, 3);
  EXPECT_NE(pair.err.find("conjugate point"), std::string::npos) << pair.err;
  EXPECT_EQ(pair.out, "t,q,q_t,energy,constraint,newton_iterations,p_q\n");
  const auto ok = dalembert("run harmonic-oscillator --method exact --h 3 --steps 3");
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NEAR(parse(ok.out).rows.back()[1], std::cos(9.0), 1e-10);
}

TEST(CliMlaExact, BadInput) {
  expect_bad_input("run particle --method exact --h 0.5 --steps 2 --shooting-tolerance 1e-13", "1e-13");
  expect_bad_input("run particle --method exact --h 0.5 --steps 2 --shooting-tolerance abc", "'abc' is not a number");
  expect_bad_input("run particle --method exact --h 0.5 --steps 2 --q0 0,0,0 --q1 0.4,0.4,0.08",
                   "violates the discrete constraint");  // 0.08 is the midpoint surface, not the exact one
  expect_bad_input("run particle --method mla --h 0.5 --steps 2 --rule trapezoid", "--rule: trapezoid is not available");
  expect_bad_input("run particle --method mla --h 0.5 --steps 2 --q0 0,0,0 --q1 0.4,0.4,0.5",
                   "violates the discrete constraint");
}
