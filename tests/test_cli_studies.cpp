// The study commands: compare, convergence and reproduce (each experiment with --quick, checking
// its verdict), and the HTML report in headless Chromium where it is installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/wait.h>

#include "report/experiment.hpp"

#include "cli_harness.hpp"

using namespace cli_test;

namespace fs = std::filesystem;

namespace {

Result run_dalembert(const std::string& args) {
  const fs::path out = scratch() / "stdout", err = scratch() / "stderr";
  const std::string cmd = std::string(DALEMBERT_EXECUTABLE) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

// The verdict each experiment must reach (update together with the experiment's definition).
const std::map<std::string, std::string>& expected_verdicts() {
  static const std::map<std::string, std::string> v = {
      {"thesis-pendulum", "supported"},
      {"thesis-satellite", "supported"},
      {"convergence-variational", "supported"},
      {"dlms-gf-energy", "differs"},
      {"dlms-gf-cp-constraint", "supported"},
      {"fim-theorem-1", "supported"},
      {"fim-average-momentum-energy", "not supported"},
      {"fim-momentum-map", "supported"},
      {"fim-suslov", "supported"},
      {"convergence-generating", "supported"},
      {"convergence-lie", "supported"},
      {"mla-particle", "supported"},
      {"mla-knife-edge", "supported"},
      {"mla-perturbed-knife-edge", "supported"},
      {"exact-discrete-constraint", "supported"},
      {"convergence-mla", "supported"},
      {"bfg-curvature-particle", "supported"},
      {"bfg-inertia-wheel-pendulum", "differs"},
      {"thesis-contact-particle", "supported"},
      {"thesis-damped-oscillator", "supported"},
      {"convergence-contact", "supported"},
      {"long-run-energy", "not supported"},
      {"reversible-non-reversible", "supported"},
      {"work-precision", "supported"},
      {"thesis-radial-geometry", "supported"},
      {"thesis-jacobi-fields", "supported"},
      {"thesis-discrete-jacobi-fields", "supported"},
      {"meijaard-bicycle", "supported"},
  };
  return v;
}

/// Experiments whose runs may warn (RunSummary::warnings) with a supported verdict, and why: the
/// warning is true and part of what the experiment shows. Every other supported experiment runs
/// without a warning.
const std::map<std::string, std::string>& warnings_that_belong() {
  static const std::map<std::string, std::string> w = {
      {"fim-theorem-1",
       "FIM's period-2 mode grows to O(1) on SO(3) with a non-invariant distribution (docs/methods.md); "
       "Theorem 1 is about the energies of p-, p+, which stay conserved while it grows"},
      {"reversible-non-reversible",
       "RK4, the non-geometric control, drifts off its energy level on both systems: the warnings say so"},
      // the coarsest step of a convergence study, h = 0.2 on the knife edge: an energy error of 11 % of
      // the size of the energy's terms is the method's O(h^2) error at that h, and worth the warning
      {"convergence-generating", "gf at h = 0.2 on the knife edge: |E - E0| = 0.155, a tenth of the energy's size"},
      {"convergence-mla", "mla at h = 0.2 on the knife edge: |E - E0| = 0.147, a tenth of the energy's size"},
      {"convergence-variational", "dla at h = 0.2 on the knife edge: |E - E0| = 0.147, a tenth of the energy's size"},
      // the mode alternates in θ and in the energy from step 26 on and grows sixfold by step 44; the
      // constraint force's impulse, larger at the start, had hidden it from a monitor of ½|p+ - p-|
      {"work-precision", "fim at h = 0.2 on the Chaplygin sleigh: its period-2 mode grows (docs/methods.md)"},
  };
  return w;
}

}  // namespace

TEST(Compare, WritesOneCsvAndThreeFigures) {
  const fs::path dir = scratch() / "compare";
  const auto r = run_dalembert("compare knife-edge --methods dla,rk4 --h 0.05 --t-end 5 --out-dir " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("reference: closed form"), std::string::npos) << r.out;
  const std::string csv = slurp(dir / "compare.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "t,dla:energy_error,dla:constraint,dla:error,rk4:energy_error,rk4:constraint,rk4:error");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 102);  // header + 101 rows
  for (const char* f : {"energy_error", "constraint", "error"}) {
    EXPECT_GT(fs::file_size(dir / (std::string(f) + ".png")), 1000u) << f;
    EXPECT_TRUE(fs::exists(dir / (std::string(f) + ".svg"))) << f;
  }
}

TEST(Compare, RejectsBadInput) {
  const auto r = run_dalembert("compare knife-edge --methods dla,warp --h 0.05 --t-end 1 --out-dir " + (scratch() / "bad").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown method 'warp'"), std::string::npos) << r.err;
}

TEST(Convergence, FitsTheOrderOfMidpointDla) {
  const fs::path dir = scratch() / "convergence";
  const auto r = run_dalembert("convergence vertical-disk --method dla --h-list 0.1,0.05,0.025,0.0125 --t-end 1 --out-dir " +
                           dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto pos = r.out.find("fitted order: ");
  ASSERT_NE(pos, std::string::npos) << r.out;
  EXPECT_NEAR(std::stod(r.out.substr(pos + 14)), 2.0, 0.05);
  EXPECT_GT(fs::file_size(dir / "convergence.png"), 1000u);
  const auto bad = run_dalembert("convergence vertical-disk --method dla --h-list 0.3,0.1 --t-end 1 --out-dir " + dir.string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--t-end 1 is not a multiple of h = 0.3 of --h-list"), std::string::npos) << bad.err;
}

// convergence takes several methods, each fitted and drawn in one figure, and every subcommand that
// runs a method takes its options: SPARK's orders 6 and 8 were out of reach of the studies.
TEST(Convergence, FitsSeveralMethodsInOneTableWithTheirOptions) {
  const fs::path dir = scratch() / "convergence-methods";
  const auto r = run_dalembert("convergence vertical-disk --methods dla,rk4,spark --stages 4 --h-list 0.2,0.1,0.05 "
                               "--t-end 1 --quiet --out-dir " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<double> orders;
  for (std::size_t at = 0; (at = r.out.find("fitted order: ", at)) != std::string::npos; at += 14)
    orders.push_back(std::stod(r.out.substr(at + 14)));
  ASSERT_EQ(orders.size(), 3u) << r.out;
  EXPECT_NEAR(orders[0], 2.0, 0.05);  // dla
  EXPECT_NEAR(orders[1], 4.0, 0.05);  // rk4
  EXPECT_NEAR(orders[2], 6.0, 0.1);   // spark with 4 stages
  const std::string csv = slurp(dir / "convergence.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "h,steps,dla:error,dla:fitted,rk4:error,rk4:fitted,spark:error,spark:fitted");
  EXPECT_GT(fs::file_size(dir / "convergence.png"), 1000u);
  const auto both = run_dalembert("convergence vertical-disk --method dla --methods rk4 --h-list 0.2,0.1 --t-end 1");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("give --method M, or --methods A,B,..."), std::string::npos) << both.err;
  // compare and ensemble take the method options too
  const auto compare = run_dalembert("compare vertical-disk --methods spark --stages 5 --h 0.1 --steps 10 --no-figures "
                                     "--out-dir " + (scratch() / "compare-stages").string());
  EXPECT_EQ(compare.status, 0) << compare.err;
  const auto ensemble = run_dalembert("ensemble vertical-disk --method spark --stages 5 --fim-start A --h 0.1 --steps 5 "
                                      "--param-range R=0.5:1 --samples 2");
  EXPECT_EQ(ensemble.status, 0) << ensemble.err;
}

TEST(Reproduce, EveryExperimentHasAnExpectedVerdict) {
  for (const auto& e : dalembert::report::experiments())
    EXPECT_TRUE(expected_verdicts().count(e.name)) << e.name << " has no expected verdict in this test";
}

class ReproduceExperiment : public ::testing::TestWithParam<std::string> {};

TEST_P(ReproduceExperiment, ReachesItsVerdict) {
  const std::string name = GetParam();
  const fs::path dir = scratch() / ("reproduce_" + name);
  const auto r = run_dalembert("reproduce --quick --only " + name + " --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string md = slurp(dir / "report.md");
  EXPECT_NE(md.find("- **verdict**: **" + expected_verdicts().at(name) + "**"), std::string::npos) << md;
  if (expected_verdicts().at(name) == "supported" && !warnings_that_belong().count(name))
    EXPECT_EQ(md.find("- **warning of a run**"), std::string::npos) << md;
  EXPECT_NE(slurp(dir / "report.html").find("data:image/png;base64,"), std::string::npos);
  EXPECT_FALSE(fs::is_empty(dir / name));
}

INSTANTIATE_TEST_SUITE_P(AllExperiments, ReproduceExperiment, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& [name, verdict] : expected_verdicts()) names.push_back(name);
                           return names;
                         }()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (auto& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

// Its progress is a line per experiment on standard output, with the verdict and the time left;
// --quiet drops the lines, not the report.
TEST(Reproduce, ALinePerExperimentUnlessQuiet) {
  const fs::path dir = scratch() / "reproduce_quiet";
  const auto loud = run_dalembert("reproduce --quick --only thesis-pendulum --out " + dir.string());
  ASSERT_EQ(loud.status, 0) << loud.err;
  EXPECT_NE(loud.out.find("[1/1] thesis-pendulum ... " + expected_verdicts().at("thesis-pendulum")), std::string::npos)
      << loud.out;
  fs::remove_all(dir);
  const auto quiet = run_dalembert("reproduce --quick --quiet --only thesis-pendulum --out " + dir.string());
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  EXPECT_NE(slurp(dir / "report.md").find("thesis-pendulum"), std::string::npos);
}

// On several threads the report still lists the experiments in the order asked for, and every
// experiment has its line (in the order they finish).
TEST(Reproduce, ThreadsKeepTheReportOrder) {
  const fs::path dir = scratch() / "reproduce_threads";
  const auto r = run_dalembert("reproduce --quick --threads 2 --only thesis-satellite --only thesis-pendulum --out " +
                               dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[1/2] thesis-satellite ... "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[2/2] thesis-pendulum ... "), std::string::npos) << r.out;
  const std::string md = slurp(dir / "report.md");
  const auto satellite = md.find("thesis-satellite"), pendulum = md.find("thesis-pendulum");
  ASSERT_NE(satellite, std::string::npos);
  ASSERT_NE(pendulum, std::string::npos);
  EXPECT_LT(satellite, pendulum);
  for (const char* bad : {"0", "4097", "-1", "two"}) {
    const auto b = run_dalembert(std::string("reproduce --threads=") + bad + " --only thesis-pendulum --out " +
                                 (scratch() / "reproduce_bad_threads").string());
    EXPECT_EQ(b.status, 2) << bad;
    EXPECT_NE(b.err.find("--threads"), std::string::npos) << b.err;
  }
}

TEST(Reproduce, UnknownExperimentIsBadInput) {
  const auto r = run_dalembert("reproduce --only no-such-experiment --out " + (scratch() / "none").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown experiment"), std::string::npos);
}

TEST(Reproduce, HtmlReportRendersInHeadlessChromium) {
  const char* chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) GTEST_SKIP() << "Chromium is not installed (Debian package chromium); skipping";
  const fs::path dir = scratch() / "reproduce_html";
  ASSERT_EQ(run_dalembert("reproduce --quick --only thesis-pendulum --out " + dir.string()).status, 0);
  const fs::path shot = dir / "screenshot.png";
  const std::string cmd = std::string(chromium) +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                          "--disable-background-networking --disable-component-update --disable-sync "
                          "--user-data-dir=" + (dir / "profile").string() + " --window-size=1200,2400 --screenshot=" +
                          shot.string() + " file://" + (dir / "report.html").string() + " >" +
                          (dir / "chromium.log").string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "chromium.log");
  ASSERT_TRUE(fs::exists(shot)) << slurp(dir / "chromium.log");
  EXPECT_GT(fs::file_size(shot), 20000u);  // a rendered page with figures, not a blank one

  // The DOM Chromium built: the report's title, the experiment's section and its inline figure,
  // and no script error or console message in Chromium's log.
  const fs::path dom = dir / "dom.html", log = dir / "chromium-dom.log";
  const std::string dump = std::string(chromium) +
                           " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                           "--disable-background-networking --disable-component-update --disable-sync "
                           "--enable-logging=stderr --v=0 --user-data-dir=" + (dir / "profile").string() +
                           " --dump-dom file://" + (dir / "report.html").string() + " >" + dom.string() + " 2>" +
                           log.string();
  ASSERT_EQ(std::system(dump.c_str()), 0) << slurp(log);
  const std::string html = slurp(dom), messages = slurp(log);
  EXPECT_NE(html.find("<h1>dalembert: reproduction of the papers' experiments"), std::string::npos);
  EXPECT_NE(html.find("Pendulum phase portrait"), std::string::npos);
  EXPECT_NE(html.find("src=\"data:image/png;base64,"), std::string::npos);
  EXPECT_EQ(messages.find("Uncaught"), std::string::npos) << messages;
  EXPECT_EQ(messages.find("CONSOLE"), std::string::npos) << messages;
}
