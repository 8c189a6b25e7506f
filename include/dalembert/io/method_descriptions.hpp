#pragma once
// What `dalembert list` says of each method (io/run.hpp has the methods themselves).
#include <array>
#include <string_view>

namespace dalembert {

/// What `dalembert list` says of a method: one line, and the kinds of system it runs on.
struct MethodDescription {
  std::string_view name, summary, systems;
};

/// One description per name of method_names(), in the same order (a test checks both).
inline constexpr std::array<MethodDescription, 16> method_descriptions = {{
    {"del", "discrete Euler-Lagrange equations: the variational integrator of the Lagrangian", "unconstrained"},
    {"dla", "discrete Lagrange-d'Alembert of Cortes and Martinez (2001); order 2 with the midpoint rule",
     "nonholonomic"},
    {"mla", "modified Lagrange-d'Alembert of Anahory Simoes, Marrero and Martin de Diego (2022)", "nonholonomic"},
    {"rk4", "classical Runge-Kutta of order 4 on the continuous equations (not structure-preserving)",
     "nonholonomic, rigid body, contact"},
    {"reference", "adaptive Bulirsch-Stoer on the continuous equations at a tight tolerance",
     "nonholonomic, rigid body, second-order, contact"},
    {"gf", "generating-function integrator of de Leon, Martin de Diego and Santamaria-Merino (2004)", "nonholonomic"},
    {"gf-sym", "symmetrised generating-function integrator (alpha and 1 - alpha)", "nonholonomic"},
    {"gf-cp", "constraint-preserving generating-function integrator (projected momenta)", "nonholonomic"},
    {"fim", "momentum-energy integrator of Ferraro, Iglesias and Martin de Diego (2008)", "nonholonomic"},
    {"mclachlan-perlmutter", "nonholonomic integrator of McLachlan and Perlmutter (2006), eq. (4.18); order 2",
     "nonholonomic"},
    {"discrete-gradient",
     "energy-preserving discrete-gradient integrator, constraint exact at the step points; order 2", "nonholonomic"},
    {"spark", "Jay's SPARK, Lobatto IIIA-IIIB with 2 to 5 stages (default 3): orders 2, 4, 6, 8", "nonholonomic"},
    {"fim-lie", "the momentum-energy integrator on SO(3), in body coordinates", "rigid body"},
    {"dsocs", "discrete second-order constrained systems of Borda, Fernandez and Grillo (2013)", "second-order"},
    {"herglotz", "discrete Herglotz(-d'Alembert) contact integrator (Anahory Simoes 2021, ch. 8)", "contact"},
    {"exact", "the exact discrete flow, by shooting on the continuous one (Anahory Simoes et al. 2022)",
     "nonholonomic, contact"},
}};

}  // namespace dalembert
