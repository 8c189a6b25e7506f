#pragma once
// Metadata that turns a contact model into a named catalogue system, parallel to
// catalogue_entry.hpp: the initial data and closed forms live on TQ × R (they carry z).
#include <array>
#include <optional>
#include <string_view>

#include "dalembert/model/contact.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert {

/// A contact catalogue system: a ContactModel plus names (HasNames, catalogue_entry.hpp) and
///   static auto parameters();            std::array<Parameter<S>, K>
///   ContactPoint<n> default_initial() const;
///   std::optional<ContactPoint<n>> exact_solution(const ContactPoint<n>& x0, double t) const;
template <class S>
concept ContactCatalogueSystem = ContactModel<S> && HasNames<S> && requires(const S& s, const ContactPointOf<S>& x0) {
  S::parameters();
  { s.default_initial() } -> std::convertible_to<ContactPointOf<S>>;
  { s.exact_solution(x0, 0.0) } -> std::convertible_to<std::optional<ContactPointOf<S>>>;
};

}  // namespace dalembert
