"""dalembert.whipple_bicycle(): the Whipple bicycle of the benchmark of Meijaard, Papadopoulos, Ruina
and Schwab (Proc. R. Soc. A 463 (2007) 1955-1982), built from sympy.physics.mechanics frames,
points and rigid bodies, as a model of dalembert.model (docs/bicycle.md).

Four rigid bodies: the rear wheel R, the rear frame with its rider B, the front frame (fork and
handlebar) H, the front wheel F. Eight coordinates: the rear contact (x, y), the rear frame's yaw,
roll and pitch, the steer angle about the steer axis, and the rotation of each wheel. The wheels
roll without slipping (four velocity constraints: the material point at each contact is at rest
horizontally) and the front wheel touches the ground (a holonomic constraint: the front contact's
height is zero), leaving three degrees of freedom of velocity.

The parameters are the benchmark's, in its own axes (x forward, y to the right, z down, at the
reference configuration: upright, straight ahead, both wheels on the ground): the wheelbase w, the
trail c, the steer axis tilt lam, the positions (xB, zB), (xH, zH) of the frames' mass centres and
the inertias about them, IBxz and IHxz included. The model's own axes have z up (y to the left):
heights are -zB, -zH, and the products of inertia change sign.
"""
import math

# Table 1 of Meijaard et al. (2007): the benchmark bicycle.
BENCHMARK = {
    "w": 1.02, "c": 0.08, "lam": math.pi / 10, "g": 9.81,
    "rR": 0.3, "mR": 2.0, "IRxx": 0.0603, "IRyy": 0.12,
    "xB": 0.3, "zB": -0.9, "mB": 85.0, "IBxx": 9.2, "IByy": 11.0, "IBzz": 2.8, "IBxz": 2.4,
    "xH": 0.9, "zH": -0.7, "mH": 4.0, "IHxx": 0.05892, "IHyy": 0.06, "IHzz": 0.00708, "IHxz": -0.00756,
    "rF": 0.35, "mF": 3.0, "IFxx": 0.1405, "IFyy": 0.28,
}
DESCRIPTIONS = {
    "w": "wheelbase", "c": "trail", "lam": "steer axis tilt from the vertical (rad)", "g": "gravity",
    "rR": "rear wheel radius", "mR": "rear wheel mass", "IRxx": "rear wheel, about a diameter",
    "IRyy": "rear wheel, about its axle",
    "xB": "rear frame mass centre, ahead of the rear contact", "zB": "rear frame mass centre, z down",
    "mB": "rear frame and rider mass", "IBxx": "rear frame inertia xx", "IByy": "rear frame inertia yy",
    "IBzz": "rear frame inertia zz", "IBxz": "rear frame inertia xz (benchmark axes, z down)",
    "xH": "front frame mass centre, ahead of the rear contact", "zH": "front frame mass centre, z down",
    "mH": "front frame mass", "IHxx": "front frame inertia xx", "IHyy": "front frame inertia yy",
    "IHzz": "front frame inertia zz", "IHxz": "front frame inertia xz (benchmark axes, z down)",
    "rF": "front wheel radius", "mF": "front wheel mass", "IFxx": "front wheel, about a diameter",
    "IFyy": "front wheel, about its axle",
}
COORDINATES = ["x", "y", "yaw", "roll", "pitch", "steer", "rear", "front"]


