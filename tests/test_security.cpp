// Hostile input (docs/security.md): nothing a user types or a model file contains runs code or
// damages the machine, every bad input is exit status 2 with a message naming the option and the
// value, and a numerical failure is exit 3 with what was computed kept. One test per class of
// attack, each with the payload that worked before it was fixed; the executable is started
// without a shell, so every payload reaches it as one argument.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "spawn.hpp"
#include "support/digest.hpp"

namespace fs = std::filesystem;
using spawn_test::Outcome;
using spawn_test::slurp;

namespace {

const std::string kExecutable = DALEMBERT_EXECUTABLE;

/// A fresh directory for one test.
fs::path fresh_directory(const std::string& name) { return spawn_test::fresh_directory("security", name); }

/// `dalembert args...` with the model cache in `cache` (and no plotting surprises).
Outcome dalembert(const std::vector<std::string>& args, const fs::path& cache, spawn_test::Options options = {}) {
  std::vector<std::string> argv{kExecutable};
  argv.insert(argv.end(), args.begin(), args.end());
  options.environment.push_back("DALEMBERT_CACHE_DIR=" + cache.string());
  return spawn_test::run(argv, options);
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string model_path(const std::string& stem) { return std::string(DALEMBERT_SOURCE_DIR) + "/models/" + stem + ".toml"; }

/// Every file name in a directory (not recursive).
std::vector<std::string> names_in(const fs::path& d) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
  return names;
}

bool is_root() { return ::geteuid() == 0; }

struct BadInputCase {
  std::vector<std::string> args;
  std::string message;  ///< the option and the value, as the message must name them
};

/// Compiles a shared library whose constructor creates `marker` (the payload of a planted cache entry).
fs::path planted_library(const fs::path& directory, const fs::path& marker) {
  const fs::path source = directory / "planted.c", library = directory / "planted.so";
  write(source, "#include <stdio.h>\n__attribute__((constructor)) static void planted(void) {\n"
                "  FILE* f = fopen(\"" + marker.string() + "\", \"w\"); if (f) fclose(f);\n}\n"
                "int dalembert_abi_version = 2;\n");
  const auto r = spawn_test::run({"/usr/bin/cc", "-shared", "-fPIC", source.string(), "-o", library.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  return library;
}

// --- 1. User text in generated code ---------------------------------------------------------------

// The name was written into a C comment with only */ escaped; a backslash-newline between * and /
// still closes the comment (the compiler splices lines first), and a constructor then ran at
// dlopen, even for `describe`.
TEST(Security, ModelTextNeverReachesGeneratedCode) {
  const fs::path dir = fresh_directory("generated_code");
  const fs::path marker = dir / "PWNED";
  // TOML text: \\ is a backslash and \n a newline in the string
  const std::string payload = R"(*\\\n/ __attribute__((constructor)) static void pwn(void) { extern int system(const char*); system(\"touch )" +
                              marker.string() + R"(\"); } /* )";
  write(dir / "inject.toml", "name = \"evil " + payload + "\"\n"
                             "summary = \"zzsummaryzz " + payload + "\"\n"
                             "coordinates = [\"zzcoordzz\"]\n"
                             "parameters = { zzparamzz = { value = 1.0, description = \"zzdescriptionzz\" } }\n"
                             "lagrangian = \"0.5*zzcoordzz_t^2 - zzparamzz*zzcoordzz^2\"\n"
                             "[derived]\nzzderivedzz = \"zzcoordzz\"\n");
  for (const auto& command : {std::vector<std::string>{"describe", (dir / "inject.toml").string()},
                              std::vector<std::string>{"run", (dir / "inject.toml").string(), "--method", "dla", "--h",
                                                       "0.1", "--steps", "3"}}) {
    const auto r = dalembert(command, dir / "cache");
    EXPECT_EQ(r.status, 2) << r.err;  // the name is refused (a control character) ...
    EXPECT_NE(r.err.find("control characters"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(marker));
  }
  // ... and without the newline the name is accepted but never written into the C source.
  std::string text = slurp(dir / "inject.toml");
  for (std::size_t at; (at = text.find(R"(\\\n)")) != std::string::npos;) text.replace(at, 4, R"(\\ )");
  write(dir / "inject.toml", text);
  const auto r = dalembert({"run", (dir / "inject.toml").string(), "--method", "dla", "--h", "0.1", "--steps", "3"},
                           dir / "cache");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  int sources = 0;
  for (const auto& e : fs::directory_iterator(dir / "cache")) {
    if (e.path().extension() != ".c") continue;
    ++sources;
    const std::string c = slurp(e.path());
    for (const char* user_text : {"evil", "zzsummaryzz", "zzcoordzz", "zzparamzz", "zzdescriptionzz", "zzderivedzz",
                                  "constructor", "system"})
      EXPECT_EQ(c.find(user_text), std::string::npos) << user_text << " in the generated source";
  }
  EXPECT_EQ(sources, 1);
}

// --- 2. Shell commands from file names and output paths --------------------------------------------

// Plotting built a command string for system(): a model file named p';touch X;'.toml, or an
// --out-dir with quotes, ran the command.
TEST(Security, FileNamesAndOutputPathsNeverReachAShell) {
  const fs::path dir = fresh_directory("shell");
  const fs::path marker = dir / "PWNED";
  const std::string quote_payload = "';touch PWNED;'";  // run in `dir`
  const fs::path model = dir / ("p" + quote_payload + ".toml");
  fs::copy_file(model_path("harmonic-oscillator"), model);
  const fs::path out_dir = dir / ("o" + quote_payload);
  const std::vector<std::vector<std::string>> commands = {
      {"compare", model.string(), "--methods", "dla,rk4", "--h", "0.1", "--steps", "10"},
      {"compare", "particle", "--methods", "dla", "--h", "0.1", "--steps", "10", "--out-dir", out_dir.string() + "1"},
      {"convergence", "particle", "--method", "dla", "--h-list", "0.1,0.05", "--t-end", "1", "--out-dir",
       out_dir.string() + "2"},
      {"reproduce", "--quick", "--only", "thesis-pendulum", "--out", out_dir.string() + "3"},
      {"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "3", "--out", (dir / ("r" + quote_payload)).string()},
  };
  spawn_test::Options in_dir;
  in_dir.directory = dir.string();
  for (const auto& c : commands) {
    const auto r = dalembert(c, dir / "cache", in_dir);
    EXPECT_EQ(r.status, 0) << c[0] << ": " << r.err;
    EXPECT_FALSE(fs::exists(marker)) << c[0];
  }
  EXPECT_TRUE(fs::exists(dir / ("compare-p" + quote_payload) / "energy_error.png"));
  EXPECT_TRUE(fs::exists(out_dir.string() + "1/compare.csv"));
  EXPECT_TRUE(fs::exists(out_dir.string() + "2/convergence.png"));
  EXPECT_TRUE(fs::exists(out_dir.string() + "3/report.html"));
  EXPECT_TRUE(fs::exists(dir / ("r" + quote_payload)));
}

// A title is mathematical text for matplotlib between two $: a model file named k$\frac.toml made
// the figure fail (exit 4). Text of the user's is shown as it is.
TEST(Security, AFileNameIsShownLiterallyInFigures) {
  const fs::path dir = fresh_directory("mathtext");
  const fs::path model = dir / "k$\\frac{1}{$.toml";
  fs::copy_file(model_path("harmonic-oscillator"), model);
  const auto r = dalembert({"convergence", model.string(), "--method", "dla", "--h-list", "0.1,0.05", "--t-end", "1",
                            "--out-dir", (dir / "out").string()},
                           dir / "cache");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out" / "convergence.svg"));
  EXPECT_NE(slurp(dir / "out" / "convergence.svg").find("frac{1}"), std::string::npos);
}

// --- 3. The model cache ----------------------------------------------------------------------------

/// The entry of a model in a fresh cache: the paths of its library and digest, and the CSV of a run.
struct Entry {
  fs::path library, digest, record;
  std::string csv;
};

std::vector<std::string> run_args(const std::string& model) {
  return {"run", model, "--method", "dla", "--h", "0.1", "--steps", "20"};
}

Entry populate(const fs::path& cache, const std::string& model) {
  const auto before = fs::exists(cache) ? names_in(cache) : std::vector<std::string>{};
  const auto r = dalembert(run_args(model), cache);
  EXPECT_EQ(r.status, 0) << r.err;
  Entry e;
  e.csv = r.out;
  for (const auto& name : names_in(cache)) {
    if (std::find(before.begin(), before.end(), name) != before.end()) continue;
    if (name.ends_with(".so")) e.library = cache / name;
    if (name.ends_with(".digest")) e.digest = cache / name;
    if (name.ends_with(".model")) e.record = cache / name;
  }
  EXPECT_FALSE(e.library.empty());
  EXPECT_FALSE(e.digest.empty());
  EXPECT_FALSE(e.record.empty());
  return e;
}

// A model's generated source is a function of the file alone: GiNaC keeps a product with either
// sign, by hashes of type addresses that move between processes, and the rolling disk's code gave
// a product met with both signs a second temporary in some runs: a new library every run (0.3 s of
// compiling each time). Three processes must find one entry and give the same trajectory.
TEST(Security, AModelIsOneCacheEntryAcrossProcesses) {
  const fs::path cache = fresh_directory("one_entry") / "cache";
  std::string first;
  for (int run = 0; run < 3; ++run) {
    const auto r = dalembert({"run", model_path("rolling-disk"), "--method", "spark", "--h", "0.05", "--steps", "20"},
                             cache);
    ASSERT_EQ(r.status, 0) << r.err;
    if (run == 0) first = r.out;
    EXPECT_EQ(r.out, first) << "run " << run;
  }
  int libraries = 0;
  for (const auto& name : names_in(cache)) libraries += name.ends_with(".so");
  EXPECT_EQ(libraries, 1);
}

TEST(Security, CacheDirectoryIsCreatedPrivate) {
  const fs::path dir = fresh_directory("cache_mode");
  populate(dir / "cache", model_path("harmonic-oscillator"));
  struct stat st{};
  ASSERT_EQ(::stat((dir / "cache").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  for (const auto& e : fs::directory_iterator(dir / "cache")) {
    ASSERT_EQ(::stat(e.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 077, 0u) << e.path();
  }
}

// With HOME and XDG_CACHE_HOME unset the cache is <tmp>/dalembert-cache-<uid>: another user could
// create it first and plant a library under the content-hash name anyone can compute, with a
// digest that matches it. A directory not owned by this user, or writable by others, is refused.
TEST(Security, ASharedCacheDirectoryIsRefused) {
  const fs::path dir = fresh_directory("shared_cache");
  const fs::path marker = dir / "PLANTED";
  const Entry legit = populate(dir / "legit", model_path("harmonic-oscillator"));
  const fs::path tmp = dir / "tmp";
  const fs::path shared = tmp / ("dalembert-cache-" + std::to_string(::geteuid()));
  fs::create_directories(shared);
  const fs::path planted = planted_library(dir, marker);
  fs::copy_file(planted, shared / legit.library.filename());
  const std::string bytes = slurp(planted);
  std::string record = slurp(legit.digest);
  record.replace(record.rfind("library ") + 8, 64, dalembert::support::sha256_hex(bytes));
  write(shared / legit.digest.filename(), record);

  spawn_test::Options options;
  options.unset = {"HOME", "XDG_CACHE_HOME", "DALEMBERT_CACHE_DIR"};
  options.environment = {"TMPDIR=" + tmp.string()};
  const auto run = [&] {
    return spawn_test::run({kExecutable, "run", model_path("harmonic-oscillator"), "--method", "dla", "--h", "0.1",
                            "--steps", "20"},
                           options);
  };
  // Writable by others: refused even though this user owns it.
  fs::permissions(shared, fs::perms::all);
  auto r = run();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, legit.csv);
  EXPECT_NE(r.err.find("is writable by other users"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  // The private directory used instead is gone after the run.
  std::smatch fallback;
  ASSERT_TRUE(std::regex_search(r.err, fallback, std::regex("new private directory (\\S+)")));
  EXPECT_FALSE(fs::exists(fallback[1].str()));

  if (!is_root()) GTEST_SKIP() << "the rest needs root (a directory owned by another user)";
  fs::permissions(shared, fs::perms::owner_all, fs::perm_options::replace);
  ASSERT_EQ(::chown(shared.c_str(), 65534, 65534), 0);
  r = run();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, legit.csv);
  EXPECT_NE(r.err.find("is owned by user 65534"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker));
}

// A truncated library crashed every later run with SIGBUS, overwritten code gave SIGILL, and a
// library swapped with another model's gave wrong energies. Each is now caught by the digest and
// rebuilt: the run gives the same rows as before the damage.
TEST(Security, DamagedCacheEntriesAreRebuilt) {
  const fs::path dir = fresh_directory("damaged_cache");
  const fs::path cache = dir / "cache";
  const Entry oscillator = populate(cache, model_path("harmonic-oscillator"));
  const Entry pendulum = populate(cache, model_path("pendulum"));
  const auto rerun = [&](const std::string& model) { return dalembert(run_args(model_path(model)), cache); };

  // truncated
  fs::resize_file(oscillator.library, fs::file_size(oscillator.library) / 2);
  auto r = rerun("harmonic-oscillator");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, oscillator.csv);
  // overwritten code
  {
    std::fstream f(oscillator.library, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(oscillator.library) / 3));
    const std::string garbage(512, '\xff');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  r = rerun("harmonic-oscillator");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, oscillator.csv);
  // swapped with another model's library
  fs::copy_file(pendulum.library, oscillator.library, fs::copy_options::overwrite_existing);
  r = rerun("harmonic-oscillator");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, oscillator.csv);
  // a library of someone else's, with the digest file left as it was
  const fs::path marker = dir / "PLANTED";
  fs::copy_file(planted_library(dir, marker), pendulum.library, fs::copy_options::overwrite_existing);
  r = rerun("pendulum");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, pendulum.csv);
  EXPECT_FALSE(fs::exists(marker));
}

/// Another user (nobody) with write access to `shared`, the folder that holds the cache `cache`:
/// for `seconds` it exchanges the cache with a link to a folder of its own (renameat2 with
/// RENAME_EXCHANGE, in a loop) and replaces every C source that appears there with one whose
/// library creates `marker` when it is loaded. Returns its pid; it writes a byte to `pipe_out` when
/// an exchange first succeeds.
pid_t start_cache_attacker(const fs::path& shared, const fs::path& cache, const fs::path& marker, int pipe_out) {
  const std::string payload = "#include <stdio.h>\n__attribute__((constructor)) static void p(void) {\n"
                              "  FILE* f = fopen(\"" + marker.string() + "\", \"w\"); if (f) fclose(f);\n}\n";
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
  const fs::path own = shared / "own", link = shared / "link";
  ::mkdir(own.c_str(), 0777);
  ::symlink(own.c_str(), link.c_str());
  char exchanged = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < end) {
    if (::renameat2(AT_FDCWD, cache.c_str(), AT_FDCWD, link.c_str(), RENAME_EXCHANGE) == 0 && !exchanged) {
      exchanged = 1;
      if (::write(pipe_out, &exchanged, 1) != 1) ::_exit(4);
    }
    std::error_code error;
    for (fs::directory_iterator it(own, error), done; !error && it != done; it.increment(error)) {
      if (it->path().extension() != ".c") continue;
      ::unlink(it->path().c_str());
      const int fd = ::open(it->path().c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
      if (fd >= 0 && ::write(fd, payload.data(), payload.size()) < 0) ::_exit(5);
      if (fd >= 0) ::close(fd);
    }
  }
  ::_exit(0);
}

// The cache's folder was checked once by its path, and every later step (the source written, the
// compiler reading it, the library loaded) resolved the path again: another user who could write to
// the folder above the cache exchanged the cache with a link to a folder of his own between the
// steps, replaced the source, and his constructor ran as the victim at dlopen (the old binary: after
// 30 runs, with the attacker of this test). Now the cache is held by a descriptor and refused when
// the folder above it lets others replace it; a sticky folder (like /tmp) does not.
TEST(Security, AnotherUserCannotSwapTheCacheDuringACompile) {
  if (!is_root()) GTEST_SKIP() << "needs root, to run the attacker as another user (nobody)";
  const fs::path dir = fresh_directory("cache_race");
  const fs::path marker = dir / "PLANTED";
  for (const auto mode : {fs::perms::all, fs::perms::all | fs::perms::sticky_bit}) {
    const bool sticky = (mode & fs::perms::sticky_bit) != fs::perms::none;
    const fs::path shared = dir / (sticky ? "sticky" : "shared"), cache = shared / "cache";
    fs::create_directories(shared);
    fs::permissions(shared, mode, fs::perm_options::replace);
    ASSERT_EQ(::mkdir(cache.c_str(), 0700), 0);
    int signal_pipe[2];
    ASSERT_EQ(::pipe(signal_pipe), 0);
    const pid_t attacker = start_cache_attacker(shared, cache, marker, signal_pipe[1]);
    ::close(signal_pipe[1]);
    for (int k = 0; k < 8; ++k) {  // a model of its own each time: every run compiles
      const fs::path model = dir / ("m" + std::to_string(k) + ".toml");
      write(model, "name = \"m\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5*x_t^2 - " + std::to_string(k + 1) + ".5*x^2\"\n");
      const auto r = dalembert({"describe", model.string()}, cache);
      EXPECT_EQ(r.status, 0) << r.err;
      EXPECT_FALSE(fs::exists(marker)) << (sticky ? "sticky: " : "") << "run " << k << ": " << r.err;
      // refused for the folder above it, or for what the attacker made of it just then
      if (!sticky)
        EXPECT_TRUE(r.err.find("other users can write to without the sticky bit") != std::string::npos ||
                    r.err.find("is a symbolic link") != std::string::npos)
            << r.err;
      else
        EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    }
    ::kill(attacker, SIGKILL);
    int status = 0;
    ::waitpid(attacker, &status, 0);
    char exchanged = 0;
    const bool any = ::read(signal_pipe[0], &exchanged, 1) == 1;
    ::close(signal_pipe[0]);
    // In the sticky folder nobody may rename root's cache: the attack cannot even start.
    EXPECT_EQ(any, !sticky);
    if (sticky) EXPECT_FALSE(fs::is_empty(cache)) << "the accepted cache keeps the compiled models";
  }
}

// A cache entry replaced by a FIFO blocked the run in open(): it is now opened without blocking,
// found not to be a regular file, and rebuilt.
TEST(Security, AFifoInTheCacheIsRebuiltNotWaitedOn) {
  const fs::path dir = fresh_directory("cache_fifo");
  const fs::path cache = dir / "cache";
  const Entry oscillator = populate(cache, model_path("harmonic-oscillator"));
  for (const fs::path& entry : {oscillator.digest, oscillator.library, oscillator.record}) {
    fs::remove(entry);
    ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
    spawn_test::Options options;
    options.timeout_seconds = 20;
    const auto r = dalembert(run_args(model_path("harmonic-oscillator")), cache, options);
    EXPECT_FALSE(r.timed_out) << entry;
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, oscillator.csv);
    EXPECT_TRUE(fs::is_regular_file(entry)) << "rebuilt: " << entry;
  }
}

// A model's analysis is recorded beside its library, by the model's text, so that the next load
// skips the algebra (the bicycle's 6 s; docs/decisions.md, Model cache: a model's analysis recorded
// by its text). The record is used only when it checks: a damaged or shared record, a missing
// library, or a compiler the user no longer asks for sends the model through the algebra again.
TEST(Security, ARecordedAnalysisIsUsedOnlyWhenItChecks) {
  const fs::path cache = fresh_directory("cache_record") / "cache";
  const std::string model = model_path("harmonic-oscillator");
  const Entry oscillator = populate(cache, model);
  struct stat st{};
  ASSERT_EQ(::stat(oscillator.record.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u);
  const std::string record = slurp(oscillator.record);
  ASSERT_NE(record.find("\nhas_solution 1\n"), std::string::npos) << record;
  const auto describe = [&](spawn_test::Options options = {}) {
    const auto r = dalembert({"describe", model}, cache, std::move(options));
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  };
  const std::string described = describe();
  ASSERT_NE(described.find("closed-form solution: yes"), std::string::npos) << described;
  EXPECT_EQ(dalembert(run_args(model), cache).out, oscillator.csv);

  // A record whose layout says "no closed form", with its digest made to match: it is read (the
  // algebra is skipped), which is why it must be private.
  const std::size_t body = record.find("\nn ") + 1;
  std::string altered = record;
  altered.replace(altered.find("\nhas_solution 1\n") + 14, 1, "0");
  const std::size_t digest = altered.find("\nlayout ") + 8;
  altered.replace(digest, 64, dalembert::support::sha256_hex(std::string_view(altered).substr(body)));
  write(oscillator.record, altered);
  EXPECT_NE(describe().find("closed-form solution: no"), std::string::npos);
  // Others may write to it: not read, and replaced by the analysis.
  fs::permissions(oscillator.record, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_write);
  EXPECT_EQ(describe(), described);
  EXPECT_EQ(slurp(oscillator.record), record);

  // The layout changed without its digest, cut short, or with a field misspelt; the library
  // removed; compilation turned off: each time the algebra runs again and gives the same model.
  std::string unsigned_change = altered;
  unsigned_change.replace(digest, 64, record.substr(digest, 64));
  std::string misspelt = record;
  misspelt.replace(misspelt.find("\nmechanics_size ") + 1, 14, "mechanic_size");
  for (const std::string& damaged : {unsigned_change, record.substr(0, record.size() - 3), misspelt}) {
    write(oscillator.record, damaged);
    EXPECT_EQ(describe(), described);
    EXPECT_EQ(slurp(oscillator.record), record);
  }
  fs::remove(oscillator.library);
  EXPECT_EQ(dalembert(run_args(model), cache).out, oscillator.csv);
  EXPECT_TRUE(fs::is_regular_file(oscillator.library)) << "compiled again";
  spawn_test::Options no_compiler;
  no_compiler.environment = {"DALEMBERT_CC=none"};
  const auto r = dalembert(run_args(model), cache, no_compiler);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("compilation disabled (DALEMBERT_CC=none)"), std::string::npos) << r.err;
}

// Processes that compile the same model at once all succeed and agree.
TEST(Security, ConcurrentCompilesOfOneModelAllSucceed) {
  const fs::path dir = fresh_directory("concurrent_cache");
  std::vector<Outcome> outcomes(4);
  std::vector<std::thread> threads;
  for (auto& o : outcomes)
    threads.emplace_back([&o, &dir] { o = dalembert(run_args(model_path("chaplygin-sleigh")), dir / "cache"); });
  for (auto& t : threads) t.join();
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(o.out, outcomes[0].out);
  }
  for (const auto& name : names_in(dir / "cache")) EXPECT_FALSE(name.starts_with(".")) << name;
}

// --- 4. Output paths --------------------------------------------------------------------------------

std::vector<std::string> short_run(const std::string& out_option, const std::string& path) {
  return {"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "5", out_option, path};
}

// The temporary-file-and-rename write turned /dev/null into a regular file when run as root.
TEST(Security, ACharacterDeviceIsWrittenThroughNotReplaced) {
  if (!is_root()) GTEST_SKIP() << "making a device node needs root";
  const fs::path dir = fresh_directory("device");
  const fs::path null = dir / "null";
  ASSERT_EQ(::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  for (const char* option : {"--out", "--summary"}) {
    const auto r = dalembert(short_run(option, null.string()), dir / "cache");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(fs::is_character_file(null)) << option;
  }
  EXPECT_EQ(names_in(dir), std::vector<std::string>{"null"});
}

TEST(Security, APipeIsWrittenThrough) {
  const fs::path dir = fresh_directory("fifo");
  const fs::path fifo = dir / "rows";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  const auto r = dalembert(short_run("--out", fifo.string()), dir / "cache");
  reader.join();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(received.substr(0, 2), "t,");
}

// A link in a shared directory may point anywhere: an output path that is a symbolic link to a
// file is refused, and the file it points to is left alone.
TEST(Security, ASymbolicLinkToAFileIsRefused) {
  const fs::path dir = fresh_directory("symlink");
  write(dir / "victim", "precious\n");
  fs::create_symlink(dir / "victim", dir / "out.csv");
  fs::create_symlink(dir / "nowhere", dir / "dangling.csv");
  for (const char* option : {"--out", "--summary"}) {
    for (const char* link : {"out.csv", "dangling.csv"}) {
      const auto r = dalembert(short_run(option, (dir / link).string()), dir / "cache");
      EXPECT_EQ(r.status, 2) << r.err;
      EXPECT_NE(r.err.find(std::string(option) + ": '" + (dir / link).string() + "' is a symbolic link"),
                std::string::npos)
          << r.err;
    }
  }
  EXPECT_EQ(slurp(dir / "victim"), "precious\n");
  EXPECT_FALSE(fs::exists(dir / "nowhere"));
}

// --out or --summary naming the model file replaced the model file, --out and --summary naming one
// file kept only one of them, and ensemble's --out could replace its --initial-file: an output that
// is one of the command's inputs, or another of its outputs, is refused before anything runs, under
// any name of the file (a second path, a hard link).
TEST(Security, AnOutputNeverReplacesAnInputOrAnotherOutput) {
  const fs::path dir = fresh_directory("clobber");
  const fs::path model = dir / "knife.toml", alias = dir / "alias.toml";
  fs::copy_file(model_path("knife-edge"), model);
  fs::create_hard_link(model, alias);
  const std::string text = slurp(model);
  write(dir / "initial.csv", "x,y,phi\n0,0,0\n0,0,0.5\n");
  const std::string initial = slurp(dir / "initial.csv");
  const std::vector<std::string> run = {"run", model.string(), "--method", "dla", "--h", "0.1", "--steps", "3"};
  const auto with = [](std::vector<std::string> base, std::initializer_list<std::string> more) {
    base.insert(base.end(), more);
    return base;
  };
  const std::vector<BadInputCase> cases = {
      {with(run, {"--out", model.string()}), "--out: '" + model.string() + "' is the model file this command reads"},
      {with(run, {"--summary", alias.string()}), "--summary: '" + alias.string() + "' is the model file"},
      {with(run, {"--out", (dir / "sub" / ".." / "knife.toml").string()}), "is the model file"},
      {with(run, {"--out", (dir / "a.csv").string(), "--summary", (dir / "." / "a.csv").string()}),
       "--summary: '" + (dir / "." / "a.csv").string() + "' is also the output of --out"},
      {{"ensemble", "knife-edge", "--method", "dla", "--h", "0.1", "--steps", "3", "--initial-file",
        (dir / "initial.csv").string(), "--out", (dir / "initial.csv").string()},
       "--out: '" + (dir / "initial.csv").string() + "' is the --initial-file this command reads"},
      {{"compare", model.string(), "--methods", "dla", "--h", "0.1", "--steps", "3", "--out-dir", dir.string()},
       ""},  // compare.csv is not the model: allowed (below)
  };
  fs::create_directories(dir / "sub");
  for (const auto& c : cases) {
    const auto r = dalembert(c.args, dir / "cache");
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    if (c.message.empty()) {
      EXPECT_EQ(r.status, 0) << shown << "\n" << r.err;
      continue;
    }
    EXPECT_EQ(r.status, 2) << shown << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << shown << "\nexpected: " << c.message << "\nstderr: " << r.err;
  }
  EXPECT_EQ(slurp(model), text);
  EXPECT_EQ(slurp(dir / "initial.csv"), initial);
  EXPECT_FALSE(fs::exists(dir / "a.csv"));
}

// matplotlib followed a link planted in --out-dir where a figure goes, and overwrote its target.
// Figures are now written as tables are: a new file, renamed over the name (the link itself).
TEST(Security, AFigureNeverFollowsALinkPlantedInTheOutputDirectory) {
  const fs::path dir = fresh_directory("figure_link");
  write(dir / "victim", "precious\n");
  fs::create_directories(dir / "out");
  fs::create_symlink(dir / "victim", dir / "out" / "convergence.png");
  const auto r = dalembert({"convergence", "particle", "--method", "dla", "--h-list", "0.1,0.05", "--t-end", "1",
                            "--out-dir", (dir / "out").string()},
                           dir / "cache");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(dir / "victim"), "precious\n");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "out" / "convergence.png")));
  for (const auto& name : names_in(dir / "out")) EXPECT_FALSE(name.starts_with(".")) << "left behind: " << name;
}

