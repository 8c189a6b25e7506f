#pragma once
// Midpoint discrete Lagrange–d'Alembert (method/dla.hpp, α = ½) for the chain of knife edges of
// models/knife_edge_chain.hpp with the number of skates chosen at run time, and Newton on the
// sparse Jacobian: with q̄ = (q_k + q_{k+1})/2, v̄ = (q_{k+1} − q_k)/h, G = diag(m, m, J, …),
//   F = p⁺_k − G v̄ − (h/2) ∇V(q̄) − M(q_k)ᵀ λ = 0,   ω_i = sin φ̄_i v̄x_i − cos φ̄_i v̄y_i = 0,
//   p⁺_{k+1} = G v̄ − (h/2) ∇V(q̄).
// V is quadratic with a banded Hessian H, so ∂F/∂q_{k+1} = −G/h − (h/4) H; the Jacobian of the
// 4N unknowns (q_{k+1}, λ) has about 20 N non-zeros. Each Newton iteration factorises it with
// Eigen::SparseLU (the pattern is analysed once), or, for comparison, densely with PartialPivLU.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Eigen/SparseLU>

#include "dalembert/models/knife_edge_chain.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

class KnifeEdgeChainDla {
 public:
  enum class Linear { sparse, dense };

  struct State {
    long k = 0;
    double t = 0.0;
    Eigen::VectorXd q, p, multiplier, last_velocity;
    double discrete_constraint = 0.0;  ///< |ω(q_{k−1}, q_k)|_inf
    int iterations = 0;
  };

  KnifeEdgeChainDla(int skates, models::KnifeEdgeChainParameters parameters, double h,
                    Linear linear = Linear::sparse, NewtonOptions options = {})
      : N_(skates), p_(parameters), h_(h), linear_(linear), options_(options) {
    if (skates < 1) throw std::invalid_argument("a chain needs at least one knife edge");
    if (!(h > 0)) throw std::invalid_argument("h must be positive");
  }

  int skates() const { return N_; }
  double step_size() const { return h_; }

  /// Position–momentum start from v0 in D: p⁺_0 = G v0.
  State initial_state(const Eigen::VectorXd& q0, const Eigen::VectorXd& v0) const {
    State s;
    s.q = q0;
    s.p = mass_matrix().cwiseProduct(v0);
    s.multiplier = Eigen::VectorXd::Zero(N_);
    s.last_velocity = v0;
    return s;
  }

  /// Two-point start from (q0, q1), as the papers start: the state at k = 1, p⁺_1 = D2 L_d(q0, q1).
  State initial_state_two_point(const Eigen::VectorXd& q0, const Eigen::VectorXd& q1) const {
    State s;
    s.k = 1;
    s.t = h_;
    s.q = q1;
    const Eigen::VectorXd qm = 0.5 * (q0 + q1), vm = (q1 - q0) / h_;
    s.p = mass_matrix().cwiseProduct(vm) - 0.5 * h_ * gradient(qm);
    s.multiplier = Eigen::VectorXd::Zero(N_);
    s.last_velocity = vm;
    s.discrete_constraint = discrete_constraint(q0, q1);
    return s;
  }

  /// The pre-momentum at q0 of a two-point start, −D1 L_d(q0, q1).
  Eigen::VectorXd pre_momentum(const Eigen::VectorXd& q0, const Eigen::VectorXd& q1) const {
    return mass_matrix().cwiseProduct((q1 - q0) / h_) + 0.5 * h_ * gradient(0.5 * (q0 + q1));
  }

  /// The velocity in D of a momentum p at q (the components of p on D): skate i moves along its
  /// blade at speed (p_x cos φ + p_y sin φ)/m and turns at p_φ/J.
  Eigen::VectorXd velocity_of(const Eigen::VectorXd& q, const Eigen::VectorXd& p) const {
    Eigen::VectorXd v(3 * N_);
    for (int i = 0; i < N_; ++i) {
      const double c = std::cos(q[3 * i + 2]), sn = std::sin(q[3 * i + 2]);
      const double speed = (p[3 * i] * c + p[3 * i + 1] * sn) / p_.mass;
      v.segment<3>(3 * i) << speed * c, speed * sn, p[3 * i + 2] / p_.inertia;
    }
    return v;
  }
  /// The velocity of the constrained momentum p⁺_k on D*, as DiscreteLagrangeDAlembert::velocity.
  Eigen::VectorXd velocity(const State& s) const { return velocity_of(s.q, s.p); }

