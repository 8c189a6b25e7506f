#pragma once
// dalembert's data files: the plotting script (plot.py) and the model files of models/. An
// installed dalembert finds them in its prefix's share/dalembert, a built one in the build tree's
// copy, the Python package in its own folder: each looks next to the binary that holds this code,
// so none needs the source tree it was built from.
#include <optional>
#include <string>
#include <vector>

namespace dalembert::support {

/// The folders searched, in order: $DALEMBERT_DATA_DIR; then, with D the folder of the executable
/// or shared library that holds this code, D/../share/dalembert (an installed dalembert, D = P/bin),
/// D/share/dalembert (the build tree) and D/data (the Python package's extension module). Only
/// folders that exist.
std::vector<std::string> data_directories();

/// The first data_directories()/`relative` that is a regular file.
std::optional<std::string> find_data_file(const std::string& relative);

/// The model files dalembert can find by name: models/*.toml of the working directory, then of each
/// data directory; a name found twice is the first one's.
struct NamedModelFile {
  std::string name;  ///< the file's stem: rolling-disk
  std::string path;
};
std::vector<NamedModelFile> named_model_files();

}  // namespace dalembert::support
