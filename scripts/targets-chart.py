#!/usr/bin/env python3
"""Draws the issue-14 performance targets as an SVG bar chart: one bar per target, its length the
measured value as a share of the target, oriented so that 1.0 is the target and shorter is better
(for an "at most" target: measured / target; for an "at least" target: target / measured).

Input: a JSON list of {"label", "measured", "target", "kind": "max"|"min", "unit"} objects, the
numbers copied from the tables in docs/benchmarks.md. Standard library only. Usage:
  python3 scripts/targets-chart.py benchmarks/results/issue14-targets.json docs/benchmarks-targets.svg
"""
import json
import sys
from xml.sax.saxutils import escape

ROW = 26
LEFT = 330
WIDTH = 420
RIGHT = 230
TOP = 40
SCALE_MAX = 4.0  # bars longer than 4x the target are cut, with the number still written


def share(t):
    m, g = float(t["measured"]), float(t["target"])
    if t["kind"] == "max":
        return m / g
    return g / m if m > 0 else SCALE_MAX


def fmt(v):
    v = float(v)
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def main(src, out):
    with open(src, encoding="utf-8") as f:
        targets = json.load(f)
    height = TOP + ROW * len(targets) + 40
    total = LEFT + WIDTH + RIGHT
    x1 = LEFT + WIDTH / SCALE_MAX  # where the target (1.0) sits
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{total}" height="{height}" fill="white"/>',
        f'<text x="{LEFT}" y="20" font-size="13" font-weight="bold">measured as a share of the target '
        f'(1.0 = target; shorter is better)</text>',
    ]
    for i, t in enumerate(targets):
        y = TOP + i * ROW
        s = share(t)
        w = WIDTH * min(s, SCALE_MAX) / SCALE_MAX
        met = s <= 1.0
        colour = "#2e7d32" if met else "#c62828"
        sign = "≤" if t["kind"] == "max" else "≥"
        unit = (" " + t["unit"]) if t.get("unit") else ""
        parts.append(f'<text x="{LEFT - 8}" y="{y + 15}" text-anchor="end">{escape(t["label"])}</text>')
        parts.append(f'<rect x="{LEFT}" y="{y + 3}" width="{w:.1f}" height="{ROW - 8}" fill="{colour}"/>')
        note = f'{fmt(t["measured"])}{unit} (target {sign} {fmt(t["target"])}{unit}) {"✓" if met else "✗"}'
        parts.append(f'<text x="{LEFT + WIDTH + 8}" y="{y + 15}">{escape(note)}</text>')
    bottom = TOP + ROW * len(targets)
    parts.append(f'<line x1="{x1:.1f}" y1="{TOP - 4}" x2="{x1:.1f}" y2="{bottom}" stroke="black" '
                 f'stroke-dasharray="4,3"/>')
    for k in range(0, int(SCALE_MAX) + 1):
        x = LEFT + WIDTH * k / SCALE_MAX
        parts.append(f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{k}</text>')
    parts.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
