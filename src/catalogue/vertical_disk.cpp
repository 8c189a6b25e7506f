// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/vertical_disk.hpp"

namespace dalembert::catalogue {
Entry vertical_disk_entry() { return make_entry<models::VerticalDisk>(); }
}  // namespace dalembert::catalogue
