#pragma once
// Running a method on a model file: one compiled type, FileModel (file_model.hpp), for files of
// every size, in two instances, each in its own translation unit so that they compile in
// parallel: bounded (n ≤ sizes::bounded_model_file, no heap allocation per step) and unbounded.
#include <memory>

#include "dalembert/io/run_options.hpp"
#include "dalembert/io/trajectory.hpp"
#include "modelfile/model.hpp"

namespace dalembert::modelfile {

RunResult run_bounded(std::shared_ptr<const BoundModel> model, const InitialData& init, const RunOptions& options);
RunResult run_unbounded(std::shared_ptr<const BoundModel> model, const InitialData& init, const RunOptions& options);
/// Contact files (an action variable), without and with constraints: two compiled types, since the
/// exact discrete contact flow needs m = 0 at compile time, each bounded or unbounded by the size.
RunResult run_contact(std::shared_ptr<const BoundModel> model, const InitialData& init, const RunOptions& options);
RunResult run_contact_constrained(std::shared_ptr<const BoundModel> model, const InitialData& init,
                                  const RunOptions& options);

/// The velocity in D(q0) (on the affine constraints, in v_b + D(q0)) with the momentum components
/// on D of v0 (InitialData::project_v0), for a model without an action variable.
Eigen::VectorXd project_velocity(std::shared_ptr<const BoundModel> model, const Eigen::VectorXd& q0,
                                 const Eigen::VectorXd& v0);

/// The method of `options` on the model, from `init` (checked to have n entries).
inline RunResult run_model_file(std::shared_ptr<const BoundModel> model, const InitialData& init,
                                const RunOptions& options) {
  if (model->model->layout.contact) return run_contact(std::move(model), init, options);
  if (model->model->n() <= sizes::bounded_model_file) return run_bounded(std::move(model), init, options);
  return run_unbounded(std::move(model), init, options);
}

}  // namespace dalembert::modelfile
