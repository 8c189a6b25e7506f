// Mutated model files (docs/security.md): every file of models/, changed byte by byte, token by
// token and by truncation with a fixed seed, must give exit status 0, 2 or 3, never a signal and
// never an internal error (4), each within a time limit. Most cases evaluate the kernels by
// interpretation (DALEMBERT_CC=none: no compiler, fast); every fourth compiles them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
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

// Replacements for a token: hostile numbers, unbalanced brackets, deep nesting, singular functions.
const std::vector<std::string> kHostileTokens = {
    "1e999", "-1e-999", "nan", "inf", "0", "1/0", "0^0", "9^(9^9)", "2^1025", "(((((((((", ")))", "[[[[[[", "]",
    "\"", "'", "\\", "\\u0000", "\n", "=", ",,", "sin(", "sqrt(-1)", "log(0)", "abs(", "x_t^x_t", "I", "Euler",
    "zeta(x)", "t", "pi", "-", "^", "*/", "#", "{", "}", "[initial]", "q = [", "999999999999999999999999",
    "\xff\xfe", "\xe2\x80\xae", std::string(300, '('), std::string(5000, '-') + "x"};

std::string slurp(const fs::path& p) { return spawn_test::slurp(p); }

/// One mutation of `text`, chosen by `random`.
std::string mutate(const std::string& text, std::mt19937& random) {
  std::string s = text;
  const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  switch (pick(5)) {
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
    default: {  // a hostile token inserted anywhere
      return s.insert(pick(s.size() + 1), kHostileTokens[pick(kHostileTokens.size())]);
    }
  }
}

class FuzzModelFile : public testing::TestWithParam<std::string> {};

TEST_P(FuzzModelFile, EveryMutationIsRefusedOrRunsCleanly) {
  const std::string stem = GetParam();
  const std::string original = slurp(fs::path(DALEMBERT_SOURCE_DIR) / "models" / (stem + ".toml"));
  ASSERT_FALSE(original.empty());
  const fs::path dir = fs::temp_directory_path() / ("dalembert_fuzz_" + std::to_string(::getpid())) / stem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::mt19937 random(20261125u + static_cast<unsigned>(std::hash<std::string>{}(stem) % 1000));
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
                             std::vector<std::string>{exe, "run", file.string(), "--method", "dla", "--h", "0.1",
                                                      "--steps", "20"}}) {
      const auto r = spawn_test::run(args, options);
      const std::string where = stem + " case " + std::to_string(c) + " (" + args[1] + "), file kept at " + file.string();
      EXPECT_FALSE(r.timed_out) << where;
      EXPECT_EQ(r.signal, 0) << where << "\n" << r.err.substr(0, 500);
      EXPECT_TRUE(r.status == 0 || r.status == 2 || r.status == 3) << where << ": status " << r.status << "\n"
                                                                   << r.err.substr(0, 500);
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
