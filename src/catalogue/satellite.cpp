// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/satellite.hpp"

namespace dalembert::catalogue {
Entry satellite_entry() { return make_entry<models::Satellite>(); }
}  // namespace dalembert::catalogue
