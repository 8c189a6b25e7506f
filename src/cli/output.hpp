#pragma once
// Writing runs: CSV tables, JSON summaries, atomically (temporary file + rename).
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "dalembert/io/trajectory.hpp"

namespace dalembert::cli {

void write_csv(std::ostream& out, const Trajectory& trajectory);

nlohmann::ordered_json summary_json(const RunSummary& summary);

/// Writes `content` to `path` through a temporary file in the same directory and a rename, so
/// that readers never see a half-written file.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace dalembert::cli