// Output that standard output does not take is lost: list, describe, compare, convergence and
// reproduce exited 0 on /dev/full. It is a failure that names standard output.
TEST(Security, AFullStandardOutputIsAFailure) {
  const fs::path dir = fresh_directory("dev_full");
  const std::vector<std::vector<std::string>> commands = {
      {"list"},
      {"describe", "particle", "--json"},
      {"compare", "particle", "--methods", "dla", "--h", "0.1", "--steps", "3", "--out-dir", (dir / "c").string()},
      {"convergence", "particle", "--method", "dla", "--h-list", "0.1,0.05", "--t-end", "1", "--out-dir",
       (dir / "v").string()},
      {"reproduce", "--quick", "--only", "thesis-pendulum", "--out", (dir / "r").string()},
      {"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "3"},
  };
  for (const auto& c : commands) {
    std::vector<std::string> argv{kExecutable};
    argv.insert(argv.end(), c.begin(), c.end());
    spawn_test::Options options;
    options.environment = {"DALEMBERT_CACHE_DIR=" + (dir / "cache").string()};
    options.stdout_path = "/dev/full";
    const auto r = spawn_test::run(argv, options);
    EXPECT_EQ(r.status, 2) << c[0] << ": " << r.err;
    EXPECT_NE(r.err.find("standard output"), std::string::npos) << c[0] << ": " << r.err;
  }
}

// A write beyond `ulimit -f` killed the run with SIGXFSZ and left its temporary file behind; it is
// now a write that fails, reported like a full disk, and nothing is left. A figure that cannot be
// written is a warning: the tables are kept (a full disk ended convergence as an internal error).
TEST(Security, AFileSizeLimitIsAFailedWriteNotASignal) {
  const fs::path dir = fresh_directory("file_size");
  std::vector<std::string> argv{"/usr/bin/prlimit", "--fsize=2000", kExecutable, "run", "particle", "--method", "dla",
                                "--h", "0.1", "--steps", "1000", "--out", (dir / "big.csv").string()};
  spawn_test::Options options;
  options.environment = {"DALEMBERT_CACHE_DIR=" + (dir / "cache").string()};
  auto r = spawn_test::run(argv, options);
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--out: '" + (dir / "big.csv").string() + "' cannot be written: File too large"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "big.csv"));
  // The convergence table (about 150 bytes) fits, its figures (tens of kB) do not.
  argv = {"/usr/bin/prlimit", "--fsize=4000", kExecutable, "convergence", "particle", "--method", "dla",
          "--h-list", "0.1,0.05", "--t-end", "1", "--out-dir", (dir / "conv").string()};
  r = spawn_test::run(argv, options);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: the figures were not drawn"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("fitted order: 2.0"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir / "conv" / "convergence.csv"));
  for (const auto& name : names_in(dir / "conv")) EXPECT_FALSE(name.starts_with(".")) << "left behind: " << name;
  for (const auto& name : names_in(dir)) EXPECT_FALSE(name.starts_with(".")) << "left behind: " << name;
}

// Text from the command line (a file name, an unknown command) reached the terminal with its
// control characters (an escape sequence can rewrite what the terminal shows).
TEST(Security, ControlCharactersNeverReachTheTerminal) {
  const fs::path dir = fresh_directory("control");
  const fs::path model = dir / "k\x1b[2Jnife.toml";
  fs::copy_file(model_path("knife-edge"), model);
  spawn_test::Options no_compiler;
  no_compiler.environment = {"DALEMBERT_CC=none"};
  for (const auto& [args, options] :
       {std::pair{std::vector<std::string>{"frob\x1b[2Jnicate"}, spawn_test::Options{}},
        std::pair{std::vector<std::string>{"run", "particle", "--method", "dla", "--h", "\x1b[2J", "--steps", "3"},
                  spawn_test::Options{}},
        std::pair{std::vector<std::string>{"describe", model.string()}, no_compiler}}) {
    const auto r = dalembert(args, dir / "cache", options);
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("\\x1b[2J"), std::string::npos) << args[0] << ": " << r.err;
  }
}

