"""dalembert.model(...): a model from strings or sympy expressions, written as the TOML text of a
model file (docs/model-files.md) and read by the same checks as a file.

Every value is encoded, never pasted: strings become TOML basic strings through json.dumps (whose
escapes are TOML's), names become quoted keys, numbers are written from float() with repr (exact,
round-trip). The model-file reader then checks names, expressions and sizes as for any file.
"""
import json
import math
import numbers


def _is_sympy(x):
    # by the class's module, without importing sympy; a dynamicsymbol's class is made at run time
    # (no module of its own), its bases are sympy's
    return any((c.__module__ or "").startswith("sympy") for c in type(x).__mro__)


def _sympy_text(expr):
    """A sympy expression in the model files' syntax: ^ for powers, abs, exp(1) for E."""
    from sympy.printing.str import StrPrinter

    class Printer(StrPrinter):
        def _print_Abs(self, e):
            return "abs(%s)" % self._print(e.args[0])

        def _print_Exp1(self, e):
            return "exp(1)"

        def _print_Pi(self, e):
            return "pi"

    return Printer({"order": "none"}).doprint(expr).replace("**", "^")


def _number(x, what):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError("%s must be a number, got %r" % (what, x))
    try:
        return repr(float(x))
    except OverflowError:  # an int beyond the doubles, 10**400: the model file reader names it
        return repr(math.inf)


def _is_function_of_time(x):
    """A dynamicsymbol of sympy.physics.mechanics, x(t)."""
    from sympy.core.function import AppliedUndef
    return isinstance(x, AppliedUndef) and len(x.args) == 1


def _dynamic_coordinates(coordinates):
    """The coordinates' names, and where some are dynamicsymbols x(t) (sympy.physics.mechanics) the
    map that writes x(t) as x and its time derivative as x_t in every expression (else None)."""
    if isinstance(coordinates, (str, bytes)) or not hasattr(coordinates, "__iter__"):
        return coordinates, None  # _names says what is wrong
    names, plain = [], {}
    for c in coordinates:
        if _is_sympy(c) and _is_function_of_time(c):
            import sympy
            plain[c.diff(c.args[0])] = sympy.Symbol(c.func.__name__ + "_t")
            plain[c] = sympy.Symbol(c.func.__name__)
            names.append(c.func.__name__)
        else:
            names.append(c)
    return names, plain or None


def _plain(x, plain, what):
    """A sympy expression in dynamicsymbols written in the symbols of the coordinates and velocities
    (derivatives first: x(t) replaced first would make d/dt x(t) the derivative of a constant)."""
    if not plain or not _is_sympy(x) or not hasattr(x, "xreplace"):
        return x
    import sympy
    left = ({d for d in x.atoms(sympy.Derivative) if d not in plain}
            | {f for f in x.atoms(sympy.Function) if _is_function_of_time(f) and f not in plain})
    if left:
        raise TypeError("%s: %s is not a coordinate or its velocity (the coordinates' dynamicsymbols and their "
                        "first derivatives in time may appear)" % (what, sorted(map(str, left))[0]))
    x = x.xreplace({d: s for d, s in plain.items() if isinstance(d, sympy.Derivative)})
    return x.xreplace({f: s for f, s in plain.items() if not isinstance(f, sympy.Derivative)})


def _expression(x, what, plain=None):
    """An expression: a number, a string, or a sympy expression (in dynamicsymbols of the
    coordinates where `plain` maps them)."""
    if isinstance(x, str):
        return json.dumps(x)
    x = _plain(x, plain, what)
    if _is_sympy(x):
        if getattr(x, "is_number", False) and x.is_real:
            return repr(float(x))
        return json.dumps(_sympy_text(x))
    return _number(x, what)


def _expressions(xs, what, plain=None):
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise TypeError("%s must be a list, got %r" % (what, xs))
    return "[" + ", ".join(_expression(x, "%s[%d]" % (what, i), plain) for i, x in enumerate(xs)) + "]"


def _names(xs, what):
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise TypeError("%s must be a list of names, got %r" % (what, xs))
    return "[" + ", ".join(json.dumps(str(x)) for x in xs) + "]"


def _key(name):
    return json.dumps(str(name))


def _parameter(value, name):
    """A parameter: a number, (number, description) or {"value": ..., "description": ...}."""
    if isinstance(value, dict):
        unknown = set(value) - {"value", "description"}
        if unknown or "value" not in value:
            raise TypeError("parameter %s: a dict needs 'value' (and may have 'description'), got %r" % (name, value))
        value, description = value["value"], value.get("description", "")
    elif isinstance(value, tuple):
        if len(value) != 2:
            raise TypeError("parameter %s: a tuple is (value, description), got %r" % (name, value))
        value, description = value
    else:
        description = None
    number = _expression(value, "parameter " + name)
    if description is None:
        return number
    return "{ value = %s, description = %s }" % (number, json.dumps(str(description)))


