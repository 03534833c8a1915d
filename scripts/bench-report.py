#!/usr/bin/env python3
"""Reads JMH JSON results (java -jar benchmarks.jar -rf json) and writes
  * a Markdown table of ns/call and calls/s for every benchmark, with the target ratios (stdout),
  * optionally an SVG chart of calls/s against maxParallel (--svg FILE).

Standard library only. Usage:
  python3 scripts/bench-report.py benchmarks/results/jmh.json --svg docs/benchmarks-parallel.svg

Per-call cost = the median of every measurement iteration of a benchmark (Throughput iterations
converted to ns/call, AverageTime iterations as they are; several JSON files are pooled), because
on a shared machine the mean follows whichever neighbour was busy. The table shows the range too.
"""
import argparse
import json
import math
import statistics
import sys
from xml.sax.saxutils import escape

PACKAGE = "dev.toolbus.benchmarks."

# Display names, in table order.
LABELS = {
    "ToolbusExecutorBenchmark.cacheOff": "toolbus executor, cache off",
    "ToolbusExecutorBenchmark.cacheOffNoHistogram": "toolbus executor, cache off, duration histogram off",
    "ToolbusExecutorBenchmark.cacheOffNoMeters": "toolbus executor, cache off, meters denied",
    "ToolbusExecutorBenchmark.cacheHit": "toolbus executor, cache hit",
    "ToolbusExecutorBenchmark.mediaSplit": "toolbus executor, media split (1 PNG)",
    "HandWrittenReactorBenchmark.flatMapTimeout": "hand-written flatMap + Mono.timeout",
    "HandWrittenReactorBenchmark.flatMapNoTimeout": "hand-written flatMap, no timeout",
    "PeerDispatchBenchmark.langchain4j": "LangChain4j 1.19.0 DefaultToolExecutor",
    "PeerDispatchBenchmark.springAi": "Spring AI 2.0.1 MethodToolCallback",
    "PeerDispatchBenchmark.jacksonParseLookup": "Jackson parse + name lookup (floor)",
    "SingleTurnLatencyBenchmark.toolbusTurn": "toolbus, one idle turn of one call",
    "SingleTurnLatencyBenchmark.handWrittenTimeout": "hand-written, one call with Mono.timeout",
    "TracingOverheadBenchmark.turn": "toolbus, one idle turn of one call, by tracing mode",
    "stdio.StdioPluginBenchmark.toolbus": "stdio plugin through toolbus",
    "stdio.StdioPluginBenchmark.direct": "stdio plugin, hand-written client",
    "stdio.HostPluginBenchmark.toolbus": "framework plugin through its host",
    "mcp.McpCallBenchmark.toolbus": "MCP server through toolbus",
    "mcp.McpCallBenchmark.sdkClient": "MCP server, SDK client alone",
}

# Out-of-process benchmarks: (toolbus path, direct path) measured with the same parameters.
OVERHEAD_PAIRS = [
    ("stdio.StdioPluginBenchmark.toolbus", "stdio.StdioPluginBenchmark.direct"),
    ("mcp.McpCallBenchmark.toolbus", "mcp.McpCallBenchmark.sdkClient"),
]

TIME_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9, "min": 60e9}


def per_ns(unit):
    """Factor turning a score in `unit` into ns/op (time units) or ops/ns (rate units)."""
    if unit.startswith("ops/"):
        return 1.0 / TIME_NS[unit[4:]]
    if unit.endswith("/op"):
        return TIME_NS[unit[:-3]]
    raise ValueError("unknown unit " + unit)


