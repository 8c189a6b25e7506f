#include "catalogue/catalogue.hpp"

#include "modelfile/entry.hpp"
#include "support/data.hpp"
#include "support/output_file.hpp"
#include "support/text.hpp"

namespace dalembert::catalogue {

Entry particle_entry();
Entry knife_edge_entry();
Entry perturbed_knife_edge_entry();
Entry vertical_disk_entry();
Entry chaplygin_sleigh_entry();
Entry pendulum_entry();
Entry harmonic_oscillator_entry();
Entry satellite_entry();
Entry suslov_entry();
Entry rigid_body_attitude_constraint_entry();
Entry curvature_particle_entry();
Entry inertia_wheel_pendulum_entry();
Entry contact_particle_entry();
Entry damped_oscillator_entry();
Entry damped_oscillator_2d_entry();
Entry damped_knife_edge_entry();
Entry knife_edge_chain_entry();
Entry contact_oscillator_entry();
Entry non_reversible_contact_oscillator_entry();

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all = {
      particle_entry(),
      knife_edge_entry(),
      perturbed_knife_edge_entry(),
      vertical_disk_entry(),
      chaplygin_sleigh_entry(),
      pendulum_entry(),
      harmonic_oscillator_entry(),
      satellite_entry(),
      suslov_entry(),
      rigid_body_attitude_constraint_entry(),
      curvature_particle_entry(),
      inertia_wheel_pendulum_entry(),
      contact_particle_entry(),
      damped_oscillator_entry(),
      damped_oscillator_2d_entry(),
      damped_knife_edge_entry(),
      knife_edge_chain_entry(),
      contact_oscillator_entry(),
      non_reversible_contact_oscillator_entry(),
  };
  return all;
}

const Entry& find(const std::string& name) {
  for (const auto& e : entries())
    if (e.name == name) return e;
  std::string path = name;
  if (!modelfile::is_model_file_name(name)) {
    // a model file by its name: models/NAME.toml here, or among dalembert's installed model files
    for (const auto& file : support::named_model_files())
      if (file.name == name) path = file.path;
  }
  if (modelfile::is_model_file_name(path)) {
    support::protect_input("the model file", path);  // no output of the command may replace it
    return modelfile::model_file_entry(path);
  }
  std::vector<std::string> names;
  std::string known;
  for (const auto& e : entries()) {
    names.push_back(e.name);
    known += (known.empty() ? "" : ", ") + e.name;
  }
  std::string files;
  for (const auto& file : support::named_model_files()) {
    names.push_back(file.name);
    files += (files.empty() ? "" : ", ") + file.name;
  }
  throw BadInput("unknown system '" + name + "'" + support::did_you_mean(name, names) + " (known: " + known +
                 (files.empty() ? "" : "; model files: " + files) + "; or the path of a model file, docs/model-files.md)");
}

}  // namespace dalembert::catalogue
