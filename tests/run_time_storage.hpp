#pragma once
// The storage of a model seen at run time in the run-time-size tests.
#include <string>

#include <Eigen/Core>

namespace dalembert::test {

/// The storage of a run-time-size test: within the bound 8 (no heap allocation) or unbounded (on
/// the heap). A test takes one of the two, and each method family is tested on both across its
/// systems: every (method, system, storage) triple is a separate instantiation of the method, and
/// compiling all three of fixed, bounded and heap for every pair made these the longest builds.
enum class Storage { bounded, heap };
template <Storage storage>
inline constexpr int max_size = storage == Storage::bounded ? 8 : Eigen::Dynamic;
inline std::string storage_name(Storage storage) { return storage == Storage::bounded ? "bounded" : "heap"; }

}  // namespace dalembert::test
