#!/usr/bin/env python3
"""Step time against the number of knife edges, one curve per method, from bench_knife_edge_chain's
JSON output (aggregates or single runs; medians are used when present).

Usage: build/bench/bench_knife_edge_chain --benchmark_out=chain.json --benchmark_out_format=json
       scripts/plot_chain_benchmark.py chain.json docs/figures/knife_edge_chain_step.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {
    "dla": "dla, term by term (sparse LU)",
    "rk4": "rk4, term by term (sparse LU)",
    "fim": "fim, term by term (sparse LU)",
    "dla_dense": "dla on the dense interface",
    "fim_dense": "fim on the dense interface",
    "mla": "mla, term by term (simplified Newton)",
    "gf": "gf, term by term (simplified Newton)",
    "gf-sym": "gf-sym (α = ¼), term by term",
    "gf-cp": "gf-cp, term by term",
    "mla_dense": "mla on the dense interface",
    "gf_dense": "gf on the dense interface",
    "mclachlan-perlmutter": "mclachlan-perlmutter, term by term",
    "mclachlan-perlmutter_dense": "mclachlan-perlmutter on the dense interface",
    "discrete-gradient": "discrete-gradient, term by term",
    "discrete-gradient_dense": "discrete-gradient on the dense interface",
    "spark": "spark (3 stages), term by term",
    "spark_dense": "spark (3 stages) on the dense interface",
    "dla-trapezoid": "dla, trapezoidal L_d, term by term",
    "dla-trapezoid_dense": "dla, trapezoidal L_d, on the dense interface",
    "fim-trapezoid": "fim, trapezoidal L_d, term by term",
    "fim-trapezoid_dense": "fim, trapezoidal L_d, on the dense interface",
}

data = json.load(open(sys.argv[1]))
has_medians = any(b.get("aggregate_name") == "median" for b in data["benchmarks"])
series = {}
for b in data["benchmarks"]:
    if has_medians and b.get("aggregate_name") != "median":
        continue
    method = b["name"].split("/")[1]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    series.setdefault(method, []).append((b["skates"], b["real_time"] * scale))

fig, ax = plt.subplots(figsize=(9.6, 4.8))
# a method and its dense variant side by side, 21 curves
colours = plt.get_cmap("tab20").colors + plt.get_cmap("tab20b").colors
for index, method in enumerate(LABELS):
    if method not in series:
        continue
    points = sorted(series[method])
    n, t = zip(*points)
    style = "s--" if method.endswith("_dense") else "o-"
    ax.loglog(n, t, style, label=LABELS[method], ms=4, color=colours[index % len(colours)])
if "dla" in series:
    points = sorted(series["dla"])
    n_last, t_last = points[-1]
    ns = [p[0] for p in points]
    ax.loglog(ns, [t_last * x / n_last for x in ns], "k:", lw=1, label="∝ N")
ax.set_xlabel("knife edges N (3N coordinates, N constraints)")
ax.set_ylabel("time per step [s]")
ax.set_title("One step on a chain of knife edges")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
