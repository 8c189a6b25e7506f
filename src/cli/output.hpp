#pragma once
// Writing runs: CSV tables and JSON summaries (files go through support/output_file.hpp).
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dalembert/io/trajectory.hpp"
#include "support/output_file.hpp"

namespace dalembert::cli {

void write_csv(std::ostream& out, const Trajectory& trajectory);

/// Writes a run's CSV to `file` as its rows are computed (RunOptions::rows), in blocks of about
/// 1 MB: the memory of a run does not grow with its number of steps.
class CsvRowWriter final : public RowSink {
 public:
  explicit CsvRowWriter(support::OutputFile& file) : file_(file) {}
  void begin(const std::vector<std::string>& columns) override;
  void row(long k, std::span<const double> values) override;
  /// Writes what is buffered, and the header `columns` if the run never began (a start that failed).
  void finish(const std::vector<std::string>& columns);

 private:
  void flush();
  support::OutputFile& file_;
  std::string buffer_;
  bool begun_ = false;
};

nlohmann::ordered_json summary_json(const RunSummary& summary);

}  // namespace dalembert::cli
