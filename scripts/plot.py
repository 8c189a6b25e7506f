#!/usr/bin/python3
"""Draws dalembert figures with matplotlib from a JSON list of figure specifications.

Usage: /usr/bin/python3 scripts/plot.py FIGURES.json

Each figure: {"output": "dir/stem", "title": str, "xlabel": str, "ylabel": str,
              "xscale": "linear"|"log", "yscale": "linear"|"log"|"symlog",
              "aspect_equal": bool,
              "series": [{"csv": path, "x": column, "y": column, "label": str,
                          "style": "line"|"markers"|"line+markers"|"dashed"|
                                   "dashed+markers"|"dotted"|"dashdot",
                          "transform": "abs"|"envelope"|null, "color": matplotlib colour|null}]}
"kind": "heatmap" (default "lines") draws one series with a "z" column on the grid of its x and y
values (pcolormesh, diverging colours centred on zero when z changes sign, a colour bar labelled
with the series label). Writes dir/stem.png and dir/stem.svg. Columns are CSV header names. Points that cannot be drawn
on a log axis (zero or negative after the transform) are dropped, not clipped. "envelope" draws
the largest |y| in each of 600 consecutive windows: an oscillating error (a period-2 mode, say)
then reads as its bound instead of a filled band.
"""
import csv
import json
import math
import os
import secrets
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLES = {
    "line": dict(linestyle="-", marker=None),
    "dashed": dict(linestyle="--", marker=None),
    "markers": dict(linestyle="none", marker="o", markersize=4),
    "line+markers": dict(linestyle="-", marker="o", markersize=4),
    "dashed+markers": dict(linestyle="--", marker="s", markersize=5, markerfacecolor="none"),
    "dotted": dict(linestyle=":", marker=None),
    "dashdot": dict(linestyle="-.", marker=None),
}


def read_columns(path, names):
    with open(path, newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        index = {name: header.index(name) for name in names}
        data = {name: [] for name in names}
        for row in rows:
            for name in names:
                data[name].append(float(row[index[name]]))
    return data


def draw_heatmap(spec, fig, ax):
    s = spec["series"][0]
    data = read_columns(s["csv"], [s["x"], s["y"], s["z"]])
    xs, ys = sorted(set(data[s["x"]])), sorted(set(data[s["y"]]))
    ix, iy = {x: i for i, x in enumerate(xs)}, {y: j for j, y in enumerate(ys)}
    grid = [[math.nan] * len(xs) for _ in ys]
    for x, y, z in zip(data[s["x"]], data[s["y"]], data[s["z"]]):
        grid[iy[y]][ix[x]] = z
    values = [z for z in data[s["z"]] if math.isfinite(z)]
    lo, hi = min(values), max(values)
    if lo < 0 < hi:
        bound = max(-lo, hi)
        options = dict(cmap="RdBu_r", vmin=-bound, vmax=bound)
    else:
        options = dict(cmap="viridis")
    mesh = ax.pcolormesh(xs, ys, grid, shading="nearest", **options)
    fig.colorbar(mesh, ax=ax, label=s.get("label", ""))


def draw(spec):
    heatmap = spec.get("kind") == "heatmap"
    fig, ax = plt.subplots(figsize=spec.get("size", (6.0, 5.0) if heatmap else (7.0, 4.2)), dpi=110)
    if heatmap:
        draw_heatmap(spec, fig, ax)
        spec = dict(spec, series=[])
    drawn = 0
    for s in spec["series"]:
        data = read_columns(s["csv"], [s["x"], s["y"]])
        xs, ys = data[s["x"]], data[s["y"]]
        if s.get("transform") in ("abs", "envelope"):
            ys = [abs(y) for y in ys]
        if s.get("transform") == "envelope" and len(xs) > 1200:
            width = len(xs) // 600
            xs = [xs[i] for i in range(0, len(xs), width)]
            ys = [max(ys[i:i + width]) for i in range(0, len(ys), width)]
        points = [(x, y) for x, y in zip(xs, ys)
                  if math.isfinite(x) and math.isfinite(y)
                  and not (spec.get("yscale") == "log" and y <= 0)
                  and not (spec.get("xscale") == "log" and x <= 0)]
        style = dict(STYLES[s.get("style", "line")])
        if s.get("color"):
            style["color"] = s["color"]
        ax.plot([p[0] for p in points], [p[1] for p in points], label=s.get("label"),
                linewidth=1.3, **style)
        drawn += len(points)
    if heatmap or drawn:
        ax.set_xscale(spec.get("xscale", "linear"))
        ax.set_yscale(spec.get("yscale", "linear"))
    else:  # nothing finite to draw (every run failed): an empty frame that says so
        ax.text(0.5, 0.5, "no finite data", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel(spec.get("xlabel", ""))
    ax.set_ylabel(spec.get("ylabel", ""))
    ax.set_title(spec.get("title", ""), fontsize=11)
    if spec.get("aspect_equal"):
        ax.set_aspect("equal", adjustable="datalim")
    if not heatmap:
        ax.grid(True, which="major", alpha=0.35)
    if any(s.get("label") for s in spec["series"]):
        ax.legend(fontsize=9)
    fig.tight_layout()
    for ext in ("png", "svg"):
        save(fig, f"{spec['output']}.{ext}", ext)
    plt.close(fig)


def save(fig, path, ext):
    """Writes the figure as dalembert writes its tables: into a new file with an unpredictable name
    in the same folder, never following a link planted there, then renamed over `path` (a link at
    `path` is replaced, not followed)."""
    folder = os.path.dirname(path) or "."
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=ext)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def main():
    with open(sys.argv[1]) as f:
        figures = json.load(f)
    for spec in figures:
        draw(spec)


if __name__ == "__main__":
    main()
