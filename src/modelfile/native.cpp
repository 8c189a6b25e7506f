#include "modelfile/native.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <vector>

#include "support/digest.hpp"
#include "support/output_file.hpp"
#include "support/process.hpp"

namespace dalembert::modelfile {

namespace fs = std::filesystem;
using support::environment;

namespace {

// -O2 lets the compiler share the common subexpressions of the derivative expressions, and
// -fno-math-errno lets it treat sin, cos, pow as pure functions for that. No -ffast-math: the
// kernels must round like the catalogue's own C++.
const std::vector<std::string> kFlags = {"-O2", "-fno-math-errno", "-fPIC", "-shared", "-w"};

// Libraries larger than this are not read back (a generated kernel library is well under 10 MB).
constexpr std::size_t kLargestLibrary = std::size_t{256} << 20;

using KernelFn = void (*)(const double*, const double*, double, double*);

class NativeEvaluator : public Evaluator {
 public:
  NativeEvaluator(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {
    for (int order = 0; order <= max_taylor_order; ++order) {
      lagrangian_[order] = symbol("dalembert_lagrangian_" + std::to_string(order));
      constraints_[order] = symbol("dalembert_constraints_" + std::to_string(order));
      mechanics_[order] = symbol("dalembert_mechanics_" + std::to_string(order));
      force_[order] = symbol("dalembert_force_" + std::to_string(order));
    }
    derived_ = symbol("dalembert_derived");
    solution_ = symbol("dalembert_solution");
    initial_ = symbol("dalembert_initial");
  }
  ~NativeEvaluator() override { dlclose(handle_); }

  void lagrangian(int order, const double* x, const double* p, double* out) const override {
    lagrangian_[order](x, p, 0.0, out);
  }
  void constraints(int order, const double* q, const double* p, double* out) const override {
    constraints_[order](q, p, 0.0, out);
  }
  void mechanics(int order, const double* q, const double* p, double* out) const override {
    mechanics_[order](q, p, 0.0, out);
  }
  void force(int order, const double* x, const double* p, double t, double* out) const override {
    force_[order](x, p, t, out);
  }
  void derived(const double* x, const double* p, double t, double* out) const override { derived_(x, p, t, out); }
  void solution(const double* x0, const double* p, double t, double* out) const override { solution_(x0, p, t, out); }
  void initial(const double* p, double* out) const override { initial_(nullptr, p, 0.0, out); }
  std::string kind() const override { return "native (" + path_ + ")"; }

 private:
  KernelFn symbol(const std::string& name) const {
    void* f = dlsym(handle_, name.c_str());
    if (!f) throw std::runtime_error("model library " + path_ + " has no " + name);
    return reinterpret_cast<KernelFn>(f);
  }

  void* handle_;
  std::string path_;
  std::array<KernelFn, max_taylor_order + 1> lagrangian_{}, constraints_{}, mechanics_{}, force_{};
  KernelFn derived_ = nullptr, solution_ = nullptr, initial_ = nullptr;
};

/// Closes a file descriptor when it goes out of scope.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string error_text() { return std::strerror(errno); }

/// Why `dir` must not hold the cache, empty if it may: a directory (not a link) owned by this user
/// that no one else can write to.
std::string unsafe_reason(const std::string& dir) {
  struct stat st{};
  if (::lstat(dir.c_str(), &st) != 0) return "cannot be used: " + error_text();
  if (S_ISLNK(st.st_mode)) return "is a symbolic link";
  if (!S_ISDIR(st.st_mode)) return "is not a directory";
  if (st.st_uid != ::geteuid())
    return "is owned by user " + std::to_string(st.st_uid) + ", not by this user (" + std::to_string(::geteuid()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("is writable by other users (mode ") + mode + ")";
  }
  return "";
}

/// A file owned by this user that no one else can write to, opened without following a link;
/// -1 otherwise.
int open_private_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) ||
      static_cast<std::size_t>(st.st_size) > kLargestLibrary) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::optional<std::string> read_all(int fd) {
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::nullopt;
    if (got == 0) return bytes;
    bytes.append(buffer, static_cast<std::size_t>(got));
    if (bytes.size() > kLargestLibrary) return std::nullopt;
  }
}

