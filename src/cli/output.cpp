#include "cli/output.hpp"

#include <charconv>
#include <sstream>

namespace dalembert::cli {

void write_csv(std::ostream& out, const Trajectory& t) {
  for (std::size_t c = 0; c < t.columns.size(); ++c) out << (c ? "," : "") << t.columns[c];
  out << '\n';
  std::string line;
  char buf[32];
  for (std::size_t r = 0; r < t.rows(); ++r) {
    line.clear();
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      if (c) line += ',';
      // Shortest representation that reads back to the same double.
      const auto res = std::to_chars(buf, buf + sizeof buf, t.at(r, c));
      line.append(buf, res.ptr);
    }
    line += '\n';
    out << line;
  }
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
  return j;
}

}  // namespace dalembert::cli
