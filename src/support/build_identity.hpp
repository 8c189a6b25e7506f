#pragma once
// Which code a binary was built from, for `--version`, Python's __version__ and the provenance of
// every run: the release version (dalembert/version.hpp) says which release, the commit which code.
// Generated at every build (cmake/build_identity.cmake).
#include <string>
#include <string_view>

namespace dalembert::support {

/// The git commit (40 hexadecimal digits) of the source tree the binary was built from, empty when
/// it was not built from a git checkout.
std::string_view build_commit();

/// Whether tracked files of that tree differed from the commit when the binary was built.
bool build_modified();

/// "0.1.0", "0.1.0+g1a2b3c4d5e6f" or "0.1.0+g1a2b3c4d5e6f.modified": the release version with the
/// commit as a local version label (PEP 440), the same text on the command line and in Python.
std::string full_version();

}  // namespace dalembert::support
