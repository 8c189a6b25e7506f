// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/curvature_particle.hpp"

namespace dalembert::catalogue {
Entry curvature_particle_entry() { return make_entry<models::CurvatureParticle>(); }
}  // namespace dalembert::catalogue
