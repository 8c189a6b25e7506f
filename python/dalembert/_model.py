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
    return type(x).__module__.startswith("sympy")


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


def _expression(x, what):
    """An expression: a number, a string, or a sympy expression."""
    if isinstance(x, str):
        return json.dumps(x)
    if _is_sympy(x):
        if getattr(x, "is_number", False) and x.is_real:
            return repr(float(x))
        return json.dumps(_sympy_text(x))
    return _number(x, what)


def _expressions(xs, what):
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise TypeError("%s must be a list, got %r" % (what, xs))
    return "[" + ", ".join(_expression(x, "%s[%d]" % (what, i)) for i, x in enumerate(xs)) + "]"


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
               valid_when_zero=None, derived=None, inputs=None, definitions=None, name="model", summary=None):
    """The TOML text of a model file with these keys (docs/model-files.md)."""
    lines = ["name = " + json.dumps(str(name))]
    if summary is not None:
        lines.append("summary = " + json.dumps(str(summary)))
    lines.append("coordinates = " + _names(coordinates, "coordinates"))
    if lagrangian is not None:
        lines.append("lagrangian = " + _expression(lagrangian, "lagrangian"))
    if metric is not None:
        rows = list(metric)
        if rows and all(not isinstance(r, (str, bytes)) and hasattr(r, "__iter__") and not _is_sympy(r)
                        for r in rows):
            lines.append("metric = [" + ", ".join(_expressions(r, "metric[%d]" % i) for i, r in enumerate(rows)) + "]")
        else:
            lines.append("metric = " + _expressions(rows, "metric"))
    if potential is not None:
        lines.append("potential = " + _expression(potential, "potential"))
    constraints = list(constraints)
    if constraints:
        lines.append("constraints = " + _expressions(constraints, "constraints"))
    holonomic = list(holonomic)
    if holonomic:
        lines.append("holonomic = " + _expressions(holonomic, "holonomic"))
    if force is not None:
        lines.append("force = " + _expressions(force, "force"))
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
            lines.append("q = " + _expressions(q0, "q0"))
        if v0 is not None:
            lines.append("v = " + _expressions(v0, "v0"))
        if z0 is not None:
            lines.append("z = " + _expression(z0, "z0"))
    if solution is not None:
        lines.append("[solution]")
        lines.append("q = " + _expressions(solution, "solution"))
        if valid_when_zero is not None:
            lines.append("valid_when_zero = " + _expressions(valid_when_zero, "valid_when_zero"))
    if derived:
        lines.append("[derived]")
        for k, v in dict(derived).items():
            lines.append("%s = %s" % (_key(k), _expression(v, "derived " + str(k))))
    if definitions:
        lines.append("[definitions]")  # in the mapping's order, which the file keeps
        for k, v in dict(definitions).items():
            lines.append("%s = %s" % (_key(k), _expression(v, "definition " + str(k))))
    return "\n".join(lines) + "\n"
