// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/inertia_wheel_pendulum.hpp"

namespace dalembert::catalogue {
Entry inertia_wheel_pendulum_entry() { return make_entry<models::InertiaWheelPendulum>(); }
}  // namespace dalembert::catalogue
