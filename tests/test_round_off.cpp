// The round-off floor of the position–momentum methods (solve/below_last_bit.hpp). Stored as doubles,
// the positions of a step keep only the leading bits of the increment h v, and the velocity the next
// step reads is off by up to ε|q|/h: the error stopped following the method's order near 1e-9 at
// h ≈ 1e-5 on the knife edge, and far from the origin it grew to 1e-4. With q carried below its last
// bit, the same motion translated to (1e4, −1e4) has the error of the motion at the origin.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

namespace round_off {

/// The knife edge's default motion (its closed form has the downhill drift g and turning rate 1),
/// started at `offset` in x and −offset in y: the dynamics do not change under the translation.
PhasePoint<3> start(double offset) {
  PhasePoint<3> x0 = KnifeEdge{}.default_initial();
  x0.q[0] += offset;
  x0.q[1] -= offset;
  return x0;
}

/// Max-norm error in q at T = 1 after N steps against the closed form.
template <class Make>
double error_at(Make make, long N, double offset) {
  const KnifeEdge sys;
  const auto x0 = start(offset);
  const auto s = test::final_state(make(sys, 1.0 / static_cast<double>(N)), x0, N);
  return (s.q - sys.exact_solution(x0, 1.0)->q).template lpNorm<Eigen::Infinity>();
}

constexpr double kFar = 1e4;
// One unit in the last place of 1e4 (1.8e-12) is the resolution of a position there: the far motion's
// error can differ from the near one's by the rounding of its last state and of its start.
constexpr double kUlpFar = 1.82e-12;

template <class Make>
void expect_no_round_off_floor(const std::string& method, Make make) {
  SCOPED_TRACE(method);
  // h = 2^-13 and 2^-15: the ratio of the errors is 16 for order 2. Far away, before the positions
  // were carried below their last bit, the error at h = 2^-15 was 3e-7 to 1e-5 instead of 1e-10.
  const double coarse = error_at(make, 8192, 0.0), fine = error_at(make, 32768, 0.0);
  const double far = error_at(make, 32768, kFar);
  EXPECT_NEAR(std::log2(coarse / fine) / 2.0, 2.0, 0.05) << coarse << " " << fine;
  EXPECT_NEAR(far, fine, 2 * kUlpFar);
}

TEST(RoundOff, SecondOrderMethodsFollowTheirOrderAndDoNotDependOnWhereTheMotionIs) {
  expect_no_round_off_floor("dla", [](const KnifeEdge& s, double h) { return make_dla(s, h); });
  expect_no_round_off_floor("mla", [](const KnifeEdge& s, double h) { return make_midpoint_mla(s, h); });
  expect_no_round_off_floor("gf", [](const KnifeEdge& s, double h) { return make_gf(s, h); });
  expect_no_round_off_floor("gf-sym", [](const KnifeEdge& s, double h) { return make_gf_sym(s, h, 0.25); });
  expect_no_round_off_floor("gf-cp", [](const KnifeEdge& s, double h) { return make_gf_cp(s, h); });
  expect_no_round_off_floor("fim", [](const KnifeEdge& s, double h) { return make_fim(s, h); });
}

// Steps that are not powers of two, h = 1e-5 and 2.5e-6 (T = 1): the knife edge's slope adds the
// same impulse h α ∂L/∂q at every step, and rounding p_{k+1} = G v + h α ∂L/∂q to a double dropped
// the same part of it at every step, a bias that stopped the error near 6e-12 (order 0.6 instead of
// 2 for dla between these steps). With p carried below its last bit (SplitSlotDerivatives) the error
// at h = 2.5e-6 is 8e-13, on the order-2 line. GF-CP keeps its momentum as its projection rounds it.
TEST(RoundOff, StepsThatAreNotPowersOfTwoFollowTheOrderToo) {
  const auto expect_order_two = [](const std::string& method, auto make) {
    SCOPED_TRACE(method);
    const double coarse = error_at(make, 100000, 0.0), fine = error_at(make, 400000, 0.0);
    EXPECT_NEAR(std::log2(coarse / fine) / 2.0, 2.0, 0.1) << coarse << " " << fine;
    EXPECT_LT(fine, 1.5e-12);
  };
  expect_order_two("dla", [](const KnifeEdge& s, double h) { return make_dla(s, h); });
  expect_order_two("mla", [](const KnifeEdge& s, double h) { return make_midpoint_mla(s, h); });
  expect_order_two("gf", [](const KnifeEdge& s, double h) { return make_gf(s, h); });
  expect_order_two("gf-sym", [](const KnifeEdge& s, double h) { return make_gf_sym(s, h, 0.25); });
  expect_order_two("fim", [](const KnifeEdge& s, double h) { return make_fim(s, h); });
}

}  // namespace round_off
