// Runs that used to hang end: every loop inside a step (exact's Newton and shooting, each substep of
// an adaptive integration) has a limit, after which the run fails with exit status 3 and a message
// naming it, and reads the stop flag, so that SIGTERM or SIGINT ends a step that takes long within a
// second (exit 128 + signal, the rows of the completed steps kept, status "interrupted").
#include <gtest/gtest.h>

#include <signal.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawn.hpp"

namespace fs = std::filesystem;

namespace {

using spawn_test::dalembert;
using spawn_test::lines_of;

std::vector<double> numbers(const std::string& line) {
  std::vector<double> v;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) v.push_back(std::stod(cell));
  return v;
}

nlohmann::json summary_in(const fs::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

/// The snakeboard of the issue: two wheel axles whose constraint rows become dependent at
/// phi = ±pi/2, where the multiplier-extended acceleration is singular.
fs::path snakeboard_file() { return fs::path(DALEMBERT_SOURCE_DIR) / "tests" / "data" / "snakeboard.toml"; }

/// A run that would not end by itself: `args` with --out and --summary in `dir`.
struct Hang {
  std::string name;
  std::vector<std::string> args;
  std::string limit;   ///< what the message of its failure names
  std::string advice;  ///< and what it suggests
};

std::vector<std::string> with_outputs(std::vector<std::string> args, const fs::path& dir) {
  args.insert(args.end(), {"--out", (dir / "rows.csv").string(), "--summary", (dir / "summary.json").string()});
  return args;
}

/// Two skates joined by a spring, a model file: its exact flow's arc of 1e8 reaches its limit in about
/// half a second, where the catalogue's systems take a fifth of one or less.
fs::path two_skates_file() { return fs::path(DALEMBERT_SOURCE_DIR) / "models" / "two-skates.toml"; }

// The runs that took minutes or did not end: an arc of the exact flow 1e8 long, and a reference
// solution of springs of stiffness 1e12 (substeps of 4e-8 over an output interval of 0.1).
const std::vector<Hang> kHangs = {
    {"exact-arc",
     {"run", two_skates_file().string(), "--method", "exact", "--h", "1e8", "--steps", "2"},
     "limit of 2000 substeps",
     "reduce h"},
    {"reference-interval",
     {"run", "knife-edge-chain", "--param", "k=1e12", "--method", "reference", "--h", "0.1", "--steps", "10"},
     "limit of 20000 substeps",
     "choose a smaller h, or an implicit method"},
};

// Steps that take many seconds before any limit ends them, for a signal to find under way on any
// machine: the exact flow of three skates (its arc of 1e3 reaches its limit after minutes), and the
// reference solution of ten skates on springs of stiffness 1e12 (9 s). The runs of kHangs end by
// their limits in a second or two, which a fast machine brings under the signal's 500 ms.
struct LongStep {
  std::string name;
  std::vector<std::string> args;
};
const std::vector<LongStep> kLongSteps = {
    {"exact-arc", {"run", "knife-edge-chain", "--param", "N=3", "--method", "exact", "--h", "1e3", "--steps", "2"}},
    {"reference-interval",
     {"run", "knife-edge-chain", "--param", "N=10", "--param", "k=1e12", "--method", "reference", "--h", "0.1",
      "--steps", "10"}},
};

}  // namespace

TEST(Limits, ARunThatCannotFinishFailsAtItsLimit) {
  for (const auto& hang : kHangs) {
    const fs::path dir = spawn_test::fresh_directory("limits", hang.name);
    spawn_test::Options options;
    options.timeout_seconds = 60;
    const auto r = dalembert(with_outputs(hang.args, dir), options);
    std::cout << hang.name << ": failed by itself after " << r.seconds << " s\n";
    EXPECT_FALSE(r.timed_out) << hang.name;
    EXPECT_EQ(r.status, 3) << hang.name << ": " << r.err;
    EXPECT_NE(r.err.find(hang.limit), std::string::npos) << hang.name << ": " << r.err;
    EXPECT_NE(r.err.find(hang.advice), std::string::npos) << hang.name << ": " << r.err;
    const auto summary = summary_in(dir / "summary.json");
    EXPECT_EQ(summary["status"], "solver-failure");
    EXPECT_EQ(lines_of(spawn_test::slurp(dir / "rows.csv")).size(), 2u + summary["steps"].get<std::size_t>());
    fs::remove_all(dir);
  }
}