def whipple_model(speed=5.0):
    """The keyword arguments of dalembert.model for the bicycle, running upright and straight at
    `speed` (its initial data)."""
    import sympy as sp
    import sympy.physics.mechanics as me

    x, y, yaw, roll, pitch, steer, rear, front = me.dynamicsymbols(" ".join(COORDINATES))
    p = {name: sp.Symbol(name) for name in BENCHMARK}
    N = me.ReferenceFrame("N")                                   # x forward, z up at the start
    heading = N.orientnew("heading", "Axis", [yaw, N.z])
    rolled = heading.orientnew("rolled", "Axis", [roll, heading.x])
    # The rear frame's axes have z along the steer axis (up, tilted back by lam): the front frame
    # turns about it, and the expressions stay short. It pitches about the rear axle.
    frame = rolled.orientnew("frame", "Axis", [pitch - p["lam"], rolled.y])
    fork = frame.orientnew("fork", "Axis", [steer, frame.z])
    rear_wheel = frame.orientnew("rear_wheel", "Axis", [rear, frame.y])
    front_wheel = fork.orientnew("front_wheel", "Axis", [front, fork.y])
    # Axes fixed in each frame that are the ground's at the reference configuration, in which the
    # benchmark gives positions and inertias.
    frame_level = frame.orientnew("frame_level", "Axis", [p["lam"], frame.y])
    fork_level = fork.orientnew("fork_level", "Axis", [p["lam"], fork.y])

    def level(forward, up, axes):
        """The vector forward * x + up * z of the reference configuration, in `axes` tilted by lam."""
        lam = p["lam"]
        return (forward * sp.cos(lam) + up * sp.sin(lam)) * axes.x + (up * sp.cos(lam) - forward * sp.sin(lam)) * axes.z

    origin = me.Point("O")
    rear_contact = origin.locatenew("rear_contact", x * N.x + y * N.y)
    rear_centre = rear_contact.locatenew("rear_centre", p["rR"] * rolled.z)
    # Points fixed in the rear frame, from the rear axle: the frame's mass centre, and where the
    # steer axis meets the ground at the reference configuration (the trail ahead of the front contact).
    frame_centre = rear_centre.locatenew("frame_centre", level(p["xB"], -p["zB"] - p["rR"], frame))
    steer_foot = rear_centre.locatenew("steer_foot", level(p["w"] + p["c"], -p["rR"], frame))
    # Points fixed in the front frame, from that point of the steer axis.
    fork_centre = steer_foot.locatenew("fork_centre", level(p["xH"] - p["w"] - p["c"], -p["zH"], fork))
    front_centre = steer_foot.locatenew("front_centre", level(-p["c"], p["rF"], fork))
    # The front contact: from the wheel's centre, a radius down in the wheel's plane.
    up_in_plane = N.z - me.dot(N.z, fork.y) * fork.y
    front_contact = front_centre.locatenew("front_contact", -p["rF"] * up_in_plane.normalize())
    for point in (rear_centre, frame_centre, fork_centre, front_centre, front_contact):
        point.set_vel(N, point.pos_from(origin).dt(N))

    # Inertias about the mass centres: the benchmark's (z down) in level axes with z up, so the
    # products xz change sign; the wheels are symmetric about their axles.
    bodies = [
        me.RigidBody("R", rear_centre, rear_wheel, p["mR"],
                     (me.inertia(frame, p["IRxx"], p["IRyy"], p["IRxx"]), rear_centre)),
        me.RigidBody("B", frame_centre, frame, p["mB"],
                     (me.inertia(frame_level, p["IBxx"], p["IByy"], p["IBzz"], 0, 0, -p["IBxz"]), frame_centre)),
        me.RigidBody("H", fork_centre, fork, p["mH"],
                     (me.inertia(fork_level, p["IHxx"], p["IHyy"], p["IHzz"], 0, 0, -p["IHxz"]), fork_centre)),
        me.RigidBody("F", front_centre, front_wheel, p["mF"],
                     (me.inertia(fork, p["IFxx"], p["IFyy"], p["IFxx"]), front_centre)),
    ]
    for body in bodies:
        body.potential_energy = body.mass * p["g"] * body.masscenter.pos_from(origin).dot(N.z)

    # Rolling: the material point of each wheel at its contact has no horizontal velocity.
    rear_slip = rear_centre.vel(N) + rear_wheel.ang_vel_in(N).cross(rear_contact.pos_from(rear_centre))
    front_slip = front_centre.vel(N) + front_wheel.ang_vel_in(N).cross(front_contact.pos_from(front_centre))
    speed_text = repr(float(speed))
    return dict(
        name="whipple-bicycle",
        summary="the benchmark Whipple bicycle of Meijaard et al. (2007), from sympy.physics.mechanics bodies",
        coordinates=[x, y, yaw, roll, pitch, steer, rear, front],
        lagrangian=me.Lagrangian(N, *bodies),
        constraints=[rear_slip.dot(N.x), rear_slip.dot(N.y), front_slip.dot(N.x), front_slip.dot(N.y)],
        holonomic=[front_contact.pos_from(origin).dot(N.z)],
        parameters={name: (value, DESCRIPTIONS[name]) for name, value in BENCHMARK.items()},
        q0=[0] * 8,
        v0=[speed_text, 0, 0, 0, 0, 0, speed_text + "/rR", speed_text + "/rF"],
    )


def upright(speed, parameters=None):
    """(q0, v0) of running upright and straight ahead at `speed` with the benchmark's radii or
    those of `parameters`."""
    radii = dict(BENCHMARK, **(parameters or {}))
    return [0.0] * 8, [speed, 0, 0, 0, 0, 0, speed / radii["rR"], speed / radii["rF"]]


def model_file_text(speed=5.0):
    """The bicycle as a model file (models/large/whipple-bicycle.toml is this text, written by
    `python3 -m dalembert._bicycle`), upright and straight at `speed`."""
    from ._model import model_text

    header = ("# The benchmark Whipple bicycle of Meijaard, Papadopoulos, Ruina and Schwab, Proc. R. Soc. A 463\n"
              "# (2007) 1955-1982, doi:10.1098/rspa.2007.1857 (docs/bicycle.md). Generated from\n"
              "# python/dalembert/_bicycle.py by `python3 -m dalembert._bicycle`: edit that, not this.\n")
    return header + model_text(**whipple_model(speed))


if __name__ == "__main__":
    import sys

    sys.stdout.write(model_file_text())
