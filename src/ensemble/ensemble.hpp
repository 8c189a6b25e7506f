#pragma once
// Ensembles: many runs of one catalogue system with one method, each sample differing in its
// parameters or initial data, summarised one CSV row per sample (docs/ensembles.md).
//
// A Plan lists the samples; run_chunk() runs a contiguous range of them on a pool of std::threads.
// Every sample is an independent, deterministic run, and each result is stored by its sample
// index, so the rows do not depend on the number of threads (or of MPI ranks, ensemble_mpi.cpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "catalogue/catalogue.hpp"

namespace dalembert::ensemble {

/// One sample: the parameter overrides and initial data of one run, and the values of the varied
/// columns as written to the CSV.
struct Sample {
  catalogue::ParameterValues parameters;
  InitialData initial;
  std::vector<double> varied;
};

struct Plan {
  const catalogue::Entry* entry = nullptr;
  RunOptions options;                       ///< `every` is ignored: only the summary is kept
  std::vector<std::string> varied_columns;  ///< names of Sample::varied
  std::vector<std::string> state_columns;   ///< trajectory columns of the final state: t, coordinates, [z], energy
  std::vector<Sample> samples;
};

/// The most runs an ensemble takes (--samples, a grid, or the rows of --initial-file).
inline constexpr long max_samples = 10'000'000;

/// --param-range name=lo:hi
struct Range {
  std::string name;
  double lo = 0.0, hi = 0.0;
};

/// Parses "name=lo:hi" (lo <= hi, both finite); throws BadInput naming the text otherwise.
Range parse_range(const std::string& text);

/// The tensor-product grid with `per_axis` equally spaced values on each range (both ends included;
/// one value is the midpoint). The last range varies fastest. `fixed` are further overrides.
std::vector<Sample> grid_samples(const catalogue::ParameterValues& fixed, const std::vector<Range>& ranges,
                                 long per_axis);

/// `count` samples with each ranged parameter uniform on [lo, hi), drawn from std::mt19937_64
/// seeded with `seed`, sample by sample and within a sample in the order of `ranges`. The 53
/// high bits of each draw make the fraction, so the values are the same on every platform.
std::vector<Sample> random_samples(const catalogue::ParameterValues& fixed, const std::vector<Range>& ranges,
                                   long count, std::uint64_t seed);

/// Samples from a CSV file with a header line: a column named like a coordinate gives that
/// component of q0, `v_` + coordinate that of v0, a parameter name that parameter; components not
/// given keep their defaults. Blank lines and lines starting with '#' are skipped. `limit` >= 0
/// keeps the first `limit` rows (BadInput if there are fewer). Sets `varied_columns` to the header.
std::vector<Sample> file_samples(const std::string& path, const catalogue::SystemDescription& system,
                                 const catalogue::ParameterValues& fixed, long limit,
                                 std::vector<std::string>& varied_columns);

/// The final-state columns of a system's trajectories: t, coordinates, z for contact systems, energy.
std::vector<std::string> state_columns(const catalogue::SystemDescription& system);

/// A sample that could not run (bad input, or an unexpected error) or whose solver failed.
struct Issue {
  enum Kind { solver_failure = 0, bad_input = 1, internal_error = 2 };
  std::size_t sample = 0;
  Kind kind = solver_failure;  ///< after a solver failure the row is written, with status solver-failure
  std::string message;
};

/// The CSV rows of a contiguous range of samples and what went wrong in it.
struct Chunk {
  std::string rows;
  std::vector<Issue> issues;
};

/// The CSV header line (with newline).
std::string csv_header(const Plan& plan);

/// Runs samples [begin, end) on `threads` threads (at least one) and formats their rows. `finished`,
/// if given, is called after each sample with the number finished so far (from the thread that
/// ran it, one call at a time): for a progress line. Once the plan's stop flag is set
/// (RunOptions::stop) the runs under way end (status "interrupted") and no further sample starts.
Chunk run_chunk(const Plan& plan, std::size_t begin, std::size_t end, unsigned threads,
                const std::function<void(std::size_t)>& finished = {});

/// Appends `more` (the chunk that follows) to `chunk`.
void append(Chunk& chunk, Chunk&& more);

/// Writes the CSV of `all` (the chunk of every sample) to `out` (standard output if empty) unless
/// a sample had bad input, prints the issues to stderr and returns the exit status: 2 bad input,
/// 3 if a sample's solver failed (all rows are written), 4 for an unexpected error, 0 otherwise.
int finish(const Plan& plan, const Chunk& all, const std::string& out);

/// The number of threads to use when none is asked for: std::thread::hardware_concurrency()
/// divided among `ranks_on_this_node` processes, at least one.
unsigned default_threads(unsigned ranks_on_this_node = 1);

}  // namespace dalembert::ensemble
