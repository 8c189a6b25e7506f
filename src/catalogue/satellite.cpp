// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/satellite.hpp"

namespace dalembert::catalogue {
Entry satellite_entry() { return make_entry<models::Satellite>(); }
}  // namespace dalembert::catalogue
