// dalembert._core: the compiled half of the Python package (docs/python.md). It hands Python the
// catalogue, model files and model text, runs, studies and ensembles of the library as they are
// behind the command line, with the GIL released while C++ computes; python/dalembert/__init__.py
// turns its plain values into the package's API (keyword arguments, numpy arrays, exceptions).
//
// Nothing here calls back into Python during a run: rows are stored by the recorder in C++ and
// handed over once, as one numpy array that owns them.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <dalembert/io/method_descriptions.hpp>
#include <dalembert/io/method_options.hpp>
#include <dalembert/solve/step_limits.hpp>
#include <dalembert/version.hpp>

#include "analysis/study.hpp"
#include "catalogue/catalogue.hpp"
#include "cli/output.hpp"
#include "ensemble/ensemble.hpp"
#include "modelfile/entry.hpp"
#include "modelfile/jacobi_field.hpp"
#include "modelfile/stepper.hpp"
#include "support/build_identity.hpp"

namespace py = pybind11;

namespace dalembert::python {
namespace {

using Parameters = catalogue::ParameterValues;
using OptionalVector = std::optional<std::vector<double>>;  ///< None: the system's default

/// A table of doubles as a (rows × columns) numpy array that owns them (no copy).
py::array_t<double> to_array(std::vector<double>&& values, std::size_t columns) {
  auto* owned = new std::vector<double>(std::move(values));
  py::capsule release(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  const auto width = static_cast<py::ssize_t>(columns);
  const py::ssize_t rows = width == 0 ? 0 : static_cast<py::ssize_t>(owned->size()) / width;
  const auto item = static_cast<py::ssize_t>(sizeof(double));
  return py::array_t<double>(std::vector<py::ssize_t>{rows, width}, std::vector<py::ssize_t>{width * item, item},
                             owned->data(), release);
}

Eigen::VectorXd to_vector(const std::vector<double>& x) {
  return Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
}

/// The options of a run, as the Python layer checked them (`_options` in python/dalembert/__init__.py);
/// each method option is checked again here against its description (io/method_options.hpp).
RunOptions run_options(const py::dict& o) {
  RunOptions r;
  r.method = o["method"].cast<std::string>();
  r.h = o["h"].cast<double>();
  r.steps = o["steps"].cast<long>();
  r.every = o["every"].cast<long>();
  for (const auto& d : method_options) {
    const py::handle value = o[py::str(std::string(d.name))];
    switch (d.kind) {
      case OptionKind::number: set_option(r, d.name, value.cast<double>()); break;
      case OptionKind::whole: set_option(r, d.name, value.cast<long>()); break;
      case OptionKind::choice: set_option(r, d.name, value.cast<std::string>()); break;
    }
  }
  r.reference_tolerance = o["reference_tolerance"].cast<double>();
  if (o.contains("t0")) r.t0 = o["t0"].cast<double>();
  return r;
}

InitialData initial_data(const OptionalVector& q0, const OptionalVector& v0, const OptionalVector& q1,
                         std::optional<double> z0) {
  InitialData init;
  if (q0) init.q0 = to_vector(*q0);
  if (v0) init.v0 = to_vector(*v0);
  if (q1) init.q1 = to_vector(*q1);
  init.z0 = z0;
  return init;
}

/// While it lives on the main thread, SIGINT asks the run to stop within its current step (status
/// "interrupted", the rows of its completed steps kept), or a study or an ensemble to start no
/// further run, instead of going to Python's handler, which cannot run while C++ holds the thread;
/// the Python layer then raises KeyboardInterrupt. On other threads it does nothing.
class StopOnInterrupt {
 public:
  explicit StopOnInterrupt(bool install) {
    if (!install) return;
    requested_.store(0);
    struct sigaction action {};
    action.sa_handler = [](int signal) { requested_.store(signal); };
    sigemptyset(&action.sa_mask);
    installed_ = ::sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~StopOnInterrupt() {
    if (installed_) ::sigaction(SIGINT, &previous_, nullptr);
  }
  StopOnInterrupt(const StopOnInterrupt&) = delete;
  StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;
  const std::atomic<int>* flag() const { return installed_ ? &requested_ : nullptr; }
  /// The signal received while it lived (0 if none).
  int received() const { return installed_ ? requested_.load() : 0; }

 private:
  static inline std::atomic<int> requested_{0};
  struct sigaction previous_ {};
  bool installed_ = false;
};

py::dict description(const catalogue::SystemDescription& d) {
  py::dict j;
  j["name"] = d.name;
  j["summary"] = d.summary;
  j["coordinates"] = d.coordinates;
  j["velocities"] = d.velocities;
  py::dict parameters, descriptions;
  for (const auto& p : d.parameters) {
    parameters[py::str(p.name)] = p.value;
    descriptions[py::str(p.name)] = p.description;
  }
  j["parameters"] = parameters;
  j["parameter_descriptions"] = descriptions;
  j["constraints"] = d.constraints;
  j["q0"] = d.q0;
  j["v0"] = d.v0;
  j["z0"] = d.z0 ? py::cast(*d.z0) : py::none();
  j["closed_form"] = d.closed_form;
  j["external_force"] = d.external_force;
  j["force_depends_on_time"] = d.force_depends_on_time;
  j["lagrangian_depends_on_time"] = d.lagrangian_depends_on_time;
  j["constraints_depend_on_time"] = d.constraints_depend_on_time;
  return j;
}

/// A run's JSON summary as text (invalid UTF-8 in a message replaced, as in `dalembert run --summary`).
std::string summary_text(const RunSummary& summary) {
  return cli::summary_json(summary).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

/// A run, as the Python layer receives it: column names, the rows, the JSON summary.
struct RunOutput {
  std::vector<std::string> columns;
  py::array_t<double> rows;
  std::string summary;
};

RunOutput run(const catalogue::Entry& entry, const Parameters& parameters, const InitialData& init,
              const py::dict& options, bool catch_interrupt) {
  RunOptions o = run_options(options);
  RunResult result;
  {
    const py::gil_scoped_release unlocked;
    const StopOnInterrupt interrupt(catch_interrupt);
    o.stop = interrupt.flag();
    result = entry.run(parameters, init, o);
  }
  const std::size_t width = result.trajectory.columns.size();
  return {std::move(result.trajectory.columns), to_array(std::move(result.trajectory.values), width),
          summary_text(result.summary)};
}

/// A handle on a catalogue entry or a loaded model (entries live as long as the process).
struct System {
  const catalogue::Entry* entry;
};

analysis::Problem problem(const System& s, const Parameters& parameters, InitialData init) {
  return {s.entry, parameters, std::move(init)};
}

/// What Python raises KeyboardInterrupt with when a study was stopped by `signal` (0: it was not).
py::dict interrupted(int signal) {
  py::dict j;
  j["interrupted"] = signal == 0 ? "" : "stopped by " + std::string(signal == SIGINT ? "SIGINT" : "a signal");
  return j;
}

py::dict run_comparison(const System& s, const Parameters& parameters, const OptionalVector& q0,
                        const OptionalVector& v0, const std::vector<std::string>& methods, const py::dict& options,
                        bool catch_interrupt) {
  const InitialData init = initial_data(q0, v0, std::nullopt, std::nullopt);
  RunOptions o = run_options(options);
  analysis::Comparison c;
  int stopped = 0;
  {
    const py::gil_scoped_release unlocked;
    const StopOnInterrupt interrupt(catch_interrupt);
    o.stop = interrupt.flag();
    try {
      c = analysis::compare_methods(problem(s, parameters, init), methods, o);
    } catch (const Interrupted& e) {
      stopped = e.signal();
    }
  }
  if (stopped) return interrupted(stopped);
  py::dict j = interrupted(0);
  const std::size_t width = c.table.columns.size();
  j["columns"] = c.table.columns;
  j["table"] = to_array(std::move(c.table.values), width);
  py::list runs;
  for (const auto& r : c.runs) runs.append(summary_text(r.summary));
  j["summaries"] = runs;
  j["reference"] = c.reference_kind;
  j["reference_failure"] = c.reference_failure;
  return j;
}

py::dict run_convergence(const System& s, const Parameters& parameters, const OptionalVector& q0,
                         const OptionalVector& v0, const std::string& method, const std::vector<double>& h_list,
                         double t_end, const py::dict& options, bool catch_interrupt) {
  const InitialData init = initial_data(q0, v0, std::nullopt, std::nullopt);
  RunOptions o = run_options(options);
  analysis::Convergence c;
  int stopped = 0;
  {
    const py::gil_scoped_release unlocked;
    const StopOnInterrupt interrupt(catch_interrupt);
    o.stop = interrupt.flag();
    try {
      c = analysis::convergence_study(problem(s, parameters, init), method, h_list, t_end, o);
    } catch (const Interrupted& e) {
      stopped = e.signal();
    }
  }
  if (stopped) return interrupted(stopped);
  py::dict j = interrupted(0);
  std::vector<double> h, error;
  std::vector<long> steps;
  std::vector<bool> fitted;
  std::vector<std::string> failures;
  for (const auto& row : c.rows) {
    h.push_back(row.h);
    steps.push_back(row.steps);
    error.push_back(row.error);
    fitted.push_back(row.fitted);
    failures.push_back(row.failure);
  }
  j["method"] = c.method;
  j["h"] = h;
  j["steps"] = steps;
  j["error"] = error;
  j["fitted"] = fitted;
  j["failures"] = failures;
  j["order"] = c.order;
  j["reference"] = c.reference_kind;
  j["failure"] = c.failure();
  return j;
}

/// Runs an ensemble's samples on `threads` threads (0: every core): the CSV text of `dalembert
/// ensemble`, one row per sample, and the problems of the samples that failed.
py::dict run_plan(ensemble::Plan& plan, unsigned threads, bool catch_interrupt) {
  ensemble::Chunk chunk;
  int stopped = 0;
  {
    const py::gil_scoped_release unlocked;
    const StopOnInterrupt interrupt(catch_interrupt);
    plan.options.stop = interrupt.flag();
    chunk = ensemble::run_chunk(plan, 0, plan.samples.size(), threads > 0 ? threads : ensemble::default_threads());
    plan.options.stop = nullptr;
    stopped = interrupt.received();
  }
  if (stopped) return interrupted(stopped);
  py::dict j = interrupted(0);
  j["csv"] = ensemble::csv_header(plan) + chunk.rows;
  py::list issues;
  for (const auto& issue : chunk.issues) {
    static const char* kinds[] = {"solver-failure", "bad-input", "internal-error"};
    issues.append(py::make_tuple(issue.sample, kinds[issue.kind], issue.message));
  }
  j["issues"] = issues;
  return j;
}

/// An ensemble over explicit samples (parameters and initial data per sample).
py::dict run_ensemble(const System& s, const std::vector<Parameters>& parameters, const std::vector<OptionalVector>& q0,
                      const std::vector<OptionalVector>& v0, const py::dict& options, unsigned threads,
                      bool catch_interrupt) {
  ensemble::Plan plan;
  plan.entry = s.entry;
  plan.options = run_options(options);
  plan.state_columns = ensemble::state_columns(s.entry->describe({}));
  std::vector<ensemble::Sample> samples;
  for (std::size_t k = 0; k < parameters.size(); ++k) {
    ensemble::Sample sample;
    sample.parameters = parameters[k];
    sample.initial = initial_data(q0[k], v0[k], std::nullopt, std::nullopt);
    samples.push_back(std::move(sample));
  }
  plan.samples = ensemble::listed_samples(std::move(samples));
  return run_plan(plan, threads, catch_interrupt);
}

/// An ensemble over parameter ranges, as `dalembert ensemble --param-range ... --sampling grid|random`:
/// the same samples, in the same order, so the same rows. `count`: values per range (grid) or
/// samples (random).
py::dict run_ensemble_ranges(const System& s, const Parameters& fixed,
                             const std::vector<std::tuple<std::string, double, double>>& ranges,
                             const std::string& sampling, long count, std::uint64_t seed, const py::dict& options,
                             unsigned threads, bool catch_interrupt) {
  ensemble::Plan plan;
  plan.entry = s.entry;
  plan.options = run_options(options);
  plan.state_columns = ensemble::state_columns(s.entry->describe(fixed));
  std::vector<ensemble::Range> checked;
  Parameters check = fixed;  // unknown names fail in describe(), with the known ones listed
  for (const auto& [name, lo, hi] : ranges) {
    checked.push_back({name, lo, hi});
    plan.varied_columns.push_back(name);
    check.emplace_back(name, lo);
  }
  s.entry->describe(check);
  plan.samples = sampling == "grid" ? ensemble::grid_samples(fixed, checked, count)
                                    : ensemble::random_samples(fixed, checked, count, seed);
  return run_plan(plan, threads, catch_interrupt);
}

/// A vector as a 1-D numpy array (a copy).
py::array_t<double> to_numpy(const Eigen::VectorXd& x) {
  py::array_t<double> a(x.size());
  std::copy(x.data(), x.data() + x.size(), a.mutable_data());
  return a;
}

/// A matrix as a 2-D numpy array in row-major order (a copy).
py::array_t<double> to_numpy(const Eigen::MatrixXd& x) {
  py::array_t<double> a({x.rows(), x.cols()});
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(a.mutable_data(), x.rows(),
                                                                                    x.cols()) = x;
  return a;
}

using InputArray = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// The stepper's input u: None is zero for every input; otherwise a number or a 1-D array (its size
/// and values are checked by the stepper).
Eigen::VectorXd input_of(const modelfile::Stepper& stepper, const std::optional<InputArray>& u) {
  if (!u) return Eigen::VectorXd::Zero(static_cast<Eigen::Index>(stepper.input_names().size()));
  if (u->ndim() > 1)
    throw BadInput("u must be one value per input, got an array of " + std::to_string(u->ndim()) + " dimensions");
  return Eigen::Map<const Eigen::VectorXd>(u->data(), u->ndim() == 0 ? 1 : u->shape(0));  // a number: one input
}

modelfile::Stepper make_stepper(const System& s, const Parameters& p, const OptionalVector& q0,
                                const OptionalVector& v0, const py::dict& options) {
  const auto model = modelfile::model_file_behind(*s.entry);
  if (!model)
    throw BadInput("a stepper steps model files (docs/control.md); " + s.entry->name +
                   " is a compiled catalogue system without one: write it as a model file");
  InitialData init = initial_data(q0, v0, std::nullopt, std::nullopt);
  init.project_v0 = options.contains("project_v0") && options["project_v0"].cast<bool>();
  return modelfile::Stepper(model, p, init, run_options(options));
}

/// Runs `compute` with the GIL released and Ctrl-C (on the main thread) asking it to stop; an
/// Interrupted becomes KeyboardInterrupt.
template <class Compute>
auto interruptible(bool on_main_thread, Compute&& compute) {
  std::string interrupted;
  decltype(compute(nullptr)) result{};
  {
    const StopOnInterrupt interrupt(on_main_thread);
    const py::gil_scoped_release unlocked;
    try {
      result = compute(interrupt.flag());
    } catch (const Interrupted& e) {
      interrupted = e.what();
    }
  }
  if (!interrupted.empty()) {
    PyErr_SetString(PyExc_KeyboardInterrupt, interrupted.c_str());
    throw py::error_already_set();
  }
  return result;
}

/// A numpy vector of the values.
py::array_t<double> column(const std::vector<double>& x) {
  return to_numpy(Eigen::VectorXd(Eigen::Map<const Eigen::VectorXd>(x.data(), std::ssize(x))));
}

/// (q0, v0) of a Jacobi field or an exponential map, v0 projected onto D(q0) if asked.
InitialData start_at(const OptionalVector& q0, const OptionalVector& v0, bool project_v0) {
  InitialData init = initial_data(q0, v0, std::nullopt, std::nullopt);
  init.project_v0 = project_v0;
  return init;
}

std::shared_ptr<const modelfile::LoadedModel> model_file_of(const System& s, const std::string& what) {
  auto model = modelfile::model_file_behind(*s.entry);
  if (!model)
    throw BadInput(what + " are computed for model files (docs/jacobi-fields.md); " + s.entry->name +
                   " is a compiled catalogue system without one: write it as a model file");
  return model;
}

/// The Jacobi field of a model file (docs/jacobi-fields.md), as a dict of numpy arrays; Ctrl-C on
/// the main thread stops it within a substep (KeyboardInterrupt).
py::dict jacobi_field(const System& s, const Parameters& p, const OptionalVector& q0, const OptionalVector& v0,
                      bool project_v0, const std::vector<double>& dq0, const std::vector<double>& dv0,
                      bool project_dv0, const std::vector<double>& times, double tolerance, bool on_main_thread) {
  const auto model = model_file_of(s, "Jacobi fields");
  const InitialData init = start_at(q0, v0, project_v0);
  const Eigen::Map<const Eigen::VectorXd> dq(dq0.data(), static_cast<Eigen::Index>(dq0.size()));
  const Eigen::Map<const Eigen::VectorXd> dv(dv0.data(), static_cast<Eigen::Index>(dv0.size()));
  const modelfile::JacobiField field = interruptible(on_main_thread, [&](const std::atomic<int>* stop) {
    return modelfile::jacobi_field(model, p, init, dq, dv, times, project_dv0, tolerance, stop);
  });
  py::dict d;
  d["t"] = column(field.t);
  d["q"] = to_numpy(field.q);
  d["v"] = to_numpy(field.v);
  d["W"] = to_numpy(field.W);
  d["W_dot"] = to_numpy(field.W_dot);
  d["dp"] = to_numpy(field.dp);
  d["linearised_constraint"] = column(field.linearised_constraint);
  return d;
}

using ColumnMajorArray = py::array_t<double, py::array::f_style | py::array::forcecast>;

py::dict exponential_map(const System& s, const Parameters& p, const OptionalVector& q0, const OptionalVector& v0,
                         bool project_v0, double h, const std::optional<ColumnMajorArray>& directions, double tolerance,
                         bool on_main_thread) {
  const auto model = model_file_of(s, "exponential maps");
  const InitialData init = start_at(q0, v0, project_v0);
  Eigen::MatrixXd W;
  if (directions) {
    if (directions->ndim() != 2) throw BadInput("directions must be a 2-D array, one column per direction");
    W = Eigen::Map<const Eigen::MatrixXd>(directions->data(), directions->shape(0), directions->shape(1));
  }
  const auto e = interruptible(on_main_thread, [&](const std::atomic<int>* stop) {
    return modelfile::exponential_map(model, p, init, h, W, tolerance, stop);
  });
  py::dict d;
  d["q"] = to_numpy(e.q);
  d["v"] = to_numpy(e.v);
  d["directions"] = to_numpy(e.directions);
  d["differential"] = to_numpy(e.differential);
  d["metric"] = to_numpy(e.metric);
  d["radial"] = to_numpy(e.radial);
  d["initial"] = to_numpy(e.initial);
  return d;
}

py::dict nonholonomic_connection(const System& s, const Parameters& p, const std::vector<double>& q) {
  const auto model = model_file_of(s, "the nonholonomic connection");
  const auto c = modelfile::nonholonomic_connection(model, p, Eigen::Map<const Eigen::VectorXd>(q.data(), q.size()));
  const auto n = static_cast<py::ssize_t>(c.christoffel.size());
  py::array_t<double> christoffel({n, n, n}), torsion({n, n, n}), curvature({n, n, n, n});
  auto gamma = christoffel.mutable_unchecked<3>(), t = torsion.mutable_unchecked<3>();
  auto r = curvature.mutable_unchecked<4>();
  for (py::ssize_t k = 0; k < n; ++k)
    for (py::ssize_t i = 0; i < n; ++i)
      for (py::ssize_t j = 0; j < n; ++j) {
        gamma(k, i, j) = c.christoffel[k](i, j);
        t(k, i, j) = c.torsion[k](i, j);
        for (py::ssize_t l = 0; l < n; ++l) r(k, i, j, l) = c.curvature[k][i](j, l);
      }
  py::dict d;
  d["christoffel"] = christoffel;
  d["torsion"] = torsion;
  d["curvature"] = curvature;
  return d;
}

py::array_t<double> jacobi_equation_residual(const System& s, const Parameters& p, const std::vector<double>& q,
                                             const std::vector<double>& v, const std::vector<double>& W,
                                             const std::vector<double>& W_dot, const OptionalVector& W_ddot) {
  const auto model = model_file_of(s, "the Jacobi equation");
  const auto map = [](const std::vector<double>& x) {
    return Eigen::Map<const Eigen::VectorXd>(x.data(), std::ssize(x));
  };
  std::optional<Eigen::VectorXd> second;
  if (W_ddot) second = map(*W_ddot);
  return to_numpy(modelfile::jacobi_equation_residual(model, p, map(q), map(v), map(W), map(W_dot), second));
}

py::list conjugate_points(const System& s, const Parameters& p, const OptionalVector& q0, const OptionalVector& v0,
                          bool project_v0, double t_end, int samples, double tolerance, bool on_main_thread) {
  const auto model = model_file_of(s, "conjugate points");
  const InitialData init = start_at(q0, v0, project_v0);
  const auto points = interruptible(on_main_thread, [&](const std::atomic<int>* stop) {
    return modelfile::conjugate_points(model, p, init, t_end, samples, tolerance, stop);
  });
  py::list out;
  for (const auto& c : points) {
    py::dict d;
    d["t"] = c.t;
    d["multiplicity"] = c.multiplicity;
    d["directions"] = to_numpy(c.directions);
    d["smallest_singular_value"] = c.smallest_singular_value;
    d["relative_size"] = c.relative_size;
    out.append(d);
  }
  return out;
}

py::dict maupertuis_jacobi(const System& s, const Parameters& p, const OptionalVector& q0, const OptionalVector& v0,
                           bool project_v0, double energy, const std::vector<double>& times, double tolerance,
                           bool on_main_thread) {
  const auto model = model_file_of(s, "the Maupertuis-Jacobi trajectories");
  const InitialData init = start_at(q0, v0, project_v0);
  const auto both = interruptible(on_main_thread, [&](const std::atomic<int>* stop) {
    return modelfile::maupertuis_jacobi(model, p, init, energy, times, tolerance, stop);
  });
  py::dict d;
  d["s"] = column(both.s);
  d["h"] = column(both.h);
  d["q"] = to_numpy(both.q);
  d["q_jacobi"] = to_numpy(both.q_jacobi);
  return d;
}

void bind_stepper(py::module_& m) {
  using modelfile::Stepper;
  py::class_<Stepper>(m, "Stepper",
                      "A model file stepped one step at a time with inputs, for closed loops (docs/control.md): "
                      "step(u, count), jacobians(u) -> (A, B), reset(q0, v0); state = (q, p), or (q, v) for rk4, "
                      "as state_names says; input_force: the force of a unit of each input (n x inputs).")
      .def(py::init(&make_stepper))
      .def(
          "step",
          [](Stepper& st, const std::optional<InputArray>& u, long count) {
            const Eigen::VectorXd input = input_of(st, u);
            if (count == 1) return void(st.step(input));  // the closed loop's call: as little as possible
            const auto threading = py::module_::import("threading");
            const StopOnInterrupt interrupt(threading.attr("current_thread")().is(threading.attr("main_thread")()));
            long taken = 0;
            {
              const py::gil_scoped_release unlocked;
              taken = st.step(input, count, interrupt.flag());
            }
            if (taken < count) {  // Ctrl-C: the state is that of the last completed step
              const std::string message =
                  "interrupted after " + std::to_string(taken) + " of " + std::to_string(count) + " steps";
              PyErr_SetString(PyExc_KeyboardInterrupt, message.c_str());
              throw py::error_already_set();
            }
          },
          py::arg("u") = py::none(), py::arg("count") = 1,
          "Steps `count` times with the inputs u held (None: zero), from the current state.")
      .def(
          "jacobians",
          [](const Stepper& st, const std::optional<InputArray>& u) {
            const modelfile::StepJacobians J = st.jacobians(input_of(st, u));
            return py::make_tuple(to_numpy(J.A), to_numpy(J.B));
          },
          py::arg("u") = py::none(),
          "(A, B) = (dx_{k+1}/dx_k, dx_{k+1}/du_k) of the step step(u) would take from the current state.")
      .def(
          "reset",
          [](Stepper& st, const OptionalVector& q0, const OptionalVector& v0) {
            st.reset(initial_data(q0, v0, std::nullopt, std::nullopt));
          },
          py::arg("q0") = py::none(), py::arg("v0") = py::none(),
          "Back to t = 0 from (q0, v0) (defaults: the model's initial data).")
      .def(
          "start_tangent",
          [](const Stepper& st, const std::vector<double>& dq0, const std::vector<double>& dv0) {
            return to_numpy(st.start_tangent(Eigen::Map<const Eigen::VectorXd>(dq0.data(), std::ssize(dq0)),
                                             Eigen::Map<const Eigen::VectorXd>(dv0.data(), std::ssize(dv0))));
          },
          py::arg("dq0"), py::arg("dv0"),
          "The variation of the start state for a variation (dq0, dv0) of the last reset's (q0, v0): "
          "(dq0, dp0), or (dq0, dv0) for rk4.")
      .def(
          "steady_motion",
          [](const Stepper& st, const std::vector<std::string>& symmetric, const std::vector<std::string>& rotation,
             const std::vector<std::string>& hold) {
            const catalogue::SteadyMotion m =
                st.steady_motion(catalogue::SteadyRequest{symmetric, rotation, !hold.empty(), hold});
            const auto list = [](const Eigen::VectorXcd& x) {
              return std::vector<std::complex<double>>(x.data(), x.data() + x.size());
            };
            py::dict out;
            out["symmetric"] = m.symmetric;
            out["rotation"] = m.rotation;
            out["eigenvalues"] = list(m.eigenvalues);
            out["multipliers"] = list(m.multipliers);
            out["rates"] = std::vector<double>(m.rates.data(), m.rates.data() + m.rates.size());
            out["q0"] = to_numpy(m.q0);
            out["v0"] = to_numpy(m.v0);
            out["iterations"] = m.iterations;
            out["resolution"] = m.resolution;
            out["growing_modes"] = m.growing_modes;
            return out;
          },
          py::arg("symmetric"), py::arg("rotation"), py::arg("hold"),
          "The step's steady motion nearest the current state and its linearisation there "
          "(dalembert.discrete_steady_motion).")
      .def_property_readonly("state", [](const Stepper& st) { return to_numpy(st.state()); })
      .def_property_readonly("q", [](const Stepper& st) { return to_numpy(st.q()); })
      .def_property_readonly("v", [](const Stepper& st) { return to_numpy(st.v()); })
      .def_property_readonly("t", &Stepper::t)
      .def_property_readonly("steps", &Stepper::steps)
      .def_property_readonly("input_names", &Stepper::input_names)
      .def_property_readonly("state_names", &Stepper::state_names)
      .def_property_readonly("input_force", [](const Stepper& st) { return to_numpy(st.input_force()); });
}

}  // namespace
}  // namespace dalembert::python

PYBIND11_MODULE(_core, m) {
  using namespace dalembert;
  using namespace dalembert::python;
  m.doc() = "dalembert's compiled core; use the package `dalembert` (docs/python.md)";
  m.attr("version") = support::full_version();  // 0.1.0+g<commit>[.modified], as `dalembert --version`

  // The package's exceptions (python/dalembert/__init__.py re-exports them): BadInput is a
  // ValueError, SolverError a RuntimeError.
  static py::exception<BadInput> bad_input(m, "BadInput", PyExc_ValueError);
  static py::exception<NumericalFailure> solver_error(m, "SolverError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const BadInput& e) {
      bad_input(e.what());
    } catch (const NumericalFailure& e) {
      solver_error(e.what());
    }
  });

