#pragma once
// Runner of the second-order constrained systems ([BFG13]): `dsocs` (the DSOCS integrator of
// Borda–Fernández–Grillo with the paper's discretization) and `reference` (Bulirsch–Stoer on the
// continuous SOCS). It supports only SOCS catalogue systems, so `reference` for Lagrange–d'Alembert
// systems stays with runners::Continuous.
#include "dalembert/io/observe.hpp"
#include "dalembert/method/second_order_constrained.hpp"
#include "dalembert/method/reference.hpp"

namespace dalembert::runners {

struct SecondOrder {
  static std::vector<std::string> names() { return {"dsocs", "reference"}; }

  template <class S>
  static constexpr bool supports() {
    return SecondOrderCatalogueSystem<S>;
  }

  template <SecondOrderCatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    if (o.method == "reference")
      return detail::run_one_step(sys, ReferenceSolver<S>(sys, o.h, o.reference_tolerance), init, o, o.method);
    return run_dsocs(sys, init, o);
  }

  static SecondOrderMethodOptions method_options(const RunOptions& o) {
    SecondOrderMethodOptions m;
    m.newton = o.newton;
    if (o.root_rule == "physical") m.roots = RootRule::physical;
    else if (o.root_rule == "closest") m.roots = RootRule::closest;
    else throw BadInput("unknown root rule '" + o.root_rule + "' (known: physical, closest)");
    if (o.dsocs_start == "taylor2") m.start = SecondOrderStart::taylor2;
    else if (o.dsocs_start == "euler") m.start = SecondOrderStart::forward_euler;
    else throw BadInput("unknown dsocs start '" + o.dsocs_start + "' (known: taylor2, euler)");
    return m;
  }

 private:
  template <SecondOrderCatalogueSystem S>
  static RunResult run_dsocs(const S& sys, const InitialData& init, const RunOptions& o) {
    const SecondOrderMethodOptions options = method_options(o);
    if (options.roots == RootRule::closest && !HasFactoredKinematicConstraint<S>) {
      throw BadInput("root rule 'closest' chooses between the branches of a factored kinematic constraint; " +
                     name_of(sys) + " has a single branch (use physical)");
    }
    const auto method = make_dsocs(sys, o.h, options);
    const VecN<S> q0 = detail::point_of<S>(init.q0);
    if (!init.q1) return detail::observe_run(sys, method, method.initial_state(q0, detail::point_of<S>(init.v0)), o, "dsocs", std::nullopt);
    if (o.steps < 1) throw BadOption("q1", "a two-point start needs at least one step");
    const VecN<S> q1 = detail::point_of<S>(*init.q1);
    // The row at k = 0 has the forward-difference velocity of φ_{L_d}; its constraint column uses the
    // continuous acceleration there.
    const PhasePointOf<S> start{q0, (q1 - q0) / o.h};
    return detail::observe_run(sys, method, method.initial_state_two_point(q0, q1), o, "dsocs", start);
  }
};

}  // namespace dalembert::runners
