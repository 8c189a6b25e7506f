// Runs that used to hang end: every loop inside a step (exact's Newton and shooting, each substep of
// an adaptive integration) has a limit, after which the run fails with exit status 3 and a message
// naming it, and reads the stop flag, so that SIGTERM or SIGINT ends a step that takes long within a
// second (exit 128 + signal, the rows of the completed steps kept, status "interrupted").
#include <gtest/gtest.h>

#include <signal.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawn.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kExecutable = DALEMBERT_EXECUTABLE;

spawn_test::Outcome dalembert(const std::vector<std::string>& args, const spawn_test::Options& options = {}) {
  std::vector<std::string> argv{kExecutable};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_test::run(argv, options);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

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

// The runs that took minutes or did not end: an arc of the exact flow 1e8 long, and a reference
// solution of springs of stiffness 1e12 (substeps of 4e-8 over an output interval of 0.1).
const std::vector<Hang> kHangs = {
    {"exact-arc",
     {"run", "vertical-disk", "--method", "exact", "--h", "1e8", "--steps", "2"},
     "limit of 2000 substeps",
     "reduce h"},
    {"reference-interval",
     {"run", "knife-edge-chain", "--param", "k=1e12", "--method", "reference", "--h", "0.1", "--steps", "10"},
     "limit of 20000 substeps",
     "choose a smaller h, or an implicit method"},
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
  for (const auto& hang : kHangs) {
    for (const int signal : {SIGTERM, SIGINT}) {
      const fs::path dir = spawn_test::fresh_directory("limits", hang.name + std::to_string(signal));
      spawn_test::Options options;
      options.signal_after_ms = 500;
      options.signal_to_send = signal;
      options.timeout_seconds = 30;
      const auto r = dalembert(with_outputs(hang.args, dir), options);
      std::cout << hang.name << ": ended " << r.seconds - 0.5 << " s after signal " << signal << "\n";
      EXPECT_EQ(r.signal, 0) << "ended by the signal, not stopped by it";
      EXPECT_EQ(r.status, 128 + signal) << hang.name << ": " << r.err;
      EXPECT_LT(r.seconds, 1.5) << hang.name;
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
