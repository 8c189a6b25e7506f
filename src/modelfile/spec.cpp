#include "modelfile/spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>

#include <toml++/toml.h>

namespace dalembert::modelfile {

namespace {

long line_of(const toml::node& node) { return static_cast<long>(node.source().begin.line); }

bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }

/// A name of a coordinate or parameter: an ASCII letter, then letters, digits and _.
bool is_identifier(const std::string& s) {
  if (s.empty() || !ascii_letter(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return ascii_letter(c) || ascii_digit(c) || c == '_'; });
}

/// A name that becomes a CSV column: [A-Za-z_][A-Za-z0-9_]*.
bool is_column_name(const std::string& s) {
  if (s.empty() || !(ascii_letter(s[0]) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return ascii_letter(c) || ascii_digit(c) || c == '_'; });
}

/// Text shown to the user as it is (name, summary, descriptions): no control characters, so that
/// a file cannot move the cursor or rewrite the terminal.
bool is_printable(const std::string& s) {
  return std::none_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

/// The largest model file read: far beyond any model (a 30-coordinate file is a few kilobytes).
constexpr std::uintmax_t kLargestModelFile = 1 << 20;
/// The most coordinates a model file may have. Reading, checking and differentiating a file costs
/// time that grows faster than n (a free particle with 1000 coordinates loads in about 20 s), and a
/// file of 1 MiB could name 100 000 coordinates; larger systems belong in C++ (docs/security.md).
constexpr int kMostCoordinates = 1000;

/// Reads one file, remembering its name for the messages.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(long line, const std::string& message) const { throw ModelFileError(path_, line, message); }

  std::string string(const toml::node& node, const std::string& key) const {
    if (!node.is_string()) fail(line_of(node), key + " must be a string");
    return node.as_string()->get();
  }

  /// A string shown as it is: one line of printable characters.
  std::string text(const toml::node& node, const std::string& key) const {
    std::string s = string(node, key);
    if (!is_printable(s)) fail(line_of(node), key + " must be one line without control characters");
    return s;
  }

  double number(const toml::node& node, const std::string& key) const {
    const auto x = node.value<double>();
    if (!node.is_number() || !x) fail(line_of(node), key + " must be a number");
    if (!std::isfinite(*x)) fail(line_of(node), key + " must be a finite number");
    return *x;
  }

  /// An expression: a string, or a number (written exactly, so that 0.1 stays the double 0.1).
  Expression expression(const toml::node& node, const std::string& key) const {
    if (node.is_number()) {
      char text[40];
      std::snprintf(text, sizeof text, "%.17g", number(node, key));
      return {text, line_of(node), key};
    }
    if (!node.is_string()) fail(line_of(node), key + " must be an expression in quotes, e.g. \"0.5*x_t^2\"");
    return {node.as_string()->get(), line_of(node), key};
  }

  const toml::array& array(const toml::node& node, const std::string& key, const char* example) const {
    if (!node.is_array()) fail(line_of(node), key + " must be an array, e.g. " + example);
    return *node.as_array();
  }

  std::vector<Expression> expressions(const toml::node& node, const std::string& key, std::size_t size,
                                      const std::string& size_reason) const {
    const auto& a = array(node, key, "[0, 0, 1]");
    if (a.size() != size)
      fail(line_of(node), key + " has " + std::to_string(a.size()) + " value(s) but " + size_reason);
    std::vector<Expression> x;
    for (std::size_t i = 0; i < a.size(); ++i) x.push_back(expression(a[i], key + "[" + std::to_string(i) + "]"));
    return x;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};


// Names the expressions cannot use for coordinates or parameters: the time, constants and the
// functions the expressions may call (docs/model-files.md).
const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names = {
      "t",    "pi",    "Pi",   "sin",  "cos",   "tan",   "asin", "acos", "atan", "atan2", "sinh",
      "cosh", "tanh",  "asinh", "acosh", "atanh", "exp",  "log",  "sqrt", "abs",  "pow"};
  return names;
}

std::string list_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& x : names) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// [[bodies]], `gravity` and [[contacts]] into spec (the algebra is symbolic.cpp's); `claim`
/// reserves a body's name among the file's symbols.
template <class Claim>
void read_bodies(const toml::table& root, const Reader& r, ModelSpec& spec, const Claim& claim) {
  const auto tables = [&](const char* key, const char* example) {
    std::vector<const toml::table*> out;
    const auto* node = root.get(key);
    if (!node) return out;
    if (!node->is_array_of_tables())
      r.fail(line_of(*node), std::string(key) + " must be an array of tables, e.g. " + example);
    for (const auto& t : *node->as_array()) out.push_back(t.as_table());
    return out;
  };
  const auto only_keys = [&](const toml::table& t, const std::string& what, const std::vector<std::string>& known) {
    for (auto&& [k, v] : t)
      if (std::find(known.begin(), known.end(), k.str()) == known.end())
        r.fail(line_of(v), what + ": unknown key '" + std::string(k.str()) + "' (known: " + list_names(known) + ")");
  };
  const auto required = [&](const toml::table& t, long line, const std::string& what, const char* key) {
    const auto* node = t.get(key);
    if (!node) r.fail(line, what + " has no '" + key + "'");
    return node;
  };
  for (const auto* t : tables("bodies", "[[bodies]] name = \"disk\" ...")) {
    BodySpec b;
    b.line = line_of(*t);
    const std::string what = "body " + std::to_string(spec.bodies.size() + 1);
    only_keys(*t, what,
              {"name", "mass", "inertia", "position", "euler", "quaternion", "parent", "hinge", "slider", "ball"});
    b.name = r.string(*required(*t, b.line, what, "name"), what + ".name");
    claim(b.name, b.line, "body");
    const std::string key = "bodies." + b.name;
    b.mass = r.expression(*required(*t, b.line, what, "mass"), key + ".mass");
    const auto* inertia = required(*t, b.line, what, "inertia");
    const bool tensor = inertia->is_array() && inertia->as_array()->size() == 6;
    b.inertia = r.expressions(*inertia, key + ".inertia", tensor ? 6 : 3,
                              "a body's inertia about its mass centre is three principal moments [I1, I2, I3] "
                              "or the six entries [I11, I22, I33, I12, I13, I23] of its tensor on the body axes");
    const auto* euler = t->get("euler");
    const auto* quaternion = t->get("quaternion");
    // its orientation: in the ground's axes, or from its parent's through a ball joint
    const auto read_orientation = [&](const char* relative) {
      if (!euler == !quaternion)
        r.fail(b.line, what + ": give its orientation" + relative + ", euler = [phi, theta, psi] (z-x-z angles) or "
                              "quaternion = [w, x, y, z]");
      if (euler)
        b.euler =
            r.expressions(*euler, key + ".euler", 3, "the orientation is three z-x-z Euler angles (phi, theta, psi)");
      if (quaternion) {
        b.quaternion =
            r.expressions(*quaternion, key + ".quaternion", 4, "a quaternion has four components (w, x, y, z)");
        // its norm is 1: a holonomic constraint, which the initial position must satisfy
        std::string norm;
        for (const auto& e : b.quaternion) norm += "(" + e.text + ")^2 + ";
        spec.holonomic.push_back({norm + "-1", line_of(*quaternion), key + ".quaternion (its norm)"});
        if (spec.holonomic_line == 0) spec.holonomic_line = line_of(*quaternion);
      }
    };
    using Kind = BodySpec::Joint::Kind;
    const std::pair<const char*, Kind> kinds[] = {
        {"hinge", Kind::hinge}, {"slider", Kind::slider}, {"ball", Kind::ball}};
    const toml::node* joint = nullptr;
    for (const auto& [name, kind] : kinds) {
      const auto* node = t->get(name);
      if (!node) continue;
      if (joint) r.fail(line_of(*node), what + ": a body has one joint to its parent, a hinge, a slider or a ball");
      joint = node;
      b.joint.kind = kind;
    }
    if (const auto* parent = t->get("parent")) {
      b.parent = r.string(*parent, key + ".parent");
      if (std::none_of(spec.bodies.begin(), spec.bodies.end(), [&](const BodySpec& a) { return a.name == b.parent; }))
        r.fail(line_of(*parent), what + ": no body named '" + b.parent + "' above it among [[bodies]] (a parent comes "
                                        "before the bodies joined to it)");
      if (!joint)
        r.fail(b.line, what + " (joined to '" + b.parent + "') has no joint: hinge = { axis, angle, at, centre }, "
                                                           "slider = { axis, distance, at, centre } or ball = { at, "
                                                           "centre }");
      const bool ball = b.joint.kind == Kind::ball;
      for (const auto* placed : {t->get("position"), ball ? nullptr : euler, ball ? nullptr : quaternion})
        if (placed)
          r.fail(line_of(*placed), what + (ball ? ": a body on a ball joint is placed by its joint, not by position "
                                                  "(euler or quaternion turn it from its parent's axes)"
                                                : ": a body joined to a parent is placed by its joint, not by "
                                                  "position, euler or quaternion"));
      const char* kind = ball ? "ball" : b.joint.kind == Kind::slider ? "slider" : "hinge";
      const char* coordinate = ball ? nullptr : b.joint.kind == Kind::slider ? "distance" : "angle";
      const auto* table = joint->as_table();
      const std::string in_joint = key + "." + kind;
      if (!table)
        r.fail(line_of(*joint), in_joint + " must be a table, " + kind + " = { " +
                                    (ball ? std::string()
                                          : std::string("axis = [0, 0, 1], ") + coordinate +
                                                (b.joint.kind == Kind::slider ? " = \"s\", " : " = \"delta\", ")) +
                                    "at = [0, 0, 0], centre = [0, 0, 0] }");
      if (ball) {
        only_keys(*table, in_joint, {"at", "centre"});
        read_orientation(" from its parent's axes");
      } else {
        only_keys(*table, in_joint, {"axis", coordinate, "at", "centre"});
        b.joint.axis =
            r.expressions(*required(*table, line_of(*joint), in_joint, "axis"), in_joint + ".axis", 3,
                          std::string("the ") + kind + "'s axis has three components in the parent's body axes");
        b.joint.coordinate =
            r.expression(*required(*table, line_of(*joint), in_joint, coordinate), in_joint + "." + coordinate);
      }
      const auto point = [&](const char* name, const char* where) {
        if (const auto* node = table->get(name))
          return r.expressions(*node, in_joint + "." + name, 3,
                               std::string("the point has three components in ") + where);
        return std::vector<Expression>(3, Expression{"0", line_of(*joint), in_joint + "." + name});
      };
      b.joint.at = point("at", "the parent's body axes, from its joint's point (or mass centre)");
      b.joint.centre = point("centre", "the body's own axes, from the joint's point");
      spec.bodies.push_back(std::move(b));
      continue;
    }
    if (joint)
      r.fail(line_of(*joint), what + ": a joint joins the body to its parent, and it has none (parent = \"NAME\")");
    b.position = r.expressions(*required(*t, b.line, what, "position"), key + ".position", 3,
                               "the mass centre's position has three components (x, y, z; z up)");
    read_orientation("");
    spec.bodies.push_back(std::move(b));
  }
  if (const auto* g = root.get("gravity")) {
    if (spec.bodies.empty()) r.fail(line_of(*g), "gravity acts on [[bodies]], and the file has none");
    spec.gravity = r.expression(*g, "gravity");
  }
  for (const auto* t : tables("contacts", "[[contacts]] body = \"disk\", rim = \"r\", axis = 3")) {
    ContactSpec c;
    c.line = line_of(*t);
    const std::string what = "contact " + std::to_string(spec.contacts.size() + 1);
    only_keys(*t, what, {"body", "sphere", "rim", "axis", "holonomic"});
    c.body = r.string(*required(*t, c.line, what, "body"), what + ".body");
    if (std::none_of(spec.bodies.begin(), spec.bodies.end(), [&](const BodySpec& b) { return b.name == c.body; }))
      r.fail(c.line, what + ": no body named '" + c.body + "' among [[bodies]]");
    const auto* sphere = t->get("sphere");
    const auto* rim = t->get("rim");
    if (!sphere == !rim)
      r.fail(c.line, what + ": give the shape that touches the plane, sphere = \"radius\" or rim = \"radius\"");
    c.shape = sphere ? ContactSpec::Shape::sphere : ContactSpec::Shape::rim;
    c.radius = r.expression(sphere ? *sphere : *rim, "contacts." + c.body + (sphere ? ".sphere" : ".rim"));
    if (const auto* axis = t->get("axis")) {
      if (!rim) r.fail(line_of(*axis), what + ": axis is the axle of a rim; a sphere has none");
      const auto value = axis->template value<std::int64_t>();
      if (!axis->is_integer() || !value || *value < 1 || *value > 3)
        r.fail(line_of(*axis), what + ": axis must be 1, 2 or 3 (the body axis the rim turns about)");
      c.axis = static_cast<int>(*value);
    }
    if (const auto* holonomic = t->get("holonomic")) {
      const auto value = holonomic->template value<bool>();
      if (!holonomic->is_boolean())
        r.fail(line_of(*holonomic), what + ": holonomic is true (the contact's height is a holonomic constraint) or "
                                           "false");
      if (*value) {  // its φ comes from the bodies' algebra, not from this text
        c.holonomic = static_cast<int>(spec.holonomic.size());
        spec.holonomic.push_back({"the height of the contact point", line_of(*holonomic),
                                  "contacts." + c.body + " (its height)"});
        if (spec.holonomic_line == 0) spec.holonomic_line = line_of(*holonomic);
      }
    }
    spec.contacts.push_back(std::move(c));
  }
  const char* loop_example = "[[loops]] points = [{ body = \"coupler\", at = [\"d\", 0, 0] }, { body = \"rocker\", "
                             "at = [0, 0, \"-l\"] }], axes = [1, 3]";
  for (const auto* t : tables("loops", loop_example)) {
    LoopSpec loop;
    loop.line = line_of(*t);
    const std::string what = "loop " + std::to_string(spec.loops.size() + 1);
    const std::string key = "loops." + std::to_string(spec.loops.size() + 1);
    only_keys(*t, what, {"points", "axes"});
    const auto* points = required(*t, loop.line, what, "points");
    const std::string two_points = what + ": points are the two points that the loop holds together, [{ body = "
                                          "\"NAME\", at = [x, y, z] }, { body = \"NAME\", at = [x, y, z] }] (a point "
                                          "without a body is the ground's)";
    const auto* list = points->as_array();
    if (!list || list->size() != 2) r.fail(line_of(*points), two_points);
    for (std::size_t k = 0; k < 2; ++k) {
      const auto* point = (*list)[k].as_table();
      if (!point) r.fail(line_of((*list)[k]), two_points);
      const std::string where = key + ".points[" + std::to_string(k) + "]";
      only_keys(*point, where, {"body", "at"});
      LoopSpec::Point& p = loop.points[k];
      if (const auto* body = point->get("body")) {
        p.body = r.string(*body, where + ".body");
        if (std::none_of(spec.bodies.begin(), spec.bodies.end(), [&](const BodySpec& b) { return b.name == p.body; }))
          r.fail(line_of(*body), what + ": no body named '" + p.body + "' among [[bodies]]");
      }
      p.at = r.expressions(*required(*point, line_of((*list)[k]), where, "at"), where + ".at", 3,
                           "the point has three components, in its body's axes from the body's origin (its joint's "
                           "point, or its mass centre) or in the ground's");
    }
    if (loop.points[0].body.empty() && loop.points[1].body.empty())
      r.fail(line_of(*points), what + ": both points are the ground's; a loop holds a point of a body");
    loop.axes = {0, 1, 2};
    if (const auto* axes = t->get("axes")) {
      const std::string along = what + ": axes are the ground's axes along which the points coincide, distinct "
                                       "numbers among 1, 2 and 3 (x, y, z), e.g. axes = [1, 3]";
      const auto* numbers = axes->as_array();
      if (!numbers || numbers->empty() || numbers->size() > 3) r.fail(line_of(*axes), along);
      loop.axes.clear();
      for (const auto& a : *numbers) {
        const auto value = a.template value<std::int64_t>();
        if (!a.is_integer() || !value || *value < 1 || *value > 3 ||
            std::find(loop.axes.begin(), loop.axes.end(), *value - 1) != loop.axes.end())
          r.fail(line_of(a), along);
        loop.axes.push_back(static_cast<int>(*value - 1));
      }
    }
    // its φ comes from the bodies' algebra, not from a text
    loop.first_holonomic = static_cast<int>(spec.holonomic.size());
    for (const int a : loop.axes) {
      const std::string axis(1, "xyz"[a]);
      spec.holonomic.push_back({"the distance of the loop's points along " + axis, loop.line,
                                key + " (along " + axis + ")"});
    }
    if (spec.holonomic_line == 0) spec.holonomic_line = loop.line;
    spec.loops.push_back(std::move(loop));
  }
}

}  // namespace

