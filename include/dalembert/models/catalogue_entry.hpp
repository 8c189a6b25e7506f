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

/// A system's name, a one-line summary and the names of its coordinates: values of the system
/// object, `std::string_view name() const`, `summary() const` and
/// `const std::vector<std::string>& coordinate_names() const` (a model file knows them only when it
/// is read), or, for the compiled catalogue,
///   static constexpr std::string_view name, summary;
///   static constexpr std::array<std::string_view, n> coordinates;
/// The run layer reads them through name_of, summary_of and coordinate_names_of.
template <class S>
concept HasNamesAsValues = requires(const S& s) {
  { s.name() } -> std::convertible_to<std::string_view>;
  { s.summary() } -> std::convertible_to<std::string_view>;
  { s.coordinate_names() } -> std::convertible_to<std::vector<std::string>>;
};
template <class S>
concept HasNames = HasNamesAsValues<S> || requires {
  { S::name } -> std::convertible_to<std::string_view>;
  { S::summary } -> std::convertible_to<std::string_view>;
  { S::coordinates[0] } -> std::convertible_to<std::string_view>;
};

template <HasNames S>
std::string name_of(const S& s) {
  if constexpr (HasNamesAsValues<S>) {
    return std::string(s.name());
  } else {
    return std::string(S::name);
  }
}
template <HasNames S>
std::string summary_of(const S& s) {
  if constexpr (HasNamesAsValues<S>) {
    return std::string(s.summary());
  } else {
    return std::string(S::summary);
  }
}
template <HasNames S>
std::vector<std::string> coordinate_names_of(const S& s) {
  if constexpr (HasNamesAsValues<S>) {
    return s.coordinate_names();
  } else {
    return {S::coordinates.begin(), S::coordinates.end()};
  }
}

/// The metadata of a catalogue system: names (HasNames) and
///   static auto parameters();            std::array<Parameter<S>, K>
///   PhasePoint<n> default_initial() const;
///   std::optional<PhasePoint<n>> exact_solution(const PhasePoint<n>& x0, double t) const;
/// (PhasePointOf<S> for a system of run-time size.)
template <class S>
concept CatalogueMetadata = HasNames<S> && requires(const S& s, const PhasePointOf<S>& x0) {
  S::parameters();
  { s.default_initial() } -> std::convertible_to<PhasePointOf<S>>;
  { s.exact_solution(x0, 0.0) } -> std::convertible_to<std::optional<PhasePointOf<S>>>;
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
concept HasMonitor = requires(const S& s, const VecN<S>& q) {
  { S::monitor_name } -> std::convertible_to<std::string_view>;
  { s.monitor(q, q) } -> std::convertible_to<double>;
};

/// Optionally, a catalogue system adds quantities of its own to the output of a run (columns after
/// the standard ones), e.g. the derived quantities of a model file:
///   std::vector<std::string> derived_quantity_names() const;
///   void derived_quantities(const VecN<S>& q, const VecN<S>& v, double t, double* out) const;
template <class S>
concept HasDerivedQuantities = requires(const S& s, const VecN<S>& q, double* out) {
  { s.derived_quantity_names() } -> std::convertible_to<std::vector<std::string>>;
  s.derived_quantities(q, q, 0.0, out);
};

}  // namespace dalembert
