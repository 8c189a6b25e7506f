#include "modelfile/guard.hpp"

#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace dalembert::modelfile {

namespace {

/// A recursive-descent reader of the expression grammar that only measures:
///   sum     := product (('+' | '-') product)*
///   product := unary (('*' | '/') unary)*
///   unary   := ('+' | '-') unary | power
///   power   := primary ('^' unary)?
///   primary := number | name | name '(' sum (',' sum)* ')' | '(' sum ')'
/// Each rule returns the value of its text if that is a constant (numbers only), and a bound on the
/// size of the exact number GiNaC could make of it: symbols may cancel (x - x is 0, x/x is 1), so
/// the bound counts each as a number of one bit, and a sum or a product of exact numbers has at
/// most the bits of its parts, a power a^b at most bits(a)·|b|.
class Reader {
 public:
  Reader(const std::string& file, const Expression& e) : file_(file), e_(e), text_(e.text) {}

  void check() {
    if (text_.size() > ExpressionLimits::max_length)
      fail("the expression has " + std::to_string(text_.size()) + " characters, more than the limit of " +
           std::to_string(ExpressionLimits::max_length));
    skip_space();
    sum();
    if (at_ < text_.size()) fail_syntax("unexpected '" + std::string(1, text_[at_]) + "'");
  }

 private:
  struct Value {
    std::optional<double> constant;  ///< its value, if it is made of numbers only
    double bits = 1;                 ///< at most how many bits an exact number it may become has
  };

  [[noreturn]] void fail(const std::string& message) const {
    std::string shown = text_.size() > 80 ? text_.substr(0, 77) + "..." : text_;
    throw ModelFileError(file_, e_.line, e_.key + ": " + message + ": \"" + shown + "\"");
  }
  [[noreturn]] void fail_syntax(const std::string& message) const {
    fail("syntax error at character " + std::to_string(at_ + 1) + ": " + message);
  }

