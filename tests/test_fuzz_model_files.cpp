// Mutated model files (docs/security.md): every file of models/, changed byte by byte, token by
// token, by truncation, by huge numbers and functions, long products and many more coordinates
// with a fixed seed, must give exit status 0, 2 or 3, never a signal and never an internal error
// (4), each within a time limit, and a run that succeeds has finite states in every row. Most cases evaluate the kernels by
// interpretation (DALEMBERT_CC=none: no compiler, fast); every fourth compiles them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "spawn.hpp"

namespace fs = std::filesystem;

namespace {

// Cases per model file: 60 in CI (about 10 s in all); DALEMBERT_FUZZ_CASES=N for a longer campaign.
int cases_per_file() {
  const char* n = std::getenv("DALEMBERT_FUZZ_CASES");
  return n ? std::max(1, std::atoi(n)) : 60;
}
constexpr double kTimeLimitSeconds = 20.0;

// A campaign's seed: DALEMBERT_FUZZ_SEED=N draws other mutations than CI's.
unsigned seed_offset() {
  const char* n = std::getenv("DALEMBERT_FUZZ_SEED");
  return n ? static_cast<unsigned>(std::strtoul(n, nullptr, 10)) : 0u;
}

// The methods the cases run in turn (one that does not apply to a file is refused with exit 2).
const std::vector<std::string> kMethods = {"dla", "gf", "mla", "rk4", "fim", "gf-sym", "del", "herglotz",
                                           "discrete-gradient", "spark"};

// Replacements for a token: hostile numbers, unbalanced brackets, deep nesting, singular functions.
const std::vector<std::string> kHostileTokens = {
    "1e999", "-1e-999", "nan", "inf", "0", "1/0", "0^0", "9^(9^9)", "2^1025", "(((((((((", ")))", "[[[[[[", "]",
    "\"", "'", "\\", "\\u0000", "\n", "=", ",,", "sin(", "sqrt(-1)", "log(0)", "abs(", "x_t^x_t", "I", "Euler",
    "zeta(x)", "t", "pi", "-", "^", "*/", "#", "{", "}", "[initial]", "q = [", "999999999999999999999999",
    "\xff\xfe", "\xe2\x80\xae", std::string(300, '('), std::string(5000, '-') + "x"};

// Replacements that are valid expressions but hostile in size: numbers GiNaC would compute exactly,
// functions it would evaluate while parsing.
const std::vector<std::string> kHugeTokens = {
    "10^9", "2^(2^31)", "pow(2, 2^31)", "pow(9, 3*9^9)", "(t - t + 99)^(10^9)", "factorial(10^8)",
    "binomial(10^9, 5*10^8)", "zeta(200000)", "psi(10^9)", "lgamma(10^8)", "tgamma(10^8)",
    "999999999999999999999^99", "1/1e-308", "1e-308^2", "exp(1e5)"};

std::string slurp(const fs::path& p) { return spawn_test::slurp(p); }

/// The names (runs of letters, digits and '_' starting with a letter) of `text`.
std::vector<std::string> names_in(const std::string& text) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < text.size();) {
    if (!std::isalpha(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    names.push_back(text.substr(i, j - i));
    i = j;
  }
  return names;
}

/// One mutation of `text`, chosen by `random`.
std::string mutate(const std::string& text, std::mt19937& random) {
  std::string s = text;
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  switch (pick(8)) {
    case 0: {  // a few bytes set to anything
      const std::size_t count = 1 + pick(4);
      for (std::size_t i = 0; i < count && !s.empty(); ++i) s[pick(s.size())] = static_cast<char>(pick(256));
      return s;
    }
    case 1: {  // a token (a run of letters, digits, '.', '_') replaced by a hostile one
      std::vector<std::pair<std::size_t, std::size_t>> tokens;
      for (std::size_t i = 0; i < s.size();) {
        const auto word = [&](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
        if (!word(s[i])) {
          ++i;
          continue;
        }
        std::size_t j = i;
        while (j < s.size() && word(s[j])) ++j;
        tokens.emplace_back(i, j - i);
        i = j;
      }
      if (tokens.empty()) return s;
      const auto [at, length] = tokens[pick(tokens.size())];
      return s.replace(at, length, kHostileTokens[pick(kHostileTokens.size())]);
    }
    case 2:  // truncated
      return s.substr(0, pick(s.size() + 1));
    case 3: {  // a line deleted or doubled
      std::vector<std::string> lines;
      std::size_t start = 0;
      for (std::size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1)
        lines.push_back(s.substr(start, nl - start + 1));
      if (start < s.size()) lines.push_back(s.substr(start));
      if (lines.empty()) return s;
      const std::size_t i = pick(lines.size());
      if (pick(2)) lines.erase(lines.begin() + static_cast<long>(i));
      else lines.insert(lines.begin() + static_cast<long>(i), lines[i]);
      std::string out;
      for (const auto& l : lines) out += l;
      return out;
    }
    case 4: {  // a hostile token inserted anywhere
      return s.insert(pick(s.size() + 1), kHostileTokens[pick(kHostileTokens.size())]);
    }
    case 5: {  // a huge number or an exactly evaluated function, as a factor of an expression
      const auto quote = s.find("= \"", pick(s.size() + 1));
      if (quote == std::string::npos) return s;
      return s.insert(quote + 3, kHugeTokens[pick(kHugeTokens.size())] + "*");
    }
    case 6: {  // a long product of a name of the file: derivatives that grow fast
      const auto names = names_in(s);
      const auto quote = s.find("= \"", pick(s.size() + 1));
      if (names.empty() || quote == std::string::npos) return s;
      const std::string& n = names[pick(names.size())];
      std::string product;
      const bool cosines = pick(2);
      for (int i = 1; i <= (cosines ? 200 : 25); ++i)
        product += (cosines ? "cos(" + std::to_string(i) + "*" + n + ")" : "(" + n + " + " + std::to_string(i) + ")") + "*";
      return s.insert(quote + 3, product);
    }
    default: {  // many more coordinates, each with a kinetic term when the Lagrangian is one line
      const auto line = s.find("coordinates = [");
      if (line == std::string::npos) return s;
      const std::size_t count = 20 + pick(100);
      std::string added, kinetic;
      for (std::size_t i = 0; i < count; ++i) {
        added += "\"c" + std::to_string(i) + "\", ";
        kinetic += " + 0.5*c" + std::to_string(i) + "_t^2";
      }
      s.insert(line + 15, added);
      if (const auto l = s.find("lagrangian = \""); l != std::string::npos && s.compare(l, 17, "lagrangian = \"\"\"") != 0)
        if (const auto end = s.find('"', l + 14); end != std::string::npos) s.insert(end, kinetic);
      return s;
    }
  }
}

/// The columns of a CSV from t to constraint (the state, the energy, the constraint residual): each
/// must be a finite number in every row of a run that succeeded.
std::string first_non_finite_state(const std::string& csv) {
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  std::size_t last = 0, index = 0;
  std::istringstream names(header);
  for (std::string name; std::getline(names, name, ','); ++index)
    if (name == "constraint") last = index;
  for (std::string line; std::getline(in, line);) {
    std::istringstream row(line);
    std::string cell;
    for (std::size_t i = 0; i <= last && std::getline(row, cell, ','); ++i) {
      char* end = nullptr;
      const double x = std::strtod(cell.c_str(), &end);
      if (!std::isfinite(x) || end == cell.c_str()) return line;
    }
  }
  return "";
}

class FuzzModelFile : public testing::TestWithParam<std::string> {};

TEST_P(FuzzModelFile, EveryMutationIsRefusedOrRunsCleanly) {
  const std::string stem = GetParam();
  const std::string original = slurp(fs::path(DALEMBERT_SOURCE_DIR) / "models" / (stem + ".toml"));
  ASSERT_FALSE(original.empty());
  const fs::path dir = test_files::process_directory("dalembert_fuzz") / stem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::mt19937 random(20261125u + seed_offset() + static_cast<unsigned>(std::hash<std::string>{}(stem) % 1000));
  std::map<int, int> statuses;
  for (int c = 0; c < cases_per_file(); ++c) {
    std::string text = original;
    const int mutations = 1 + static_cast<int>(random() % 3);
    for (int m = 0; m < mutations; ++m) text = mutate(text, random);
    const fs::path file = dir / ("case" + std::to_string(c) + ".toml");
    std::ofstream(file, std::ios::binary) << text;
    spawn_test::Options options;
    options.timeout_seconds = kTimeLimitSeconds;
    options.environment = {"DALEMBERT_CACHE_DIR=" + (dir / "cache").string()};
    if (c % 4 != 0) options.environment.push_back("DALEMBERT_CC=none");
    const std::string exe = DALEMBERT_EXECUTABLE;
    for (const auto& args : {std::vector<std::string>{exe, "describe", file.string()},
                             std::vector<std::string>{exe, "run", file.string(), "--method",
                                                      kMethods[static_cast<std::size_t>(c) % kMethods.size()], "--h",
                                                      "0.1", "--steps", "20"}}) {
      const auto r = spawn_test::run(args, options);
      const std::string where = stem + " case " + std::to_string(c) + " (" + args[1] + (args.size() > 4 ? " " + args[4] : "") +
                                "), file kept at " + file.string();
      EXPECT_FALSE(r.timed_out) << where;
      EXPECT_EQ(r.signal, 0) << where << "\n" << r.err.substr(0, 500);
      EXPECT_TRUE(r.status == 0 || r.status == 2 || r.status == 3) << where << ": status " << r.status << "\n"
                                                                   << r.err.substr(0, 500);
      if (r.status == 0 && args[1] == "run") {
        const std::string row = first_non_finite_state(r.out);
        EXPECT_TRUE(row.empty()) << where << ": exit 0 with a row that is not finite: " << row.substr(0, 300);
      }
      ++statuses[r.status];
      if (r.status != 0) break;  // a refused file is not run
    }
    if (!HasFailure()) fs::remove(file);
  }
  std::string summary;
  for (const auto& [status, count] : statuses) summary += " exit " + std::to_string(status) + ": " + std::to_string(count);
  RecordProperty("statuses", summary);
  std::cout << stem << ":" << summary << '\n';
}

std::vector<std::string> model_stems() {
  std::vector<std::string> stems;
  for (const auto& e : fs::directory_iterator(fs::path(DALEMBERT_SOURCE_DIR) / "models"))
    if (e.path().extension() == ".toml") stems.push_back(e.path().stem().string());
  std::sort(stems.begin(), stems.end());
  return stems;
}

INSTANTIATE_TEST_SUITE_P(Models, FuzzModelFile, testing::ValuesIn(model_stems()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
