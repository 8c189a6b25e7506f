#include "modelfile/symbolic.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

namespace dalembert::modelfile {

using GiNaC::ex;
using GiNaC::realsymbol;

// |x| and sign(x) with the derivatives a model needs: GiNaC differentiates abs(x) to x/abs(x),
// which is NaN at 0 (and so the energy of abs(x_t)^3 at rest). Here d|x|/dx = sign(x) and
// d sign(x)/dx = 0, both correct wherever they exist, and sign(0) = 0. Every abs of a model file
// becomes dalembert_abs.
DECLARE_FUNCTION_1P(dalembert_abs)
DECLARE_FUNCTION_1P(dalembert_sign)

namespace {

ex abs_eval(const ex& x) {
  if (GiNaC::is_exactly_a<GiNaC::numeric>(x)) return GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(x));
  return dalembert_abs(x).hold();
}
ex abs_evalf(const ex& x) {
  if (GiNaC::is_exactly_a<GiNaC::numeric>(x)) return GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(x));
  return dalembert_abs(x).hold();
}
ex abs_derivative(const ex& x, unsigned) { return dalembert_sign(x); }

ex sign_eval(const ex& x) {
  if (GiNaC::is_exactly_a<GiNaC::numeric>(x)) {
    const GiNaC::numeric& v = GiNaC::ex_to<GiNaC::numeric>(x);
    return v.is_zero() ? 0 : v.is_positive() ? 1 : -1;
  }
  return dalembert_sign(x).hold();
}
ex sign_derivative(const ex&, unsigned) { return 0; }

}  // namespace

REGISTER_FUNCTION(dalembert_abs, eval_func(abs_eval).evalf_func(abs_evalf).derivative_func(abs_derivative))
REGISTER_FUNCTION(dalembert_sign, eval_func(sign_eval).evalf_func(sign_eval).derivative_func(sign_derivative))

namespace {

// Functions a model file may call; the parser maps sqrt and pow to powers.
const std::set<std::string>& allowed_functions() {
  static const std::set<std::string> f = {"sin",  "cos",  "tan",   "asin",  "acos",  "atan", "atan2", "sinh",
                                          "cosh", "tanh", "asinh", "acosh", "atanh", "exp",  "log",   "abs"};
  return f;
}

/// An expression in a message: quoted, and cut after 80 characters.
std::string quote(const std::string& s) { return "\"" + (s.size() > 80 ? s.substr(0, 77) + "..." : s) + "\""; }

std::string text_of(const ex& e) {
  std::ostringstream s;
  s << e;
  return s.str();
}

// GiNaC's parser reads I, Euler and Catalan as constants whatever the symbol table says; names a
// model file defines that way (a moment of inertia I) are renamed before parsing, to the name with a
// suffix that no name of the file has (Symbols::renamed_suffix).
const std::set<std::string>& parser_literals() {
  static const std::set<std::string> names = {"I", "Euler", "Catalan"};
  return names;
}

/// `text` with each name in it (letters, digits and _; not the exponent of a number such as 1e5)
/// replaced by rename(name), or nothing once the result is longer than `limit`.
template <class Rename>
std::optional<std::string> rename_words(const std::string& text, Rename&& rename,
                                        std::size_t limit = std::string::npos) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      std::size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      const std::string word = text.substr(i, j - i);
      const bool in_number = i > 0 && (std::isdigit(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.');
      out += in_number ? word : rename(word);
      i = j;
    } else {
      out += text[i++];
    }
    if (out.size() > limit) return std::nullopt;
  }
  return out;
}

std::string rename_literals(const std::string& text, const std::set<std::string>& defined, const std::string& suffix) {
  return *rename_words(text, [&](const std::string& word) {
    return parser_literals().count(word) && defined.count(word) ? word + suffix : word;
  });
}

/// The symbols of one model file and which expressions may use which.
struct Symbols {
  std::vector<realsymbol> q, v, p, q0, v0;
  realsymbol t{"t"};
  std::optional<realsymbol> z;  ///< the action variable of a contact system
  std::vector<std::string> q_names, v_names, p_names;
  std::size_t first_input;  ///< p[first_input...] are the inputs, which only the force may use
  std::string renamed_suffix = "_dalembert_name";  ///< of a name GiNaC's parser takes for a constant

  explicit Symbols(const ModelSpec& spec) : first_input(static_cast<std::size_t>(spec.first_input())) {
    if (spec.action) z = realsymbol(*spec.action);
    for (const auto& c : spec.coordinates) {
      q.emplace_back(c);
      v.emplace_back(velocity_name(c));
      q0.emplace_back(initial_name(c));
      v0.emplace_back(initial_name(velocity_name(c)));
      q_names.push_back(c);
      v_names.push_back(velocity_name(c));
    }
    for (const auto& par : spec.parameters) {
      p.emplace_back(par.name);
      p_names.push_back(par.name);
    }
    // A coordinate I beside one named I_dalembert_name must stay two symbols.
    std::set<std::string> names(q_names.begin(), q_names.end());
    names.insert(v_names.begin(), v_names.end());
    names.insert(p_names.begin(), p_names.end());
    for (const auto& name : v_names) names.insert(initial_name(name));
    for (const auto& name : q_names) names.insert(initial_name(name));
    if (spec.action) names.insert(*spec.action);
    const auto taken = [&] {
      for (const auto& literal : parser_literals())
        if (names.count(literal + renamed_suffix)) return true;
      return false;
    };
    while (taken()) renamed_suffix += "_";
  }

  /// The name under which `name` is in the parser's table.
  std::string key(const std::string& name) const {
    return parser_literals().count(name) ? name + renamed_suffix : name;
  }
  /// The name a message shows for a name of the parser's table.
  std::string unrenamed(std::string name) const {
    if (name.size() > renamed_suffix.size() && name.ends_with(renamed_suffix) &&
        parser_literals().count(name.substr(0, name.size() - renamed_suffix.size())))
      name.erase(name.size() - renamed_suffix.size());
    return name;
  }
};

/// The functions a model file may call, for GiNaC's parser: nothing else is evaluated while
/// parsing (its default table has factorial, zeta, tgamma..., which it evaluated exactly, for
/// minutes, before any check could refuse them). sqrt and pow become powers.
const GiNaC::prototype_table& model_functions() {
  static const GiNaC::prototype_table table = [] {
    GiNaC::prototype_table allowed;
    for (const auto& entry : GiNaC::get_default_reader())
      if (allowed_functions().count(entry.first.first) || entry.first.first == "sqrt" || entry.first.first == "pow")
        allowed.insert(entry);
    return allowed;
  }();
  return table;
}

enum Allow { kCoordinates = 1, kVelocities = 2, kTime = 4, kInitialValues = 8, kAction = 16, kInputs = 32 };

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& x : names) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// Parses one expression with the symbols `allow` permits (parameters always), reporting every
/// mistake with the file, the line and the expression.
class ExpressionParser {
 public:
  ExpressionParser(const ModelSpec& spec, const Symbols& s) : spec_(spec), s_(s) {
    for (std::size_t k = 0; k < spec.definitions.size(); ++k) {
      written_out_.push_back(write_out(spec.definitions[k].expression, k, nullptr));
      definition_index_[spec.definitions[k].name] = k;
    }
  }

  /// e with the symbols `allow` permits, and the first `visible` definitions (all by default).
  ex operator()(const Expression& e, int allow, const std::string& allowed_description,
                std::size_t visible = static_cast<std::size_t>(-1)) const {
    std::vector<std::string> used;  // the definitions e names, which a message then mentions
    const std::string text = spec_.definitions.empty() ? e.text : write_out(e, visible, &used);
    const auto fail = [&](const Expression& source, const std::string& message) {
      this->fail(source, used.empty() ? message : message + " (with the definitions " + join(used) + " written out)");
    };
    GiNaC::symtab table;
    table["pi"] = GiNaC::Pi;
    const auto key = [this](const std::string& name) { return s_.key(name); };
    for (std::size_t i = 0; i < s_.p.size(); ++i)
      if (i < s_.first_input || (allow & kInputs)) table[key(s_.p_names[i])] = s_.p[i];
    if (allow & kCoordinates)
      for (std::size_t i = 0; i < s_.q.size(); ++i) table[key(s_.q_names[i])] = s_.q[i];
    if (allow & kVelocities)
      for (std::size_t i = 0; i < s_.v.size(); ++i) table[key(s_.v_names[i])] = s_.v[i];
    if (allow & kTime) table["t"] = s_.t;
    if ((allow & kAction) && s_.z) table[key(*spec_.action)] = *s_.z;
    if (allow & kInitialValues)
      for (std::size_t i = 0; i < s_.q.size(); ++i) {
        table[initial_name(s_.q_names[i])] = s_.q0[i];
        table[initial_name(s_.v_names[i])] = s_.v0[i];
      }
    GiNaC::parser reader(table, true, model_functions());
    ex result;
    check_expression(spec_.path, {text, e.line, e.key});  // depth, size and constant powers, before GiNaC reads it
    try {
      std::set<std::string> defined(s_.p_names.begin(), s_.p_names.end());
      defined.insert(s_.q_names.begin(), s_.q_names.end());
      if (spec_.action) defined.insert(*spec_.action);
      result = reader(rename_literals(text, defined, s_.renamed_suffix));
    } catch (const GiNaC::parse_error& err) {
      const std::string message = parser_message(err.what());
      if (message.starts_with("no function"))
        fail(e, message + " (the functions are " + join({allowed_functions().begin(), allowed_functions().end()}) +
                    ", sqrt and pow)");
      fail(e, "syntax error: " + message);
    } catch (const std::invalid_argument& err) {
      // GiNaC: 'find_or_insert_symbol: symbol "foo" not found', or a message about the syntax
      const std::string what = err.what();
      const auto a = what.find('"'), b = what.rfind('"');
      if (what.find("symbol") == std::string::npos || a == std::string::npos || b <= a)
        fail(e, "syntax error: " + parser_message(what));
      const std::string name = s_.unrenamed(what.substr(a + 1, b - a - 1));
      fail(e, "unknown symbol '" + name + "'" + misplaced(name) + " (" + allowed_description + ")");
    } catch (const std::exception& err) {
      fail(e, std::string("cannot evaluate: ") + err.what());
    }
    for (auto it = result.preorder_begin(); it != result.preorder_end(); ++it) {
      if (GiNaC::is_a<GiNaC::function>(*it)) {
        const std::string f = GiNaC::ex_to<GiNaC::function>(*it).get_name();
        if (!allowed_functions().count(f))
          fail(e, "function '" + f + "' is not supported (use " + join({allowed_functions().begin(), allowed_functions().end()}) +
                      ", sqrt, pow or ^)");
      }
      if (GiNaC::is_a<GiNaC::numeric>(*it) && !GiNaC::ex_to<GiNaC::numeric>(*it).is_real())
        fail(e, "complex numbers are not supported");
      if (GiNaC::is_a<GiNaC::numeric>(*it) && !std::isfinite(GiNaC::ex_to<GiNaC::numeric>(*it).to_double()))
        fail(e, "a number is out of the range of doubles");
      if (GiNaC::is_a<GiNaC::constant>(*it) && *it != GiNaC::Pi)
        fail(e, "constant '" + text_of(*it) + "' is not supported (pi is)");
    }
    return result.subs(GiNaC::abs(GiNaC::wild()) == dalembert_abs(GiNaC::wild()));
  }

