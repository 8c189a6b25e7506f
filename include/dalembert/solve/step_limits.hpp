#pragma once
// What ends the loops inside a step from outside them: the run's stop flag (RunOptions::stop, set by
// SIGINT or SIGTERM), and the substeps that the adaptive integrations of one step may take together.
//
// The recorder reads the stop flag after each step, which is too late for a step that takes long or
// does not end; so the loops inside a step read it too: Newton's iterations, shooting, each substep
// of an adaptive integration call throw_if_stop_requested(), which throws Interrupted, and the run
// ends with the rows of its completed steps (status "interrupted").
//
// Each adaptive integration has a limit of its own, but the loops around it (exact's Newton, its
// halvings, the shooting inside each residual and its halvings) would multiply that limit; so the
// integrations of one step also draw their substeps from one allowance, renewed for every step.
//
// Both live in thread-local pointers set by a StepLimits for the duration of a run (the recorder's):
// the loops sit deep below the methods' interfaces, and the runs of an ensemble on several threads
// each have their own. Outside a run nothing is observed and only each integration's own limit holds.
#include <atomic>
#include <stdexcept>
#include <string>

namespace dalembert {

/// Thrown by a loop inside a step when the run's stop flag is set; `signal` is the flag's value.
/// (The command line throws it too for work outside a run that a signal stops, `where` saying which:
/// a model's compile, the figures.)
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int signal, const std::string& where = "inside a step")
      : std::runtime_error("stopped by signal " + std::to_string(signal) + " " + where), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// The substeps that the adaptive integrations of one step of a run may take together (the
/// allowance below; Bulirsch–Stoer's, solve/bulirsch_stoer.hpp), which is also the limit of one
/// output interval of a reference solution outside a run: far more than a smooth motion needs at
/// any tolerance over an interval of a few of its periods, and taken within seconds by a motion too
/// stiff for an explicit method.
inline constexpr long max_step_substeps = 20'000;

namespace detail {
struct SubstepAllowance {
  long per_step;
  long left;
};
constinit inline thread_local const std::atomic<int>* current_stop_flag = nullptr;
constinit inline thread_local SubstepAllowance* current_allowance = nullptr;
}  // namespace detail

/// While it lives, `stop` (may be null) is the stop flag of this thread's loops, and the adaptive
/// integrations of each step may take `substeps_per_step` substeps together (renew_step_substeps()
/// starts a step's allowance).
class StepLimits {
 public:
  StepLimits(const std::atomic<int>* stop, long substeps_per_step)
      : allowance_{substeps_per_step, substeps_per_step},
        previous_stop_(detail::current_stop_flag),
        previous_allowance_(detail::current_allowance) {
    detail::current_stop_flag = stop;
    detail::current_allowance = &allowance_;
  }
  ~StepLimits() {
    detail::current_stop_flag = previous_stop_;
    detail::current_allowance = previous_allowance_;
  }
  StepLimits(const StepLimits&) = delete;
  StepLimits& operator=(const StepLimits&) = delete;

 private:
  detail::SubstepAllowance allowance_;
  const std::atomic<int>* previous_stop_;
  detail::SubstepAllowance* previous_allowance_;
};

namespace detail {
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_interrupted(int signal) { throw Interrupted(signal); }
}  // namespace detail

/// Throws Interrupted if this thread's run was asked to stop. On the path of every Newton
/// iteration: a load and a test, the throw out of line.
inline void throw_if_stop_requested() {
  if (const std::atomic<int>* flag = detail::current_stop_flag) {
    if (const int signal = flag->load(std::memory_order_relaxed); signal != 0) [[unlikely]]
      detail::throw_interrupted(signal);
  }
}

/// Takes one substep from the allowance of the step under way: false (and nothing taken) when it
/// is spent. Always true outside a run.
inline bool take_step_substep() {
  detail::SubstepAllowance* allowance = detail::current_allowance;
  if (!allowance) return true;
  if (allowance->left <= 0) return false;
  --allowance->left;
  return true;
}

/// Renews the allowance for the next step (the recorder calls it after each row).
inline void renew_step_substeps() {
  if (detail::SubstepAllowance* allowance = detail::current_allowance) allowance->left = allowance->per_step;
}

/// Whether the allowance of the step under way is spent (never outside a run).
inline bool step_substeps_spent() {
  return detail::current_allowance && detail::current_allowance->left <= 0;
}

/// The allowance of a step, for messages (0 outside a run).
inline long step_substeps() {
  return detail::current_allowance ? detail::current_allowance->per_step : 0;
}

}  // namespace dalembert
