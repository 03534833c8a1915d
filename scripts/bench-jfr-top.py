#!/usr/bin/env python3
"""Summarises a JFR recording of a toolbus benchmark: CPU samples (or allocation samples, with
--alloc) grouped into the executor's stages, plus the hottest methods. Standard library only; needs
the JDK's `jfr` tool on the PATH. Each sample is charged to the innermost frame that matches a
stage, so the stages add up to 100 %.

  python3 scripts/bench-jfr-top.py recording.jfr [--alloc] [--top 25]
"""
import argparse
import collections
import json
import subprocess

# (stage, substrings of "class.method"); the first stage matching the innermost frame wins
STAGES = [
    ("result cache (canonical key, lookup, single flight)", ["ResultCache", "benmanes", "CompletableFuture"]),
    ("argument parse (Jackson readTree)", ["ObjectMapper.readTree"]),
    ("metrics (Micrometer timer, counters)", ["io/micrometer", "io.micrometer", "org/HdrHistogram"]),
    ("recent-call log", ["CallLog", "CallRecord"]),
    ("schema validation (ArgumentRules)", ["ArgumentRules"]),
    ("context fields", ["ContextFields"]),
    ("ToolContext", ["ToolContext"]),
    ("result mapping / media split", ["MediaSplitter", "SplitResult", "dev/toolbus/result/"]),
    ("handler run + lazy timeout", ["HandlerRun"]),
    ("the handler and its ToolResult", ["lambda$echo", "ToolResult", "ToolArguments"]),
    ("event records", ["ToolResultEvent", "TurnCompletedEvent", "UserMessageEvent"]),
    ("global slots (maxParallel bound)", ["Slots."]),
    ("stream lanes (per-stream order)", ["StreamLanes"]),
    ("policy", ["ToolPolicy"]),
    ("registry lookup", ["ToolRegistry"]),
    ("turn bookkeeping (TurnRun)", ["TurnRun"]),
    ("call bookkeeping (CallRun, other)", ["CallRun"]),
    ("execute(): Flux.create + buffered sink per turn", ["FluxCreate", "DefaultToolExecutor"]),
    ("benchmark harness", ["dev/toolbus/benchmarks", "dev.toolbus.benchmarks", "FluxFlatMap", "MonoCount",
                           "Blackhole"]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jfr")
    ap.add_argument("--alloc", action="store_true", help="allocation samples instead of CPU samples")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    event = "jdk.ObjectAllocationSample" if a.alloc else "jdk.ExecutionSample"
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", "96", "--events", event, a.jfr],
                         capture_output=True, text=True, check=True).stdout
    stages, selfs, total = collections.Counter(), collections.Counter(), 0
    for e in json.loads(out)["recording"]["events"]:
        st = e["values"].get("stackTrace")
        if not st or not st["frames"]:
            continue
        w = e["values"].get("weight", 1) if a.alloc else 1
        total += w
        frames = [f["method"]["type"]["name"] + "." + f["method"]["name"] for f in st["frames"]]
        selfs[frames[0]] += w
        stage = "other"
        for f in frames:
            hit = next((s for s, keys in STAGES if any(k in f for k in keys)), None)
            if hit:
                stage = hit
                break
        stages[stage] += w
    if not total:
        raise SystemExit("no " + event + " events in " + a.jfr)
    print("{} {}".format(total, "bytes (sampled weight)" if a.alloc else "CPU samples"))
    print("\nby stage:")
    for s, v in stages.most_common():
        print("  {:5.1f} %  {}".format(100.0 * v / total, s))
    print("\nhottest frames (self):")
    for s, v in selfs.most_common(a.top):
        print("  {:5.1f} %  {}".format(100.0 * v / total, s.replace("/", ".")))


if __name__ == "__main__":
    main()
