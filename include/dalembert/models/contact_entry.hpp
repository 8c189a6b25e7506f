#pragma once
// Metadata that turns a contact model into a named catalogue system, parallel to
// catalogue_entry.hpp: the initial data and closed forms live on TQ × R (they carry z).
#include <array>
#include <optional>
#include <string_view>

#include "dalembert/model/contact.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert {

/// A contact catalogue system: a ContactModel plus
///   static constexpr std::string_view name, summary;
///   static constexpr std::array<std::string_view, n> coordinates;
///   static auto parameters();            std::array<Parameter<S>, K>
///   ContactPoint<n> default_initial() const;
///   std::optional<ContactPoint<n>> exact_solution(const ContactPoint<n>& x0, double t) const;
template <class S>
concept ContactCatalogueSystem = ContactModel<S> && requires(const S& s, const ContactPoint<S::n>& x0) {
  { S::name } -> std::convertible_to<std::string_view>;
  { S::summary } -> std::convertible_to<std::string_view>;
  { S::coordinates[0] } -> std::convertible_to<std::string_view>;
  S::parameters();
  { s.default_initial() } -> std::convertible_to<ContactPoint<S::n>>;
  { s.exact_solution(x0, 0.0) } -> std::convertible_to<std::optional<ContactPoint<S::n>>>;
};

}  // namespace dalembert
