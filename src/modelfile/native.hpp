#pragma once
// Native kernels: the generated C is compiled once with the system compiler into a shared library,
// cached by a hash of its content, and loaded with dlopen.
//   compiler:  $DALEMBERT_CC, else cc ("none" disables compilation: interpreted kernels)
//   cache:     $DALEMBERT_CACHE_DIR, else $XDG_CACHE_HOME/dalembert, else ~/.cache/dalembert
#include <memory>
#include <string>

#include "modelfile/evaluator.hpp"

namespace dalembert::modelfile {

struct NativeBuild {
  std::unique_ptr<Evaluator> evaluator;  ///< null if no library could be built or loaded
  std::string library;                   ///< path of the shared library
  bool compiled = false;                 ///< false: found in the cache
  double compile_seconds = 0.0;
  std::string problem;                   ///< why there is no evaluator
};

NativeBuild native_evaluator(const std::string& c_source, const Layout& layout);

/// The directory of the cached libraries.
std::string cache_directory();

}  // namespace dalembert::modelfile