  [[noreturn]] void fail(const Expression& e, const std::string& message) const {
    throw ModelFileError(spec_.path, e.line, e.key + ": " + message + ": " + quote(e.text));
  }

 private:
  // "GiNaC: parse error at line 0, column 0: unexpected token ...\n[...]" -> "unexpected token ..."
  static std::string parser_message(std::string what) {
    if (const auto nl = what.find('\n'); nl != std::string::npos) what.erase(nl);
    if (const auto c = what.find("column"); c != std::string::npos)
      if (const auto colon = what.find(": ", c); colon != std::string::npos) what.erase(0, colon + 2);
    return what;
  }

  /// e's text with each of the first `visible` definitions it names written out in parentheses (as
  /// written out themselves), the names of those it uses added to `used`. Refused beyond the length
  /// of one expression (ExpressionLimits), which bounds the work of definitions that double in
  /// length at each use of the one before.
  std::string write_out(const Expression& e, std::size_t visible, std::vector<std::string>* used) const {
    const auto written = rename_words(
        e.text,
        [&](const std::string& word) {
          const auto found = definition_index_.find(word);
          if (found == definition_index_.end() || found->second >= visible) return word;
          if (used && std::find(used->begin(), used->end(), word) == used->end()) used->push_back(word);
          return "(" + written_out_[found->second] + ")";
        },
        ExpressionLimits::max_length);
    if (!written)
      fail(e, "with the definitions it uses written out, it is longer than the limit of " +
                  std::to_string(ExpressionLimits::max_length) + " characters");
    return *written;
  }

  // Explains a symbol that exists but not in this expression (a velocity in the potential...).
  std::string misplaced(const std::string& name) const {
    if (definition_index_.count(name)) return ": a definition may use only the definitions above it in the file";
    const auto has = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (has(s_.v_names)) return ": velocities are not allowed here";
    if (has(s_.q_names)) return ": coordinates are not allowed here";
    const auto inputs = s_.p_names.begin() + static_cast<std::ptrdiff_t>(s_.first_input);
    if (std::find(inputs, s_.p_names.end(), name) != s_.p_names.end()) return ": inputs are allowed only in the force";
    if (spec_.action && name == *spec_.action) return ": the action variable is allowed only in the lagrangian";
    if (name == "t")
      return ": the time is not allowed here (the metric and a contact system's Lagrangian and constraints do not "
             "depend on t; a lagrangian, potential and force may, and so may the part of a velocity constraint "
             "without velocities and a holonomic constraint psi(q) + c(t))";
    return "";
  }

  const ModelSpec& spec_;
  const Symbols& s_;
  std::vector<std::string> written_out_;  ///< each definition's text with those above it written out
  std::map<std::string, std::size_t> definition_index_;  ///< a definition's place in the file's order
};

/// e with the symbols that are keys of m replaced by their values. Without no_pattern, GiNaC tries
/// every key as a pattern at every node of e, which took a third of a large model's analysis (the
/// bicycle's); symbols match only themselves, so the result is the same.
ex substituted(const ex& e, const GiNaC::exmap& m) { return e.subs(m, GiNaC::subs_options::no_pattern); }

/// Floating-point value of an expression at a point, NaN where it cannot be evaluated.
double numeric_value(const ex& e, const GiNaC::exmap& point) {
  try {
    const ex value = substituted(e, point).evalf();
    if (!GiNaC::is_a<GiNaC::numeric>(value)) return std::nan("");
    const auto& x = GiNaC::ex_to<GiNaC::numeric>(value);
    return x.is_real() ? x.to_double() : std::nan("");
  } catch (const std::exception&) {
    return std::nan("");
  }
}

/// Random points for zero tests. The parameters are random too: a check must hold for every value
/// a user may pass with --param, not only for the defaults.
std::vector<GiNaC::exmap> sample_points(const Symbols& s) {
  std::mt19937 random(12345);
  std::uniform_real_distribution<double> uniform(0.3, 1.3);
  std::vector<GiNaC::exmap> points(3);
  for (auto& point : points) {
    for (std::size_t i = 0; i < s.q.size(); ++i) {
      point[s.q[i]] = uniform(random);
      point[s.v[i]] = uniform(random);
    }
    for (const auto& p : s.p) point[p] = uniform(random);
  }
  std::mt19937 clock(54321);  // its own stream, so that the points' other values do not depend on it
  for (auto& point : points) point[s.t] = uniform(clock);
  return points;
}

/// At most how many terms e.expand() has, up to `cap`: expansion multiplies out products and
/// positive integer powers of sums, (x + y)(y + z)... of 20 factors into a million terms.
double expanded_terms(const ex& e, double cap) {
  double terms = 1;
  if (GiNaC::is_a<GiNaC::add>(e)) {
    terms = 0;
    for (std::size_t i = 0; i < e.nops() && terms < cap; ++i) terms += expanded_terms(e.op(i), cap);
  } else if (GiNaC::is_a<GiNaC::mul>(e)) {
    for (std::size_t i = 0; i < e.nops() && terms < cap; ++i) terms *= expanded_terms(e.op(i), cap);
  } else if (GiNaC::is_a<GiNaC::power>(e) && GiNaC::is_a<GiNaC::numeric>(e.op(1))) {
    const auto& exponent = GiNaC::ex_to<GiNaC::numeric>(e.op(1));
    if (exponent.is_pos_integer()) terms = std::pow(expanded_terms(e.op(0), cap), std::min(exponent.to_double(), 1e3));
  }
  return std::min(terms, cap);
}

/// An expression that is zero: structurally, after expansion (where that stays small), or
/// numerically at sample points (identities such as sin² + cos² − 1 that no simplification finds).
bool vanishes(const ex& e, const std::vector<GiNaC::exmap>& points) {
  if (e.is_zero()) return true;
  if (expanded_terms(e, ExpressionLimits::max_expanded_terms) < ExpressionLimits::max_expanded_terms &&
      e.expand().is_zero())
    return true;
  for (const auto& point : points) {
    const double x = numeric_value(e, point);
    if (!(std::abs(x) <= 1e-12)) return false;
  }
  return true;
}

/// The derivatives of a model's expressions, each refused, naming the expression of the file it
/// comes from, when it or all of them together grow beyond the limits (ExpressionLimits): the
/// derivatives of a long product or of nested functions grow fast, and every one is compiled.
class Derivatives {
 public:
  explicit Derivatives(const ExpressionParser& parse) : parse_(parse) {}

  /// ∂e/∂v, for the expression `source`.
  ex operator()(const ex& e, const realsymbol& v, const Expression& source) {
    const ex d = e.diff(v);
    std::size_t size = 0;
    for (auto it = d.preorder_begin(); it != d.preorder_end(); ++it) {
      if (++size > ExpressionLimits::max_derivative_terms)
        parse_.fail(source, "a derivative with respect to " + v.get_name() + " has more than " +
                                std::to_string(ExpressionLimits::max_derivative_terms) +
                                " terms, the limit (derivatives of long products and deeply nested functions grow "
                                "fast; write the expression more compactly)");
      // x^2/1e-308 is a model of doubles whose second derivative is not
      if (GiNaC::is_a<GiNaC::numeric>(*it) && !std::isfinite(GiNaC::ex_to<GiNaC::numeric>(*it).to_double()))
        parse_.fail(source, "a derivative with respect to " + v.get_name() + " has a number beyond the range of doubles (" +
                                text_of(*it).substr(0, 40) + ")");
    }
    total_ += size;
    if (total_ > ExpressionLimits::max_total_terms)
      parse_.fail(source, "the derivatives of the model have more than " +
                              std::to_string(ExpressionLimits::max_total_terms) + " terms in all, the limit");
    return d;
  }

 private:
  const ExpressionParser& parse_;
  std::size_t total_ = 0;
};