TEST(Limits, ASignalEndsAStepUnderWayWithinASecond) {
  // The signal arrives inside a step that would take seconds: the run ends within a second of it,
  // as interrupted, with the rows of the steps completed before (here, the initial row).
  for (const auto& step : kLongSteps) {
    for (const int signal : {SIGTERM, SIGINT}) {
      const fs::path dir = spawn_test::fresh_directory("limits", step.name + std::to_string(signal));
      spawn_test::Options options;
      options.signal_after_ms = 500;
      options.signal_to_send = signal;
      options.timeout_seconds = 30;
      const auto r = dalembert(with_outputs(step.args, dir), options);
      std::cout << step.name << ": ended " << r.seconds - 0.5 << " s after signal " << signal << "\n";
      EXPECT_EQ(r.signal, 0) << "ended by the signal, not stopped by it";
      EXPECT_EQ(r.status, 128 + signal) << step.name << ": " << r.err;
      EXPECT_LT(r.seconds, 1.5) << step.name;
      const auto summary = summary_in(dir / "summary.json");
      EXPECT_EQ(summary["status"], "interrupted");
      EXPECT_EQ(summary["steps"], 0);
      EXPECT_NE(summary["message"].get<std::string>().find("after step 0"), std::string::npos) << summary["message"];
      const auto rows = lines_of(spawn_test::slurp(dir / "rows.csv"));
      ASSERT_EQ(rows.size(), 2u);  // the header and the initial row
      EXPECT_EQ(numbers(rows[1])[0], 0.0);
      fs::remove_all(dir);
    }
  }
}

TEST(Limits, ASignalAfterSomeStepsKeepsThem) {
  // springs of stiffness 1e8: every output interval of 1e-3 takes a few hundred substeps
  const fs::path dir = spawn_test::fresh_directory("limits", "some-steps");
  spawn_test::Options options;
  options.signal_after_ms = 500;
  options.timeout_seconds = 30;
  const auto r = dalembert(with_outputs({"run", "knife-edge-chain", "--param", "k=1e8", "--method", "reference",
                                         "--h", "1e-3", "--steps", "1000000"},
                                        dir),
                           options);
  EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
  EXPECT_LT(r.seconds, 1.5);
  const auto summary = summary_in(dir / "summary.json");
  EXPECT_EQ(summary["status"], "interrupted");
  const long steps = summary["steps"];
  EXPECT_GT(steps, 0);
  const auto rows = lines_of(spawn_test::slurp(dir / "rows.csv"));
  ASSERT_EQ(static_cast<long>(rows.size()), steps + 2);
  EXPECT_NEAR(numbers(rows.back())[0], steps * 1e-3, 1e-12);
  fs::remove_all(dir);
}

TEST(Limits, TheSnakeboardTakesItsLargeSteps) {
  // exact at h = 1 never finished its first step: its Runge–Kutta predictor missed q(1) by 0.44,
  // and the shooting's undamped first correction (U(1) is nearly singular, off D) sent the arc into
  // phi = -pi/2, where the integration crawled without end. Now each step starts from the flow.
  // q(1) and q(8) of scipy's DOP853 at tolerance 1e-13 (tests/python/test_exact_accuracy.py).
  const fs::path file = snakeboard_file();
  struct Case {
    std::string h, steps;
    std::vector<double> q;
  };
  for (const Case& c : {Case{"1", "1", {0.9515804203526013, 0.16223027524028907, 0.27708101813870084,
                                        -0.21170170793880067, -0.37639729953066414}},
                        Case{"0.8", "10", {3.1292714713463825, 0.7055532879312675, 0.3392021692759744,
                                           -0.3147242559808639, 0.0571525817323841}}}) {
    spawn_test::Options options;
    options.timeout_seconds = 60;
    const auto r = dalembert({"run", file.string(), "--method", "exact", "--h", c.h, "--steps", c.steps}, options);
    ASSERT_EQ(r.status, 0) << "h = " << c.h << ": " << r.err;
    std::cout << "h = " << c.h << ": " << r.seconds << " s\n";
    const auto last = numbers(lines_of(r.out).back());
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(last[1 + i], c.q[i], 1e-11) << "h = " << c.h << ", coordinate " << i;
  }
}

