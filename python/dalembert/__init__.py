"""dalembert: structure-preserving integrators for nonholonomic mechanics, from Python.

    import dalembert
    disk = dalembert.model_file("models/rolling-disk.toml")
    result = dalembert.run(disk, method="dla", h=0.01, t_end=10)
    result.q          # positions, shape (rows, n)
    result.energy     # energy per row, shape (rows,)
    result.summary    # the run's JSON summary as a dict, warnings included

The runs are those of the command line `dalembert run` (same code, same numbers); the C++ runs
with the GIL released and never calls back into Python during a run. docs/python.md has a tutorial.
Errors: BadInput (a ValueError) names the value that is wrong; SolverError (a RuntimeError) is
raised when a method fails, with the rows computed before the failure in its `.result`.
"""
import collections.abc
import csv
import io
import hashlib
import json
import math
import numbers
import os
import platform
import threading
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from . import _core
from ._core import BadInput, SolverError
from ._model import model_text

__version__: str = _core.version
Expr = Union[str, float, Any, None]  # an expression: a string of a model file's syntax, a number, or a sympy expression
__all__ = ["systems", "methods", "system", "model", "model_file", "chaotic_oscillator", "whipple_bicycle", "run",
           "compare", "convergence", "ensemble", "load", "stepper", "jacobi_field", "discrete_jacobi_field",
           "discrete_steady_motion", "exponential_map", "conjugate_points", "conjugate_locus", "nonholonomic_connection",
           "jacobi_equation_residual", "maupertuis_jacobi", "System", "Result", "Comparison", "Convergence", "Ensemble",
           "SteadyMotion", "DiscreteSteadyMotion", "Stepper", "JacobiField", "DiscreteJacobiField", "ExponentialMap",
           "ConjugatePoint", "ConjugateLocus", "NonholonomicConnection", "MaupertuisJacobi", "BadInput", "SolverError"]


def __dir__():
    """The API only (not the modules this one uses)."""
    return sorted(__all__ + ["__version__"])

# The most steps a run accepts (as on the command line): below 2^53, so that t = k h is exact.
MAX_STEPS = _core.max_steps


def systems() -> Dict[str, str]:
    """The catalogue: {name: one-line description}."""
    return dict(_core.systems())


def methods() -> Dict[str, str]:
    """The methods: {name: one-line description [the kinds of system it runs on]}."""
    return {name: "%s [%s]" % (summary, kinds) for name, summary, kinds in _core.methods()}


class System:
    """A system with values for its parameters: a catalogue entry, a model file or a model.

    Attributes (from its description): name, summary, coordinates, velocities (the velocity
    columns of a run), parameters ({name: value}), parameter_descriptions, constraints (m),
    q0, v0, z0 (default initial data; z0 for contact systems, else None), closed_form,
    external_force, force_depends_on_time, lagrangian_depends_on_time, constraints_depend_on_time
    (the part b(q, t) of an affine constraint M(q) v + b(q, t) = 0 depends on t).
    """

    def __init__(self, handle, parameters, source, text=None):
        self._handle = handle
        self._source = source
        self._text = text  # a model's TOML text (dalembert.model), recorded in a run's provenance
        self._given = [(str(k), _finite(v, "parameter " + str(k))) for k, v in parameters.items()]
        d = handle.describe(self._given)  # unknown names and bad values are BadInput here
        for key, value in d.items():
            setattr(self, key, value)

    def with_parameters(self, **parameters: float) -> "System":
        """The same system with more parameters set (those given before are kept)."""
        merged = dict(self._given)
        merged.update(parameters)
        return System(self._handle, merged, self._source, self._text)

    @property
    def n(self) -> int:
        """The number of coordinates."""
        return len(self.coordinates)

    def exact(self, t: float, q0: Optional[ArrayLike] = None, v0: Optional[ArrayLike] = None) -> Optional[np.ndarray]:
        """The closed-form positions q(t) from (q0, v0) (defaults: the system's), or None if the
        system has no closed form for these parameters."""
        q = self._handle.exact(self._given, _vector(q0, "q0", self.n), _vector(v0, "v0", self.n),
                               _finite(t, "t"))
        return None if q is None else np.array(q)

    def steady_motion(self, q0: Optional[ArrayLike] = None, v0: Optional[ArrayLike] = None,
                      symmetric: Optional[Sequence[str]] = None, rotation: Optional[Sequence[str]] = None,
                      find: bool = False, hold: Optional[Sequence[str]] = None) -> "SteadyMotion":
        """The steady motion through (q0, v0), or with `find` the one nearest it, and its
        eigenvalues on the linearised constraint (docs/methods.md, Steady motions and their
        stability), largest real part first. Its symmetry: the translations of the coordinates
        named in `symmetric` (by default those a catalogue system declares cyclic; a model file
        declares none) and, with `rotation` = [x, y] or [x, y, angle], the rotation of the (x, y)
        plane about its origin turning `angle` with it. `find` solves for the steady motion by
        Gauss-Newton from (q0, v0), keeping at their given values the positions (coordinate names)
        and velocities (names ending in _t) listed in `hold`. BadInput when (q0, v0) is not a
        steady motion, none is found, or the symmetry is not one."""
        names = {what: _names(x, what)
                 for what, x in (("symmetric", symmetric), ("rotation", rotation), ("hold", hold))}
        if not isinstance(find, bool):
            raise BadInput("find must be True or False, got %r" % (find,))
        d = self._handle.steady(self._given, _vector(q0, "q0", self.n), _vector(v0, "v0", self.n),
                                names["symmetric"], names["rotation"], find, names["hold"])
        values = d["eigenvalues"]
        eigenvalues = np.array(sorted(values, key=lambda x: (-x.real, -x.imag)), dtype=complex)
        rate_names = list(d["symmetric"]) + (["rotation"] if d["rotation"] else [])
        return SteadyMotion(eigenvalues, list(d["symmetric"]),
                            np.array(d["on_constraint"], dtype=float).reshape(len(values), len(values)),
                            np.array(d["q0"]), np.array(d["v0"]), dict(zip(rate_names, d["rates"])),
                            list(d["rotation"]), d["iterations"], d["resolution"], d["growing_modes"])

    def __repr__(self):
        given = "".join(", %s=%r" % kv for kv in self._given)
        return "dalembert.System(%r%s)" % (self._source, given)


SteadyMotion = collections.namedtuple(
    "SteadyMotion", "eigenvalues symmetric on_constraint q0 v0 rates rotation iterations resolution growing_modes")
SteadyMotion.__doc__ = """System.steady_motion's result: the eigenvalues (complex, largest real part
first), the translated coordinates by name, the linearised field on the linearised constraint,
the motion's (q0, v0) (found, or as given), the rate of each translation by its coordinate and of
the rotation as "rotation", the rotation's coordinates, the Gauss-Newton iterations of `find` (0
without it), the resolution (real parts within it count as zero: a Jordan block's eigenvalues
scatter by about the square root of the round-off) and the number of eigenvalues with a real part
above it."""


def system(name: str, **parameters: float) -> System:
    """The catalogue system `name` (see systems()) with parameters set by keyword, e.g.
    system("knife-edge", g=2.0). A path to a model file is accepted too (see model_file)."""
    if not isinstance(name, str):
        raise TypeError("the system's name must be a string, got %r" % (name,))
    return System(_core.find(name), parameters, name)


def model_file(path: Union[str, "os.PathLike[str]"], **parameters: float) -> System:
    """The model file at `path` (docs/model-files.md), compiled on first use (a few seconds at
    most, then cached), with parameters set by keyword."""
    path = str(path)
    return System(_core.model_file(path), parameters, path)


