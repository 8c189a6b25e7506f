#include "modelfile/stepper.hpp"

#include <algorithm>
#include <cmath>

#include "catalogue/steady_motion.hpp"
#include "dalembert/core/subnormals.hpp"
#include "dalembert/diagnostics/steady_motions.hpp"
#include "dalembert/io/method_options.hpp"
#include "dalembert/io/runners/momentum_energy.hpp"
#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"
#include "modelfile/entry.hpp"
#include "modelfile/file_model.hpp"
#include "modelfile/run.hpp"

namespace dalembert::modelfile {

/// The method and its state behind the stepper's one vocabulary.
struct Stepper::Engine {
  virtual ~Engine() = default;
  virtual long step(long count, const std::atomic<int>* stop) = 0;
  virtual StepDerivatives derivatives() const = 0;
  /// The step's steady motion nearest the current state, which is on a continuous one, and the
  /// step's linearisation there.
  struct StepSteadyMotion {
    Eigen::VectorXd q0, v0;  ///< the state's positions and the method's velocity
    int iterations = 0;
    SteadyMotionLinearisation linearisation;
  };
  virtual StepSteadyMotion steady_motion(const Symmetry& symmetry, const SteadyMotionHold& hold) const = 0;
  virtual void reset(const Eigen::VectorXd& q0, const Eigen::VectorXd& v0) = 0;
  /// The derivative of the state reset(q0, v0) gives along (δq0, δv0).
  virtual Eigen::VectorXd start_tangent(const Eigen::VectorXd& q0, const Eigen::VectorXd& v0,
                                        const Eigen::VectorXd& dq0, const Eigen::VectorXd& dv0) const = 0;
  virtual Eigen::VectorXd state() const = 0;
  virtual Eigen::VectorXd q() const = 0;
  virtual Eigen::VectorXd v() const = 0;
  virtual double t() const = 0;
  virtual long steps() const = 0;
};

template <class Method>
struct Stepper::MethodEngine final : Engine {
  explicit MethodEngine(Method m) : method(std::move(m)) {}

  long step(long count, const std::atomic<int>* stop) override {
    const FlushSubnormals flush;  // as integrate() does (core/subnormals.hpp)
    auto next = s;  // a step that throws leaves s as it was
    for (long k = 0; k < count; ++k) {
      if (stop && stop->load() != 0) return k;
      method.step(next);
      s = next;
    }
    return count;
  }
  StepDerivatives derivatives() const override { return method.step_derivatives(s); }
  StepSteadyMotion steady_motion(const Symmetry& symmetry, const SteadyMotionHold& hold) const override {
    // s must be on a steady motion of the model (this throws otherwise), as the stepper's reset
    // from System.steady_motion's (q0, v0) is
    steady_motion_linearisation(method.system(), s.q, method.velocity(s), symmetry, 1e-8);
    const auto motion = find_discrete_steady_motion(method, s, symmetry, hold);
    return {motion.state.q, method.velocity(motion.state), motion.iterations,
            discrete_steady_motion_linearisation(method, motion, symmetry)};
  }
  void reset(const Eigen::VectorXd& q0, const Eigen::VectorXd& v0) override { s = method.initial_state(q0, v0); }
  Eigen::VectorXd start_tangent(const Eigen::VectorXd& q0, const Eigen::VectorXd& v0, const Eigen::VectorXd& dq0,
                                const Eigen::VectorXd& dv0) const override {
    Eigen::VectorXd dx(2 * q0.size());
    if constexpr (!requires { s.p; } && !requires { s.p_minus; }) {  // rk4 steps (q, v), as state() says
      dx << dq0, dv0;
    } else {  // p0 = ∂L/∂v(q0, v0): B = ∂²L/∂v∂q, W = ∂²L/∂v²
      const auto& model = method.system();
      const auto L = lagrangian_derivatives(model, q0, v0);
      Eigen::VectorXd dp = L.B * dq0 + L.W * dv0;
      if constexpr (requires { method.start(); }) {  // fim's start B: p⁻_0 = ∂L/∂v − (h/2) Λ~(q0, v0)
        if (method.start() == FimStart::B) {
          Eigen::VectorXd z(2 * q0.size()), value;
          z << q0, v0;
          Eigen::MatrixXd by_start;
          const Eigen::Index n = q0.size();
          ad::value_and_jacobian_by_chunks<Eigen::Dynamic, Eigen::Dynamic>(
              [&](const auto& y) {
                using Y = std::decay_t<decltype(y)>;
                return Y(constraint_force_form(model, Y(y.head(n)), Y(y.tail(n)), 0.0));
              },
              z, value, by_start);
          dp -= 0.5 * method.step_size() * (by_start.leftCols(n) * dq0 + by_start.rightCols(n) * dv0);
        }
      }
      dx << dq0, dp;
    }
    return dx;
  }
  Eigen::VectorXd state() const override {
    Eigen::VectorXd x(2 * s.q.size());
    if constexpr (requires { s.p_minus; })  // fim: the momentum its step starts from
      x << s.q, s.p_minus;
    else if constexpr (requires { s.p; })
      x << s.q, s.p;
    else
      x << s.q, s.v;
    return x;
  }
  Eigen::VectorXd q() const override { return s.q; }
  Eigen::VectorXd v() const override { return method.velocity(s); }
  double t() const override { return s.t; }
  long steps() const override { return s.k; }

