#!/usr/bin/env python3
"""Holds the Chaplygin sleigh straight while it slides backwards, an unstable steady motion, with a
discrete LQR feedback on its steering torque (docs/control.md).

    PYTHONPATH=build/python python3 examples/python/steer_sleigh.py [--steps N]

The model file models/steered-sleigh.toml declares the torque tau as an input. A stepper takes dla
steps of h = 0.05 with tau held over each step; its Jacobians (A, B) at the steady motion give the
gain. Prints the unstable multiplier against exp(lambda h) of the closed form, the closed loop's
multipliers, and the heading and turn rate after N steps with and without the feedback.
"""
import argparse
import math
import os

import numpy as np
import scipy.linalg

import dalembert

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "..", "models", "steered-sleigh.toml")
H = 0.05
SPEED = -1.0        # along the blade: backwards
HEADING = [2, 5]    # (theta, p_theta) in the stepper's state (x, y, theta, p_x, p_y, p_theta)


def lqr_gain(stepper):
    """The discrete LQR gain on (theta, p_theta) at the straight motion the stepper is on. The
    translations are a symmetry and the speed is not steered (multipliers 1 that no torque moves),
    so the gain is computed on the heading's block, which the torque controls."""
    A, B = stepper.jacobians()
    A2, B2 = A[np.ix_(HEADING, HEADING)], B[HEADING]
    Q, R = np.eye(2), np.eye(1)
    P = scipy.linalg.solve_discrete_are(A2, B2, Q, R)
    K = np.linalg.solve(R + B2.T @ P @ B2, B2.T @ P @ A2)
    return A, A2, B2, K


def final_heading(stepper, K, steps):
    """(theta, theta_t) after `steps` steps from the straight motion turned at 0.05 rad/s, with the
    feedback tau = -K (theta, p_theta) if K is given, with tau = 0 otherwise."""
    stepper.reset(q0=[0.0, 0.0, 0.0], v0=[SPEED, 0.0, 0.05])
    for _ in range(steps):
        stepper.step(None if K is None else -K @ stepper.state[HEADING])
    return stepper.q[2], stepper.v[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400, help="steps of h = 0.05 (default 400: t = 20)")
    args = parser.parse_args()

    sleigh = dalembert.model_file(MODEL)
    stepper = dalembert.stepper(sleigh, "dla", h=H, q0=[0.0, 0.0, 0.0], v0=[SPEED, 0.0, 0.0])
    A, A2, B2, K = lqr_gain(stepper)
    m, I, a = (sleigh.parameters[k] for k in ("m", "I", "a"))
    rate = -m * a * SPEED / (I + m * a * a)  # the closed form: positive, unstable
    print("unstable multiplier of A: %.10f, exp(lambda h) = %.10f" % (max(abs(np.linalg.eigvals(A))),
                                                                     math.exp(rate * H)))
    print("gain K = %s, closed-loop multipliers %s" % (np.array2string(K[0], precision=6),
                                                       np.array2string(abs(np.linalg.eigvals(A2 - B2 @ K)),
                                                                       precision=6)))
    for label, gain in (("with LQR", K), ("without", None)):
        theta, theta_t = final_heading(stepper, gain, args.steps)
        print("%s: theta = %.3e, theta_t = %.3e at t = %g" % (label, theta, theta_t, stepper.t))


if __name__ == "__main__":
    main()
