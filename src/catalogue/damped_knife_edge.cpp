// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/damped_knife_edge.hpp"

namespace dalembert::catalogue {
Entry damped_knife_edge_entry() { return make_entry<models::DampedKnifeEdge>(); }
}  // namespace dalembert::catalogue
