// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/particle.hpp"

namespace dalembert::catalogue {
Entry particle_entry() { return make_entry<models::NonholonomicParticle>(); }
}  // namespace dalembert::catalogue