/// Writes a new file (it must not exist) readable and writable by this user only.
bool write_new_file(const std::string& path, const std::string& content) {
  Descriptor f{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)};
  if (f.fd < 0) return false;
  for (std::string_view rest = content; !rest.empty();) {
    const ssize_t wrote = ::write(f.fd, rest.data(), rest.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    rest.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return true;
}

std::string random_suffix() {
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  static std::mt19937_64 random{std::random_device{}()};
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(random()));
  return text;
}

/// The directory the user asked for (or the default), before any check.
std::string preferred_cache_directory() {
  if (const auto dir = environment("DALEMBERT_CACHE_DIR"); !dir.empty()) return dir;
  if (const auto xdg = environment("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/dalembert";
  if (const auto home = environment("HOME"); !home.empty()) return home + "/.cache/dalembert";
  std::error_code error;
  const fs::path tmp = fs::temp_directory_path(error);
  return ((error ? fs::path("/tmp") : tmp) / ("dalembert-cache-" + std::to_string(::geteuid()))).string();
}

/// A new directory of this process, removed when it exits.
struct PrivateFallback {
  std::string path;
  ~PrivateFallback() {
    std::error_code error;
    if (!path.empty()) fs::remove_all(path, error);
  }
};

struct CacheDirectory {
  std::string path;     ///< empty: none could be made
  std::string warning;  ///< why the preferred one was refused
};

/// The cache directory for the current settings, checked; a refused one is replaced by a private
/// directory of this process, made once per refused directory.
CacheDirectory private_cache() {
  static std::mutex mutex;
  static std::map<std::string, PrivateFallback> fallbacks;  // removed when the process exits
  const std::string preferred = preferred_cache_directory();
  std::error_code error;
  const fs::path parent = fs::path(preferred).parent_path();
  if (!parent.empty()) fs::create_directories(parent, error);
  ::mkdir(preferred.c_str(), 0700);  // an existing one is checked like a new one
  const std::string why = unsafe_reason(preferred);
  if (why.empty()) return CacheDirectory{preferred, ""};
  const std::lock_guard lock(mutex);
  PrivateFallback& fallback = fallbacks[preferred];
  if (fallback.path.empty()) {
    const fs::path tmp = fs::temp_directory_path(error);
    std::string pattern = ((error ? fs::path("/tmp") : tmp) / "dalembert-cache-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      return CacheDirectory{"", "the model cache " + preferred + " " + why + ", and no private directory could be made"};
    fallback.path = pattern;
  }
  return CacheDirectory{fallback.path, "the model cache " + preferred + " " + why + "; using the new private directory " +
                                           fallback.path + " for this run"};
}

/// Loads a library whose content was just checked and checks that it was generated for this
/// layout. By its path: the directory is private, so the name still refers to what was checked.
/// (Not through /proc/self/fd: glibc finds an already loaded library by its name, and a
/// descriptor's number is reused.)
std::unique_ptr<Evaluator> open_library(const std::string& path, const std::string& cached_name, const Layout& layout,
                                        std::string& problem) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    problem = std::string("cannot load ") + path + ": " + dlerror();
    return nullptr;
  }
  const auto* version = static_cast<const int*>(dlsym(handle, "dalembert_abi_version"));
  const auto* l_size = static_cast<const int*>(dlsym(handle, "dalembert_lagrangian_size"));
  const auto* m_size = static_cast<const int*>(dlsym(handle, "dalembert_constraints_size"));
  const auto* f_size = static_cast<const int*>(dlsym(handle, "dalembert_force_size"));
  if (!version || *version != 2 || !l_size || *l_size != layout.lagrangian_size || !m_size ||
      *m_size != layout.constraints_size || !f_size || *f_size != layout.force_size) {
    dlclose(handle);
    problem = path + " does not match the model";
    return nullptr;
  }
  return std::make_unique<NativeEvaluator>(handle, cached_name);
}

std::string digest_record(const std::string& name, const std::string& library_digest) {
  return "dalembert model cache 1\nsource " + name + "\nlibrary " + library_digest + "\n";
}

/// The cached entry `name`, if its digest file and its library agree and both are private.
std::unique_ptr<Evaluator> load_cached(const std::string& stem, const std::string& name, const Layout& layout) {
  Descriptor record{open_private_file(stem + ".digest")};
  if (record.fd < 0) return nullptr;
  const auto text = read_all(record.fd);
  const std::string prefix = "dalembert model cache 1\nsource " + name + "\nlibrary ";
  if (!text || text->size() != prefix.size() + 65 || text->compare(0, prefix.size(), prefix) != 0) return nullptr;
  const std::string expected = text->substr(prefix.size(), 64);
  Descriptor library{open_private_file(stem + ".so")};
  if (library.fd < 0) return nullptr;
  const auto bytes = read_all(library.fd);
  if (!bytes || support::sha256_hex(*bytes) != expected) return nullptr;
  std::string problem;
  return open_library(stem + ".so", stem + ".so", layout, problem);
}

}  // namespace

