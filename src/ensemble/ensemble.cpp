#include "ensemble/ensemble.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "cli/output.hpp"
#include "cli/parse.hpp"
#include "support/output_file.hpp"

namespace dalembert::ensemble {

namespace {

void append_number(std::string& line, double x) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);  // shortest text that reads back exactly
  line.append(buf, res.ptr);
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    items.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

/// The run of one sample reduced to its CSV row (without the sample index and varied values).
struct Outcome {
  bool done = false;
  std::string status;
  long steps = 0;
  double energy0 = 0, energy_drift = 0, max_constraint = 0;
  std::vector<double> final_state;
  Issue::Kind kind = Issue::solver_failure;
  std::string message;
};

Outcome run_sample(const Plan& plan, const Sample& sample) {
  Outcome o;
  try {
    RunOptions options = plan.options;
    options.every = std::max(options.steps, 1L);  // keep the first and the last row only
    const RunResult r = plan.entry->run(sample.parameters, sample.initial, options);
    o.done = true;
    o.status = r.summary.status;
    o.steps = r.summary.steps;
    o.energy0 = r.summary.energy0;
    o.energy_drift = r.summary.max_energy_error;
    o.max_constraint = r.summary.max_constraint_residual;
    const auto& t = r.trajectory;
    for (const auto& c : plan.state_columns)  // the last row (runs always record the initial one)
      o.final_state.push_back(t.rows() ? t.at(t.rows() - 1, t.column(c)) : std::nan(""));
    // an interrupted run is not a failure: its row says so, and the command its signal
    if (r.failed() && r.summary.status != "interrupted") o.message = r.summary.message;
  } catch (const BadInput& e) {
    o.kind = Issue::bad_input;
    o.message = cli::command_line_message(e);
  } catch (const std::exception& e) {
    o.kind = Issue::internal_error;
    o.message = e.what();
  }
  return o;
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

Range parse_range(const std::string& text) {
  const auto eq = text.find('=');
  const auto colon = text.find(':', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos)
    throw BadInput("--param-range: '" + text + "' is not of the form name=lo:hi");
  Range r;
  r.name = trim(text.substr(0, eq));
  r.lo = cli::parse_number("--param-range " + r.name + " (lo)", text.substr(eq + 1, colon - eq - 1));
  r.hi = cli::parse_number("--param-range " + r.name + " (hi)", text.substr(colon + 1));
  if (r.lo > r.hi) throw BadInput("--param-range " + r.name + ": lo must not exceed hi in '" + text + "'");
  return r;
}

Samples listed_samples(std::vector<Sample> samples) {
  auto all = std::make_shared<const std::vector<Sample>>(std::move(samples));
  return {all->size(), [all](std::size_t begin, std::size_t end) {
            return std::vector<Sample>(all->begin() + static_cast<std::ptrdiff_t>(begin),
                                       all->begin() + static_cast<std::ptrdiff_t>(end));
          }};
}

Samples grid_samples(const catalogue::ParameterValues& fixed, const std::vector<Range>& ranges, long per_axis) {
  if (per_axis < 1) throw BadInput("--samples: must be at least 1, got " + std::to_string(per_axis));
  double total = 1.0;
  for (std::size_t i = 0; i < ranges.size(); ++i) total *= static_cast<double>(per_axis);
  if (total > static_cast<double>(max_samples))
    throw BadInput("--samples " + std::to_string(per_axis) + " per parameter on a grid of " +
                   std::to_string(ranges.size()) + " parameters gives more than " + std::to_string(max_samples) +
                   " samples");
  const auto value = [per_axis](const Range& r, long i) {
    if (per_axis == 1) return 0.5 * (r.lo + r.hi);
    if (i == per_axis - 1) return r.hi;
    return r.lo + (r.hi - r.lo) * (static_cast<double>(i) / static_cast<double>(per_axis - 1));
  };
  const auto make = [fixed, ranges, per_axis, value](std::size_t begin, std::size_t end) {
    std::vector<Sample> samples(end - begin);
    for (std::size_t s = begin; s < end; ++s) {
      auto& sample = samples[s - begin];
      sample.parameters = fixed;
      sample.varied.resize(ranges.size());
      std::size_t rest = s;
      for (std::size_t j = ranges.size(); j-- > 0;) {  // the last range varies fastest
        sample.varied[j] = value(ranges[j], static_cast<long>(rest % static_cast<std::size_t>(per_axis)));
        rest /= static_cast<std::size_t>(per_axis);
      }
      for (std::size_t j = 0; j < ranges.size(); ++j) sample.parameters.emplace_back(ranges[j].name, sample.varied[j]);
    }
    return samples;
  };
  return {static_cast<std::size_t>(total), make};
}

Samples random_samples(const catalogue::ParameterValues& fixed, const std::vector<Range>& ranges, long count,
                       std::uint64_t seed) {
  if (count < 1 || count > max_samples)
    throw BadInput("--samples: must lie in 1.." + std::to_string(max_samples) + ", got " + std::to_string(count));
  // The generator's state after the samples made so far: blocks in order draw on; a block further on
  // discards the draws between; one before starts again from the seed.
  struct State {
    std::mt19937_64 generator;
    std::size_t next = 0;
  };
  auto state = std::make_shared<State>(State{std::mt19937_64(seed), 0});
  const auto make = [fixed, ranges, seed, state](std::size_t begin, std::size_t end) {
    if (begin < state->next) *state = State{std::mt19937_64(seed), 0};
    state->generator.discard(static_cast<unsigned long long>((begin - state->next) * ranges.size()));
    std::vector<Sample> samples(end - begin);
    for (auto& sample : samples) {
      sample.parameters = fixed;
      for (const auto& r : ranges) {
        const double u = static_cast<double>(state->generator() >> 11) * 0x1.0p-53;  // in [0, 1)
        const double x = r.lo + (r.hi - r.lo) * u;
        sample.varied.push_back(x);
        sample.parameters.emplace_back(r.name, x);
      }
    }
    state->next = end;
    return samples;
  };
  return {static_cast<std::size_t>(count), make};
}

namespace {

/// What a column of an initial file sets: a component of q0, of v0, or a parameter.
struct Target {
  enum Kind { q0, v0, parameter } kind;
  Eigen::Index index = 0;
  std::string name;
};

/// Reads an initial file's data rows in order (blank lines and '#' comments skipped).
class InitialFileReader {
 public:
  explicit InitialFileReader(const std::string& path) : path_(path), in_(path) {
    if (!in_) throw BadInput("--initial-file: cannot read '" + path + "'");
  }
  /// The next line that is neither blank nor a comment, false at the end.
  bool next(std::string& line) {
    while (std::getline(in_, line)) {
      ++line_number_;
      const std::string t = trim(line);
      if (!t.empty() && t[0] != '#') return true;
    }
    return false;
  }
  long line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  long line_number_ = 0;
};

/// The sample of one data row; BadInput naming the line and the column for a bad value.
Sample sample_of_row(const InitialFileReader& reader, const std::string& line, const std::vector<Target>& targets,
                     const catalogue::ParameterValues& fixed, const Eigen::VectorXd& q0, const Eigen::VectorXd& v0) {
  const auto items = split(line);
  const std::string where = "--initial-file " + reader.path() + " line " + std::to_string(reader.line_number());
  if (items.size() != targets.size())
    throw BadInput(where + ": " + std::to_string(items.size()) + " value(s) but the header has " +
                   std::to_string(targets.size()) + " column(s)");
  Sample s;
  s.parameters = fixed;
  s.initial.q0 = q0;
  s.initial.v0 = v0;
  for (std::size_t j = 0; j < items.size(); ++j) {
    const double x = cli::parse_number(where + ", column " + targets[j].name, items[j]);
    s.varied.push_back(x);
    if (targets[j].kind == Target::q0) s.initial.q0[targets[j].index] = x;
    else if (targets[j].kind == Target::v0) s.initial.v0[targets[j].index] = x;
    else s.parameters.emplace_back(targets[j].name, x);
  }
  return s;
}

}  // namespace

Samples file_samples(const std::string& path, const catalogue::SystemDescription& system,
                     const catalogue::ParameterValues& fixed, long limit, std::vector<std::string>& varied_columns) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw BadInput("--initial-file: '" + path + "' is not a regular file");
  if (std::filesystem::file_size(path, error) > (std::uintmax_t{1} << 30))
    throw BadInput("--initial-file: '" + path + "' is larger than 1 GiB");
  InitialFileReader reader(path);
  std::vector<Target> targets;
  std::string line;
  if (!reader.next(line)) throw BadInput("--initial-file " + path + ": no header line");
  varied_columns = split(line);
  for (const auto& name : varied_columns) {
    std::string known;
    bool found = false;
    for (std::size_t i = 0; i < system.coordinates.size(); ++i) {
      const auto index = static_cast<Eigen::Index>(i);
      if (name == system.coordinates[i]) targets.push_back({Target::q0, index, name}), found = true;
      else if (name == "v_" + system.coordinates[i]) targets.push_back({Target::v0, index, name}), found = true;
      known += (known.empty() ? "" : ", ") + system.coordinates[i] + ", v_" + system.coordinates[i];
    }
    for (const auto& p : system.parameters) {
      if (!found && name == p.name) targets.push_back({Target::parameter, 0, name}), found = true;
      known += ", " + p.name;
    }
    if (!found)
      throw BadInput("--initial-file " + path + ": column '" + name + "' is neither a coordinate, v_ + a coordinate " +
                     "nor a parameter of " + system.name + " (known: " + known + ")");
    for (std::size_t j = 0; j + 1 < targets.size(); ++j)
      if (targets[j].name == name) throw BadInput("--initial-file " + path + ": column '" + name + "' appears twice");
  }
  const Eigen::VectorXd q0 = Eigen::Map<const Eigen::VectorXd>(system.q0.data(), static_cast<Eigen::Index>(system.q0.size()));
  const Eigen::VectorXd v0 = Eigen::Map<const Eigen::VectorXd>(system.v0.data(), static_cast<Eigen::Index>(system.v0.size()));
  // A first pass checks every row (a bad value fails before any run) and counts them; the rows are
  // read again, a block at a time, when they run.
  std::size_t count = 0;
  while ((limit < 0 || static_cast<long>(count) < limit) && reader.next(line)) {
    if (static_cast<long>(count) == max_samples)
      throw BadInput("--initial-file " + path + " line " + std::to_string(reader.line_number()) + ": more than " +
                     std::to_string(max_samples) + " samples");
    sample_of_row(reader, line, targets, fixed, q0, v0);
    ++count;
  }
  if (count == 0) throw BadInput("--initial-file " + path + ": no data rows after the header");
  if (limit >= 0 && static_cast<long>(count) < limit)
    throw BadInput("--samples " + std::to_string(limit) + ": --initial-file " + path + " has only " +
                   std::to_string(count) + " row(s)");

  struct State {
    std::optional<InitialFileReader> reader;
    std::size_t next = 0;  ///< the index of the row the reader reads next
  };
  auto state = std::make_shared<State>();
  const auto make = [path, targets, fixed, q0, v0, state](std::size_t begin, std::size_t end) {
    std::string row;
    if (!state->reader || begin < state->next) {  // from the start, past the header
      state->reader.emplace(path);
      state->reader->next(row);
      state->next = 0;
    }
    const auto read = [&] {  // the file changed under us since the first pass
      if (!state->reader->next(row)) throw BadInput("--initial-file " + path + ": the file changed while it was read");
    };
    for (; state->next < begin; ++state->next) read();
    std::vector<Sample> samples;
    samples.reserve(end - begin);
    for (; state->next < end; ++state->next) {
      read();
      samples.push_back(sample_of_row(*state->reader, row, targets, fixed, q0, v0));
    }
    return samples;
  };
  return {count, make};
}

std::vector<std::string> state_columns(const catalogue::SystemDescription& system) {
  std::vector<std::string> c{"t"};
  c.insert(c.end(), system.coordinates.begin(), system.coordinates.end());
  c.insert(c.end(), system.velocities.begin(), system.velocities.end());
  if (system.z0) c.push_back("z");
  c.push_back("energy");
  return c;
}

std::string csv_header(const Plan& plan) {
  std::string h = "sample";
  for (const auto& c : plan.varied_columns) h += "," + c;
  h += ",status,steps,energy0,energy_drift,max_constraint";
  for (const auto& c : plan.state_columns) h += "," + c + "_final";
  return h + "\n";
}

Chunk run_chunk(const Plan& plan, std::size_t begin, std::size_t end, unsigned threads,
                const std::function<void(std::size_t)>& finished) {
  end = std::min(end, plan.samples.size());
  begin = std::min(begin, end);
  const std::vector<Sample> samples = plan.samples.make(begin, end);
  std::vector<Outcome> outcomes(end - begin);
  // Threads take the next sample from a shared counter (samples differ in cost); each outcome is
  // stored at its own index, so the rows are the same for any number of threads.
  std::atomic<std::size_t> next{begin};
  std::size_t finished_count = 0;
  std::mutex finishing;
  const auto stopped = [&] { return plan.options.stop && plan.options.stop->load() != 0; };
  const auto work = [&]() {
    for (std::size_t i; !stopped() && (i = next.fetch_add(1)) < end;) {
      outcomes[i - begin] = run_sample(plan, samples[i - begin]);
      if (finished) {
        const std::lock_guard lock(finishing);
        finished(++finished_count);
      }
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(outcomes.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();

  Chunk chunk;
  std::string line;
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    const auto& o = outcomes[k];
    const std::size_t index = begin + k;
    if (!o.message.empty()) chunk.issues.push_back({index, o.kind, one_line(o.message)});
    if (!o.done) continue;
    line = std::to_string(index);
    for (double x : samples[k].varied) line += ',', append_number(line, x);
    line += "," + o.status + "," + std::to_string(o.steps);
    for (double x : {o.energy0, o.energy_drift, o.max_constraint}) line += ',', append_number(line, x);
    for (double x : o.final_state) line += ',', append_number(line, x);
    chunk.rows += line + "\n";
  }
  return chunk;
}

void append(Chunk& chunk, Chunk&& more) {
  chunk.rows += more.rows;
  for (auto& i : more.issues) chunk.issues.push_back(std::move(i));
}

bool Outcomes::add(const std::vector<Issue>& issues) {
  for (const auto& i : issues) {
    if (i.kind == Issue::solver_failure) {
      if (!first_failure_) first_failure_ = i;
      ++failures_;
    } else if (!fatal_ || (i.kind == Issue::internal_error && fatal_->kind != Issue::internal_error)) {
      fatal_ = i;
    }
  }
  return !fatal_;
}

int Outcomes::report(std::size_t samples) const {
  if (fatal_ && fatal_->kind == Issue::internal_error) {
    std::cerr << "dalembert: internal error in sample " << fatal_->sample << ": " << fatal_->message << '\n';
    return 4;
  }
  if (fatal_) {
    std::cerr << "dalembert: sample " << fatal_->sample << ": " << fatal_->message << '\n';
    return 2;
  }
  if (failures_ == 0) return 0;
  std::cerr << "dalembert: the solver failed in " << failures_ << " of " << samples
            << " sample(s) (status solver-failure in the CSV); first, sample " << first_failure_->sample << ": "
            << first_failure_->message << '\n';
  return 3;
}

int run_streamed(const Plan& plan, unsigned threads, const std::string& out,
                 const std::function<void(std::size_t)>& finished) {
  support::OutputFile file("--out", out.empty() ? "-" : out);
  // A file is committed only at the end, and not after bad input or an unexpected error: then it
  // is left as it was. Standard output is written straight through, block by block, each block
  // once its samples are checked: bad input in the first block writes nothing, not even the header.
  Outcomes outcomes;
  const std::size_t n = plan.samples.size();
  for (std::size_t begin = 0; begin < n; begin += block_size) {
    const std::size_t end = std::min(n, begin + block_size);
    const auto done_before = begin;
    Chunk chunk = run_chunk(plan, begin, end, threads, [&](std::size_t k) {
      if (finished) finished(done_before + k);
    });
    if (!outcomes.add(chunk.issues)) break;
    file.write(begin == 0 ? csv_header(plan) + chunk.rows : chunk.rows);
    if (plan.options.stop && plan.options.stop->load() != 0) break;
  }
  if (!outcomes.fatal()) file.commit();
  return outcomes.report(n);
}

unsigned default_threads(unsigned ranks_on_this_node) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1u, cores / std::max(1u, ranks_on_this_node));
}

}  // namespace dalembert::ensemble