def load(paths):
    """Rows keyed by (benchmark, maxParallel). On a shared, noisy machine a mean is dragged by the
    iterations that ran while a neighbour was busy, so the per-call cost reported is the median of all
    measurement iterations of the benchmark: both modes (a Throughput iteration converted to ns/call)
    and every given file pooled. The range (min-max) of those iterations is kept too."""
    runs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            runs.extend(json.load(f))
    rows = {}
    for r in runs:
        name = r["benchmark"].replace(PACKAGE, "")
        params = r.get("params") or {}
        mp = params.get("maxParallel")
        # any other parameter (plugin, transport, inFlight) makes a row of its own: "name [k=v, ...]"
        extra = ", ".join("{}={}".format(k, v) for k, v in params.items() if k != "maxParallel")
        if extra:
            name += " [" + extra + "]"
        key = (name, int(mp) if mp is not None else None)
        row = rows.setdefault(key, {"name": name, "maxParallel": key[1], "iters": [], "modes": set()})
        row["modes"].add(r["mode"])
        pm = r["primaryMetric"]
        f = per_ns(pm["scoreUnit"])
        raw = [x for fork in pm.get("rawData") or [[pm["score"]]] for x in fork]
        if r["mode"] == "thrpt":
            row["iters"].extend(1.0 / (x * f) for x in raw if x > 0)
        elif r["mode"] == "avgt":
            row["iters"].extend(x * f for x in raw)
        elif r["mode"] == "sample":
            row["mean"] = pm["score"] * f
            pct = pm.get("scorePercentiles") or {}
            for p in ("50.0", "99.0", "99.9"):
                if p in pct:
                    row["p" + p.replace(".0", "")] = pct[p] * f
            row["samples"] = row.get("samples", 0) + sum(
                int(c) for fork in (pm.get("rawDataHistogram") or []) for it in fork for _, c in it)
        gc = (r.get("secondaryMetrics") or {}).get("gc.alloc.rate.norm")
        if gc is not None and (r["mode"] != "sample" or "alloc_per_op" not in row):
            # JMH normalises by operations, so with @OperationsPerInvocation this is per call
            row["alloc_per_op"] = gc["score"]
    for row in rows.values():
        it = sorted(row["iters"])
        if it:
            row["ns"] = statistics.median(it)
            row["ns_min"], row["ns_max"] = it[0], it[-1]
            row["calls_s"] = 1e9 / row["ns"]
            row["n_iters"] = len(it)
    return runs, rows


def base_name(name):
    return name.split(" [", 1)[0]


def label(name):
    """Display name; the parameters of a row other than maxParallel follow in brackets."""
    base = base_name(name)
    return LABELS.get(base, base) + name[len(base):]


def order(key):
    name, mp = key
    names = list(LABELS)
    base = base_name(name)
    return (names.index(base) if base in names else len(names), name, mp or 0)


def fmt_ns(v):
    return "—" if v is None else ("{:,.0f}".format(v) if v >= 100 else "{:.1f}".format(v))


def fmt_rate(v):
    return "—" if v is None else "{:,.0f}".format(v)