ModelSpec parse_spec(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw BadInput("model file '" + path + "' not found");
  if (std::filesystem::file_size(path, error) > kLargestModelFile)
    throw BadInput("model file '" + path + "' is larger than the limit of 1 MiB");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw BadInput("model file '" + path + "' cannot be read");
  return parse_spec_text(text.str(), path);
}

ModelSpec parse_spec_text(const std::string& text, const std::string& path) {
  if (text.size() > kLargestModelFile) throw BadInput("model " + path + " is larger than the limit of 1 MiB");
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    throw ModelFileError(path, static_cast<long>(e.source().begin.line),
                         "TOML syntax error (column " + std::to_string(e.source().begin.column) + "): " +
                             std::string(e.description()));
  }
  const Reader r(path);
  ModelSpec spec;
  spec.path = path;
  spec.text = text;

  static const std::vector<std::string> known_keys = {"name",       "summary",     "coordinates", "parameters",
                                                      "lagrangian", "metric",      "potential",   "constraints",
                                                      "holonomic",  "force",       "action",      "initial",
                                                      "solution",   "derived",     "inputs",      "definitions",
                                                      "bodies",     "gravity",     "contacts",    "loops"};
  for (auto&& [key, node] : root) {
    if (std::find(known_keys.begin(), known_keys.end(), key.str()) == known_keys.end())
      r.fail(line_of(node), "unknown key '" + std::string(key.str()) + "' (known: " + list_names(known_keys) + ")");
  }

  const auto* name = root.get("name");
  if (!name) r.fail(1, "the model file has no 'name' (e.g. name = \"my system\")");
  spec.name = r.text(*name, "name");
  if (const auto* s = root.get("summary")) spec.summary = r.text(*s, "summary");

  // Coordinates: distinct identifiers whose velocity names collide with nothing.
  const auto* coords = root.get("coordinates");
  if (!coords) r.fail(1, "the model file has no 'coordinates' (e.g. coordinates = [\"x\", \"y\"])");
  spec.coordinates_line = line_of(*coords);
  std::set<std::string> taken;
  const auto claim = [&](const std::string& symbol, long line, const std::string& what) {
    if (!is_identifier(symbol))
      r.fail(line, what + " '" + symbol + "' is not a name (letters, digits and _, starting with a letter)");
    if (reserved_names().count(symbol))
      r.fail(line, what + " '" + symbol + "' is reserved (time, constants and functions: " +
                       list_names({reserved_names().begin(), reserved_names().end()}) + ")");
    if (!taken.insert(symbol).second) r.fail(line, what + " '" + symbol + "' is defined twice");
  };
  for (const auto& c : r.array(*coords, "coordinates", "[\"x\", \"y\", \"phi\"]")) {
    spec.coordinates.push_back(r.string(c, "coordinates"));
    claim(spec.coordinates.back(), line_of(c), "coordinate");
  }
  if (spec.coordinates.empty()) r.fail(spec.coordinates_line, "coordinates must not be empty");
  if (spec.coordinates.size() > static_cast<std::size_t>(kMostCoordinates))
    r.fail(spec.coordinates_line, "the model has " + std::to_string(spec.coordinates.size()) +
                                      " coordinates, more than the limit of " + std::to_string(kMostCoordinates));
  for (const auto& c : spec.coordinates) claim(velocity_name(c), spec.coordinates_line, "velocity of coordinate " + c + ",");
  const int n = spec.n();

  // Parameters: name = value, or name = { value = ..., description = "..." }.
  if (const auto* params = root.get("parameters")) {
    if (!params->is_table()) r.fail(line_of(*params), "parameters must be a table, e.g. parameters = { g = 9.81 }");
    for (auto&& [key, node] : *params->as_table()) {
      ParameterSpec p;
      p.name = std::string(key.str());
      p.line = static_cast<long>(key.source().begin.line ? key.source().begin.line : node.source().begin.line);
      p.column = static_cast<long>(key.source().begin.line ? key.source().begin.column : node.source().begin.column);
      claim(p.name, p.line, "parameter");
      if (node.is_table()) {
        const auto& t = *node.as_table();
        for (auto&& [k, v] : t)
          if (k.str() != "value" && k.str() != "description")
            r.fail(line_of(v), "parameter " + p.name + ": unknown key '" + std::string(k.str()) +
                                   "' (known: value, description)");
        const auto* value = t.get("value");
        if (!value) r.fail(p.line, "parameter " + p.name + " has no value");
        p.value = r.number(*value, "parameter " + p.name);
        if (const auto* d = t.get("description")) p.description = r.text(*d, "description of " + p.name);
      } else {
        p.value = r.number(node, "parameter " + p.name);
      }
      spec.parameters.push_back(p);
    }
    // toml++ keeps tables sorted by key; present the parameters in the order of the file.
    std::sort(spec.parameters.begin(), spec.parameters.end(), [](const ParameterSpec& a, const ParameterSpec& b) {
      return std::pair(a.line, a.column) < std::pair(b.line, b.column);
    });
  }
  // The action variable of a contact system: a name like the others.
  if (const auto* action = root.get("action")) {
    spec.action_line = line_of(*action);
    spec.action = r.string(*action, "action");
    claim(*spec.action, spec.action_line, "action variable");
  }
  for (const auto& c : spec.coordinates)
    for (const auto& p : spec.parameters)
      if (initial_name(c) == p.name || initial_name(velocity_name(c)) == p.name)
        r.fail(p.line, "parameter '" + p.name + "' is the name of an initial value in closed-form solutions");

  // Inputs: names like the parameters', after them; value 0 unless a run gives one (--param).
  if (const auto* inputs = root.get("inputs")) {
    spec.inputs_line = line_of(*inputs);
    for (const auto& node : r.array(*inputs, "inputs", "[\"tau\"]")) {
      ParameterSpec u{r.string(node, "inputs"), 0.0, "input: enters the force, 0 unless given", line_of(node), 0};
      claim(u.name, u.line, "input");
      for (const auto& c : spec.coordinates)
        if (initial_name(c) == u.name || initial_name(velocity_name(c)) == u.name)
          r.fail(u.line, "input '" + u.name + "' is the name of an initial value in closed-form solutions");
      spec.parameters.push_back(u);
      ++spec.input_count;
    }
  }

  // Definitions: named expressions, written out wherever a later expression names them
  // (symbolic.cpp); names like the parameters', in the order of the file.
  if (const auto* definitions = root.get("definitions")) {
    if (!definitions->is_table())
      r.fail(line_of(*definitions), "definitions must be a table of name = \"expression\", e.g. [definitions] "
                                    "speed = \"x_t*cos(phi) + y_t*sin(phi)\"");
    for (auto&& [key, node] : *definitions->as_table()) {
      const std::string name(key.str());
      const long line = key.source().begin.line ? static_cast<long>(key.source().begin.line) : line_of(node);
      claim(name, line, "definition");
      for (const auto& c : spec.coordinates)
        if (initial_name(c) == name || initial_name(velocity_name(c)) == name)
          r.fail(line, "definition '" + name + "' is the name of an initial value in closed-form solutions");
      spec.definitions.push_back(
          {name, r.expression(node, "definitions." + name), static_cast<long>(node.source().begin.column)});
    }
    std::sort(spec.definitions.begin(), spec.definitions.end(), [](const DefinitionSpec& a, const DefinitionSpec& b) {
      return std::pair(a.expression.line, a.column) < std::pair(b.expression.line, b.column);
    });
  }

  // Rigid bodies and their rolling contacts (docs/model-files.md, *Rigid bodies and contacts*).
  read_bodies(root, r, spec, claim);

  // The Lagrangian: an expression, or a metric (with an optional potential), or the bodies'.
  const auto* lagrangian = root.get("lagrangian");
  const auto* metric = root.get("metric");
  if (lagrangian && metric) r.fail(line_of(*metric), "give either 'lagrangian' or 'metric', not both");
  if (!spec.bodies.empty() && (lagrangian || metric || root.get("potential")))
    r.fail(line_of(lagrangian ? *lagrangian : metric ? *metric : *root.get("potential")),
           "a model with [[bodies]] has their kinetic and gravitational energy as its Lagrangian: give no "
           "'lagrangian', 'metric' or 'potential' (a force goes in 'force')");
  if (!lagrangian && !metric && spec.bodies.empty())
    r.fail(1, "the model file has neither 'lagrangian' nor 'metric' (e.g. lagrangian = \"0.5*x_t^2 - x^2\") nor "
              "[[bodies]]");
  if (lagrangian) spec.lagrangian = r.expression(*lagrangian, "lagrangian");
  if (metric) {
    spec.metric_line = line_of(*metric);
    const auto& rows = r.array(*metric, "metric", "[[\"m\", 0], [0, \"m\"]] or [\"m\", \"m\"] (diagonal)");
    if (static_cast<int>(rows.size()) != n)
      r.fail(spec.metric_line, "metric has " + std::to_string(rows.size()) + " rows but the system has " +
                                   std::to_string(n) + " coordinates");
    spec.metric_is_diagonal = !rows[0].is_array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string key = "metric[" + std::to_string(i) + "]";
      if (spec.metric_is_diagonal) {
        if (rows[i].is_array()) r.fail(line_of(rows[i]), "metric mixes a diagonal (numbers) with rows (arrays)");
        spec.metric.push_back({r.expression(rows[i], key)});
        continue;
      }
      const auto& row = r.array(rows[i], key, "[\"m\", 0]");
      if (static_cast<int>(row.size()) != n)
        r.fail(line_of(rows[i]), key + " has " + std::to_string(row.size()) + " entries but the system has " +
                                     std::to_string(n) + " coordinates");
      spec.metric.emplace_back();
      for (std::size_t j = 0; j < row.size(); ++j)
        spec.metric.back().push_back(r.expression(row[j], key + "[" + std::to_string(j) + "]"));
    }
  }
  if (const auto* potential = root.get("potential")) spec.potential = r.expression(*potential, "potential");

  if (const auto* constraints = root.get("constraints")) {
    spec.constraints_line = line_of(*constraints);
    const auto& a = r.array(*constraints, "constraints", "[\"sin(phi)*x_t - cos(phi)*y_t\"]");
    for (std::size_t i = 0; i < a.size(); ++i)
      spec.constraints.push_back(r.expression(a[i], "constraints[" + std::to_string(i) + "]"));
  }
  if (const auto* holonomic = root.get("holonomic")) {
    spec.holonomic_line = line_of(*holonomic);
    const auto& a = r.array(*holonomic, "holonomic", "[\"x^2 + y^2 - l^2\"]");
    for (std::size_t i = 0; i < a.size(); ++i)
      spec.holonomic.push_back(r.expression(a[i], "holonomic[" + std::to_string(i) + "]"));
  }
  if (spec.m() >= n) {
    const std::string counted = spec.holonomic.empty()  ? " constraints"
                                : spec.constraints.empty() ? " holonomic constraints"
                                                           : " constraints and holonomic constraints";
    r.fail(!spec.holonomic.empty()   ? spec.holonomic_line
           : !spec.constraints.empty() ? spec.constraints_line
                                       : spec.contacts.back().line,
           std::to_string(spec.m()) + counted + " for " + std::to_string(n) +
               " coordinates leave no motion (need fewer constraints than coordinates)");
  }

  if (const auto* force = root.get("force")) {
    spec.force_line = line_of(*force);
    spec.force = r.expressions(*force, "force", n,
                               "the system has " + std::to_string(n) + " coordinates (" + list_names(spec.coordinates) +
                                   "): one component of the force per coordinate");
  }
  if (spec.input_count > 0 && spec.force.empty())
    r.fail(spec.inputs_line, "inputs enter the force, but the model file has no 'force' (e.g. force = [0, \"tau\"])");

  spec.initial_q.assign(n, Expression{"0", 0, "initial.q"});
  spec.initial_v.assign(n, Expression{"0", 0, "initial.v"});
  if (const auto* initial = root.get("initial")) {
    if (!initial->is_table()) r.fail(line_of(*initial), "initial must be a table with q and v");
    const auto& t = *initial->as_table();
    for (auto&& [k, v] : t)
      if (k.str() != "q" && k.str() != "v" && (k.str() != "z" || !spec.action))
        r.fail(line_of(v), "initial: unknown key '" + std::string(k.str()) + "' (known: q, v" +
                               (spec.action ? ", z" : "; z only with an action variable, action = \"z\"") + ")");
    if (const auto* z = t.get("z"); z && spec.action) spec.initial_z = r.expression(*z, "initial.z");
    const std::string reason = "the system has " + std::to_string(n) + " coordinates (" + list_names(spec.coordinates) + ")";
    if (const auto* q = t.get("q")) {
      spec.initial_q = r.expressions(*q, "initial.q", n, reason);
      spec.q0_line = line_of(*q);
    }
    if (const auto* v = t.get("v")) {
      spec.initial_v = r.expressions(*v, "initial.v", n, reason);
      spec.v0_line = line_of(*v);
    }
    if (!spec.q0_line) spec.q0_line = line_of(*initial);
    if (!spec.v0_line) spec.v0_line = line_of(*initial);
  }

  if (const auto* solution = root.get("solution")) {
    if (!solution->is_table()) r.fail(line_of(*solution), "solution must be a table with q = [...]");
    const auto& t = *solution->as_table();
    for (auto&& [k, v] : t)
      if (k.str() != "q" && k.str() != "valid_when_zero")
        r.fail(line_of(v), "solution: unknown key '" + std::string(k.str()) + "' (known: q, valid_when_zero)");
    const auto* q = t.get("q");
    if (!q) r.fail(line_of(*solution), "solution has no q = [...] (one expression per coordinate)");
    spec.solution_line = line_of(*q);
    const auto& a = r.array(*q, "solution.q", "[\"x_0 + x_t_0*t\"]");
    if (static_cast<int>(a.size()) != n)
      r.fail(spec.solution_line, "solution.q has " + std::to_string(a.size()) + " expression(s) but the system has " +
                                     std::to_string(n) + " coordinates");
    for (std::size_t i = 0; i < a.size(); ++i)
      spec.solution.push_back(r.expression(a[i], "solution.q[" + std::to_string(i) + "]"));
    if (const auto* conditions = t.get("valid_when_zero")) {
      const auto& c = r.array(*conditions, "solution.valid_when_zero", "[\"k\"]");
      for (std::size_t i = 0; i < c.size(); ++i)
        spec.solution_conditions.push_back(r.expression(c[i], "solution.valid_when_zero[" + std::to_string(i) + "]"));
    }
  }

  if (const auto* derived = root.get("derived")) {
    if (!derived->is_table()) r.fail(line_of(*derived), "derived must be a table of name = \"expression\"");
    static const std::set<std::string> columns = {"t", "energy", "constraint", "discrete_constraint", "newton_iterations"};
    for (auto&& [key, node] : *derived->as_table()) {
      const std::string name(key.str());
      if (!is_column_name(name))
        r.fail(line_of(node), "derived quantity '" + name + "' is not a column name (letters, digits and _, not "
                              "starting with a digit)");
      if (columns.count(name) || taken.count(name))
        r.fail(line_of(node), "derived quantity '" + name + "' has the name of a column or symbol");
      spec.derived.push_back({name, r.expression(node, "derived." + name), static_cast<long>(node.source().begin.column)});
    }
    std::sort(spec.derived.begin(), spec.derived.end(), [](const DerivedSpec& a, const DerivedSpec& b) {
      return std::pair(a.expression.line, a.column) < std::pair(b.expression.line, b.column);
    });
  }
  // The value of each holonomic constraint, a column after the file's derived quantities: how far
  // the positions have left φ(q) = 0, which the velocity form keeps only to the method's order.
  for (std::size_t b = 0; b < spec.holonomic.size(); ++b) {
    const std::string name = "holonomic_" + std::to_string(b);
    if (taken.count(name) || std::any_of(spec.derived.begin(), spec.derived.end(),
                                         [&](const DerivedSpec& d) { return d.name == name; }))
      r.fail(spec.holonomic_line, "the column '" + name + "' of holonomic[" + std::to_string(b) +
                                      "] has the name of a symbol or a derived quantity");
    spec.derived.push_back({name, spec.holonomic[b], 0, static_cast<int>(b)});
  }

  // What a contact system cannot have yet.
  if (spec.action) {
    const auto refuse = [&](long line, const std::string& what) {
      r.fail(line, what + " with an action variable (action = \"" + *spec.action + "\") is not supported yet");
    };
    if (!spec.bodies.empty()) refuse(spec.bodies.front().line, "[[bodies]]");
    if (!spec.lagrangian) refuse(spec.action_line, "a metric instead of a lagrangian");
    if (!spec.force.empty()) refuse(spec.force_line, "an external force");
    if (spec.input_count > 0) refuse(spec.inputs_line, "inputs");
    if (!spec.solution.empty()) refuse(spec.solution_line, "a closed form [solution]");
    if (!spec.holonomic.empty()) refuse(spec.holonomic_line, "holonomic constraints");
    if (!spec.derived.empty()) refuse(spec.derived.front().expression.line, "[derived] quantities");
  }
  return spec;
}

}  // namespace dalembert::modelfile
