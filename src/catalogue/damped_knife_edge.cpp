// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/damped_knife_edge.hpp"

namespace dalembert::catalogue {
Entry damped_knife_edge_entry() { return make_entry<models::DampedKnifeEdge>(); }
}  // namespace dalembert::catalogue
