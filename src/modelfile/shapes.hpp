#pragma once
// Shape modules. The methods for model files are FileModel<n, m> instantiated with every method
// family, one loadable module per (n, m) (CMake targets dalembert_shape_<n>_<m>). They are not
// part of the dalembert executable, so that building it (the main job) does not pay for them;
// `cmake --build build` builds them all. A module that is missing is built on first use:
//   modules:   $DALEMBERT_SHAPE_DIR, else <build>/shapes
//   building:  `cmake --build <build> --target dalembert_shape_<n>_<m>` before the module is loaded
//              (a no-op when it is up to date), one process at a time; never when
//              $DALEMBERT_SHAPE_DIR is set.
#include "modelfile/instances.hpp"
#include "modelfile/spec.hpp"

namespace dalembert::modelfile {

/// The runner for model files of the shape of `spec`, loaded (and built if needed) on first use
/// and kept for the life of the process. Throws ModelFileError if n exceeds max_coordinates, and
/// BadInput if the module can neither be found nor built.
FileModelRunner shape_runner(const ModelSpec& spec);

}  // namespace dalembert::modelfile
