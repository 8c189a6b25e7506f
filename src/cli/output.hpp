#pragma once
// Writing runs: CSV tables and JSON summaries (files go through support/output_file.hpp).
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dalembert/io/run_options.hpp"
#include "dalembert/io/trajectory.hpp"
#include "support/output_file.hpp"

namespace dalembert::cli {

void write_csv(std::ostream& out, const Trajectory& trajectory);

/// A run's rows, written as they are computed (RunOptions::rows); finish() completes the output.
class RunRowWriter : public RowSink {
 public:
  /// Writes what is left, and the header `columns` if the run never began (a start that failed).
  virtual void finish(const std::vector<std::string>& columns) = 0;
};

/// The formats of `run --out`.
enum class OutputFormat { csv, npz };

/// The format of --out `path`: `format` (--format csv|npz) if given, else by the extension (.npz
/// is NumPy's, .csv, no extension, a device or standard output CSV). Throws BadInput for another
/// extension or format.
OutputFormat output_format(const std::string& path, const std::string& format);

/// CSV, written to `file` in blocks of about 1 MB: the memory of a run does not grow with its number
/// of steps.
class CsvRowWriter final : public RunRowWriter {
 public:
  explicit CsvRowWriter(support::OutputFile& file) : file_(file) {}
  void begin(const std::vector<std::string>& columns) override;
  void row(long k, std::span<const double> values) override;
  void finish(const std::vector<std::string>& columns) override;

 private:
  void flush();
  support::OutputFile& file_;
  std::string buffer_;
  bool begun_ = false;
};

/// NumPy's .npz: an array of float64 per column, named as the CSV's columns, in their order
/// (numpy.load(path)["energy"]). The rows go to an unnamed temporary file as they come (the memory
/// does not grow with the run), and finish() writes the archive (stored, not compressed; without
/// ZIP64, so at most 4 GiB in all: BadInput beyond).
class NpzRowWriter final : public RunRowWriter {
 public:
  explicit NpzRowWriter(support::OutputFile& file);
  ~NpzRowWriter() override;
  void begin(const std::vector<std::string>& columns) override;
  void row(long k, std::span<const double> values) override;
  void finish(const std::vector<std::string>& columns) override;

 private:
  void flush();
  support::OutputFile& file_;
  int rows_fd_ = -1;
  std::vector<std::string> columns_;
  std::vector<double> buffer_;
  std::size_t rows_ = 0;
};

nlohmann::ordered_json summary_json(const RunSummary& summary);

/// The options of a run as its provenance records them: method, h, t0, steps, every, then every
/// method option (io/method_options.hpp) and the reference solver's tolerance.
nlohmann::ordered_json run_options_json(const RunOptions& options);

}  // namespace dalembert::cli
