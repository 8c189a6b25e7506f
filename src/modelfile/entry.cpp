#include "modelfile/entry.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "catalogue/steady_motion.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/model.hpp"
#include "modelfile/run.hpp"
#include "support/data.hpp"
#include "support/named_velocities.hpp"

namespace dalembert::modelfile {

namespace fs = std::filesystem;

namespace {

std::string coordinate_list(const ModelSpec& spec) {
  std::string s;
  for (const auto& c : spec.coordinates) s += (s.empty() ? "" : ", ") + c;
  return s;
}

void check_size(const ModelSpec& spec, const char* option, const Eigen::VectorXd& x) {
  if (x.size() != spec.n())
    throw BadInput(std::string(option) + " has " + std::to_string(x.size()) + " value(s) but the model file " +
                   spec.path + " has " + std::to_string(spec.n()) + " coordinates (" + coordinate_list(spec) + ")");
}

/// --v0 by names (InitialData::v0_names): the velocities left out solved from M(q0) v0 = 0.
void complete_initial_velocity(const BoundModel& bound, InitialData& init) {
  const LoadedModel& model = *bound.model;
  const std::string system = "the model file " + model.spec.path;
  if (model.layout.contact)
    throw BadInput("--v0 by names solves the velocities left out from the linear velocity constraints of a system "
                   "on TQ; " + system + " is a contact system: give all of v0");
  if (init.q1) throw BadInput("--v0 by names gives v0; the start from (q0, q1) has none");
  if (init.project_v0)
    throw BadInput("--project-v0 projects v0 onto the constraints; --v0 by names gives a velocity on them already");
  const Eigen::MatrixXd M =
      model.m() > 0 ? model.constraint_matrix(init.q0, bound.parameters) : Eigen::MatrixXd(0, model.n());
  init.v0 = support::complete_named_velocity(M, model.spec.coordinates, init.v0_names, init.v0, system, init.q0,
                                             model.constraint_offset(init.q0, bound.parameters, bound.time_offset));
}

}  // namespace

void fill_initial_data(const BoundModel& bound, InitialData& init) {
  const ModelSpec& spec = bound.model->spec;
  if (init.q0.size() == 0) init.q0 = bound.q0;
  check_size(spec, "--q0", init.q0);
  if (!init.v0_names.empty()) complete_initial_velocity(bound, init);
  else if (init.v0.size() == 0) init.v0 = bound.v0;
  check_size(spec, "--v0", init.v0);
  if (init.q1) check_size(spec, "--q1", *init.q1);
}

namespace {

catalogue::Entry make_entry(const std::string& path, std::shared_ptr<const LoadedModel> model) {
  catalogue::Entry e;
  e.name = path;
  e.source_text = model->spec.text;
  e.describe = [model](const catalogue::ParameterValues& values) {
    const auto bound = bind(model, values);
    const ModelSpec& spec = model->spec;
    catalogue::SystemDescription d;
    d.name = spec.name;
    d.summary = spec.summary.empty() ? "model file " + spec.path : spec.summary;
    d.coordinates = spec.coordinates;
    for (const auto& c : spec.coordinates) d.velocities.push_back(velocity_column(c));
    for (std::size_t k = 0; k < spec.parameters.size(); ++k)
      d.parameters.push_back({spec.parameters[k].name, bound->parameters[k], spec.parameters[k].description});
    d.constraints = spec.m();
    d.holonomic_constraints = spec.m() - spec.velocity_rows();
    for (const auto& offset : model->layout.constraint_offsets) {  // a holonomic row's b is ∂φ/∂t
      if (offset.row < spec.velocity_rows()) ++d.affine_constraints;
      else d.holonomic_constraints_depend_on_time = true;
    }
    d.constraints_depend_on_time = model->layout.constraint_offsets_depend_on_time;
    d.q0.assign(bound->q0.data(), bound->q0.data() + spec.n());
    d.v0.assign(bound->v0.data(), bound->v0.data() + spec.n());
    Eigen::VectorXd x0(2 * spec.n());
    x0 << bound->q0, bound->v0;
    d.closed_form = model->solution(x0, bound->parameters, 1.0).has_value();
    if (model->layout.contact) d.z0 = bound->z0;
    d.external_force = !spec.force.empty();
    d.force_depends_on_time = model->layout.force_depends_on_time;
    d.lagrangian_depends_on_time = model->layout.lagrangian_depends_on_time;
    return d;
  };
  e.run = [model](const catalogue::ParameterValues& values, InitialData init, const RunOptions& options) {
    const ModelSpec& spec = model->spec;
    require_constraints_taken(*model, options.method);
    std::shared_ptr<const BoundModel> bound = bind(model, values);
    if (options.t0 != 0.0) {  // the file's t is the methods' time plus t0
      auto shifted = std::make_shared<BoundModel>(*bound);
      shifted->time_offset = options.t0;
      bound = std::move(shifted);
    }
    if (!model->layout.contact && init.z0)
      throw BadInput("--z0 is the action variable of a contact system; the model file " + spec.path +
                     " is not one (it has no action = \"...\")");
    if (model->layout.contact && !init.z0) init.z0 = bound->z0;
    const bool velocity_from_file = init.v0.size() == 0;
    fill_initial_data(*bound, init);
    const Eigen::VectorXd given_v0 = init.v0;
    if (init.project_v0) {
      if (model->layout.contact)
        throw BadInput("--project-v0 projects v0 onto the linear velocity constraints of a system on TQ; the model "
                       "file " + spec.path + " is a contact system");
      if (init.q1) throw BadInput("--project-v0 projects v0; a start from (q0, q1) has no v0 to project");
      init.v0 = project_velocity(bound, init.q0, init.v0);
    }
    if (!init.q1) {
      try {
        check_initial_point(*bound, init.q0, init.v0, velocity_from_file ? InitialSource::File : InitialSource::CommandLine,
                            init.z0.value_or(0.0));
      } catch (const ModelFileError& e) {
        if (values.empty()) throw;
        std::string given;  // the parameters may be what makes the point singular: name them
        for (const auto& [name, value] : values) {
          std::ostringstream v;
          v << value;
          given += " --param " + name + "=" + v.str();
        }
        throw BadInput(std::string(e.what()) + " (with" + given + ")");
      }
    }
    RunResult result = run_model_file(bound, init, options);
    if (init.project_v0)
      result.summary.projected_v0 = RunSummary::ProjectedVelocity{
          std::vector<double>(init.v0.data(), init.v0.data() + init.v0.size()),
          (init.v0 - given_v0).lpNorm<Eigen::Infinity>()};
    if (!init.v0_names.empty())
      result.summary.completed_v0 = std::vector<double>(init.v0.data(), init.v0.data() + init.v0.size());
    return result;
  };
  e.exact = [model](const catalogue::ParameterValues& values, InitialData init,
                    double t) -> std::optional<Eigen::VectorXd> {
    if (init.q1) return std::nullopt;
    const auto bound = bind(model, values);
    fill_initial_data(*bound, init);
    if (init.project_v0 && !model->layout.contact) init.v0 = project_velocity(bound, init.q0, init.v0);
    Eigen::VectorXd x0(2 * model->n());
    x0 << init.q0, init.v0;
    const auto x = model->solution(x0, bound->parameters, t);
    if (!x) return std::nullopt;
    return Eigen::VectorXd(x->head(model->n()));
  };
  e.steady = [model](const catalogue::ParameterValues& values, InitialData init,
                     const catalogue::SteadyRequest& request) {
    const ModelSpec& spec = model->spec;
    const std::string system = "the model file " + spec.path;
    if (model->layout.contact) throw BadInput("steady motions are those of Lagrange-d'Alembert models; " + system +
                                              " is a contact system");
    if (model->layout.lagrangian_depends_on_time)
      throw BadInput("a steady motion needs an autonomous system; the Lagrangian of " + system + " depends on t");
    require_constraints_taken(*model, {}, "the steady-motion analysis");
    const auto bound = bind(model, values);
    fill_initial_data(*bound, init);
    if (init.project_v0) init.v0 = project_velocity(bound, init.q0, init.v0);
    check_initial_point(*bound, init.q0, init.v0, InitialSource::CommandLine, 0.0);
    const UnboundedFileModel file_model(bound);
    return catalogue::steady_motion_of(file_model, system, spec.coordinates, init.q0, init.v0, request, {});
  };
  return e;
}

/// The loaded model of each entry made here (entries live as long as the process).
std::mutex models_mutex;
std::map<const catalogue::Entry*, std::shared_ptr<const LoadedModel>> models_of_entries;

void remember(const catalogue::Entry& entry, std::shared_ptr<const LoadedModel> model) {
  const std::lock_guard lock(models_mutex);
  models_of_entries[&entry] = std::move(model);
}

}  // namespace

std::shared_ptr<const LoadedModel> loaded_model_of(const catalogue::Entry& entry) {
  const std::lock_guard lock(models_mutex);
  const auto it = models_of_entries.find(&entry);
  return it == models_of_entries.end() ? nullptr : it->second;
}

std::shared_ptr<const LoadedModel> model_file_behind(const catalogue::Entry& entry) {
  if (auto model = loaded_model_of(entry)) return model;
  const auto installed = support::find_data_file("models/" + entry.name + ".toml");
  return installed ? loaded_model_of(catalogue::find(*installed)) : nullptr;
}

bool is_model_file_name(const std::string& name) {
  std::error_code error;
  return name.ends_with(".toml") || name.find('/') != std::string::npos || fs::is_regular_file(name, error);
}

const catalogue::Entry& model_file_entry(const std::string& path, Kernels kernels) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, Kernels>, std::unique_ptr<catalogue::Entry>> loaded;
  std::error_code error;
  const fs::path canonical = fs::weakly_canonical(path, error);
  const auto key = std::make_pair(error ? path : canonical.string(), kernels);
  const std::lock_guard lock(mutex);
  if (const auto it = loaded.find(key); it != loaded.end()) return *it->second;
  const auto model = load(path, kernels);
  auto entry = std::make_unique<catalogue::Entry>(make_entry(path, model));
  remember(*entry, model);
  return *loaded.emplace(key, std::move(entry)).first->second;
}

const catalogue::Entry& model_text_entry(const std::string& text, const std::string& label) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<catalogue::Entry>> loaded;
  const std::lock_guard lock(mutex);
  auto key = std::make_pair(label, text);
  if (const auto it = loaded.find(key); it != loaded.end()) return *it->second;
  const auto model = load_text(text, label);
  auto entry = std::make_unique<catalogue::Entry>(make_entry(label, model));
  remember(*entry, model);
  return *loaded.emplace(std::move(key), std::move(entry)).first->second;
}

}  // namespace dalembert::modelfile
