#include "modelfile/native.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "dalembert/solve/step_limits.hpp"
#include "modelfile/layout_text.hpp"
#include "support/digest.hpp"
#include "support/process.hpp"
#include "support/signals.hpp"

namespace dalembert::modelfile {

namespace fs = std::filesystem;
using support::environment;

namespace {

// -O2 lets the compiler share the common subexpressions of the derivative expressions, and
// -fno-math-errno lets it treat sin, cos, pow as pure functions for that. No -ffast-math: the
// kernels must round like the catalogue's own C++.
const std::vector<std::string> kFlags = {"-O2", "-fno-math-errno", "-fPIC", "-shared", "-w"};

// A source this long goes to clang when DALEMBERT_CC names no compiler and clang is on PATH: gcc's
// register allocation takes time that grows faster than the length of a kernel function, and
// clang's does not (docs/decisions.md, Model kernels: cc, and clang for long sources).
constexpr std::size_t kLongSource = std::size_t{512} << 10;

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
  void constraints(int order, const double* q, const double* p, double t, double* out) const override {
    constraints_[order](q, p, t, out);
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

/// A file descriptor, closed when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

std::string error_text() { return std::strerror(errno); }

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

/// Why the directory held by `fd` must not hold the cache, empty if it may: a directory owned by
/// this user that no one else can write to.
std::string unsafe_directory(int fd) {
  struct stat st{};
  if (::fstat(fd, &st) != 0) return "cannot be used: " + error_text();
  if (!S_ISDIR(st.st_mode)) return "is not a directory";
  if (st.st_uid != ::geteuid())
    return "is owned by user " + std::to_string(st.st_uid) + ", not by this user (" + std::to_string(::geteuid()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return "is writable by other users (mode " + mode_text(st.st_mode) + ")";
  return "";
}

/// Why the folders above the directory held by `fd` let someone else replace it, empty if none
/// does: each must belong to root or to this user and, if others may write to it, be sticky (like
/// /tmp, where only an entry's owner may rename it). Walks the directory's real parents ("..")
/// up to the root, so no path is resolved again.
std::string unsafe_parent(int fd) {
  Descriptor current(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  struct stat here{};
  if (!current || ::fstat(current.get(), &here) != 0) return "cannot be checked: " + error_text();
  for (int depth = 0; depth < 256; ++depth) {
    Descriptor parent(::openat(current.get(), "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat up{};
    if (!parent || ::fstat(parent.get(), &up) != 0) return "has a parent folder that cannot be checked: " + error_text();
    if (up.st_dev == here.st_dev && up.st_ino == here.st_ino) return "";  // the root
    if (up.st_uid != 0 && up.st_uid != ::geteuid())
      return "is inside a folder owned by user " + std::to_string(up.st_uid) + ", who could replace it";
    if ((up.st_mode & (S_IWGRP | S_IWOTH)) && !(up.st_mode & S_ISVTX))
      return "is inside a folder that other users can write to without the sticky bit (mode " + mode_text(up.st_mode) +
             "), so they could replace it";
    current = std::move(parent);
    here = up;
  }
  return "is nested too deeply to be checked";
}

/// A file of `folder` owned by this user that no one else can write to, opened for reading without
/// following a link and without blocking (a FIFO planted in its place is refused, not waited on).
Descriptor open_private_file(int folder, const std::string& name) {
  Descriptor fd(::openat(folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st{};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) || static_cast<std::size_t>(st.st_size) > kLargestLibrary)
    return Descriptor();
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

/// Writes a new file of `folder` (it must not exist) readable and writable by this user only.
bool write_new_file(int folder, const std::string& name, const std::string& content) {
  Descriptor f(::openat(folder, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!f) return false;
  for (std::string_view rest = content; !rest.empty();) {
    const ssize_t wrote = ::write(f.get(), rest.data(), rest.size());
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

std::string temporary_directory() {
  std::error_code error;
  const fs::path tmp = fs::temp_directory_path(error);
  return error ? "/tmp" : tmp.string();
}

/// The directory the user asked for (or the default), before any check.
std::string preferred_cache_directory() {
  if (const auto dir = environment("DALEMBERT_CACHE_DIR"); !dir.empty()) return dir;
  if (const auto xdg = environment("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/dalembert";
  if (const auto home = environment("HOME"); !home.empty()) return home + "/.cache/dalembert";
  return temporary_directory() + "/dalembert-cache-" + std::to_string(::geteuid());
}

/// The cache, held open: every later step is relative to this descriptor, so replacing the path
/// (a rename, a link) after the checks changes nothing. Without one (refused, or it cannot be
/// made), models are compiled in a private folder of the temporary directory and not kept.
struct Cache {
  Descriptor folder;
  std::string path;     ///< for messages
  std::string refusal;  ///< why the preferred directory is not used, empty if it is
};

Cache open_cache() {
  Cache cache;
  cache.path = preferred_cache_directory();
  std::error_code error;
  if (const fs::path parent = fs::path(cache.path).parent_path(); !parent.empty()) fs::create_directories(parent, error);
  ::mkdir(cache.path.c_str(), 0700);  // an existing one is checked like a new one
  cache.folder = Descriptor(::open(cache.path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!cache.folder) {
    cache.refusal = errno == ELOOP || errno == ENOTDIR ? "is a symbolic link or not a directory"
                                                       : "cannot be used: " + error_text();
  } else if (cache.refusal = unsafe_directory(cache.folder.get()); cache.refusal.empty()) {
    cache.refusal = unsafe_parent(cache.folder.get());
  }
  if (!cache.refusal.empty()) cache.folder = Descriptor();
  return cache;
}

/// A new folder of this process in which one model is compiled (inside the cache, or in the
/// temporary directory when there is no cache), removed with everything in it when it goes out of
/// scope or when a signal ends the process.
class BuildFolder {
 public:
  /// In the directory held by `parent` (`parent_path` for messages), named `prefix` and a random
  /// suffix; check ok() before use.
  BuildFolder(Descriptor parent, const std::string& parent_path, const std::string& prefix) : parent_(std::move(parent)) {
    for (int attempt = 0; attempt < 16 && !folder_; ++attempt) {
      name_ = prefix + random_suffix();
      if (::mkdirat(parent_.get(), name_.c_str(), 0700) != 0) {
        if (errno == EEXIST) continue;
        break;
      }
      made_ = true;
      folder_ = Descriptor(::openat(parent_.get(), name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    path_ = parent_path + "/" + name_;
    if (folder_ && !unsafe_directory(folder_.get()).empty()) folder_ = Descriptor();
    if (folder_) removed_.emplace(parent_.get(), name_, folder_.get());
  }
  ~BuildFolder() {
    if (folder_) support::remove_folder(parent_.get(), name_.c_str(), folder_.get());
    else if (made_) ::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR);
  }
  BuildFolder(const BuildFolder&) = delete;
  BuildFolder& operator=(const BuildFolder&) = delete;

  bool ok() const { return static_cast<bool>(folder_); }
  int fd() const { return folder_.get(); }
  const std::string& path() const { return path_; }

 private:
  Descriptor parent_, folder_;
  std::string name_, path_;
  bool made_ = false;
  std::optional<support::FolderRemovedOnSignal> removed_;
};

/// The path through which dlopen reaches the file `name` of the folder held by `folder`: it goes
/// through the descriptor, so it names the file that was checked, whatever happened to the
/// folder's path. glibc returns an already loaded library of the same path; `name` is the source's
/// digest, so such a library was compiled from the same source.
std::string path_through(int folder, const std::string& name) {
  return "/proc/self/fd/" + std::to_string(folder) + "/" + name;
}

/// Loads the library `name` of `folder`, whose content the caller has just checked, and checks that
/// it was generated for this layout. `shown` names it in messages.
std::unique_ptr<Evaluator> open_library(int folder, const std::string& name, const std::string& shown,
                                        const Layout& layout, std::string& problem) {
  void* handle = dlopen(path_through(folder, name).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    problem = "cannot load " + shown + ": " + dlerror();
    return nullptr;
  }
  const auto* version = static_cast<const int*>(dlsym(handle, "dalembert_abi_version"));
  const auto* l_size = static_cast<const int*>(dlsym(handle, "dalembert_lagrangian_size"));
  const auto* m_size = static_cast<const int*>(dlsym(handle, "dalembert_constraints_size"));
  const auto* f_size = static_cast<const int*>(dlsym(handle, "dalembert_force_size"));
  if (!version || *version != 2 || !l_size || *l_size != layout.lagrangian_size || !m_size ||
      *m_size != layout.constraints_size || !f_size || *f_size != layout.force_size) {
    dlclose(handle);
    problem = shown + " does not match the model";
    return nullptr;
  }
  return std::make_unique<NativeEvaluator>(handle, shown);
}

std::string digest_record(const std::string& name, const std::string& library_digest) {
  return "dalembert model cache 1\nsource " + name + "\nlibrary " + library_digest + "\n";
}

/// The cached entry `name`, if its digest file and its library agree and both are private.
std::unique_ptr<Evaluator> load_cached(const Cache& cache, const std::string& name, const Layout& layout) {
  const Descriptor record = open_private_file(cache.folder.get(), name + ".digest");
  if (!record) return nullptr;
  const auto text = read_all(record.get());
  const std::string prefix = "dalembert model cache 1\nsource " + name + "\nlibrary ";
  if (!text || text->size() != prefix.size() + 65 || text->compare(0, prefix.size(), prefix) != 0) return nullptr;
  const std::string expected = text->substr(prefix.size(), 64);
  const Descriptor library = open_private_file(cache.folder.get(), name + ".so");
  if (!library) return nullptr;
  const auto bytes = read_all(library.get());
  if (!bytes || support::sha256_hex(*bytes) != expected) return nullptr;
  std::string problem;
  return open_library(cache.folder.get(), name + ".so", cache.path + "/" + name + ".so", layout, problem);
}

/// What names a library besides its source: the compiler and its flags.
std::string kernel_key(const std::string& compiler) {
  std::string key = "dalembert model kernels\n" + compiler + "\n";
  for (const auto& flag : kFlags) key += flag + " ";
  return key;
}

// The first line of a record of a model's analysis; the build's digest of the code that reads,
// analyses and compiles model files (CMakeLists.txt) enters its name.
constexpr std::string_view kRecordHeader = "dalembert model record 1\n";

std::string record_name(const std::string& model_text) {
  return support::sha256_hex(std::string(kRecordHeader) + DALEMBERT_ANALYSIS_DIGEST + "\n" + model_text) + ".model";
}

/// Records in the cache, by renames like the library, that the model of `model_text` has `layout`
/// and its kernels in the library `name` compiled with `key` from a source of `source_bytes`.
void record_model(const Cache& cache, const std::string& model_text, const std::string& name, const std::string& key,
                  std::size_t source_bytes, const Layout& layout) {
  BuildFolder folder(Descriptor(::fcntl(cache.folder.get(), F_DUPFD_CLOEXEC, 0)), cache.path, ".build-");
  const std::string body = layout_text(layout);
  const std::string record = std::string(kRecordHeader) + "library " + name + "\ncompiler " +
                             support::sha256_hex(key) + "\nsource " + std::to_string(source_bytes) + "\nlayout " +
                             support::sha256_hex(body) + "\n" + body;
  if (folder.ok() && write_new_file(folder.fd(), "record", record))
    ::renameat(folder.fd(), "record", cache.folder.get(), record_name(model_text).c_str());
}

/// The line of `text` that starts with `label` (and a space), without them; empty if the next line
/// is not one.
std::string_view record_line(std::string_view& text, std::string_view label) {
  const std::size_t end = text.find('\n');
  if (end == std::string_view::npos || !text.starts_with(label) || text.size() <= label.size() ||
      text[label.size()] != ' ')
    return {};
  const std::string_view value = text.substr(label.size() + 1, end - label.size() - 1);
  text.remove_prefix(end + 1);
  return value;
}

bool is_digest(std::string_view s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

/// The folder for a compile: inside the cache, or, without one, in the temporary directory (then
/// nothing is kept); null, with `problem` said, if none can be made.
std::unique_ptr<BuildFolder> build_folder(const Cache& cache, std::string& problem) {
  std::unique_ptr<BuildFolder> folder;
  if (cache.folder) {
    folder = std::make_unique<BuildFolder>(Descriptor(::fcntl(cache.folder.get(), F_DUPFD_CLOEXEC, 0)), cache.path,
                                           ".build-");
  } else {
    const std::string tmp = temporary_directory();
    folder = std::make_unique<BuildFolder>(Descriptor(::open(tmp.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)), tmp,
                                           "dalembert-build-");
  }
  if (!folder->ok()) {
    problem = "cannot make a private folder " + folder->path() + " to compile the model in: " + error_text();
    return nullptr;
  }
  return folder;
}

}  // namespace

std::string cache_directory() {
  const Cache cache = open_cache();
  return cache.refusal.empty() ? cache.path : "";
}

std::string kernel_compiler(std::size_t source_bytes) {
  const std::string chosen = environment("DALEMBERT_CC");
  if (!chosen.empty()) return chosen;
  return source_bytes >= kLongSource && support::found_on_path("clang") ? "clang" : "cc";
}

std::optional<RecordedModel> recorded_model(const std::string& model_text) {
  const Cache cache = open_cache();
  if (!cache.folder) return std::nullopt;
  const Descriptor file = open_private_file(cache.folder.get(), record_name(model_text));
  const auto bytes = file ? read_all(file.get()) : std::nullopt;
  if (!bytes || !bytes->starts_with(kRecordHeader)) return std::nullopt;
  std::string_view rest = std::string_view(*bytes).substr(kRecordHeader.size());
  const std::string_view name = record_line(rest, "library"), key = record_line(rest, "compiler");
  const std::string_view source = record_line(rest, "source"), body_digest = record_line(rest, "layout");
  std::size_t source_bytes = 0;
  const auto parsed = std::from_chars(source.data(), source.data() + source.size(), source_bytes);
  const bool whole_number = !source.empty() && parsed.ec == std::errc() && parsed.ptr == source.data() + source.size();
  if (!is_digest(name) || !is_digest(key) || !is_digest(body_digest) || !whole_number ||
      support::sha256_hex(rest) != body_digest)
    return std::nullopt;
  // The compiler that would be chosen now must be the one the library was compiled with.
  const std::string compiler = kernel_compiler(source_bytes);
  if (compiler == "none" || support::sha256_hex(kernel_key(compiler)) != key) return std::nullopt;
  auto layout = read_layout_text(rest);
  if (!layout) return std::nullopt;
  RecordedModel recorded{std::move(*layout), {}};
  recorded.build.library = cache.path + "/" + std::string(name) + ".so";
  recorded.build.evaluator = load_cached(cache, std::string(name), recorded.layout);
  if (!recorded.build.evaluator) return std::nullopt;
  return recorded;
}

NativeBuild native_evaluator(const std::string& c_source, const Layout& layout, const std::string& model_text) {
  NativeBuild build;
  const std::string compiler = kernel_compiler(c_source.size());
  if (compiler == "none") {
    build.problem = "compilation disabled (DALEMBERT_CC=none)";
    return build;
  }
  const Cache cache = open_cache();
  const std::string key = kernel_key(compiler);
  const std::string name = support::sha256_hex(key + "\n" + c_source);
  const auto record = [&] {
    if (cache.folder && !model_text.empty()) record_model(cache, model_text, name, key, c_source.size(), layout);
  };
  if (cache.folder) {
    build.library = cache.path + "/" + name + ".so";
    if ((build.evaluator = load_cached(cache, name, layout))) {
      record();
      return build;
    }
  }

  // Compile in a new folder of this process, load what was compiled, then publish it by renames:
  // concurrent runs never load a half-written library, and each loads the library it compiled.
  const auto folder = build_folder(cache, build.problem);
  if (!folder) return build;
  if (!cache.refusal.empty()) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      build.warning = "the model cache " + cache.path + " " + cache.refusal + "; compiling in the new private directory " +
                      folder->path() + ", removed after this run, and keeping nothing";
    build.library = folder->path() + "/" + name + ".so";
  }
  if (!write_new_file(folder->fd(), "source.c", c_source)) {
    build.problem = "cannot write " + folder->path() + "/source.c: " + error_text();
    return build;
  }
  // The compiler runs in the folder (its source, its output and, through TMPDIR, its intermediate
  // files are names in it), so no path it is given leads elsewhere.
  std::vector<std::string> command = support::split_command(compiler);
  command.insert(command.end(), kFlags.begin(), kFlags.end());
  command.insert(command.end(), {"-x", "c", "source.c", "-o", name + ".so", "-lm"});
  support::ProcessOptions options;
  options.working_directory = folder->fd();
  options.environment = {{"TMPDIR", "."}};
  const auto start = std::chrono::steady_clock::now();
  const auto result = support::run_process(command, options);
  build.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.stopped) throw Interrupted(result.stopped, "while the model's kernels were being compiled");
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
  if (const Descriptor written{::openat(folder->fd(), (name + ".so").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)})
    ::fchmod(written.get(), 0700);  // whatever the umask: a library others may write to is never loaded
  const Descriptor compiled = open_private_file(folder->fd(), name + ".so");
  const auto bytes = compiled ? read_all(compiled.get()) : std::nullopt;
  if (!bytes) {
    build.problem = "cannot read the compiled library " + folder->path() + "/" + name + ".so";
    return build;
  }
  build.evaluator = open_library(folder->fd(), name + ".so", build.library, layout, build.problem);
  if (!build.evaluator) return build;
  build.compiled = true;
  if (cache.folder && write_new_file(folder->fd(), "record", digest_record(name, support::sha256_hex(*bytes))) &&
      ::renameat(folder->fd(), (name + ".so").c_str(), cache.folder.get(), (name + ".so").c_str()) == 0 &&
      ::renameat(folder->fd(), "record", cache.folder.get(), (name + ".digest").c_str()) == 0) {
    // kept beside the library for whoever wants to read it
    ::renameat(folder->fd(), "source.c", cache.folder.get(), (name + ".c").c_str());
    record();
  }
  return build;
}

}  // namespace dalembert::modelfile
