#pragma once
// Limits on an expression of a model file, checked before GiNaC reads it (docs/security.md). A
// hostile file must not exhaust the stack, the memory or the time of a process:
//  - GiNaC's parser is recursive: 10 000 nested parentheses or signs overflow the stack;
//  - GiNaC evaluates powers of numbers exactly: 9^(9^9) is a number of 370 million digits, and a
//    base or an exponent may become a number only inside GiNaC ((x - x + 99)^(10^9), pow(2, 2^31));
//  - the third derivatives of deeply nested functions grow with the fourth power of the depth.
// check_expression() reads the expression with a small parser of its own (the grammar of model
// files: numbers, names, calls, + - * / ^ and parentheses) that counts its depth and evaluates
// the constant parts in doubles, bounds the size of the exact number every part could become once
// GiNaC cancels its symbols (x - x is 0, x/x is 1), and refuses what exceeds a limit, naming the limit.
#include <cstddef>

#include "modelfile/spec.hpp"

namespace dalembert::modelfile {

struct ExpressionLimits {
  /// Characters of one expression (with its definitions written out): a tenth of the largest file.
  /// The Lagrangian of the Whipple bicycle from sympy.physics.mechanics has 34 000; what bounds the
  /// work are the limits on nesting and on the derivatives' terms below.
  static constexpr std::size_t max_length = 100'000;
  static constexpr int max_nesting = 64;             ///< parentheses, calls, signs and powers within each other
  static constexpr int max_function_nesting = 16;    ///< function calls within each other: sin(cos(exp(...)))
  static constexpr double max_exponent = 1024;       ///< |b| in a^b where a and b are numbers
  static constexpr double max_number_bits = 1 << 20; ///< bits of an exact number a power may compute
  /// Terms of one derivative a model needs (up to the third, each compiled): a product of 200
  /// cosines has 160 000 in its first derivative, and third derivatives grow faster still.
  static constexpr std::size_t max_derivative_terms = 30'000;
  /// Terms of all of them together: what the C compiler is given. Counted as trees, a subexpression
  /// once per use: the Whipple bicycle from bodies and hinges counts 2.9 million, sympy's 1.9
  /// million, though its generated C is the smaller (docs/security.md).
  static constexpr std::size_t max_total_terms = 3'000'000;
  /// Terms an expansion may have: (x + y)(y + z)... multiplies out into exponentially many.
  static constexpr double max_expanded_terms = 10'000;
  static constexpr double max_number = 1e300;        ///< |x| of a number or of a constant part (messages say 1e300)
};

/// Throws ModelFileError (file, line, key) naming the limit an expression exceeds, or its first
/// syntax error.
void check_expression(const std::string& file, const Expression& e);

}  // namespace dalembert::modelfile
