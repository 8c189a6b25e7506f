#pragma once
// The options that describe a run, registered on every command that runs something (run,
// compare, convergence, ensemble) and checked in one place: every bad value is a BadInput that
// names the option and the value.
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "dalembert/io/method_options.hpp"

namespace dalembert::cli {

/// A command-line value and whether it was given at all (--q0 '' is an error, not the default).
struct Given {
  std::string text;
  CLI::Option* option = nullptr;
  bool given() const { return option && option->count() > 0; }
};

/// The groups of run options a command takes.
enum RunOptionGroup : unsigned {
  kMethod = 1u << 0,          ///< --method
  kStepCount = 1u << 1,       ///< --steps or --t-end (with --h)
  kStepSize = 1u << 2,        ///< --h
  kEvery = 1u << 3,           ///< --every
  kInitialData = 1u << 4,     ///< --q0, --v0, --project-v0
  kStartOptions = 1u << 5,    ///< --q1, --z0, --t0
  kMethodOptions = 1u << 6,   ///< every option of io/method_options.hpp: --alpha, --rule, --tolerance, ...
  kParameters = 1u << 7,      ///< --param
  kOptionalStep = 1u << 8,    ///< --method and --h, both or neither (steady: the eigenvalues of a step)
};

class RunArguments {
 public:
  /// Registers the options of `groups` on `command`.
  void add_to(CLI::App& command, unsigned groups);

  /// The options given, checked, over the defaults of RunOptions. Throws BadInput.
  RunOptions options() const;
  /// --q0, --v0, --q1, --z0, --project-v0 as given (empty where not given: the system's defaults).
  InitialData initial() const;
  /// --param name=value ...
  std::vector<std::pair<std::string, double>> parameters() const;
  /// Whether --method and --h were given (kOptionalStep); throws BadInput when only one was.
  bool step_given() const;

  /// The number of steps for a final time T: T/h, which must be within 1e-8 T/h of a whole number.
  /// Throws BadInput if T is not positive, not such a multiple of h, or the count is too large.
  static long steps_for(double t_end, double h, const std::string& t_end_text, const std::string& h_text);

 private:
  unsigned groups_ = 0;
  Given method_, h_, steps_, t_end_, every_, q0_, v0_, q1_, z0_, t0_;
  std::array<Given, method_options.size()> method_options_;  ///< in the order of method_options
  bool project_v0_ = false;
  std::vector<std::string> params_;
};

}  // namespace dalembert::cli
