// Time to a given accuracy: for a position error of at most --target (default 1e-10) at T = 10 on
// the vertical disk and the Chaplygin sleigh, the fewest steps N (h = T/N) each method needs and the
// wall time of that run (median of --repeats, in this process, without output), and SUNDIALS IDA on
// the index-2 DAE with the loosest tolerance that reaches the target (when built with SUNDIALS).
//
//   build/bench/time_to_accuracy [--target 1e-10] [--repeats 5] [--t-end 10] [--only TEXT]
//   build/bench/time_to_accuracy --long-run 1000000 [--h 0.1] [--ida-tolerance 1e-10] [--only TEXT]
//
// --only keeps the methods whose name contains TEXT (the order-2 methods need 10^5 to 10^7 steps
// here and take most of the program's ten minutes).
//
// The error is |q_N − q(T)|_inf against the vertical disk's closed form and, for the sleigh, the
// library's reference solver (Bulirsch–Stoer at tolerance 1e-13). N doubles from 4 until the target
// is met, then is bisected between the last two counts. Every run also reports its largest energy
// error |E_k − E_0| and constraint residual |M(q_k) v_k| over the step points.
//
// --long-run N instead runs N steps of h on the contact oscillator (where rk4 drifts) and the
// Chaplygin sleigh with discrete-gradient, spark (3, 4 and 5 stages), rk4 and IDA (output at every k h),
// and reports the energy error over the first and the last tenth, the constraint and the time.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/contact_oscillator.hpp"
#include "dalembert/models/vertical_disk.hpp"

#if defined(DALEMBERT_WITH_SUNDIALS)
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#endif

using namespace dalembert;

