#include "hand_written_particle.hpp"

#include <stdexcept>

namespace bench {

using dalembert::Matd;
using dalembert::Vecd;

void HandWrittenParticleDla::step(State& s) const {
  // Unknowns (x1, y1, z1, λ); with q_m = (q0 + q1)/2 and v = (q1 − q0)/h:
  //   p + D1 L_d − M(q0)ᵀλ = 0,  D1 L_d = −v − (h/2) ∇V(q_m),  M(q0) = (−y0, 0, 1)
  //   ω = v_z − y_m v_x = 0
  const Vecd<3> q0 = s.q;
  const auto evaluate = [&](const Vecd<4>& x, Vecd<4>& F, Matd<4, 4>& J) {
    const Vecd<3> q1 = x.head<3>();
    const Vecd<3> v = (q1 - q0) / h;
    const double xm = 0.5 * (q0[0] + q1[0]), ym = 0.5 * (q0[1] + q1[1]);
    const double lambda = x[3];
    F[0] = s.p[0] - v[0] - h * c * xm + q0[1] * lambda;
    F[1] = s.p[1] - v[1] - h * c * ym;
    F[2] = s.p[2] - v[2] - lambda;
    F[3] = v[2] - ym * v[0];
    J.setZero();
    J(0, 0) = -1.0 / h - 0.5 * h * c;
    J(1, 1) = -1.0 / h - 0.5 * h * c;
    J(2, 2) = -1.0 / h;
    J(0, 3) = q0[1];
    J(2, 3) = -1.0;
    J(3, 0) = -ym / h;
    J(3, 1) = -0.5 * v[0];
    J(3, 2) = 1.0 / h;
  };
  Vecd<4> x;
  x << q0 + h * s.last_velocity, s.lambda;
  const auto report = dalembert::newton_solve<4>(evaluate, x, s.p.lpNorm<Eigen::Infinity>());
  if (!report.converged) throw std::runtime_error("hand-written step failed");
  const Vecd<3> q1 = x.head<3>();
  const Vecd<3> v = (q1 - q0) / h;
  const double xm = 0.5 * (q0[0] + q1[0]), ym = 0.5 * (q0[1] + q1[1]);
  s.p = v - h * c * Vecd<3>(xm, ym, 0.0);  // D2 L_d = v − (h/2) ∇V(q_m)
  s.lambda = x[3];
  s.last_velocity = v;
  s.q = q1;
  s.iterations = report.iterations;
}

}  // namespace bench
