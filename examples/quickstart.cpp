// The README's C++ example: midpoint DLA on the nonholonomic particle with V = x² + y².
#include <iostream>

#include <dalembert/method/dla.hpp>
#include <dalembert/models/particle.hpp>

int main() {
  dalembert::models::NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;                    // V = x² + y²
  const auto dla = dalembert::make_dla(particle, 0.1);     // midpoint L_d and constraint, h = 0.1
  auto s = dla.initial_state({1, 0.5, 0}, {0.3, 0.7, 0.15});  // (q0, v0), v0 in D: ż = y ẋ
  for (int k = 0; k < 1000; ++k) dla.step(s);
  std::cout << "t = " << s.t << "  q = " << s.q.transpose()
            << "  E = " << dalembert::energy(particle, s.q, dla.velocity(s)) << '\n';
}
