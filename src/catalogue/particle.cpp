// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/particle.hpp"

namespace dalembert::catalogue {
Entry particle_entry() { return make_entry<models::NonholonomicParticle>(); }
}  // namespace dalembert::catalogue
