// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/contact_systems.hpp"

namespace dalembert::catalogue {
Entry damped_oscillator_entry() { return make_entry<models::DampedOscillator>(); }
}  // namespace dalembert::catalogue
