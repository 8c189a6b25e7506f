#pragma once
// The algebra of a model file, with GiNaC: parse the expressions (strictly: unknown symbols and
// functions are errors), check them (constraints linear in the velocities, symmetric metric),
// differentiate them, and produce the kernels of evaluator.hpp as expressions, as C source for the
// system compiler, or as an interpreted evaluator for machines without one.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ginac/ginac.h>

#include "modelfile/evaluator.hpp"
#include "modelfile/guard.hpp"
#include "modelfile/spec.hpp"

namespace dalembert::modelfile {

/// One kernel: (index in the output array, expression in the kernel's arguments x[i], p[k], t).
struct Kernel {
  std::string name;
  std::vector<std::pair<int, GiNaC::ex>> outputs;
};

struct SymbolicModel {
  Layout layout;
  /// lagrangian_0..3, constraints_0..3, mechanics_0..3, force_0..3, derived, solution, initial (empty where
  /// the file has none).
  std::vector<Kernel> kernels;
};

inline constexpr int lagrangian_kernel(int order) { return order; }
inline constexpr int constraints_kernel(int order) { return max_taylor_order + 1 + order; }
inline constexpr int mechanics_kernel(int order) { return 2 * (max_taylor_order + 1) + order; }
inline constexpr int force_kernel(int order) { return 3 * (max_taylor_order + 1) + order; }
inline constexpr int derived_kernel = 4 * (max_taylor_order + 1);
inline constexpr int solution_kernel = derived_kernel + 1;
inline constexpr int initial_kernel = solution_kernel + 1;

/// Parses, checks and differentiates; throws ModelFileError pointing at the offending expression.
SymbolicModel analyse(const ModelSpec& spec);

/// C source defining `void dalembert_<kernel>(const double* x, const double* p, double t, double* out)`
/// for every kernel.
std::string c_source(const SymbolicModel& model);

/// Evaluates the kernels by walking their expressions (no compiler needed; much slower).
std::unique_ptr<Evaluator> interpreted_evaluator(const SymbolicModel& model);

}  // namespace dalembert::modelfile