/// Taylor coefficients of f (from the expression `source`) in `vars` up to order 3 (evaluator.hpp),
/// appended to `coefficients` (as (order, expression)); monomials with identically zero coefficient
/// are left out.
TaylorTerms taylor_terms(const ex& f, const std::vector<realsymbol>& vars, std::vector<std::pair<int, ex>>& coefficients,
                         Derivatives& d, const Expression& source) {
  TaylorTerms terms;
  terms.offset = static_cast<int>(coefficients.size());
  const int k = static_cast<int>(vars.size());
  std::vector<std::pair<int, ex>> second, third;
  coefficients.emplace_back(0, f);
  for (int i = 0; i < k; ++i) {
    const ex di = d(f, vars[i], source);
    if (di.is_zero()) continue;
    terms.first.push_back(i);
    coefficients.emplace_back(1, di);
    for (int j = i; j < k; ++j) {
      const ex dij = d(di, vars[j], source);
      if (dij.is_zero()) continue;
      terms.second.push_back({i, j});
      second.emplace_back(2, i == j ? dij / 2 : dij);
      for (int l = j; l < k; ++l) {
        const ex dijl = d(dij, vars[l], source);
        if (dijl.is_zero()) continue;
        terms.third.push_back({i, j, l});
        // 1/3! times the number of distinct orderings of (i, j, l)
        const int distinct = 1 + (i != j) + (j != l);  // i ≤ j ≤ l
        const ex factor = distinct == 1 ? ex(GiNaC::numeric(1, 6)) : distinct == 2 ? ex(GiNaC::numeric(1, 2)) : ex(1);
        third.emplace_back(3, factor * dijl);
      }
    }
  }
  coefficients.insert(coefficients.end(), second.begin(), second.end());
  coefficients.insert(coefficients.end(), third.begin(), third.end());
  return terms;
}

/// The part of a Lagrangian that depends on the time, L(q, v, t) = L(q, v, 0) + L_t(q, v, t), as
/// the methods take it. Their steps evaluate L without a time, so L_t acts as the force it exerts,
///   F_t = ∂L_t/∂q − d/dt ∂L_t/∂v = ∂L_t/∂q − (∂²L_t/∂v∂q) v − ∂²L_t/∂v∂t,
/// which needs ∂L_t/∂v to be a function of (q, t) alone: L_t at most linear in the velocities, a
/// metric ∂²L/∂v² that does not change in time. The energy v·∂L/∂v − L is then the energy of
/// L(q, v, 0) plus −L_t(q, 0, t), and the momentum ∂L/∂v that of L(q, v, 0) plus ∂L_t/∂v(q, t).
struct TimeDependence {
  bool depends_on_time = false;
  std::vector<ex> force;     ///< F_t, empty where it vanishes
  ex energy;                 ///< −L_t(q, 0, t)
  std::vector<ex> momentum;  ///< ∂L_t/∂v(q, t)
};

/// Splits L at t = 0 (runs start there): L becomes L(q, v, 0).
/// `source` is the expression a mistake is reported against.
template <class Parser>
TimeDependence split_time_dependence(const Expression& source, const Symbols& s, const Parser& parse,
                                     Derivatives& d, const std::vector<GiNaC::exmap>& points, ex& L) {
  TimeDependence out;
  if (!L.has(s.t)) return out;
  out.depends_on_time = true;
  const int n = static_cast<int>(s.q.size());
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) {
      const ex rate = d(d(d(L, s.v[i], source), s.v[j], source), s.t, source);
      if (!vanishes(rate, points))
        parse.fail(source, "d2L/d" + s.v_names[i] + "d" + s.v_names[j] + " depends on the time (its d/dt is " +
                               quote(text_of(rate)) + "): the methods take the time-dependent part of L as a " +
                               "force, which needs a metric d2L/dv2 that does not change in time");
    }
  ex at_start;
  try {
    at_start = substituted(L, {{s.t, 0}});
  } catch (const std::exception&) {
    parse.fail(source, "not defined at t = 0, where runs start");
  }
  for (const auto& point : points)
    if (!std::isfinite(numeric_value(at_start, point))) parse.fail(source, "not defined at t = 0, where runs start");
  const ex L_t = L - at_start;
  GiNaC::exmap at_rest;
  for (const auto& v : s.v) at_rest[v] = 0;
  out.energy = -substituted(L_t, at_rest);
  bool vanishing = true;
  std::vector<ex> force(n);
  for (int i = 0; i < n; ++i) {
    const ex momentum = substituted(d(L_t, s.v[i], source), at_rest);  // a function of (q, t) alone
    out.momentum.push_back(momentum);
    force[i] = d(L_t, s.q[i], source) - d(momentum, s.t, source);
    for (int j = 0; j < n; ++j) force[i] -= d(momentum, s.q[j], source) * s.v[j];
    vanishing = vanishing && vanishes(force[i], points);
  }
  if (!vanishing) out.force = std::move(force);
  L = at_start;
  return out;
}

/// The kernel arguments: x[i], p[k] and t as symbols that print as C.
struct KernelArguments {
  std::vector<realsymbol> x, p;
  realsymbol t{"t"};
  KernelArguments(int n, int parameters, bool contact) {
    for (int i = 0; i < 2 * n + (contact ? 1 : 0); ++i) x.emplace_back("x[" + std::to_string(i) + "]");
    for (int k = 0; k < parameters; ++k) p.emplace_back("p[" + std::to_string(k) + "]");
  }
};

/// The rigid bodies' Lagrangian and their contacts' constraints (ModelSpec::bodies, contacts).
/// A body's orientation R = Rz(φ) Rx(θ) Rz(ψ) has the body angular velocity
/// Ω = Rz(ψ)ᵀRx(θ)ᵀ e3 φ̇ + Rz(ψ)ᵀ e1 θ̇ + e3 ψ̇ and the spatial one
/// ω = R Ω = e3 φ̇ + Rz(φ) e1 θ̇ + Rz(φ)Rx(θ) e3 ψ̇, each rotation's rate taken through the ones
/// after it (no sin² + cos² left to cancel); a unit quaternion's are below. The Lagrangian is
/// Σ ½ m |ṗ|² + ½ Ωᵀ I Ω − m g p_z (a hinged body's below). A contact at the offset d from the mass
/// centre gives the horizontal components of its material point's velocity ṗ + ω × d: a sphere's
/// d = (0, 0, −r); a rim's d = −r u/|u| with u = e3 − a_z a, a = R e_axis the axle (the rim's
/// lowest point).
struct BodiesAlgebra {
  ex lagrangian;
  /// The holonomic constraints that the bodies give, by their index: the height of each contact held
  /// by one, and each loop's points apart along an axis.
  std::map<int, ex> holonomic;
  std::vector<ex> contact_rows;  ///< two per contact, linear in the velocities
};

