#pragma once
// The contents of a model file (docs/model-files.md) as read from TOML, before any algebra: names,
// expressions as text and numbers, each with the line it came from so that every later error can
// point at it. parse_spec() checks the shape of the file (keys, types, sizes, names); the
// expressions themselves are checked by the symbolic layer (symbolic.hpp).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "dalembert/io/errors.hpp"

namespace dalembert::modelfile {

/// A mistake in a model file: "FILE:LINE: message". Bad input (exit status 2).
class ModelFileError : public BadInput {
 public:
  ModelFileError(const std::string& file, long line, const std::string& message)
      : BadInput(file + ":" + std::to_string(line) + ": " + message) {}
};

/// An expression as written, where it was written and under which key ("constraints[1]").
struct Expression {
  std::string text;
  long line = 0;
  std::string key;
};

struct ParameterSpec {
  std::string name;
  double value = 0.0;
  std::string description;
  long line = 0;
  long column = 0;  ///< for the order of the file (TOML tables are not ordered)
};

struct DerivedSpec {
  std::string name;
  Expression expression;
  long column = 0;
  /// The index of the holonomic constraint whose value this column shows (holonomic_<b>), or −1
  /// for a quantity of the file's [derived].
  int holonomic = -1;
};

/// A named expression of [definitions]: written out, in parentheses, wherever a later expression
/// names it (a definition may use those above it in the file).
struct DefinitionSpec {
  std::string name;
  Expression expression;
  long column = 0;
};

/// A rigid body of [[bodies]]: its mass, inertia about its mass centre (principal moments, or the
/// tensor's entries on the body axes), the
/// mass centre's position in the ground frame (z up) and its orientation, R = Rz(φ) Rx(θ) Rz(ψ) of
/// the z-x-z Euler angles (φ, θ, ψ) or R of a unit quaternion (w, x, y, z) whose norm is then a
/// holonomic constraint, all in the coordinates and parameters. The symbolic layer derives its
/// kinetic energy ½ m |ṗ|² + ½ Ωᵀ I Ω, Ω the body angular velocity, and with `gravity` its
/// potential m g p_z.
struct BodySpec {
  std::string name;
  long line = 0;
  Expression mass;
  std::vector<Expression> inertia;     ///< 3: I1, I2, I3; or 6: I11, I22, I33, I12, I13, I23
  std::vector<Expression> position;    ///< 3
  std::vector<Expression> euler;       ///< 3: φ, θ, ψ; or empty
  std::vector<Expression> quaternion;  ///< 4: w, x, y, z; or empty
  /// Or joined to an earlier body, `parent`, by a hinge, turned by `angle` about `axis` (the
  /// parent's body axes, whose orientation the body has at angle 0) at the point `at` of the parent
  /// (in its axes, from its origin: its own joint's point, or its mass centre if it is placed by
  /// `position`), its own mass centre at `centre` from that point (its own axes); or by a slider,
  /// with the parent's orientation, its joint's point moved by `distance` along `axis` from `at`;
  /// or by a ball joint at `at`, turned from the parent's axes by its own `euler` or `quaternion`.
  std::string parent;
  struct Joint {
    enum class Kind { hinge, slider, ball };
    Kind kind = Kind::hinge;
    std::vector<Expression> axis, at, centre;  ///< 3 each (a ball joint has no axis), parameters only
    Expression coordinate;                     ///< a hinge's angle or a slider's distance, in q and parameters
  } joint;
};

/// A loop of [[loops]]: a point of one body held at a point of another body or of the ground, along
/// some of the ground's axes. It closes a loop of joints (a four-bar linkage), as one holonomic
/// constraint per axis, the difference of the two points' positions along it.
struct LoopSpec {
  long line = 0;
  struct Point {
    std::string body;             ///< empty: a point of the ground
    std::vector<Expression> at;   ///< 3, parameters only: in the body's axes from its origin, or the ground's
  };
  std::array<Point, 2> points;
  std::vector<int> axes;          ///< 0, 1, 2 for x, y, z
  int first_holonomic = 0;        ///< the index in ModelSpec::holonomic of the constraint along axes[0]
};

/// A contact of [[contacts]]: the body rolls without slipping on the ground plane z = 0, touching
/// it with a sphere of radius `radius` about its mass centre, or with the rim of a disk of that
/// radius about its mass centre, perpendicular to the body axis `axis` (1, 2 or 3). Two velocity
/// constraints: the material point at the contact has no horizontal velocity. The contact point's
/// height is 0 at every configuration, or with `holonomic = true` a holonomic constraint (a wheel
/// whose pitch follows from other coordinates, the bicycle's front wheel).
struct ContactSpec {
  enum class Shape { sphere, rim };
  std::string body;
  long line = 0;
  Shape shape = Shape::sphere;
  Expression radius;
  int axis = 3;
  int holonomic = -1;  ///< the index in ModelSpec::holonomic of the constraint on its height, or −1
};

struct ModelSpec {
  std::string path;
  std::string text;  ///< the file as read (for the provenance of a run)
  std::string name;
  std::string summary;
  std::vector<std::string> coordinates;
  long coordinates_line = 0;
  /// The parameters, then the inputs: an input (`inputs = ["tau"]`) is a parameter of value 0 that
  /// only the force may use, linearly, and that a stepper sets before each step (docs/control.md).
  std::vector<ParameterSpec> parameters;
  int input_count = 0;  ///< the last input_count entries of `parameters`
  long inputs_line = 0;
  std::optional<Expression> lagrangian;
  std::optional<Expression> potential;
  std::vector<std::vector<Expression>> metric;  ///< n×n, or n×1 for a diagonal metric
  bool metric_is_diagonal = false;
  long metric_line = 0;
  std::vector<Expression> constraints;
  long constraints_line = 0;
  /// Holonomic constraints φ_b(q) = 0, in the coordinates and parameters. They enter the equations
  /// in their velocity form dφ_b(q)·v = 0, as the rows of M(q) after the file's `constraints`.
  std::vector<Expression> holonomic;
  long holonomic_line = 0;
  std::vector<DefinitionSpec> definitions;  ///< in the order of the file
  /// Rigid bodies, whose kinetic and gravitational energy is the Lagrangian (instead of
  /// `lagrangian` or `metric`), and their rolling contacts, whose constraints come first among M's
  /// rows (2 per contact).
  std::vector<BodySpec> bodies;
  std::optional<Expression> gravity;
  std::vector<ContactSpec> contacts;
  std::vector<LoopSpec> loops;
  /// External force F(q, v), one expression per coordinate (empty: no force). It enters the
  /// Lagrange–d'Alembert principle as ∫ F·δq dt, so F is a covector in the coordinates' basis.
  std::vector<Expression> force;
  long force_line = 0;
  /// The action variable z of a contact (Herglotz) system, L(q, v, z) with ż = L (empty: not a
  /// contact system), and its default initial value.
  std::optional<std::string> action;
  long action_line = 0;
  Expression initial_z{"0", 0, "initial.z"};
  /// Default initial data, numbers or expressions in the parameters (zeros without [initial]);
  /// load() evaluates them at the file's parameter values into q0, v0.
  std::vector<Expression> initial_q, initial_v;
  std::vector<double> q0, v0;
  long q0_line = 0, v0_line = 0;
  std::vector<Expression> solution;  ///< closed form q(t) in t, initial data and parameters
  std::vector<Expression> solution_conditions;  ///< the closed form holds where these vanish
  long solution_line = 0;
  /// In the order of the file, then the value of each holonomic constraint (holonomic_<b>).
  std::vector<DerivedSpec> derived;

