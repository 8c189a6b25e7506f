// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/knife_edge.hpp"

namespace dalembert::catalogue {
Entry perturbed_knife_edge_entry() { return make_entry<models::PerturbedKnifeEdge>(); }
}  // namespace dalembert::catalogue