BodiesAlgebra bodies_algebra(const ModelSpec& spec, const Symbols& s, const ExpressionParser& parse, Derivatives& d,
                             const std::vector<GiNaC::exmap>& points, const std::string& in_q,
                             const std::string& params) {
  using Vector = std::array<ex, 3>;
  using Matrix = std::array<Vector, 3>;
  const auto rotation = [](int axis, const ex& angle) {  // about e1 (axis 0) or e3 (axis 2)
    Matrix R{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    const int i = (axis + 1) % 3, j = (axis + 2) % 3;
    R[i][i] = R[j][j] = cos(angle);
    R[i][j] = -sin(angle);
    R[j][i] = sin(angle);
    return R;
  };
  const auto times = [](const Matrix& A, const Matrix& B) {
    Matrix C;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j] + A[i][2] * B[2][j];
    return C;
  };
  const auto apply = [](const Matrix& A, const Vector& x, bool transposed) {
    Vector y;
    for (int i = 0; i < 3; ++i)
      y[i] = transposed ? A[0][i] * x[0] + A[1][i] * x[1] + A[2][i] * x[2]
                        : A[i][0] * x[0] + A[i][1] * x[1] + A[i][2] * x[2];
    return y;
  };
  const auto rate = [&](const ex& e, const Expression& source) {  // d/dt along the motion
    ex r = 0;
    for (std::size_t i = 0; i < s.q.size(); ++i) r += d(e, s.q[i], source) * s.v[i];
    return r;
  };
  const auto axis = [](int k, const ex& speed) {
    Vector e{0, 0, 0};
    e[static_cast<std::size_t>(k)] = speed;
    return e;
  };
  const auto plus = [](const Vector& a, const Vector& b) { return Vector{a[0] + b[0], a[1] + b[1], a[2] + b[2]}; };
  const auto cross = [](const Vector& a, const Vector& b) {
    return Vector{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };

  // A body's orientation from its Euler angles or quaternion: R, its body angular velocity Ω and its
  // spatial one ω = R Ω, each rotation's rate taken through the ones after it (no sin² + cos² left
  // to cancel); for a quaternion the radial term that makes the metric regular.
  struct Turn {
    Matrix R;
    Vector Omega, omega;
    ex radial = 0;
  };
  const auto orientation = [&](const BodySpec& b, const std::vector<ex>& inertia) {
    Turn out;
    if (!b.euler.empty()) {
      Vector angle, angle_t;
      for (std::size_t i = 0; i < 3; ++i) {
        angle[i] = parse(b.euler[i], kCoordinates, in_q);
        angle_t[i] = rate(angle[i], b.euler[i]);
      }
      const Matrix Rz_phi = rotation(2, angle[0]), Rx_theta = rotation(0, angle[1]), Rz_psi = rotation(2, angle[2]);
      out.Omega = plus(plus(apply(Rz_psi, apply(Rx_theta, axis(2, angle_t[0]), true), true),
                            apply(Rz_psi, axis(0, angle_t[1]), true)),
                       axis(2, angle_t[2]));
      const Matrix Rz_Rx = times(Rz_phi, Rx_theta);
      out.omega = plus(plus(axis(2, angle_t[0]), apply(Rz_phi, axis(0, angle_t[1]), false)),
                       apply(Rz_Rx, axis(2, angle_t[2]), false));
      out.R = times(Rz_Rx, Rz_psi);
      return out;
    }
    // A unit quaternion (w, v): Ω = 2 (w v̇ − ẇ v − v × v̇), ω = 2 (w v̇ − ẇ v + v × v̇), and a term
    // 2 J s², s = (w, v)·(ẇ, v̇) the radial rate that the norm's constraint keeps at 0, J the mean
    // moment, which makes the metric regular in the radial direction.
    std::array<ex, 4> e, e_t;
    for (std::size_t i = 0; i < 4; ++i) {
      e[i] = parse(b.quaternion[i], kCoordinates, in_q);
      e_t[i] = rate(e[i], b.quaternion[i]);
    }
    const ex &w = e[0], &x = e[1], &y = e[2], &z = e[3], &w_t = e_t[0];
    const Vector v{x, y, z}, v_t{e_t[1], e_t[2], e_t[3]};
    const Vector v_x_v_t = cross(v, v_t);
    for (std::size_t i = 0; i < 3; ++i) {
      out.Omega[i] = 2 * (w * v_t[i] - w_t * v[i] - v_x_v_t[i]);
      out.omega[i] = 2 * (w * v_t[i] - w_t * v[i] + v_x_v_t[i]);
    }
    out.R = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
              {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
              {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
    const ex s_rate = w * w_t + x * e_t[1] + y * e_t[2] + z * e_t[3];
    out.radial = 2 * (inertia[0] + inertia[1] + inertia[2]) / 3 * pow(s_rate, 2);
    return out;
  };

  BodiesAlgebra out;
  const ex g = spec.gravity ? parse(*spec.gravity, 0, params) : ex(0);
  // Of each body, by name: R, ω and the mass centre's p and ṗ in the ground frame, Ω and the mass
  // centre's velocity V in the body's axes.
  // The same of its origin, the point that bodies hinged to it are placed from: its hinge point,
  // or its mass centre for a body placed by its position (o, ȯ, and W in the body's axes).
  struct Motion {
    Matrix R;
    Vector omega, p, p_t, Omega, V, o, o_t, W;
  };
  std::map<std::string, Motion> motion;
  for (const auto& b : spec.bodies) {
    const ex mass = parse(b.mass, 0, params);
    std::vector<ex> inertia;  // I11, I22, I33, and for a full tensor I12, I13, I23
    for (const auto& entry : b.inertia) inertia.push_back(parse(entry, 0, params));
    Matrix R;
    Vector p, p_t, Omega, omega, V, o, o_t, W;
    ex T = 0;
    if (!b.parent.empty()) {
      using Kind = BodySpec::Joint::Kind;
      const Motion& parent = motion.at(b.parent);
      Vector at, centre;  // the joint's point on the parent, the mass centre from it
      for (std::size_t i = 0; i < 3; ++i) {
        at[i] = parse(b.joint.at[i], 0, params);
        centre[i] = parse(b.joint.centre[i], 0, params);
      }
      Vector a, offset = at, slide;  // the axis; the joint's point on the parent (its axes); a slider's velocity
      ex coordinate, coordinate_t;
      if (b.joint.kind != Kind::ball) {
        for (std::size_t i = 0; i < 3; ++i) a[i] = parse(b.joint.axis[i], 0, params);
        const ex length = sqrt(pow(a[0], 2) + pow(a[1], 2) + pow(a[2], 2));
        if (vanishes(length, points))
          parse.fail(b.joint.axis[0], std::string("the ") + (b.joint.kind == Kind::slider ? "slider" : "hinge") +
                                          "'s axis of body '" + b.name + "' is zero");
        for (auto& component : a) component /= length;
        coordinate = parse(b.joint.coordinate, kCoordinates, in_q);
        coordinate_t = rate(coordinate, b.joint.coordinate);
      }
      if (b.joint.kind == Kind::ball) {
        // On a ball joint: R = R_parent R_b, R_b its own orientation from the parent's axes, with its
        // body angular velocity Ω_b and ω_b = R_b Ω_b in the parent's axes; as for a hinge below,
        // Ω = R_bᵀ Ω_parent + Ω_b, W = R_bᵀ (W_parent + Ω_parent × at), ω = ω_parent + R_parent ω_b.
        const Turn turn = orientation(b, inertia);
        R = times(parent.R, turn.R);
        Omega = plus(apply(turn.R, parent.Omega, true), turn.Omega);
        W = apply(turn.R, plus(parent.W, cross(parent.Omega, at)), true);
        omega = plus(parent.omega, apply(parent.R, turn.omega, false));
        T += turn.radial;
      } else if (b.joint.kind == Kind::slider) {
        // Sliding on its parent: R = R_parent, its origin (the joint's point) at
        // o_parent + R_parent (at + a s) and its mass centre at o + R centre. In the body's axes,
        // which are the parent's, Ω = Ω_parent, W = W_parent + Ω_parent × (at + a s) + a s_t and
        // V = W + Ω × centre; in the ground frame ω = ω_parent,
        // ȯ = ȯ_parent + ω_parent × R_parent (at + a s) + R_parent a s_t and ṗ = ȯ + ω × R centre.
        for (std::size_t i = 0; i < 3; ++i) {
          offset[i] = at[i] + a[i] * coordinate;
          slide[i] = a[i] * coordinate_t;
        }
        R = parent.R;
        Omega = parent.Omega;
        omega = parent.omega;
        W = plus(plus(parent.W, cross(parent.Omega, offset)), slide);
      } else {
        // Hinged to its parent: R = R_parent Rot(a, angle), its origin (the hinge point) at o_parent +
        // R_parent at and its mass centre at o + R centre. Each velocity from the parent's, never as R
        // times a body vector (whose cos² + sin² would stay uncancelled and grow with every hinge): in
        // the body's axes, for L,
        // Ω = Rotᵀ Ω_parent + a angle_t, W = Rotᵀ (W_parent + Ω_parent × at) and V = W + Ω × centre;
        // in the ground frame, for the contacts, ω = ω_parent + R_parent a angle_t,
        // ȯ = ȯ_parent + ω_parent × R_parent at and ṗ = ȯ + ω × R centre.
        const ex &angle = coordinate, &angle_t = coordinate_t;
        // Rodrigues: Rot(a, angle) = cos I + sin [a]× + (1 − cos) a aᵀ
        const ex cosine = cos(angle), sine = sin(angle);
        const Matrix a_cross{{{0, -a[2], a[1]}, {a[2], 0, -a[0]}, {-a[1], a[0], 0}}};
        Matrix turn;
        for (std::size_t i = 0; i < 3; ++i)
          for (std::size_t j = 0; j < 3; ++j)
            turn[i][j] = (i == j ? cosine : ex(0)) + sine * a_cross[i][j] + (1 - cosine) * a[i] * a[j];
        R = times(parent.R, turn);
        Omega = apply(turn, parent.Omega, true);
        for (std::size_t i = 0; i < 3; ++i) Omega[i] += a[i] * angle_t;
        W = apply(turn, plus(parent.W, cross(parent.Omega, at)), true);
        const Vector a_ground = apply(parent.R, a, false);
        for (std::size_t i = 0; i < 3; ++i) omega[i] = parent.omega[i] + a_ground[i] * angle_t;
      }
      V = plus(W, cross(Omega, centre));
      const Vector arm = apply(parent.R, offset, false), reach = apply(R, centre, false);
      o = plus(parent.o, arm);
      o_t = plus(parent.o_t, cross(parent.omega, arm));
      if (b.joint.kind == Kind::slider) o_t = plus(o_t, apply(parent.R, slide, false));
      p = plus(o, reach);
      p_t = plus(o_t, cross(omega, reach));
    } else {
      for (std::size_t i = 0; i < 3; ++i) {
        p[i] = parse(b.position[i], kCoordinates, in_q);
        p_t[i] = rate(p[i], b.position[i]);
      }
      const Turn turn = orientation(b, inertia);
      R = turn.R;
      Omega = turn.Omega;
      omega = turn.omega;
      T += turn.radial;
    }
    if (b.parent.empty()) {  // its origin is its mass centre
      V = W = apply(R, p_t, true);
      o = p;
      o_t = p_t;
    }
    // ½ m |ṗ|² + ½ Ωᵀ I Ω
    const Vector& velocity = b.parent.empty() ? p_t : V;
    for (std::size_t i = 0; i < 3; ++i) T += mass * pow(velocity[i], 2) / 2 + inertia[i] * pow(Omega[i], 2) / 2;
    if (inertia.size() == 6)
      T += inertia[3] * Omega[0] * Omega[1] + inertia[4] * Omega[0] * Omega[2] + inertia[5] * Omega[1] * Omega[2];
    out.lagrangian += T - mass * g * p[2];
    motion[b.name] = {R, omega, p, p_t, Omega, V, o, o_t, W};
  }
  for (const auto& c : spec.contacts) {
    const Motion& body = motion.at(c.body);
    const Matrix& R = body.R;
    const Vector &omega = body.omega, &p = body.p, &p_t = body.p_t;
    const ex r = parse(c.radius, 0, params);
    Vector offset{0, 0, -r};
    ex height = p[2] - r;  // of the contact point: 0 at every configuration, or held there (holonomic)
    if (c.shape == ContactSpec::Shape::rim) {
      const int k = c.axis - 1;
      const Vector a{R[0][k], R[1][k], R[2][k]};
      const Vector u{-a[2] * a[0], -a[2] * a[1], 1 - a[2] * a[2]};
      const ex length = sqrt(pow(a[0], 2) + pow(a[1], 2));
      offset = {-r * u[0] / length, -r * u[1] / length, -r * u[2] / length};
      height = pow(p[2], 2) - pow(r, 2) * (pow(a[0], 2) + pow(a[1], 2));  // its sign aside
    }
    const bool on_the_plane = vanishes(height, points);
    if (c.holonomic >= 0 && on_the_plane)
      parse.fail(spec.holonomic[static_cast<std::size_t>(c.holonomic)],
                 "the contact of body '" + c.body + "' is on the plane z = 0 at every configuration: its height "
                 "needs no holonomic constraint (holonomic = true is for a contact whose height other coordinates "
                 "change)");
    if (c.holonomic >= 0)
      out.holonomic[c.holonomic] = p[2] + offset[2];  // φ = 0: the contact point on the plane
    else if (!on_the_plane)
      parse.fail(c.radius, "the contact of body '" + c.body + "' is not on the plane z = 0 at every configuration: "
                           "its mass centre's height (position[2]) must be the distance from the centre to the "
                           "contact point, the radius for a sphere and radius * |horizontal part of the axle| for "
                           "a rim (mass centre above the plane, z up)");
    out.contact_rows.push_back(p_t[0] + omega[1] * offset[2] - omega[2] * offset[1]);
    out.contact_rows.push_back(p_t[1] + omega[2] * offset[0] - omega[0] * offset[2]);
  }
  // A loop's points, o + R at of a body (o its origin) or a point of the ground, apart along its axes.
  for (std::size_t k = 0; k < spec.loops.size(); ++k) {
    const LoopSpec& loop = spec.loops[k];
    std::array<Vector, 2> ends;
    for (std::size_t e = 0; e < 2; ++e) {
      const LoopSpec::Point& point = loop.points[e];
      Vector at;
      for (std::size_t i = 0; i < 3; ++i) at[i] = parse(point.at[i], 0, params);
      if (point.body.empty()) {
        ends[e] = at;
      } else {
        const Motion& body = motion.at(point.body);
        ends[e] = plus(body.o, apply(body.R, at, false));
      }
    }
    for (std::size_t j = 0; j < loop.axes.size(); ++j) {
      const auto axis = static_cast<std::size_t>(loop.axes[j]);
      const ex apart = ends[0][axis] - ends[1][axis];
      if (vanishes(apart, points))
        parse.fail(spec.holonomic[static_cast<std::size_t>(loop.first_holonomic) + j],
                   std::string("the points of loop ") + std::to_string(k + 1) + " coincide along " + "xyz"[axis] +
                       " at every configuration: leave " + "xyz"[axis] + " out of its axes (axes = [...])");
      out.holonomic[loop.first_holonomic + static_cast<int>(j)] = apart;
    }
  }
  return out;
}

}  // namespace

SymbolicModel analyse(const ModelSpec& spec) {
  const int n = spec.n(), m = spec.m();
  const Symbols s(spec);
  const ExpressionParser parse(spec, s);
  Derivatives d(parse);
  const auto points = sample_points(s);
  const std::vector<std::string> parameter_names(s.p_names.begin(),
                                                 s.p_names.begin() + static_cast<std::ptrdiff_t>(s.first_input));
  const std::vector<std::string> input_names(s.p_names.begin() + static_cast<std::ptrdiff_t>(s.first_input),
                                             s.p_names.end());
  const std::string params = parameter_names.empty() ? "no parameters" : "parameters: " + join(parameter_names);
  const std::string in_qv = "coordinates: " + join(s.q_names) + "; velocities: " + join(s.v_names) + "; " + params;
  const std::string in_q = "coordinates: " + join(s.q_names) + "; " + params;

  // Each definition read on its own first, so that a mistake in it is reported where it is written;
  // where it is used, it must use only what that expression may (symbols of the written-out text).
  for (std::size_t k = 0; k < spec.definitions.size(); ++k) {
    std::string in_definition = in_qv + "; t";
    if (!input_names.empty()) in_definition += "; inputs: " + join(input_names);
    if (s.z) in_definition += "; action: " + *spec.action;
    if (k > 0) in_definition += "; the definitions above it";
    parse(spec.definitions[k].expression, kCoordinates | kVelocities | kTime | kInputs | kAction, in_definition, k);
  }

  // The Lagrangian.
  ex L;
  const std::string in_qvz = s.z ? in_qv + "; action: " + *spec.action : in_qv;
  // The time may enter L (not the metric, not a contact Lagrangian): below, as a force.
  const int may_use_time = s.z ? 0 : kTime;
  const std::string in_qvzt = s.z ? in_qvz : in_qvz + "; t";
  const Expression* time_source = nullptr;  // the first expression that has t
  BodiesAlgebra bodies;
  if (!spec.bodies.empty()) {
    bodies = bodies_algebra(spec, s, parse, d, points, in_q, params);
    L = bodies.lagrangian;
  } else if (spec.lagrangian) {
    L = parse(*spec.lagrangian, kCoordinates | kVelocities | kAction | may_use_time, in_qvzt);
    if (L.has(s.t)) time_source = &*spec.lagrangian;
  } else {
    std::vector<std::vector<ex>> G(n, std::vector<ex>(n, 0));
    for (int i = 0; i < n; ++i) {
      if (spec.metric_is_diagonal) {
        G[i][i] = parse(spec.metric[i][0], kCoordinates, in_q);
        continue;
      }
      for (int j = 0; j < n; ++j) G[i][j] = parse(spec.metric[i][j], kCoordinates, in_q);
    }
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (!vanishes(G[i][j] - G[j][i], points))
          parse.fail(spec.metric[i][j], "the metric is not symmetric: metric[" + std::to_string(j) + "][" +
                                            std::to_string(i) + "] = " + quote(spec.metric[j][i].text) + " differs");
    L = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) L += G[i][j] * s.v[i] * s.v[j] / 2;
  }
  if (spec.potential) {
    const ex V = parse(*spec.potential, kCoordinates | may_use_time, s.z ? in_q : in_q + "; t");
    if (!time_source && V.has(s.t)) time_source = &*spec.potential;
    L -= V;
  }
  const TimeDependence time_part =
      time_source ? split_time_dependence(*time_source, s, parse, d, points, L) : TimeDependence{};

  const std::string in_qvt = in_qv + "; t";
  // Constraints: affine in the velocities, μ^a(q)·v + b_a(q, t); M(a, i) = ∂c_a/∂v_i, b_a = c_a at
  // v = 0. Only b may depend on the time (a table or a belt driven at a varying rate).
  std::vector<std::vector<ex>> M(m, std::vector<ex>(n));
  std::vector<ex> b(m, 0);
  const int velocity_rows = spec.velocity_rows();
  for (int a = 0; a < velocity_rows; ++a) {
    const Expression& e = spec.constraint_source(a);
    const ex c = a < spec.contact_rows() ? bodies.contact_rows[static_cast<std::size_t>(a)]
                                         : parse(e, kCoordinates | kVelocities | may_use_time, s.z ? in_qv : in_qvt);
    GiNaC::exmap at_rest;
    for (const auto& v : s.v) at_rest[v] = 0;
    bool depends_on_velocity = false;
    for (int i = 0; i < n; ++i) {
      M[a][i] = d(c, s.v[i], e);
      depends_on_velocity |= !M[a][i].is_zero();
      if (M[a][i].has(s.t) && !vanishes(d(M[a][i], s.t, e), points))
        parse.fail(e, "the coefficient of " + s.v_names[i] + ", " + quote(text_of(M[a][i])) +
                          ", depends on the time t (only the part without velocities, b(q, t) in M(q) v + b(q, t) = 0, "
                          "may)");
      for (int j = i; j < n; ++j)
        if (const ex second = d(M[a][i], s.v[j], e); !vanishes(second, points))
          parse.fail(e, "not linear in the velocities (it has a nonzero d2/d" + s.v_names[i] + "d" + s.v_names[j] +
                            " = " + quote(text_of(second)) + ")");
    }
    if (!depends_on_velocity)
      parse.fail(e, "not linear in the velocities (it contains no velocity; a constraint on the positions, phi(q) = 0, "
                    "goes in holonomic = [...])");
    try {
      b[a] = substituted(c, at_rest);
    } catch (const std::exception&) {
      parse.fail(e, "not affine in the velocities (it cannot be evaluated at zero velocity)");
    }
    if (vanishes(b[a], points)) b[a] = 0;
    if (s.z && !b[a].is_zero())
      parse.fail(e, "not linear in the velocities (the part without velocities, " + quote(text_of(b[a])) +
                        ", is not zero; a contact system takes linear constraints only)");
  }
  // Holonomic constraints φ_b(q, t) = 0, in their velocity form dφ_b(q)·v + ∂φ_b/∂t = 0:
  // M(a, i) = ∂φ_b/∂q_i and b_a = ∂φ_b/∂t. M may not depend on the time, so a constraint of t is
  // ψ(q) + c(t) (a string pulled in at a given rate).
  std::vector<ex> holonomic(m - velocity_rows);
  for (int a = velocity_rows; a < m; ++a) {
    const Expression& e = spec.constraint_source(a);
    const auto of_bodies = bodies.holonomic.find(a - velocity_rows);
    const ex& phi = holonomic[static_cast<std::size_t>(a - velocity_rows)] =
        of_bodies != bodies.holonomic.end() ? of_bodies->second
                                            : parse(e, kCoordinates | may_use_time, s.z ? in_q : in_q + "; t");
    bool depends_on_position = false;
    for (int i = 0; i < n; ++i) {
      M[a][i] = d(phi, s.q[i], e);
      depends_on_position |= !M[a][i].is_zero();
      if (M[a][i].has(s.t) && !vanishes(d(M[a][i], s.t, e), points))
        parse.fail(e, "its derivative by " + s.q_names[i] + ", " + quote(text_of(M[a][i])) +
                          ", depends on the time t (a holonomic constraint of the time is psi(q) + c(t), whose "
                          "velocity form dpsi(q) v + c'(t) = 0 has coefficients of q alone)");
    }
    if (!depends_on_position)
      parse.fail(e, "contains no coordinate (a holonomic constraint is a function of the coordinates, phi(q) = 0)");
    if (phi.has(s.t)) {
      b[a] = d(phi, s.t, e);
      if (vanishes(b[a], points)) b[a] = 0;
    }
  }

  // The expression a mistake in a derivative of L (or of G and V) is reported against.
  const Expression& lagrangian_source = spec.lagrangian       ? *spec.lagrangian
                                        : spec.potential      ? *spec.potential
                                        : !spec.bodies.empty() ? spec.bodies.front().mass
                                                               : spec.metric.at(0).at(0);

  // Mechanical (L = ½ vᵀG(q)v − V(q)): no term linear in v, nothing beyond quadratic. Methods that
  // project with the metric (fim, gf-cp) need G and V on their own.
  bool mechanical = !s.z;  // a contact Lagrangian is never of that form (it has z)
  std::vector<std::vector<ex>> G(n, std::vector<ex>(n));
  ex V;
  if (mechanical) {
    try {
      GiNaC::exmap at_rest;
      for (const auto& v : s.v) at_rest[v] = 0;
      V = -substituted(L, at_rest);
      for (int i = 0; i < n && mechanical; ++i) {
        const ex Li = d(L, s.v[i], lagrangian_source);
        mechanical = vanishes(substituted(Li, at_rest), points);
        for (int j = i; j < n && mechanical; ++j) {
          G[i][j] = G[j][i] = d(Li, s.v[j], lagrangian_source);
          for (int k = j; k < n && mechanical; ++k) mechanical = vanishes(d(G[i][j], s.v[k], lagrangian_source), points);
        }
      }
    } catch (const ModelFileError&) {
      throw;  // a derivative beyond the limits
    } catch (const std::exception&) {
      mechanical = false;  // e.g. 1/v: not of the form ½ vᵀGv − V
    }
  }

  // The external force: any functions of q, v and t (the time enters the kernel as an argument, not
  // as a variable of the Taylor coefficients), and the inputs, linearly with coefficients of the
  // parameters alone: a step's derivative by an input is then its derivative by a constant force
  // (docs/control.md).
  std::vector<ex> force;
  bool file_force_has_time = false;
  const std::string in_force = in_qv + "; t" + (input_names.empty() ? "" : "; inputs: " + join(input_names));
  for (const auto& e : spec.force) {
    force.push_back(parse(e, kCoordinates | kVelocities | kTime | kInputs, in_force));
    file_force_has_time = file_force_has_time || force.back().has(s.t);
    for (std::size_t k = s.first_input; k < s.p.size(); ++k) {
      const ex coefficient = force.back().diff(s.p[k]);
      std::vector<realsymbol> state(s.q);
      state.insert(state.end(), s.v.begin(), s.v.end());
      state.push_back(s.t);
      state.insert(state.end(), s.p.begin() + static_cast<std::ptrdiff_t>(s.first_input), s.p.end());
      for (const auto& x : state)
        if (!vanishes(coefficient.diff(x), points))
          parse.fail(e, "input '" + s.p_names[k] + "' must enter linearly, with a coefficient of the parameters "
                        "alone, but its coefficient depends on " + x.get_name());
    }
  }
  if (!time_part.force.empty()) {
    if (force.empty()) force.assign(n, 0);
    for (int i = 0; i < n; ++i) force[i] += time_part.force[i];
  }

  // Derived quantities and the closed form.
  std::vector<ex> derived;
  for (const auto& d : spec.derived) {
    const auto of_bodies = bodies.holonomic.find(d.holonomic);  // a contact's height, a loop: no text to parse
    derived.push_back(of_bodies != bodies.holonomic.end() ? of_bodies->second
                                                          : parse(d.expression, kCoordinates | kVelocities | kTime,
                                                                  in_qv + "; t"));
  }
  std::vector<ex> solution_q, solution_v, solution_conditions;
  const std::string in_solution = "a closed form uses t, the initial values x_0, x_t_0 of each coordinate x, and " + params;
  for (const auto& e : spec.solution) {
    solution_q.push_back(parse(e, kTime | kInitialValues, in_solution));
    solution_v.push_back(d(solution_q.back(), s.t, e));
  }
  for (const auto& e : spec.solution_conditions) solution_conditions.push_back(parse(e, kInitialValues, in_solution));

  // Taylor coefficients, then every expression written in the kernel arguments.
  SymbolicModel out;
  Layout& layout = out.layout;
  layout.n = n;
  layout.m = m;
  std::vector<realsymbol> x(s.q);  // the Lagrangian's variables: (q, v), and z for a contact system
  x.insert(x.end(), s.v.begin(), s.v.end());
  layout.contact = s.z.has_value();
  if (s.z) x.push_back(*s.z);
  std::vector<std::pair<int, ex>> L_coefficients;
  layout.lagrangian = taylor_terms(L, x, L_coefficients, d, lagrangian_source);
  layout.lagrangian_size = static_cast<int>(L_coefficients.size());
  std::vector<std::pair<int, ex>> M_coefficients;
  for (int a = 0; a < m; ++a)
    for (int i = 0; i < n; ++i)
      if (!M[a][i].is_zero())
        layout.constraints.push_back({a, i, taylor_terms(M[a][i], s.q, M_coefficients, d, spec.constraint_source(a))});
  for (int a = 0; a < m; ++a)
    if (!b[a].is_zero())
      layout.constraint_offsets.push_back(
          {a, n, taylor_terms(b[a], s.q, M_coefficients, d, spec.constraint_source(a))});
  for (int a = 0; a < m; ++a) {
    // a holonomic φ(q, t) moves with the time even where its rate ∂φ/∂t is constant: the methods
    // that impose φ need the time, and those without a time refuse it
    const bool moving_holonomic = a >= velocity_rows && !b[a].is_zero();
    if (b[a].has(s.t) || moving_holonomic) {
      const ex rate = d(b[a], s.t, spec.constraint_source(a));
      if (vanishes(rate, points) && !moving_holonomic) continue;
      layout.constraint_offsets_depend_on_time = true;
      layout.constraint_offset_rates.push_back(
          {a, n + 1, taylor_terms(rate, s.q, M_coefficients, d, spec.constraint_source(a))});
    }
  }
  for (int a = velocity_rows; a < m; ++a)
    layout.holonomic.push_back({a, n + 2,
                                taylor_terms(holonomic[static_cast<std::size_t>(a - velocity_rows)], s.q,
                                             M_coefficients, d, spec.constraint_source(a))});
  layout.constraints_size = static_cast<int>(M_coefficients.size());
  std::vector<std::pair<int, ex>> mechanics_coefficients;
  layout.mechanical = mechanical;
  if (mechanical) {
    for (int i = 0; i < n; ++i)
      for (int j = i; j < n; ++j)
        if (!G[i][j].is_zero())
          layout.metric.push_back({i, j, taylor_terms(G[i][j], s.q, mechanics_coefficients, d, lagrangian_source)});
    layout.potential = taylor_terms(V, s.q, mechanics_coefficients, d, lagrangian_source);
    layout.constant_metric = std::all_of(layout.metric.begin(), layout.metric.end(), [](const ConstraintEntry& e) {
      return e.terms.first.empty() && e.terms.second.empty() && e.terms.third.empty();
    });
  }
  layout.mechanics_size = static_cast<int>(mechanics_coefficients.size());
  std::vector<std::pair<int, ex>> force_coefficients;
  for (std::size_t i = 0; i < force.size(); ++i)
    layout.force.push_back(taylor_terms(force[i], x, force_coefficients, d,
                                        i < spec.force.size() ? spec.force[i] : lagrangian_source));
  layout.force_depends_on_time = file_force_has_time;
  layout.force_size = static_cast<int>(force_coefficients.size());
  layout.derived = static_cast<int>(derived.size());
  layout.lagrangian_depends_on_time = time_part.depends_on_time;
  layout.has_solution = !solution_q.empty();

  const KernelArguments args(n, static_cast<int>(s.p.size()), layout.contact);
  GiNaC::exmap to_args, initial_to_args;
  for (int i = 0; i < n; ++i) {
    to_args[s.q[i]] = args.x[i];
    to_args[s.v[i]] = args.x[n + i];
    initial_to_args[s.q0[i]] = args.x[i];
    initial_to_args[s.v0[i]] = args.x[n + i];
  }
  for (std::size_t k = 0; k < s.p.size(); ++k) {
    to_args[s.p[k]] = args.p[k];
    initial_to_args[s.p[k]] = args.p[k];
  }
  to_args[s.t] = args.t;
  initial_to_args[s.t] = args.t;
  if (s.z) to_args[*s.z] = args.x[2 * n];

  out.kernels.resize(initial_kernel + 1);
  // The kernel of order k writes the coefficients of orders up to k: each is substituted once.
  const auto in_arguments = [&](const auto& coefficients, int size) {
    std::vector<ex> substituted_coefficients;
    for (int i = 0; i < size; ++i) substituted_coefficients.push_back(substituted(coefficients[i].second, to_args));
    return substituted_coefficients;
  };
  const std::vector<ex> L_in_arguments = in_arguments(L_coefficients, layout.lagrangian_size);
  const std::vector<ex> M_in_arguments = in_arguments(M_coefficients, layout.constraints_size);
  const std::vector<ex> mechanics_in_arguments = in_arguments(mechanics_coefficients, layout.mechanics_size);
  const std::vector<ex> force_in_arguments = in_arguments(force_coefficients, layout.force_size);
  for (int order = 0; order <= max_taylor_order; ++order) {
    const auto fill = [order](Kernel& kernel, const std::string& name, const auto& coefficients,
                              const std::vector<ex>& in_arguments) {
      kernel.name = name + "_" + std::to_string(order);
      for (std::size_t i = 0; i < in_arguments.size(); ++i)
        if (coefficients[i].first <= order) kernel.outputs.emplace_back(static_cast<int>(i), in_arguments[i]);
    };
    fill(out.kernels[lagrangian_kernel(order)], "lagrangian", L_coefficients, L_in_arguments);
    fill(out.kernels[constraints_kernel(order)], "constraints", M_coefficients, M_in_arguments);
    fill(out.kernels[mechanics_kernel(order)], "mechanics", mechanics_coefficients, mechanics_in_arguments);
    fill(out.kernels[force_kernel(order)], "force", force_coefficients, force_in_arguments);
  }
  Kernel& derived_values = out.kernels[derived_kernel];
  derived_values.name = "derived";
  for (std::size_t i = 0; i < derived.size(); ++i)
    derived_values.outputs.emplace_back(static_cast<int>(i), substituted(derived[i], to_args));
  if (time_part.depends_on_time) {  // after the derived quantities: the energy's part, the momentum's
    const int at = static_cast<int>(derived.size());
    derived_values.outputs.emplace_back(at, substituted(time_part.energy, to_args));
    for (int i = 0; i < n; ++i)
      derived_values.outputs.emplace_back(at + 1 + i, substituted(time_part.momentum[i], to_args));
  }
  Kernel& solution = out.kernels[solution_kernel];
  solution.name = "solution";
  for (std::size_t i = 0; i < solution_q.size(); ++i) {
    solution.outputs.emplace_back(static_cast<int>(i), substituted(solution_q[i], initial_to_args));
    solution.outputs.emplace_back(static_cast<int>(n + i), substituted(solution_v[i], initial_to_args));
  }
  for (std::size_t i = 0; i < solution_conditions.size(); ++i)
    solution.outputs.emplace_back(static_cast<int>(2 * n + i), substituted(solution_conditions[i], initial_to_args));
  layout.solution_conditions = static_cast<int>(solution_conditions.size());
  Kernel& initial = out.kernels[initial_kernel];
  initial.name = "initial";
  const std::string in_params = "initial data may use the " + params;
  for (int i = 0; i < n; ++i) {
    initial.outputs.emplace_back(i, substituted(parse(spec.initial_q[i], 0, in_params), to_args));
    initial.outputs.emplace_back(n + i, substituted(parse(spec.initial_v[i], 0, in_params), to_args));
  }
  if (layout.contact) initial.outputs.emplace_back(2 * n, substituted(parse(spec.initial_z, 0, in_params), to_args));
  return out;
}

namespace {

/// C code for expressions, independent of GiNaC's internal order of terms. GiNaC orders the terms
/// of sums and products by hashes that depend on addresses, which differ from run to run, and
/// normalises signs by that order (sin(x − y) or −sin(y − x), (a − b)·c or −(b − a)·c). Written as
/// GiNaC stores them, the same file gave different code in different runs: a new library each time,
/// and different rounding. Here every subexpression is written as a sign and a magnitude in a
/// canonical form: operands sorted by a hash of their canonical form (which depends on nothing but
/// the expression), the sign of a sum chosen so that its first term is positive, and signs moved
/// out of products, odd powers and odd functions.
///
/// Each distinct compound subexpression becomes one temporary of the kernel (`const double t7 =
/// ...;`), so the code grows with the number of distinct subexpressions, not with the size of the
/// expression tree (the derivatives of sin(sin(...(x)...)) share almost everything).
///
/// The code contains nothing a model file wrote: the symbols are the kernel arguments x[i], p[k]
/// and t (user names were replaced by them before), the numbers are printed from doubles, and the
/// function names come from a fixed list. Anything else is an internal error.
class CanonicalC {
 public:
  /// The body of one kernel: its temporaries, then `out[i] = ...;` for every output.
  std::string kernel_body(const Kernel& kernel) {
    code_.clear();
    temporary_of_value_.clear();
    body_.clear();
    temporaries_ = 0;
    std::string outputs;
    for (const auto& [index, e] : kernel.outputs)
      outputs += "  out[" + std::to_string(index) + "] = " + signed_code(e) + ";\n";
    return body_ + outputs;
  }

  /// The operands of a sum or product in canonical order (for the interpreter).
  std::vector<ex> sorted_operands(const ex& e) { return sorted(e); }

 private:
  /// A subexpression as a sign and a magnitude; `key` hashes the magnitude's canonical form.
  struct Shape {
    bool negative = false;
    std::uint64_t key = 0;
  };

  static std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
    for (int i = 0; i < 8; ++i, x >>= 8) {  // FNV-1a over the bytes of x
      h ^= x & 0xff;
      h *= 1099511628211ull;
    }
    return h;
  }
  static std::uint64_t hash_text(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (const unsigned char c : s) h = mix(h, c);
    return h;
  }

  static std::string number(double x) {
    if (!std::isfinite(x)) throw std::logic_error("a number of the model does not fit in a double");
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", x);
    std::string s = text;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";  // a double, not an int
    return s;
  }

  /// The kernel arguments are the only symbols: x[<digits>], p[<digits>] and t.
  static const std::string& argument(const std::string& name) {
    const bool indexed = name.size() > 3 && (name[0] == 'x' || name[0] == 'p') && name[1] == '[' && name.back() == ']' &&
                         std::all_of(name.begin() + 2, name.end() - 1, [](char c) { return c >= '0' && c <= '9'; });
    if (!indexed && name != "t") throw std::logic_error("a symbol that is not a kernel argument reached the C code");
    return name;
  }

  static bool is_one(const ex& e) { return GiNaC::is_a<GiNaC::numeric>(e) && GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(e)).is_equal(1); }

  // Functions by symmetry: f(−a) = −f(a) (odd), f(−a) = f(a) (even), or neither.
  static const std::set<std::string>& odd_functions() {
    static const std::set<std::string> odd = {"sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh",
                                              "dalembert_sign"};
    return odd;
  }
  static const std::set<std::string>& even_functions() {
    static const std::set<std::string> even = {"cos", "cosh", "dalembert_abs"};
    return even;
  }
  static const std::string& c_name(const std::string& name) {
    static const std::map<std::string, std::string> names = {
        {"sin", "sin"},     {"cos", "cos"},     {"tan", "tan"},     {"asin", "asin"},   {"acos", "acos"},
        {"atan", "atan"},   {"atan2", "atan2"}, {"sinh", "sinh"},   {"cosh", "cosh"},   {"tanh", "tanh"},
        {"asinh", "asinh"}, {"acosh", "acosh"}, {"atanh", "atanh"}, {"exp", "exp"},     {"log", "log"},
        {"dalembert_abs", "fabs"}, {"dalembert_sign", "dalembert_sign"}};
    const auto it = names.find(name);
    if (it == names.end()) throw std::logic_error("the function " + name + " reached the C code");
    return it->second;
  }

  // --- The canonical form: a sign and a hash of the magnitude, from the expression alone ---------

  const Shape& shape(const ex& e) {
    if (const auto it = shapes_.find(e); it != shapes_.end()) return it->second;
    const Shape s = compute_shape(e);
    return shapes_.emplace(e, s).first->second;
  }

  /// The operands of a sum or product ordered by their canonical form.
  std::vector<ex> sorted(const ex& e) {
    std::vector<ex> operands(e.begin(), e.end());
    std::stable_sort(operands.begin(), operands.end(), [&](const ex& a, const ex& b) {
      const Shape &x = shape(a), &y = shape(b);
      return std::tie(x.key, x.negative) < std::tie(y.key, y.negative);
    });
    return operands;
  }

  Shape compute_shape(const ex& e) {
    using namespace GiNaC;
    if (is_a<numeric>(e)) {
      const double x = ex_to<numeric>(e).to_double();
      return {x < 0, hash_text(number(std::abs(x)))};
    }
    if (is_a<symbol>(e)) return {false, hash_text(argument(ex_to<symbol>(e).get_name()))};
    if (is_a<constant>(e)) {
      if (e != Pi) throw std::logic_error("a constant other than pi reached the C code");
      return {false, hash_text("Pi")};
    }
    if (is_a<add>(e)) {
      const std::vector<ex> terms = sorted(e);
      const bool flip = shape(terms.front()).negative;  // first term positive
      std::uint64_t key = hash_text("add");
      for (const ex& t : terms) key = mix(mix(key, shape(t).key), shape(t).negative != flip);
      return {flip, key};
    }
    if (is_a<mul>(e)) {
      bool negative = false;
      std::vector<std::uint64_t> keys;
      for (const ex& f : sorted(e)) {
        negative = negative != shape(f).negative;
        if (!is_one(f)) keys.push_back(shape(f).key);
      }
      if (keys.empty()) return {negative, hash_text("1.0")};
      if (keys.size() == 1) return {negative, keys[0]};  // −x is the sign and x
      std::uint64_t key = hash_text("mul");
      for (const auto k : keys) key = mix(key, k);
      return {negative, key};
    }
    if (is_a<power>(e)) {
      const Shape base = shape(e.op(0));
      const ex exponent = e.op(1);
      const std::uint64_t key = mix(hash_text("pow"), base.key);
      if (is_a<numeric>(exponent) && ex_to<numeric>(exponent).is_integer()) {
        const numeric k = ex_to<numeric>(exponent);
        return {base.negative && k.is_odd(), mix(key, hash_text(number(k.to_double())))};
      }
      const Shape x = shape(exponent);
      return {false, mix(mix(mix(key, base.negative), x.key), x.negative)};
    }
    if (is_a<function>(e)) {
      const std::string name = ex_to<function>(e).get_name();
      c_name(name);
      const Shape a = shape(e.op(0));
      const std::uint64_t key = mix(hash_text(name), a.key);
      if (odd_functions().count(name)) return {a.negative, key};
      if (even_functions().count(name)) return {false, key};
      if (name == "atan2") return {a.negative, mix(mix(key, shape(e.op(1)).key), shape(e.op(1)).negative)};  // odd in y
      return {false, mix(key, a.negative)};
    }
    throw std::logic_error("cannot write C for an expression of the model");
  }

  // --- Code: one temporary per distinct compound subexpression, emitted in canonical order ------

  /// The code of e's magnitude: a leaf (x[3], p[0], t, 0.5, Pi) or the temporary that holds it.
  const std::string& code(const ex& e) {
    if (const auto it = code_.find(e); it != code_.end()) return it->second;
    std::string c = compute_code(e);
    return code_.emplace(e, std::move(c)).first->second;
  }
  std::string signed_code(const ex& e) {
    const std::string& c = code(e);
    return shape(e).negative ? "(-" + c + ")" : c;
  }
  /// The temporary that holds `value`, written once. GiNaC may hold one magnitude under expressions
  /// of both signs (a·b, and −a·b inside a sum), which of them depending on the process, so `code_`
  /// can meet a canonical value again under another expression: the value's text finds it.
  std::string temporary(const std::string& value) {
    const auto [it, added] = temporary_of_value_.try_emplace(value, "t" + std::to_string(temporaries_));
    if (!added) return it->second;
    ++temporaries_;
    body_ += "  const double " + it->second + " = " + value + ";\n";
    return it->second;
  }

  std::string compute_code(const ex& e) {
    using namespace GiNaC;
    if (is_a<numeric>(e)) return number(std::abs(ex_to<numeric>(e).to_double()));
    if (is_a<symbol>(e)) return argument(ex_to<symbol>(e).get_name());
    if (is_a<constant>(e)) return "Pi";
    if (is_a<add>(e)) {
      const bool flip = shape(e).negative;
      std::string value = "(";
      bool first = true;
      for (const ex& t : sorted(e)) {
        const bool negative = shape(t).negative != flip;
        value += (first ? "" : negative ? " - " : " + ") + code(t);
        first = false;
      }
      return temporary(value + ")");
    }
    if (is_a<mul>(e)) {
      std::vector<ex> factors;
      for (const ex& f : sorted(e))
        if (!is_one(f)) factors.push_back(f);
      if (factors.empty()) return "1.0";
      if (factors.size() == 1) return code(factors[0]);
      std::string value;
      for (std::size_t i = 0; i < factors.size(); ++i) value += (i ? "*" : "") + code(factors[i]);
      return temporary(value);
    }
    if (is_a<power>(e)) {
      const std::string& base = code(e.op(0));
      const ex exponent = e.op(1);
      if (is_a<numeric>(exponent) && ex_to<numeric>(exponent).is_integer()) {
        const numeric k = ex_to<numeric>(exponent);
        if (k == 2) return temporary(base + "*" + base);
        if (k == -1) return temporary("1.0/" + base);
        return temporary("pow(" + base + ", " + number(k.to_double()) + ")");
      }
      const std::string b = signed_code(e.op(0));
      if (exponent == numeric(1, 2)) return temporary("sqrt(" + b + ")");
      return temporary("pow(" + b + ", " + signed_code(exponent) + ")");
    }
    if (is_a<function>(e)) {
      const std::string name = ex_to<function>(e).get_name();
      const std::string& f = c_name(name);
      if (odd_functions().count(name) || even_functions().count(name)) return temporary(f + "(" + code(e.op(0)) + ")");
      if (name == "atan2") return temporary("atan2(" + code(e.op(0)) + ", " + signed_code(e.op(1)) + ")");
      return temporary(f + "(" + signed_code(e.op(0)) + ")");
    }
    throw std::logic_error("cannot write C for an expression of the model");
  }

  std::map<ex, Shape, GiNaC::ex_is_less> shapes_;
  std::map<ex, std::string, GiNaC::ex_is_less> code_;
  std::map<std::string, std::string> temporary_of_value_;
  std::string body_;
  int temporaries_ = 0;
};

}  // namespace