// No temporary file is left behind: not after a numerical failure, not after bad input found once
// the output was opened, not after a signal.
TEST(Security, NoTemporaryFileIsLeftBehind) {
  const fs::path dir = fresh_directory("temporaries");
  // a Newton failure at the first step (exit 3; one iteration cannot reach 1e-30): the row of
  // step 0 is written
  auto r = dalembert({"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "5", "--tolerance", "1e-30",
                      "--max-iterations", "1", "--out", (dir / "failed.csv").string(), "--summary", (dir / "failed.json").string()},
                     dir / "cache");
  EXPECT_EQ(r.status, 3) << r.err;
  // bad initial data, found after the outputs were opened (exit 2): nothing is written
  r = dalembert({"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "5", "--v0", "1,2,3", "--out",
                 (dir / "bad.csv").string()},
                dir / "cache");
  EXPECT_EQ(r.status, 2) << r.err;
  // ended by a signal while running (SIGINT and SIGTERM stop a run gently: tests/test_cli_streaming.cpp)
  spawn_test::Options stop;
  stop.signal_after_ms = 300;
  for (const int signal : {SIGHUP}) {
    stop.signal_to_send = signal;
    r = dalembert({"run", "particle", "--method", "dla", "--h", "0.001", "--steps", "100000000", "--out",
                   (dir / "stopped.csv").string()},
                  dir / "cache", stop);
    EXPECT_EQ(r.signal, signal) << r.status << r.err;
  }
  auto names = names_in(dir);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"failed.csv", "failed.json"}));
}