  Method method;
  typename Method::State s;
};

const std::vector<std::string>& Stepper::method_names() {
  static const std::vector<std::string> names = {
      "dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "mclachlan-perlmutter", "discrete-gradient", "spark", "rk4"};
  return names;
}

Stepper::Stepper(std::shared_ptr<const LoadedModel> model, const ParameterOverrides& values, InitialData init,
                 const RunOptions& o) {
  check_options(o);
  const ModelSpec& spec = model->spec;
  const std::string system = "the model file " + spec.path;
  const auto& names = method_names();
  if (std::find(names.begin(), names.end(), o.method) == names.end()) {
    std::string known;
    for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
    throw BadOption("method", o.method + " has no stepper (the methods whose step has a derivative by a force: " +
                                  known + ")");
  }
  if (o.rule != "alpha" || o.constraint_rule != "alpha")
    throw BadOption(o.rule != "alpha" ? "rule" : "constraint_rule", "a stepper takes the alpha rule");
  if (model->layout.contact)
    throw BadInput("a stepper steps Lagrange-d'Alembert models; " + system + " is a contact system");
  require_constraints_taken(*model, o.method);  // affine constraints with the methods that take them
  bound_ = std::make_shared<BoundModel>(*bind(model, values));
  bound_->time_offset = o.t0;
  for (int i = spec.first_input(); i < static_cast<int>(spec.parameters.size()); ++i)
    input_names_.push_back(spec.parameters[static_cast<std::size_t>(i)].name);
  for (const auto& c : spec.coordinates) state_names_.push_back(c);
  state_is_velocity_ = o.method == "rk4";
  for (const auto& c : spec.coordinates) state_names_.push_back(state_is_velocity_ ? velocity_name(c) : "p_" + c);

  const UnboundedFileModel file(bound_);
  const auto engine = [](auto method) -> std::unique_ptr<Engine> {
    return std::make_unique<MethodEngine<decltype(method)>>(std::move(method));
  };
  using File = UnboundedFileModel;
  if (o.method == "dla") {  // dla without constraints is del
    engine_ = engine(make_dla(file, o.h, o.alpha, o.newton));
  } else if (o.method == "mla") {
    engine_ = engine(make_midpoint_mla(file, o.h, o.alpha, o.newton));
  } else if (o.method == "rk4") {
    engine_ = engine(RungeKutta4<File>(file, o.h));
  } else if (o.method == "gf" || o.method == "gf-sym") {
    engine_ = engine(GeneratingFunctionIntegrator<File>(file, o.h, o.alpha, o.method == "gf-sym", o.newton));
  } else {
    if (!file.is_mechanical())
      throw BadInput("method " + o.method + " is written with the metric G(q) and the potential V(q), but " + system +
                     " does not define them (its Lagrangian is not 1/2 v^T G(q) v - V(q))");
    if (o.method == "gf-cp")
      engine_ = engine(make_gf_cp(file, o.h, o.alpha, false, o.newton));
    else if (o.method == "fim")
      engine_ = engine(make_fim(file, o.h, o.alpha, runners::parse_fim_start(o.fim_start), o.newton));
    else if (o.method == "spark")
      engine_ = engine(Spark<File>(file, o.h, o.stages, o.newton));
    else if (o.method == "discrete-gradient")
      engine_ = engine(DiscreteGradient<File>(file, o.h, o.newton));
    else
      engine_ = engine(McLachlanPerlmutter<File>(file, o.h, o.newton));
  }

  // B_u, column by column: the force of a unit input less the force without inputs, at the start
  // (the coefficients are the same everywhere).
  fill_initial_data(*bound_, init);
  const int n = spec.n(), inputs = spec.input_count;
  input_force_.resize(n, inputs);
  for (int i = 0; i < inputs; ++i) {
    const auto force = [&](double u) {
      bound_->parameters[static_cast<std::size_t>(spec.first_input() + i)] = u;
      const Eigen::VectorXd f = file.force<double>(init.q0, init.v0, 0.0);
      bound_->parameters[static_cast<std::size_t>(spec.first_input() + i)] = 0.0;
      return f;
    };
    input_force_.col(i) = force(1.0) - force(0.0);
  }
  reset(std::move(init));
}

Stepper::~Stepper() = default;
Stepper::Stepper(Stepper&&) noexcept = default;
Stepper& Stepper::operator=(Stepper&&) noexcept = default;

void Stepper::set_inputs(const Eigen::VectorXd& u) const {
  if (u.size() != static_cast<Eigen::Index>(input_names_.size())) {
    std::string names;
    for (const auto& name : input_names_) names += (names.empty() ? "" : ", ") + name;
    throw BadInput("u has " + std::to_string(u.size()) + " value(s) but the model file " + bound_->model->spec.path +
                   " has " + std::to_string(input_names_.size()) + " input(s)" +
                   (names.empty() ? " (declare them with inputs = [...])" : " (" + names + ")"));
  }
  for (Eigen::Index i = 0; i < u.size(); ++i)
    if (!std::isfinite(u[i]))
      throw BadInput("u[" + std::to_string(i) + "] (" + input_names_[static_cast<std::size_t>(i)] + ") = " +
                     std::to_string(u[i]) + " is not finite");
  const int first = bound_->model->spec.first_input();
  for (Eigen::Index i = 0; i < u.size(); ++i) bound_->parameters[static_cast<std::size_t>(first + i)] = u[i];
}

long Stepper::step(const Eigen::VectorXd& u, long count, const std::atomic<int>* stop) {
  if (count < 0) throw BadInput("count = " + std::to_string(count) + " is negative");
  set_inputs(u);
  try {
    return engine_->step(count, stop);
  } catch (const SolverError& e) {
    throw NumericalFailure(std::string(e.what()) + "; the stepper kept the state of the last completed step");
  }
}

StepJacobians Stepper::jacobians(const Eigen::VectorXd& u) const {
  set_inputs(u);
  StepDerivatives d;
  try {
    d = engine_->derivatives();
  } catch (const SolverError& e) {
    throw NumericalFailure(e.what());
  } catch (const std::runtime_error& e) {  // the step's Jacobian is singular at its solution
    throw NumericalFailure(e.what());
  }
  return {std::move(d.by_state), d.by_force * input_force_};
}

catalogue::SteadyMotion Stepper::steady_motion(const catalogue::SteadyRequest& request) const {
  const ModelSpec& spec = bound_->model->spec;
  const std::string system = "the model file " + spec.path;
  if (bound_->model->layout.lagrangian_depends_on_time || has_time_dependent_force(UnboundedFileModel(bound_)))
    throw BadInput("a steady motion needs an autonomous system; " + system + " depends on t");
  require_constraints_taken(*bound_->model, {}, "the steady-motion analysis");
  set_inputs(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(input_names_.size())));
  const catalogue::NamedSymmetry named = catalogue::symmetry_of(system, spec.coordinates, request, {});
  const SteadyMotionHold hold = catalogue::hold_of(system, spec.coordinates, request);
  try {
    const Engine::StepSteadyMotion motion = engine_->steady_motion(named.symmetry, hold);
    catalogue::SteadyMotion out = catalogue::steady_motion_result(named, spec.coordinates, request.rotation, motion.q0,
                                                                  motion.v0, motion.linearisation);
    out.iterations = motion.iterations;
    return out;
  } catch (const std::invalid_argument& e) {
    throw BadInput("the stepper's state of " + system + ": " + e.what());
  } catch (const SolverError& e) {
    throw NumericalFailure(e.what());
  }
}

void Stepper::reset(InitialData init) {
  fill_initial_data(*bound_, init);
  if (init.q1) throw BadInput("a stepper starts from (q0, v0); --q1 is not taken");
  if (init.project_v0) init.v0 = project_velocity(bound_, init.q0, init.v0);
  check_initial_point(*bound_, init.q0, init.v0, InitialSource::CommandLine);
  // The start at zero inputs: fim's start B takes the constraint force, which the inputs move, and
  // the state a reset gives is a function of (q0, v0) alone, whatever inputs came before.
  set_inputs(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(input_names_.size())));
  engine_->reset(init.q0, init.v0);
  start_q0_ = std::move(init.q0);
  start_v0_ = std::move(init.v0);
}

Eigen::VectorXd Stepper::start_tangent(const Eigen::VectorXd& dq0, const Eigen::VectorXd& dv0) const {
  const Eigen::Index n = start_q0_.size();
  for (const auto& [x, name] : {std::pair{&dq0, "dq0"}, std::pair{&dv0, "dv0"}}) {
    if (x->size() != n)
      throw BadInput(std::string(name) + " has " + std::to_string(x->size()) + " entries but the model has " +
                     std::to_string(n) + " coordinates");
    if (!x->allFinite()) throw BadInput(std::string(name) + " has an entry that is not finite");
  }
  set_inputs(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(input_names_.size())));  // as reset()
  return engine_->start_tangent(start_q0_, start_v0_, dq0, dv0);
}

Eigen::VectorXd Stepper::state() const { return engine_->state(); }
Eigen::VectorXd Stepper::q() const { return engine_->q(); }
Eigen::VectorXd Stepper::v() const { return engine_->v(); }
double Stepper::t() const { return engine_->t(); }
long Stepper::steps() const { return engine_->steps(); }

}  // namespace dalembert::modelfile
