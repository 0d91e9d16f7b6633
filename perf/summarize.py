#!/usr/bin/env python3
"""perf/summarize.py RESULTS: the summary tables of perf/run.sh, reftab beside git.

Reads what run.sh wrote into RESULTS: bench.txt and git-bench.txt (the two in-process
drivers, run alternately on the same tables), callgrind.txt (instruction counts), cli-*.json
(hyperfine; each reftab command paired with the same git command), dataset.txt and
skipped.txt. Prints Markdown and writes chart.dat for chart.gp. Every git figure is measured
in the same run; when git was not there the git columns say so. Targets: issue 8.
"""
import json
import os
import re
import sys

# label -> (operation, target ratio git/reftab)
IN_PROCESS = {
    "scan-one": ("scan, one table (ns per ref)", 5),
    "scan-stack": ("scan, 9-table stack, repeated (ns per ref; replays the merge order)", 8),
    "scan-stack-mrg": ("scan, 9-table stack, merging every time (a snapshot's first scan)", None),
    "prefix-one": ("prefix `refs/tags/`, one table (ns per ref)", 5),
    "prefix-stack": ("prefix `refs/tags/`, 9-table stack (ns per ref)", None),
    "lookup-one": ("exact lookup, one table (ns, 100k names)", 8),
    "lookup-stack": ("exact lookup, 9-table stack (ns, 100k names)", 25),
    "write-obj": ("write 1M refs, obj index, commit per ref (ns per ref)", 6),
    "write-noobj": ("write 1M refs, no obj index, commit per ref (ns per ref)", 5),
    "write-obj-shared": ("write 1M refs, obj index, shared commits (ns per ref)", 6),
    "write-noobj-shared": ("write 1M refs, no obj index, shared commits (ns per ref)", 5),
}
# hyperfine name (without the "reftab " / "git " in front) -> target ratio
CLI = {
    "show-ref --verify, one table, commit per ref": 1.5,
    "show-ref --verify, 9-table stack, commit per ref": 1.5,
    "for-each-ref, one table, commit per ref": 15,
    "for-each-ref, 9-table stack, commit per ref": 12,
    "for-each-ref refs/tags/, one table, commit per ref": None,
    "for-each-ref refs/tags/, 9-table stack, commit per ref": None,
    "update-ref --stdin, 980k creates, commit per ref": 4,
    "compact the 9-table stack, commit per ref": 4,
    "write-table from jsonl, 1M refs": None,
    "refs verify, one table, commit per ref": 1,
    "refs verify, 9-table stack, commit per ref": 1,
}
LINE = re.compile(r"(\S+)\s+\S+ n=(\d+) best_ns_per_op=([\d.]+) median_ns_per_op=([\d.]+)")


def read_bench(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            m = LINE.match(line)
            if m:
                out[m.group(1)] = float(m.group(4))
    return out


def verdict(ratio, target):
    if ratio is None or target is None:
        return "-", "-"
    return f"{target}x", "yes" if ratio >= target else "no"


def in_process(out, chart):
    ours = read_bench(os.path.join(out, "bench.txt"))
    git = read_bench(os.path.join(out, "git-bench.txt"))
    if not ours:
        return []
    lines = [
        "### In-process (reftab-bench / git-reftable-bench, alternating; median ns per op)",
        "",
        "| operation | git | reftab | git/reftab | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for label, (what, target) in IN_PROCESS.items():
        if label not in ours:
            continue
        g = git.get(label)
        ratio = g / ours[label] if g else None
        t, met = verdict(ratio, target)
        gs = f"{g:,.1f}" if g else "skipped"
        rs = f"{ratio:.2f}x" if ratio else "-"
        lines.append(f"| {what} | {gs} | {ours[label]:,.1f} | {rs} | {t} | {met} |")
        if g and target:
            chart.append((label, g, ours[label], g / target))
    return lines + [""]


def callgrind(out):
    path = os.path.join(out, "callgrind.txt")
    if not os.path.exists(path):
        return []
    lines = [
        "### Instructions per op (callgrind, one rep of each driver, set-up subtracted)",
        "",
        "| workload | git | reftab | git/reftab |",
        "|---|---|---|---|",
    ]
    pat = re.compile(r"(\S+)\s+reftab\s+([\d.]+)\s+git\s+([\d.]+)\s+git/reftab\s+([\d.]+)x")
    for line in open(path):
        m = pat.match(line)
        if m:
            lines.append(f"| {m.group(1)} | {float(m.group(3)):,.0f} | {float(m.group(2)):,.0f} "
                         f"| {float(m.group(4)):.2f}x |")
    return lines + [""]


def cli(out):
    rows = {}
    order = []
    for name in ("cli-lookup.json", "cli-list.json", "cli-write.json", "cli-shapes.json"):
        path = os.path.join(out, name)
        if not os.path.exists(path):
            continue
        for r in json.load(open(path))["results"]:
            tool, _, what = r["command"].partition(" ")
            if what not in order:
                order.append(what)
            rows.setdefault(what, {})[tool] = (r["median"] * 1000, (r.get("stddev") or 0) * 1000)
    if not rows:
        return []
    lines = [
        "### CLI (hyperfine, median ms ± stddev)",
        "",
        "| command | git | reftab | git/reftab | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for what in order:
        ours = rows[what].get("reftab")
        git = rows[what].get("git")
        if not ours:
            continue
        ratio = git[0] / ours[0] if git else None
        t, met = verdict(ratio, CLI.get(what))
        gs = f"{git[0]:.2f} ± {git[1]:.2f}" if git else "skipped" if CLI.get(what) else "-"
        rs = f"{ratio:.2f}x" if ratio else "-"
        lines.append(f"| {what} | {gs} | {ours[0]:.2f} ± {ours[1]:.2f} | {rs} | {t} | {met} |")
    return lines + [""]


def main(out):
    chart = []
    lines = []
    for name in ("dataset.txt", "skipped.txt"):
        path = os.path.join(out, name)
        if os.path.exists(path):
            lines += [f"    {l.rstrip()}" for l in open(path)] + [""]
    lines += in_process(out, chart) + callgrind(out) + cli(out)
    # The tables tombstones.sh and small_tx.sh print, as they are.
    for name, title in (("tombstones.txt", "Tombstones (tombstones.sh, medians ms)"),
                        ("small-tx.txt", "Small transactions (small_tx.sh, medians ms)")):
        path = os.path.join(out, name)
        if os.path.exists(path):
            lines += [f"### {title}", ""] + [f"    {l.rstrip()}" for l in open(path)] + [""]
    with open(os.path.join(out, "chart.dat"), "w") as f:
        f.write("# operation git_ns reftab_ns target_ns\n")
        for op, git, ours, target in chart:
            f.write(f"{op} {git} {ours:.2f} {target:.2f}\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "perf/results")
