// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/contact_systems.hpp"

namespace dalembert::catalogue {
Entry damped_oscillator_2d_entry() { return make_entry<models::DampedOscillator2D>(); }
}  // namespace dalembert::catalogue