def model_text(*, coordinates, lagrangian=None, metric=None, potential=None, constraints=(), holonomic=(),
               parameters=None, force=None, action=None, q0=None, v0=None, z0=None, solution=None,
               valid_when_zero=None, derived=None, inputs=None, definitions=None, bodies=None, gravity=None,
               contacts=None, loops=None, name="model", summary=None):
    """The TOML text of a model file with these keys (docs/model-files.md)."""
    coordinates, plain = _dynamic_coordinates(coordinates)
    lines = ["name = " + json.dumps(str(name))]
    if summary is not None:
        lines.append("summary = " + json.dumps(str(summary)))
    lines.append("coordinates = " + _names(coordinates, "coordinates"))
    if lagrangian is not None:
        lines.append("lagrangian = " + _expression(lagrangian, "lagrangian", plain))
    if metric is not None:
        rows = list(metric)
        if rows and all(not isinstance(r, (str, bytes)) and hasattr(r, "__iter__") and not _is_sympy(r)
                        for r in rows):
            lines.append("metric = [" + ", ".join(_expressions(r, "metric[%d]" % i, plain)
                                                  for i, r in enumerate(rows)) + "]")
        else:
            lines.append("metric = " + _expressions(rows, "metric", plain))
    if potential is not None:
        lines.append("potential = " + _expression(potential, "potential", plain))
    constraints = list(constraints)
    if constraints:
        lines.append("constraints = " + _expressions(constraints, "constraints", plain))
    holonomic = list(holonomic)
    if holonomic:
        lines.append("holonomic = " + _expressions(holonomic, "holonomic", plain))
    if gravity is not None:
        lines.append("gravity = " + _expression(gravity, "gravity", plain))
    if force is not None:
        lines.append("force = " + _expressions(force, "force", plain))
    if inputs:
        lines.append("inputs = " + _names(inputs, "inputs"))
    if action is not None:
        lines.append("action = " + json.dumps(str(action)))
    if parameters:
        entries = ", ".join("%s = %s" % (_key(k), _parameter(v, str(k))) for k, v in dict(parameters).items())
        lines.append("parameters = { " + entries + " }")
    if q0 is not None or v0 is not None or z0 is not None:
        lines.append("[initial]")
        if q0 is not None:
            lines.append("q = " + _expressions(q0, "q0", plain))
        if v0 is not None:
            lines.append("v = " + _expressions(v0, "v0", plain))
        if z0 is not None:
            lines.append("z = " + _expression(z0, "z0", plain))
    if solution is not None:
        lines.append("[solution]")
        lines.append("q = " + _expressions(solution, "solution", plain))
        if valid_when_zero is not None:
            lines.append("valid_when_zero = " + _expressions(valid_when_zero, "valid_when_zero", plain))
    if derived:
        lines.append("[derived]")
        for k, v in dict(derived).items():
            lines.append("%s = %s" % (_key(k), _expression(v, "derived " + str(k), plain)))
    if definitions:
        lines.append("[definitions]")  # in the mapping's order, which the file keeps
        for k, v in dict(definitions).items():
            lines.append("%s = %s" % (_key(k), _expression(v, "definition " + str(k), plain)))
    for i, body in enumerate(bodies or ()):
        body = dict(body)
        what = "bodies[%d]" % i
        lines.append("[[bodies]]")
        lines.append("name = " + json.dumps(str(body.pop("name", ""))))
        if "mass" in body:
            lines.append("mass = " + _expression(body.pop("mass"), what + ".mass", plain))
        for key in ("inertia", "position", "euler", "quaternion"):
            if key in body:
                lines.append("%s = %s" % (key, _expressions(body.pop(key), what + "." + key, plain)))
        if "parent" in body:
            lines.append("parent = " + json.dumps(str(body.pop("parent"))))
        for kind, coordinate in (("hinge", "angle"), ("slider", "distance"), ("ball", None)):
            if isinstance(body.get(kind), dict):  # an inline table; anything else the reader names
                joint = dict(body.pop(kind))
                parts = []
                if coordinate is not None and coordinate in joint:
                    parts.append("%s = %s" % (coordinate, _expression(joint.pop(coordinate),
                                                                      "%s.%s.%s" % (what, kind, coordinate), plain)))
                for k, v in joint.items():
                    parts.append("%s = %s" % (_key(k), _expressions(v, "%s.%s.%s" % (what, kind, k), plain)))
                lines.append("%s = { %s }" % (kind, ", ".join(parts)))
        for key, value in body.items():  # unknown keys: the reader names them
            lines.append("%s = %s" % (_key(key), _expression(value, what + "." + str(key), plain)))
    for i, contact in enumerate(contacts or ()):
        contact = dict(contact)
        lines.append("[[contacts]]")
        lines.append("body = " + json.dumps(str(contact.pop("body", ""))))
        if "axis" in contact:
            lines.append("axis = %d" % int(contact.pop("axis")))
        for key, value in contact.items():
            lines.append("%s = %s" % (_key(key), _expression(value, "contacts[%d].%s" % (i, key), plain)))
    for i, loop in enumerate(loops or ()):
        loop = dict(loop)
        what = "loops[%d]" % i
        lines.append("[[loops]]")
        points = []
        for k, point in enumerate(loop.pop("points", ())):
            point = dict(point)
            parts = ["body = " + json.dumps(str(point.pop("body")))] if "body" in point else []
            for key, value in point.items():
                parts.append("%s = %s" % (_key(key), _expressions(value, "%s.points[%d].%s" % (what, k, key), plain)))
            points.append("{ " + ", ".join(parts) + " }")
        lines.append("points = [" + ", ".join(points) + "]")
        if "axes" in loop:
            lines.append("axes = [" + ", ".join("%d" % int(a) for a in loop.pop("axes")) + "]")
        for key, value in loop.items():  # unknown keys: the reader names them
            lines.append("%s = %s" % (_key(key), _expression(value, what + "." + str(key), plain)))
    return "\n".join(lines) + "\n"
