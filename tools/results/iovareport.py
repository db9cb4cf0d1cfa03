#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of a native iova bench run (tools/native/native-iova bench).

    tools/results/iovareport.py DIR

DIR holds env.txt (key=value) and points.txt: one line per run, the
harness's RESULT line as key=value pairs with round=R first. Writes
DIR/results.md and DIR/results.json and prints the tables.

Per (workload, threads, variant), over the rounds: the median, min and max
of the time per allocation and per free (ns), and of allocations per second
per thread. Each variant is compared with the first, round by round, on the
time of an allocation and its free together: first / variant, so that above
1 is faster than the first. The first variant also runs a second time in
each round (NAME-aa); its ratio is the A/A noise of this run, and a
difference inside it is not a difference.

Counters (medians over the rounds): where allocations were served (CPU
rcache, depot, bitmap, rbtree; per cent), the rbtree lock's acquisitions
per 1000 allocations, the share of them that were contended and the mean
hold time, and the bitmap words scanned per allocation. Where the points
carry by_size (path@granules:count, ...) and a workload has more than one
size, a second table gives the rcache's miss rate by size: the share of
the allocations of that size that the CPU's magazines and the depot did
not serve.

Standard library only. Any missing or non-numeric field fails the report:
a table from broken points is not a table.
"""
import json
import statistics
import sys
from pathlib import Path

NUMERIC = ("threads", "allocs", "frees", "alloc_ns", "free_ns", "seconds", "cpu", "depot",
           "bitmap", "rbtree", "fail", "rbtree_acq", "rbtree_cont", "rbtree_hold_ns",
           "words_scanned")
WORKLOADS = {
    "a": "same CPU (rcache hits)",
    "b": "alloc on one CPU, free on the next",
    "c": "deferred free (flush queue, 10 ms timer)",
    "d": "mixed sizes, 1..64 granules; 1 in 8 with a 28-bit mask",
    "e": "40960 outstanding",
    "f": "sizes 33..256 granules, freed on the same CPU",
    "g": "64 granules, freed on the next CPU",
    "h": "sizes 33..256 behind the flush queue",
    "i": "64 granules, 512 outstanding (twice the first class's slots)",
    "j": "sizes 33..64 with a 28-bit limit",
    "k": "the 32-bit space that 512-granule IOVAs still get",
}
# fields that newer harnesses print; a row shows them where every round has them
OPTIONAL = ("held_peak_granules", "class_bytes", "fallback_words", "space32_lost", "k_allocs")
# the A/A pair's median ratio must lie within this of 1 for a run to judge a ratio
AA_BAND = 0.03


class ReportError(Exception):
    """Points that cannot make a table."""


def parse_env(text):
    env = {}
    for line in text.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            env.setdefault(k, v)
    return env


def parse_points(text):
    points = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        p = {}
        for kv in line.split():
            if "=" not in kv:
                raise ReportError(f"points.txt line {n}: '{kv}' is not key=value")
            k, v = kv.split("=", 1)
            p[k] = v
        for k in ("round", "variant", "workload") + NUMERIC:
            if k not in p:
                raise ReportError(f"points.txt line {n}: no {k}")
        for k in ("round",) + NUMERIC:
            try:
                p[k] = float(p[k])
            except ValueError:
                raise ReportError(f"points.txt line {n}: {k}={p[k]} is not a number") from None
        for k in OPTIONAL:
            if k in p:
                try:
                    p[k] = float(p[k])
                except ValueError:
                    raise ReportError(f"points.txt line {n}: {k}={p[k]} is not a number") from None
        if p["allocs"] <= 0 or p["alloc_ns"] + p["free_ns"] <= 0:
            raise ReportError(f"points.txt line {n}: no allocations timed for {p['variant']}")
        p["round"] = int(p["round"])
        p["threads"] = int(p["threads"])
        points.append(p)
    if not points:
        raise ReportError("points.txt has no points")
    return points


def parse_by_size(text):
    """{size: {path: count}} from "cpu@1:10,rbtree@64:3", or None for "-" """
    if text in (None, "-"):
        return None if text is None else {}
    out = {}
    for item in text.split(","):
        try:
            path, rest = item.split("@", 1)
            size, count = rest.split(":", 1)
            out.setdefault(int(size), {})[path] = int(count)
        except ValueError:
            raise ReportError(f"by_size: '{item}' is not path@granules:count") from None
    return out


def miss_pct(by_size):
    """{size: per cent of its allocations that missed the rcache}"""
    out = {}
    for size, paths in by_size.items():
        total = sum(paths.values())
        hit = paths.get("cpu", 0) + paths.get("depot", 0)
        if total:
            out[size] = 100.0 * (total - hit) / total
    return out


def mmm(values):
    """median, min, max"""
    return [statistics.median(values), min(values), max(values)]


def summarise(points, variants):
    """rows: one per (workload, threads, variant), in the order of the run"""
    by = {}
    for p in points:
        by.setdefault((p["workload"], p["threads"], p["variant"]), {})[p["round"]] = p
    workloads = []
    threads = []
    for p in points:
        if p["workload"] not in workloads:
            workloads.append(p["workload"])
        if p["threads"] not in threads:
            threads.append(p["threads"])
    rows = []
    first = variants[0]
    for w in workloads:
        for t in sorted(threads):
            ref = by.get((w, t, first))
            if not ref:
                raise ReportError(f"no points for {first} at workload {w}, {t} threads")
            for v in variants:
                runs = by.get((w, t, v))
                if not runs:
                    raise ReportError(f"no points for {v} at workload {w}, {t} threads")
                if set(runs) != set(ref):
                    raise ReportError(f"{v} and {first} ran different rounds at workload {w}, {t} threads")
                rs = [runs[r] for r in sorted(runs)]
                ratio = [(ref[r]["alloc_ns"] + ref[r]["free_ns"]) / (runs[r]["alloc_ns"] + runs[r]["free_ns"])
                         for r in sorted(runs)]

                def share(k):
                    return mmm([100.0 * p[k] / p["allocs"] for p in rs])

                rows.append({
                    "workload": w, "threads": t, "variant": v, "rounds": len(rs),
                    "alloc_ns": mmm([p["alloc_ns"] for p in rs]),
                    "free_ns": mmm([p["free_ns"] for p in rs]),
                    "allocs_per_s_per_thread": mmm([p["allocs"] / p["seconds"] / t for p in rs]),
                    "ratio_to_first": mmm(ratio),
                    "path_pct": {k: share(k)[0] for k in ("cpu", "depot", "bitmap", "rbtree", "fail")},
                    "rbtree_acq_per_1k": statistics.median([1000.0 * p["rbtree_acq"] / p["allocs"] for p in rs]),
                    "rbtree_contended_pct": statistics.median(
                        [100.0 * p["rbtree_cont"] / p["rbtree_acq"] if p["rbtree_acq"] else 0.0 for p in rs]),
                    "rbtree_hold_ns": statistics.median(
                        [p["rbtree_hold_ns"] / p["rbtree_acq"] if p["rbtree_acq"] else 0.0 for p in rs]),
                    "words_per_alloc": statistics.median([p["words_scanned"] / p["allocs"] for p in rs]),
                })
                for k in OPTIONAL:
                    if all(k in p for p in rs):
                        rows[-1][k] = statistics.median([p[k] for p in rs])
                if all("fallback_words" in p for p in rs):
                    rows[-1]["words_per_fallback"] = statistics.median(
                        [p["fallback_words"] / p["rbtree"] if p["rbtree"] else 0.0 for p in rs])
                sizes = [parse_by_size(p.get("by_size")) for p in rs]
                if all(x is not None for x in sizes):
                    per = [miss_pct(x) for x in sizes]
                    keys = sorted(set().union(*per))
                    rows[-1]["miss_pct_by_size"] = {
                        k: statistics.median([m.get(k, 0.0) for m in per]) for k in keys}
    return rows


def fmt3(m, f="{:.1f}"):
    return f"{f.format(m[0])} ({f.format(m[1])}-{f.format(m[2])})"


def markdown(rows, env, variants):
    out = ["# Native iova bench", ""]
    out.append(f"Host: {env.get('host_model', '?')}, {env.get('host_nproc', '?')} CPUs, {env.get('host_kernel', '?')}. "
               "Native harness (tools/native/iova-harness.c): each variant's own iova.c, rbtree and sbitmap code, "
               "real threads pinned round-robin, dma-iommu's calls (below 4 GiB first), 4 KiB granules. "
               f"{env.get('rounds', '?')} rounds, interleaved; {env.get('seconds', '?')} s per point. "
               f"Run {env.get('date', '?')}. Base: {env.get('base', '?')}.")
    out.append("")
    if env.get("command"):
        out.append(f"Command: `{env['command']}`.")
        out.append("")
    out.append("Time per call in ns, median (min-max) over the rounds. Ratio: the first variant's alloc+free time "
               f"over this one's, round by round (above 1: faster than {variants[0]}). "
               f"{variants[0]}-aa is {variants[0]} run again in the same rounds: its ratio is this run's A/A noise.")
    for w in dict.fromkeys(r["workload"] for r in rows):
        out += ["", f"## Workload {w}: {WORKLOADS.get(w, w)}", ""]
        wrows = [r for r in rows if r["workload"] == w]
        if w == "k":
            out += space32_table(wrows)
            continue
        out += noise_lines(wrows, variants)
        out.append("| threads | variant | alloc ns | free ns | allocs/s per thread (M) | ratio to "
                   f"{variants[0]} | cpu/depot/bitmap/rbtree % | rbtree locks per 1k allocs | contended % | "
                   "hold ns | bitmap words per alloc |")
        out.append("|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
        for r in rows:
            if r["workload"] != w:
                continue
            pp = r["path_pct"]
            out.append(
                f"| {r['threads']} | {r['variant']} | {fmt3(r['alloc_ns'])} | {fmt3(r['free_ns'])} | "
                f"{fmt3([x / 1e6 for x in r['allocs_per_s_per_thread']], '{:.2f}')} | "
                f"{fmt3(r['ratio_to_first'], '{:.2f}')} | "
                f"{pp['cpu']:.1f}/{pp['depot']:.1f}/{pp['bitmap']:.1f}/{pp['rbtree']:.1f}"
                f"{' (fail ' + format(pp['fail'], '.1f') + ')' if pp['fail'] else ''} | "
                f"{r['rbtree_acq_per_1k']:.2f} | {r['rbtree_contended_pct']:.1f} | {r['rbtree_hold_ns']:.0f} | "
                f"{r['words_per_alloc']:.2f} |")
        out += space_table(wrows)
        sizes = sorted(set().union(*[r.get("miss_pct_by_size", {}) for r in wrows]))
        if len(sizes) > 1 and all("miss_pct_by_size" in r for r in wrows):
            out += ["", "rcache misses by size: per cent of the allocations of each size in granules, rounded up to a "
                    "power of two (64 stands for 33 to 64), that the "
                    "CPU's magazines and the depot did not serve, median over the rounds.", ""]
            out.append("| threads | variant | " + " | ".join(str(k) for k in sizes) + " |")
            out.append("|---:|---|" + "---:|" * len(sizes))
            for r in wrows:
                m = r["miss_pct_by_size"]
                out.append(f"| {r['threads']} | {r['variant']} | " +
                           " | ".join(f"{m[k]:.1f}" if k in m else "-" for k in sizes) + " |")
    return "\n".join(out) + "\n"


def noise_lines(wrows, variants):
    """Which thread counts this run may judge: the A/A pair within AA_BAND"""
    aa = f"{variants[0]}-aa"
    out = []
    for r in wrows:
        if r["variant"] != aa:
            continue
        med = r["ratio_to_first"][0]
        if abs(med - 1.0) > AA_BAND:
            out.append(f"- {r['threads']} threads: TOO NOISY to judge a ratio: {aa}'s median is {med:.3f}, "
                       f"outside 1 +- {AA_BAND:.2f}.")
        else:
            out.append(f"- {r['threads']} threads: judged ({aa}'s median {med:.3f}, within 1 +- {AA_BAND:.2f}).")
    return out + [""] if out else []


def space_table(wrows):
    """The space and memory a variant held, where the points carry them"""
    if not all("held_peak_granules" in r and "class_bytes" in r for r in wrows):
        return []
    out = ["", "Space and memory, medians over the rounds: the most IOVA space the rbtree held (nodes and "
           "class regions, sampled every 100 ms and at the end; MiB at 4 KiB granules), the memory of the "
           "size classes set up (structures, sbitmap words, a hint per CPU), and the bitmap words an "
           "allocation that fell back to the rbtree had looked at.", ""]
    out.append("| threads | variant | peak space held (MiB) | class memory (bytes) | words per fallback |")
    out.append("|---:|---|---:|---:|---:|")
    for r in wrows:
        wpf = r.get("words_per_fallback")
        out.append(f"| {r['threads']} | {r['variant']} | {r['held_peak_granules'] * 4096 / 2**20:.1f} | "
                   f"{r['class_bytes']:.0f} | {'-' if wpf is None else format(wpf, '.2f')} |")
    return out


def space32_table(wrows):
    """Workload k: the share of the 32-bit space lost before the first failure"""
    if not all("space32_lost" in r for r in wrows):
        raise ReportError("workload k's points carry no space32_lost: the harness is older than the workload")
    out = ["Not timed. 512-granule IOVAs are allocated below 4 GiB until the first failure, after each size "
           "class has been asked for enough to be set up. Lost: the share of the 32-bit space not handed out "
           "(goal for a variant with size classes: at most 1/16, 6.25%).", ""]
    out.append("| variant | IOVAs of 512 granules (median) | 32-bit space lost % (median) |")
    out.append("|---|---:|---:|")
    seen = set()
    for r in wrows:
        if r["variant"] in seen:
            continue
        seen.add(r["variant"])
        out.append(f"| {r['variant']} | {r['k_allocs']:.0f} | {100 * r['space32_lost']:.2f} |")
    return out


def report(d):
    d = Path(d)
    for f in ("env.txt", "points.txt"):
        if not (d / f).is_file():
            raise ReportError(f"{d} has no {f}: it is not the output of tools/native/native-iova bench")
    for f in ("results.md", "results.json"):
        (d / f).unlink(missing_ok=True)
    env = parse_env((d / "env.txt").read_text())
    variants = env.get("variants", "").split()
    if not variants:
        raise ReportError(f"{d}/env.txt names no variants")
    rows = summarise(parse_points((d / "points.txt").read_text()), variants)
    md = markdown(rows, env, variants)
    (d / "results.md").write_text(md)
    (d / "results.json").write_text(json.dumps({"env": env, "rows": rows}, indent=1) + "\n")
    return md


def main(argv):
    if len(argv) != 2:
        print("usage: tools/results/iovareport.py DIR (the output of tools/native/native-iova bench)", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(report(argv[1]))
    except ReportError as e:
        print(f"iovareport: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