std::string c_source(const SymbolicModel& model) {
  CanonicalC canonical;
  std::ostringstream c;
  c << "/* Kernels of a model file, generated by dalembert (docs/model-files.md). */\n"
    << "#include <math.h>\n"
    << "static const double Pi = 3.141592653589793238462643383279502884;\n"
    << "static double dalembert_sign(double x) { return (double)((x > 0) - (x < 0)); }\n"
    << "int dalembert_abi_version = 2;\n"
    << "int dalembert_lagrangian_size = " << model.layout.lagrangian_size << ";\n"
    << "int dalembert_constraints_size = " << model.layout.constraints_size << ";\n"
    << "int dalembert_force_size = " << model.layout.force_size << ";\n";
  for (const auto& k : model.kernels) {
    // restrict: out never aliases x or p, so the compiler may keep x[i] and shared subexpressions
    // such as sin(x[2]) in registers across the stores instead of recomputing them after each one
    c << "\nvoid dalembert_" << k.name
      << "(const double* restrict x, const double* restrict p, double t, double* restrict out) {\n"
      << "  (void)x; (void)p; (void)t;\n"
      << canonical.kernel_body(k) << "}\n";
  }
  return c.str();
}

// --- Interpretation ----------------------------------------------------------------------------

namespace {

/// A kernel flattened into instructions on a register file (shared subexpressions once).
class Tape {
 public:
  Tape(const Kernel& kernel, const std::map<ex, std::pair<char, int>, GiNaC::ex_is_less>& inputs) : inputs_(inputs) {
    for (const auto& [index, e] : kernel.outputs) outputs_.emplace_back(index, compile(e));
  }

