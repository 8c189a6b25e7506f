#!/usr/bin/python3
"""Draws dalembert figures with matplotlib from a JSON list of figure specifications.

Usage: /usr/bin/python3 scripts/plot.py FIGURES.json

Each figure: {"output": "dir/stem", "title": str, "xlabel": str, "ylabel": str,
              "xscale": "linear"|"log", "yscale": "linear"|"log"|"symlog",
              "aspect_equal": bool,
              "series": [{"csv": path, "x": column, "y": column, "label": str,
                          "style": "line"|"markers"|"line+markers"|"dashed",
                          "transform": "abs"|null, "color": matplotlib colour|null}]}
writes dir/stem.png and dir/stem.svg. Columns are CSV header names. Points that cannot be drawn
on a log axis (zero or negative after the transform) are dropped, not clipped.
"""
import csv
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLES = {
    "line": dict(linestyle="-", marker=None),
    "dashed": dict(linestyle="--", marker=None),
    "markers": dict(linestyle="none", marker="o", markersize=4),
    "line+markers": dict(linestyle="-", marker="o", markersize=4),
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


def draw(spec):
    fig, ax = plt.subplots(figsize=spec.get("size", (7.0, 4.2)), dpi=110)
    for s in spec["series"]:
        data = read_columns(s["csv"], [s["x"], s["y"]])
        xs, ys = data[s["x"]], data[s["y"]]
        if s.get("transform") == "abs":
            ys = [abs(y) for y in ys]
        points = [(x, y) for x, y in zip(xs, ys)
                  if math.isfinite(x) and math.isfinite(y)
                  and not (spec.get("yscale") == "log" and y <= 0)
                  and not (spec.get("xscale") == "log" and x <= 0)]
        style = dict(STYLES[s.get("style", "line")])
        if s.get("color"):
            style["color"] = s["color"]
        ax.plot([p[0] for p in points], [p[1] for p in points], label=s.get("label"),
                linewidth=1.3, **style)
    ax.set_xscale(spec.get("xscale", "linear"))
    ax.set_yscale(spec.get("yscale", "linear"))
    ax.set_xlabel(spec.get("xlabel", ""))
    ax.set_ylabel(spec.get("ylabel", ""))
    ax.set_title(spec.get("title", ""), fontsize=11)
    if spec.get("aspect_equal"):
        ax.set_aspect("equal", adjustable="datalim")
    ax.grid(True, which="major", alpha=0.35)
    if any(s.get("label") for s in spec["series"]):
        ax.legend(fontsize=9)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{spec['output']}.{ext}")
    plt.close(fig)


def main():
    with open(sys.argv[1]) as f:
        figures = json.load(f)
    for spec in figures:
        draw(spec)


if __name__ == "__main__":
    main()
