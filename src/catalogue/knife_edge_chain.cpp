// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/knife_edge_chain.hpp"

namespace dalembert::catalogue {
Entry knife_edge_chain_entry() { return make_entry<models::KnifeEdgeChain2>(); }
}  // namespace dalembert::catalogue
