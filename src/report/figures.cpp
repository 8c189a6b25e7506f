#include "report/figures.hpp"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/output.hpp"

namespace dalembert::report {

std::string plot_script() {
  if (const char* env = std::getenv("DALEMBERT_PLOT_SCRIPT")) return env;
  return DALEMBERT_SOURCE_DIR "/scripts/plot.py";
}

void write_table(const std::string& path, const Trajectory& table) {
  std::ostringstream csv;
  cli::write_csv(csv, table);
  cli::write_file_atomically(path, csv.str());
}

void render(const std::vector<Figure>& figures, const std::string& work_dir) {
  if (figures.empty()) return;
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
  const std::string spec_path = work_dir + "/figures.json";
  cli::write_file_atomically(spec_path, specs.dump(1));
  const std::string cmd = "/usr/bin/python3 '" + plot_script() + "' '" + spec_path + "'";
  if (std::system(cmd.c_str()) != 0)
    throw std::runtime_error("plotting failed (" + cmd + "); is python3-matplotlib installed?");
}

}  // namespace dalembert::report
