// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/vertical_disk.hpp"

namespace dalembert::catalogue {
Entry vertical_disk_entry() { return make_entry<models::VerticalDisk>(); }
}  // namespace dalembert::catalogue
