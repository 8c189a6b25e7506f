// Catalogue entry: a file per system (systems of the same sizes compile as one unit, CMakeLists.txt).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/rigid_bodies.hpp"

namespace dalembert::catalogue {
Entry rigid_body_attitude_constraint_entry() { return make_entry<models::RigidBodyAttitudeConstraint>(); }
}  // namespace dalembert::catalogue
