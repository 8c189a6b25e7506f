#pragma once
// Runner of the modified Lagrange–d'Alembert integrators: `mla`, the generic midpoint recipe of
// the examples of [ASMM22] §5.4 (α = ½), or its α-rule generalisation with --alpha.
#include "dalembert/io/observe.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"

namespace dalembert::runners {

struct ModifiedLagrangeDAlembert {
  static std::vector<std::string> names() { return {"mla"}; }

  template <class S>
  static constexpr bool supports() {
    return CatalogueSystem<S> && Model<S>;
  }

  template <CatalogueSystem S>
  static RunResult run(const S& sys, const InitialData& init, const RunOptions& o) {
    if (o.rule != "alpha")
      throw BadOption("rule", o.rule + " is not available for method mla: it uses the alpha rule (the option alpha) "
                                      "for its discrete Lagrangian, forces and constraint");
    return detail::run_two_step(sys, make_midpoint_mla(sys, o.h, o.alpha, o.newton), init, o, "mla");
  }
};

}  // namespace dalembert::runners
