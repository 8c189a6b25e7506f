// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/unconstrained.hpp"

namespace dalembert::catalogue {
Entry harmonic_oscillator_entry() { return make_entry<models::HarmonicOscillator>(); }
}  // namespace dalembert::catalogue
