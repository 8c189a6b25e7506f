#pragma once
// Inertia wheel pendulum with a Lyapunov constraint (Borda–Fernández–Grillo, [BFG13]
// Ex. 4.2): θ is the pendulum angle from the upright position, ψ the wheel angle relative to the
// pendulum, both on the universal cover R² (never wrapped, as in the paper).
//   L = ½ I θ̇² + ½ J (θ̇ + ψ̇)² − M (1 + cos θ),
// the kinematic constraint (8) dV/dt = −F with the V and F of Grillo–Marsden–Nair (paper §4.2.1),
// and C_V = span{∂/∂θ}: the constraint force, the control torque, acts on the wheel.
// With P = ∂L/∂θ̇, W = ∂L/∂ψ̇ and σ = g_c P + h_c W = −dIJ(ψ̇ − nθ̇), F = ρ σ tanh σ and, on the
// variational equation Ṗ = M sin θ, the constraint factors exactly (our derivation, docs/methods.md):
//   dV/dt + F = σ · g,   g = Ẇ + Mκ sin θ − (χ/(dIJ)) sin(ψ − nθ) + ρ tanh σ.
// σ = 0 is a spurious branch without dissipation; g = 0 is the control law (the physical branch).
#include <cmath>
#include <string>

#include "dalembert/model/second_order.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct InertiaWheelPendulum {
  static constexpr int n = 2;
  static constexpr int m = 1;
  static constexpr std::string_view name = "inertia-wheel-pendulum";
  static constexpr std::string_view summary =
      "inertia wheel pendulum stabilised upright by the Lyapunov constraint dV/dt = -F (second-order constraint)";
  static constexpr std::array<std::string_view, n> coordinates = {"theta", "psi"};
  /// The paper compares the two roots of its equation (10) by θ (§4.2): RootRule::closest uses it.
  static constexpr int root_selection_coordinate = 0;
  /// An extra column of runs: the Lyapunov function V(q_k, v_k).
  static constexpr std::string_view monitor_name = "lyapunov";

  // The paper's values (§4.2.2).
  double I = 312.5;        ///< pendulum inertia m_b c² + m_d l² + I_b
  double J = 2.0772;       ///< wheel inertia I_d
  double M = 37.98;        ///< M̃ g
  double d = 1.0, e = 1000.0, chi = 100.0, rho = 2.0;  ///< controller constants
  double winding = -154;   ///< n, an integer with n b > c

  static auto parameters() {
    using P = Parameter<InertiaWheelPendulum>;
    return std::array{P{"I", &InertiaWheelPendulum::I, "pendulum moment of inertia m_b c^2 + m_d l^2 + I_b"},
                      P{"J", &InertiaWheelPendulum::J, "wheel moment of inertia I_d"},
                      P{"M", &InertiaWheelPendulum::M, "gravity moment (m_b c + m_d l) g"},
                      P{"d", &InertiaWheelPendulum::d, "controller constant d > 0"},
                      P{"e", &InertiaWheelPendulum::e, "controller constant e > 0"},
                      P{"chi", &InertiaWheelPendulum::chi, "controller constant chi > 0 (wheel-angle term of V)"},
                      P{"n", &InertiaWheelPendulum::winding, "integer n with n b > c, i.e. I + (n+1) J < 0"},
                      P{"rho", &InertiaWheelPendulum::rho, "dissipation gain rho > 0 of F"}};
  }

  // Controller constants as the paper defines them (§4.2.1), from the inverse inertia matrix.
  double a_inv() const { return 1.0 / I; }
  double b_inv() const { return -1.0 / I; }
  double c_inv() const { return 1.0 / I + 1.0 / J; }
  double h_c() const { return d * (winding * b_inv() - c_inv()) / (a_inv() * c_inv() - b_inv() * b_inv()); }
  double g_c() const { return d * (winding * a_inv() - b_inv()) / (a_inv() * c_inv() - b_inv() * b_inv()); }
  double f() const { return (g_c() * g_c() + e) / h_c(); }
  double kappa() const { return (g_c() - e / (d * I)) / h_c(); }

  /// Why the parameters do not define the paper's controller (an empty string if they do).
  std::string parameter_problem() const {
    if (!(I > 0 && J > 0)) return "the inertias I and J must be positive";
    if (!(d > 0 && e > 0 && chi > 0 && rho > 0)) return "the controller constants d, e, chi, rho must be positive";
    if (winding != std::round(winding)) return "n must be an integer";
    if (!(winding * b_inv() > c_inv())) return "n must satisfy n b > c, i.e. I + (n+1) J < 0 (V is not positive otherwise)";
    return "";
  }

  template <class T>
  T lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    const T w = v[0] + v[1];
    return 0.5 * I * v[0] * v[0] + 0.5 * J * w * w - M * (1.0 + cos(q[0]));
  }

  /// σ = g_c P + h_c W (= −dIJ(ψ̇ − nθ̇)).
  template <class T>
  T sigma(const Vec<T, 2>& v) const {
    const T P = (I + J) * v[0] + J * v[1], W = J * (v[0] + v[1]);
    return g_c() * P + h_c() * W;
  }

  /// The Lyapunov function V(q, v) (paper §4.2.1).
  template <class T>
  T lyapunov(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    using std::cos;
    const T P = (I + J) * v[0] + J * v[1], W = J * (v[0] + v[1]);
    return 0.5 * f() * P * P + 0.5 * h_c() * W * W + g_c() * P * W + chi * (1.0 - cos(q[1] - winding * q[0])) +
           (M * e / d) * (1.0 - cos(q[0]));
  }

  /// The dissipation F(q, v) = ρ σ tanh σ ≥ 0.
  template <class T>
  T dissipation(const Vec<T, 2>&, const Vec<T, 2>& v) const {
    using std::tanh;
    const T s = sigma(v);
    return rho * tanh(s) * s;
  }

  /// The Lyapunov constraint (8): dV/dt + F = 0.
  template <class T>
  Vec<T, 1> kinematic_constraint(const Vec<T, 2>& q, const Vec<T, 2>& v, const Vec<T, 2>& a) const {
    const auto V = [this](const auto& x, const auto& y) {
      using D = typename std::decay_t<decltype(x)>::Scalar;
      return this->template lyapunov<D>(x, y);
    };
    return Vec<T, 1>(total_derivative(V, q, v, a) + dissipation(q, v));
  }

  template <class T>
  Vec<T, 1> physical_factor(const Vec<T, 2>& q, const Vec<T, 2>& v, const Vec<T, 2>& a) const {
    using std::sin;
    using std::tanh;
    const T W_dot = J * (a[0] + a[1]);
    return Vec<T, 1>(W_dot + M * kappa() * sin(q[0]) - (chi / (d * I * J)) * sin(q[1] - winding * q[0]) +
                     rho * tanh(sigma(v)));
  }

  template <class T>
  Vec<T, 1> spurious_factor(const Vec<T, 2>&, const Vec<T, 2>& v, const Vec<T, 2>&) const {
    return Vec<T, 1>(sigma(v));
  }

  template <class T>
  Mat<T, 2, 1> variational_frame(const Vec<T, 2>&, const Vec<T, 2>&, const Vec<T, 2>&) const {
    return Mat<T, 2, 1>(T(1.0), T(0.0));
  }

  double monitor(const Vecd<2>& q, const Vecd<2>& v) const { return lyapunov<double>(q, v); }

  /// The paper's data (§4.2.2): θ(0) = 0.5, ψ(0) = 0, θ̇(0) = 0, ψ̇(0) = 0.5.
  PhasePoint<2> default_initial() const { return {Vecd<2>(0.5, 0.0), Vecd<2>(0.0, 0.5)}; }

  std::optional<PhasePoint<2>> exact_solution(const PhasePoint<2>&, double) const { return std::nullopt; }
};

}  // namespace dalembert::models