// Ended by a signal while a model file compiles (Ctrl-C at the first run of a new file): the
// compiler is ended too, with every process it started (cc1 went on alone after SIGTERM reached
// the driver: the compiler now leads a process group of its own, which is killed), and neither the
// generated source nor a half-written library is left, in the cache or, when the cache is refused,
// in the temporary directory (a folder was left there after SIGHUP).
TEST(Security, ASignalDuringAModelsCompileEndsTheCompilerAndLeavesNothing) {
  const fs::path dir = fresh_directory("compile-signal");
  const fs::path pid_file = dir / "compiler.pid", compiler = dir / "slow-cc";
  // a driver that waits for a child of its own, as cc waits for cc1
  write(compiler, "#!/bin/sh\nsleep 60 &\necho $! > '" + pid_file.string() + "'\nwait\n");
  fs::permissions(compiler, fs::perms::owner_all);
  const fs::path shared = dir / "shared", tmp = dir / "tmp";
  fs::create_directories(shared);
  fs::create_directories(tmp);
  fs::permissions(shared, fs::perms::all);  // writable by others: the cache in it is refused
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    for (const fs::path& cache : {dir / "cache", shared / "cache"}) {
      fs::remove(pid_file);
      spawn_test::Options options;
      options.environment = {"DALEMBERT_CC=" + compiler.string(), "TMPDIR=" + tmp.string()};
      options.signal_after_ms = 1500;
      options.signal_to_send = signal;
      const auto r = dalembert({"run", model_path("knife-edge"), "--method", "dla", "--h", "0.1", "--steps", "5"},
                               cache, options);
      const std::string where = strsignal(signal) + std::string(", cache ") + cache.string();
      EXPECT_EQ(r.signal, signal) << where << ": " << r.status << r.err;
      EXPECT_LT(r.seconds, 2.5) << where;
      ASSERT_TRUE(fs::exists(pid_file)) << where << ": the compiler did not start within 1.5 s";
      const std::string pid = slurp(pid_file).substr(0, slurp(pid_file).find('\n'));
      // gone, or a zombie waiting for its new parent to reap it
      const auto ended = [&] {
        const std::string stat = slurp("/proc/" + pid + "/stat");
        const auto state = stat.rfind(')');
        return stat.empty() || (state != std::string::npos && stat.substr(state + 2, 1) == "Z");
      };
      bool gone = ended();
      for (int i = 0; i < 100 && !gone; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        gone = ended();
      }
      EXPECT_TRUE(gone) << where << ": the compiler's child (pid " << pid << ") still runs";
      if (fs::exists(cache))
        for (const auto& name : names_in(cache)) ADD_FAILURE() << where << ": left in the cache: " << name;
      for (const auto& name : names_in(tmp)) ADD_FAILURE() << where << ": left in the temporary directory: " << name;
    }
  }
}