def markdown(rows):
    out = []
    out.append("| benchmark | maxParallel | ns/call (median) | range of iterations, ns | calls/s (median) "
               "| bytes/call | iterations |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    for key in sorted((k for k, r in rows.items() if "sample" not in r["modes"]), key=order):
        r = rows[key]
        out.append("| {} | {} | {} | {}–{} | {} | {} | {} |".format(
            label(r["name"]), r["maxParallel"] or "—",
            fmt_ns(r.get("ns")), fmt_ns(r.get("ns_min")), fmt_ns(r.get("ns_max")),
            fmt_rate(r.get("calls_s")), fmt_rate(r.get("alloc_per_op")), r.get("n_iters", 0)))
    lat = [k for k, r in rows.items() if "sample" in r["modes"]]
    if lat:
        out.append("")
        out.append("| latency (SampleTime) | mean ns | p50 ns | p99 ns | p99.9 ns |")
        out.append("|---|---:|---:|---:|---:|")
        for key in sorted(lat, key=order):
            r = rows[key]
            out.append("| {} | {} | {} | {} | {} |".format(
                label(r["name"]), fmt_ns(r.get("mean")), fmt_ns(r.get("p50")),
                fmt_ns(r.get("p99")), fmt_ns(r.get("p99.9"))))

    def ns(name, mp=None):
        r = rows.get((name, mp))
        return r.get("ns") if r else None

    base = "ToolbusExecutorBenchmark.cacheOff"
    mps = sorted(mp for (n, mp) in rows if n == base and mp is not None)
    if mps:
        lc4j = ns("PeerDispatchBenchmark.langchain4j")
        spring = ns("PeerDispatchBenchmark.springAi")
        out.append("")
        out.append("| maxParallel | toolbus ÷ flatMap+timeout (target ≤ 0.25) | toolbus ÷ LangChain4j (target < 1) "
                   "| toolbus ÷ Spring AI | toolbus ÷ flatMap, no timeout |")
        out.append("|---:|---:|---:|---:|---:|")
        for mp in mps:
            t = ns(base, mp)

            def ratio(other, limit=None, strict=False):
                if t is None or not other:
                    return "—"
                q = t / other
                s = "{:.2f}".format(q)
                if limit is not None:
                    ok = q < limit if strict else q <= limit
                    s += " ✓" if ok else " ✗"
                return s
            out.append("| {} | {} | {} | {} | {} |".format(
                mp, ratio(ns("HandWrittenReactorBenchmark.flatMapTimeout", mp), 0.25),
                ratio(lc4j, 1.0, strict=True), ratio(spring),
                ratio(ns("HandWrittenReactorBenchmark.flatMapNoTimeout", mp))))
    out.extend(overhead(rows))
    return "\n".join(out) + "\n"


def overhead(rows):
    """What toolbus adds to an out-of-process call: toolbus path minus the direct path, same parameters."""
    out = []
    for tb, direct in OVERHEAD_PAIRS:
        for (name, mp), r in sorted(rows.items(), key=lambda kv: order(kv[0])):
            if base_name(name) != tb or r.get("ns") is None:
                continue
            d = rows.get((direct + name[len(tb):], mp))
            if not d or d.get("ns") is None:
                continue
            if not out:
                out.append("")
                out.append("| out-of-process call | toolbus ns/call | direct ns/call | toolbus overhead ns/call "
                           "| toolbus ÷ direct | toolbus B/call | direct B/call | overhead B/call |")
                out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
            ab, db = r.get("alloc_per_op"), d.get("alloc_per_op")
            out.append("| {} | {} | {} | {} | {:.2f} | {} | {} | {} |".format(
                label(name), fmt_ns(r["ns"]), fmt_ns(d["ns"]), "{:+,.0f}".format(r["ns"] - d["ns"]),
                r["ns"] / d["ns"], fmt_rate(ab), fmt_rate(db),
                "{:+,.0f}".format(ab - db) if ab is not None and db is not None else "—"))
    return out


# ---------------------------------------------------------------- SVG

SERIES = [  # (benchmark, colour, dashed)
    ("ToolbusExecutorBenchmark.cacheOff", "#d62728", False),
    ("ToolbusExecutorBenchmark.cacheHit", "#ff7f0e", False),
    ("ToolbusExecutorBenchmark.mediaSplit", "#8c564b", False),
    ("HandWrittenReactorBenchmark.flatMapTimeout", "#1f77b4", False),
    ("HandWrittenReactorBenchmark.flatMapNoTimeout", "#17becf", False),
]
FLAT = [  # peers have no maxParallel: drawn as horizontal reference lines
    ("PeerDispatchBenchmark.langchain4j", "#2ca02c"),
    ("PeerDispatchBenchmark.springAi", "#9467bd"),
    ("PeerDispatchBenchmark.jacksonParseLookup", "#7f7f7f"),
]


def svg(rows, title):
    W, H = 1000, 500
    left, right, top, bottom = 80, 400, 50, 60
    pw, ph = W - left - right, H - top - bottom
    mps = sorted({mp for (n, mp) in rows if mp is not None})
    # only what the chart draws sets its scale (the out-of-process benchmarks are not drawn)
    charted = {n for n, _, _ in SERIES} | {n for n, _ in FLAT}
    drawn = [r for (n, mp), r in rows.items() if n in charted]
    vals = [r["calls_s"] for r in drawn if r.get("calls_s")]
    vals += [1e9 / r[k] for r in drawn for k in ("ns_min", "ns_max") if r.get(k)]
    if not mps or not vals:
        return None
    lo = 10 ** math.floor(math.log10(min(vals)))
    hi = 10 ** math.ceil(math.log10(max(vals)))
    if hi / lo < 100:
        hi = lo * 100

    def x(mp):
        if len(mps) == 1:
            return left + pw / 2
        # maxParallel on a log axis so 1, 5, 20 spread evenly
        a, b = math.log(mps[0]), math.log(mps[-1])
        return left + (math.log(mp) - a) / (b - a) * pw

    def y(v):
        return top + ph - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * ph

    e = []
    e.append('<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" viewBox="0 0 {} {}" '
             'font-family="sans-serif" font-size="12">'.format(W, H, W, H))
    e.append('<rect width="100%" height="100%" fill="white"/>')
    e.append('<text x="{}" y="24" font-size="15" font-weight="bold">{}</text>'.format(left, escape(title)))
    # grid: decades and 2x, 5x
    d = lo
    while d <= hi * 1.0001:
        for m in (1, 2, 5):
            v = d * m
            if lo <= v <= hi * 1.0001:
                yy = y(v)
                e.append('<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="{}" />'.format(
                    left, yy, left + pw, yy, "#bbb" if m == 1 else "#eee"))
                e.append('<text x="{}" y="{:.1f}" text-anchor="end">{}</text>'.format(
                    left - 6, yy + 4, human(v)))
        d *= 10
    for mp in mps:
        xx = x(mp)
        e.append('<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}" stroke="#eee"/>'.format(xx, top, xx, top + ph))
        e.append('<text x="{:.1f}" y="{}" text-anchor="middle">{}</text>'.format(xx, top + ph + 18, mp))
    e.append('<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333"/>'.format(left, top, pw, ph))
    e.append('<text x="{}" y="{}" text-anchor="middle">maxParallel</text>'.format(left + pw / 2, H - 18))
    e.append('<text transform="translate(20,{}) rotate(-90)" text-anchor="middle">calls/s (log scale)</text>'
             .format(top + ph / 2))
    legend_y = top + 8

    def legend(colour, label, dashed):
        nonlocal legend_y
        lx = left + pw + 20
        e.append('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2.5"{}/>'.format(
            lx, legend_y, lx + 24, legend_y, colour, ' stroke-dasharray="6 4"' if dashed else ""))
        e.append('<text x="{}" y="{}">{}</text>'.format(lx + 30, legend_y + 4, escape(label)))
        legend_y += 20

    for si, (name, colour, dashed) in enumerate(SERIES):
        pts = [(mp, rows[(name, mp)]["calls_s"]) for mp in mps
               if (name, mp) in rows and rows[(name, mp)].get("calls_s")]
        if not pts:
            continue
        path = " ".join("{:.1f},{:.1f}".format(x(mp), y(v)) for mp, v in pts)
        e.append('<polyline points="{}" fill="none" stroke="{}" stroke-width="2.5"/>'.format(path, colour))
        for mp, v in pts:
            r = rows[(name, mp)]
            if r.get("ns_min") and r.get("ns_max"):
                # the range of the iterations: how much the neighbours moved this point
                e.append('<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="{3}" '
                         'stroke-width="1.5" opacity="0.6"/>'.format(
                             x(mp) + (si - 2) * 5, y(max(lo, 1e9 / r["ns_max"])), y(min(hi, 1e9 / r["ns_min"])),
                             colour))
            e.append('<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="{}"><title>{} @ {}: {:,.0f} calls/s</title></circle>'
                     .format(x(mp), y(v), colour, escape(LABELS.get(name, name)), mp, v))
        legend(colour, LABELS.get(name, name), dashed)
    for name, colour in FLAT:
        r = rows.get((name, None))
        if not r or not r.get("calls_s"):
            continue
        yy = y(r["calls_s"])
        e.append('<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="{}" stroke-width="2" '
                 'stroke-dasharray="6 4"><title>{}: {:,.0f} calls/s</title></line>'.format(
                     left, yy, left + pw, yy, colour, escape(LABELS.get(name, name)), r["calls_s"]))
        legend(colour, LABELS.get(name, name) + " (1 thread)", True)
    e.append('<text x="{}" y="{}" fill="#555">Dashed: no maxParallel; one call at a time, one thread.</text>'
             .format(left + pw + 20, legend_y + 14))
    e.append('<text x="{}" y="{}" fill="#555">Points: median of all iterations; thin bars: their range.</text>'
             .format(left + pw + 20, legend_y + 32))
    e.append("</svg>")
    return "\n".join(e) + "\n"


def human(v):
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            q = v / div
            return ("{:.0f}" if q >= 10 or q == int(q) else "{:.1f}").format(q) + suf
    return "{:.0f}".format(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="JMH JSON results (several files are pooled)")
    ap.add_argument("--svg", help="write the calls/s vs maxParallel chart here")
    ap.add_argument("--title", default="toolbus: calls/s against maxParallel (JMH, trivial echo tool)")
    ap.add_argument("--expect", type=int,
                    help="fail unless this many (benchmark, mode) pairs have a result (smoke check)")
    a = ap.parse_args()
    runs, rows = load(a.json)
    if a.expect is not None:
        got = len({(r["benchmark"], r["mode"]) for r in runs})
        if got != a.expect:
            sys.exit("expected {} benchmark/mode results, found {}".format(a.expect, got))
    sys.stdout.write(markdown(rows))
    if a.svg:
        chart = svg(rows, a.title)
        if chart is None:
            print("\nno executor results with maxParallel: chart not written", file=sys.stderr)
        else:
            with open(a.svg, "w", encoding="utf-8") as f:
                f.write(chart)
            print("\nchart written to " + a.svg, file=sys.stderr)


if __name__ == "__main__":
    main()
