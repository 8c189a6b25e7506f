#include "report/figures.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "dalembert/solve/step_limits.hpp"
#include "cli/output.hpp"
#include "support/data.hpp"
#include "support/output_file.hpp"
#include "support/process.hpp"

namespace dalembert::report {

namespace {
/// The last line of a program's output (Python's error is the last line of its traceback).
std::string last_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const auto newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}
}  // namespace

std::string plot_script() {
  if (const char* env = std::getenv("DALEMBERT_PLOT_SCRIPT")) return env;
  return support::find_data_file("plot.py").value_or("");
}

void write_table(const std::string& path, const Trajectory& table) {
  std::ostringstream csv;
  cli::write_csv(csv, table);
  support::write_file("output", path, csv.str());
}

std::string plain_text(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '$' ? std::string("\\$") : std::string(1, c);
  return out;
}

std::string render(const std::vector<Figure>& figures, const std::string& work_dir) {
  if (figures.empty()) return "";
  nlohmann::json specs = nlohmann::json::array();
  for (const auto& f : figures) {
    nlohmann::json j{{"output", f.stem},     {"title", f.title},   {"xlabel", f.xlabel}, {"ylabel", f.ylabel},
                     {"xscale", f.xscale},   {"yscale", f.yscale}, {"aspect_equal", f.aspect_equal}, {"kind", f.kind}};
    j["series"] = nlohmann::json::array();
    for (const auto& s : f.series)
      j["series"].push_back({{"csv", s.csv}, {"x", s.x}, {"y", s.y}, {"label", s.label}, {"style", s.style},
                             {"transform", s.transform.empty() ? nlohmann::json() : nlohmann::json(s.transform)},
                             {"color", s.color.empty() ? nlohmann::json() : nlohmann::json(s.color)},
                             {"z", s.z.empty() ? nlohmann::json() : nlohmann::json(s.z)}});
    specs.push_back(j);
  }
  const std::string script = plot_script();
  if (script.empty()) {
    std::string searched;
    for (const auto& dir : support::data_directories()) searched += (searched.empty() ? "" : ", ") + dir;
    return "the figures were not drawn: no plotting script plot.py found (searched: " +
           (searched.empty() ? std::string("no data folder next to dalembert") : searched) +
           "; set DALEMBERT_PLOT_SCRIPT)";
  }
  const std::string spec_path = work_dir + "/figures.json";
  support::write_file("output", spec_path, specs.dump(1));
  const auto result = support::run_process({"/usr/bin/python3", script, spec_path});
  if (result.stopped) throw Interrupted(result.stopped, "while the figures were being drawn");
  if (!result.started || result.status != 0)
    return "the figures were not drawn (/usr/bin/python3 " + script + " " + spec_path + ", status " +
           std::to_string(result.status) + "; is python3-matplotlib installed?): " + last_line(result.output);
  return "";
}

}  // namespace dalembert::report