// --- 5. Bounded resources ----------------------------------------------------------------------------

/// "(x_t + 1*x)*(x_t + 2*x)*..." : `count` factors `before` i `after`.
std::string product(const std::string& before, const std::string& after, int count) {
  std::string p;
  for (int i = 1; i <= count; ++i) p += (i > 1 ? "*" : "") + before + std::to_string(i) + after;
  return p;
}

TEST(Security, HostileExpressionsAreRefusedQuickly) {
  const fs::path dir = fresh_directory("limits");
  std::string nested_sin = "x_t";
  for (int i = 0; i < 40; ++i) nested_sin = "sin(" + nested_sin + ")";
  const struct {
    std::string name, lagrangian, message;
  } cases[] = {
      {"parentheses", "0.5*x_t^2 - " + std::string(60000, '(') + "x" + std::string(60000, ')'), "limit of 100000"},
      {"deep_parentheses", "0.5*x_t^2 - " + std::string(2000, '(') + "x" + std::string(2000, ')'), "nesting deeper than the limit of 64"},
      {"signs", "0.5*x_t^2 - " + std::string(110000, '-') + "x", "limit of 100000"},
      {"deep_signs", "0.5*x_t^2 - " + std::string(5000, '-') + "x", "nesting deeper than the limit of 64"},
      {"nested_functions", "0.5*x_t^2 + " + nested_sin, "function calls nested deeper than the limit of 16"},
      {"huge_power", "0.5*x_t^2 + 9^(9^9)*x", "exponent beyond the limit of 1024"},
      {"huge_number", "0.5*x_t^2 + 1e999*x", "the number 1e999 is out of range"},
      // GiNaC computed these exactly (pow(2, 2^31) for 30 s, into the double 1.0), or for minutes
      {"pow_of_a_power", "0.5*x_t^2 + pow(2, 2^31)*x", "exponent beyond the limit of 1024"},
      {"pow_of_a_product", "0.5*x_t^2 + pow(9, 3*9^9)*x", "exponent beyond the limit of 1024"},
      {"cancelling_base", "0.5*x_t^2 + (x - x + 99)^(10^9)", "could have more than 1048576 bits"},
      {"cancelling_exponent", "0.5*x_t^2 + 2^(x - x + 10^9)", "could have more than 1048576 bits"},
      {"factorial", "0.5*x_t^2 + factorial(10^8)*x", "no function \"factorial\""},
      {"tgamma", "0.5*x_t^2 + tgamma(10^8)*x", "no function \"tgamma\""},
      {"binomial", "0.5*x_t^2 + binomial(10^9, 5*10^8)*x", "no function \"binomial\""},
      {"zeta", "0.5*x_t^2 + zeta(200000)*x", "no function \"zeta\""},
      {"psi", "0.5*x_t^2 + psi(10^9)*x", "no function \"psi\""},
      {"lgamma", "0.5*x_t^2 + lgamma(10^8)*x", "no function \"lgamma\""},
      // derivatives that grow beyond what can be compiled (52 s and 690 MB; over 300 s)
      {"long_product", product("(x_t + ", "*x)", 20), "has more than 30000 terms, the limit"},
      {"many_cosines", "0.5*x_t^2 + " + product("cos(", "*x)", 200), "has more than 30000 terms, the limit"},
      {"many_cosines_of_t", product("cos(", "*x_t)", 200) + "*(x_t - t*x)^2", "has more than 30000 terms, the limit"},
  };
  for (const auto& c : cases) {
    write(dir / (c.name + ".toml"), "name = \"limits\"\ncoordinates = [\"x\"]\nlagrangian = \"" + c.lagrangian + "\"\n");
    spawn_test::Options options;
    options.timeout_seconds = 20;
    const auto r = dalembert({"describe", (dir / (c.name + ".toml")).string()}, dir / "cache", options);
    EXPECT_EQ(r.status, 2) << c.name << ": " << r.err.substr(0, 300);
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err.substr(0, 300);
    EXPECT_NE(r.err.find(".toml:3: lagrangian:"), std::string::npos) << c.name;  // the file, the line, the key
    EXPECT_LT(r.seconds, 5.0) << c.name;
    EXPECT_LT(r.err.size(), 1000u) << c.name;  // the expression is quoted, not copied
  }
}

