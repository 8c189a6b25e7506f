#pragma once
// Metadata that turns a model struct into a named catalogue system: coordinate names, parameters
// with defaults, default initial data and, where known, a closed-form solution. The integrators
// never need this; the command line and the tests do.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dalembert/core/types.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/model/second_order.hpp"

namespace dalembert {

/// One named, documented model parameter stored in a data member of S.
template <class S>
struct Parameter {
  std::string_view name;
  double S::*member;
  std::string_view description;
};

/// The metadata of a catalogue system:
///   static constexpr std::string_view name, summary;
///   static constexpr std::array<std::string_view, n> coordinates;
///   static auto parameters();            std::array<Parameter<S>, K>
///   PhasePoint<n> default_initial() const;
///   std::optional<PhasePoint<n>> exact_solution(const PhasePoint<n>& x0, double t) const;
template <class S>
concept CatalogueMetadata = requires(const S& s, const PhasePoint<S::n>& x0) {
  { S::name } -> std::convertible_to<std::string_view>;
  { S::summary } -> std::convertible_to<std::string_view>;
  { S::coordinates[0] } -> std::convertible_to<std::string_view>;
  S::parameters();
  { s.default_initial() } -> std::convertible_to<PhasePoint<S::n>>;
  { s.exact_solution(x0, 0.0) } -> std::convertible_to<std::optional<PhasePoint<S::n>>>;
};

/// A catalogue system: a Lagrange–d'Alembert Model plus the metadata.
template <class S>
concept CatalogueSystem = Model<S> && CatalogueMetadata<S>;

/// A catalogue system with second-order constraints: a SecondOrderSystem plus the metadata.
template <class S>
concept SecondOrderCatalogueSystem = SecondOrderSystem<S> && CatalogueMetadata<S>;

/// Optional: an extra quantity of the state written as a column of every run (e.g. a Lyapunov
/// function), static constexpr std::string_view monitor_name and double monitor(q, v) const.
template <class S>
concept HasMonitor = requires(const S& s, const Vecd<S::n>& q) {
  { S::monitor_name } -> std::convertible_to<std::string_view>;
  { s.monitor(q, q) } -> std::convertible_to<double>;
};

/// Optionally, a catalogue system adds quantities of its own to the output of a run (columns after
/// the standard ones), e.g. the derived quantities of a model file:
///   std::vector<std::string> derived_quantity_names() const;
///   void derived_quantities(const Vecd<n>& q, const Vecd<n>& v, double t, double* out) const;
template <class S>
concept HasDerivedQuantities = requires(const S& s, const Vecd<S::n>& q, double* out) {
  { s.derived_quantity_names() } -> std::convertible_to<std::vector<std::string>>;
  s.derived_quantities(q, q, 0.0, out);
};

}  // namespace dalembert
