// What `run` writes. Its rows, as they are computed: memory stays bounded whatever the number of
// steps, and a run stopped by SIGINT or SIGTERM, or one that fails, leaves a well-formed CSV of the
// rows computed so far and a summary that says why it ended. Its summary, with where the run came
// from: version, build, command line, parameters, initial data and options.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <sstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spawn.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kExecutable = DALEMBERT_EXECUTABLE;

/// A fresh directory for one test.
fs::path fresh_directory(const std::string& name) { return spawn_test::fresh_directory("streaming", name); }

using spawn_test::dalembert;
using spawn_test::lines_of;

/// Every line of a CSV has as many fields as its header, and the text ends with a newline.
void expect_well_formed(const std::string& csv, std::size_t min_rows) {
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
  const auto lines = lines_of(csv);
  ASSERT_GE(lines.size(), min_rows + 1);
  const auto fields = [](const std::string& l) { return std::count(l.begin(), l.end(), ',') + 1; };
  for (const auto& line : lines) ASSERT_EQ(fields(line), fields(lines[0])) << line;
}

nlohmann::json summary_in(const fs::path& p) {
  std::ifstream f(p);
  return nlohmann::json::parse(f);
}

}  // namespace

TEST(Streaming, TwoMillionRowsInBoundedMemory) {
  // 2·10⁶ rows (the particle, dla): the CSV is written as it is computed, so the process's peak
  // resident memory stays under 64 MB (it held every row, 315 MB for 10⁶ rows, before).
  const fs::path dir = fresh_directory("memory");
  const auto r = dalembert({"run", "particle", "--method", "dla", "--h", "0.01", "--steps", "2000000", "--out",
                            (dir / "long.csv").string(), "--summary", (dir / "long.json").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  std::cout << "peak resident memory of a 2e6-row run: " << r.max_resident_kb << " kB\n";
  EXPECT_LT(r.max_resident_kb, 64 * 1024);
  EXPECT_GT(fs::file_size(dir / "long.csv"), 100'000'000u);  // the rows are all there
  EXPECT_EQ(summary_in(dir / "long.json")["steps"], 2000000);
  fs::remove_all(dir);
}

TEST(Streaming, ASignalStopsTheRunAndKeepsItsRows) {
  // SIGINT or SIGTERM while running: the run ends after its current step; the CSV holds every
  // row up to it, well formed; the summary says "interrupted" with the step; the exit status is
  // the conventional 128 + signal; no temporary file is left.
  for (const int signal : {SIGINT, SIGTERM}) {
    const fs::path dir = fresh_directory("signal" + std::to_string(signal));
    spawn_test::Options options;
    options.signal_after_ms = 400;
    options.signal_to_send = signal;
    const auto r = dalembert({"run", "particle", "--method", "dla", "--h", "0.001", "--steps", "100000000",
                              "--every", "10", "--out", (dir / "stopped.csv").string(), "--summary",
                              (dir / "stopped.json").string()},
                             options);
    EXPECT_EQ(r.signal, 0) << "ended by the signal, not stopped by it";
    EXPECT_EQ(r.status, 128 + signal) << r.err;
    const auto summary = summary_in(dir / "stopped.json");
    EXPECT_EQ(summary["status"], "interrupted");
    const long steps = summary["steps"];
    EXPECT_GT(steps, 1000);
    EXPECT_NE(summary["message"].get<std::string>().find("after step " + std::to_string(steps)), std::string::npos);
    EXPECT_NE(r.err.find("stopped by SIG"), std::string::npos) << r.err;
    const std::string csv = spawn_test::slurp(dir / "stopped.csv");
    expect_well_formed(csv, 2);
    // rows k = 0, 10, 20, ... and the last completed step
    const auto lines = lines_of(csv);
    EXPECT_EQ(static_cast<long>(lines.size()), 1 + (steps / 10 + 1) + (steps % 10 != 0 ? 1 : 0));
    EXPECT_EQ(std::stod(lines.back().substr(0, lines.back().find(','))), steps * 0.001);
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"stopped.csv", "stopped.json"}));
    fs::remove_all(dir);
  }
}