namespace {

struct Outcome {
  double error = NAN, seconds = NAN, energy = 0.0, constraint = 0.0;
  long work = 0;  ///< steps (or, for IDA, its internal steps)
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// N steps of a method from (q0, v0): the error at T and, with `diagnostics` (then not timed), the
/// largest energy and constraint errors at the step points.
template <class S, class Make>
Outcome run_method(const S& sys, const Make& make, const PhasePoint<S::n>& x0, const Vecd<S::n>& q_end, double T,
                   long N, bool diagnostics) {
  const auto method = make(sys, T / static_cast<double>(N));
  const auto start = std::chrono::steady_clock::now();
  auto s = method.initial_state(x0.q, x0.v);
  const double E0 = energy(sys, x0.q, x0.v);
  Outcome o;
  for (long k = 0; k < N; ++k) {
    try {
      method.step(s);
    } catch (const SolverError&) {  // a step too large for Newton: the target is not met
      o.work = N;
      return o;
    }
    if (diagnostics) {
      const Vecd<S::n> v = method.velocity(s);
      o.energy = std::max(o.energy, std::abs(energy(sys, s.q, v) - E0));
      o.constraint = std::max(o.constraint, constraint_residual(sys, s.q, v));
    }
  }
  o.seconds = seconds_since(start);
  o.error = (s.q - q_end).template lpNorm<Eigen::Infinity>();
  o.work = N;
  return o;
}

/// The cheapest setting of a family of runs that meets the target: `at(i)` for i = 1, 2, ... is
/// ever more accurate (i doubles N, or tightens IDA's tolerance).
Outcome cheapest(double target, const std::function<Outcome(long)>& at_steps, long first, long last) {
  long N = first;
  Outcome o = at_steps(N);
  while (!(o.error <= target) && N < last) o = at_steps(N *= 2);
  if (!(o.error <= target)) return o;
  long low = N / 2, high = N;  // low fails (or is below the first count), high meets the target
  if (low < first) return o;
  while (high - low > std::max(1L, high / 64)) {
    const long mid = (low + high) / 2;
    const Outcome m = at_steps(mid);
    if (m.error <= target) high = mid, o = m;
    else low = mid;
  }
  return o;
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

#if defined(DALEMBERT_WITH_SUNDIALS)
/// The Lagrange–d'Alembert equations of a model as the index-2 DAE IDA solves, y = (q, v, λ):
///   q' − v = 0,   W(q, v) v' + B(q, v) v − L_q(q, v) − M(q)ᵀλ = 0,   M(q) v = 0.
template <class S>
struct Dae {
  const S* sys;
  static int residual(sunrealtype, N_Vector y, N_Vector yp, N_Vector r, void* data) {
    const auto& self = *static_cast<Dae*>(data);
    constexpr int n = S::n, m = S::m;
    const Eigen::Map<const Eigen::Matrix<double, 2 * n + m, 1>> Y(N_VGetArrayPointer(y)), Yp(N_VGetArrayPointer(yp));
    Eigen::Map<Eigen::Matrix<double, 2 * n + m, 1>> R(N_VGetArrayPointer(r));
    const Vecd<n> q = Y.template head<n>(), v = Y.template segment<n>(n), a = Yp.template segment<n>(n);
    const Vecd<m> lambda = Y.template tail<m>();
    const auto d = lagrangian_derivatives(*self.sys, q, v);
    const Matd<m, n> M = self.sys->template constraint_matrix<double>(q);
    R.template head<n>() = Yp.template head<n>() - v;
    R.template segment<n>(n) = d.W * a + d.B * v - d.Lq - M.transpose() * lambda;
    R.template tail<m>() = M * v;
    return 0;
  }
};

/// IDA on the DAE of a model from consistent initial values, advanced to output times with
/// IDA_NORMAL (its own steps, interpolated to the output time).
template <class S>
class IdaRun {
 public:
  static constexpr int n = S::n, m = S::m, size = 2 * n + m;

  IdaRun(const S& sys, const PhasePoint<S::n>& x0, double tolerance) : dae_{&sys} {
    SUNContext_Create(nullptr, &context_);
    y_ = N_VNew_Serial(size, context_), yp_ = N_VNew_Serial(size, context_), id_ = N_VNew_Serial(size, context_);
    const auto start_values = constrained_acceleration(sys, x0.q, x0.v, 0.0);  // consistent (y, y')
    double* Y = N_VGetArrayPointer(y_);
    double* Yp = N_VGetArrayPointer(yp_);
    double* Id = N_VGetArrayPointer(id_);
    for (int i = 0; i < n; ++i) {
      Y[i] = x0.q[i], Y[n + i] = x0.v[i];
      Yp[i] = x0.v[i], Yp[n + i] = start_values.acceleration[i];
      Id[i] = Id[n + i] = 1.0;
    }
    for (int a = 0; a < m; ++a) Y[2 * n + a] = start_values.multiplier[a], Yp[2 * n + a] = 0.0, Id[2 * n + a] = 0.0;
    ida_ = IDACreate(context_);
    IDAInit(ida_, &Dae<S>::residual, 0.0, y_, yp_);
    IDASStolerances(ida_, tolerance, tolerance);
    A_ = SUNDenseMatrix(size, size, context_);
    solver_ = SUNLinSol_Dense(y_, A_, context_);
    IDASetLinearSolver(ida_, solver_, A_);
    IDASetUserData(ida_, &dae_);
    IDASetId(ida_, id_);
    IDASetSuppressAlg(ida_, SUNTRUE);  // index 2: the multipliers stay out of the error test
    IDASetMaxNumSteps(ida_, 10'000'000);
  }
  IdaRun(const IdaRun&) = delete;
  IdaRun& operator=(const IdaRun&) = delete;
  ~IdaRun() {
    IDAFree(&ida_);
    SUNLinSolFree(solver_);
    SUNMatDestroy(A_);
    N_VDestroy(y_), N_VDestroy(yp_), N_VDestroy(id_);
    SUNContext_Free(&context_);
  }

  /// Advances to t; false if IDA failed.
  bool advance_to(double t) {
    sunrealtype reached = 0.0;
    return IDASolve(ida_, t, &reached, y_, yp_, IDA_NORMAL) >= 0;
  }
  Vecd<n> q() const { return Eigen::Map<const Vecd<n>>(N_VGetArrayPointer(y_)); }
  Vecd<n> v() const { return Eigen::Map<const Vecd<n>>(N_VGetArrayPointer(y_) + n); }
  long steps() const {
    long k = 0;
    IDAGetNumSteps(ida_, &k);
    return k;
  }

 private:
  Dae<S> dae_;
  SUNContext context_;
  N_Vector y_, yp_, id_;
  void* ida_;
  SUNMatrix A_;
  SUNLinearSolver solver_;
};

template <class S>
Outcome run_ida(const S& sys, const PhasePoint<S::n>& x0, const Vecd<S::n>& q_end, double T, double tolerance) {
  const auto start = std::chrono::steady_clock::now();
  IdaRun<S> ida(sys, x0, tolerance);
  const bool ok = ida.advance_to(T);
  Outcome o;
  o.seconds = seconds_since(start);
  o.work = ida.steps();
  const Vecd<S::n> q = ida.q(), v = ida.v();
  o.error = ok ? (q - q_end).template lpNorm<Eigen::Infinity>() : NAN;
  o.energy = std::abs(energy(sys, q, v) - energy(sys, x0.q, x0.v));  // at T only (IDA_NORMAL)
  o.constraint = constraint_residual(sys, q, v);
  return o;
}
#endif

template <class S>
void compare(const char* name, const S& sys, const Vecd<S::n>& q_end, double T, double target, int repeats,
             const std::string& only) {
  const auto x0 = sys.default_initial();
  const auto wanted = [&](const std::string& method) { return method.find(only) != std::string::npos; };
  const auto report = [&](const char* method, const std::string& setting, const Outcome& best,
                          const std::function<Outcome()>& again) {
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) times.push_back(again().seconds);
    std::printf("| %s | %s | %s | %.1e | %.3g ms | %ld | %.1e | %.1e |\n", name, method, setting.c_str(), best.error,
                1e3 * median(times), best.work, best.energy, best.constraint);
    std::fflush(stdout);
  };
  const auto method_row = [&](const char* method, auto make, long first) {
    if (!wanted(method)) return;
    const auto at = [&](long N) { return run_method(sys, make, x0, q_end, T, N, false); };
    const long N = cheapest(target, at, first, 1L << 24).work;
    const Outcome best = run_method(sys, make, x0, q_end, T, N, true);
    char setting[64];
    std::snprintf(setting, sizeof setting, "h = %.4g", T / static_cast<double>(N));
    report(method, setting, best, [&] { return at(N); });
  };
  method_row("rk4", [](const S& s, double h) { return RungeKutta4<S>(s, h); }, 4);
  method_row("dla", [](const S& s, double h) { return make_dla(s, h); }, 4);
  method_row("mclachlan-perlmutter", [](const S& s, double h) { return McLachlanPerlmutter<S>(s, h); }, 4);
  method_row("discrete-gradient", [](const S& s, double h) { return DiscreteGradient<S>(s, h); }, 4);
  method_row("spark --stages 2", [](const S& s, double h) { return Spark<S>(s, h, 2); }, 4);
  method_row("spark --stages 3", [](const S& s, double h) { return Spark<S>(s, h, 3); }, 4);
  method_row("spark --stages 4", [](const S& s, double h) { return Spark<S>(s, h, 4); }, 4);
  method_row(
      "spark --stages 5", [](const S& s, double h) { return Spark<S>(s, h, 5); }, 4);
#if defined(DALEMBERT_WITH_SUNDIALS)
  if (!wanted("SUNDIALS IDA")) return;
  // IDA: the loosest tolerance 10^(-k/4) that reaches the target
  Outcome best;
  double tolerance = 1e-3;
  for (int k = 12; k <= 64; ++k) {
    tolerance = std::pow(10.0, -k / 4.0);
    best = run_ida(sys, x0, q_end, T, tolerance);
    if (best.error <= target) break;
  }
  char setting[64];
  std::snprintf(setting, sizeof setting, "rtol = atol = %.1e", tolerance);
  report("SUNDIALS IDA", setting, best, [&] { return run_ida(sys, x0, q_end, T, tolerance); });
#else
  std::printf("| %s | SUNDIALS IDA | not built (scripts/install-deps.sh --benchmarks installs it) | | | | | |\n", name);
#endif
}

/// Largest |E_k − E_0| over the first and the last tenth of a run and over all of it, and largest |M(q_k) v_k|.
struct LongRunTally {
  double first_tenth = 0.0, last_tenth = 0.0, all = 0.0, constraint = 0.0;
};

/// --long-run N: N steps of h from the default data with each structure-preserving method of
/// order > 2 or with exact energy, rk4 at the same h, and IDA at a fixed tolerance with output at
/// the same times. The times include evaluating E and |M v| at every step point, the same for all.
template <class S>
void long_run(const char* name, const S& sys, double h, long N, double ida_tolerance, const std::string& only) {
  const auto x0 = sys.default_initial();
  const double E0 = energy(sys, x0.q, x0.v);
  const long tenth = std::max(1L, N / 10);
  const auto note = [&](LongRunTally& t, long k, const Vecd<S::n>& q, const Vecd<S::n>& v) {
    const double e = std::abs(energy(sys, q, v) - E0);
    if (k <= tenth) t.first_tenth = std::max(t.first_tenth, e);
    if (k > N - tenth) t.last_tenth = std::max(t.last_tenth, e);
    t.all = std::max(t.all, e);
    t.constraint = std::max(t.constraint, constraint_residual(sys, q, v));
  };
  const auto row = [&](const char* method, const std::string& setting, const LongRunTally& t, double seconds,
                       long work) {
    std::printf("| %s | %s | %s | %.1e | %.1e | %.1e | %.1e | %.3g s | %ld |\n", name, method, setting.c_str(),
                t.first_tenth, t.last_tenth, t.all, t.constraint, seconds, work);
    std::fflush(stdout);
  };
  char step[64];
  std::snprintf(step, sizeof step, "h = %g", h);
  const auto method_row = [&](const char* method, auto make) {
    if (std::string(method).find(only) == std::string::npos) return;
    const auto integrator = make(sys, h);
    const auto start = std::chrono::steady_clock::now();
    auto s = integrator.initial_state(x0.q, x0.v);
    LongRunTally t;
    for (long k = 1; k <= N; ++k) {
      integrator.step(s);
      note(t, k, s.q, integrator.velocity(s));
    }
    row(method, step, t, seconds_since(start), N);
  };
  method_row("rk4", [](const S& s, double h) { return RungeKutta4<S>(s, h); });
  method_row("discrete-gradient", [](const S& s, double h) { return DiscreteGradient<S>(s, h); });
  method_row("spark --stages 3", [](const S& s, double h) { return Spark<S>(s, h, 3); });
  method_row("spark --stages 4", [](const S& s, double h) { return Spark<S>(s, h, 4); });
  method_row("spark --stages 5", [](const S& s, double h) { return Spark<S>(s, h, 5); });
#if defined(DALEMBERT_WITH_SUNDIALS)
  if (std::string("SUNDIALS IDA").find(only) == std::string::npos) return;
  const auto start = std::chrono::steady_clock::now();
  IdaRun<S> ida(sys, x0, ida_tolerance);
  LongRunTally t;
  for (long k = 1; k <= N; ++k) {
    if (!ida.advance_to(static_cast<double>(k) * h)) {
      std::printf("| %s | SUNDIALS IDA | failed at step %ld | | | | | | |\n", name, k);
      return;
    }
    note(t, k, ida.q(), ida.v());
  }
  char setting[96];
  std::snprintf(setting, sizeof setting, "rtol = atol = %.0e, output every %g", ida_tolerance, h);
  row("SUNDIALS IDA", setting, t, seconds_since(start), ida.steps());
#else
  (void)ida_tolerance;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  double target = 1e-10, T = 10.0, h = 0.1, ida_tolerance = 1e-10;
  int repeats = 5;
  long long_run_steps = 0;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--target") target = std::atof(argv[i + 1]);
    else if (option == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (option == "--t-end") T = std::atof(argv[i + 1]);
    else if (option == "--only") only = argv[i + 1];
    else if (option == "--long-run")
      long_run_steps = std::atol(argv[i + 1]);
    else if (option == "--h")
      h = std::atof(argv[i + 1]);
    else if (option == "--ida-tolerance")
      ida_tolerance = std::atof(argv[i + 1]);
    else {
      std::fprintf(stderr,
                   "unknown option %s (known: --target, --repeats, --t-end, --only, --long-run, --h, "
                   "--ida-tolerance)\n",
                   option.c_str());
      return 2;
    }
  }
  if (!(target > 0) || !(T > 0) || repeats < 1 || long_run_steps < 0 || !(h > 0) || !(ida_tolerance > 0)) {
    std::fprintf(stderr,
                 "--target, --t-end, --h and --ida-tolerance must be positive, --repeats at least 1, "
                 "--long-run at least 0\n");
    return 2;
  }
  if (long_run_steps > 0) {
    std::printf(
        "%ld steps of h = %g from the default data; energy error |E_k - E_0| over the first and the last "
        "tenth and over the run, constraint |M v| over the run.\n\n",
        long_run_steps, h);
    std::printf(
        "| system | method | setting | max energy error, first tenth | last tenth | whole run | max constraint | "
        "time | steps |\n|---|---|---|---|---|---|---|---|---|\n");
    long_run("contact-oscillator", models::ContactOscillator{}, h, long_run_steps, ida_tolerance, only);
    long_run("chaplygin-sleigh", models::ChaplyginSleigh{}, h, long_run_steps, ida_tolerance, only);
    return 0;
  }
  std::printf("Position error <= %.0e at T = %g; wall time median of %d runs.\n\n", target, T, repeats);
  std::printf("| system | method | setting | error | time | steps | max energy error | max constraint |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  const models::VerticalDisk disk;
  compare("vertical-disk", disk, disk.exact_solution(disk.default_initial(), T)->q, T, target, repeats, only);
  const models::ChaplyginSleigh sleigh;
  const auto s0 = sleigh.default_initial();
  compare("chaplygin-sleigh", sleigh, reference_solution(sleigh, s0.q, s0.v, T).q, T, target, repeats, only);
  return 0;
}
