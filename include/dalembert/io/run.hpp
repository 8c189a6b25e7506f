#pragma once
// A run: system + method + step size + initial data -> trajectory and summary.
//
// run() picks the method family by the method's command-line name and the kind of system. A family
// is a struct in io/runners/ with
//   static std::vector<std::string> names();
//   template <class S> static constexpr bool supports();     // the kinds of system it can run
//   template <class S> static RunResult run(const S&, const InitialData&, const RunOptions&);
// run() calls the first family that has the name and supports the system; its run() throws
// BadInput when the method does not apply to this particular system. Two families may share a
// name for different kinds of system (e.g. `exact` for nonholonomic and for contact systems).
// Add a family by adding its header and its name to MethodFamilies below.
#include <algorithm>
#include <tuple>

#include "dalembert/io/method_options.hpp"
#include "dalembert/io/observe.hpp"
#include "dalembert/io/runners/contact.hpp"
#include "dalembert/io/runners/continuous.hpp"
#include "dalembert/io/runners/exact.hpp"
#include "dalembert/io/runners/generating_function.hpp"
#include "dalembert/io/runners/mechanical.hpp"
#include "dalembert/io/runners/mla.hpp"
#include "dalembert/io/runners/momentum_energy.hpp"
#include "dalembert/io/runners/rigid_body.hpp"
#include "dalembert/io/runners/second_order.hpp"
#include "dalembert/io/runners/variational.hpp"

namespace dalembert {

using MethodFamilies =
    std::tuple<runners::Variational, runners::ModifiedLagrangeDAlembert, runners::Continuous,
               runners::GeneratingFunction, runners::MomentumEnergy, runners::Mechanical, runners::RigidBody,
               runners::SecondOrder, runners::Contact, runners::ExactNonholonomicFlow>;

/// The names `run` understands, in the order `dalembert list` prints them.
inline std::vector<std::string> method_names() {
  std::vector<std::string> names;
  // a name shared by families for different kinds of system is listed once
  const auto append = [&](const std::vector<std::string>& more) {
    for (const auto& name : more)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  std::apply([&](auto... family) { (append(decltype(family)::names()), ...); }, MethodFamilies{});
  return names;
}

/// Runs the method named in `options` on `sys`. Throws BadInput for unusable input; a solver
/// failure is reported in the summary (status "solver-failure") with the rows computed so far.
template <class S>
RunResult run(const S& sys, const InitialData& init, const RunOptions& options) {
  check_options(options);
  std::optional<RunResult> result;
  bool named = false;
  std::apply(
      [&](auto... family) {
        const auto try_family = [&](auto f) {
          using Family = decltype(f);
          const auto names = Family::names();
          if (result || std::find(names.begin(), names.end(), options.method) == names.end()) return;
          named = true;
          if constexpr (Family::template supports<S>()) result = Family::run(sys, init, options);
        };
        (try_family(family), ...);
      },
      MethodFamilies{});
  if (result) return std::move(*result);
  if (named) throw BadInput("method " + options.method + " does not apply to system " + name_of(sys));
  std::string known;
  for (const auto& name : method_names()) known += (known.empty() ? "" : ", ") + name;
  throw BadInput("unknown method '" + options.method + "' (known: " + known + ")");
}

}  // namespace dalembert
