#include "hand_written.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bench {

using dalembert::Matd;
using dalembert::Vecd;

namespace {
/// sin x and cos x in one libm call, as g++ makes of a std::sin, std::cos pair by itself and
/// clang++ does not: a hand-written step written for speed would do the same.
void sin_and_cos(double x, double& s, double& c) {
#if defined(__GLIBC__)
  ::sincos(x, &s, &c);
#else
  s = std::sin(x);
  c = std::cos(x);
#endif
}
}  // namespace

void HandWrittenParticleDla::step(State& s) const {
  // Unknowns (x1, y1, z1, λ); with q_m = (q0 + q1)/2 and v = (q1 − q0)/h:
  //   p + D1 L_d − M(q0)ᵀλ = 0,  D1 L_d = −v − (h/2) ∇V(q_m),  M(q0) = (−y0, 0, 1)
  //   ω = v_z − y_m v_x = 0
  const Vecd<3> q0 = s.q;
  const auto residual = [&](const Vecd<4>& x, Vecd<4>& F) {
    const Vecd<3> q1 = x.head<3>();
    const Vecd<3> v = (q1 - q0) / h;
    const double xm = 0.5 * (q0[0] + q1[0]), ym = 0.5 * (q0[1] + q1[1]);
    const double lambda = x[3];
    F[0] = s.p[0] - v[0] - h * c * xm + q0[1] * lambda;
    F[1] = s.p[1] - v[1] - h * c * ym;
    F[2] = s.p[2] - v[2] - lambda;
    F[3] = v[2] - ym * v[0];
  };
  const auto jacobian = [&](const Vecd<4>& x, Matd<4, 4>& J) {
    const Vecd<3> q1 = x.head<3>();
    const Vecd<3> v = (q1 - q0) / h;
    const double ym = 0.5 * (q0[1] + q1[1]);
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
  const auto report = dalembert::newton_solve<4>(residual, jacobian, x, s.p.lpNorm<Eigen::Infinity>());
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

namespace {
// The Newton tolerance scale of the generic step (method/dla.hpp).
double newton_scale(const HandWrittenState& s) {
  return std::max(s.p.lpNorm<Eigen::Infinity>(), s.last_velocity.lpNorm<Eigen::Infinity>());
}
}  // namespace

void HandWrittenKnifeEdgeDla::step(State& s) const {
  // Unknowns (x1, y1, φ1, λ); with q_m = (q0 + q1)/2, v = (q1 − q0)/h, G = diag(m, m, J),
  // ∇V = (−m g + k x, k y, 0):
  //   p + D1 L_d − M(q0)ᵀλ = 0,  D1 L_d = −G v − (h/2) ∇V(q_m),  M(q) = (sin φ, −(cos φ − ε), 0)
  //   ω = sin φ_m v_x − (cos φ_m − ε) v_y = 0
  const Vecd<3> q0 = s.q;
  double s0, c0;
  sin_and_cos(q0[2], s0, c0);
  double sm = 0.0, cm = 0.0;  // sin φ_m, cos φ_m of the last residual, which the Jacobian is at
  const auto residual = [&](const Vecd<4>& x, Vecd<4>& F) {
    const Vecd<3> q1 = x.head<3>();
    const Vecd<3> v = (q1 - q0) / h;
    const double xm = 0.5 * (q0[0] + q1[0]), ym = 0.5 * (q0[1] + q1[1]), phim = 0.5 * (q0[2] + q1[2]);
    sin_and_cos(phim, sm, cm);
    const double lambda = x[3];
    F[0] = s.p[0] - mass * v[0] - 0.5 * h * (-mass * slope + spring * xm) - s0 * lambda;
    F[1] = s.p[1] - mass * v[1] - 0.5 * h * spring * ym + (c0 - eps) * lambda;
    F[2] = s.p[2] - inertia * v[2];
    F[3] = sm * v[0] - (cm - eps) * v[1];
  };
  const auto jacobian = [&](const Vecd<4>& x, Matd<4, 4>& J) {
    const Vecd<3> v = (x.head<3>() - q0) / h;
    J.setZero();
    J(0, 0) = -mass / h - 0.25 * h * spring;
    J(1, 1) = -mass / h - 0.25 * h * spring;
    J(2, 2) = -inertia / h;
    J(0, 3) = -s0;
    J(1, 3) = c0 - eps;
    J(3, 0) = sm / h;
    J(3, 1) = -(cm - eps) / h;
    J(3, 2) = 0.5 * (cm * v[0] + sm * v[1]);
  };
  Vecd<4> x;
  x << q0 + h * s.last_velocity, s.lambda;
  const auto report = dalembert::newton_solve<4>(residual, jacobian, x, newton_scale(s));
  if (!report.converged) throw std::runtime_error("hand-written knife-edge step failed");
  const Vecd<3> q1 = x.head<3>();
  const Vecd<3> v = (q1 - q0) / h;
  const double xm = 0.5 * (q0[0] + q1[0]), ym = 0.5 * (q0[1] + q1[1]);
  // D2 L_d = G v − (h/2) ∇V(q_m)
  s.p = Vecd<3>(mass * v[0] - 0.5 * h * (-mass * slope + spring * xm), mass * v[1] - 0.5 * h * spring * ym,
                inertia * v[2]);
  s.lambda = x[3];
  s.last_velocity = v;
  s.q = q1;
  s.iterations = report.iterations;
}

void HandWrittenSleighDla::step(State& s) const {
  // Unknowns (x1, y1, θ1, λ); with q_m = (q0 + q1)/2, v = (q1 − q0)/h, c = cos θ_m, s = sin θ_m,
  //   G(θ) = [[m, 0, −m a s], [0, m, m a c], [−m a s, m a c, I + m a²]],
  //   g = ∂L/∂θ (q_m, v) = −m a v_θ (c v_x + s v_y):
  //   p + D1 L_d − M(q0)ᵀλ = 0,  D1 L_d = −G(θ_m) v + (h/2) g e_θ,  D2 L_d = G(θ_m) v + (h/2) g e_θ,
  //   ω = −s v_x + c v_y = 0,    M(q) = (−sin θ, cos θ, 0).
  const Vecd<3> q0 = s.q;
  const double ma = mass * offset, Itot = inertia + mass * offset * offset;
  double s0, c0;
  sin_and_cos(q0[2], s0, c0);
  Vecd<3> D2;               // D2 L_d of the last residual
  double sn = 0.0, cs = 0.0;  // sin θ_m, cos θ_m of the last residual, which the Jacobian is at
  const auto residual = [&](const Vecd<4>& x, Vecd<4>& F) {
    const Vecd<3> q1 = x.head<3>();
    const Vecd<3> v = (q1 - q0) / h;
    const double thm = 0.5 * (q0[2] + q1[2]);
    sin_and_cos(thm, sn, cs);
    const double lambda = x[3];
    const double g = -ma * v[2] * (cs * v[0] + sn * v[1]);
    const Vecd<3> Gv(mass * v[0] - ma * sn * v[2], mass * v[1] + ma * cs * v[2],
                     -ma * sn * v[0] + ma * cs * v[1] + Itot * v[2]);
    F.head<3>() = s.p - Gv;
    F[2] += 0.5 * h * g;
    F[0] += s0 * lambda;
    F[1] -= c0 * lambda;
    F[3] = -sn * v[0] + cs * v[1];
    D2 = Gv;
    D2[2] += 0.5 * h * g;
  };
  const auto jacobian = [&](const Vecd<4>& x, Matd<4, 4>& J) {
    const Vecd<3> v = (x.head<3>() - q0) / h;
    const double along = cs * v[0] + sn * v[1];  // blade speed
    const Vecd<3> dGv(-ma * cs * v[2], -ma * sn * v[2], -ma * along);  // θ-derivative of G v
    // ∂/∂q1 of −G(θ_m) v: −G/h, and −½ G' v in the θ column.
    J.setZero();
    J(0, 0) = -mass / h;
    J(1, 1) = -mass / h;
    J(0, 2) = ma * sn / h;
    J(2, 0) = ma * sn / h;
    J(1, 2) = -ma * cs / h;
    J(2, 1) = -ma * cs / h;
    J(2, 2) = -Itot / h;
    J.block<3, 1>(0, 2) -= 0.5 * dGv;
    // ∂/∂q1 of (h/2) g e_θ: ∂g/∂v / h and ½ ∂g/∂θ.
    J(2, 0) += 0.5 * (-ma * v[2] * cs);
    J(2, 1) += 0.5 * (-ma * v[2] * sn);
    J(2, 2) += 0.5 * (-ma * along) + 0.25 * h * (-ma * v[2] * (-sn * v[0] + cs * v[1]));
    J(0, 3) = s0;
    J(1, 3) = -c0;
    J(3, 0) = -sn / h;
    J(3, 1) = cs / h;
    J(3, 2) = 0.5 * (-cs * v[0] - sn * v[1]);
  };
  Vecd<4> x;
  x << q0 + h * s.last_velocity, s.lambda;
  const auto report = dalembert::newton_solve<4>(residual, jacobian, x, newton_scale(s));
  if (!report.converged) throw std::runtime_error("hand-written sleigh step failed");
  const Vecd<3> q1 = x.head<3>();
  s.p = D2;
  s.lambda = x[3];
  s.last_velocity = (q1 - q0) / h;
  s.q = q1;
  s.iterations = report.iterations;
}

}  // namespace bench
