// Cost of one step of the position–momentum methods on the knife edge and the sleigh (h = 1e-3,
// 200 000 steps each), in ns: a single file against a checkout's headers, so that two commits can be
// compared without building either (docs/benchmarks.md, Positions below their last bit):
//   clang++ -std=c++20 -O3 -DNDEBUG -I<checkout>/include -I/usr/include/eigen3 bench/step_cost.cpp -o step_cost
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
using namespace dalembert;
template <class I, class X> double ns_per_step(const I& integ, const X& x0, long N) {
  auto s = integ.initial_state(x0.q, x0.v);
  auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < N; ++k) integ.step(s);
  auto t1 = std::chrono::steady_clock::now();
  volatile double sink = s.q[0]; (void)sink;
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / N;
}
int main() {
  models::KnifeEdge ke; auto x0 = ke.default_initial();
  models::ChaplyginSleigh sl; auto y0 = sl.default_initial();
  const long N = 200000; const double h = 1e-3;
  printf("ke-dla %.1f\n", ns_per_step(make_dla(ke, h), x0, N));
  printf("ke-mla %.1f\n", ns_per_step(make_midpoint_mla(ke, h), x0, N));
  printf("ke-gf %.1f\n", ns_per_step(make_gf(ke, h), x0, N));
  printf("ke-gfcp %.1f\n", ns_per_step(make_gf_cp(ke, h), x0, N));
  printf("ke-fim %.1f\n", ns_per_step(make_fim(ke, h), x0, N));
  printf("sl-dla %.1f\n", ns_per_step(make_dla(sl, h), y0, N));
  printf("sl-mla %.1f\n", ns_per_step(make_midpoint_mla(sl, h), y0, N));
  printf("sl-fim %.1f\n", ns_per_step(make_fim(sl, h), y0, N));
}
