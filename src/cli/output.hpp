#pragma once
// Writing runs: CSV tables and JSON summaries (files go through support/output_file.hpp).
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "dalembert/io/trajectory.hpp"

namespace dalembert::cli {

void write_csv(std::ostream& out, const Trajectory& trajectory);

nlohmann::ordered_json summary_json(const RunSummary& summary);

}  // namespace dalembert::cli
