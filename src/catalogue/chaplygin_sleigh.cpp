// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"

namespace dalembert::catalogue {
Entry chaplygin_sleigh_entry() { return make_entry<models::ChaplyginSleigh>(); }
}  // namespace dalembert::catalogue