// GiNaC's parser reads I as the imaginary unit whatever the symbol table says, so a coordinate I is
// renamed before parsing: to I_dalembert_name, which merged it silently with a coordinate of that
// name. Two coordinates stay two: the run is that of the same model with other names.
TEST(Security, NamesGiNaCReadsAsConstantsStayDistinct) {
  const fs::path dir = fresh_directory("literal_names");
  const auto model = [&](const std::string& a, const std::string& b) {
    const fs::path path = dir / (a + ".toml");
    write(path, "name = \"two oscillators\"\ncoordinates = [\"" + a + "\", \"" + b + "\"]\nlagrangian = \"0.5*" + a +
                    "_t^2 + 0.5*" + b + "_t^2 - 0.5*" + a + "^2 - 2*" + b + "^2\"\n[initial]\nq = [1, 0.5]\nv = [0, 1]\n");
    return path.string();
  };
  const auto values = [](const std::string& csv) { return csv.substr(csv.find('\n')); };  // the rows, not the header
  const auto renamed = dalembert({"run", model("I", "I_dalembert_name"), "--method", "dla", "--h", "0.1", "--steps", "50"},
                                 dir / "cache");
  const auto plain = dalembert({"run", model("a", "b"), "--method", "dla", "--h", "0.1", "--steps", "50"}, dir / "cache");
  ASSERT_EQ(renamed.status, 0) << renamed.err;
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(values(renamed.out), values(plain.out));
}

