#!/usr/bin/env python3
"""The same trajectories through a change of the method layer: the last row of a short run of every
(system, method) pair that runs, recorded once and held to 1e-12 relative to the state's scale.

Every catalogue system and every model file in models/ meets every method of `dalembert list`: a
pair the tool refuses (exit 2, the method does not apply to the system's kind) is recorded as
refused and must stay refused. A few pairs run again with the options that select another scheme of
the same family (SPARK's stages, the trapezoidal discrete Lagrangian, alpha), and the knife-edge
chain runs at two sizes: its steps are assembled term by term, while the catalogue's systems run at
fixed size and the model files at run-time size, so the three storages of every method are held.

Each run is h = 0.02 over 25 steps from the system's default initial data. The state in the last
row is compared, the columns before `energy` (positions, velocities, a contact system's z, a rigid
body's g and omega) and the momenta p_*: x against its record x_ref within
1e-12 * max(1, max |x_ref| over the state). What is computed from the state (energy, constraint
residuals, multipliers, a model file's monitors) is left out.

    python3 tests/python/trajectories.py --dalembert build/dalembert --models models --check tests/data/trajectories.json
    python3 tests/python/trajectories.py --dalembert build/dalembert --models models --record tests/data/trajectories.json

Record only from a commit whose trajectories are the ones to keep (the record names it). Exit status
0 when every pair matches its record, 1 otherwise (each difference is listed).
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

H = "0.02"
STEPS = "25"
TOLERANCE = 1e-12

# Options that select another scheme of a family: each runs on every system its method runs on.
VARIANTS = {
    "spark": [["--stages", "2"], ["--stages", "4"], ["--stages", "5"]],
    "dla": [["--rule", "trapezoid"], ["--alpha", "0.25"]],
    "mla": [["--rule", "trapezoid"]],
    "del": [["--rule", "trapezoid"]],
    "gf": [["--alpha", "0.25"]],
    "gf-sym": [["--alpha", "0.25"]],
}
# The knife-edge chain at a size beyond the smallest (every method but exact, which shoots on the
# continuous flow and takes seconds per step there).
EXTRA_SYSTEMS = [("knife-edge-chain", ["--param", "N=6"])]


def listing(dalembert):
    """Systems, methods and model files as `dalembert list` names them."""
    out = subprocess.run([dalembert, "list"], check=True, capture_output=True, text=True).stdout
    sections, current = {}, None
    for line in out.splitlines():
        if line.endswith(":") and not line.startswith(" ") and "  " not in line:
            current = sections.setdefault(line[:-1], [])
        elif line.strip() and current is not None:
            current.append(line.split()[0])
    return sections["systems"], sections["methods"]


def cases(dalembert, models):
    systems, methods = listing(dalembert)
    files = sorted(f for f in os.listdir(models) if f.endswith(".toml"))
    targets = [(s, []) for s in systems] + [(f"models/{f}", []) for f in files] + EXTRA_SYSTEMS
    for system, system_options in targets:
        for method in methods:
            if method == "exact" and system_options:
                continue
            yield system, method, system_options, VARIANTS.get(method, [])


def run(dalembert, root, system, method, options):
    path = os.path.join(root, system) if system.startswith("models/") else system
    command = [dalembert, "run", path, "--method", method, "--h", H, "--steps", STEPS, "--every", STEPS,
               "--quiet", *options]
    done = subprocess.run(command, capture_output=True, text=True)
    key = " ".join([system, method, *options])
    if done.returncode == 2:
        return key, {"status": 2}
    if done.returncode != 0:
        return key, {"status": done.returncode, "error": done.stderr.strip()[-300:]}
    rows = list(csv.reader(io.StringIO(done.stdout)))
    header, last = rows[0], rows[-1]
    state = header.index("energy") if "energy" in header else len(header)
    kept = [i for i, c in enumerate(header) if 0 < i < state or c.startswith("p_")]
    return key, {"status": 0, "last": {header[i]: float(last[i]) for i in kept}}


def differences(recorded, now):
    found = []
    for key, before in recorded.items():
        after = now.get(key)
        if after is None:
            found.append(f"{key}: no longer run (the system or method is gone)")
        elif after["status"] != before["status"]:
            found.append(f"{key}: exit status {before['status']} recorded, now {after['status']} "
                         f"{after.get('error', '')}")
        elif before["status"] == 0:
            scale = max([1.0] + [abs(x) for x in before["last"].values()])
            for column, x in before["last"].items():
                y = after["last"].get(column)
                if y is None:
                    found.append(f"{key}: column {column} is gone")
                elif not abs(y - x) <= TOLERANCE * scale and not (x != x and y != y):
                    found.append(f"{key}: {column} = {y!r}, recorded {x!r} "
                                 f"(difference {abs(y - x) / scale:.2e} of the scale {scale:.3g})")
    for key in now.keys() - recorded.keys():
        found.append(f"{key}: new pair, not recorded (record again after checking it)")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dalembert", required=True)
    parser.add_argument("--models", required=True, help="the models/ folder")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", metavar="FILE")
    what.add_argument("--check", metavar="FILE")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    root = os.path.dirname(os.path.abspath(args.models))
    def run_with_variants(case):
        """The pair, and its variants when the method runs on the system."""
        system, method, options, variants = case
        results = [run(args.dalembert, root, system, method, options)]
        if results[0][1]["status"] == 0:
            results += [run(args.dalembert, root, system, method, options + v) for v in variants]
        return results

    with ThreadPoolExecutor(args.jobs) as pool:
        now = dict(r for rs in pool.map(run_with_variants, cases(args.dalembert, args.models)) for r in rs)
    failed = {k: v for k, v in now.items() if v["status"] not in (0, 2)}

    if args.record:
        if failed:
            for key, v in failed.items():
                print(f"{key}: exit {v['status']}: {v['error']}", file=sys.stderr)
            return 1
        version = subprocess.run([args.dalembert, "--version"], capture_output=True, text=True).stdout.strip()
        with open(args.record, "w") as f:
            f.write(f'{{"recorded_with": {json.dumps(version)}, "h": {H}, "steps": {STEPS}, "cases": {{\n')
            f.write(",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(now.items())))
            f.write("\n}}\n")
        print(f"recorded {len(now)} pairs ({sum(v['status'] == 0 for v in now.values())} run) in {args.record}")
        return 0

    with open(args.check) as f:
        recorded = json.load(f)["cases"]
    found = differences(recorded, now)
    for line in found:
        print(line)
    print(f"{len(now)} pairs, {sum(v['status'] == 0 for v in now.values())} run: "
          f"{len(found)} difference(s) from {args.check}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
