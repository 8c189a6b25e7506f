// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/contact_systems.hpp"

namespace dalembert::catalogue {
Entry contact_particle_entry() { return make_entry<models::ContactParticle>(); }
}  // namespace dalembert::catalogue