// --- 6. Non-smooth and singular expressions -----------------------------------------------------------

std::vector<double> column(const std::string& csv, const std::string& name) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::size_t index = 0, found = std::string::npos;
  std::istringstream header(line);
  for (std::string cell; std::getline(header, cell, ','); ++index)
    if (cell == name) found = index;
  std::vector<double> values;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cell;
    for (std::size_t i = 0; i <= found; ++i) std::getline(row, cell, ',');
    values.push_back(std::stod(cell));
  }
  return values;
}

// abs(x_t)^3 gave NaN energies with exit 0: GiNaC's derivative of abs(x) is x/abs(x).
TEST(Security, AbsHasACorrectDerivativeAtZero) {
  const fs::path dir = fresh_directory("abs");
  write(dir / "abs.toml", "name = \"abs\"\ncoordinates = [\"x\"]\n"
                          "lagrangian = \"0.5*x_t^2 + abs(x_t)^3 - x^2\"\n[initial]\nq = [1]\nv = [0]\n");
  const auto r = dalembert({"run", (dir / "abs.toml").string(), "--method", "dla", "--h", "0.01", "--steps", "400"},
                           dir / "cache");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto energy = column(r.out, "energy");
  ASSERT_EQ(energy.size(), 401u);
  // E = ½ẋ² + 2|ẋ|³ + x², E(0) = 1, conserved to O(h²) by the midpoint rule
  for (const double E : energy) EXPECT_NEAR(E, 1.0, 1e-3);
  // the velocity crosses zero: the orbit passes x = 0 and turns at both ends
  const auto x = column(r.out, "x");
  EXPECT_LT(*std::min_element(x.begin(), x.end()), -0.9);
}

TEST(Security, SingularDerivativesAreRefusedAndNonFiniteRunsFail) {
  const fs::path dir = fresh_directory("singular");
  write(dir / "sqrt.toml", "name = \"sqrt\"\ncoordinates = [\"x\"]\n"
                           "lagrangian = \"0.5*x_t^2 + sqrt(x_t^2)*x_t^2\"\n[initial]\nv = [0]\n");
  auto r = dalembert({"run", (dir / "sqrt.toml").string(), "--method", "dla", "--h", "0.1", "--steps", "3"}, dir / "cache");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("sqrt.toml:3: lagrangian: a derivative of the Lagrangian up to the third is not finite"),
            std::string::npos)
      << r.err;
  // RK4 beyond its stability limit overflows: the energy becomes infinite, then NaN
  r = dalembert({"run", "harmonic-oscillator", "--method", "rk4", "--h", "10", "--steps", "2000", "--summary",
                 (dir / "rk4.json").string()},
                dir / "cache");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("the energy is inf"), std::string::npos) << r.err;
  for (const double E : column(r.out, "energy")) EXPECT_TRUE(std::isfinite(E));
  EXPECT_NE(slurp(dir / "rk4.json").find("\"status\": \"non-finite\""), std::string::npos);
}

// --- 7. Names that become CSV columns ---------------------------------------------------------------

TEST(Security, DerivedNamesMustBeColumnNames) {
  const fs::path dir = fresh_directory("derived");
  for (const std::string key : {"\"a,b\"", "\"a\\nb\"", "\"1x\"", "\"\""}) {
    write(dir / "d.toml", "name = \"d\"\ncoordinates = [\"x\"]\nlagrangian = \"0.5*x_t^2\"\n[derived]\n" + key + " = \"x\"\n");
    const auto r = dalembert({"describe", (dir / "d.toml").string()}, dir / "cache");
    EXPECT_EQ(r.status, 2) << key << ": " << r.err;
    EXPECT_NE(r.err.find("is not a column name"), std::string::npos) << key << ": " << r.err;
  }
}

// --- The bad-input contract -----------------------------------------------------------------------------

