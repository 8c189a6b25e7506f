// Every method family on model files, bounded instance (src/modelfile/run.hpp).
#include "dalembert/io/run.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/run.hpp"

namespace dalembert::modelfile {

RunResult run_bounded(std::shared_ptr<const BoundModel> model, const InitialData& init, const RunOptions& options) {
  const BoundedFileModel file_model(std::move(model));
  return run(file_model, init, options);
}

}  // namespace dalembert::modelfile