def model(*, coordinates: Sequence[str], lagrangian: Expr = None, metric: Any = None, potential: Expr = None,
          constraints: Sequence[Expr] = (), holonomic: Sequence[Expr] = (),
          parameters: Optional[Mapping[str, Any]] = None,
          force: Optional[Sequence[Expr]] = None, action: Optional[str] = None, q0: Optional[Sequence[Expr]] = None,
          v0: Optional[Sequence[Expr]] = None, z0: Expr = None, solution: Optional[Sequence[Expr]] = None,
          valid_when_zero: Optional[Sequence[Expr]] = None, derived: Optional[Mapping[str, Expr]] = None,
          inputs: Optional[Sequence[str]] = None, definitions: Optional[Mapping[str, Expr]] = None,
          bodies: Optional[Sequence[Mapping[str, Any]]] = None, gravity: Expr = None,
          contacts: Optional[Sequence[Mapping[str, Any]]] = None,
          loops: Optional[Sequence[Mapping[str, Any]]] = None,
          name: str = "model", summary: Optional[str] = None) -> System:
    """A model from strings or sympy expressions, with the keys of a model file
    (docs/model-files.md): coordinates (names; the velocity of x is x_t), lagrangian L(q, v) or
    metric G(q) (n×n rows, or the n entries of a diagonal) with potential V(q), constraints
    (linear or affine in the velocities), holonomic (functions phi(q) = 0 of the coordinates, or
    psi(q) + c(t) of the time: dla and mla, and discrete-gradient those of q alone,
    impose them on each step's new positions, spark at its stages, rk4 and reference project each new
    state onto them, the other methods take their velocity form; the column holonomic_<b> shows each), parameters
    ({name: value}, or value
    (value, description)), force (n expressions in q, v), action (the action variable of a contact
    system), q0, v0, z0 (default
    initial data), solution (closed-form q(t)) with valid_when_zero, derived ({column: expression}),
    inputs (names the force may use linearly, set per step by a stepper), definitions ({name:
    expression}, in order, each written out wherever a later expression uses its name), bodies
    (rigid bodies, {name, mass, inertia: 3 principal moments or the 6 entries I11, I22, I33, I12,
    I13, I23 of the tensor on the body axes, position: 3 components of the mass centre, z up,
    euler: z-x-z angles or quaternion: w, x, y, z; or parent: an earlier body's name and hinge:
    {axis, angle, at, centre}, slider: {axis, distance, at, centre} or ball: {at, centre} with
    euler or quaternion from the parent's axes}, whose energies are the Lagrangian) with gravity
    (g), contacts ({body, sphere: radius} or {body, rim: radius, axis: 1..3}: rolling on z = 0) and
    loops ({points: [{body, at}, {body, at}], axes: some of 1, 2, 3}: two points held together
    along those ground axes, a holonomic constraint each; a point without body is the ground's).
    Expressions are strings in the model files' syntax, numbers, or sympy expressions.
    The model is checked as a file is (BadInput names the key) and compiled once per distinct model.
    """
    text = model_text(coordinates=coordinates, lagrangian=lagrangian, metric=metric, potential=potential,
                      constraints=constraints, holonomic=holonomic, parameters=parameters, force=force,
                      action=action, q0=q0, v0=v0, z0=z0, solution=solution, valid_when_zero=valid_when_zero,
                      derived=derived, inputs=inputs, definitions=definitions, bodies=bodies, gravity=gravity,
                      contacts=contacts, loops=loops, name=name, summary=summary)
    handle = _core.model_text(text, "dalembert.model(name=%s)" % json.dumps(str(name)))
    return System(handle, {}, "model " + str(name), text)


def chaotic_oscillator(n: int = 5, *, q0: Optional[ArrayLike] = None, v0: Optional[ArrayLike] = None) -> System:
    """McLachlan and Perlmutter's chaotic quartic nonholonomic oscillator with 2n + 1 coordinates
    q = (x, y1..yn, z1..zn), n >= 1: unit masses, V = |q|^2/2 + sum_i yi^2 zi^2/2 + z1^2 z2^2/2 (the last
    term for n >= 2) and the one constraint dx + sum_i yi dzi = 0 (J. Nonlinear Sci. 16 (2006),
    doi:10.1007/s00332-005-0698-1). n = 5 is models/chaotic-oscillator.toml. The default initial data
    are a fixed pattern with x_t = -sum_i yi zi_t; q0 and v0 replace them (v0 must satisfy the constraint).
    """
    n = _whole(n, "n (the number of (y, z) pairs)", 1, 499)
    ys, zs = ["y%d" % i for i in range(1, n + 1)], ["z%d" % i for i in range(1, n + 1)]
    coordinates = ["x"] + ys + zs
    potential = "(" + " + ".join(c + "^2" for c in coordinates) + ")/2 + (" + " + ".join(
        "%s^2*%s^2" % (y, z) for y, z in zip(ys, zs)) + ")/2" + (" + z1^2*z2^2/2" if n >= 2 else "")
    constraint = "x_t + " + " + ".join("%s*%s_t" % (y, z) for y, z in zip(ys, zs))
    if q0 is None:
        q0 = [0.1] + [0.3 * math.sin(i) for i in range(1, n + 1)] + [0.3 * math.cos(i) for i in range(1, n + 1)]
    if v0 is None:
        y_t = [0.2 * math.cos(2 * i) for i in range(1, n + 1)]
        z_t = [0.2 * math.sin(3 * i) for i in range(1, n + 1)]
        v0 = [-sum(q0[i] * z_t[i - 1] for i in range(1, n + 1))] + y_t + z_t
    return model(name="chaotic-oscillator-%d" % (2 * n + 1), coordinates=coordinates, metric=[1] * (2 * n + 1),
                 potential=potential, constraints=[constraint], q0=list(q0), v0=list(v0),
                 summary="quartic nonholonomic oscillator in %d coordinates (McLachlan-Perlmutter)" % (2 * n + 1))


def whipple_bicycle(speed: float = 5.0, **parameters: float) -> System:
    """The benchmark Whipple bicycle of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463
    (2007) 1955-1982), built from sympy.physics.mechanics frames and rigid bodies (needs sympy;
    docs/bicycle.md): coordinates x, y (rear contact), yaw, roll, pitch, steer, rear, front (the
    wheels' rotations); four rolling constraints and the front contact's height as a holonomic
    constraint; the parameters of the benchmark's table 1 by name, in its axes (z down), overridden
    by keyword. Its initial data run upright and straight ahead at `speed` m/s. Compiled once (about
    30 s with clang, which takes it when installed), then found in the cache with its analysis
    (sympy's part takes about 2 s every time); the stability of upright running at speed v
    is bike.steady_motion(q0, v0, symmetric=["x", "y", "rear", "front"], rotation=["x", "y", "yaw"]).
    """
    from . import _bicycle
    unknown = sorted(set(parameters) - set(_bicycle.BENCHMARK))
    if unknown:
        raise BadInput("whipple_bicycle: unknown parameter %s (known: %s)"
                       % (unknown[0], ", ".join(_bicycle.BENCHMARK)))
    bicycle = model(**_bicycle.whipple_model(speed))
    return bicycle.with_parameters(**parameters) if parameters else bicycle


def _column(table, columns, name):
    """The column of `table` called `name`; KeyError listing the columns if there is none."""
    try:
        return table[:, columns.index(name)]
    except ValueError:
        raise KeyError("no column %r (columns: %s)" % (name, ", ".join(columns))) from None