TEST(Streaming, AFailedRunKeepsItsRowsOnStandardOutput) {
  // `--out -`: rows go to standard output as they come; a run that fails keeps them (exit 3).
  const auto r = dalembert({"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "5", "--tolerance",
                            "1e-30", "--max-iterations", "1"});
  EXPECT_EQ(r.status, 3) << r.err;
  expect_well_formed(r.out, 1);
  EXPECT_EQ(lines_of(r.out).size(), 2u);  // the header and the row of step 0
}

TEST(Provenance, TheSummarySaysWhereTheRunCameFrom) {
  const fs::path dir = fresh_directory("provenance");
  const std::string summary = (dir / "s.json").string();
  // an argument that is not UTF-8 (a file name may be any bytes) is kept, replaced, in valid JSON
  const std::string odd_name = (dir / "out\xff.csv").string();
  const std::vector<std::string> args = {"run", "knife-edge", "--method", "fim", "--h", "0.1", "--steps", "3",
                                         "--param", "g=2", "--tolerance", "1e-12", "--out", odd_name,
                                         "--summary", summary};
  const auto r = dalembert(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto p = summary_in(summary)["provenance"];
  const auto version = dalembert({"--version"});
  EXPECT_EQ("dalembert " + p["dalembert"]["version"].get<std::string>() + "\n", version.out);
  // built from a git checkout: the commit, also as the version's local label
  const std::string commit = p["dalembert"]["commit"], version_text = p["dalembert"]["version"];
  if (std::filesystem::exists(std::filesystem::path(DALEMBERT_SOURCE_DIR) / ".git")) {
    EXPECT_TRUE(std::regex_match(commit, std::regex("[0-9a-f]{40}"))) << commit;
    EXPECT_NE(version_text.find("+g" + commit.substr(0, 12)), std::string::npos) << version_text;
    EXPECT_EQ(version_text.ends_with(".modified"), p["dalembert"]["modified"].get<bool>()) << version_text;
  } else {
    EXPECT_EQ(commit, "");
    EXPECT_EQ(version_text.find('+'), std::string::npos) << version_text;
  }
  EXPECT_FALSE(p["dalembert"]["compiler"].get<std::string>().empty());
  EXPECT_FALSE(p["dalembert"]["build_type"].get<std::string>().empty());
  ASSERT_EQ(p["command_line"].size(), args.size() + 1);
  EXPECT_EQ(p["command_line"][0], kExecutable);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == odd_name) continue;
    EXPECT_EQ(p["command_line"][i + 1], args[i]);
  }
  const std::string replaced = p["command_line"][args.size() - 2];  // --out's value
  EXPECT_NE(replaced.find("out\xef\xbf\xbd.csv"), std::string::npos) << replaced;  // U+FFFD for the byte 0xff
  // the parameters and initial data used: the override and the defaults
  EXPECT_EQ(p["parameters"]["g"], 2.0);
  EXPECT_EQ(p["parameters"]["m"], 1.0);
  EXPECT_EQ(p["initial"]["q0"], nlohmann::json::parse("[0.0, 0.0, 0.0]"));
  EXPECT_EQ(p["initial"]["v0"], nlohmann::json::parse("[0.5, 0.0, 1.0]"));
  EXPECT_EQ(p["options"]["method"], "fim");
  EXPECT_EQ(p["options"]["steps"], 3);
  EXPECT_EQ(p["options"]["tolerance"], 1e-12);
  EXPECT_EQ(p["options"]["fim_start"], "B");
  fs::remove_all(dir);
}

