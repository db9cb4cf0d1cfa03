#!/usr/bin/env python3
# explore.py [--sec S] [--cpus LIST] [--sim-...] KEY=VAL...: base's rate and the
# spinlock's and the add's ratios to it, beside the published ones, for one set
# of --sim-set values on kunpeng920-2s, --burst 50 as the calibration runs.
# Run by hand from the repository's top after make sim (its binaries, under
# CACHE_DIR/native/base/VARIANT/sim/); results cached in $TMPDIR/explore-cache.
import sys, os, concurrent.futures as cf
sys.path.insert(0, "tools/native/sim")
import simrun, calibrate
args = sys.argv[1:]
sec = 0.01; cpus = [2, 4, 8, 16, 32, 64, 96]; extra = []
while args and args[0].startswith("--"):
    o = args.pop(0)
    if o == "--sec": sec = float(args.pop(0))
    elif o == "--cpus": cpus = [int(x) for x in args.pop(0).split(",")]
    else: extra.append(o)
sets = args
prof = "tools/native/sim/profiles/kunpeng920-2s.profile"
B = os.path.join(os.environ.get("CACHE_DIR", os.path.expanduser("~/.cache/iommu-scale")),
                 "native/base/%s/sim/cmdq-sim")
pub = calibrate.read_published("tools/native/sim/published-2020.tsv")
pubd = {int(r["cpus"]): r for r in pub}
jobs = {}
with cf.ThreadPoolExecutor(2) as ex:
    for n in cpus:
        for k, v in (("base", "base"), ("spinlock", "cmdq-spinlock"), ("add", "cmdq-v1")):
            a = simrun.args_for(prof, 96, n, sec, 16, sets=sets, variant=v, burst=50) + extra
            jobs[(n, k)] = ex.submit(simrun.run, B % v, a, os.path.join(os.environ.get("TMPDIR", "/tmp"), "explore-cache"))
    print("sets:", " ".join(sets), " ".join(extra), "sec", sec)
    print("cpus   base(pub)        spin/b(pub)   add/b(pub)   cas/succ(pub)")
    for n in cpus:
        r = {}
        for k in ("base", "spinlock", "add"):
            try:
                r[k] = jobs[(n, k)].result()
            except simrun.RunError as e:
                r[k] = None; print("ERR", n, k, str(e)[-200:])
        if not r["base"]: continue
        b = simrun.rate(r["base"]); p = pubd[n]
        cas = "%.1f" % (float(r["base"]["result"]["cmpxchg"]) / max(1.0, float(r["base"]["result"]["lists"])))
        s = "%4d %8.0f(%6.0f %+4.0f%%)" % (n, b, p["base"], 100*(b/p["base"]-1))
        for k in ("spinlock", "add"):
            if r[k]:
                q = simrun.rate(r[k]) / b; qp = p[k]/p["base"]
                s += "  %5.2f(%4.2f %+4.0f%%)" % (q, qp, 100*(q/qp-1))
        s += "  %s(%s)" % (cas, p["cas_per_success"])
        print(s, flush=True)
