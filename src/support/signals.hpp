#pragma once
// What happens when SIGINT, SIGTERM, SIGHUP or SIGQUIT reaches dalembert (docs/architecture.md,
// "Running and the command line"; docs/security.md):
//   - while a StopOnSignal lives (a run), the first SIGINT or SIGTERM only asks the run to stop
//     (stop_requested()), so that its outputs are completed; a second one ends the process;
//   - when one of them ends the process, it first kills the process groups of the children it
//     started (a model's compiler with its cc1, as and ld; the plotting script) and removes the
//     files and folders registered below, then dies of the signal as it would have.
// The handler touches no allocator and no lock: fixed tables, async-signal-safe system calls only.
#include <signal.h>
#include <sys/types.h>

#include <array>
#include <atomic>
#include <string>

namespace dalembert::support {

/// While a StopOnSignal lives, SIGINT and SIGTERM do not end the process: the first one is recorded
/// in requested() (a run reads it through RunOptions::stop and ends after its current step, its
/// outputs complete), and a second one ends the process as before, temporaries removed. Handlers an
/// embedding program installed are left alone. One at a time.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();  ///< restores the previous handlers
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  /// 0, or the number of the first signal received.
  const std::atomic<int>& requested() const;

 private:
  std::array<struct sigaction, 2> previous_{};
  std::array<bool, 2> installed_{};
};

/// The number of the signal that asked the current StopOnSignal to stop, 0 if none: for waits
/// outside a run's steps (a compiler, the plotting script) that must end when a run would.
int stop_requested();

/// While it lives, `path` is removed if one of those signals ends the process. It does not remove
/// the file otherwise (an OutputFile's temporary).
class RemovedOnSignal {
 public:
  explicit RemovedOnSignal(const std::string& path);
  ~RemovedOnSignal();
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;

 private:
  int slot_ = -1;
};

/// A folder `name` in the directory held by `parent`, held itself by `folder` (descriptors, so that
/// no path is resolved again): while it lives, a signal that ends the process removes the folder
/// and the files in it (one level: a compile's source, library and the compiler's temporaries).
/// The descriptors stay the caller's.
class FolderRemovedOnSignal {
 public:
  FolderRemovedOnSignal(int parent, const std::string& name, int folder);
  ~FolderRemovedOnSignal();
  FolderRemovedOnSignal(const FolderRemovedOnSignal&) = delete;
  FolderRemovedOnSignal& operator=(const FolderRemovedOnSignal&) = delete;

 private:
  int slot_ = -1;
};

/// Removes the files in `folder` (one level) and then the folder `name` of `parent`; async-signal-safe.
/// True if the folder is gone.
bool remove_folder(int parent, const char* name, int folder);

/// While it lives, the process group `group` (a child started as the leader of its own group) is
/// killed if one of those signals ends this process, so that no compiler goes on alone.
class GroupKilledOnSignal {
 public:
  explicit GroupKilledOnSignal(pid_t group);
  ~GroupKilledOnSignal();
  GroupKilledOnSignal(const GroupKilledOnSignal&) = delete;
  GroupKilledOnSignal& operator=(const GroupKilledOnSignal&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace dalembert::support
