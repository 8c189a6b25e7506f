#include "support/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>

#include "dalembert/io/errors.hpp"

namespace dalembert::support {

namespace fs = std::filesystem;

namespace {

// --- Temporary files removed when a signal ends the process -----------------------------------
// A fixed table, so that the handler touches no allocator and no lock (async-signal-safe).

constexpr int kCleanupSlots = 64;
struct CleanupSlot {
  std::atomic<bool> used{false};
  char path[4096];
};
std::array<CleanupSlot, kCleanupSlots> cleanup_slots;
constexpr std::array<int, 4> kCleanupSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// Child processes (a model's compiler) ended with the process, so that they do not go on alone.
constexpr int kChildSlots = 8;
std::array<std::atomic<pid_t>, kChildSlots> child_slots{};
static_assert(std::atomic<pid_t>::is_always_lock_free, "read in a signal handler");

extern "C" void remove_temporaries_and_reraise(int signal_number) {
  for (auto& child : child_slots)
    if (const pid_t pid = child.load(std::memory_order_acquire); pid > 0) ::kill(pid, SIGTERM);
  for (auto& slot : cleanup_slots)
    if (slot.used.load(std::memory_order_acquire)) ::unlink(slot.path);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

/// Installs the handler for the signals whose disposition is still the default (an embedding
/// program's own handlers are left alone).
void install_cleanup_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int s : kCleanupSignals) {
      struct sigaction old{};
      if (::sigaction(s, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction action{};
      action.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&action.sa_mask);
      ::sigaction(s, &action, nullptr);
    }
  });
}

int claim_cleanup_slot(const std::string& path) {
  if (path.size() >= sizeof(CleanupSlot::path)) return -1;
  install_cleanup_handler();
  static std::mutex claiming;
  const std::lock_guard lock(claiming);
  if (path.size() >= sizeof(CleanupSlot::path)) return -1;  // longer than any path open() accepts
  for (int i = 0; i < kCleanupSlots; ++i) {
    auto& slot = cleanup_slots[i];
    if (slot.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true, std::memory_order_release);
    return i;
  }
  return -1;  // more than kCleanupSlots files open at once: this one is only removed by ~OutputFile
}

void release_cleanup_slot(int i) {
  if (i >= 0) cleanup_slots[i].used.store(false, std::memory_order_release);
}

int claim_child_slot(pid_t pid) {
  install_cleanup_handler();
  for (int i = 0; i < kChildSlots; ++i) {
    pid_t free = 0;
    if (child_slots[i].compare_exchange_strong(free, pid, std::memory_order_acq_rel)) return i;
  }
  return -1;  // more than kChildSlots children at once: this one is left to finish alone
}

// --- A run asked to stop by SIGINT or SIGTERM --------------------------------------------------

constexpr std::array<int, 2> kStopSignals = {SIGINT, SIGTERM};
std::atomic<int> stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "read and written in a signal handler");

extern "C" void request_stop(int signal_number) {
  int none = 0;
  // the first signal asks the run to stop; a second one ends the process at once
  if (!stop_signal.compare_exchange_strong(none, signal_number)) remove_temporaries_and_reraise(signal_number);
}

// --- Paths ---------------------------------------------------------------------------------------

std::string quoted(const std::string& path) { return "'" + path + "'"; }

[[noreturn]] void refuse(const std::string& option, const std::string& path, const std::string& why) {
  throw BadInput(option + ": " + quoted(path) + " " + why);
}

std::string random_suffix() {
  static std::mutex mutex;
  static std::mt19937_64 random{std::random_device{}()};
  const std::lock_guard lock(mutex);
  static constexpr char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string s;
  for (std::uint64_t x = random(), i = 0; i < 12; ++i, x /= 36) s += digits[x % 36];
  return s;
}

bool written_straight_through(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

}  // namespace

