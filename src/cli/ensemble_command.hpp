#pragma once
// The ensemble command of the command line (docs/ensembles.md).
#include <memory>

#include <CLI/CLI.hpp>

namespace dalembert::cli {

struct EnsembleCommand;

/// Adds the subcommand to `app`; the returned object holds its arguments.
std::shared_ptr<EnsembleCommand> add_ensemble_command(CLI::App& app);

/// Runs the ensemble if it was the subcommand parsed, returning its exit status, or -1 if not.
int run_ensemble_command(const EnsembleCommand& command);

}  // namespace dalembert::cli
