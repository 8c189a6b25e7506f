// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/inertia_wheel_pendulum.hpp"

namespace dalembert::catalogue {
Entry inertia_wheel_pendulum_entry() { return make_entry<models::InertiaWheelPendulum>(); }
}  // namespace dalembert::catalogue