  void run(const double* x, const double* p, double t, double* out) const {
    thread_local std::vector<double> r;
    r.resize(nodes_.size());
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      const double a = n.a >= 0 ? r[n.a] : 0.0, b = n.b >= 0 ? r[n.b] : 0.0;
      switch (n.op) {
        case Op::X: r[i] = x[n.index]; break;
        case Op::P: r[i] = p[n.index]; break;
        case Op::T: r[i] = t; break;
        case Op::Constant: r[i] = n.constant; break;
        case Op::Add: r[i] = a + b; break;
        case Op::Mul: r[i] = a * b; break;
        case Op::Pow: r[i] = std::pow(a, b); break;
        case Op::Function: r[i] = apply(n.function, a, b); break;
      }
    }
    for (const auto& [index, node] : outputs_) out[index] = r[node];
  }

 private:
  enum class Op { X, P, T, Constant, Add, Mul, Pow, Function };
  struct Node {
    Node(Op op_, int a_ = -1, int b_ = -1, int index_ = 0, double constant_ = 0.0)
        : op(op_), a(a_), b(b_), index(index_), constant(constant_) {}
    Op op;
    int a, b, index;
    double constant;
    std::string function;
  };

  static double apply(const std::string& f, double a, double b) {
    if (f == "sin") return std::sin(a);
    if (f == "cos") return std::cos(a);
    if (f == "tan") return std::tan(a);
    if (f == "asin") return std::asin(a);
    if (f == "acos") return std::acos(a);
    if (f == "atan") return std::atan(a);
    if (f == "atan2") return std::atan2(a, b);
    if (f == "sinh") return std::sinh(a);
    if (f == "cosh") return std::cosh(a);
    if (f == "tanh") return std::tanh(a);
    if (f == "asinh") return std::asinh(a);
    if (f == "acosh") return std::acosh(a);
    if (f == "atanh") return std::atanh(a);
    if (f == "exp") return std::exp(a);
    if (f == "log") return std::log(a);
    if (f == "abs" || f == "dalembert_abs") return std::abs(a);
    if (f == "dalembert_sign") return static_cast<double>((a > 0) - (a < 0));
    throw std::logic_error("interpreter: unknown function " + f);
  }

