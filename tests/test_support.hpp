#pragma once
// Helpers shared by the numerical tests: run a method to a final time, measure errors and orders.
#include <vector>

#include "dalembert/diagnostics/convergence.hpp"
#include "dalembert/method/integrate.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::test {

/// Final state of `method` started from (q0, v0) after `steps` steps.
template <class Method, int N>
typename Method::State final_state(const Method& method, const PhasePoint<N>& x0, long steps) {
  auto s = method.initial_state(x0.q, x0.v);
  for (long k = 0; k < steps; ++k) method.step(s);
  return s;
}

/// Observed order of convergence from errors at step sizes T/N for N in `divisions`.
template <class ErrorAt>
double measured_order(double t_end, const std::vector<long>& divisions, ErrorAt&& error_at,
                      std::vector<double>* errors_out = nullptr) {
  std::vector<double> hs, errors;
  for (long N : divisions) {
    hs.push_back(t_end / static_cast<double>(N));
    errors.push_back(error_at(hs.back(), N));
  }
  if (errors_out) *errors_out = errors;
  return fitted_order(hs, errors);
}

}  // namespace dalembert::test
