// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/contact_oscillator.hpp"

namespace dalembert::catalogue {
Entry contact_oscillator_entry() { return make_entry<models::ContactOscillator>(); }
}  // namespace dalembert::catalogue
