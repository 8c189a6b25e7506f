// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"

namespace dalembert::catalogue {
Entry chaplygin_sleigh_entry() { return make_entry<models::ChaplyginSleigh>(); }
}  // namespace dalembert::catalogue
