// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/knife_edge.hpp"

namespace dalembert::catalogue {
Entry perturbed_knife_edge_entry() { return make_entry<models::PerturbedKnifeEdge>(); }
}  // namespace dalembert::catalogue
