// `dalembert ensemble` (docs/ensembles.md): the rows do not depend on the number of threads or of
// MPI ranks, the grid and the seeded sampling give the documented values, each row's statistics
// equal those of `dalembert run` for that sample, and bad input / solver failures exit 2 / 3.
// Also the large system of the catalogue, `knife-edge-chain` with N skates chosen at run time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using namespace cli_test;

namespace fs = std::filesystem;

namespace {

/// A CSV as a header and rows of cells.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t col(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return 0;
  }
  double num(std::size_t row, const std::string& name) const { return std::stod(rows.at(row).at(col(name))); }
  const std::string& cell(std::size_t row, const std::string& name) const { return rows.at(row).at(col(name)); }
};

Table parse_csv(const std::string& text) {
  Table t;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, ',');) cells.push_back(c);
    if (t.header.empty()) t.header = cells;
    else t.rows.push_back(cells);
  }
  return t;
}

const std::string sleigh = "ensemble chaplygin-sleigh --method dla --h 0.05 --steps 200 ";

}  // namespace

TEST(Ensemble, RowsAreIdenticalForAnyNumberOfThreads) {
  const std::string args = sleigh + "--param-range a=0.1:0.9 --param-range I=0.5:2 --samples 4";
  const auto one = dalembert(args + " --threads 1");
  ASSERT_EQ(one.status, 0) << one.err;
  for (const char* k : {"2", "3", "7"}) {
    const auto more = dalembert(args + " --threads " + k);
    ASSERT_EQ(more.status, 0) << more.err;
    EXPECT_EQ(more.out, one.out) << "--threads " << k;  // byte for byte
  }
  const auto by_default = dalembert(args);  // all cores
  EXPECT_EQ(by_default.out, one.out);
  EXPECT_EQ(parse_csv(one.out).rows.size(), 16u);
}

TEST(Ensemble, GridHasEveryCombinationWithTheLastRangeFastest) {
  const auto r = dalembert(sleigh + "--param-range a=0.1:0.5 --param-range m=1:3 --samples 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  const std::vector<std::string> expected_header = {
      "sample",  "a",       "m",       "status",      "steps",     "energy0",   "energy_drift",  "max_constraint",
      "t_final", "x_final", "y_final", "theta_final", "x_t_final", "y_t_final", "theta_t_final", "energy_final"};
  EXPECT_EQ(t.header, expected_header);
  ASSERT_EQ(t.rows.size(), 9u);
  const double a[] = {0.1, 0.30000000000000004, 0.5}, m[] = {1, 2, 3};  // lo + (hi - lo) i / (N - 1)
  for (std::size_t s = 0; s < 9; ++s) {
    EXPECT_EQ(t.num(s, "sample"), static_cast<double>(s));
    EXPECT_EQ(t.num(s, "a"), a[s / 3]) << s;
    EXPECT_EQ(t.num(s, "m"), m[s % 3]) << s;
    EXPECT_EQ(t.cell(s, "status"), "ok");
    EXPECT_EQ(t.num(s, "steps"), 200);
    EXPECT_NEAR(t.num(s, "t_final"), 10.0, 1e-12);
  }
  // One value per axis is the midpoint.
  const auto mid = parse_csv(dalembert(sleigh + "--param-range a=0.1:0.5 --samples 1").out);
  ASSERT_EQ(mid.rows.size(), 1u);
  EXPECT_EQ(mid.num(0, "a"), 0.3);  // (lo + hi) / 2
}

TEST(Ensemble, EachRowHasTheStatisticsOfDalembertRunForThatSample) {
  const auto r = dalembert(sleigh + "--param-range a=0.1:0.9 --samples 5 --threads 2");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  ASSERT_EQ(t.rows.size(), 5u);
  for (std::size_t s : {0u, 3u}) {
    const fs::path csv = scratch() / "run.csv", summary = scratch() / "run.json";
    const auto run = dalembert("run chaplygin-sleigh --method dla --h 0.05 --steps 200 --param a=" + t.cell(s, "a") +
                               " --out " + csv.string() + " --summary " + summary.string());
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = nlohmann::json::parse(slurp(summary));
    // Exactly equal: the same run, and both write doubles in a form that reads back exactly.
    EXPECT_EQ(t.num(s, "energy_drift"), j["max_energy_error"].get<double>()) << s;
    EXPECT_EQ(t.num(s, "max_constraint"), j["max_constraint_residual"].get<double>()) << s;
    EXPECT_EQ(t.num(s, "energy0"), j["energy0"].get<double>()) << s;
    const auto traj = parse_csv(slurp(csv));
    ASSERT_EQ(traj.rows.size(), 201u);
    for (const char* c : {"t", "x", "y", "theta", "x_t", "y_t", "theta_t", "energy"})
      EXPECT_EQ(t.num(s, std::string(c) + "_final"), traj.num(200, c)) << c;
    // DLA on the sleigh: the energy drifts only a little (a sanity check of the statistic itself).
    EXPECT_GT(t.num(s, "energy_drift"), 0.0);
    EXPECT_LT(t.num(s, "energy_drift"), 1e-2 * t.num(s, "energy0"));
  }
}

