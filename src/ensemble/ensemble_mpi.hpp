#pragma once
// `dalembert ensemble` over MPI ranks (compiled only when CMake finds MPI; DALEMBERT_WITH_MPI).
// In round k, rank r of P runs block k P + r of block_size samples on its own threads; rank 0
// gathers each round's rows in rank order, which is sample order, and writes them to the CSV.
#include <optional>
#include <string>

#include "ensemble/ensemble.hpp"

namespace dalembert::ensemble::mpi {

/// True when an MPI launcher (mpirun, mpiexec, srun) started this process.
bool launched();

/// Initialises MPI, runs `plan` over all ranks and finalises MPI. `threads` per rank; by default
/// the cores of a node divided among the ranks on it. Returns the exit status, the same on every
/// rank (see finish()).
int run(const Plan& plan, std::optional<unsigned> threads, const std::string& out);

}  // namespace dalembert::ensemble::mpi
