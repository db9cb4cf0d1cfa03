#!/usr/bin/env python3
"""Predictions of the cmdq simulation for today's code.

  predict.py --profile P [--profile Q] --bin NAME=BINARY... --out DIR
             [--fitted DIR/calibration.json] [--seconds S] [--cache DIR]
             [--counts "1 2 4 ..."] [--shifts "8 12 16"] [--modes "strict lazy"]

For every profile, variant, mode (strict: a TLBI + CMD_SYNC per map+unmap;
lazy: one per 256, the flush queue's size) and queue size, the rate of
map+unmap per CPU per virtual second at each CPU count, beside the
physical limit (the SMMU's consumption rate divided by the CPUs). The fit
of calibration.json (t_other, t_sync, t_far) is applied to its own
profile; the other profiles take its t_other and t_sync (the software's
work and the Kunpeng SMMU's time, assumed the same there), not its t_far.
The limit is the SMMU's time per command (t_cmd, t_sync): its DMA is
pipelined and costs its own clock next to nothing. Also the contention profiles at 16 and 64 CPUs,
strict, queue 2^16, of the first and the last variant.

Writes DIR/predictions.tsv, DIR/predictions.md (and predictions-summary.md:
strict, the largest queue), DIR/profile-*.md and one
gnuplot data file per profile and mode. Every figure is labelled
simulated, with its model version and profile.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simrun  # noqa: E402

LAZY = 256


def pname(path):
    return os.path.basename(path).rsplit(".", 1)[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", action="append", required=True)
    ap.add_argument("--bin", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fitted")
    ap.add_argument("--seconds", type=float, default=0.03)
    ap.add_argument("--cache")
    ap.add_argument("--counts", default="1 2 4 8 16 32 48 64 96 128")
    ap.add_argument("--shifts", default="8 12 16")
    ap.add_argument("--modes", default="strict lazy")
    ap.add_argument("--verdict", default="", help="the calibration's verdict, printed with every table")
    a = ap.parse_args(argv)
    bins = []
    for b in a.bin:
        v, _, path = b.partition("=")
        if not path or not os.access(path, os.X_OK):
            print("predict: --bin %s is not VARIANT=BINARY with an executable binary" % b, file=sys.stderr)
            return 2
        bins.append((v, path))
    fitted, fit_profile = {}, None
    if a.fitted:
        with open(a.fitted) as f:
            cal = json.load(f)
        fitted, fit_profile = cal["fitted"], os.path.realpath(cal["profile"])
        if not a.verdict:
            a.verdict = "check holds" if cal["holds"] else "check failed: indicative"
    os.makedirs(a.out, exist_ok=True)
    rows = []
    errors = []
    md = ["# Simulated predictions (model %s)\n" % simrun.MODEL_VERSION,
          "Simulated, not measured: map+unmap per CPU per virtual second, %g virtual seconds a run. "
          "Calibration: %s. The limit is the SMMU's consumption rate divided by the CPUs "
          "(a TLBI + CMD_SYNC per map+unmap in strict mode, one per %d in lazy), measured by the "
          "same simulation with the issuing side costing nothing. A cell without a figure says why: "
          "refused (the variant refuses the queue for that many CPUs), failed (a harness check failed: "
          "no figure), watchdog (nothing moved).\n" % (a.seconds, a.verdict or "none", LAZY)]
    for prof in a.profile:
        kv = simrun.read_profile(prof)
        ncpu = int(kv["cpus"])
        sets = fit_sets(prof, fitted, fit_profile)
        counts = [n for n in map(int, a.counts.split()) if n <= ncpu]
        for mode in a.modes.split():
            lazy = LAZY if mode == "lazy" else 0
            for shift in map(int, a.shifts.split()):
                table = {}
                for v, path in bins:
                    for n in counts:
                        args = simrun.args_for(prof, ncpu, n, a.seconds, shift, lazy=lazy, sets=sets,
                                               variant=v)
                        try:
                            r = simrun.run(path, args, a.cache)
                            rate = simrun.rate(r)
                            status = "ok"
                        except simrun.RunError as e:
                            rate, status = None, e.status
                            if e.status == "error":
                                errors.append(str(e))
                        table[(v, n)] = (rate, status)
                        rows.append((pname(prof), mode, shift, v, n, rate, status))
                limit = smmu_limit(bins[0][1], prof, ncpu, shift, lazy, sets, a)
                md.append("## %s, %s, queue 2^%d\n" % (pname(prof), mode, shift))
                md.append("| CPUs | " + " | ".join(v for v, _ in bins) + " | limit |")
                md.append("|---:|" + "---:|" * (len(bins) + 1))
                dat = os.path.join(a.out, "%s-%s-%d.dat" % (pname(prof), mode, shift))
                with open(dat, "w") as f:
                    f.write("# simulated, model %s, profile %s, %s, queue 2^%d\n" %
                            (simrun.MODEL_VERSION, pname(prof), mode, shift))
                    f.write("cpus " + " ".join(v for v, _ in bins) + " limit\n")
                    for n in counts:
                        cells = []
                        for v, _ in bins:
                            rate, st = table[(v, n)]
                            cells.append("%.0f" % rate if rate is not None else st)
                        md.append("| %d | " % n + " | ".join(cells) + " | %.0f |" % (limit / n))
                        f.write("%d %s %.0f\n" % (n, " ".join(c if c[0].isdigit() else "NaN" for c in cells),
                                                  limit / n))
                md.append("")
    with open(os.path.join(a.out, "predictions.tsv"), "w") as f:
        f.write("model\tprofile\tmode\tshift\tvariant\tcpus\trate\tstatus\n")
        for r in rows:
            f.write("%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\n" % ((simrun.MODEL_VERSION,) + r[:5] +
                                                          ("%.0f" % r[5] if r[5] is not None else "-", r[6])))
    with open(os.path.join(a.out, "predictions.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    # the summary the notes include: strict, the largest queue, every profile
    big = max(map(int, a.shifts.split()))
    summary = ["# Simulated predictions, strict, queue 2^%d (model %s)\n" % (big, simrun.MODEL_VERSION),
               md[1]]
    keep = False
    for line in md[2:]:
        if line.startswith("## "):
            keep = line.endswith("strict, queue 2^%d\n" % big) or line.endswith("strict, queue 2^%d" % big)
        if keep:
            summary.append(line)
    with open(os.path.join(a.out, "predictions-summary.md"), "w") as f:
        f.write("\n".join(summary) + "\n")
    # contention profiles: strict, 2^16, 16 and 64 CPUs, first and last variant
    for prof in a.profile:
        kv = simrun.read_profile(prof)
        ncpu = int(kv["cpus"])
        sets = fit_sets(prof, fitted, fit_profile)
        out = ["# Contention profiles (simulated, model %s, profile %s, strict, queue 2^16)\n" %
               (simrun.MODEL_VERSION, pname(prof)), "Calibration: %s.\n" % (a.verdict or "none")]
        for v, path in (bins[0], bins[-1]):
            for n in (16, 64):
                if n > ncpu:
                    continue
                try:
                    r = simrun.run(path, simrun.args_for(prof, ncpu, n, a.seconds, 16, sets=sets, variant=v),
                                   a.cache)
                except simrun.RunError as e:
                    out.append("## %s at %d CPUs: %s\n" % (v, n, e))
                    continue
                out.append(contention_md(v, n, r))
        with open(os.path.join(a.out, "profile-%s.md" % pname(prof)), "w") as f:
            f.write("\n".join(out) + "\n")
    bad = {}
    for r in rows:
        if r[6] != "ok":
            bad[r[6]] = bad.get(r[6], 0) + 1
    print("predict: %d runs (%s); %s" % (len(rows), ", ".join("%d %s" % (n, k) for k, n in sorted(bad.items()))
                                        or "all ok", os.path.join(a.out, "predictions.md")))
    for e in errors:
        print("predict: error: %s" % e, file=sys.stderr)
    return 1 if errors else 0


def fit_sets(prof, fitted, fit_profile):
    """The fit's --sim-set values for a profile: all of them on the profile
    it was fitted on; on another, t_other and t_sync (the software's work and
    the SMMU's) but not the interconnect's t_far."""
    return ["%s=%.6g" % (k, v) for k, v in sorted(fitted.items())
            if os.path.realpath(prof) == fit_profile or k not in ("t_far", "xfer_scale")]


def smmu_limit(path, prof, ncpu, shift, lazy, sets, a):
    """map+unmap per second the SMMU alone can take: the same run at the
    largest count with the issuing side free (--sim-issuers-free: the CPUs'
    accesses cost a 1 ns floor, no t_other). The SMMU's DMA is pipelined, so
    this is its command time, t_cmd and t_sync."""
    free = [s for s in sets if not s.startswith("t_other=")] + ["t_other=0"]
    n = min(ncpu, 64)
    try:
        r = simrun.run(path, simrun.args_for(prof, ncpu, n, a.seconds, shift, lazy=lazy, sets=free,
                                             variant="limit", extra=("--sim-issuers-free",)), a.cache)
    except simrun.RunError:
        return float("nan")
    return simrun.rate(r) * n


def contention_md(v, n, r):
    res, prof = r["result"], r["profile"]
    cmds = max(1.0, float(res["cmds"]) + float(res["syncs_checked"]))
    o = ["## %s at %d CPUs: %s map+unmap per CPU per virtual second\n" % (v, n, res["ops_per_s_per_cpu"]),
         "CPU time: %.1f%% working, %.1f%% parked; %.2f line transfers per command.\n" % (
             100 * float(prof["cpu_work_ns"]) / max(1.0, float(prof["cpu_work_ns"]) + float(prof["cpu_park_ns"])),
             100 * float(prof["cpu_park_ns"]) / max(1.0, float(prof["cpu_work_ns"]) + float(prof["cpu_park_ns"])),
             float(prof["transfers"]) / cmds),
         "| shim point | virtual ms | calls |", "|---|---:|---:|"]
    for p in r["points"][:10]:
        o.append("| %s | %.2f | %s |" % (p["op"], float(p["ns"]) / 1e6, p["n"]))
    # the busiest line of a field held by its home, as a share of the run's
    # virtual time: near 100% it is what limits the rate
    vt = max(1.0, float(prof["virtual_ns"]))
    o += ["", "| cache line (field) | lines | virtual ms | transfers | transfers per command "
          "| busiest line held, % of the run |", "|---|---:|---:|---:|---:|---:|"]
    for l in r["lines"][:10]:
        o.append("| %s | %s | %.2f | %s | %.2f | %.1f |" % (
            l["field"], l["lines"], float(l["ns"]) / 1e6, l["transfers"], float(l["transfers"]) / cmds,
            100 * float(l.get("busiest_held_ns", "nan")) / vt))
    o.append("")
    return "\n".join(o)


if __name__ == "__main__":
    sys.exit(main())