TEST(Ensemble, SeededSamplingIsReproducibleAndInRange) {
  const std::string args = sleigh + "--param-range a=0.2:0.4 --param-range I=1:2 --sampling random --samples 6";
  const auto s1 = dalembert(args + " --seed 42 --threads 1"), s2 = dalembert(args + " --seed 42 --threads 2");
  const auto other = dalembert(args + " --seed 43");
  ASSERT_EQ(s1.status, 0) << s1.err;
  EXPECT_EQ(s1.out, s2.out);
  EXPECT_NE(s1.out, other.out);
  const auto t = parse_csv(s1.out);
  ASSERT_EQ(t.rows.size(), 6u);
  std::map<double, int> distinct;
  for (std::size_t s = 0; s < 6; ++s) {
    EXPECT_GE(t.num(s, "a"), 0.2);
    EXPECT_LT(t.num(s, "a"), 0.4);
    EXPECT_GE(t.num(s, "I"), 1.0);
    EXPECT_LT(t.num(s, "I"), 2.0);
    ++distinct[t.num(s, "a")];
  }
  EXPECT_EQ(distinct.size(), 6u);
  // Default seed 1.
  EXPECT_EQ(dalembert(args).out, dalembert(args + " --seed 1").out);
}

TEST(Ensemble, InitialFileRowsGivePositionsVelocitiesAndParameters) {
  const fs::path file = scratch() / "initial.csv";
  std::ofstream(file) << "# knife edge: phi = 0 so that the blade is along x and v_y = 0\n"
                         "x,v_x,v_phi,g\n"
                         "0,0.5,1,0.5\n"
                         "\n"
                         "1,2,-1,0\n"
                         "0.25,0,0.5,1\n";
  const fs::path out = scratch() / "ens.csv";
  const auto r = dalembert("ensemble knife-edge --method dla --h 0.1 --steps 50 --initial-file " + file.string() +
                           " --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  const auto t = parse_csv(slurp(out));
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.header[1], "x");
  EXPECT_EQ(t.header[4], "g");
  // Sample 1: x0 = 1, v0 = (2, 0, -1), g = 0 — against `dalembert run` with the same data.
  const fs::path summary = scratch() / "knife.json";
  const auto run = dalembert("run knife-edge --method dla --h 0.1 --steps 50 --q0 1,0,0 --v0 2,0,-1 --param g=0 "
                             "--summary " + summary.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(slurp(summary));
  EXPECT_EQ(t.num(1, "energy_drift"), j["max_energy_error"].get<double>());
  EXPECT_EQ(t.num(1, "energy0"), 0.5 * 4 + 0.5 * 1);  // m = J = 1, no potential
  // --samples takes the first rows.
  const auto two = dalembert("ensemble knife-edge --method dla --h 0.1 --steps 50 --samples 2 --initial-file " +
                             file.string());
  ASSERT_EQ(two.status, 0) << two.err;
  const auto t2 = parse_csv(two.out);
  ASSERT_EQ(t2.rows.size(), 2u);
  EXPECT_EQ(t2.rows[1], t.rows[1]);
}

TEST(Ensemble, ContactSystemsAddTheActionVariableToTheFinalState) {
  const auto r = dalembert("ensemble damped-oscillator --method herglotz --h 0.1 --steps 100 "
                           "--param-range gamma=-0.1:0.1 --samples 3");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(r.out);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.header[t.header.size() - 2], "z_final");
  // gamma = 0 is the conservative oscillator: the discrete energy oscillates at round-off level only;
  // gamma = -0.1 damps it (L = L0 + gamma z: E = E0 e^{gamma t}), gamma = 0.1 amplifies it.
  EXPECT_LT(t.num(1, "energy_drift"), 1e-12);
  EXPECT_LT(t.num(0, "energy_final"), t.num(0, "energy0"));
  EXPECT_GT(t.num(2, "energy_final"), t.num(2, "energy0"));
}

