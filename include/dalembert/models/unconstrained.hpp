#pragma once
// Unconstrained test systems for the variational (DEL) integrators: the simple pendulum
// (thesis Ex. 3.7.8) and the harmonic oscillator (thesis Ex. 3.7.13, with its exact solution).
#include <cmath>

#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct Pendulum : Mechanical<Pendulum, 1> {
  static constexpr int n = 1;
  static constexpr int m = 0;
  static constexpr std::string_view name = "pendulum";
  static constexpr std::string_view summary = "simple pendulum: L = m l^2 theta'^2 / 2 + m g l cos(theta)";
  static constexpr std::array<std::string_view, n> coordinates = {"theta"};

  double mass = 1.0, length = 1.0, gravity = 1.0;

  static auto parameters() {
    return std::array{Parameter<Pendulum>{"m", &Pendulum::mass, "mass"},
                      Parameter<Pendulum>{"l", &Pendulum::length, "length"},
                      Parameter<Pendulum>{"g", &Pendulum::gravity, "gravitational acceleration"}};
  }
  template <class T>
  Eigen::DiagonalMatrix<double, 1> metric(const Vec<T, 1>&) const {
    return Eigen::DiagonalMatrix<double, 1>(Vecd<1>(mass * length * length));
  }
  template <class T>
  T potential(const Vec<T, 1>& q) const {
    using std::cos;
    return -mass * gravity * length * cos(q[0]);
  }
  template <class T>
  Mat<T, 0, 1> constraint_matrix(const Vec<T, 1>&) const {
    return {};
  }
  PhasePoint<1> default_initial() const { return {Vecd<1>(1.0), Vecd<1>(0.0)}; }
  std::optional<PhasePoint<1>> exact_solution(const PhasePoint<1>&, double) const { return std::nullopt; }
};

struct HarmonicOscillator : Mechanical<HarmonicOscillator, 1> {
  static constexpr int n = 1;
  static constexpr int m = 0;
  static constexpr std::string_view name = "harmonic-oscillator";
  static constexpr std::string_view summary = "harmonic oscillator: L = m q'^2 / 2 - k q^2 / 2";
  static constexpr std::array<std::string_view, n> coordinates = {"q"};

  double mass = 1.0, stiffness = 1.0;

  static auto parameters() {
    return std::array{Parameter<HarmonicOscillator>{"m", &HarmonicOscillator::mass, "mass"},
                      Parameter<HarmonicOscillator>{"k", &HarmonicOscillator::stiffness, "stiffness"}};
  }
  template <class T>
  Eigen::DiagonalMatrix<double, 1> metric(const Vec<T, 1>&) const {
    return Eigen::DiagonalMatrix<double, 1>(Vecd<1>(mass));
  }
  template <class T>
  T potential(const Vec<T, 1>& q) const {
    return 0.5 * stiffness * q[0] * q[0];
  }
  template <class T>
  Mat<T, 0, 1> constraint_matrix(const Vec<T, 1>&) const {
    return {};
  }
  PhasePoint<1> default_initial() const { return {Vecd<1>(1.0), Vecd<1>(0.0)}; }
  std::optional<PhasePoint<1>> exact_solution(const PhasePoint<1>& x0, double t) const {
    const double w = std::sqrt(stiffness / mass);
    PhasePoint<1> s;
    s.q[0] = x0.q[0] * std::cos(w * t) + x0.v[0] / w * std::sin(w * t);
    s.v[0] = -x0.q[0] * w * std::sin(w * t) + x0.v[0] * std::cos(w * t);
    return s;
  }
};

}  // namespace dalembert::models