std::string cache_directory() { return private_cache().path; }

NativeBuild native_evaluator(const std::string& c_source, const Layout& layout) {
  NativeBuild build;
  std::string compiler = environment("DALEMBERT_CC");
  if (compiler.empty()) compiler = "cc";
  if (compiler == "none") {
    build.problem = "compilation disabled (DALEMBERT_CC=none)";
    return build;
  }
  const CacheDirectory cache = private_cache();
  static std::atomic<bool> warned{false};
  if (!cache.warning.empty() && !warned.exchange(true)) build.warning = cache.warning;
  if (cache.path.empty()) {
    build.problem = cache.warning;
    return build;
  }
  std::string key = "dalembert model kernels\n" + compiler + "\n";
  for (const auto& flag : kFlags) key += flag + " ";
  const std::string name = support::sha256_hex(key + "\n" + c_source);
  const std::string stem = cache.path + "/" + name;
  build.library = stem + ".so";
  if ((build.evaluator = load_cached(stem, name, layout))) return build;

  // Compile under new names of this process, load what was compiled, then publish it by renames:
  // concurrent runs never load a half-written library, and each loads the library it compiled.
  const std::string unique = "." + random_suffix();
  const std::string source = stem + unique + ".c", library = stem + unique + ".so", record = stem + unique + ".digest";
  // A signal that ends the process while the compiler runs removes them too (and ends the compiler).
  const support::RemovedOnSignal removed_source(source), removed_library(library), removed_record(record);
  struct Cleanup {
    std::vector<std::string> paths;
    ~Cleanup() {
      for (const auto& p : paths) ::unlink(p.c_str());
    }
  } cleanup{{source, library, record}};
  if (!write_new_file(source, c_source)) {
    build.problem = "cannot write " + source + ": " + error_text();
    return build;
  }
  std::vector<std::string> command = support::split_command(compiler);
  command.insert(command.end(), kFlags.begin(), kFlags.end());
  command.insert(command.end(), {"-x", "c", source, "-o", library, "-lm"});
  const auto start = std::chrono::steady_clock::now();
  const auto result = support::run_process(command);
  build.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.started) {
    build.problem = "no C compiler '" + compiler + "' found";
    return build;
  }
  if (result.status != 0) {
    build.problem = "the compiler '" + compiler + "' failed (" +
                    (result.signal ? "signal " + std::to_string(result.signal) : "status " + std::to_string(result.status)) +
                    "): " + result.output.substr(0, 600);
    return build;
  }
  ::chmod(library.c_str(), 0700);  // whatever the umask: the checks refuse group-writable libraries
  Descriptor compiled{open_private_file(library)};
  const auto bytes = compiled.fd >= 0 ? read_all(compiled.fd) : std::nullopt;
  if (!bytes) {
    build.problem = "cannot read the compiled library " + library;
    return build;
  }
  build.evaluator = open_library(library, build.library, layout, build.problem);
  if (!build.evaluator) return build;
  build.compiled = true;
  if (write_new_file(record, digest_record(name, support::sha256_hex(*bytes))) &&
      ::rename(library.c_str(), (stem + ".so").c_str()) == 0 && ::rename(record.c_str(), (stem + ".digest").c_str()) == 0)
    ::rename(source.c_str(), (stem + ".c").c_str());  // kept beside the library for whoever wants to read it
  return build;
}

}  // namespace dalembert::modelfile