TEST(Ensemble, BadInputExitsWithStatusTwoNamingTheProblem) {
  const auto expect_bad = expect_bad_input;
  expect_bad(sleigh + "--param-range b=0:1 --samples 3", "unknown parameter 'b'");
  expect_bad(sleigh + "--param-range a=1:0 --samples 3", "lo must not exceed hi");
  expect_bad(sleigh + "--param-range a=0:x --samples 3", "'x' is not a number");
  expect_bad(sleigh + "--param-range a=0.1:0.2", "needs --samples");
  expect_bad(sleigh + "--samples 3", "either --param-range");
  expect_bad(sleigh + "--param-range a=0.1:0.2 --samples 2 --seed 3", "--seed applies to --sampling random");
  expect_bad(sleigh + "--param-range a=0.1:0.2 --samples 2 --sampling sobol", "unknown sampling 'sobol'");
  expect_bad(sleigh + "--param-range a=0.1:0.2 --samples 2 --threads 0", "--threads");
  expect_bad(sleigh + "--param-range a=0.1:0.2 --param a=0.3 --samples 2", "also fixed by --param");
  expect_bad("ensemble chaplygin-sleigh --method nope --h 0.1 --steps 3 --param-range a=0:1 --samples 2",
             "unknown method 'nope'");
  const fs::path file = scratch() / "bad.csv";
  std::ofstream(file) << "x,w\n1,2\n";
  expect_bad("ensemble knife-edge --method dla --h 0.1 --steps 5 --initial-file " + file.string(), "column 'w'");
  std::ofstream(file) << "x,v_y\n0,0\n0,1\n";  // sample 1's velocity leaves the blade's direction
  expect_bad("ensemble knife-edge --method dla --h 0.1 --steps 5 --initial-file " + file.string(),
             "sample 1: v0 = (0.5, 1, 1) violates the constraints");
  expect_bad("ensemble knife-edge --method dla --h 0.1 --steps 5 --initial-file " + (scratch() / "none.csv").string(),
             "is not a regular file");
}

TEST(Ensemble, SolverFailureIsARowWithStatusSolverFailureAndExitThree) {
  // The sleigh needs three Newton iterations per step; allowing one makes step 1 fail.
  const auto r = dalembert(sleigh + "--param-range a=0.1:0.5 --samples 3 --max-iterations 1");
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("failed in 3 of 3"), std::string::npos) << r.err;
  const auto t = parse_csv(r.out);
  ASSERT_EQ(t.rows.size(), 3u);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(t.cell(s, "status"), "solver-failure");
    EXPECT_EQ(t.num(s, "steps"), 0);
    EXPECT_EQ(t.num(s, "t_final"), 0);
  }
}

TEST(Ensemble, MpiRanksWriteTheSameCsvAsOneProcess) {
#ifndef DALEMBERT_MPIEXEC
  GTEST_SKIP() << "dalembert was built without MPI (find_package(MPI) found none, or -DDALEMBERT_WITH_MPI=OFF; install libopenmpi-dev "
                  "and openmpi-bin, see scripts/install-deps.sh)";
#else
  const std::string args = sleigh + "--param-range a=0.1:0.9 --param-range I=0.5:2 --samples 5 --threads 1";
  const fs::path serial = scratch() / "serial.csv", parallel = scratch() / "mpi.csv";
  const auto one = dalembert(args + " --out " + serial.string());
  ASSERT_EQ(one.status, 0) << one.err;
  const std::string root = ::getuid() == 0 ? " --allow-run-as-root" : "";
  for (const char* n : {"2", "3"}) {
    fs::remove(parallel);
    const auto mpi = shell(std::string(DALEMBERT_MPIEXEC) + " -n " + n + " --oversubscribe" + root + " " +
                           DALEMBERT_EXECUTABLE + " " + args + " --out " + parallel.string());
    ASSERT_EQ(mpi.status, 0) << mpi.err;
    EXPECT_EQ(slurp(parallel), slurp(serial)) << n << " ranks";
  }
  EXPECT_EQ(parse_csv(slurp(serial)).rows.size(), 25u);
  // Bad input in one sample is reported once, by rank 0, with exit status 2 from mpirun.
  const fs::path file = scratch() / "mpi_bad.csv";
  std::ofstream(file) << "x,v_y\n0,0\n0,0\n0,1\n";
  const auto bad = shell(std::string(DALEMBERT_MPIEXEC) + " -n 2 --oversubscribe" + root + " " +
                         DALEMBERT_EXECUTABLE + " ensemble knife-edge --method dla --h 0.1 --steps 5 --initial-file " +
                         file.string());
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("sample 2: v0"), std::string::npos) << bad.err;
#endif
}

