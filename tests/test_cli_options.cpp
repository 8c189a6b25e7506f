// The method options, described once (io/method_options.hpp): the command line's flags, their
// checks and the provenance derive from that table, and no installed header spells a flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"
#include "dalembert/io/method_options.hpp"

namespace dl = ::dalembert;
namespace fs = std::filesystem;

// One description per method option (io/method_options.hpp): every command that runs a method
// shows it as a flag with its values and default, refuses a value outside them naming the flag and
// the value, and a run's provenance records it.
TEST(CliOptions, EveryMethodOptionIsOneFlagOfEveryCommandThatRunsAMethod) {
  const dl::RunOptions defaults;
  const auto summary_path = cli_test::scratch() / "options.json";
  const auto run =
      cli_test::dalembert("run particle --method dla --h 0.1 --steps 2 --out - --summary " + summary_path.string());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto recorded = nlohmann::json::parse(cli_test::slurp(summary_path))["provenance"]["options"];
  for (const char* command : {"run", "compare", "convergence", "ensemble"}) {
    const auto help = cli_test::dalembert(std::string(command) + " --help");
    ASSERT_EQ(help.status, 0) << command;
    for (const auto& d : dl::method_options) {
      std::string flag = "--" + std::string(d.name);
      std::replace(flag.begin(), flag.end(), '_', '-');
      const std::string text = dl::option_text(dl::option_value(defaults, d.name));
      EXPECT_NE(help.out.find(flag), std::string::npos) << command << " " << flag;
      EXPECT_NE(help.out.find(dl::option_values(d)), std::string::npos) << command << " " << flag;
      EXPECT_NE(help.out.find("(default " + text + ")"), std::string::npos) << command << " " << flag;
      if (std::string(command) != "run") continue;
      ASSERT_TRUE(recorded.contains(std::string(d.name))) << d.name;
      EXPECT_EQ(recorded[std::string(d.name)].dump(), nlohmann::json::parse(
          d.kind == dl::OptionKind::choice ? "\"" + text + "\"" : text).dump()) << d.name;
      // a value just outside: above the range, at an excluded lower end, or not a choice
      const std::string bad = d.kind == dl::OptionKind::choice ? "bogus"
                              : d.high == dl::unbounded        ? dl::number_text(d.low)
                                                                      : dl::number_text(d.high * 10 + 1);
      cli_test::expect_bad_input("run particle --method dla --h 0.1 --steps 2 " + flag + " " + bad, flag + ": ");
      cli_test::expect_bad_input("run particle --method dla --h 0.1 --steps 2 " + flag + " " + bad, bad);
    }
  }
}

// The library names options as RunOptions does (rule, q1) and the command line shows its flags:
// no installed header spells a flag.
TEST(CliOptions, NoInstalledHeaderNamesACommandLineFlag) {
  const fs::path include = fs::path(DALEMBERT_SOURCE_DIR) / "include";
  ASSERT_TRUE(fs::is_directory(include));
  std::size_t headers = 0;
  for (const auto& entry : fs::recursive_directory_iterator(include)) {
    if (entry.path().extension() != ".hpp") continue;
    ++headers;
    std::istringstream in(cli_test::slurp(entry.path()));
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      const auto comment = line.find("//");
      const std::string code = line.substr(0, comment);
      // a flag inside a string literal: "--name or " ... --name
      for (std::size_t quote = code.find('"'); quote != std::string::npos; quote = code.find('"', quote + 1)) {
        const auto close = code.find('"', quote + 1);
        if (close == std::string::npos) break;
        const std::string literal = code.substr(quote + 1, close - quote - 1);
        const auto dashes = literal.find("--");
        EXPECT_FALSE(dashes != std::string::npos && dashes + 2 < literal.size() && std::isalpha(literal[dashes + 2]))
            << entry.path().string() << ":" << number << ": " << line;
        quote = close;
      }
    }
  }
  EXPECT_GT(headers, 50u);
}