  int n() const { return static_cast<int>(coordinates.size()); }
  /// The rows of M(q): the contacts' (two each), the file's velocity constraints, then the
  /// holonomic constraints' velocity forms.
  int m() const { return static_cast<int>(2 * contacts.size() + constraints.size() + holonomic.size()); }
  int contact_rows() const { return static_cast<int>(2 * contacts.size()); }
  /// The rows of M(q) that are velocity constraints (the contacts' and the file's).
  int velocity_rows() const { return contact_rows() + static_cast<int>(constraints.size()); }
  /// The expression row a of M(q) comes from (a contact's: its radius).
  const Expression& constraint_source(int a) const {
    if (a < contact_rows()) return contacts[static_cast<std::size_t>(a / 2)].radius;
    if (a < velocity_rows()) return constraints[static_cast<std::size_t>(a - contact_rows())];
    return holonomic[static_cast<std::size_t>(a - velocity_rows())];
  }
  /// Where the inputs start among the parameters.
  int first_input() const { return static_cast<int>(parameters.size()) - input_count; }
};

/// Reads and checks the shape of a model file; throws ModelFileError (or BadInput if unreadable).
ModelSpec parse_spec(const std::string& path);
/// The same for a model given as TOML text; `path` names it in messages (the Python package's
/// dalembert.model passes `dalembert.model(name="...")`).
ModelSpec parse_spec_text(const std::string& text, const std::string& path);

/// The velocity symbol of a coordinate ("x" -> "x_t") and the initial-value symbols used by
/// closed-form solutions ("x" -> "x_0", "x_t_0").
inline std::string velocity_name(const std::string& coordinate) { return coordinate + "_t"; }
inline std::string initial_name(const std::string& symbol) { return symbol + "_0"; }

}  // namespace dalembert::modelfile
