// Catalogue entry (one translation unit per system keeps template instantiation parallel).
#include "catalogue/make_entry.hpp"
#include "dalembert/models/rigid_bodies.hpp"

namespace dalembert::catalogue {
Entry rigid_body_attitude_constraint_entry() { return make_entry<models::RigidBodyAttitudeConstraint>(); }
}  // namespace dalembert::catalogue
