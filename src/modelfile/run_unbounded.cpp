// Every method family on model files, unbounded instance (src/modelfile/run.hpp).
#include "dalembert/io/run.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/run.hpp"

namespace dalembert::modelfile {

RunResult run_unbounded(std::shared_ptr<const BoundModel> model, const InitialData& init, const RunOptions& options) {
  const UnboundedFileModel file_model(std::move(model));
  return run(file_model, init, options);
}

Eigen::VectorXd project_velocity(std::shared_ptr<const BoundModel> model, const Eigen::VectorXd& q0,
                                 const Eigen::VectorXd& v0) {
  const UnboundedFileModel file_model(std::move(model));
  return velocity_in_distribution(file_model, q0, momentum(file_model, q0, v0), 0.0);  // the run's start, t = 0
}

}  // namespace dalembert::modelfile
