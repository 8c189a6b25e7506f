#include "support/signals.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>

namespace dalembert::support {

namespace {

// --- What a signal that ends the process cleans up: fixed tables, claimed and released by the
// threads that register something, read by the handler. -----------------------------------------

constexpr std::array<int, 4> kCleanupSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

constexpr int kFileSlots = 64;
struct FileSlot {
  std::atomic<bool> used{false};
  char path[4096];
};
std::array<FileSlot, kFileSlots> file_slots;

constexpr int kFolderSlots = 8;
struct FolderSlot {
  std::atomic<bool> used{false};
  int parent = -1, folder = -1;
  char name[256];
};
std::array<FolderSlot, kFolderSlots> folder_slots;

constexpr int kGroupSlots = 8;
std::array<std::atomic<pid_t>, kGroupSlots> group_slots{};
static_assert(std::atomic<pid_t>::is_always_lock_free, "read in a signal handler");

extern "C" void clean_up_and_reraise(int signal_number) {
  // The children first: a compiler still running would write into the folders removed next.
  for (auto& group : group_slots)
    if (const pid_t pid = group.load(std::memory_order_acquire); pid > 0) ::kill(-pid, SIGKILL);
  for (auto& slot : folder_slots)
    if (slot.used.load(std::memory_order_acquire)) remove_folder(slot.parent, slot.name, slot.folder);
  for (auto& slot : file_slots)
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
      action.sa_handler = clean_up_and_reraise;
      sigemptyset(&action.sa_mask);
      ::sigaction(s, &action, nullptr);
    }
  });
}

/// The index of a free slot of `slots`, marked used after `fill` wrote it; -1 if all are taken (the
/// thing is then only cleaned up by its owner's destructor).
template <class Slots, class Fill>
int claim(Slots& slots, Fill&& fill) {
  install_cleanup_handler();
  static std::mutex claiming;
  const std::lock_guard lock(claiming);
  for (std::size_t i = 0; i < slots.size(); ++i) {
    auto& slot = slots[i];
    if (slot.used.load(std::memory_order_relaxed)) continue;
    fill(slot);
    slot.used.store(true, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

// --- A run asked to stop by SIGINT or SIGTERM --------------------------------------------------

constexpr std::array<int, 2> kStopSignals = {SIGINT, SIGTERM};
std::atomic<int> stop_signal{0};
std::atomic<bool> stop_active{false};
static_assert(std::atomic<int>::is_always_lock_free, "read and written in a signal handler");

extern "C" void request_stop(int signal_number) {
  int none = 0;
  // the first signal asks the run to stop; a second one ends the process at once
  if (!stop_signal.compare_exchange_strong(none, signal_number)) clean_up_and_reraise(signal_number);
}

}  // namespace

bool remove_folder(int parent, const char* name, int folder) {
  // Entries unlinked while the folder is read may be skipped by the reading: read it again until
  // the folder can be removed (a killed compiler may also still be closing its files).
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (::lseek(folder, 0, SEEK_SET) == 0) {
      alignas(dirent64) char buffer[4096];
      for (ssize_t got; (got = ::getdents64(folder, buffer, sizeof buffer)) > 0;) {
        for (ssize_t at = 0; at < got;) {
          const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
          at += entry->d_reclen;
          const char* n = entry->d_name;
          if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
          ::unlinkat(folder, n, 0);
        }
      }
    }
    if (::unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return true;
    if (errno != ENOTEMPTY && errno != EEXIST) return false;
    const timespec pause{0, 10'000'000};
    ::nanosleep(&pause, nullptr);
  }
  return false;
}

StopOnSignal::StopOnSignal() {
  install_cleanup_handler();
  stop_signal.store(0);
  stop_active.store(true);
  for (std::size_t i = 0; i < kStopSignals.size(); ++i) {
    struct sigaction old{};
    if (::sigaction(kStopSignals[i], nullptr, &old) != 0) continue;
    if (old.sa_handler != SIG_DFL && old.sa_handler != clean_up_and_reraise) continue;  // not ours
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
  stop_active.store(false);
}

const std::atomic<int>& StopOnSignal::requested() const { return stop_signal; }

int stop_requested() { return stop_active.load() ? stop_signal.load(std::memory_order_relaxed) : 0; }

RemovedOnSignal::RemovedOnSignal(const std::string& path) {
  if (path.size() >= sizeof(FileSlot::path)) return;  // longer than any path open() accepts
  slot_ = claim(file_slots, [&](FileSlot& slot) { std::memcpy(slot.path, path.c_str(), path.size() + 1); });
}
RemovedOnSignal::~RemovedOnSignal() {
  if (slot_ >= 0) file_slots[slot_].used.store(false, std::memory_order_release);
}

FolderRemovedOnSignal::FolderRemovedOnSignal(int parent, const std::string& name, int folder) {
  if (name.size() >= sizeof(FolderSlot::name)) return;
  slot_ = claim(folder_slots, [&](FolderSlot& slot) {
    slot.parent = parent;
    slot.folder = folder;
    std::memcpy(slot.name, name.c_str(), name.size() + 1);
  });
}
FolderRemovedOnSignal::~FolderRemovedOnSignal() {
  if (slot_ >= 0) folder_slots[slot_].used.store(false, std::memory_order_release);
}

GroupKilledOnSignal::GroupKilledOnSignal(pid_t group) {
  install_cleanup_handler();
  for (int i = 0; i < kGroupSlots; ++i) {
    pid_t free = 0;
    if (group_slots[i].compare_exchange_strong(free, group, std::memory_order_acq_rel)) {
      slot_ = i;
      return;
    }
  }
}
GroupKilledOnSignal::~GroupKilledOnSignal() {
  if (slot_ >= 0) group_slots[slot_].store(0, std::memory_order_release);
}

}  // namespace dalembert::support
