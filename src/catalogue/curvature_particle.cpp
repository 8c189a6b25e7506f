// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/curvature_particle.hpp"

namespace dalembert::catalogue {
Entry curvature_particle_entry() { return make_entry<models::CurvatureParticle>(); }
}  // namespace dalembert::catalogue
