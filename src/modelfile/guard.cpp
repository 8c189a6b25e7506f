#include "modelfile/guard.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

namespace dalembert::modelfile {

namespace {

/// A recursive-descent reader of the expression grammar that only measures:
///   sum     := product (('+' | '-') product)*
///   product := unary (('*' | '/') unary)*
///   unary   := ('+' | '-') unary | power
///   power   := primary ('^' unary)?
///   primary := number | name | name '(' sum (',' sum)* ')' | '(' sum ')'
/// Each rule returns the value of its text if that is a constant (numbers only), else nothing.
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
  using Value = std::optional<double>;

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

  Value checked(double x) const {
    if (!(std::abs(x) <= ExpressionLimits::max_number))
      fail("a constant part of the expression is out of range (beyond 1e300)");
    return x;
  }

  Value sum() {
    Value value = product();
    for (;;) {
      if (take('+')) {
        const Value b = product();
        value = value && b ? checked(*value + *b) : std::nullopt;
      } else if (take('-')) {
        const Value b = product();
        value = value && b ? checked(*value - *b) : std::nullopt;
      } else {
        return value;
      }
    }
  }

  Value product() {
    Value value = unary();
    for (;;) {
      if (take('*')) {
        const Value b = unary();
        value = value && b ? checked(*value * *b) : std::nullopt;
      } else if (take('/')) {
        const Value b = unary();
        value = value && b && *b != 0 ? checked(*value / *b) : std::nullopt;
      } else {
        return value;
      }
    }
  }

  Value unary() {
    if (at_ < text_.size() && (text_[at_] == '-' || text_[at_] == '+')) {
      const Level level(*this);
      const bool minus = text_[at_] == '-';
      take(text_[at_]);
      const Value v = unary();
      return v && minus ? Value(-*v) : v;
    }
    return power();
  }

  Value power() {
    const Value base = primary();
    if (!take('^')) return base;
    const Level level(*this);
    const Value exponent = unary();
    if (base && exponent) {
      if (!(std::abs(*exponent) <= ExpressionLimits::max_exponent))
        fail("a power of a number with an exponent beyond the limit of " +
             std::to_string(static_cast<int>(ExpressionLimits::max_exponent)));
      const double x = std::pow(*base, *exponent);
      return std::isnan(x) ? std::nullopt : checked(x);  // not real: GiNaC reports it
    }
    return std::nullopt;
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
      if (!take('(')) return name == "pi" || name == "Pi" ? Value(M_PI) : std::nullopt;
      const Level level(*this);
      if (++functions_ > ExpressionLimits::max_function_nesting)
        fail("function calls nested deeper than the limit of " + std::to_string(ExpressionLimits::max_function_nesting) +
             " (their derivatives grow too fast)");
      sum();
      while (take(',')) sum();
      if (!take(')')) fail_syntax("')' expected after the arguments of " + name);
      --functions_;
      return std::nullopt;  // a function of constants is evaluated by GiNaC in floating point only
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
    return x;
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