  /// |M(q) v|_inf = max_i |sin φ_i ẋ_i − cos φ_i ẏ_i|.
  double constraint_residual(const Eigen::VectorXd& q, const Eigen::VectorXd& v) const {
    double r = 0.0;
    for (int i = 0; i < N_; ++i)
      r = std::max(r, std::abs(std::sin(q[3 * i + 2]) * v[3 * i] - std::cos(q[3 * i + 2]) * v[3 * i + 1]));
    return r;
  }

  /// |ω(q0, q1)|_inf, the midpoint discrete constraint.
  double discrete_constraint(const Eigen::VectorXd& q0, const Eigen::VectorXd& q1) const {
    return constraint_residual(0.5 * (q0 + q1), (q1 - q0) / h_);
  }

  void step(State& s) const {
    const int n = 3 * N_, U = 4 * N_;
    const Eigen::VectorXd G = mass_matrix();
    Eigen::VectorXd x(U), F(U), dx(U);
    x << s.q + h_ * s.last_velocity, s.multiplier;
    const auto residual = [&](const Eigen::VectorXd& u, Eigen::VectorXd& out) {
      const Eigen::VectorXd q1 = u.head(n), qm = 0.5 * (s.q + q1), vm = (q1 - s.q) / h_;
      out.head(n) = s.p - G.cwiseProduct(vm) - 0.5 * h_ * gradient(qm);
      for (int i = 0; i < N_; ++i) {
        const double sp = std::sin(s.q[3 * i + 2]), cp = std::cos(s.q[3 * i + 2]);
        out[3 * i] -= sp * u[n + i];  // − M(q_k)ᵀ λ
        out[3 * i + 1] += cp * u[n + i];
        const double sm = std::sin(qm[3 * i + 2]), cm = std::cos(qm[3 * i + 2]);
        out[n + i] = sm * vm[3 * i] - cm * vm[3 * i + 1];
      }
    };
    const double scale = std::max(s.p.lpNorm<Eigen::Infinity>(), s.last_velocity.lpNorm<Eigen::Infinity>());
    const double tol = options_.tolerance * std::max(1.0, scale);
    residual(x, F);
    int it = 0;
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    bool analysed = false;
    const auto fail = [&](const std::string& reason) {
      throw SolverError(s.k + 1, s.t + h_, NewtonReport{false, it, F.lpNorm<Eigen::Infinity>(), reason});
    };
    for (;;) {
      const double norm = F.lpNorm<Eigen::Infinity>();
      if (!std::isfinite(norm)) fail("non-finite residual");
      if (norm <= tol) break;
      if (it == options_.max_iterations) fail("no convergence within " + std::to_string(it) + " iterations");
      ++it;
      const Eigen::SparseMatrix<double> J = jacobian(s.q, x.head(n), G);
      if (linear_ == Linear::sparse) {
        if (!analysed) lu.analyzePattern(J), analysed = true;
        lu.factorize(J);
        if (lu.info() != Eigen::Success) fail("singular Jacobian");
        dx = lu.solve(F);
      } else {
        dx = Eigen::MatrixXd(J).partialPivLu().solve(F);
      }
      x -= dx;
      residual(x, F);
      // As solve/newton.hpp: a correction at round-off level cannot improve x; accept it if the
      // residual is small (far-travelled skates have large coordinates).
      const double roundoff = 4 * std::numeric_limits<double>::epsilon() * (1.0 + x.lpNorm<Eigen::Infinity>());
      if (dx.lpNorm<Eigen::Infinity>() <= roundoff && F.lpNorm<Eigen::Infinity>() <= 1e3 * tol) break;
    }
    const Eigen::VectorXd q1 = x.head(n), qm = 0.5 * (s.q + q1), vm = (q1 - s.q) / h_;
    s.p = G.cwiseProduct(vm) - 0.5 * h_ * gradient(qm);
    s.multiplier = x.tail(N_);
    s.discrete_constraint = discrete_constraint(s.q, q1);
    s.last_velocity = vm;
    s.q = q1;
    s.k += 1;
    s.t = static_cast<double>(s.k) * h_;
    s.iterations = it;
  }