namespace {

/// How a path is written (see output_file.hpp), or BadInput.
struct Target {
  enum Kind { standard_output, straight_through, atomic } kind = atomic;
  mode_t replaced_mode = 0;  ///< the permissions of the regular file replaced, 0 if none
  fs::path directory;        ///< where the temporary file goes (atomic)
};

Target classify(const std::string& option, const std::string& path) {
  if (path.empty()) throw BadInput(option + ": the path is empty");
  if (path == "-") return {Target::standard_output, 0, {}};
  struct stat link{};
  Target target;
  if (::lstat(path.c_str(), &link) == 0) {
    if (S_ISLNK(link.st_mode)) {
      struct stat pointee{};
      if (::stat(path.c_str(), &pointee) != 0 || !written_straight_through(pointee.st_mode))
        refuse(option, path, "is a symbolic link; give the path of the file itself (or - for standard output)");
      link = pointee;
    }
    if (S_ISDIR(link.st_mode)) refuse(option, path, "is a directory; give a file name");
    if (written_straight_through(link.st_mode)) return {Target::straight_through, 0, {}};
    if (!S_ISREG(link.st_mode)) refuse(option, path, "is neither a regular file nor a character device or pipe");
    target.replaced_mode = link.st_mode & 07777;
  } else if (errno != ENOENT) {
    refuse(option, path, std::string("cannot be written: ") + std::strerror(errno));
  }
  const fs::path p(path);
  target.directory = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code error;
  if (!fs::is_directory(target.directory, error))
    refuse(option, path, "cannot be written: the directory " + quoted(target.directory.string()) + " does not exist");
  return target;
}

}  // namespace

void check_output_path(const std::string& option, const std::string& path) { classify(option, path); }

StopOnSignal::StopOnSignal() {
  install_cleanup_handler();
  stop_signal.store(0);
  for (std::size_t i = 0; i < kStopSignals.size(); ++i) {
    struct sigaction old{};
    if (::sigaction(kStopSignals[i], nullptr, &old) != 0) continue;
    if (old.sa_handler != SIG_DFL && old.sa_handler != remove_temporaries_and_reraise) continue;  // not ours
    struct sigaction action{};
    action.sa_handler = request_stop;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (::sigaction(kStopSignals[i], &action, &previous_[i]) == 0) installed_[i] = true;
  }
}

StopOnSignal::~StopOnSignal() {
  for (std::size_t i = 0; i < kStopSignals.size(); ++i)
    if (installed_[i]) ::sigaction(kStopSignals[i], &previous_[i], nullptr);
}

const std::atomic<int>& StopOnSignal::requested() const { return stop_signal; }

OutputFile::OutputFile(const std::string& option, const std::string& path) : option_(option), path_(path) {
  const Target target = classify(option, path);
  if (target.kind == Target::standard_output) {
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) throw BadInput(option + ": cannot write to standard output: " + std::strerror(errno));
    return;
  }
  if (target.kind == Target::straight_through) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) refuse(option, path, std::string("cannot be opened: ") + std::strerror(errno));
    return;
  }
  const std::string name = fs::path(path).filename().string();
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    temporary_ = (target.directory / ("." + name + "." + random_suffix() + ".tmp")).string();
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    const std::string why = std::strerror(errno);
    temporary_.clear();
    refuse(option, path, "cannot be written: " + why);
  }
  cleanup_slot_ = claim_cleanup_slot(temporary_);
  if (target.replaced_mode) ::fchmod(fd_, target.replaced_mode);  // keep the permissions of the file replaced
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty() && !committed_) ::unlink(temporary_.c_str());
  release_cleanup_slot(cleanup_slot_);
}

void OutputFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) refuse(option_, path_, std::string("cannot be written: ") + std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

void OutputFile::commit() {
  if (committed_) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) refuse(option_, path_, std::string("cannot be written: ") + std::strerror(errno));
  if (!temporary_.empty() && ::rename(temporary_.c_str(), path_.c_str()) != 0)
    refuse(option_, path_, std::string("cannot be written: ") + std::strerror(errno));
  committed_ = true;
  release_cleanup_slot(cleanup_slot_);
  cleanup_slot_ = -1;
}

void write_file(const std::string& option, const std::string& path, std::string_view content) {
  OutputFile file(option, path);
  file.write(content);
  file.commit();
}

void prepare_directory(const std::string& option, const std::string& path) {
  if (path.empty()) throw BadInput(option + ": the path is empty");
  std::error_code error;
  const auto status = fs::status(path, error);
  if (fs::is_directory(status)) return;
  if (fs::exists(status)) refuse(option, path, "exists and is not a directory");
  fs::create_directories(path, error);
  if (error) refuse(option, path, "cannot be created: " + error.message());
}

RemovedOnSignal::RemovedOnSignal(const std::string& path) : slot_(claim_cleanup_slot(path)) {}
RemovedOnSignal::~RemovedOnSignal() { release_cleanup_slot(slot_); }

EndedOnSignal::EndedOnSignal(pid_t child) : slot_(claim_child_slot(child)) {}
EndedOnSignal::~EndedOnSignal() {
  if (slot_ >= 0) child_slots[slot_].store(0, std::memory_order_release);
}

}  // namespace dalembert::support
