#pragma once
// The study commands of the command line: reproduce, compare, convergence.
#include <memory>

#include <CLI/CLI.hpp>

namespace dalembert::cli {

struct StudyCommands;

/// Adds the subcommands to `app`; the returned object holds their arguments.
std::shared_ptr<StudyCommands> add_study_commands(CLI::App& app);

/// Runs the study subcommand that was parsed, returning its exit status, or -1 if none was.
int run_study_command(const StudyCommands& commands);

}  // namespace dalembert::cli
