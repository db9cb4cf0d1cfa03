#!/usr/bin/env python3
"""The iova harness under the simulation: workloads at 1..N virtual CPUs.

    iova_predict.py --bin VARIANT=BINARY ... --profile FILE ... --out DIR
                    [--cpus 1,16,64] [--workloads d,f,g,h] [--seeds 1,2,3]
                    [--seconds 0.02] [--warmup 0.01] [--call-ns 30]
                    [--node-ns 2] [--cache DIR]

The first --bin is the reference (base). Each point runs once per seed
(the simulation is deterministic: a seed changes the workload's sizes and
the placement of its random choices, not the machine), and the table gives
the median with the min and max over the seeds. Every figure is simulated
and not calibrated: no published iova figure checks this model, and
--call-ns and --node-ns (local work per call and per rbtree node looked at)
are chosen, not fitted.

Writes DIR/iova-points.tsv (one row per run), DIR/iova-predictions.md (the
tables) and DIR/iova-profile-*.md (the most contended lines of each variant
at the highest CPU count, seed 1). Exit 1 if a run failed a check.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simrun  # noqa: E402

WORKLOAD_TEXT = {
    "d": "sizes 1..64, one allocation in 8 with a 28-bit mask, freed on the same CPU",
    "f": "sizes 33..256, 32 outstanding per CPU, freed on the same CPU",
    "g": "size 64, freed on the next CPU",
    "h": "sizes 33..256 behind the flush queue (256 per CPU, 10 ms timer)",
    "a": "size 1, freed on the same CPU (the rcache's best case)",
    "b": "size 1, freed on the next CPU",
    "c": "size 1 behind the flush queue",
    "e": "size 1, 40960 outstanding in all",
    "i": "size 64, 512 outstanding in all",
    "j": "sizes 33..64 with a 28-bit limit",
}


def csv_ints(s):
    try:
        v = [int(x) for x in s.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a comma-separated list of whole numbers" % s)
    if not v or min(v) < 1:
        raise argparse.ArgumentTypeError("'%s': give whole numbers from 1" % s)
    return v


def args_for(profile, variant, workload, cpus, seconds, warmup, seed, call_ns, node_ns):
    return ["--sim-profile=" + profile, "--variant", variant, "--workload", workload,
            "--threads", str(cpus), "--seconds", repr(seconds), "--warmup", repr(warmup),
            "--seed", str(seed), "--check", "1", "--watchdog", "5",
            "--call-ns", str(call_ns), "--node-ns", str(node_ns), "--sim-report=-"]


def point_row(res):
    r = res["result"]
    allocs = int(r["allocs"])
    locks = int(r["rbtree_acq"])
    return {
        "rate": float(r["ops_per_s_per_cpu"]),
        "alloc_ns": float(r["alloc_ns"]),
        "free_ns": float(r["free_ns"]),
        "rbtree_per_k": 1000.0 * locks / allocs if allocs else 0.0,
        "contended_pct": 100.0 * int(r["rbtree_cont"]) / locks if locks else 0.0,
        "rbtree_wait_ns": float(r["rbtree_wait_ns"]) / allocs if allocs else 0.0,
        "classes": int(r.get("classes", "0")),
        "paths": "/".join("%.1f" % (100.0 * int(r[p]) / allocs if allocs else 0.0)
                          for p in ("cpu", "depot", "bitmap", "rbtree")),
    }


def blamed(failed, ref):
    """The failed runs to hold against their variant: those at a point
    (profile, workload, CPUs, seed) where the reference variant passed.
    Where the reference fails too, the workload itself breaks at that
    scale, and every variant's failure there is reported but not blamed.
    failed: (profile, workload, cpus, seed, variant, message) tuples."""
    ref_failed = {f[:4] for f in failed if f[4] == ref}
    return [f for f in failed if f[:4] not in ref_failed]


def fmt_range(vals, f="%.0f"):
    return (f + " (" + f + "-" + f + ")") % (statistics.median(vals), min(vals), max(vals))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", action="append", required=True, help="VARIANT=BINARY; the first is the reference")
    ap.add_argument("--profile", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cpus", type=csv_ints, default=[1, 16, 64])
    ap.add_argument("--workloads", default="d,f,g,h")
    ap.add_argument("--seeds", type=csv_ints, default=[1, 2, 3])
    ap.add_argument("--seconds", type=float, default=0.02)
    ap.add_argument("--warmup", type=float, default=0.01)
    ap.add_argument("--call-ns", type=int, default=30)
    ap.add_argument("--node-ns", type=int, default=2)
    ap.add_argument("--cache")
    a = ap.parse_args()

    bins = []
    for b in a.bin:
        name, sep, path = b.partition("=")
        if not sep or not name or not os.access(path, os.X_OK):
            ap.error("--bin %s: give VARIANT=BINARY, an executable" % b)
        bins.append((name, path))
    workloads = [w for w in a.workloads.split(",") if w]
    for w in workloads:
        if w not in WORKLOAD_TEXT:
            ap.error("--workloads: '%s' is not one of %s (k is not simulated)" % (w, ",".join(sorted(WORKLOAD_TEXT))))
    for p in a.profile:
        if not os.path.isfile(p):
            ap.error("--profile %s: no such file" % p)
    if not (0 < a.seconds <= 1) or not (0 <= a.warmup <= 1):
        ap.error("--seconds must be in (0, 1] and --warmup in [0, 1] virtual seconds")
    os.makedirs(a.out, exist_ok=True)

    rows = {}
    failed = []
    tsv = ["profile\tvariant\tworkload\tcpus\tseed\tstatus\trate\talloc_ns\tfree_ns\trbtree_per_k\tcontended_pct\tclasses\tpaths"]
    profiles_top = {}
    for prof in a.profile:
        pname = os.path.basename(prof).rsplit(".", 1)[0]
        for w in workloads:
            for cpus in a.cpus:
                for seed in a.seeds:
                    for name, path in bins:
                        args = args_for(prof, name, w, cpus, a.seconds, a.warmup, seed, a.call_ns, a.node_ns)
                        try:
                            res = simrun.run(path, args, a.cache)
                        except simrun.RunError as e:
                            failed.append((pname, w, cpus, seed, name, str(e)))
                            tsv.append("\t".join([pname, name, w, str(cpus), str(seed), e.status] + ["-"] * 7))
                            continue
                        row = point_row(res)
                        rows.setdefault((pname, w, cpus, name), []).append((seed, row))
                        tsv.append("\t".join([pname, name, w, str(cpus), str(seed), "ok",
                                              "%.0f" % row["rate"], "%.1f" % row["alloc_ns"],
                                              "%.1f" % row["free_ns"], "%.2f" % row["rbtree_per_k"],
                                              "%.1f" % row["contended_pct"], str(row["classes"]),
                                              row["paths"]]))
                        if cpus == max(a.cpus) and seed == a.seeds[0]:
                            profiles_top[(pname, w, name)] = res["lines"][:8]
    with open(os.path.join(a.out, "iova-points.tsv"), "w") as f:
        f.write("\n".join(tsv) + "\n")

    ref = bins[0][0]
    md = ["# The iova harness under the simulation (simulated, not calibrated)", "",
          "Simulated, not measured: allocations per virtual CPU per virtual second "
          "(each with its free), the variant's own allocator code "
          "(tools/native/iova-harness.c built with HARNESS_SIM) on the simulation's "
          "machine profiles; spinlocks are queued locks, as arm64's. "
          "Model %s; %g virtual s a run after a %g s warm-up; local work %d ns per call "
          "and %d ns per rbtree node looked at (chosen, not fitted). "
          "No published iova figure checks this model: every figure here is indicative, "
          "and says nothing about a machine until hardware confirms it."
          % (simrun.MODEL_VERSION, a.seconds, a.warmup, a.call_ns, a.node_ns), "",
          "Cells: median (min-max) over seeds %s. Ratio: the variant's rate over %s's, "
          "seed by seed. rbtree: `iova_rbtree_lock` acquisitions per 1000 allocations, and the "
          "share of them that found it held. Paths: the share of allocations served by the "
          "CPU's magazines / the depot / a class bitmap / the rbtree."
          % (",".join(map(str, a.seeds)), ref), ""]
    for prof in a.profile:
        pname = os.path.basename(prof).rsplit(".", 1)[0]
        for w in workloads:
            md += ["## %s, workload %s: %s" % (pname, w, WORKLOAD_TEXT[w]), "",
                   "| CPUs | variant | allocs/s per CPU | ratio to %s | rbtree per 1k | contended %% | paths %% | classes |" % ref,
                   "|---:|---|---:|---:|---:|---:|---|---:|"]
            for cpus in a.cpus:
                refrows = dict(rows.get((pname, w, cpus, ref), []))
                for name, _ in bins:
                    got = rows.get((pname, w, cpus, name))
                    if not got:
                        md.append("| %d | %s | failed | - | - | - | - | - |" % (cpus, name))
                        continue
                    rates = [r["rate"] for _, r in got]
                    ratios = [r["rate"] / refrows[s]["rate"] for s, r in got if s in refrows and refrows[s]["rate"]]
                    last = got[0][1]
                    md.append("| %d | %s | %s | %s | %.0f | %.0f | %s | %d |" % (
                        cpus, name, fmt_range(rates),
                        fmt_range(ratios, "%.2f") if ratios else "-",
                        statistics.median(r["rbtree_per_k"] for _, r in got),
                        statistics.median(r["contended_pct"] for _, r in got),
                        last["paths"], last["classes"]))
            md.append("")
    blame = blamed(failed, ref)
    if failed:
        md += ["## Failed runs", "",
               "A run that fails where %s passed at the same point (profile, workload, CPUs, seed) "
               "fails make sim-iova; where %s fails too, the workload itself breaks at that scale, "
               "and the runs are listed but fail nothing." % (ref, ref), ""]
        md += ["- %s%s" % ("" if f in blame else "(the reference) " if f[4] == ref
                             else "(%s fails here too) " % ref, f[5]) for f in failed] + [""]
    with open(os.path.join(a.out, "iova-predictions.md"), "w") as f:
        f.write("\n".join(md))

    for (pname, w, name), lines in sorted(profiles_top.items()):
        fn = os.path.join(a.out, "iova-profile-%s-%s.md" % (pname, w))
        new = not os.path.exists(fn) or not any(k[0] == pname and k[1] == w and k[2] < name
                                                for k in profiles_top)
        with open(fn, "w" if new else "a") as f:
            if new:
                f.write("# Contention profile, %s, workload %s, %d virtual CPUs, seed %d (simulated)\n\n"
                        % (pname, w, max(a.cpus), a.seeds[0]))
            f.write("## %s\n\n| line | fields |\n|---|---|\n" % name)
            for ln in lines:
                f.write("| %s | %s |\n" % (ln.get("field", "?"),
                                           " ".join("%s=%s" % (k, v) for k, v in ln.items() if k != "field")))
            f.write("\n")
    if len(failed) > len(blame):
        print("iova_predict: %d run(s) failed where %s failed too (the workload at that scale; "
              "listed in iova-predictions.md)" % (len(failed) - len(blame), ref), file=sys.stderr)
    if blame:
        print("iova_predict: %d run(s) failed where %s passed:" % (len(blame), ref), file=sys.stderr)
        for f_ in blame:
            print("  " + f_[5], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
