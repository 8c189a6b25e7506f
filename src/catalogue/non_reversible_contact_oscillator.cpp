// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/contact_oscillator.hpp"

namespace dalembert::catalogue {
Entry non_reversible_contact_oscillator_entry() { return make_entry<models::NonReversibleContactOscillator>(); }
}  // namespace dalembert::catalogue
