// Experiments on the field's other integrators: what makes a nonholonomic integrator keep the
// energy (Modin and Verdier: reversibility, not a variational origin), and what high order with
// structure buys at a given accuracy (a work–precision figure of every method).
#include <cmath>
#include <limits>

#include "report/experiment_support.hpp"

namespace dalembert::report {

namespace {

Outcome reversible_against_non_reversible(const Context& ctx) {
  // The two systems have the same motion in (q, v); the second's Lagrangian has the gauge term
  // sin(z) ż, which the α-rule discretisation of L sees and breaks the reversibility of the map.
  struct System {
    std::string name, label;
  };
  const std::vector<System> systems = {{"contact-oscillator", "reversible contact oscillator"},
                                       {"non-reversible-contact-oscillator", "non-reversible variant (+ sin(z) z')"}};
  struct Case {
    std::string method, label, color;
    bool geometric;
  };
  const std::vector<Case> cases = {{"dla", "DLA (midpoint)", "tab:blue", true},
                                   {"mla", "MLA (midpoint)", "tab:orange", true},
                                   {"rk4", "RK4", "tab:red", false}};
  const double h = 0.1;
  const long N = ctx.quick ? 400000 : 1000000;
  const long block = N / 200;
  Outcome out;
  bool reversible_bounded = true, non_reversible_drifts = true;
  std::vector<std::vector<double>> rk4_energy;
  for (const Case& c : cases) {
    Figure fig{ctx.path(c.method + "_energy"),
               c.label + ", h = 0.1: energy error over " + (ctx.quick ? "4e5" : "1e6") + " steps",
               "t",
               "$\\max |E_k - E_0|$ over blocks of " + std::to_string(block) + " steps",
               "linear",
               "log",
               false,
               {}};
    for (std::size_t i = 0; i < systems.size(); ++i) {
      const System& sys = systems[i];
      const auto r = run_system(sys.name, {}, {}, options(c.method, h, N, 1));
      const auto energy = column(r.trajectory, "energy");
      const Spread s = spread(energy);
      const std::string file = sys.name + "_" + c.method + ".csv";
      write_table(ctx.path(file), block_maxima(column(r.trajectory, "t"), energy, block));
      fig.series.push_back({ctx.path(file), "t", "max_energy_error", sys.label, i == 0 ? "line" : "dashed", "",
                            i == 0 ? c.color : "black"});
      const double ratio = s.last_tenth / s.first_tenth;
      out.numbers.push_back(
          {c.label + " on the " + sys.label + ": max |E_k - E_0|, first tenth / last tenth",
           format(s.first_tenth) + " / " + format(s.last_tenth),
           "ratio " + format(ratio, 3) + "; wall time " + format(r.summary.wall_time_seconds, 2) + " s"});
      if (c.geometric && i == 0) reversible_bounded = reversible_bounded && ratio <= 1.5;
      if (c.geometric && i == 1) non_reversible_drifts = non_reversible_drifts && ratio >= 2.0;
      if (!c.geometric) rk4_energy.push_back(energy);
    }
    out.figures.push_back(fig);
  }
  // The two RK4 runs evaluate the same accelerations through different code (the metric's fast path
  // and the general Lagrangian's), so they differ by rounding, which the motion amplifies over time.
  const std::size_t early = 10000;
  double rk4_difference = 0.0;
  for (std::size_t k = 0; k <= early; ++k)
    rk4_difference = std::max(rk4_difference, std::abs(rk4_energy[0][k] - rk4_energy[1][k]));
  const bool rk4_same = rk4_difference < 1e-10;
  out.numbers.push_back({"RK4: largest difference of the energy series of the two systems over the first 1e4 steps",
                         format(rk4_difference),
                         "RK4 integrates the same equations of motion for both; the rounding differences of the two "
                         "evaluations grow over the run"});
  out.verdict = reversible_bounded && non_reversible_drifts && rk4_same ? Verdict::supported : Verdict::not_supported;
  out.explanation =
      std::string(reversible_bounded
                      ? "DLA's and MLA's energy errors stay bounded on the reversible system (last tenth "
                        "of the run within 1.5 times the first)"
                      : "DLA's or MLA's energy error grows on the reversible system") +
      (non_reversible_drifts ? " and drift on the non-reversible one (last tenth at least twice the first), "
                             : " but not both drift on the non-reversible one (last tenth below twice the first), ") +
      "though both systems have the same motion: " +
      (rk4_same ? "RK4, which sees only the equations of motion, gives the same energy series for both (to 1e-10 over "
                  "the first 1e4 steps). "
                : "yet RK4's energy series differ, which they should not. ") +
      "The gauge term sin(z) z' = -d/dt cos z changes the discrete Lagrangian by a term that is not a discrete "
      "total difference, so the discrete map stops being reversible under v -> -v: Modin and Verdier's point is "
      "that reversibility, not a variational origin, is what keeps the energy of a nonholonomic integrator bounded. "
      "RK4 is neither and drifts on both. Not shown: GF-1/2 on the non-reversible variant is unstable (energy error "
      "4e5 after 5e5 steps of h = 0.1); the methods written with a metric (mclachlan-perlmutter, discrete-gradient, "
      "spark, fim) do not take a Lagrangian with a gauge term.";
  return out;
}

/// Position error at t_end against wall time for a method over a list of step sizes.
struct WorkPrecisionCurve {
  std::vector<double> h, error, seconds, steps;
};

/// The wall time a curve needs to reach `target`: the number of steps, interpolated in log–log
/// between the runs that bracket the target or, past the finest run, extrapolated along the slope of
/// the last two runs, times the finest run's time per step (the longest run, the least disturbed
/// by timer resolution); NaN if the error does not fall with h.
double time_to(const WorkPrecisionCurve& c, double target) {
  std::size_t k = 1;
  while (k + 1 < c.error.size() && !(c.error[k] <= target)) ++k;
  const double slope = std::log(c.error[k] / c.error[k - 1]) / std::log(c.steps[k] / c.steps[k - 1]);
  if (!(slope < 0)) return std::numeric_limits<double>::quiet_NaN();
  const double steps =
      c.error[0] <= target ? c.steps[0] : c.steps[k - 1] * std::pow(target / c.error[k - 1], 1.0 / slope);
  return steps * c.seconds.back() / c.steps.back();
}

Outcome work_precision(const Context& ctx) {
  struct System {
    std::string name, label;
  };
  const std::vector<System> systems = {{"vertical-disk", "Vertical disk"}, {"chaplygin-sleigh", "Chaplygin sleigh"}};
  struct Case {
    std::string label, method;
    double alpha;
    int stages, order;
    std::string color;
  };
  const std::vector<Case> cases = {{"DLA", "dla", 0.5, 3, 2, "tab:blue"},
                                   {"MLA", "mla", 0.5, 3, 2, "tab:orange"},
                                   {"GF-1/2", "gf", 0.5, 3, 2, "tab:green"},
                                   {"GF-sym-1/4", "gf-sym", 0.25, 3, 2, "tab:cyan"},
                                   {"FIM", "fim", 0.5, 3, 2, "tab:brown"},
                                   {"McLachlan-Perlmutter", "mclachlan-perlmutter", 0.5, 3, 2, "tab:olive"},
                                   {"discrete gradient", "discrete-gradient", 0.5, 3, 2, "tab:pink"},
                                   {"SPARK, 2 stages", "spark", 0.5, 2, 2, "tab:gray"},
                                   {"SPARK, 3 stages", "spark", 0.5, 3, 4, "tab:purple"},
                                   {"SPARK, 4 stages", "spark", 0.5, 4, 6, "black"},
                                   {"SPARK, 5 stages", "spark", 0.5, 5, 8, "maroon"},
                                   {"RK4", "rk4", 0.5, 3, 4, "tab:red"}};
  const double t_end = 10.0, target = 1e-8;
  const int refinements = ctx.quick ? 5 : 8;
  Outcome out;
  std::vector<std::string> slower;  // second-order methods faster than SPARK to the target
  for (const System& sys : systems) {
    analysis::Problem problem{&catalogue::find(sys.name), {}, {}};
    RunOptions finest = options("reference", 0.2 / std::pow(2.0, refinements - 1),
                                std::lround(t_end * std::pow(2.0, refinements - 1) / 0.2));
    finest.every = finest.steps;
    const auto ref = analysis::reference_positions(problem, finest, {0.0, t_end});
    Figure fig{ctx.path(sys.name),
               sys.label + ": position error at T = 10 against wall time",
               "wall time (s)",
               "$|q_N - q(T)|_\\infty$",
               "log",
               "log",
               false,
               {}};
    double spark_time = std::numeric_limits<double>::infinity();
    std::vector<std::pair<std::string, double>> second_order_times;
    for (const Case& c : cases) {
      WorkPrecisionCurve curve;
      for (int j = 0; j < refinements; ++j) {
        const double h = 0.2 / std::pow(2.0, j);
        const long steps = std::lround(t_end / h);
        RunOptions o = options(c.method, h, steps, steps);
        o.alpha = c.alpha;
        o.stages = c.stages;
        const auto r = run_system(sys.name, {}, {}, o);
        const Eigen::VectorXd q =
            analysis::positions_at(r.trajectory, r.trajectory.rows() - 1, static_cast<int>(ref.q[1].size()));
        curve.h.push_back(h);
        curve.steps.push_back(static_cast<double>(steps));
        curve.error.push_back((q - ref.q[1]).lpNorm<Eigen::Infinity>());
        curve.seconds.push_back(std::max(r.summary.wall_time_seconds, 1e-6));
      }
      const std::string file =
          sys.name + "_" + c.method + (c.method == "spark" ? std::to_string(c.stages) : "") + ".csv";
      write_table(ctx.path(file),
                  table({"h", "steps", "seconds", "error"}, {curve.h, curve.steps, curve.seconds, curve.error}));
      fig.series.push_back({ctx.path(file), "seconds", "error", c.label + " (order " + std::to_string(c.order) + ")",
                            "line+markers", "", c.color});
      const double t = time_to(curve, target);
      out.numbers.push_back({sys.label + ", " + c.label + ": wall time to an error of 1e-8 at T = 10",
                             std::isfinite(t) ? format(t) + " s" : "not reached",
                             "finest run: h = " + format(curve.h.back(), 3) + ", error " + format(curve.error.back()) +
                                 ", " + format(curve.seconds.back()) + " s" +
                                 (curve.error.back() > target ? " (steps to 1e-8 extrapolated)" : "")});
      if (c.method == "spark" && c.stages >= 3) spark_time = std::min(spark_time, t);
      if (c.order == 2) second_order_times.emplace_back(c.label, t);
    }
    for (const auto& [label, t] : second_order_times)
      if (!(t > spark_time)) slower.push_back(label + " on the " + sys.label);
    out.figures.push_back(fig);
  }
  out.verdict = slower.empty() ? Verdict::supported : Verdict::not_supported;
  std::string list;
  for (const auto& s : slower) list += (list.empty() ? "" : ", ") + s;
  out.explanation =
      (slower.empty()
           ? std::string("SPARK of order 4, 6 or 8 reaches a position error of 1e-8 at T = 10 in less wall time "
                         "than every second-order method on both systems")
           : "some second-order methods reach 1e-8 as fast as SPARK of order 4, 6 or 8: " + list) +
      ". A time is the number of steps to the target (interpolated between runs, or extrapolated past the finest "
      "run along the slope of its last two runs, which the numbers say) times the finest run's time per step, of "
      "one run on this machine; errors are against the disk's closed form and the sleigh's reference solution. "
      "RK4 (order 4, not structure-preserving) is in the figure for comparison; docs/reproduce.md (work-precision) "
      "says where the medians and the comparison with SUNDIALS IDA are.";
  return out;
}

}  // namespace

std::vector<Experiment> field_experiments() {
  return {
      {"reversible-non-reversible", "Reversible against non-reversible: the same motion, two discretisations",
       "[MV20], [MP06]", "-", "contact oscillator (eps = 0.3) and its non-reversible variant with sin(z) z' in L",
       "dla, mla, rk4",
       "odelab's initial data (q0 = (1.40292, 0, 0.141421), v0 = (0, 1, 0), E = 1.5), h = 0.1, 1e6 steps "
       "(--quick: 4e5)",
       "nonholonomic integrators keep the energy bounded on a reversible system and lose that when the "
       "reversibility is broken",
       reversible_against_non_reversible},
      {"work-precision", "Work-precision: high order with structure", "[Jay03], [MP06]", "-",
       "vertical disk, Chaplygin sleigh",
       "dla, mla, gf, gf-sym, fim, mclachlan-perlmutter, discrete-gradient, "
       "spark (2 to 5 stages), rk4",
       "the catalogue's default data, T = 10, h = 0.2 / 2^j for j = 0..7 (--quick: 0..4)",
       "below errors of about 1e-8 a high-order structure-preserving method (SPARK, order 4, 6 or 8) costs less than "
       "every second-order nonholonomic integrator",
       work_precision},
  };
}

}  // namespace dalembert::report
