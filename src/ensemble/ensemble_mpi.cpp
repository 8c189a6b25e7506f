#include "ensemble/ensemble_mpi.hpp"

#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "support/output_file.hpp"

#define OMPI_SKIP_MPICXX 1  // the C API only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace dalembert::ensemble::mpi {

namespace {

/// A chunk as text: the rows, then one line per issue (sample, kind, message).
std::string serialize(const Chunk& c) {
  std::ostringstream s;
  s << c.rows.size() << '\n' << c.rows;
  for (const auto& i : c.issues) s << i.sample << ' ' << static_cast<int>(i.kind) << ' ' << i.message << '\n';
  return s.str();
}

Chunk deserialize(const std::string& text) {
  Chunk c;
  std::istringstream s(text);
  std::size_t size = 0;
  s >> size;
  s.get();
  c.rows.resize(size);
  s.read(c.rows.data(), static_cast<std::streamsize>(size));
  for (std::string line; std::getline(s, line);) {
    std::istringstream l(line);
    Issue i;
    int kind = 0;
    l >> i.sample >> kind;
    l.get();
    std::getline(l, i.message);
    i.kind = static_cast<Issue::Kind>(kind);
    c.issues.push_back(std::move(i));
  }
  return c;
}

struct Session {
  Session() { MPI_Init(nullptr, nullptr); }
  ~Session() { MPI_Finalize(); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

}  // namespace

bool launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(v)) return true;
  return false;
}

int run(const Plan& plan, std::optional<unsigned> threads, const std::string& out) {
  Session session;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!threads) {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int on_node = 1;
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    threads = default_threads(static_cast<unsigned>(on_node));
  }

  // Rounds: in round k rank r runs block k P + r; rank 0 gathers the round's rows in rank order,
  // which is sample order, and writes them, so memory holds one block per rank.
  const std::size_t N = plan.samples.size(), P = static_cast<std::size_t>(size), r = static_cast<std::size_t>(rank);
  std::optional<support::OutputFile> file;
  int status = 0, go_on = 1;
  if (rank == 0) {
    try {
      file.emplace("--out", out.empty() ? "-" : out);
    } catch (const BadInput& e) {  // e.g. the output file cannot be written
      std::cerr << "dalembert: " << e.what() << '\n';
      status = 2, go_on = 0;
    }
  }
  MPI_Bcast(&go_on, 1, MPI_INT, 0, MPI_COMM_WORLD);
  Outcomes outcomes;
  for (std::size_t round = 0; go_on && round * P * block_size < N; ++round) {
    const std::size_t begin = std::min(N, (round * P + r) * block_size), end = std::min(N, begin + block_size);
    const std::string mine = serialize(run_chunk(plan, begin, end, *threads));
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(P), offsets(P);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string gathered;
    if (rank == 0) {
      long total = 0;
      for (std::size_t i = 0; i < P; ++i) offsets[i] = static_cast<int>(total), total += lengths[i];
      gathered.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(mine.data(), length, MPI_CHAR, gathered.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
      for (std::size_t i = 0; i < P && go_on; ++i) {
        const Chunk chunk =
            deserialize(gathered.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
        if (!outcomes.add(chunk.issues)) go_on = 0;
        else file->write(round == 0 && i == 0 ? csv_header(plan) + chunk.rows : chunk.rows);
      }
    }
    MPI_Bcast(&go_on, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (rank == 0 && file) {
    if (!outcomes.fatal()) file->commit();
    status = outcomes.report(N);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace dalembert::ensemble::mpi
