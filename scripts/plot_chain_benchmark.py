#!/usr/bin/env python3
"""Step time against the number of knife edges from bench_knife_edge_chain's JSON output.

Usage: build/bench/bench_knife_edge_chain --benchmark_out=chain.json --benchmark_out_format=json
       scripts/plot_chain_benchmark.py chain.json docs/figures/knife_edge_chain_step.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

data = json.load(open(sys.argv[1]))
series = {}
for b in data["benchmarks"]:
    kind = b["name"].split("/")[1]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    series.setdefault(kind, []).append((b["skates"], b["real_time"] * scale))

fig, ax = plt.subplots(figsize=(6, 4.2))
for kind, points in sorted(series.items()):
    points.sort()
    n, t = zip(*points)
    ax.loglog(n, t, "o-", label=f"Newton on {'Eigen::SparseLU' if kind == 'sparse' else 'dense PartialPivLU'}")
n0, t0 = series["sparse"][0] if "sparse" in series else (1, 1)
ns = [p[0] for p in sorted(series.get("sparse", []))]
if ns:
    ax.loglog(ns, [t0 * x / n0 for x in ns], "k:", lw=1, label="∝ N")
ax.set_xlabel("knife edges N (4N unknowns per step)")
ax.set_ylabel("wall time per DLA step [s]")
ax.set_title("Midpoint DLA on a chain of knife edges")
ax.grid(True, which="both", alpha=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
