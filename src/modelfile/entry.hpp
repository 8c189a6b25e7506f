#pragma once
// Model files as catalogue entries: catalogue::find() hands every name that is a path to a model
// file (docs/model-files.md) to model_file_entry(), so that run, describe, compare and
// convergence accept model files wherever they accept catalogue names.
#include <string>

#include "catalogue/catalogue.hpp"
#include "modelfile/model.hpp"

namespace dalembert::modelfile {

/// Whether `name` is meant as a model file: it ends in .toml, contains a '/', or names a file.
bool is_model_file_name(const std::string& name);

/// (q0, v0) of a run: the file's initial data where `init` gives none, v0 completed from the
/// constraints where init.v0_names names some of its entries; sizes checked (BadInput).
void fill_initial_data(const BoundModel& bound, InitialData& init);

/// The loaded model behind an entry of model_file_entry or model_text_entry; null for the
/// catalogue's compiled systems.
std::shared_ptr<const LoadedModel> loaded_model_of(const catalogue::Entry& entry);

/// The model file behind `entry`, for what is computed for model files only: its own model for an
/// entry of a model file; for a compiled catalogue system, the model file of the same name that
/// dalembert installs (models/NAME.toml of support::data_directories(), never of the working
/// directory), the same system with the same parameters (tests hold their trajectories together to
/// 1e-11); null if there is none.
std::shared_ptr<const LoadedModel> model_file_behind(const catalogue::Entry& entry);

/// The entry of the model file at `path`, loaded (and compiled or found in the cache, or interpreted
/// as `kernels` asks) on first use and kept for the life of the process. Throws ModelFileError for
/// mistakes in the file.
const catalogue::Entry& model_file_entry(const std::string& path, Kernels kernels = Kernels::compiled);

/// The entry of a model given as TOML text (the Python package's dalembert.model), named `label`
/// in messages; loaded on first use of this text and kept for the life of the process.
const catalogue::Entry& model_text_entry(const std::string& text, const std::string& label);

}  // namespace dalembert::modelfile