  /// ∇V at q.
  Eigen::VectorXd gradient(const Eigen::VectorXd& q) const {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(3 * N_);
    for (int i = 0; i + 1 < N_; ++i) {
      const double fx = p_.spring * (q[3 * i + 3] - q[3 * i] - p_.length);
      const double fy = p_.spring * (q[3 * i + 4] - q[3 * i + 1]);
      const double fphi = p_.torsion * (q[3 * i + 5] - q[3 * i + 2]);
      g[3 * i] -= fx, g[3 * i + 3] += fx;
      g[3 * i + 1] -= fy, g[3 * i + 4] += fy;
      g[3 * i + 2] -= fphi, g[3 * i + 5] += fphi;
    }
    return g;
  }

  /// Energy ½ vᵀ G v + V(q).
  double energy(const Eigen::VectorXd& q, const Eigen::VectorXd& v) const {
    double E = 0.5 * v.dot(mass_matrix().cwiseProduct(v));
    for (int i = 0; i + 1 < N_; ++i) {
      const double dx = q[3 * i + 3] - q[3 * i] - p_.length, dy = q[3 * i + 4] - q[3 * i + 1];
      const double dphi = q[3 * i + 5] - q[3 * i + 2];
      E += 0.5 * p_.spring * (dx * dx + dy * dy) + 0.5 * p_.torsion * dphi * dphi;
    }
    return E;
  }

 private:
  Eigen::VectorXd mass_matrix() const {
    Eigen::VectorXd G(3 * N_);
    for (int i = 0; i < N_; ++i) G.segment<3>(3 * i) << p_.mass, p_.mass, p_.inertia;
    return G;
  }

  /// ∂(F, ω)/∂(q_{k+1}, λ) at q_{k+1} = q1.
  Eigen::SparseMatrix<double> jacobian(const Eigen::VectorXd& q0, const Eigen::VectorXd& q1,
                                       const Eigen::VectorXd& G) const {
    const int n = 3 * N_;
    std::vector<Eigen::Triplet<double>> t;
    t.reserve(static_cast<std::size_t>(24 * N_));
    // −G/h − (h/4) H; H has, per coordinate c of skate i, +k_c on the diagonal for each neighbour
    // and −k_c between neighbours (k_c = k for x, y and κ for φ).
    for (int i = 0; i < N_; ++i) {
      for (int c = 0; c < 3; ++c) {
        const int r = 3 * i + c;
        const double kc = c < 2 ? p_.spring : p_.torsion;
        const int neighbours = (i > 0) + (i + 1 < N_);
        t.emplace_back(r, r, -G[r] / h_ - 0.25 * h_ * kc * neighbours);
        if (i > 0) t.emplace_back(r, r - 3, 0.25 * h_ * kc);
        if (i + 1 < N_) t.emplace_back(r, r + 3, 0.25 * h_ * kc);
      }
      // −M(q_k)ᵀ: column of λ_i
      t.emplace_back(3 * i, n + i, -std::sin(q0[3 * i + 2]));
      t.emplace_back(3 * i + 1, n + i, std::cos(q0[3 * i + 2]));
      // ∂ω_i/∂q_{k+1}
      const double phim = 0.5 * (q0[3 * i + 2] + q1[3 * i + 2]);
      const double sm = std::sin(phim), cm = std::cos(phim);
      const double vx = (q1[3 * i] - q0[3 * i]) / h_, vy = (q1[3 * i + 1] - q0[3 * i + 1]) / h_;
      t.emplace_back(n + i, 3 * i, sm / h_);
      t.emplace_back(n + i, 3 * i + 1, -cm / h_);
      t.emplace_back(n + i, 3 * i + 2, 0.5 * (cm * vx + sm * vy));
    }
    Eigen::SparseMatrix<double> J(4 * N_, 4 * N_);
    J.setFromTriplets(t.begin(), t.end());
    return J;
  }

  int N_;
  models::KnifeEdgeChainParameters p_;
  double h_;
  Linear linear_;
  NewtonOptions options_;
};

}  // namespace dalembert
