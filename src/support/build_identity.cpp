#include "support/build_identity.hpp"

#include <dalembert/version.hpp>

namespace dalembert::support {

std::string full_version() {
  std::string v(dalembert::version);
  if (const auto commit = build_commit(); !commit.empty()) {
    v += "+g" + std::string(commit.substr(0, 12));
    if (build_modified()) v += ".modified";
  }
  return v;
}

}  // namespace dalembert::support
