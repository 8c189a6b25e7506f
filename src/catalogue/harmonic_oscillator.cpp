// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/unconstrained.hpp"

namespace dalembert::catalogue {
Entry harmonic_oscillator_entry() { return make_entry<models::HarmonicOscillator>(); }
}  // namespace dalembert::catalogue
