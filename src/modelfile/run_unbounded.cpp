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
  if (model->model->has_affine_constraints()) {
    // The admissible velocities are a translate of D: v = v0 − W⁻¹Mᵀ(M W⁻¹Mᵀ)⁻¹(M v0 + b), the
    // closest in the metric W = ∂²L/∂v²(q0, v0), which keeps v0's momentum components on D.
    const LoadedModel& loaded = *model->model;
    Eigen::VectorXd x(2 * loaded.n());
    x << q0, v0;
    const Eigen::LDLT<Eigen::MatrixXd> W(loaded.velocity_hessian(x, model->parameters));
    const Eigen::MatrixXd M = loaded.constraint_matrix(q0, model->parameters);
    const Eigen::MatrixXd WinvMt = W.solve(M.transpose());
    const Eigen::VectorXd violation = M * v0 + loaded.constraint_offset(q0, model->parameters);
    return v0 - WinvMt * (M * WinvMt).ldlt().solve(violation);
  }
  const UnboundedFileModel file_model(std::move(model));
  return velocity_in_distribution(file_model, q0, momentum(file_model, q0, v0));
}

}  // namespace dalembert::modelfile
