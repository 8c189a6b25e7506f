// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/rigid_bodies.hpp"

namespace dalembert::catalogue {
Entry suslov_entry() { return make_entry<models::Suslov>(); }
}  // namespace dalembert::catalogue