  // The defaults of RunOptions and the description of each method option, so that the Python
  // layer's checks and defaults come from the one table of io/method_options.hpp.
  m.def("default_options", [] {
    const RunOptions o;
    py::dict j;
    for (const auto& d : method_options)
      std::visit([&](const auto& value) { j[py::str(std::string(d.name))] = value; }, option_value(o, d.name));
    j["reference_tolerance"] = o.reference_tolerance;
    return j;
  });
  m.def("check_run_options", [](const py::dict& o) { check_options(run_options(o)); });
  m.def("method_options", [] {
    py::list all;
    for (const auto& d : method_options) {
      py::dict j;
      j["name"] = std::string(d.name);
      j["kind"] = d.kind == OptionKind::number ? "number" : d.kind == OptionKind::whole ? "whole" : "choice";
      j["help"] = std::string(d.help);
      j["values"] = option_values(d);
      j["low"] = d.low;
      j["high"] = d.high;
      j["above_low"] = d.above_low;
      py::list choices;
      for (const auto c : d.choices)
        if (!c.empty()) choices.append(std::string(c));
      j["choices"] = py::tuple(choices);
      all.append(j);
    }
    return all;
  });
  m.attr("max_steps") = max_steps;
  m.attr("max_samples") = ensemble::max_samples;