TEST(Security, EveryBadInputIsExit2NamingTheValue) {
  const fs::path dir = fresh_directory("bad_input");
  write(dir / "a_file", "x\n");
  const std::string file = (dir / "a_file").string();
  const std::vector<std::string> run = {"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "3"};
  const auto with = [&](std::vector<std::string> base, std::initializer_list<std::string> more) {
    base.insert(base.end(), more);
    return base;
  };
  const std::vector<std::string> compare = {"compare", "particle", "--methods", "dla", "--h", "0.1", "--steps", "3"};
  const std::vector<std::string> convergence = {"convergence", "particle", "--method", "dla", "--t-end", "1"};
  const std::vector<std::string> ensemble = {"ensemble", "particle", "--method", "dla", "--h", "0.1", "--steps", "3",
                                             "--param-range", "potential=0:1"};
  const std::vector<BadInputCase> cases = {
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {with(run, {"--out", file + "/x.csv"}), "--out: '" + file + "/x.csv' cannot be written"},
      {with(run, {"--out", dir.string()}), "--out: '" + dir.string() + "' is a directory"},
      {with(run, {"--out", ""}), "--out: the path is empty"},
      {with(run, {"--summary", dir.string()}), "--summary: '" + dir.string() + "' is a directory"},
      {with(compare, {"--out-dir", file}), "--out-dir: '" + file + "' exists and is not a directory"},
      {with(compare, {"--out-dir", file + "/sub"}), "--out-dir: '" + file + "/sub' cannot be created"},
      {with(compare, {"--out-dir", ""}), "--out-dir: the path is empty"},
      {with(convergence, {"--h-list", "0.1,0.05", "--out-dir", file}), "--out-dir: '" + file + "'"},
      {{"reproduce", "--only", "thesis-pendulum", "--out", file}, "--out: '" + file + "' exists and is not a directory"},
      {with(ensemble, {"--samples", "2", "--out", dir.string()}), "--out: '" + dir.string() + "' is a directory"},
      {{"run", "particle", "--method", "dla", "--h", "1e-320", "--t-end", "1"}, "--t-end 1 with --h 1e-320"},
      {{"run", "particle", "--method", "dla", "--h", "0", "--steps", "3"}, "--h: must be positive, got 0"},
      {{"run", "particle", "--method", "dla", "--h", "nan", "--steps", "3"}, "--h: 'nan' is not a finite number"},
      {{"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "-1"}, "--steps: must lie in 0..1000000000000000, got -1"},
      {{"run", "particle", "--method", "dla", "--h", "0.1", "--steps", "99999999999999999999"},
       "--steps: must lie in 0..1000000000000000, got 99999999999999999999"},
      {{"run", "particle", "--method", "dla", "--h", "0.1", "--t-end", "-1"}, "--t-end: the final time must be positive, got -1"},
      {with(convergence, {"--h-list", "0.1,0.1"}), "--h-list: 0.1 is given twice"},
      {with(convergence, {"--h-list", "0.1,0.03"}), "--t-end 1 is not a multiple of h = 0.03 of --h-list (T/h = 33.3"},
      // a final time that is not a multiple of the step is refused the same way by every command
      {{"run", "particle", "--method", "dla", "--h", "0.3", "--t-end", "1"}, "--t-end 1 is not a multiple of --h 0.3 (T/h = 3.33"},
      {{"compare", "particle", "--methods", "dla,rk4", "--h", "0.3", "--t-end", "1"}, "--t-end 1 is not a multiple of --h 0.3"},
      {{"ensemble", "particle", "--method", "dla", "--h", "0.3", "--t-end", "1", "--samples", "2", "--param-range", "potential=0:1"},
       "--t-end 1 is not a multiple of --h 0.3"},
      {with(convergence, {"--h-list", "0.1,-0.05"}), "--h-list: step sizes must be positive, got -0.05"},
      {with(ensemble, {"--samples", "1000000000000"}), "--samples: must lie in 1..10000000, got 1000000000000"},
      {with(ensemble, {"--samples", "0"}), "--samples: must lie in 1..10000000, got 0"},
      {with(ensemble, {"--samples", "4000", "--param-range", "potential=0:1"}), "--param-range: potential given twice"},
      {with(run, {"--max-iterations", "4294967297"}), "--max-iterations: must lie in 1..1000, got 4294967297"},
      {with(run, {"--max-iterations", "0"}), "--max-iterations: must lie in 1..1000, got 0"},
      {with(run, {"--q0", ""}), "--q0: '' is not a number"},
      {with(run, {"--v0", "1,,2"}), "--v0: '' is not a number"},
      {with(run, {"--q0", "1,2"}), "--q0 has 2 value(s)"},
      {with(run, {"--every", "0"}), "--every: must lie in 1..1000000000000000, got 0"},
      {with(run, {"--tolerance", "0"}), "--tolerance: must be positive, got 0"},
      {with(run, {"--alpha", "2"}), "--alpha: must lie in [0, 1], got 2"},
      {with(run, {"--rule", "simpson"}), "--rule: unknown value 'simpson'"},
      {with(run, {"--fim-start", "C"}), "--fim-start: unknown value 'C'"},
      {with(run, {"--param", " = "}), "--param: ' = ' does not start with a parameter name"},
      {with(run, {"--param", "potential"}), "--param: 'potential' is not of the form name=value"},
      {with(run, {"--param", "potential=abc"}), "--param potential: 'abc' is not a number"},
      {with(run, {"--param", "mass=1"}), "unknown parameter 'mass'"},
      {{"run", "particle", "--method", "nope", "--h", "0.1", "--steps", "3"}, "unknown method 'nope'"},
      {{"run", "no-such-system", "--method", "dla", "--h", "0.1", "--steps", "3"}, "no-such-system"},
      {{"run", "particle", "--method", "dla", "--steps", "3"}, "run `dalembert run --help`"},
      {{"run", "knife-edge", "--method", "dla", "--h", "0.1", "--steps", "3", "--param", "m=0"},
       "knife-edge with --param m=0: the mass matrix d2L/dv2 is singular"},
      {{"run", model_path("knife-edge"), "--method", "dla", "--h", "0.1", "--steps", "3", "--param", "m=0"},
       "the metric d2L/dv2 is singular"},
      {{"run", model_path("knife-edge"), "--method", "dla", "--h", "0.1", "--steps", "3", "--param", "m=0"},
       "(with --param m=0)"},
      {with(ensemble, {"--samples", "2", "--threads", "0"}), "--threads: must lie in 1..4096, got 0"},
      {with(ensemble, {"--samples", "2", "--sampling", "sobol"}), "--sampling: unknown sampling 'sobol'"},
      {{"ensemble", "particle", "--method", "dla", "--h", "0.1", "--steps", "3", "--initial-file", "/dev/zero"},
       "--initial-file: '/dev/zero' is not a regular file"},
      {with(ensemble, {"--samples", "2", "--threads", ""}), "--threads: the value is empty"},
      {with(ensemble, {"--samples", "2", "--out", ""}), "--out: the value is empty"},
      {with(ensemble, {"--samples", ""}), "--samples: the value is empty"},
      {{"compare", "particle", "--methods", "dla,rk4,dla", "--h", "0.1", "--steps", "3"},
       "--methods: dla is given twice in 'dla,rk4,dla'"},
      {with(run, {"--q1", "0.1,0,0", "--v0", "1,0,0"}), "--q1 0.1,0,0 and --v0 1,0,0 are two starts"},
  };
  for (const auto& c : cases) {
    const auto r = dalembert(c.args, dir / "cache");
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    EXPECT_EQ(r.status, 2) << shown << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << shown << "\nexpected: " << c.message << "\nstderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << shown;
  }
  EXPECT_EQ(names_in(dir).size(), 2u);  // a_file and the cache: nothing else was created
}

// --- Numerical failures inside studies: exit 3, the completed rows kept and aligned ------------------

TEST(Security, AFailureInsideCompareKeepsAlignedRows) {
  const fs::path dir = fresh_directory("compare_failure");
  // one Newton iteration cannot reach a tolerance of 1e-30: dla fails at the first step; rk4 has no Newton
  const auto r = dalembert({"compare", "particle", "--methods", "rk4,dla", "--h", "0.1", "--steps", "20", "--every", "3",
                            "--tolerance", "1e-30", "--max-iterations", "1", "--out-dir", (dir / "out").string()},
                           dir / "cache");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("dla: Newton solver failed at step 1"), std::string::npos) << r.err;
  const std::string csv = slurp(dir / "out" / "compare.csv");
  std::istringstream in(csv);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 1u + 8u);  // header, k = 0, 3, ..., 18, 20
  for (const auto& row : rows) EXPECT_EQ(std::count(row.begin(), row.end(), ','), 6) << row;
  const auto t = column(csv, "t"), rk4 = column(csv, "rk4:error"), dla = column(csv, "dla:error");
  EXPECT_NEAR(t.back(), 2.0, 1e-12);
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_TRUE(std::isfinite(rk4[i])) << i;
    EXPECT_EQ(std::isfinite(dla[i]), i == 0) << i;  // dla has only its initial row
  }
  EXPECT_TRUE(fs::exists(dir / "out" / "error.png"));
}

TEST(Security, AFailureInsideConvergenceIsExit3WithTheRowsKept) {
  const fs::path dir = fresh_directory("convergence_failure");
  const auto r = dalembert({"convergence", "particle", "--method", "dla", "--h-list", "0.2,0.1,0.05", "--t-end", "1",
                            "--tolerance", "1e-30", "--max-iterations", "1", "--out-dir", (dir / "out").string()},
                           dir / "cache");
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("dla failed at h = 0.2"), std::string::npos) << r.err;
  const std::string csv = slurp(dir / "out" / "convergence.csv");
  EXPECT_EQ(column(csv, "h"), (std::vector<double>{0.2, 0.1, 0.05}));
  for (const double e : column(csv, "error")) EXPECT_TRUE(std::isnan(e));
}

}  // namespace
