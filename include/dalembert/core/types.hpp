#pragma once
// Basic vocabulary: fixed-size Eigen vectors and matrices, generic in the scalar type so that the
// same model code runs on double and on automatic-differentiation scalars.
#include <Eigen/Core>

namespace dalembert {

template <class T, int N>
using Vec = Eigen::Matrix<T, N, 1>;

template <class T, int Rows, int Cols>
using Mat = Eigen::Matrix<T, Rows, Cols>;

template <int N>
using Vecd = Vec<double, N>;

template <int Rows, int Cols>
using Matd = Mat<double, Rows, Cols>;

/// Size of a concatenation of two compile-time sizes (Eigen::Dynamic is contagious).
constexpr int sum_of_sizes(int a, int b) {
  return (a == Eigen::Dynamic || b == Eigen::Dynamic) ? Eigen::Dynamic : a + b;
}

}  // namespace dalembert
