#include "modelfile/layout_text.hpp"

#include <charconv>
#include <vector>

namespace dalembert::modelfile {

namespace {

// No count or index of a model file's layout comes near this (a model file is at most 1 MiB).
constexpr long kLargest = long{1} << 30;

class Writer {
 public:
  Writer& field(const char* name) {
    if (!text_.empty()) text_ += '\n';
    text_ += name;
    return *this;
  }
  Writer& operator<<(long value) {
    text_ += ' ' + std::to_string(value);
    return *this;
  }
  Writer& operator<<(const TaylorTerms& t) {
    *this << t.offset << static_cast<long>(t.first.size());
    for (const int i : t.first) *this << i;
    *this << static_cast<long>(t.second.size());
    for (const auto& [i, j] : t.second) *this << i << j;
    *this << static_cast<long>(t.third.size());
    for (const auto& [i, j, k] : t.third) *this << i << j << k;
    return *this;
  }
  Writer& operator<<(const std::vector<ConstraintEntry>& entries) {
    *this << static_cast<long>(entries.size());
    for (const auto& e : entries) *this << e.row << e.column << e.terms;
    return *this;
  }
  std::string text() const { return text_ + '\n'; }

 private:
  std::string text_;
};

/// Reads what Writer wrote; the first mismatch makes it fail for good.
class Reader {
 public:
  explicit Reader(std::string_view text) : rest_(text) {}

  /// The field's name (integer() then checks the space after it).
  bool field(std::string_view name) {
    if (!ok_ || !rest_.starts_with(name)) return ok_ = false;
    rest_.remove_prefix(name.size());
    return true;
  }
  int integer() {
    if (!ok_ || rest_.empty() || rest_.front() != ' ') return fail();
    rest_.remove_prefix(1);
    long value = -1;
    const auto [end, error] = std::from_chars(rest_.data(), rest_.data() + rest_.size(), value);
    if (error != std::errc() || value < 0 || value > kLargest) return fail();
    rest_.remove_prefix(static_cast<std::size_t>(end - rest_.data()));
    return static_cast<int>(value);
  }
  bool boolean() {
    const int value = integer();
    if (value > 1) fail();
    return value == 1;
  }
  TaylorTerms terms() {
    TaylorTerms t;
    t.offset = integer();
    t.first.resize(count());
    for (int& i : t.first) i = integer();
    t.second.resize(count());
    for (auto& [i, j] : t.second) i = integer(), j = integer();
    t.third.resize(count());
    for (auto& [i, j, k] : t.third) i = integer(), j = integer(), k = integer();
    return t;
  }
  std::vector<ConstraintEntry> entries() {
    std::vector<ConstraintEntry> e(count());
    for (auto& entry : e) {
      entry.row = integer();
      entry.column = integer();
      entry.terms = terms();
    }
    return e;
  }
  /// A count no larger than what is left of the text could hold (each item takes two characters).
  std::size_t count() {
    const int n = integer();
    if (static_cast<std::size_t>(n) > rest_.size() / 2) return fail(), 0;
    return static_cast<std::size_t>(n);
  }
  /// Whether the whole text was read, ending with the newline after the last field.
  bool done() {
    if (!ok_ || rest_ != "\n") return false;
    rest_.remove_prefix(1);
    return true;
  }
  /// Every field but the first starts after a newline.
  bool next_line() {
    if (!ok_ || rest_.empty() || rest_.front() != '\n') return ok_ = false;
    rest_.remove_prefix(1);
    return true;
  }

 private:
  int fail() {
    ok_ = false;
    return 0;
  }
  std::string_view rest_;
  bool ok_ = true;
};

}  // namespace

// layout_text writes every field of Layout, and read_layout_text reads them back: a field added to
// Layout changes its size, and this reminds whoever adds one to write and read it here too.
#ifndef _GLIBCXX_DEBUG  // whose vectors are larger
static_assert(sizeof(void*) != 8 || sizeof(Layout) == 384, "write and read Layout's new field here");
#endif

std::string layout_text(const Layout& l) {
  Writer w;
  w.field("n") << l.n;
  w.field("m") << l.m;
  w.field("contact") << l.contact;
  w.field("lagrangian") << l.lagrangian;
  w.field("lagrangian_size") << l.lagrangian_size;
  w.field("constraints") << l.constraints;
  w.field("constraint_offsets") << l.constraint_offsets;
  w.field("constraint_offset_rates") << l.constraint_offset_rates;
  w.field("constraint_offsets_depend_on_time") << l.constraint_offsets_depend_on_time;
  w.field("holonomic") << l.holonomic;
  w.field("constraints_size") << l.constraints_size;
  w.field("mechanical") << l.mechanical;
  w.field("metric") << l.metric;
  w.field("constant_metric") << l.constant_metric;
  w.field("potential") << l.potential;
  w.field("mechanics_size") << l.mechanics_size;
  w.field("force") << static_cast<long>(l.force.size());
  for (const TaylorTerms& f : l.force) w << f;
  w.field("force_size") << l.force_size;
  w.field("force_depends_on_time") << l.force_depends_on_time;
  w.field("derived") << l.derived;
  w.field("lagrangian_depends_on_time") << l.lagrangian_depends_on_time;
  w.field("has_solution") << l.has_solution;
  w.field("solution_conditions") << l.solution_conditions;
  return w.text();
}

std::optional<Layout> read_layout_text(std::string_view text) {
  Reader r(text);
  Layout l;
  const auto line = [&r](const char* name) { return r.next_line() && r.field(name); };
  r.field("n");
  l.n = r.integer();
  line("m");
  l.m = r.integer();
  line("contact");
  l.contact = r.boolean();
  line("lagrangian");
  l.lagrangian = r.terms();
  line("lagrangian_size");
  l.lagrangian_size = r.integer();
  line("constraints");
  l.constraints = r.entries();
  line("constraint_offsets");
  l.constraint_offsets = r.entries();
  line("constraint_offset_rates");
  l.constraint_offset_rates = r.entries();
  line("constraint_offsets_depend_on_time");
  l.constraint_offsets_depend_on_time = r.boolean();
  line("holonomic");
  l.holonomic = r.entries();
  line("constraints_size");
  l.constraints_size = r.integer();
  line("mechanical");
  l.mechanical = r.boolean();
  line("metric");
  l.metric = r.entries();
  line("constant_metric");
  l.constant_metric = r.boolean();
  line("potential");
  l.potential = r.terms();
  line("mechanics_size");
  l.mechanics_size = r.integer();
  line("force");
  l.force.resize(r.count());
  for (TaylorTerms& f : l.force) f = r.terms();
  line("force_size");
  l.force_size = r.integer();
  line("force_depends_on_time");
  l.force_depends_on_time = r.boolean();
  line("derived");
  l.derived = r.integer();
  line("lagrangian_depends_on_time");
  l.lagrangian_depends_on_time = r.boolean();
  line("has_solution");
  l.has_solution = r.boolean();
  line("solution_conditions");
  l.solution_conditions = r.integer();
  if (!r.done()) return std::nullopt;
  return l;
}

}  // namespace dalembert::modelfile