  /// Enters one level of nesting (a rule that may contain itself); leaves it when destroyed.
  struct Level {
    Reader& r;
    explicit Level(Reader& reader) : r(reader) {
      if (++r.depth_ > ExpressionLimits::max_nesting)
        r.fail("nesting deeper than the limit of " + std::to_string(ExpressionLimits::max_nesting) +
               " (parentheses, calls, signs and powers within each other)");
    }
    ~Level() { --r.depth_; }
  };

  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
      ++at_;
  }
  bool take(char c) {
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      skip_space();
      return true;
    }
    return false;
  }
  static bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool digit(char c) { return c >= '0' && c <= '9'; }

  double checked(double x) const {
    if (!(std::abs(x) <= ExpressionLimits::max_number))
      fail("a constant part of the expression is out of range (beyond 1e300)");
    return x;
  }

  /// The constant of a + b, a − b, a·b, a/b (`op`), if both are constants.
  std::optional<double> combined(char op, const Value& a, const Value& b) const {
    if (!a.constant || !b.constant) return std::nullopt;
    const double x = *a.constant, y = *b.constant;
    switch (op) {
      case '+': return checked(x + y);
      case '-': return checked(x - y);
      case '*': return checked(x * y);
      default: return y != 0 ? std::optional(checked(x / y)) : std::nullopt;
    }
  }

  Value sum() {
    Value value = product();
    while (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) {
      const char op = text_[at_];
      take(op);
      const Value b = product();
      value = {combined(op, value, b), value.bits + b.bits + 1};
    }
    return value;
  }

  Value product() {
    Value value = unary();
    while (at_ < text_.size() && (text_[at_] == '*' || text_[at_] == '/')) {
      const char op = text_[at_];
      take(op);
      const Value b = unary();
      value = {combined(op, value, b), value.bits + b.bits};
    }
    return value;
  }

  Value unary() {
    if (at_ < text_.size() && (text_[at_] == '-' || text_[at_] == '+')) {
      const Level level(*this);
      const bool minus = text_[at_] == '-';
      take(text_[at_]);
      Value v = unary();
      if (v.constant && minus) v.constant = -*v.constant;
      return v;
    }
    return power();
  }

  Value power() {
    const Value base = primary();
    if (!take('^')) return base;
    const Level level(*this);
    return raised(base, unary());
  }

  /// a^b (or pow(a, b)).
  Value raised(const Value& base, const Value& exponent) const {
    if (base.constant && exponent.constant && !(std::abs(*exponent.constant) <= ExpressionLimits::max_exponent))
      fail("a power of a number with an exponent beyond the limit of " +
           std::to_string(static_cast<int>(ExpressionLimits::max_exponent)));
    // GiNaC computes a power exactly when the base and the exponent become exact numbers, wherever
    // in GiNaC that happens; the exponent's magnitude is its constant or, made of symbols, at most
    // 2^bits.
    const double magnitude = exponent.constant ? std::abs(*exponent.constant) : std::exp2(std::min(exponent.bits, 1e3));
    const double bits = base.bits * std::max(1.0, magnitude);
    if (!(bits <= ExpressionLimits::max_number_bits))
      fail("a power whose exact value could have more than " +
           std::to_string(static_cast<long>(ExpressionLimits::max_number_bits)) +
           " bits (GiNaC computes powers of exact numbers exactly, and symbols may cancel: x - x + 99 is 99)");
    if (base.constant && exponent.constant) {
      const double x = std::pow(*base.constant, *exponent.constant);
      return {std::isnan(x) ? std::nullopt : std::optional(checked(x)), bits};  // not real: GiNaC reports it
    }
    return {std::nullopt, bits};
  }

  Value primary() {
    if (at_ >= text_.size()) fail_syntax("the expression ends where a number, a name or '(' is expected");
    const char c = text_[at_];
    if (c == '(') {
      const Level level(*this);
      take('(');
      const Value v = sum();
      if (!take(')')) fail_syntax("')' expected");
      return v;
    }
    if (digit(c) || c == '.') return number();
    if (letter(c)) {
      const std::size_t start = at_;
      while (at_ < text_.size() && (letter(text_[at_]) || digit(text_[at_]))) ++at_;
      const std::string name = text_.substr(start, at_ - start);
      skip_space();
      if (!take('(')) return {name == "pi" || name == "Pi" ? std::optional(M_PI) : std::nullopt, 1};
      const Level level(*this);
      if (++functions_ > ExpressionLimits::max_function_nesting)
        fail("function calls nested deeper than the limit of " + std::to_string(ExpressionLimits::max_function_nesting) +
             " (their derivatives grow too fast)");
      std::vector<Value> arguments{sum()};
      while (take(',')) arguments.push_back(sum());
      if (!take(')')) fail_syntax("')' expected after the arguments of " + name);
      --functions_;
      if (name == "pow" && arguments.size() == 2) return raised(arguments[0], arguments[1]);
      // Another function of exact numbers stays a function (sin(2)) or becomes a number no larger
      // than its argument (abs(-3), sqrt(4), exp(0)); GiNaC evaluates it in floating point only.
      double bits = 1;
      for (const auto& a : arguments) bits = std::max(bits, a.bits);
      return {std::nullopt, bits};
    }
    fail_syntax("unexpected '" + std::string(1, c) + "'");
  }

  Value number() {
    const std::size_t start = at_;
    while (at_ < text_.size() && (digit(text_[at_]) || text_[at_] == '.')) ++at_;
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      std::size_t e = at_ + 1;
      if (e < text_.size() && (text_[e] == '+' || text_[e] == '-')) ++e;
      if (e < text_.size() && digit(text_[e])) {
        at_ = e;
        while (at_ < text_.size() && digit(text_[at_])) ++at_;
      }
    }
    const std::string literal = text_.substr(start, at_ - start);
    char* end = nullptr;
    const double x = std::strtod(literal.c_str(), &end);  // underflow reads as 0 or a subnormal, overflow as inf
    if (end != literal.c_str() + literal.size()) fail_syntax("'" + literal + "' is not a number");
    if (!(x <= ExpressionLimits::max_number)) fail("the number " + literal + " is out of range (beyond 1e300)");
    skip_space();
    // a literal with a decimal point or an exponent is a float in GiNaC, of about 64 bits
    const bool exact = literal.find_first_of(".eE") == std::string::npos;
    return {x, exact ? std::floor(std::log2(std::max(x, 1.0))) + 1 : 64.0};
  }

  const std::string& file_;
  const Expression& e_;
  const std::string& text_;
  std::size_t at_ = 0;
  int depth_ = 0;
  int functions_ = 0;
};

}  // namespace

void check_expression(const std::string& file, const Expression& e) { Reader(file, e).check(); }

}  // namespace dalembert::modelfile