TEST(Limits, ADecayingSpinEndsAtZeroNotInSubnormalNumbers) {
  // The sleigh's spin decays like e^{-ct} and passes the smallest normal number, 2.2e-308, near
  // t = 1180, where each operation on it would cost as much as a hundred ordinary ones. A run
  // flushes subnormal numbers to zero (core/subnormals.hpp, docs/decisions.md), so no row holds one.
  for (const std::string method : {"rk4", "reference"}) {
    const auto r = dalembert({"run", "chaplygin-sleigh", "--method", method, "--h", "0.01", "--steps", "150000",
                              "--every", "500", "--quiet"});
    ASSERT_EQ(r.status, 0) << method << ": " << r.err;
    const auto rows = lines_of(r.out);
    ASSERT_EQ(rows.size(), 302u) << method;
    int subnormal = 0;
    double spin = 1.0;  // theta_t of the last row
    for (std::size_t i = 1; i < rows.size(); ++i) {
      std::istringstream in(rows[i]);
      int column = 0;
      for (std::string cell; std::getline(in, cell, ','); ++column) {
        const double x = std::strtod(cell.c_str(), nullptr);  // std::stod refuses a subnormal number
        subnormal += std::fpclassify(x) == FP_SUBNORMAL;
        if (column == 6) spin = x;
      }
    }
    EXPECT_EQ(subnormal, 0) << method;
    EXPECT_LT(std::abs(spin), 1e-300) << method << ": the spin has decayed";
  }
}

TEST(Limits, ChordIterationsFarFromTheOriginEndAtTheRoundOffFloor) {
  // The sleigh is invariant under translations of (x, y). At |q| = 1e4 a stage position's equation
  // of SPARK, Q_i − q0 − h Σ a_ij V_j, cannot get below its round-off floor (about 16 ε |Q_i|),
  // which lies above Newton's threshold: chord iterations on the kept Jacobian stopped contracting
  // there and every step fell back on fresh Jacobians, 3.4 corrections a step against 0.17 at the
  // origin. They now end where every equation is within its floor, as Newton does
  // (solve/step_driver.hpp, ChordRules). The discrete gradient, whose small steps take Newton, is
  // held to the same.
  const fs::path dir = spawn_test::fresh_directory("limits", "chord-floor");
  for (const std::string method : {"spark", "discrete-gradient"}) {
    std::vector<std::vector<double>> last;
    std::vector<double> iterations;
    for (const std::string q0 : {"0,0,0", "10000,10000,0"}) {
      const auto r = dalembert({"run", "chaplygin-sleigh", "--method", method, "--h", "0.01", "--steps", "20000",
                                "--every", "20000", "--q0", q0, "--quiet", "--summary", (dir / "s.json").string()});
      ASSERT_EQ(r.status, 0) << method << " from " << q0 << ": " << r.err;
      last.push_back(numbers(lines_of(r.out).back()));
      iterations.push_back(summary_in(dir / "s.json")["newton_iterations"]["mean"].get<double>());
    }
    EXPECT_LE(iterations[1], iterations[0] + 1.5) << method << ": mean corrections a step far and near";
    // the positions near 1e4 round to 1.8e-12, 2e4 steps of it: 4e-8 at most
    EXPECT_NEAR(last[1][1] - 1e4, last[0][1], 1e-7) << method << ": x";
    EXPECT_NEAR(last[1][2] - 1e4, last[0][2], 1e-7) << method << ": y";
    for (int c = 3; c <= 6; ++c) EXPECT_NEAR(last[1][c], last[0][c], 1e-11) << method << ": column " << c;
  }
  fs::remove_all(dir);
}
