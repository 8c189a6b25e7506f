"""Orders of convergence of dalembert's methods, shared by the tests that measure them against an
independent reference."""
import numpy as np

import dalembert


def position_errors_and_order(system, method, q0, v0, T, q_end, steps):
    """The largest position error at T of `method` run with N steps of T/N from (q0, v0), against
    q_end, for each N of `steps`, and the order fitted to them (printed)."""
    errors = []
    for N in steps:
        r = dalembert.run(system, method, h=T / N, steps=N, every=N, q0=q0, v0=v0)
        errors.append(np.max(np.abs(r.q[-1] - q_end)))
    fitted = np.polyfit(np.log([T / N for N in steps]), np.log(errors), 1)[0]
    print(method, ["%.2e" % e for e in errors], "order %.2f" % fitted)
    return errors, fitted