  m.def("systems", [] {
    std::vector<std::pair<std::string, std::string>> all;
    for (const auto& e : catalogue::entries()) all.emplace_back(e.name, e.describe({}).summary);
    return all;
  });
  m.def("methods", [] {
    std::vector<std::tuple<std::string, std::string, std::string>> all;
    for (const auto& d : method_descriptions) all.emplace_back(d.name, d.summary, d.systems);
    return all;
  });

  py::class_<System>(m, "System")
      .def("describe", [](const System& s, const Parameters& p) { return description(s.entry->describe(p)); })
      .def("run",
           [](const System& s, const Parameters& p, const OptionalVector& q0, const OptionalVector& v0,
              const OptionalVector& q1, std::optional<double> z0, const py::dict& options, bool catch_interrupt) {
             InitialData init = initial_data(q0, v0, q1, z0);
             init.project_v0 = options.contains("project_v0") && options["project_v0"].cast<bool>();
             if (options.contains("v0_names")) init.v0_names = options["v0_names"].cast<std::vector<std::string>>();
             const RunOutput out = run(*s.entry, p, init, options, catch_interrupt);
             return py::make_tuple(out.columns, out.rows, out.summary);
           })
      .def("exact",
           [](const System& s, const Parameters& p, const OptionalVector& q0, const OptionalVector& v0,
              double t) -> std::optional<std::vector<double>> {
             const auto q = s.entry->exact(p, initial_data(q0, v0, std::nullopt, std::nullopt), t);
             if (!q) return std::nullopt;
             return std::vector<double>(q->data(), q->data() + q->size());
           })
      .def("steady",
           [](const System& s, const Parameters& p, const OptionalVector& q0, const OptionalVector& v0,
              const std::vector<std::string>& symmetric, const std::vector<std::string>& rotation, bool find,
              const std::vector<std::string>& hold) {
             const catalogue::SteadyRequest request{symmetric, rotation, find, hold};
             if (!s.entry->steady)
               throw BadInput("steady motions are those of Lagrange-d'Alembert models of compiled sizes or from a "
                              "file; " + s.entry->name + " is not one");
             const catalogue::SteadyMotion m =
                 s.entry->steady(p, initial_data(q0, v0, std::nullopt, std::nullopt), request);
             const std::vector<std::complex<double>> values(m.eigenvalues.data(),
                                                            m.eigenvalues.data() + m.eigenvalues.size());
             std::vector<std::vector<double>> rows(m.on_constraint.rows());
             for (Eigen::Index i = 0; i < m.on_constraint.rows(); ++i)
               for (Eigen::Index j = 0; j < m.on_constraint.cols(); ++j) rows[i].push_back(m.on_constraint(i, j));
             const auto list = [](const Eigen::VectorXd& x) { return std::vector<double>(x.data(), x.data() + x.size()); };
             py::dict out;
             out["symmetric"] = m.symmetric;
             out["rotation"] = m.rotation;
             out["eigenvalues"] = values;
             out["on_constraint"] = rows;
             out["q0"] = list(m.q0);
             out["v0"] = list(m.v0);
             out["rates"] = list(m.rates);
             out["iterations"] = m.iterations;
             out["resolution"] = m.resolution;
             out["growing_modes"] = m.growing_modes;
             return out;
           })
      .def_property_readonly("source_text", [](const System& s) { return s.entry->source_text; })
      .def("compare", &run_comparison)
      .def("convergence", &run_convergence)
      .def("ensemble", &run_ensemble)
      .def("ensemble_ranges", &run_ensemble_ranges);

  bind_stepper(m);
  m.def("jacobi_field", &jacobi_field);
  m.def("exponential_map", &exponential_map);
  m.def("nonholonomic_connection", &nonholonomic_connection);
  m.def("jacobi_equation_residual", &jacobi_equation_residual);
  m.def("conjugate_points", &conjugate_points);
  m.def("maupertuis_jacobi", &maupertuis_jacobi);
  m.attr("stepper_methods") = modelfile::Stepper::method_names();

  m.def("find", [](const std::string& name) {
    const py::gil_scoped_release unlocked;  // a model file may be compiled
    return System{&catalogue::find(name)};
  });
  m.def("model_file", [](const std::string& path) {
    const py::gil_scoped_release unlocked;
    return System{&modelfile::model_file_entry(path)};
  });
  m.def("model_text", [](const std::string& text, const std::string& label) {
    const py::gil_scoped_release unlocked;
    return System{&modelfile::model_text_entry(text, label)};
  });
}
