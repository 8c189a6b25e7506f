#!/usr/bin/python3
"""Work-precision diagram: error at the final time against wall time, for every single-trajectory
method of the command line, on the particle with potential (--param potential=1), the knife edge on
the inclined plane, the vertical disk and the Chaplygin sleigh (catalogue defaults).

    /usr/bin/python3 bench/work_precision.py [--build build] [--out docs/figures] [--t-end 100] [--repeats 5]

For each system, method and step size h = 0.2 / 2^j (j = 0..5) it runs
    build/dalembert run SYSTEM --method METHOD --h H --steps T/H --every T/H --out ... --summary ...
--repeats times (default 5) and keeps the smallest wall_time_seconds of the summaries (the machine is
shared: contention only ever adds wall time, so the minimum is the least disturbed run); the error is
|q_N - q_ref(T)|_inf with q_ref(T) from `--method reference` (Bulirsch-Stoer, tolerance 1e-13) at
the smallest h. Methods: dla, mla, gf, gf-sym (--alpha 0.25; at alpha = 1/2 it is gf), gf-cp, fim,
mclachlan-perlmutter, discrete-gradient, spark with 2, 3, 4 and 5 stages, rk4 (`del` integrates the
unconstrained Lagrangian and is rejected by the command line for these constrained systems).
Writes OUT/work_precision.csv, OUT/work_precision.png (log-log, one panel per system) and prints a
markdown table (also OUT/work_precision.md).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SYSTEMS = [("particle", ["--param", "potential=1"], ["x", "y", "z"], "particle, V = x² + y²"),
           ("knife-edge", [], ["x", "y", "phi"], "knife edge on inclined plane"),
           ("vertical-disk", [], ["x", "y", "theta", "phi"], "vertical disk"),
           ("chaplygin-sleigh", [], ["x", "y", "theta"], "Chaplygin sleigh")]
# (label, method, its options)
METHODS = [("dla", "dla", []), ("mla", "mla", []), ("gf", "gf", []), ("gf-sym (α=¼)", "gf-sym", ["--alpha", "0.25"]),
           ("gf-cp", "gf-cp", []), ("fim", "fim", []), ("mclachlan-perlmutter", "mclachlan-perlmutter", []),
           ("discrete-gradient", "discrete-gradient", []), ("spark, 2 stages", "spark", ["--stages", "2"]),
           ("spark, 3 stages", "spark", ["--stages", "3"]), ("spark, 4 stages", "spark", ["--stages", "4"]),
           ("spark, 5 stages", "spark", ["--stages", "5"]), ("rk4", "rk4", [])]
STEP_SIZES = [0.2 / 2**j for j in range(6)]


def run(build, system, extra, method, margs, h, steps, tmp):
    out, summ = os.path.join(tmp, "t.csv"), os.path.join(tmp, "s.json")
    cmd = [os.path.join(build, "dalembert"), "run", system, "--method", method, "--h", repr(h),
           "--steps", str(steps), "--every", str(steps), "--out", out, "--summary", summ] + extra + margs
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(summ) as f:
        s = json.load(f)
    with open(out) as f:
        last = list(csv.DictReader(f))[-1]
    return last, s, cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="docs/figures")
    ap.add_argument("--t-end", type=float, default=100.0)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for system, extra, coords, _ in SYSTEMS:
            h_ref = STEP_SIZES[-1]
            ref, _, _ = run(args.build, system, extra, "reference", [], h_ref, round(args.t_end / h_ref), tmp)
            q_ref = [float(ref[c]) for c in coords]
            for label, method, margs in METHODS:
                for h in STEP_SIZES:
                    steps = round(args.t_end / h)
                    walls = []
                    for _ in range(args.repeats):
                        last, s, cmd = run(args.build, system, extra, method, margs, h, steps, tmp)
                        walls.append(s["wall_time_seconds"])
                    q = [float(last[c]) for c in coords]
                    err = max(abs(a - b) for a, b in zip(q, q_ref))
                    rows.append({"system": system, "method": label, "h": h, "steps": steps,
                                 "error": err, "wall_time_seconds": min(walls),
                                 "newton_iterations_mean": s.get("newton_iterations", {}).get("mean", 0.0)})
                    print(f"{system:16s} {label:20s} h={h:<9.6g} error={err:9.3e} "
                          f"wall={rows[-1]['wall_time_seconds']:9.3e}s", file=sys.stderr)

    csv_path = os.path.join(args.out, "work_precision.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})

    fig, axes = plt.subplots(2, 2, figsize=(12, 9.5))
    markers = "osD^v<>ph*xX+d"
    colors = plt.get_cmap("tab20").colors  # one colour per method (the default cycle has ten)
    for ax, (system, _, _, title) in zip(axes.flat, SYSTEMS):
        for (label, _, _), mk, color in zip(METHODS, markers, colors[::2] + colors[1::2]):
            pts = [r for r in rows if r["system"] == system and r["method"] == label and r["error"] > 0]
            ax.loglog([r["wall_time_seconds"] for r in pts], [r["error"] for r in pts], marker=mk, color=color,
                      label=label)
        ax.set_title(f"{title}, T = {args.t_end:g}")
        ax.set_xlabel("wall time of the run [s]")
        ax.set_ylabel("error |q(T) − q_ref(T)|∞")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"Work–precision: h = 0.2 … 0.00625 (halving), fastest of {args.repeats} runs")
    fig.tight_layout()
    png = os.path.join(args.out, "work_precision.png")
    fig.savefig(png, dpi=90)

    lines = ["| system | method | " + " | ".join(f"h = {h:g}" for h in STEP_SIZES) + " |",
             "|---|---|" + "---|" * len(STEP_SIZES)]
    for system, _, _, _ in SYSTEMS:
        for label, _, _ in METHODS:
            cells = []
            for h in STEP_SIZES:
                r = next(r for r in rows if r["system"] == system and r["method"] == label and r["h"] == h)
                cells.append(f"{r['error']:.1e} / {r['wall_time_seconds'] * 1e3:.2f} ms")
            lines.append(f"| {system} | {label} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    with open(os.path.join(args.out, "work_precision.md"), "w") as f:
        f.write(table + "\n")
    print(table)
    print(f"\nwrote {csv_path}, {png}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