  int push(Node n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }

  int compile(const ex& e) {
    if (const auto it = memo_.find(e); it != memo_.end()) return it->second;
    int result;
    if (const auto in = inputs_.find(e); in != inputs_.end()) {
      result = push(Node(in->second.first == 'x' ? Op::X : in->second.first == 'p' ? Op::P : Op::T, -1, -1, in->second.second));
    } else if (GiNaC::is_a<GiNaC::numeric>(e)) {
      result = push(Node(Op::Constant, -1, -1, 0, GiNaC::ex_to<GiNaC::numeric>(e).to_double()));
    } else if (GiNaC::is_a<GiNaC::constant>(e)) {
      result = push(Node(Op::Constant, -1, -1, 0, GiNaC::ex_to<GiNaC::numeric>(e.evalf()).to_double()));
    } else if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
      const Op op = GiNaC::is_a<GiNaC::add>(e) ? Op::Add : Op::Mul;
      const std::vector<ex> operands = canonical_.sorted_operands(e);  // the same rounding in every run
      result = compile(operands[0]);
      for (std::size_t i = 1; i < operands.size(); ++i) result = push(Node(op, result, compile(operands[i])));
    } else if (GiNaC::is_a<GiNaC::power>(e)) {
      result = push(Node(Op::Pow, compile(e.op(0)), compile(e.op(1))));
    } else if (GiNaC::is_a<GiNaC::function>(e)) {
      Node n(Op::Function, compile(e.op(0)), e.nops() > 1 ? compile(e.op(1)) : -1);
      n.function = GiNaC::ex_to<GiNaC::function>(e).get_name();
      result = push(n);
    } else {
      throw std::logic_error("interpreter: cannot evaluate " + text_of(e));
    }
    memo_.emplace(e, result);
    return result;
  }

  const std::map<ex, std::pair<char, int>, GiNaC::ex_is_less>& inputs_;
  std::vector<Node> nodes_;
  std::vector<std::pair<int, int>> outputs_;
  std::map<ex, int, GiNaC::ex_is_less> memo_;
  CanonicalC canonical_;
};