class Result:
    """A run: its rows and summary.

    data: all columns, shape (rows, len(columns)); t: (rows,); t0: the time of the first row; q, v:
    (rows, n); energy, constraint: (rows,); z: (rows,) for contact systems, else None; p: (rows, n)
    for methods that carry a momentum, else None; lam: (rows, m) for methods that carry the
    multipliers, else None (its first row is NaN); summary: the JSON summary of
    `dalembert run --summary` as a dict, with its provenance (version, system, parameters, initial
    data, options). column(name) gives any column, including a model's derived ones; at(t) the
    positions and velocities between the rows (dense output); t_events, q_events, v_events the
    events of run(..., events=...). A Result pickles, saves to and loads from NumPy's .npz
    (save(path), dalembert.load(path)), and becomes a pandas DataFrame (to_dataframe()).
    """

    def __init__(self, system, columns, data, summary, coordinates=None, velocities=None, contact=None):
        self.system = system
        self.columns = list(columns)
        self.data = np.asarray(data, dtype=float)
        self.summary = summary
        self.coordinates = list(coordinates if coordinates is not None else system.coordinates)
        self.velocities = list(velocities if velocities is not None else system.velocities)
        self._contact = bool(contact if contact is not None else system.z0 is not None)
        self.t_events, self.q_events, self.v_events = [], [], []
        self._views()

    def _views(self):
        index = {c: i for i, c in enumerate(self.columns)}

        def block(names):
            if not names or any(c not in index for c in names):
                return None
            return self.data[:, [index[c] for c in names]]

        self.t = self.data[:, 0]
        self.t0 = float(self.t[0]) if len(self.t) else math.nan
        self.q = block(self.coordinates)
        self.v = block(self.velocities)
        self.energy = self.column("energy") if "energy" in index else None
        self.constraint = self.column("constraint") if "constraint" in index else None
        self.z = self.column("z") if "z" in index and self._contact else None
        self.p = block(["p_" + c for c in self.coordinates])
        self.lam = block([c for c in self.columns if c.startswith("lambda_")])

    def column(self, name: str) -> np.ndarray:
        """The column called `name`, shape (rows,)."""
        return _column(self.data, self.columns, name)

    def at(self, t: ArrayLike) -> Tuple[np.ndarray, np.ndarray]:
        """(q, v) at the time t, or at each time of an array t, between the first and the last row:
        on each interval between two rows, q is the cubic that has the rows' positions and
        velocities at its ends (cubic Hermite interpolation), v its derivative. The error is that of
        the method at the rows plus O(Δt^4) in q and O(Δt^3) in v, Δt the spacing of the rows (keep
        every row, every=1, for the best). Raises ValueError outside [t[0], t[-1]]."""
        ts = np.atleast_1d(np.asarray(t, dtype=float))
        if len(self.t) < 2 or ts.min() < self.t[0] or ts.max() > self.t[-1] or not np.all(np.isfinite(ts)):
            raise ValueError("t must lie within the rows, [%r, %r], got %r" % (self.t[0], self.t[-1], t))
        i = np.clip(np.searchsorted(self.t, ts, side="right") - 1, 0, len(self.t) - 2)
        t0, t1 = self.t[i], self.t[i + 1]
        dt = (t1 - t0)[:, None]
        s = ((ts - t0) / (t1 - t0))[:, None]
        q0, q1, v0, v1 = self.q[i], self.q[i + 1], self.v[i], self.v[i + 1]
        h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
        q = h00 * q0 + h10 * dt * v0 + h01 * q1 + h11 * dt * v1
        d00, d10, d01, d11 = 6 * s**2 - 6 * s, 3 * s**2 - 4 * s + 1, -6 * s**2 + 6 * s, 3 * s**2 - 2 * s
        v = (d00 * q0 + d01 * q1) / dt + d10 * v0 + d11 * v1
        if np.ndim(t) == 0:
            return q[0], v[0]
        return q, v

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the result to `path` in NumPy's .npz: an array per column, named as the columns, and
        the summary and the layout (dalembert.load reads it back)."""
        arrays = {c: self.data[:, j] for j, c in enumerate(self.columns)}
        meta = {"columns": self.columns, "coordinates": self.coordinates, "velocities": self.velocities,
                "contact": self._contact, "summary": self.summary}
        arrays["__dalembert__"] = np.array(json.dumps(meta))
        np.savez(path, **arrays)

    def __getstate__(self):  # the system's handle stays in this process: the rest pickles
        return {"columns": self.columns, "data": self.data, "summary": self.summary, "coordinates": self.coordinates,
                "velocities": self.velocities, "contact": self._contact, "t_events": self.t_events,
                "q_events": self.q_events, "v_events": self.v_events}

    def __setstate__(self, state):
        self.system = None
        self.columns, self.data, self.summary = state["columns"], state["data"], state["summary"]
        self.coordinates, self.velocities, self._contact = state["coordinates"], state["velocities"], state["contact"]
        self.t_events, self.q_events, self.v_events = state["t_events"], state["q_events"], state["v_events"]
        self._views()

    def to_dataframe(self) -> Any:
        """The rows as a pandas DataFrame (pandas must be installed), a column per column."""
        import pandas  # noqa: PLC0415 (optional dependency)
        return pandas.DataFrame(self.data, columns=self.columns)

    @property
    def status(self):
        return self.summary["status"]

    @property
    def warnings(self):
        return self.summary["warnings"]

    def __repr__(self):
        return "<dalembert.Result %s by %s, h=%g: %d rows, status %s>" % (
            self.summary["system"], self.summary["method"], self.summary["h"], len(self.t), self.status)


def load(path: Union[str, "os.PathLike[str]"]) -> Result:
    """A Result that Result.save wrote (its system is None: the rows, the summary and the layout)."""
    with np.load(path) as d:
        if "__dalembert__" not in d.files:
            raise BadInput("%s was not written by Result.save (no __dalembert__ entry)" % (path,))
        meta = json.loads(str(d["__dalembert__"]))
        data = np.column_stack([d[c] for c in meta["columns"]]) if meta["columns"] else np.empty((0, 0))
    return Result(None, meta["columns"], data, meta["summary"], meta["coordinates"], meta["velocities"], meta["contact"])


def _locate_events(result, events):
    """Each event function's sign changes between rows, located on the dense output to 1e-12 in t
    (Illinois' regula falsi); a terminal one ends the result's rows at the first it has."""
    stop = None
    for f in events:
        direction = getattr(f, "direction", 0)
        g = np.array([float(f(t, q, v)) for t, q, v in zip(result.t, result.q, result.v)])
        times = []
        for k in range(len(g) - 1):
            a, b = g[k], g[k + 1]
            # a zero at the later row counts in this interval, one at the earlier row in the one before
            if not (a < 0 < b or a > 0 > b or b == 0 and a != 0):
                continue
            if direction > 0 and not a < b or direction < 0 and not a > b:
                continue
            lo, hi, glo, ghi, side = result.t[k], result.t[k + 1], a, b, 0
            if b == 0:
                lo = hi
            for _ in range(200):
                if hi - lo <= 1e-12 * max(1.0, abs(hi)):
                    break
                mid = (lo * ghi - hi * glo) / (ghi - glo)
                if not lo < mid < hi:
                    mid = 0.5 * (lo + hi)
                q, v = result.at(mid)
                gm = float(f(mid, q, v))
                if gm == 0:
                    lo = hi = mid
                    break
                if np.sign(gm) == np.sign(glo):
                    lo, glo = mid, gm
                    if side == -1:
                        ghi /= 2
                    side = -1
                else:
                    hi, ghi = mid, gm
                    if side == 1:
                        glo /= 2
                    side = 1
            times.append(0.5 * (lo + hi))
            if getattr(f, "terminal", False):
                stop = times[-1] if stop is None else min(stop, times[-1])
                break
        result.t_events.append(np.array(times))
        qv = [result.at(t) for t in times]
        result.q_events.append(np.array([x[0] for x in qv]).reshape(len(times), result.q.shape[1]))
        result.v_events.append(np.array([x[1] for x in qv]).reshape(len(times), result.v.shape[1]))
    if stop is not None:
        keep = result.t <= stop
        result.data = result.data[keep]
        result.summary["event"] = {"t": stop, "rows": int(keep.sum())}
        result._views()


def run(system: Union[System, str], method: str = "dla", *, h: float, steps: Optional[int] = None,
        t_end: Optional[float] = None, q0: Optional[ArrayLike] = None,
        v0: Union[ArrayLike, Mapping[str, float], None] = None,
        q1: Optional[ArrayLike] = None, z0: Optional[float] = None, every: int = 1, t0: float = 0.0,
        project_v0: bool = False, events: Optional[Sequence[Callable[[float, np.ndarray, np.ndarray], float]]] = None,
        t_eval: Optional[ArrayLike] = None, **method_options: Any) -> Result:
    """Runs `method` (see methods()) on `system` (a System, or a catalogue name) with step h for
    `steps` steps or up to `t_end` (t_end − t0 a multiple of h), from (q0, v0) (defaults: the
    system's), or from (q0, q1) for a two-step start, keeping every `every`-th row and the last.

    t0: the time of the first row; a model's force and Lagrangian see it, so that a restart from a
    row, run(..., q0=r.q[-1], v0=r.v[-1], t0=r.t[-1]), continues the clock of a time-dependent
    model. project_v0: replace v0 by its projection onto the constraints at q0, orthogonal in the
    kinetic metric (summary["projected_v0"] gives the velocity used and how far it moved). v0 may
    also be a dict of n − m velocities by coordinate name, {"x": 1.0, "theta": 0.2}: the others are
    solved from the constraints at q0 (summary["completed_v0"] gives the whole v0).

    method_options, as on the command line: alpha (in [0, 1]), rule ("alpha", "trapezoid",
    "exponential"), constraint_rule ("alpha", "trapezoid"), tolerance (Newton's, > 0), max_iterations (1..1000), fim_start ("A", "B"), stages (2..5),
    root_rule ("physical", "closest"), dsocs_start ("taylor2", "euler"), shooting_tolerance
    (1e-12..1e-6).

    events: functions f(t, q, v) -> float whose sign changes between the rows are located on the
    dense output (Result.at) to 1e-12 in t, into result.t_events, q_events, v_events (a list per
    function); as in scipy, f.direction = 1 or -1 keeps only rising or falling changes, and
    f.terminal = True ends the result at its first one (its rows after it are dropped, and
    summary["event"] says where; the run itself computes its steps to the end). t_eval: times at
    which result.q_eval and result.v_eval give the dense output.

    Returns a Result. Raises BadInput for a bad value, SolverError if the method fails (the rows
    before the failure in its .result), KeyboardInterrupt on Ctrl-C (after the current step, the
    rows so far in its .result).
    """
    if events is not None and (isinstance(events, (str, bytes)) or not all(callable(f) for f in events)):
        raise BadInput("events must be a list of functions f(t, q, v), got %r" % (events,))
    system = _as_system(system)
    t0 = _finite(t0, "t0")
    if t_end is not None and t0 != 0.0:
        if not _finite(t_end, "t_end") > t0:
            raise BadInput("t_end=%r is not after t0=%r (the run covers [t0, t_end])" % (t_end, t0))
        t_end = t_end - t0
    if not isinstance(project_v0, bool):
        raise BadInput("project_v0 must be True or False, got %r" % (project_v0,))
    options = _options(method, h, steps, t_end, every, method_options)
    options["t0"] = t0
    options["project_v0"] = project_v0
    n = system.n
    v0_names = []
    if isinstance(v0, collections.abc.Mapping):
        if not v0 or not all(isinstance(name, str) for name in v0):
            raise BadInput("v0 by name must map coordinate names to velocities, got %r" % (v0,))
        v0_names = list(v0)
        v0 = _vector(list(v0.values()), "v0 (by name)", len(v0_names))
    else:
        v0 = _vector(v0, "v0", n)
    options["v0_names"] = v0_names
    q0, q1 = _vector(q0, "q0", n), _vector(q1, "q1", n)
    z0 = None if z0 is None else _finite(z0, "z0")
    columns, data, summary = system._handle.run(system._given, q0, v0, q1, z0, options, _on_main_thread())
    summary = json.loads(summary)
    given_v0 = dict(zip(v0_names, v0)) if v0_names else v0
    summary["provenance"] = _provenance(system, options, q0, given_v0, q1, z0)
    result = Result(system, columns, data, summary)
    if events and result.status == "ok":
        _locate_events(result, list(events))
    if t_eval is not None and result.status == "ok":
        result.t_eval = np.asarray(t_eval, dtype=float)
        try:
            result.q_eval, result.v_eval = result.at(result.t_eval)
        except ValueError as e:
            raise BadInput("t_eval: %s" % e) from None
    if result.status == "interrupted":
        error = KeyboardInterrupt(result.summary["message"])
        error.result = result
        raise error
    if result.status != "ok":
        error = SolverError("%s; kept %d completed step(s)" % (result.summary["message"], result.summary["steps"]))
        error.result = result
        raise error
    return result


Stepper = _core.Stepper


def stepper(system: Union[System, str], method: str = "dla", *, h: float, q0: Optional[ArrayLike] = None,
            v0: Optional[ArrayLike] = None, t0: float = 0.0, project_v0: bool = False,
            **method_options: Any) -> Stepper:
    """A Stepper: `method` (dla, mla, gf, gf-sym, gf-cp, fim, mclachlan-perlmutter,
    discrete-gradient, spark or rk4) with step h on the model file `system`,
    whose inputs (inputs = [...] in the file) enter its force, from (q0, v0) (defaults: the file's),
    with the method options of run. The state after each step is the method's: positions and
    momenta (fim: the momentum p- its step starts from), or positions and velocities for rk4."""
    system = _as_system(system)
    if not isinstance(project_v0, bool):
        raise BadInput("project_v0 must be True or False, got %r" % (project_v0,))
    options = _options(method, h, None, None, 1, method_options, check_steps=False)
    options["t0"] = _finite(t0, "t0")
    options["project_v0"] = project_v0
    return Stepper(system._handle, system._given, _vector(q0, "q0", system.n), _vector(v0, "v0", system.n), options)


JacobiField = collections.namedtuple("JacobiField", "t q v W W_dot dp linearised_constraint")
JacobiField.__doc__ = """jacobi_field's result, one row per sample time: the trajectory q, v, the
Jacobi field W and its derivative W_dot, the momentum's variation dp = d2L/dvdq W + d2L/dv2 W_dot,
and the linearised constraint |M(q) W_dot + (dM/dq . W) v|_inf (zero up to the tolerance)."""


def jacobi_field(system: Union[System, str], *, dq0: ArrayLike, dv0: ArrayLike, times: ArrayLike,
                 q0: Optional[ArrayLike] = None, v0: Optional[ArrayLike] = None, project_v0: bool = False,
                 project_dv0: bool = False, tolerance: float = 1e-12) -> JacobiField:
    """The nonholonomic Jacobi field W(t) along the trajectory of the model file `system` from
    (q0, v0) (defaults: the file's; project_v0 projects v0 onto the constraint), with initial
    variation (dq0, dv0), sampled at `times` (increasing, >= 0) and integrated to the absolute and
    relative `tolerance` (docs/jacobi-fields.md). (dq0, dv0) must satisfy the linearised constraint
    M(q0) dv0 + (dM/dq . dq0) v0 = 0 (BadInput otherwise); project_dv0 replaces dv0 by the nearest
    variation that does, in the kinetic metric. Ctrl-C raises KeyboardInterrupt."""
    system = _as_system(system)
    for name, flag in (("project_v0", project_v0), ("project_dv0", project_dv0)):
        if not isinstance(flag, bool):
            raise BadInput("%s must be True or False, got %r" % (name, flag))
    t = np.atleast_1d(np.asarray(times))
    if t.ndim != 1 or not np.issubdtype(t.dtype, np.number) or np.iscomplexobj(t) or t.dtype == np.bool_:
        raise BadInput("times must be a list of numbers, got %r" % (times,))
    d = _core.jacobi_field(system._handle, system._given, _vector(q0, "q0", system.n), _vector(v0, "v0", system.n),
                           project_v0, _required(_vector(dq0, "dq0", system.n), "dq0"),
                           _required(_vector(dv0, "dv0", system.n), "dv0"), project_dv0, t.astype(float).tolist(),
                           _finite(tolerance, "tolerance"), _on_main_thread())
    return JacobiField(**d)


DiscreteJacobiField = collections.namedtuple("DiscreteJacobiField", "t x dx")
DiscreteJacobiField.__doc__ = """discrete_jacobi_field's result, one row per step from the start: the
times t, the stepper's states x and their variations dx = A_{k-1} ... A_0 dx_0 (columns as the
stepper's state_names)."""


DiscreteSteadyMotion = collections.namedtuple(
    "DiscreteSteadyMotion",
    "eigenvalues multipliers symmetric rotation rates q0 v0 iterations resolution growing_modes")
DiscreteSteadyMotion.__doc__ = """discrete_steady_motion's result: the rates log(mu)/h (complex,
largest real part first), the multipliers mu in the same order, the translated coordinates, the
rotation's coordinates, the symmetry's rates of the step's steady motion (by coordinate,
"rotation"), its positions q0 and the method's velocity v0 there, the Gauss-Newton iterations
that found it, the resolution and the number of rates with a real part above it."""


def discrete_steady_motion(stepper: "Stepper", *, symmetric: Optional[Sequence[str]] = None,
                           rotation: Optional[Sequence[str]] = None,
                           hold: Optional[Sequence[str]] = None) -> DiscreteSteadyMotion:
    """The steady motion of the stepper's step nearest its current state, which must be on a
    steady motion of the symmetry (as System.steady_motion's `symmetric` and `rotation`; the inputs
    at zero), and the step's linearisation there. The step's steady motion is a state that one
    step takes to itself moved by the symmetry, at rates within O(h^p) of the continuous motion's;
    it is found by Gauss-Newton, keeping the positions and the velocities (names ending in _t)
    listed in `hold` at the current state's. Its linearisation: the multipliers mu of the step,
    turned back by the symmetry's motion, on the linearised constraint modulo the symmetry's
    orbit, and the rates log(mu)/h, which converge to the continuous eigenvalues at the method's
    order (docs/methods.md, Steady motions and their stability). The stepper is not moved.
    BadInput when the state is not on a steady motion, the step has none near it or the symmetry
    is not one."""
    if not isinstance(stepper, Stepper):
        raise TypeError("expected a dalembert.Stepper, got %r" % (stepper,))
    d = stepper.steady_motion(_names(symmetric, "symmetric"), _names(rotation, "rotation"), _names(hold, "hold"))
    order = sorted(range(len(d["eigenvalues"])), key=lambda i: (-d["eigenvalues"][i].real, -d["eigenvalues"][i].imag))
    rate_names = list(d["symmetric"]) + (["rotation"] if d["rotation"] else [])
    return DiscreteSteadyMotion(np.array([d["eigenvalues"][i] for i in order], dtype=complex),
                                np.array([d["multipliers"][i] for i in order], dtype=complex),
                                list(d["symmetric"]), list(d["rotation"]), dict(zip(rate_names, d["rates"])),
                                np.array(d["q0"]), np.array(d["v0"]), d["iterations"], d["resolution"],
                                d["growing_modes"])


def discrete_jacobi_field(stepper: "Stepper", *, dq0: ArrayLike, dv0: ArrayLike, steps: int,
                          u: Optional[ArrayLike] = None) -> DiscreteJacobiField:
    """The discrete Jacobi field of a stepper just reset: dx_0 = stepper.start_tangent(dq0, dv0)
    and dx_{k+1} = A_k dx_k with A_k = dx_{k+1}/dx_k of each of `steps` steps taken with the inputs
    u held (docs/jacobi-fields.md). It steps the stepper. It converges to (W, dp) of jacobi_field
    (to (W, W_dot) for rk4) at the method's order as h -> 0."""
    if not isinstance(stepper, Stepper):
        raise TypeError("expected a dalembert.Stepper, got %r" % (stepper,))
    if stepper.steps != 0:
        raise BadInput("the stepper has taken %d step(s): a discrete Jacobi field starts from its reset "
                       "(call stepper.reset() first)" % stepper.steps)
    steps = _whole(steps, "steps", 0, 10**9)
    n = len(stepper.q)
    dx = stepper.start_tangent(_required(_vector(dq0, "dq0", n), "dq0"), _required(_vector(dv0, "dv0", n), "dv0"))
    ts, xs, dxs = [stepper.t], [stepper.state], [dx]
    for _ in range(steps):
        A, _ = stepper.jacobians(u)
        stepper.step(u)
        dx = A @ dx
        ts.append(stepper.t)
        xs.append(stepper.state)
        dxs.append(dx)
    return DiscreteJacobiField(np.array(ts), np.array(xs), np.array(dxs))


ExponentialMap = collections.namedtuple("ExponentialMap", "q v directions differential metric radial initial")
ExponentialMap.__doc__ = """exponential_map's result: q = exp_h(v) and v its velocity there, the
directions w in D(q0) (columns) and the differential T_v exp_h . w (columns, n x directions); the
pulled-back kinetic metric G0 = exp_h^* G in the basis of the directions (`metric`), and the two
sides of the Gauss condition for each direction w: G0(v)(v, w) (`radial`) and h^2 G(q0)(v, w)
(`initial`), equal where G0 satisfies it (docs/jacobi-fields.md)."""


def exponential_map(system: Union[System, str], v: ArrayLike, *, q0: Optional[ArrayLike] = None, h: float = 1.0,
                    directions: Optional[ArrayLike] = None, project_v: bool = False,
                    tolerance: float = 1e-12) -> ExponentialMap:
    """The nonholonomic exponential map of the model file `system` at q0 (default: the file's):
    exp_h(v) = q(h) of the trajectory from (q0, v), v in D(q0) (project_v projects it), and its
    differential along the columns of `directions`, each in D(q0) (default: an orthonormal basis
    of D(q0)), each column the Jacobi field from (0, w) at h (docs/jacobi-fields.md)."""
    system = _as_system(system)
    if not isinstance(project_v, bool):
        raise BadInput("project_v must be True or False, got %r" % (project_v,))
    W = None
    if directions is not None:
        W = np.asarray(directions)
        if W.ndim != 2 or W.shape[0] != system.n or not np.issubdtype(W.dtype, np.number) or np.iscomplexobj(W) \
                or W.dtype == np.bool_:
            raise BadInput("directions must be an array of %d rows (one column per direction), got %r"
                           % (system.n, directions))
        W = W.astype(float)
    d = _core.exponential_map(system._handle, system._given, _vector(q0, "q0", system.n),
                              _required(_vector(v, "v", system.n), "v"), project_v, _finite(h, "h"), W,
                              _finite(tolerance, "tolerance"), _on_main_thread())
    return ExponentialMap(**d)


ConjugatePoint = collections.namedtuple("ConjugatePoint",
                                        "t multiplicity directions smallest_singular_value relative_size")
ConjugatePoint.__doc__ = """A point conjugate to q0 at time t: the Jacobi fields from (0, w), w in the
span of `directions` (n x multiplicity, orthonormal, in D(q0)), vanish there; the smallest singular
value of the exponential map's differential on D(q0) at t, and its size relative to the largest met."""


def conjugate_points(system: Union[System, str], *, t_end: float, q0: Optional[ArrayLike] = None,
                     v0: Optional[ArrayLike] = None, project_v0: bool = False, samples: int = 400,
                     tolerance: float = 1e-12) -> list:
    """The points conjugate to q0 along the trajectory of the model file `system` from (q0, v0)
    (defaults: the file's) in (0, t_end]: where the exponential map's differential restricted to
    D(q0) loses rank, located by golden-section search to 1e-12 in t from `samples` samples
    (docs/jacobi-fields.md). A list of ConjugatePoint, earliest first."""
    system = _as_system(system)
    if not isinstance(project_v0, bool):
        raise BadInput("project_v0 must be True or False, got %r" % (project_v0,))
    points = _core.conjugate_points(system._handle, system._given, _vector(q0, "q0", system.n),
                                    _vector(v0, "v0", system.n), project_v0, _finite(t_end, "t_end"),
                                    _whole(samples, "samples", 3, 1000000), _finite(tolerance, "tolerance"),
                                    _on_main_thread())
    return [ConjugatePoint(**p) for p in points]


NonholonomicConnection = collections.namedtuple("NonholonomicConnection", "christoffel torsion curvature")
NonholonomicConnection.__doc__ = """nonholonomic_connection's result, numpy arrays: christoffel[k, i, j] =
Gamma^k_ij, torsion[k, i, j] = T^k_ij = Gamma^k_ij - Gamma^k_ji and curvature[l, i, j, k] = R^l_ijk."""


def nonholonomic_connection(system: Union[System, str], q: ArrayLike) -> NonholonomicConnection:
    """The nonholonomic connection of a mechanical model file (L = 1/2 v^T G(q) v - V(q)) at q
    (thesis Def. 5.1.3, (6.2.24)): Gamma^k_ij = Gamma^l_ij(g) P^k_l + d_i P'^k_j + P'^l_j Gamma^k_il(g)
    with P' = G^-1 M^T (M G^-1 M^T)^-1 M and P = I - P', its torsion and its curvature
    R^l_ijk = d_i Gamma^l_jk - d_j Gamma^l_ik + Gamma^m_jk Gamma^l_im - Gamma^m_ik Gamma^l_jm, exact
    (dual numbers; docs/jacobi-fields.md)."""
    system = _as_system(system)
    d = _core.nonholonomic_connection(system._handle, system._given, _required(_vector(q, "q", system.n), "q"))
    return NonholonomicConnection(**d)


def jacobi_equation_residual(system: Union[System, str], *, q: ArrayLike, v: ArrayLike, W: ArrayLike,
                             W_dot: ArrayLike, W_ddot: Optional[ArrayLike] = None) -> np.ndarray:
    """The residual of the nonholonomic Jacobi equation (thesis (6.2.22)) of a mechanical model file
    without force at (q, v), v in D(q), along a field W with derivatives W_dot and W_ddot:
    W_ddot^k + v^i v^j W^l d_l Gamma^k_ij + v^j W_dot^i (Gamma^k_ij + Gamma^k_ji) + W^l d_l (P G^-1 grad V)^k,
    zero along a Jacobi field. Without W_ddot, that of the linearised Lagrange-d'Alembert dynamics
    (the residual then compares the two linearisations). Exact (dual numbers; docs/jacobi-fields.md).
    BadInput when v is not in D(q) or (W, W_dot) not tangent to the constraint."""
    system = _as_system(system)
    args = [_required(_vector(x, name, system.n), name) for x, name in ((q, "q"), (v, "v"), (W, "W"), (W_dot, "W_dot"))]
    return _core.jacobi_equation_residual(system._handle, system._given, *args, _vector(W_ddot, "W_ddot", system.n))


ConjugateLocus = collections.namedtuple("ConjugateLocus", "angle t q multiplicity plane")
ConjugateLocus.__doc__ = """conjugate_locus's result, one entry per direction: the angle of v0 in the
plane of D(q0) spanned by the columns of `plane` (n x 2), the time t of the first point conjugate to
q0 along its trajectory (nan where there is none in (0, t_end]), that point q (rows) and its
multiplicity (0 where there is none)."""


def conjugate_locus(system: Union[System, str], *, t_end: float, q0: Optional[ArrayLike] = None, speed: float = 1.0,
                    plane: Optional[ArrayLike] = None, directions: int = 64, samples: int = 400,
                    tolerance: float = 1e-12) -> ConjugateLocus:
    """The first-conjugate locus of q0 (default: the file's) over the directions of a plane of
    D(q0): for v0 = speed (cos a e1 + sin a e2) at `directions` equal angles a, with (e1, e2) the
    columns of `plane` (default: the first two of the orthonormal basis of D(q0) that
    exponential_map uses), the first point conjugate to q0 in (0, t_end] along the trajectory from
    (q0, v0), found as conjugate_points finds it (docs/jacobi-fields.md)."""
    system = _as_system(system)
    count = _whole(directions, "directions", 1, 100000)
    speed = _finite(speed, "speed")
    if not speed > 0:
        raise BadInput("speed must be positive, got %r" % (speed,))
    q0 = _vector(q0, "q0", system.n)
    if plane is None:
        basis = exponential_map(system, np.zeros(system.n), q0=q0, h=1e-9).directions
        if basis.shape[1] < 2:
            raise BadInput("D(q0) has dimension %d: a locus needs a plane of directions" % basis.shape[1])
        e = basis[:, :2]
    else:
        e = np.asarray(plane)
        if e.shape != (system.n, 2) or not np.issubdtype(e.dtype, np.number) or np.iscomplexobj(e) \
                or e.dtype == np.bool_:
            raise BadInput("plane must be an array of %d rows and 2 columns, got %r" % (system.n, plane))
        e = e.astype(float)
    angles = 2 * np.pi * np.arange(count) / count
    t = np.full(count, np.nan)
    q = np.full((count, system.n), np.nan)
    multiplicity = np.zeros(count, dtype=int)
    for i, a in enumerate(angles):
        v0 = speed * (math.cos(a) * e[:, 0] + math.sin(a) * e[:, 1])
        points = conjugate_points(system, t_end=t_end, q0=q0, v0=v0, samples=samples, tolerance=tolerance)
        if points:
            t[i], multiplicity[i] = points[0].t, points[0].multiplicity
            q[i] = exponential_map(system, v0, q0=q0, h=points[0].t, directions=e, tolerance=tolerance).q
    return ConjugateLocus(angles, t, q, multiplicity, e)


MaupertuisJacobi = collections.namedtuple("MaupertuisJacobi", "s h q q_jacobi")
MaupertuisJacobi.__doc__ = """maupertuis_jacobi's result, one row per parameter s: h(s), the trajectory
of energy e c_P(s) and the Jacobi metric's trajectory c^e_Q(h(s)) (columns: the coordinates)."""


def maupertuis_jacobi(system: Union[System, str], *, energy: float, s: ArrayLike, q0: Optional[ArrayLike] = None,
                      direction: Optional[ArrayLike] = None, project_direction: bool = False,
                      tolerance: float = 1e-12) -> MaupertuisJacobi:
    """Both sides of the nonholonomic Maupertuis-Jacobi principle for a model file whose L is
    1/2 v^T G(q) v - V(q) (docs/jacobi-fields.md): the trajectory of energy `energy` from q0 along
    `direction` in D(q0) (defaults: the file's q0 and v0; project_direction projects it onto the
    constraint), and the trajectory of the Jacobi metric (e - V) G from the same direction at the
    reparametrisation h(s) = integral of (e - V) ds. The two agree up to the tolerance."""
    system = _as_system(system)
    if not isinstance(project_direction, bool):
        raise BadInput("project_direction must be True or False, got %r" % (project_direction,))
    t = np.atleast_1d(np.asarray(s))
    if t.ndim != 1 or not np.issubdtype(t.dtype, np.number) or np.iscomplexobj(t) or t.dtype == np.bool_:
        raise BadInput("s must be a list of numbers, got %r" % (s,))
    d = _core.maupertuis_jacobi(system._handle, system._given, _vector(q0, "q0", system.n),
                                _vector(direction, "direction", system.n), project_direction,
                                _finite(energy, "energy"), t.astype(float).tolist(), _finite(tolerance, "tolerance"),
                                _on_main_thread())
    return MaupertuisJacobi(**d)


def _required(x, what):
    if x is None:
        raise BadInput("%s is required" % what)
    return x


def _on_main_thread():
    """Whether Ctrl-C (SIGINT) can reach the computation: Python delivers signals to the main thread."""
    return threading.current_thread() is threading.main_thread()


def _not_interrupted(d):
    """The result of a study or an ensemble, or KeyboardInterrupt if Ctrl-C stopped it (its run under
    way within a step, and no further run)."""
    if d["interrupted"]:
        raise KeyboardInterrupt(d["interrupted"])
    return d


class Comparison:
    """Several methods from the same initial data: table (rows: output times of the longest run)
    with columns t and, per method, '<method>:energy_error', '<method>:constraint' and
    '<method>:error' (|q - q_ref|_inf against `reference`: "closed form" or the reference solver);
    summaries: the JSON summary of each run, in the order of `methods`."""

    def __init__(self, d):
        self.columns = list(d["columns"])
        self.table = d["table"]
        self.summaries = [json.loads(s) for s in d["summaries"]]
        self.reference = d["reference"]
        self.reference_failure = d["reference_failure"]
        self.t = self.table[:, 0]

    def column(self, name):
        return _column(self.table, self.columns, name)


def compare(system: Union[System, str], methods: Sequence[str], *, h: float, steps: Optional[int] = None,
            t_end: Optional[float] = None, q0: Optional[ArrayLike] = None, v0: Optional[ArrayLike] = None,
            every: int = 1, **method_options: Any) -> "Comparison":
    """Runs each of `methods` on `system` from the same initial data, with errors against the
    closed form or the reference solver (as `dalembert compare`). Returns a Comparison; raises
    KeyboardInterrupt on Ctrl-C (the run under way stops within its step, and no further run starts)."""
    system = _as_system(system)
    if isinstance(methods, str) or not all(isinstance(m, str) for m in methods):
        raise TypeError("methods must be a list of method names, got %r" % (methods,))
    options = _options("dla", h, steps, t_end, every, method_options)
    d = system._handle.compare(system._given, _vector(q0, "q0", system.n), _vector(v0, "v0", system.n),
                               list(methods), options, _on_main_thread())
    return Comparison(_not_interrupted(d))


class Convergence:
    """Errors |q - q_ref|_inf at t_end for each step size: h, error (NaN where a run failed),
    fitted (the step sizes the order was fitted on), order (the least-squares slope), reference."""

    def __init__(self, d):
        self.method = d["method"]
        self.h = np.array(d["h"])
        self.steps = np.array(d["steps"])
        self.error = np.array(d["error"])
        self.fitted = np.array(d["fitted"], dtype=bool)
        self.failures = list(d["failures"])
        self.order = d["order"]
        self.reference = d["reference"]
        self.failure = d["failure"]

    def __repr__(self):
        return "<dalembert.Convergence %s: order %.3f over %d step sizes>" % (self.method, self.order, len(self.h))


def convergence(system: Union[System, str], method: str, *, h: ArrayLike, t_end: float,
                q0: Optional[ArrayLike] = None, v0: Optional[ArrayLike] = None,
                **method_options: Any) -> "Convergence":
    """The error at t_end of `method` for each step size in `h` (each dividing t_end), and the
    fitted order (as `dalembert convergence`). Returns a Convergence; raises KeyboardInterrupt on
    Ctrl-C (the run under way stops within its step, and no further run starts)."""
    system = _as_system(system)
    h_list = [_finite(x, "h") for x in np.atleast_1d(h)]
    options = _options(method, min(h_list) if h_list else 0.1, None, t_end, 1, method_options, check_steps=False)
    d = system._handle.convergence(system._given, _vector(q0, "q0", system.n), _vector(v0, "v0", system.n), method,
                                   h_list, _finite(t_end, "t_end"), options, _on_main_thread())
    return Convergence(_not_interrupted(d))


class Ensemble:
    """One row per sample (as `dalembert ensemble`): data, shape (samples, len(columns)), with the
    columns sample, the ranged parameters (if any), steps, energy0, energy_drift, max_constraint and
    the final state '<column>_final'; status (one string per sample: "ok", "solver-failure", ...); issues: (sample,
    kind, message) of the samples that failed."""

    def __init__(self, d):
        reader = csv.reader(io.StringIO(d["csv"]))
        header = next(reader)
        rows = list(reader)
        status_at = header.index("status")
        self.columns = [c for i, c in enumerate(header) if i != status_at]
        self.status = [r[status_at] for r in rows]
        values = [[float(x) if x else math.nan for i, x in enumerate(r) if i != status_at] for r in rows]
        self.data = np.array(values, dtype=float).reshape(len(rows), len(self.columns))
        self.issues = list(d["issues"])

    def column(self, name):
        return _column(self.data, self.columns, name)


def ensemble(system: Union[System, str], method: str = "dla", *, h: float, steps: Optional[int] = None,
             t_end: Optional[float] = None, samples: Union[int, Sequence[Mapping[str, Any]]],
             ranges: Optional[Mapping[str, Tuple[float, float]]] = None, sampling: str = "grid",
             seed: Optional[int] = None, threads: Optional[int] = None, **method_options: Any) -> "Ensemble":
    """Many runs of `system`, one per sample, on `threads` threads (default: every core), as
    `dalembert ensemble`. Either `samples` is a list of dicts with any of 'parameters'
    ({name: value}), 'q0', 'v0'; or `ranges` is {parameter: (lo, hi)} and `samples` an int: with
    sampling="grid" the values per range (both ends included; samples**len(ranges) runs), with
    sampling="random" the number of runs, each parameter uniform on [lo, hi) from `seed` (default 1),
    the same samples as the command line's for the same seed. Returns an Ensemble; raises
    KeyboardInterrupt on Ctrl-C (the runs under way stop within their step, and no further sample
    starts)."""
    system = _as_system(system)
    options = _options(method, h, steps, t_end, 1, method_options)
    if threads is None:
        threads = 0
    elif isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or not 1 <= threads <= 4096:
        raise BadInput("threads must be a whole number from 1 to 4096, got %r" % (threads,))
    if ranges is not None:
        return Ensemble(_not_interrupted(_ensemble_ranges(system, ranges, samples, sampling, seed, options,
                                                          int(threads))))
    if sampling != "grid" or seed is not None:
        raise BadInput("sampling and seed apply to ranges; give ranges={name: (lo, hi)}")
    if isinstance(samples, numbers.Integral):
        raise BadInput("samples=%r is a count: give ranges={name: (lo, hi)} to sample, or a list of samples" % samples)
    parameters, q0s, v0s = [], [], []
    for k, s in enumerate(samples):
        if not isinstance(s, dict) or set(s) - {"parameters", "q0", "v0"}:
            raise TypeError("samples[%d] must be a dict with keys among 'parameters', 'q0', 'v0', got %r" % (k, s))
        given = dict(system._given)
        given.update(s.get("parameters", {}))
        parameters.append([(str(a), _finite(b, "samples[%d] parameter %s" % (k, a))) for a, b in given.items()])
        q0s.append(_vector(s.get("q0"), "samples[%d] q0" % k, system.n))
        v0s.append(_vector(s.get("v0"), "samples[%d] v0" % k, system.n))
    if len(parameters) > _core.max_samples:
        raise BadInput("at most %d samples, got %d" % (_core.max_samples, len(parameters)))
    return Ensemble(_not_interrupted(system._handle.ensemble(parameters, q0s, v0s, options, int(threads),
                                                             _on_main_thread())))


def _ensemble_ranges(system, ranges, samples, sampling, seed, options, threads):
    if not isinstance(ranges, dict) or not ranges:
        raise BadInput("ranges must be a non-empty dict {parameter: (lo, hi)}, got %r" % (ranges,))
    checked = []
    for name, bounds in ranges.items():
        name = str(name)
        if name in dict(system._given):
            raise BadInput("ranges: %s is also a fixed parameter of the system" % name)
        try:
            lo, hi = bounds
        except (TypeError, ValueError):
            raise BadInput("ranges[%r] must be (lo, hi), got %r" % (name, bounds)) from None
        lo, hi = _finite(lo, "ranges[%r] lo" % name), _finite(hi, "ranges[%r] hi" % name)
        if lo > hi:
            raise BadInput("ranges[%r]: lo must not exceed hi, got (%r, %r)" % (name, lo, hi))
        checked.append((name, lo, hi))
    count = _whole(samples, "samples", 1, _core.max_samples)
    if sampling == "grid":
        if seed is not None:
            raise BadInput("seed applies to sampling='random'; the grid is not random")
        if count ** len(checked) > _core.max_samples:
            raise BadInput("samples=%d per parameter on a grid of %d parameters gives more than %d runs"
                           % (count, len(checked), _core.max_samples))
        seed = 0
    elif sampling == "random":
        seed = 1 if seed is None else _whole(seed, "seed", 0, 2**63 - 1)
    else:
        raise BadInput("sampling must be 'grid' or 'random', got %r" % (sampling,))
    return system._handle.ensemble_ranges(system._given, checked, sampling, count, seed, options, threads,
                                          _on_main_thread())


def _provenance(system, options, q0, v0, q1, z0):
    """What the summary of `dalembert run` records about a run, for a run from Python: the version,
    the system (for a model made in Python, its model-file text), the parameters and initial data
    actually used (the defaults where none were given) and every option."""
    initial = {"q0": q0 if q0 is not None else system.q0}
    if q1 is not None:
        initial["q1"] = q1
    else:
        initial["v0"] = v0 if v0 is not None else system.v0
    if z0 is not None or system.z0 is not None:
        initial["z0"] = z0 if z0 is not None else system.z0
    provenance = {"dalembert": {"version": __version__, "python": platform.python_version()}, "system": system._source,
                  "parameters": dict(system.parameters), "initial": initial, "options": dict(options)}
    text = system._text if system._text is not None else system._handle.source_text
    if text is not None:  # the model file as it was read: run it again with `dalembert run`
        provenance["model"] = text
        provenance["model_sha256"] = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    return provenance


# ---- checking the arguments (the checks of the command line, with Python's names) -------------

_OPTION_TABLE = _core.method_options()  # name, kind, values, range and choices of each method option
_DEFAULTS = _core.default_options()  # those of the command line
_METHOD_OPTIONS = sorted(d["name"] for d in _OPTION_TABLE)


def _as_system(target):
    if isinstance(target, System):
        return target
    if isinstance(target, str):
        return system(target)
    raise TypeError("expected a dalembert.System or a system's name, got %r" % (target,))


def _names(x, what):
    """A list of coordinate names, or [] for None; BadInput otherwise."""
    if x is None:
        return []
    if isinstance(x, str) or not all(isinstance(c, str) for c in x):
        raise BadInput("%s must be a list of coordinate names, got %r" % (what, x))
    return list(x)


def _finite(x, what):
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise BadInput("%s must be a number, got %r" % (what, x))
    try:
        x = float(x)
    except OverflowError:  # an int beyond the doubles, 10**400
        raise BadInput("%s must be a finite number, got %r" % (what, x)) from None
    if not math.isfinite(x):
        raise BadInput("%s must be a finite number, got %r" % (what, x))
    return x


def _whole(x, what, lo, hi):
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or not lo <= x <= hi:
        raise BadInput("%s must be a whole number from %d to %d, got %r" % (what, lo, hi, x))
    return int(x)


def _vector(x, what, n):
    """n finite numbers as a list, or None (the default)."""
    if x is None:
        return None
    a = np.asarray(x)
    if a.ndim != 1 or a.size != n or not (np.issubdtype(a.dtype, np.number) and not np.issubdtype(a.dtype, np.bool_)):
        raise BadInput("%s must be %d number(s), one per coordinate, got %r" % (what, n, x))
    if np.iscomplexobj(a):  # astype(float) would keep the real parts silently
        raise BadInput("%s must be real numbers, got %r" % (what, x))
    a = a.astype(float)
    if not np.all(np.isfinite(a)):
        raise BadInput("%s must be finite, got %r" % (what, x))
    return a.tolist()


def _options(method, h, steps, t_end, every, method_options, check_steps=True):
    unknown = set(method_options) - set(_METHOD_OPTIONS)
    if unknown:
        raise TypeError("unexpected keyword argument(s) %s (method options: %s)"
                        % (", ".join(sorted(unknown)), ", ".join(_METHOD_OPTIONS)))
    if not isinstance(method, str):
        raise BadInput("method must be a method's name (see dalembert.methods()), got %r" % (method,))
    o = dict(_DEFAULTS)
    o.update(method_options)
    o["method"] = method
    o["h"] = _finite(h, "h")
    if not o["h"] > 0:
        raise BadInput("h must be positive, got %r" % (h,))
    if check_steps:
        if (steps is None) == (t_end is None):
            raise BadInput("give exactly one of steps and t_end")
        o["steps"] = _whole(steps, "steps", 0, MAX_STEPS) if steps is not None else _steps_for(t_end, o["h"])
    else:
        o["steps"] = 1
    o["every"] = _whole(every, "every", 1, MAX_STEPS)
    for d in _OPTION_TABLE:
        o[d["name"]] = _method_option(d, o[d["name"]])
    if "tolerance" in method_options:  # as on the command line: the reference solver follows --tolerance
        o["reference_tolerance"] = max(o["tolerance"], 1e-15)
    return o


def _method_option(d, x):
    """x checked against the description d of a method option (_core.method_options())."""
    name = d["name"]
    if d["kind"] == "whole":
        return _whole(x, name, int(d["low"]), int(d["high"]))
    if d["kind"] == "choice":
        if x not in d["choices"]:
            raise BadInput("%s must be one of %s, got %r" % (name, ", ".join(d["choices"]), x))
        return x
    x = _finite(x, name)
    if not ((x > d["low"]) if d["above_low"] else (x >= d["low"])) or not x <= d["high"]:
        verb = "lie" if d["values"].startswith("in ") else "be"
        raise BadInput("%s must %s %s, got %r" % (name, verb, d["values"], x))
    return x


def _steps_for(t_end, h):
    """T/h for a final time T that is a multiple of h (within 1e-8 T/h), as on the command line."""
    t_end = _finite(t_end, "t_end")
    if not t_end > 0:
        raise BadInput("t_end must be positive, got %r" % (t_end,))
    ratio = t_end / h
    if not ratio <= MAX_STEPS:
        raise BadInput("t_end=%r with h=%r makes %g steps, more than the limit of %d" % (t_end, h, ratio, MAX_STEPS))
    steps = round(ratio)
    if steps < 1 or abs(ratio - steps) > 1e-8 * ratio:
        raise BadInput("t_end=%r is not a multiple of h=%r (t_end/h = %.10g); give a multiple, or steps" % (t_end, h, ratio))
    return steps
