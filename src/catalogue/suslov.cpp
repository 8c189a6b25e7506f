// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/rigid_bodies.hpp"

namespace dalembert::catalogue {
Entry suslov_entry() { return make_entry<models::Suslov>(); }
}  // namespace dalembert::catalogue