class InterpretedEvaluator : public Evaluator {
 public:
  explicit InterpretedEvaluator(const SymbolicModel& model) {
    // The kernel arguments are the symbols named x[i], p[k] and t.
    for (const auto& k : model.kernels)
      for (const auto& [index, e] : k.outputs)
        for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it)
          if (GiNaC::is_a<GiNaC::symbol>(*it)) {
            const std::string name = GiNaC::ex_to<GiNaC::symbol>(*it).get_name();
            inputs_[*it] = name == "t" ? std::pair<char, int>{'t', 0}
                                       : std::pair<char, int>{name[0], std::stoi(name.substr(2))};
          }
    for (const auto& k : model.kernels) tapes_.emplace_back(k, inputs_);
  }
  void lagrangian(int order, const double* x, const double* p, double* out) const override {
    tapes_[lagrangian_kernel(order)].run(x, p, 0.0, out);
  }
  void constraints(int order, const double* q, const double* p, double t, double* out) const override {
    tapes_[constraints_kernel(order)].run(q, p, t, out);
  }
  void mechanics(int order, const double* q, const double* p, double* out) const override {
    tapes_[mechanics_kernel(order)].run(q, p, 0.0, out);
  }
  void force(int order, const double* x, const double* p, double t, double* out) const override {
    tapes_[force_kernel(order)].run(x, p, t, out);
  }
  void derived(const double* x, const double* p, double t, double* out) const override {
    tapes_[derived_kernel].run(x, p, t, out);
  }
  void solution(const double* x0, const double* p, double t, double* out) const override {
    tapes_[solution_kernel].run(x0, p, t, out);
  }
  void initial(const double* p, double* out) const override { tapes_[initial_kernel].run(nullptr, p, 0.0, out); }
  std::string kind() const override { return "interpreted"; }

 private:
  std::map<ex, std::pair<char, int>, GiNaC::ex_is_less> inputs_;
  std::vector<Tape> tapes_;
};

}  // namespace

std::unique_ptr<Evaluator> interpreted_evaluator(const SymbolicModel& model) {
  return std::make_unique<InterpretedEvaluator>(model);
}

}  // namespace dalembert::modelfile
