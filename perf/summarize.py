#!/usr/bin/env python3
"""perf/summarize.py RESULTS: the summary table of perf/run.sh, as ratios to git.

Reads bench.txt (reftab-bench lines), cli-*.json (hyperfine), and prints Markdown; writes
chart.dat for chart.gp. git's figures are the ones issue 4 states (git's reftable library
driven in-process, and git's CLI, on a machine like ours): git 2.39 here has no reftable
support, so they cannot be measured side by side here.
"""
import json
import os
import re
import sys

# operation -> (git ns/op, target speed-up)
GIT_INPROCESS = {
    "scan-one": ("full scan, one table (per ref)", 48, 5),
    "scan-stack": ("full scan, 9-table stack (per ref)", 140, 8),
    "lookup-one": ("exact lookup, one table", 2200, 5),
    "lookup-stack": ("exact lookup, 9-table stack", 13800, 8),
    "prefix-one": ("prefix scan refs/tags/, one table (per ref)", 54, 5),
    "prefix-stack": ("prefix scan refs/tags/, 9-table stack (per ref)", None, None),
    "write-obj": ("write 1M refs, obj index (per ref)", 304, 6),
    "write-noobj": ("write 1M refs, no obj index (per ref)", 131, 5),
}
# hyperfine command name -> (git ms, target speed-up)
GIT_CLI = {
    "show-ref --verify, one table": (1.08, 1.5),
    "show-ref --verify, 9-table stack": (1.26, 1.5),
    "for-each-ref, one table": (333, 5),
    "for-each-ref, 9-table stack": (447, 5),
    "for-each-ref refs/tags/, one table": (67, 5),
    "for-each-ref refs/tags/, 9-table stack": (87, 5),
}


def main(out):
    lines = []
    chart = []
    bench = os.path.join(out, "bench.txt")
    if os.path.exists(bench):
        lines += [
            "### In-process (reftab-bench, median ns per op)",
            "",
            "| operation | git | reftab | speed-up | target | met |",
            "|---|---|---|---|---|---|",
        ]
        for line in open(bench):
            m = re.match(r"(\S+)\s+\S+ n=(\d+) best_ns_per_op=([\d.]+) median_ns_per_op=([\d.]+)", line)
            if not m or m.group(1) not in GIT_INPROCESS:
                continue
            label, git, target = GIT_INPROCESS[m.group(1)]
            ours = float(m.group(4))
            if git is None:
                lines.append(f"| {label} | - | {ours:.1f} | - | - | - |")
                continue
            speedup = git / ours
            met = "yes" if speedup >= target else "no"
            lines.append(f"| {label} | {git} | {ours:.1f} | {speedup:.1f}x | {target}x | {met} |")
            chart.append((m.group(1), git, ours, git / target))
        lines.append("")
    cli_rows = []
    for name in ("cli-lookup.json", "cli-list.json", "cli-write.json"):
        path = os.path.join(out, name)
        if not os.path.exists(path):
            continue
        for r in json.load(open(path))["results"]:
            cli_rows.append((r["command"], r["median"] * 1000, r["stddev"] * 1000 if r.get("stddev") else 0))
    if cli_rows:
        lines += [
            "### CLI (hyperfine, median ms)",
            "",
            "| command | git | reftab | speed-up | target | met |",
            "|---|---|---|---|---|---|",
        ]
        for cmd, ms, sd in cli_rows:
            if cmd in GIT_CLI:
                git, target = GIT_CLI[cmd]
                speedup = git / ms
                met = "yes" if speedup >= target else "no"
                lines.append(f"| {cmd} | {git} | {ms:.2f} ± {sd:.2f} | {speedup:.1f}x | {target}x | {met} |")
            else:
                lines.append(f"| {cmd} | - | {ms:.1f} ± {sd:.1f} | - | - | - |")
        lines.append("")
    with open(os.path.join(out, "chart.dat"), "w") as f:
        f.write("# operation git_ns reftab_ns target_ns\n")
        for op, git, ours, target in chart:
            f.write(f"{op} {git} {ours:.2f} {target:.2f}\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "perf/results")
