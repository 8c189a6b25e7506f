#pragma once
// A model file stepped one step at a time, with its inputs held over each step, and the step's
// linearisation for control (docs/control.md):
//   x_{k+1} = Φ_h(x_k, u_k),   A = ∂x_{k+1}/∂x_k,   B = ∂x_{k+1}/∂u_k,
// x the method's state: (q, p) for the position–momentum and metric methods, (q, v) for rk4.
// An input enters the file's force linearly with a coefficient of the parameters alone (the file
// is refused otherwise, symbolic.cpp), F(q, v, t; u) = F(q, v, t; 0) + B_u u with B_u constant, so
// B = (∂x_{k+1}/∂f) B_u: the step's derivative by a constant force f added over the step
// (StepDerivatives::by_force, from the same factorisation as A).
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "catalogue/catalogue.hpp"
#include "dalembert/io/run_options.hpp"
#include "modelfile/model.hpp"

namespace dalembert::modelfile {

/// The Jacobians of one step: A (2n × 2n) and B (2n × inputs), rows and columns in the order of
/// Stepper::state_names().
struct StepJacobians {
  Eigen::MatrixXd A;
  Eigen::MatrixXd B;
};

class Stepper {
 public:
  /// The methods a stepper takes: those whose step has a derivative by a constant force.
  static const std::vector<std::string>& method_names();

  /// `options.method` (one of method_names(), with its options and step size) on the model with
  /// the parameters `values`, from `init` (the file's initial data where it gives none; v0 in
  /// D(q0), or projected with init.project_v0). Throws BadInput naming the value at fault.
  Stepper(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values, InitialData init,
          const RunOptions& options);
  ~Stepper();
  Stepper(Stepper&&) noexcept;
  Stepper& operator=(Stepper&&) noexcept;

  const std::vector<std::string>& input_names() const { return input_names_; }
  /// The names of the state's entries: the coordinates, then p_<coordinate> or <coordinate>_t.
  const std::vector<std::string>& state_names() const { return state_names_; }
  /// B_u: the force of a unit of each input (n × inputs), the same everywhere.
  const Eigen::MatrixXd& input_force() const { return input_force_; }

  /// `count` steps with the inputs u held; returns how many were taken: fewer only when *stop
  /// became non-zero (checked between steps). u has one entry per input, finite (BadInput
  /// otherwise). A step that fails throws NumericalFailure and leaves the state where the last
  /// completed step left it.
  long step(const Eigen::VectorXd& u, long count = 1, const std::atomic<int>* stop = nullptr);
  /// (A, B) of the step step(u) would take from the current state. Throws NumericalFailure where
  /// the step's Jacobian is singular at its solution.
  StepJacobians jacobians(const Eigen::VectorXd& u) const;
  /// The steady motion of the step nearest the current state with the inputs at zero, which must be
  /// on a continuous steady motion of the symmetry `request` names, with what request.hold names
  /// kept (find_discrete_steady_motion), and the step's linearisation there: its q0, the method's
  /// velocity, the symmetry's rates of the step's motion, the multipliers μ on the linearised
  /// constraint modulo the symmetry's orbit and the rates log(μ)/h (diagnostics/steady_motions.hpp).
  /// Throws BadInput.
  catalogue::SteadyMotion steady_motion(const catalogue::SteadyRequest& request) const;
  /// Back to t = 0 from init (the file's initial data where it gives none), the start built at zero
  /// inputs (fim's start B takes the constraint force, which inputs move).
  void reset(InitialData init);
  /// The variation of the state that reset() made for a variation (δq0, δv0) of its (q0, v0) (after
  /// any projection): (δq0, δp0) with δp0 = ∂²L/∂v∂q δq0 + ∂²L/∂v² δv0, less (h/2) δΛ~ for fim's
  /// start B (p⁻_0 = ∂L/∂v − (h/2) Λ~), or (δq0, δv0) for rk4. The start of a discrete Jacobi
  /// field, δx_{k+1} = A_k δx_k (docs/jacobi-fields.md).
  Eigen::VectorXd start_tangent(const Eigen::VectorXd& dq0, const Eigen::VectorXd& dv0) const;

  Eigen::VectorXd state() const;
  Eigen::VectorXd q() const;
  Eigen::VectorXd v() const;
  double t() const;
  long steps() const;

 private:
  struct Engine;
  template <class Method>
  struct MethodEngine;

  void set_inputs(const Eigen::VectorXd& u) const;

  std::shared_ptr<BoundModel> bound_;  ///< what the method's model reads; its inputs set per step
  std::vector<std::string> input_names_, state_names_;
  Eigen::MatrixXd input_force_;
  Eigen::VectorXd start_q0_, start_v0_;  ///< of the last reset
  bool state_is_velocity_ = false;       ///< (q, v) rather than (q, p)
  std::unique_ptr<Engine> engine_;
};

}  // namespace dalembert::modelfile
