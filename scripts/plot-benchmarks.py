#!/usr/bin/env python3
"""Plots the recorded benchmark figures over the changes that moved them.

Reads docs/benchmarks/figures.csv (one row per figure: benchmark, metric, unit, date, change,
value; rows of one benchmark and metric in the order the changes were measured) and writes one
SVG per benchmark into docs/benchmarks/: a panel per metric, a point per change, labelled.
Plain SVG, no plotting library, so it runs anywhere Python 3 does.

    scripts/plot-benchmarks.py [--data docs/benchmarks/figures.csv] [--out docs/benchmarks]

Record a new figure by adding its row (from a benchmark script's last line) and running this.
"""
import argparse, csv, html, os, sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANEL_W, PANEL_H = 900, 360
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 200, 40, 40, 130


def read(path):
    figures = OrderedDict()
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                value = float(row["value"])
            except ValueError:
                sys.exit(f"{path}: not a number: {row['value']!r} ({row['benchmark']}, {row['metric']})")
            key = row["benchmark"]
            metric = (row["metric"], row["unit"])
            figures.setdefault(key, OrderedDict()).setdefault(metric, []).append((row["date"], row["change"], value))
    return figures


def panel(metric, unit, points, top):
    """One panel's SVG elements, `top` pixels down the image."""
    out = []
    values = [v for _, _, v in points]
    high = max(values) * 1.15 or 1.0
    plot_w = PANEL_W - MARGIN_L - MARGIN_R
    plot_h = PANEL_H - MARGIN_T - MARGIN_B
    x0, y0 = MARGIN_L, top + MARGIN_T
    step = plot_w / max(1, len(points) - 1) if len(points) > 1 else 0
    out.append(f'<text x="20" y="{top + 22}" font-size="15" font-weight="bold">'
               f'{html.escape(metric)} ({html.escape(unit)})</text>')
    out.append(f'<line x1="{x0}" y1="{y0 + plot_h}" x2="{x0 + plot_w}" y2="{y0 + plot_h}" stroke="#444"/>')
    out.append(f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 + plot_h}" stroke="#444"/>')
    for i in range(5):
        value = high * i / 4
        y = y0 + plot_h - plot_h * i / 4
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + plot_w}" y2="{y:.1f}" stroke="#ddd"/>')
        tick = f"{value:,.0f}" if high >= 100 else f"{value:.3g}"
        out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick}</text>')
    coords = []
    for i, (date, change, value) in enumerate(points):
        x = x0 + (step * i if len(points) > 1 else plot_w / 2)
        y = y0 + plot_h - plot_h * value / high
        coords.append((x, y))
        label = html.escape(f"{date} {change}")
        out.append(f'<text x="{x:.1f}" y="{y0 + plot_h + 14}" font-size="10" text-anchor="end" '
                   f'transform="rotate(-30 {x:.1f} {y0 + plot_h + 14})">{label}</text>')
        out.append(f'<text x="{x:.1f}" y="{y - 8:.1f}" font-size="11" text-anchor="middle">{value:g}</text>')
    if len(coords) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        out.append(f'<polyline points="{path}" fill="none" stroke="#2a6fdb" stroke-width="2"/>')
    for x, y in coords:
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#2a6fdb"/>')
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.path.join(ROOT, "docs", "benchmarks", "figures.csv"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks"))
    args = parser.parse_args()
    figures = read(args.data)
    os.makedirs(args.out, exist_ok=True)
    for benchmark, metrics in figures.items():
        height = PANEL_H * len(metrics) + 20
        body = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{PANEL_W}" height="{height}" '
                f'font-family="sans-serif">',
                f'<rect width="100%" height="100%" fill="white"/>']
        for index, ((metric, unit), points) in enumerate(metrics.items()):
            body += panel(f"{benchmark}: {metric}", unit, points, index * PANEL_H)
        body.append("</svg>")
        path = os.path.join(args.out, f"{benchmark}.svg")
        with open(path, "w") as f:
            f.write("\n".join(body) + "\n")
        print(f"{path}: {sum(len(p) for p in metrics.values())} figures in {len(metrics)} panels")


if __name__ == "__main__":
    main()
