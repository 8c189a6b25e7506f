#pragma once
// Ensembles: many runs of one catalogue system with one method, each sample differing in its
// parameters or initial data, summarised one CSV row per sample (docs/ensembles.md).
//
// A Plan makes its samples on demand, from their index; run_chunk() runs a contiguous range of them
// on a pool of std::threads. Every sample is an independent, deterministic run, and each result is
// stored by its sample index, so the rows do not depend on the number of threads (or of MPI ranks,
// ensemble_mpi.cpp). run_streamed() runs them block by block and writes each block's rows as it
// ends: memory does not grow with the number of samples (10⁷ runs in the memory of a few blocks).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
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

/// The samples of a plan, made a block at a time when they are about to run: a grid's from their
/// indices, random ones by drawing on from the generator's state, a file's by reading on (a jump
/// back reads from the start). `make` is called by one thread at a time.
struct Samples {
  std::size_t count = 0;
  std::function<std::vector<Sample>(std::size_t begin, std::size_t end)> make;
  std::size_t size() const { return count; }
};

/// Samples that are already made (the Python package's explicit samples).
Samples listed_samples(std::vector<Sample> samples);

struct Plan {
  const catalogue::Entry* entry = nullptr;
  RunOptions options;                       ///< `every` is ignored: only the summary is kept
  std::vector<std::string> varied_columns;  ///< names of Sample::varied
  std::vector<std::string> state_columns;   ///< trajectory columns of the final state: t, coordinates, [z], energy
  Samples samples;
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
Samples grid_samples(const catalogue::ParameterValues& fixed, const std::vector<Range>& ranges, long per_axis);

/// `count` samples with each ranged parameter uniform on [lo, hi), drawn from std::mt19937_64
/// seeded with `seed`, sample by sample and within a sample in the order of `ranges`. The 53
/// high bits of each draw make the fraction, so the values are the same on every platform.
Samples random_samples(const catalogue::ParameterValues& fixed, const std::vector<Range>& ranges, long count,
                       std::uint64_t seed);

/// Samples from a CSV file with a header line: a column named like a coordinate gives that
/// component of q0, `v_` + coordinate that of v0, a parameter name that parameter; components not
/// given keep their defaults. Blank lines and lines starting with '#' are skipped. `limit` >= 0
/// keeps the first `limit` rows (BadInput if there are fewer). Sets `varied_columns` to the header.
Samples file_samples(const std::string& path, const catalogue::SystemDescription& system,
                     const catalogue::ParameterValues& fixed, long limit, std::vector<std::string>& varied_columns);

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

/// The samples of one block of a streamed run (run_streamed, and each round of the MPI ranks).
inline constexpr std::size_t block_size = 4096;

/// What a streamed ensemble has met so far: the rows are written, the issues counted.
class Outcomes {
 public:
  /// Takes the issues of the next chunk; false once a sample had bad input or an unexpected error
  /// (then no further sample need run, and nothing is written).
  bool add(const std::vector<Issue>& issues);
  /// Prints what went wrong to stderr and returns the exit status: 2 bad input, 3 if a sample's
  /// solver failed (all rows are written), 4 for an unexpected error, 0 otherwise.
  int report(std::size_t samples) const;
  bool fatal() const { return fatal_.has_value(); }

 private:
  std::optional<Issue> fatal_, first_failure_;
  std::size_t failures_ = 0;
};

/// Runs every sample of `plan` in blocks of block_size on `threads` threads and writes the CSV to
/// `out` (standard output if empty) block by block, committed only if no sample had bad input or an
/// unexpected error (standard output has the blocks before); prints the issues and returns the
/// exit status (Outcomes::report). Once the plan's stop flag is set the rows so far are written.
/// `finished` as for run_chunk, with the count over the whole plan.
int run_streamed(const Plan& plan, unsigned threads, const std::string& out,
                 const std::function<void(std::size_t)>& finished = {});

/// The number of threads to use when none is asked for: std::thread::hardware_concurrency()
/// divided among `ranks_on_this_node` processes, at least one.
unsigned default_threads(unsigned ranks_on_this_node = 1);

}  // namespace dalembert::ensemble