TEST(Warnings, GoToTheSummaryAndStandardErrorAndFailAStrictRun) {
  // FIM's parasitic mode on the Chaplygin sleigh: the run completes (status ok, exit 0) with three
  // warnings in the summary and on standard error, in the order of their steps; --strict makes them
  // exit status 3, and the summary's status "warnings". The same run with dla has none.
  const fs::path dir = fresh_directory("warnings");
  const std::string summary = (dir / "s.json").string();
  const auto sleigh = [&](const std::string& method, bool strict) {
    std::vector<std::string> args = {
        "run",   "chaplygin-sleigh", "--method",  method, "--h", "0.01", "--steps", "10000",
        "--out", "/dev/null",        "--summary", summary};
    if (strict) args.push_back("--strict");
    return dalembert(args);
  };
  for (const bool strict : {false, true}) {
    const auto r = sleigh("fim", strict);
    EXPECT_EQ(r.status, strict ? 3 : 0) << r.err;
    EXPECT_NE(r.err.find("dalembert: warning: FIM's period-2 mode |j_k - j_(k-1)|/4 (j = p+ - p-) = "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("dalembert: warning: energy error |E - E0| = "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--strict: the run has 3 warning(s)") != std::string::npos, strict) << r.err;
    const auto s = summary_in(summary);
    EXPECT_EQ(s["status"], strict ? "warnings" : "ok");
    ASSERT_EQ(s["warnings"].size(), 3u);
    EXPECT_EQ(s["warnings"][0]["kind"], "parasitic-mode");
    EXPECT_EQ(s["warnings"][1]["kind"], "energy-growth");
    EXPECT_EQ(s["warnings"][2]["kind"], "energy-error");
    EXPECT_GT(s["warnings"][0]["step"].get<long>(), 2000);
    EXPECT_GT(s["warnings"][2]["step"].get<long>(), s["warnings"][1]["step"].get<long>());
  }
  // compare prints the warnings of its runs, naming the method and h
  const auto cmp = dalembert({"compare", "chaplygin-sleigh", "--methods", "dla,fim", "--h", "0.01", "--t-end", "100",
                              "--out-dir", (dir / "compare").string()});
  EXPECT_EQ(cmp.status, 0) << cmp.err;
  EXPECT_NE(cmp.err.find("dalembert: warning: chaplygin-sleigh, fim, h = 0.01: FIM's period-2 mode"), std::string::npos)
      << cmp.err;
  EXPECT_EQ(cmp.err.find("chaplygin-sleigh, dla,"), std::string::npos) << cmp.err;
  const auto healthy = sleigh("dla", true);
  EXPECT_EQ(healthy.status, 0) << healthy.err;
  EXPECT_EQ(healthy.err, "");
  EXPECT_TRUE(summary_in(summary)["warnings"].empty());
  fs::remove_all(dir);
}

TEST(Progress, IsShownWhenAskedAndNotWhenQuiet) {
  // --progress forces the line on standard error (it is on by default only on a terminal); it ends
  // at 100 % with the count of steps or runs. --quiet turns it off.
  const fs::path dir = fresh_directory("progress");
  const std::vector<std::string> run = {"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "1000",
                                        "--out", (dir / "p.csv").string()};
  auto with = [](std::vector<std::string> args, const std::string& flag) {
    args.push_back(flag);
    return args;
  };
  const auto shown = dalembert(with(run, "--progress"));
  EXPECT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.err.find("100.0 %  1000/1000 steps"), std::string::npos) << shown.err;
  EXPECT_EQ(shown.err.back(), '\n');
  const auto quiet = dalembert(with(run, "--quiet"));
  EXPECT_EQ(quiet.err, "");
  const auto unasked = dalembert(run);  // standard error is a file here, not a terminal
  EXPECT_EQ(unasked.err, "");
  const auto ensemble = dalembert({"ensemble", "particle", "--method", "dla", "--h", "0.1", "--steps", "10",
                                   "--param-range", "potential=0:1", "--samples", "4", "--progress", "--out",
                                   (dir / "e.csv").string()});
  EXPECT_EQ(ensemble.status, 0) << ensemble.err;
  EXPECT_NE(ensemble.err.find("100.0 %  4/4 runs"), std::string::npos) << ensemble.err;
  // The studies count their runs: two methods and, without a closed form (c = 1), the reference.
  const auto compare = dalembert({"compare", "particle", "--param", "potential=1", "--methods", "dla,rk4", "--h", "0.1",
                                  "--steps", "10", "--progress", "--out-dir", (dir / "c").string()});
  EXPECT_EQ(compare.status, 0) << compare.err;
  EXPECT_NE(compare.err.find("100.0 %  3/3 runs"), std::string::npos) << compare.err;
  const auto convergence = dalembert({"convergence", "particle", "--method", "dla", "--h-list", "0.1,0.05", "--t-end",
                                      "1", "--progress", "--out-dir", (dir / "v").string()});
  EXPECT_EQ(convergence.status, 0) << convergence.err;
  EXPECT_NE(convergence.err.find("100.0 %  2/2 runs"), std::string::npos) << convergence.err;  // closed form
  fs::remove_all(dir);
}
