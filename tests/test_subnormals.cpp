// Subnormal numbers flushed to zero while a method runs (core/subnormals.hpp, method/integrate.hpp),
// and the caller's floating-point mode given back after.
#include <gtest/gtest.h>

#include <limits>

#include "dalembert/core/subnormals.hpp"
#include "dalembert/method/integrate.hpp"

namespace {

// volatile: the products are computed at run time, in the thread's mode, not folded by the compiler.
double product(double a, double b) {
  volatile double x = a, y = b;
  return x * y;
}

/// A method whose state decays by a factor 1e-10 a step, past the smallest normal number.
struct Decay {
  struct State {
    long k = 0;
    double t = 0.0;
    int iterations = 0;
    double x = 1e-290;
  };
  double step_size() const { return 1.0; }
  const Decay& system() const { return *this; }
  void step(State& s) const {
    s.x = product(s.x, 1e-10);
    ++s.k;
    s.t += 1.0;
  }
  double velocity(const State& s) const { return s.x; }
};

}  // namespace

TEST(Subnormals, AreZeroWithinTheScopeAndBackAfterIt) {
  const double smallest_normal = std::numeric_limits<double>::min();
  EXPECT_GT(product(smallest_normal, 0.5), 0.0);  // a subnormal number, outside any scope
  {
    const dalembert::FlushSubnormals flush;
    EXPECT_EQ(product(smallest_normal, 0.5), 0.0);
    EXPECT_EQ(product(smallest_normal, 2.0), 2.0 * smallest_normal);  // normal numbers unchanged
#if defined(__SSE2__)
    const volatile double subnormal_operand = std::numeric_limits<double>::denorm_min();
    EXPECT_EQ(product(subnormal_operand, 1e300), 0.0);  // read as zero
#endif
  }
  EXPECT_GT(product(smallest_normal, 0.5), 0.0);
  EXPECT_GT(product(std::numeric_limits<double>::denorm_min(), 1e300), 0.0);
}

TEST(Subnormals, AreZeroWhileIntegrateRuns) {
  Decay::State s;
  double last_normal = 0.0;
  dalembert::integrate(Decay{}, s, 3, [&](const Decay::State& state) {
    if (state.k == 1) last_normal = state.x;
  });
  EXPECT_EQ(last_normal, product(1e-290, 1e-10));  // 1e-300
  EXPECT_EQ(s.x, 0.0);  // 1e-310 and 1e-320 would be subnormal
  EXPECT_GT(product(std::numeric_limits<double>::min(), 0.5), 0.0);  // the caller's mode is back
}