// The chain of the catalogue at a size dense derivatives cannot reach: 1000 skates, 3000
// coordinates, stepped by the midpoint DLA assembled term by term with sparse Newton.
TEST(KnifeEdgeChainCli, AThousandSkatesKeepTheirConstraintsAndEnergy) {
  const fs::path csv = scratch() / "chain.csv", summary = scratch() / "chain.json";
  const auto r = dalembert("run knife-edge-chain --param N=1000 --method dla --h 0.05 --steps 100 --every 50 --out " +
                           csv.string() + " --summary " + summary.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(slurp(csv));
  ASSERT_EQ(t.header.size(), 1u + 3000u + 3000u + 4u + 3000u + 1000u);  // t, q, v, 4 diagnostics, p, λ
  EXPECT_EQ(t.header[1], "x1");
  EXPECT_EQ(t.header[3000], "phi1000");
  ASSERT_EQ(t.rows.size(), 3u);  // k = 0, 50, 100
  EXPECT_EQ(t.num(2, "t"), 5.0);
  const auto j = nlohmann::json::parse(slurp(summary));
  // The velocity of the constrained momentum lies in D; the discrete constraint holds to round-off,
  // which for positions up to x = 1000 is about ε·1000/h = 4e-12 in ω = M(q̄)(q_{k+1} − q_k)/h; the
  // energy error of the midpoint rule stays small.
  EXPECT_LT(j["max_constraint_residual"].get<double>(), 1e-12);
  EXPECT_LT(j["max_discrete_constraint"].get<double>(), 1e-11);
  const double E0 = j["energy0"].get<double>();
  std::printf("[ measured ] chain N=1000, h=0.05, t=5: E0 = %.6g, max |E - E0| = %.3g, max |omega| = %.3g, "
              "Newton %.2f per step\n",
              E0, j["max_energy_error"].get<double>(), j["max_discrete_constraint"].get<double>(),
              j["newton_iterations"]["mean"].get<double>());
  EXPECT_LT(j["max_energy_error"].get<double>(), 1e-4 * E0);  // measured 0.0101 of E0 = 437.5
  EXPECT_LE(j["newton_iterations"]["max"].get<int>(), 4);
}

// fim assembled term by term, as dla: a thousand skates, with its momentum average in Leg(D)
// (|Q* p~| at round-off) and the velocity in D.
TEST(KnifeEdgeChainCli, FimOnAThousandSkates) {
  const fs::path csv = scratch() / "chain_fim.csv", summary = scratch() / "chain_fim.json";
  const auto r = dalembert("run knife-edge-chain --param N=1000 --method fim --h 0.05 --steps 100 --every 50 --out " +
                           csv.string() + " --summary " + summary.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = parse_csv(slurp(csv));
  ASSERT_EQ(t.rows.size(), 3u);
  double worst_qstar = 0.0, worst_h = 0.0;
  for (std::size_t k = 0; k < t.rows.size(); ++k) {
    worst_qstar = std::max(worst_qstar, t.num(k, "qstar_p_average"));
    worst_h = std::max(worst_h, std::abs(t.num(k, "energy_pminus") - t.num(0, "energy_pminus")));
  }
  const auto j = nlohmann::json::parse(slurp(summary));
  std::printf("[ measured ] chain N=1000 fim, h=0.05, t=5: max |Q* p~| = %.3g, max |H(p-) - H0| = %.3g, "
              "max |E - E0| = %.3g of E0 = %.6g\n",
              worst_qstar, worst_h, j["max_energy_error"].get<double>(), j["energy0"].get<double>());
  EXPECT_LT(worst_qstar, 1e-9);
  EXPECT_LT(j["max_constraint_residual"].get<double>(), 1e-10);
  EXPECT_LT(j["max_energy_error"].get<double>(), 1e-3 * j["energy0"].get<double>());
}

// The methods written with the metric, assembled term by term: the constraint M(q)v = 0 at every step
// point (they impose it there, not on a discrete constraint), the discrete gradient's energy to
// round-off, McLachlan–Perlmutter and SPARK's energy errors small; McLachlan–Perlmutter on a thousand
// skates, the other two, whose steps cost more, on a hundred.
TEST(KnifeEdgeChainCli, MethodsWrittenWithTheMetricOnLongChains) {
  struct Case {
    std::string method;
    int skates;
    double energy_bound;  // relative to E0
  };
  for (const Case& c :
       {Case{"mclachlan-perlmutter", 1000, 1e-3}, Case{"discrete-gradient", 100, 1e-13}, Case{"spark", 100, 1e-6}}) {
    const fs::path summary = scratch() / ("chain_" + c.method + ".json");
    const auto r = dalembert("run knife-edge-chain --param N=" + std::to_string(c.skates) + " --method " + c.method +
                             " --h 0.05 --steps 100 --out /dev/null --summary " + summary.string());
    ASSERT_EQ(r.status, 0) << c.method << ": " << r.err;
    const auto j = nlohmann::json::parse(slurp(summary));
    const double E0 = j["energy0"].get<double>();
    std::printf(
        "[ measured ] chain N=%d %s, h=0.05, t=5: max |M v| = %.3g, max |E - E0| = %.3g of E0 = %.6g, "
        "Newton %.2f per step\n",
        c.skates, c.method.c_str(), j["max_constraint_residual"].get<double>(), j["max_energy_error"].get<double>(), E0,
        j["newton_iterations"]["mean"].get<double>());
    EXPECT_LT(j["max_constraint_residual"].get<double>(), 1e-12) << c.method;
    EXPECT_LT(j["max_energy_error"].get<double>(), c.energy_bound * E0) << c.method;
    EXPECT_LE(j["newton_iterations"]["max"].get<int>(), 5) << c.method;
  }
}

// The trapezoidal L_d by terms on a thousand skates (dense, it was refused above 30): DLA keeps its
// discrete constraint to round-off (ε·1000/h = 4e-12 for positions up to x = 1000, as above) and FIM
// its average momentum in D, and both keep the energy close.
TEST(KnifeEdgeChainCli, TrapezoidRulesOnLongChains) {
  for (const std::string method : {"dla", "fim"}) {
    const fs::path summary = scratch() / ("chain_trapezoid_" + method + ".json");
    const auto r = dalembert("run knife-edge-chain --param N=1000 --method " + method +
                             " --rule trapezoid --h 0.05 --steps 100 --out /dev/null --summary " + summary.string());
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    const auto j = nlohmann::json::parse(slurp(summary));
    const double E0 = j["energy0"].get<double>();
    const double constraint = j[method == "dla" ? "max_discrete_constraint" : "max_constraint_residual"].get<double>();
    std::printf(
        "[ measured ] chain N=1000 %s --rule trapezoid, h=0.05, t=5: constraint %.3g, max |E - E0| = %.3g of "
        "E0 = %.6g, Newton %.2f per step\n",
        method.c_str(), constraint, j["max_energy_error"].get<double>(), E0,
        j["newton_iterations"]["mean"].get<double>());
    EXPECT_LT(constraint, method == "dla" ? 1e-11 : 1e-14) << method;
    EXPECT_LT(j["max_energy_error"].get<double>(), 1e-3 * E0) << method;
    EXPECT_LE(j["newton_iterations"]["max"].get<int>(), 4) << method;
  }
}

// Every method that runs on the chain, at the order docs/methods.md states, against the reference
// solver, on three skates.
TEST(KnifeEdgeChainCli, EveryMethodAtItsOrder) {
  for (const auto& [method, order] : std::vector<std::pair<std::string, double>>{{"dla", 2.0},
                                                                                 {"mla", 2.0},
                                                                                 {"gf", 2.0},
                                                                                 {"gf-sym", 2.0},
                                                                                 {"fim", 2.0},
                                                                                 {"mclachlan-perlmutter", 2.0},
                                                                                 {"discrete-gradient", 2.0},
                                                                                 {"spark", 4.0},
                                                                                 {"rk4", 4.0},
                                                                                 {"dla --rule trapezoid", 2.0},
                                                                                 {"fim --rule trapezoid", 2.0}}) {
    std::string name = method;
    std::replace(name.begin(), name.end(), ' ', '_');
    const fs::path dir = scratch() / ("chain-order-" + name);
    const auto r = dalembert("convergence knife-edge-chain --param N=3 --method " + method +
                             " --h-list 0.1,0.05,0.025,0.0125 --t-end 1 --out-dir " + dir.string());
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    const auto pos = r.out.find("fitted order: ");
    ASSERT_NE(pos, std::string::npos) << r.out;
    const double fitted = std::stod(r.out.substr(pos + 14));
    std::printf("[ measured ] chain N=3 %s: fitted order %.3f\n", method.c_str(), fitted);
    EXPECT_NEAR(fitted, order, 0.1) << method;
  }
}

TEST(KnifeEdgeChainCli, DescribeFollowsN) {
  const auto r = dalembert("describe knife-edge-chain --param N=3 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::vector<std::string> names = {"x1", "y1", "phi1", "x2", "y2", "phi2", "x3", "y3", "phi3"};
  EXPECT_EQ(j["coordinates"].get<std::vector<std::string>>(), names);
  EXPECT_EQ(j["constraints"].get<int>(), 3);
  EXPECT_EQ(j["parameters"]["N"].get<double>(), 3.0);
  // skate i at (i l, 0), heading 0.1 i, speed 1 − 0.2 (i mod 2) along the blade, turning 0.3 (−1)^i
  const auto v = j["initial"]["v"].get<std::vector<double>>();
  EXPECT_NEAR(v[3], 0.8 * std::cos(0.1), 1e-15);
  EXPECT_NEAR(v[7], std::sin(0.2), 1e-15);
  EXPECT_EQ(v[5], -0.3);
}

TEST(KnifeEdgeChainCli, TwoPointStartAndEnsembles) {
  // (q0, q1) from the first step of a run: starting there gives the same later rows.
  const fs::path a = scratch() / "a.csv";
  ASSERT_EQ(dalembert("run knife-edge-chain --param N=4 --method dla --h 0.1 --steps 20 --out " + a.string()).status, 0);
  const auto one = parse_csv(slurp(a));
  std::string q0, q1;
  for (std::size_t c = 1; c <= 12; ++c) {
    q0 += (c > 1 ? "," : "") + one.rows[0][c];
    q1 += (c > 1 ? "," : "") + one.rows[1][c];
  }
  const auto two = dalembert("run knife-edge-chain --param N=4 --method dla --h 0.1 --steps 20 --q0=" + q0 + " --q1=" + q1);
  ASSERT_EQ(two.status, 0) << two.err;
  const auto t = parse_csv(two.out);
  ASSERT_EQ(t.rows.size(), 21u);
  for (const char* c : {"x3", "y4", "phi2"}) EXPECT_NEAR(t.num(20, c), one.num(20, c), 1e-12) << c;

  // An ensemble over the spring stiffness of a 20-skate chain.
  const auto e = dalembert("ensemble knife-edge-chain --method dla --h 0.05 --steps 100 --param N=20 "
                           "--param-range k=1:8 --samples 3 --threads 2");
  ASSERT_EQ(e.status, 0) << e.err;
  const auto rows = parse_csv(e.out);
  ASSERT_EQ(rows.rows.size(), 3u);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(rows.cell(s, "status"), "ok");
    EXPECT_LT(rows.num(s, "max_constraint"), 1e-12);
  }
}

TEST(KnifeEdgeChainCli, BadInputIsNamed) {
  expect_bad_input("run knife-edge-chain --param N=0 --method dla --h 0.1 --steps 1", "whole number from 1");
  expect_bad_input("run knife-edge-chain --param N=2.5 --method dla --h 0.1 --steps 1", "got (2.5)");
  expect_bad_input("run knife-edge-chain --param N=4 --method exact --h 0.1 --steps 1",
                   "above its limit of 3 skates (every other method takes any N)");
  expect_bad_input("run knife-edge-chain --param N=3 --method dla --h 0.1 --steps 1 --q0 0,0,0", "with N = 3 skates has 9");
  expect_bad_input("run knife-edge-chain --param N=1 --method dla --h 0.1 --steps 1 --q0 0,0,0 --v0 0,1,0",
                   "violates the constraints");
  expect_bad_input("run knife-edge-chain --param mass=2 --method dla --h 0.1 --steps 1", "unknown parameter 'mass'");
}
