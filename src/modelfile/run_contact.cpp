// Contact model files (an action variable) without constraints: herglotz, contact exact, rk4 and
// reference (src/modelfile/run.hpp).
#include "dalembert/io/run.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/run.hpp"

namespace dalembert::modelfile {

RunResult run_contact(std::shared_ptr<const BoundModel> model, const InitialData& init, const RunOptions& options) {
  if (model->model->m() > 0) return run_contact_constrained(std::move(model), init, options);
  if (model->model->n() <= sizes::bounded_model_file) {
    return run(ContactFileModelWithoutConstraints<sizes::bounded_model_file>(std::move(model)), init, options);
  }
  return run(ContactFileModelWithoutConstraints<Eigen::Dynamic>(std::move(model)), init, options);
}

}  // namespace dalembert::modelfile
