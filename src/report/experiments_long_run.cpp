// Long runs across the method families: the energy error of every integrator that runs on four
// nonholonomic systems, over 1e5 steps (the papers' common claim that the geometric integrators keep
// the energy error bounded where a standard method drifts).
#include <cctype>
#include <cmath>

#include "report/experiment_support.hpp"

namespace dalembert::report {

namespace {

Outcome long_run_energy(const Context& ctx) {
  // Every method that runs on four systems of different kinds, h = 0.1: the nonholonomic
  // particle with V = x^2 + y^2 (affine constraint, constant metric: DLA and the GF methods nearly
  // coincide), the vertical rolling disk and the Chaplygin sleigh (nonlinear constraints), and
  // McLachlan–Perlmutter's contact oscillator (a nonlinear potential, on which RK4 drifts).
  struct System {
    std::string name, label;
    catalogue::ParameterValues params;
  };
  const std::vector<System> systems = {{"particle", "Particle, V = x^2 + y^2", {{"potential", 1.0}}},
                                       {"vertical-disk", "Vertical disk", {}},
                                       {"chaplygin-sleigh", "Chaplygin sleigh", {}},
                                       {"contact-oscillator", "Contact oscillator", {}}};
  const double h = 0.1;
  const long N = ctx.quick ? 10000 : 100000;
  const long block = N / 200;  // the figures show max |E_k - E_0| over blocks of N/200 steps
  struct Case {
    std::string method, label, color, style;
    bool geometric;
  };
  const std::vector<Case> cases = {{"dla", "DLA (midpoint)", "tab:blue", "line", true},
                                   {"mla", "MLA (midpoint)", "tab:orange", "line", true},
                                   {"gf", "GF-1/2", "tab:green", "dashed", true},
                                   {"gf-sym", "GF-sym-1/4", "tab:cyan", "dotted", true},
                                   {"gf-cp", "GF-CP-1/2", "tab:purple", "dashdot", true},
                                   {"fim", "FIM, H(p~)", "tab:brown", "dashed", true},
                                   {"mclachlan-perlmutter", "McLachlan-Perlmutter", "tab:olive", "dashdot", true},
                                   {"discrete-gradient", "discrete gradient", "tab:pink", "line", true},
                                   {"spark", "SPARK, 3 stages", "black", "dotted", true},
                                   {"rk4", "RK4", "tab:red", "line", false}};
  Outcome out;
  std::vector<std::string> failing;  // "method ... system"
  std::string rk4_summary;
  bool rk4_drifts_somewhere = false;
  for (const System& sys : systems) {
    Figure fig{ctx.path(sys.name + "_energy"),
               sys.label + ", h = 0.1: energy error over " + (ctx.quick ? "1e4" : "1e5") + " steps", "t",
               "$\\max |E_k - E_0|$ over blocks of " + std::to_string(block) + " steps", "linear", "log", false, {}};
    for (const Case& c : cases) {
      RunOptions o = options(c.method, h, N, 1);
      if (c.method == "gf-sym") o.alpha = 0.25;  // at alpha = 1/2 it is GF-1/2
      const auto r = run_system(sys.name, sys.params, {}, o);
      const auto energy = column(r.trajectory, "energy"), t = column(r.trajectory, "t");
      const Spread s = spread(energy);
      const std::string file = sys.name + "_" + c.method + ".csv";
      write_table(ctx.path(file), block_maxima(t, energy, block));
      fig.series.push_back({ctx.path(file), "t", "max_energy_error", c.label, c.style, "", c.color});
      const double ratio = s.last_tenth / s.first_tenth;
      out.numbers.push_back({sys.label + ", " + c.label + ": max |E_k - E_0|, first tenth / last tenth",
                             format(s.first_tenth) + " / " + format(s.last_tenth),
                             "ratio " + format(ratio, 3) + "; wall time " + format(r.summary.wall_time_seconds, 2) + " s"});
      // Bounded: the last tenth within 1.5 times the first, or at the level of accumulated round-off;
      // small: below a tenth of the energy (a bounded error of the size of E itself is no bound).
      const double scale = std::max(1.0, std::abs(r.summary.energy0));
      const bool bounded = s.last_tenth <= 1.5 * s.first_tenth || s.all < 1e-9 * scale;
      const bool small = s.all < 0.1 * scale;
      std::string on = sys.label;
      on[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(on[0])));
      if (c.geometric && !bounded) failing.push_back(c.label + " grows on the " + on);
      if (c.geometric && bounded && !small)
        failing.push_back(c.label + " is bounded but of the size of the energy on the " + on + " (" + format(s.all) + ")");
      if (!c.geometric) {
        rk4_drifts_somewhere = rk4_drifts_somewhere || ratio > 3.0;
        rk4_summary += (rk4_summary.empty() ? "" : ", ") + sys.label + " " + format(ratio, 3);
      }
    }
    out.figures.push_back(fig);
  }
  out.verdict = failing.empty() && rk4_drifts_somewhere ? Verdict::supported : Verdict::not_supported;
  std::string list;
  for (const auto& f : failing) list += (list.empty() ? "" : "; ") + f;
  out.explanation =
      (failing.empty()
           ? std::string("the energy error of every geometric method stays bounded and small on all four "
                         "systems (its largest value in the last tenth of the run at most 1.5 times that of "
                         "the first tenth, and below a tenth of the energy)")
           : "the claim does not hold for every geometric method on every system: " + list +
                 " (FIM's period-2 mode and GF-CP's instability at large h phi', docs/methods.md, "
                 "'Failure modes and the run's warnings'; SPARK's slow energy growth on the vertical disk, "
                 "round-off in its growing heading angle, docs/methods.md, SPARK)") +
      ". RK4's last tenth / first tenth: " + rk4_summary +
      " (it drifts on the contact oscillator; on the disk and the sleigh, whose motions are simple or settle, it does "
      "not drift over this run). On the "
      "particle (affine constraint, constant metric) DLA and the GF methods nearly coincide, so it alone cannot "
      "separate them. The exact discrete flow is left out: one shooting per step makes 1e5 steps too slow for the "
      "report.";
  return out;
}

}  // namespace

std::vector<Experiment> long_run_experiments() {
  return {
      {"long-run-energy", "Energy error of every method over a long run", "[dLMS04], [FIM08], [ASMM22], [CM01], [MP06]",
       "-", "particle with V = x^2 + y^2, vertical disk, Chaplygin sleigh, contact oscillator",
       "dla, mla, gf, gf-sym (alpha = 1/4), gf-cp, fim, mclachlan-perlmutter, discrete-gradient, spark (3 stages), rk4 "
       "(not exact: too slow)",
       "the catalogue's default initial data (particle: q0 = (1, 0.5, 0), v0 = (0.3, 0.7, 0.15)), h = 0.1, 1e5 "
       "steps (T = 1e4; --quick: 1e4 steps)",
       "the geometric integrators keep the energy error bounded while RK4's drifts", long_run_energy},
  };
}

}  // namespace dalembert::report
