#include "cli/output.hpp"

#include <charconv>
#include <span>
#include <sstream>

namespace dalembert::cli {

namespace {

void append_header(std::string& out, const std::vector<std::string>& columns) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c) out += ',';
    out += columns[c];
  }
  out += '\n';
}

void append_row(std::string& out, std::span<const double> values) {
  char buf[32];
  for (std::size_t c = 0; c < values.size(); ++c) {
    if (c) out += ',';
    // Shortest representation that reads back to the same double.
    const auto res = std::to_chars(buf, buf + sizeof buf, values[c]);
    out.append(buf, res.ptr);
  }
  out += '\n';
}

constexpr std::size_t kBlockBytes = 1 << 20;

}  // namespace

void write_csv(std::ostream& out, const Trajectory& t) {
  std::string line;
  append_header(line, t.columns);
  out << line;
  const std::size_t width = t.columns.size();
  for (std::size_t r = 0; r < t.rows(); ++r) {
    line.clear();
    append_row(line, std::span(t.values).subspan(r * width, width));
    out << line;
  }
}

void CsvRowWriter::begin(const std::vector<std::string>& columns) {
  append_header(buffer_, columns);
  begun_ = true;
}

void CsvRowWriter::row(long, std::span<const double> values) {
  append_row(buffer_, values);
  if (buffer_.size() >= kBlockBytes) flush();
}

void CsvRowWriter::finish(const std::vector<std::string>& columns) {
  if (!begun_) begin(columns);
  flush();
}

void CsvRowWriter::flush() {
  file_.write(buffer_);
  buffer_.clear();
}

nlohmann::ordered_json summary_json(const RunSummary& s) {
  nlohmann::ordered_json j;
  j["system"] = s.system;
  j["method"] = s.method;
  j["h"] = s.h;
  j["steps"] = s.steps;
  j["energy0"] = s.energy0;
  j["max_energy_error"] = s.max_energy_error;
  j["max_constraint_residual"] = s.max_constraint_residual;
  if (s.max_discrete_constraint) j["max_discrete_constraint"] = *s.max_discrete_constraint;
  if (s.energy_decay_rate) j["energy_decay_rate"] = *s.energy_decay_rate;
  j["newton_iterations"] = {{"mean", s.newton_iterations_mean}, {"max", s.newton_iterations_max}};
  j["wall_time_seconds"] = s.wall_time_seconds;
  j["status"] = s.status;
  if (!s.message.empty()) j["message"] = s.message;
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const auto& w : s.warnings)
    warnings.push_back({{"kind", w.kind}, {"step", w.step}, {"t", w.t}, {"message", w.message}});
  j["warnings"] = warnings;
  return j;
}

}  // namespace dalembert::cli
