#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Results of a benchmark run: from the points a run recorded to the tables
it publishes. Standard library only.

    tools/results/results.py report DIR       DIR/points.tsv + env.txt (+ counters.tsv,
                                      guest.tsv) -> summary.tsv, results.md,
                                      results.json
    tools/results/results.py guest DIR        the guests' BENCH-INFO lines in DIR/logs/
                                      -> DIR/guest.tsv: the machine each
                                      variant ran on, as its kernel saw it
    tools/results/results.py pgreport DIR     DIR/bench.tsv + env.txt -> results.md
                                      (make bench-pgtable)
    tools/results/results.py smoke-check DIR  is a make bench-smoke run sane? one line
                                      per check; exit 1 if one failed
    tools/results/results.py lava DIR         DIR/jobs/index.tsv + each job's LAVA
                                      log in DIR/lava/JOB.log -> DIR/points.tsv
                                      and the guest's console of each job in
                                      DIR/logs/ (make lava-run, lava-collect)
    tools/results/results.py compare A B AA   two runs of the same parameters (make
                                      bench, make lava-run): does each
                                      variant's ratio to the first agree
                                      within the A/A variant AA's spread?
                                      a table; exit 1 if one does not
    tools/results/results.py notes FILE update|check|render
                                      FILE's include blocks made again from
                                      the results files they name (render:
                                      to standard output)

A run's directory holds env.txt (KEY=value lines: what ran, where) and
points.tsv (one line per variant, round, mode, threads and granule, as the
guest or the native harness printed it). Per (mode, granule, threads,
variant), over the rounds, the report gives the median, min and max of map
and unmap latency and of throughput: map+unmap per CPU per second, from the
benchmark's own operation count where the kernel reported one (ops,
elapsed_ns), else derived from the latencies as 1 / (map + unmap) per
thread, and labelled so. Each further variant is compared with the first
round by round: the ratio's median, min and max. A damaged or incomplete
points.tsv gives no table.

The figures are those tools/bench/report computed with awk (mawk) before: every
list value is rounded as awk turns a number into a string ('%.6g', or an
integer where it is one and fits 32 bits), so that every committed
results.md is recomputed to the byte (tools/results/results_test.py checks that).
gnuplot draws the plots from summary.tsv (tools/bench/report).
"""
import json
import re
import sys
from pathlib import Path

POINT_FIELDS = ["variant", "round", "mode", "threads", "granule", "seconds",
                "map_100ns", "map_sd", "unmap_100ns", "unmap_sd", "ops", "elapsed_ns"]


class ResultsError(Exception):
    """a run directory that gives no table, and why"""


def awk_num(x):
    """x as mawk prints a number: an integer if it is one and fits in 32
    bits, otherwise %.6g"""
    if x == int(x) and -2147483648 < x < 2147483648:
        return str(int(x))
    return "%.6g" % x


def stats(values):
    """(median, min, max) of awk-rounded strings, as strings: the median of
    an even count is the mean of the middle two, rounded again"""
    a = sorted(values, key=float)
    n = len(a)
    if n == 0:
        raise ResultsError("no values")
    med = a[(n - 1) // 2] if n % 2 else awk_num((float(a[n // 2 - 1]) + float(a[n // 2])) / 2)
    return med, a[0], a[-1]


def median(values):
    """the median as a number; 0 for no values, as the awk gave"""
    return float(stats(values)[0]) if values else 0.0


def read_env(path):
    """env.txt as a dict; a later line for the same key wins"""
    env = {}
    for line in Path(path).read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            env[key] = value
    return env


def read_points(path):
    """the rows of points.tsv, checked field by field"""
    rows = []
    lines = Path(path).read_text().splitlines()
    for nr, line in enumerate(lines[1:], start=2):
        f = line.split("\t")
        if len(f) != 12:
            raise ResultsError(f"expected 12 fields, got {len(f)} (points.tsv line {nr})")
        for i in range(3, 10):
            if not f[i].isdigit():
                raise ResultsError(f"field {i + 1} is not a number: {f[i]} (points.tsv line {nr})")
        for i in (10, 11):
            if not (f[i].isdigit() or f[i] == "-"):
                raise ResultsError(f"field {i + 1} is neither a number nor -: {f[i]} (points.tsv line {nr})")
        if int(f[6]) + int(f[8]) == 0:
            raise ResultsError(f"zero latency for {f[0]} (points.tsv line {nr})")
        rows.append(dict(zip(POINT_FIELDS, f)))
    return rows


def summarize(points, variants):
    """summary rows, sorted by mode, granule and threads: dicts with the
    fields of summary.tsv"""
    acc = {}
    keys = []
    for p in points:
        key = (p["mode"], p["granule"], p["threads"])
        if key not in keys:
            keys.append(key)
        a = acc.setdefault((key, p["variant"]), {
            "map": [], "unmap": [], "tder": [], "tcnt": [], "rd": {}, "rc": {},
            "rounds": [], "counted": True})
        m, u, t = int(p["map_100ns"]), int(p["unmap_100ns"]), int(p["threads"])
        td = 1e7 / (m + u)
        tc = None
        if p["ops"].isdigit() and int(p["ops"]) > 0 and p["elapsed_ns"].isdigit() and int(p["elapsed_ns"]) > 0:
            tc = int(p["ops"]) / (int(p["elapsed_ns"]) / 1e9) / t
        else:
            a["counted"] = False
        a["map"].append(awk_num(m / 10))
        a["unmap"].append(awk_num(u / 10))
        a["tder"].append(awk_num(td))
        if tc is not None:
            a["tcnt"].append(awk_num(tc))
        a["rd"][p["round"]] = td
        a["rc"][p["round"]] = tc
        a["rounds"].append(p["round"])
    out = []
    for key in keys:
        first = acc.get((key, variants[0]))
        for i, v in enumerate(variants):
            a = acc.get((key, v))
            if a is None:
                raise ResultsError(f"no points for variant {v} at mode {key[0]} granule {key[1]} threads {key[2]}")
            row = {"mode": key[0], "granule": key[1], "threads": key[2], "variant": v,
                   "rounds": len(a["map"]), "map_us": stats(a["map"]), "unmap_us": stats(a["unmap"]),
                   "throughput": "counted" if a["counted"] else "derived",
                   "per_cpu_ops_per_s": stats(a["tcnt"] if a["counted"] else a["tder"]),
                   "ratio_to_first": None, "ratio_throughput": None}
            if i > 0:
                # compare like with like: counted throughput only when both have it
                both = a["counted"] and first["counted"]
                rl = []
                for r in a["rounds"]:
                    if r not in first["rd"]:
                        continue
                    rl.append(awk_num(a["rc"][r] / first["rc"][r] if both else a["rd"][r] / first["rd"][r]))
                if rl:
                    row["ratio_to_first"] = stats(rl)
                    row["ratio_throughput"] = "counted" if both else "derived"
            out.append(row)
    out.sort(key=lambda r: (r["mode"], float(r["granule"]), float(r["threads"]), summary_line(r)))
    return out


def summary_line(r):
    """a row of summary.tsv: mode granule threads variant n map(med,min,max)
    unmap(med,min,max) tput(med,min,max) tput_kind ratio(med,min,max) ratio_kind"""
    ratio = r["ratio_to_first"] or ("-", "-", "-")
    return "\t".join([r["mode"], r["granule"], r["threads"], r["variant"], str(r["rounds"]),
                      *r["map_us"], *r["unmap_us"], *r["per_cpu_ops_per_s"], r["throughput"],
                      *ratio, r["ratio_throughput"] or "-"])


def k(x):
    x = float(x)
    if x >= 1e6:
        return "%.2fM" % (x / 1e6)
    if x >= 1e3:
        return "%.1fK" % (x / 1e3)
    return "%.0f" % x


def render_md(rows, env, variants):
    """results.md: one table per mode and granule (or a granule sweep at one
    thread count), threads down the side, variants across, ratios last"""
    out = []
    modes, gl, tl, cell, rcell, anyd = [], {}, {}, {}, {}, set()
    for r in rows:
        m = r["mode"]
        if m not in modes:
            modes.append(m)
        gl.setdefault(m, [])
        tl.setdefault(m, [])
        if r["granule"] not in gl[m]:
            gl[m].append(r["granule"])
        if r["threads"] not in tl[m]:
            tl[m].append(r["threads"])
        key = (m, r["granule"], r["threads"])
        star = "*" if r["throughput"] == "derived" else ""
        tp = r["per_cpu_ops_per_s"]
        cell[key, r["variant"]] = "%.1f / %.1f us; %s%s (%s-%s)" % (
            float(r["map_us"][0]), float(r["unmap_us"][0]), k(tp[0]), star, k(tp[1]), k(tp[2]))
        if r["ratio_to_first"]:
            rt = r["ratio_to_first"]
            rcell[key, r["variant"]] = "%.2fx%s (%.2f-%.2f)" % (
                float(rt[0]), "*" if r["ratio_throughput"] == "derived" else "", float(rt[1]), float(rt[2]))
        if r["throughput"] == "derived":
            anyd.add(m)

    def table(m, title, rowname, rowvals, fixed, bygran):
        out.append(f"## {title}\n")
        if m in anyd:
            out.append("\\* derived from latency, 1 / (map + unmap) per thread: that kernel does not "
                       "count operations. A ratio with \\* compares derived figures of both variants.\n")
        head = f"| {rowname} |" + "".join(f" {v} |" for v in variants) + \
            "".join(f" {v} / {variants[0]} |" for v in variants[1:])
        out.append(head)
        out.append("|---:|" + "---|" * (2 * len(variants) - 1))
        for rv in rowvals:
            key = (m, rv, fixed) if bygran else (m, fixed, rv)
            out.append(f"| {rv} |" + "".join(f" {cell.get((key, v), '')} |" for v in variants) +
                       "".join(f" {rcell.get((key, v), '')} |" for v in variants[1:]))
        out.append("")

    e = env.get
    simulated = e("kind") == "simulated"
    native = e("kind") == "native" or simulated
    title = "simulated native harness" if simulated else "native harness" if native else "benchmark"
    out.append(f"# iommu-scale {title}: {' '.join(variants)}\n")
    if "command" in env:
        out.append(f"Command: `{env['command']}`\n")
    if simulated:
        out.append(f"Simulated, not measured: model {e('model', '')}, profile {e('profile', '')} "
                   f"({e('sim_args', '')}); the native harness's own code and checks on virtual CPUs "
                   "(tools/native/sim), virtual time. "
                   f"Queue 2^{e('shift', '')}. {e('rounds', '')} round(s): a run is a function of its "
                   f"parameters and seed, so rounds differ only by seed; {e('seconds', '')} virtual s per "
                   f"point. Run {e('date', '')}. Base: {e('base', '')}.\n")
        out.append("Cells: median virtual time in an issue call with a CMD_SYNC / without one (us, 0.1 us "
                   "steps, rounded up); commands per virtual CPU per virtual second (min-max over rounds). "
                   "Ratios: throughput of the variant over the first variant.\n")
    elif native:
        out.append(f"Host: {e('host_model', '')}, {e('host_nproc', '')} CPUs, {e('host_kernel', '')}. "
                   "Native harness (tools/native): each variant's own cmdq code, real threads pinned "
                   "round-robin, a fake SMMU thread; "
                   f"queue 2^{e('shift', '')}, fake SMMU cost {e('cmd_ns', '')} ns per command and "
                   f"{e('sync_ns', '')} ns per CMD_SYNC. {e('rounds', '')} rounds, interleaved; "
                   f"{e('seconds', '')} s per point. Run {e('date', '')}. Base: {e('base', '')}.\n")
        out.append("Cells: median time in an issue call with a CMD_SYNC / without one (us, 0.1 us steps, "
                   "rounded up); median commands per issuing thread per second, counted by the harness "
                   "(min-max over rounds). Ratios: throughput of the variant over the first variant, "
                   "round by round, median (min-max).\n")
        try:
            nproc = 0 if simulated else int(e("host_nproc", "0"))
        except ValueError:
            nproc = 0
        over = [t for tl_m in tl.values() for t in tl_m if nproc and int(t) + 1 > nproc]
        if over:
            out.append("**Oversubscribed:** at %s thread(s) the issuing threads and the fake SMMU thread "
                       "outnumber this host's %d CPUs, so those columns measure the host's scheduler as "
                       "much as the driver; they say nothing about a machine with a CPU for each.\n"
                       % (", ".join(sorted(set(over), key=int)), nproc))
    else:
        if "host_model" not in env and "booted_by" in env:
            out.append(f"Run in a LAVA lab, not on this host: the boards, as the guests reported them, are "
                       f"in the last table. {e('rounds', '')} rounds, interleaved; {e('seconds', '')} s per "
                       f"point; direction {e('dir', '')}, DMA mask {e('dma_bits', '')} bits. Jobs written "
                       f"{e('date', '')}, submitted {e('submitted', '')}. Base: {e('base', '')}.\n")
        else:
            out.append(f"Host: {e('host_model', '')}, {e('host_nproc', '')} CPUs. {e('qemu', '')}, accel "
                       f"{e('accel', '')}, -smp {e('smp', '')}. {e('rounds', '')} rounds, interleaved; "
                       f"{e('seconds', '')} s per point; direction {e('dir', '')}, DMA mask "
                       f"{e('dma_bits', '')} bits. Run {e('date', '')}. Base: {e('base', '')}.\n")
        if "booted_by" in env:
            out.append(f"A LAVA job for each round and mode, booting every variant in turn on one board: "
                       f"booted and read by {env['booted_by']}"
                       + (f"; boards: {env['lab_devices']}" if env.get("lab_devices") else "") + ".\n")
            if len(env.get("lab_devices", "").split()) > 1:
                out.append("**Several boards:** the lab ran the jobs on more than one board. Each ratio "
                           "compares variants booted on one board in one job, but the medians and the "
                           "machine table mix boards; lava/devices.tsv says which job ran where.\n")
        out.append("Cells: median map / unmap latency; median map+unmap per CPU per second, counted by "
                   "the benchmark (min-max over rounds). Ratios: throughput of the variant over the first "
                   "variant, round by round, median (min-max).\n")
    for m in modes:
        if len(tl[m]) == 1 and len(gl[m]) > 1:
            table(m, f"{m}, {tl[m][0]} thread(s), granule sweep", "pages", gl[m], tl[m][0], True)
        else:
            for g in gl[m]:
                table(m, f"{m}, granule {g} page(s)", "threads", tl[m], g, False)
    return "\n".join(out) + "\n"


def render_counters(path, variants):
    """the native harness's claim retries and lock acquisitions per 1000
    commands, median over rounds"""
    cf, tf, lk, threads = {}, {}, {}, set()
    for line in Path(path).read_text().splitlines()[1:]:
        f = line.split("\t")
        key = (f[2], f[0])
        threads.add(f[2])
        cmds = float(f[3])
        if cmds > 0:
            cf.setdefault(key, []).append(awk_num(1000 * float(f[5]) / cmds))
            tf.setdefault(key, []).append(awk_num(1000 * float(f[7]) / cmds))
            lk.setdefault(key, []).append(awk_num(1000 * float(f[8]) / cmds))
    out = ["## Claim retries and locks, per 1000 commands (median over rounds)\n",
           "Failed cmpxchg() on the queue word (the claim loop of the base), failed exclusive trylocks "
           "of the cmdq lock, and spinlock acquisitions (cmdq-spinlock), counted in the shims.\n",
           "| threads |" + "".join(f" {v} |" for v in variants),
           "|---:|" + "---|" * len(variants)]
    for t in sorted(threads, key=float):
        cells = []
        for v in variants:
            key = (t, v)
            cells.append(" %.1f cmpxchg, %.1f trylock, %.1f locks |" % (
                median(cf.get(key, [])), median(tf.get(key, [])), median(lk.get(key, []))))
        out.append("| %d |" % float(t) + "".join(cells))
    return "\n".join(out) + "\n\n"


GUEST_LOG = re.compile(r"^r(\d+)-(strict|lazy)-(.+)\.log$")


def guest_info(logs, variants):
    """what each variant's guest said of its machine (its BENCH-INFO lines
    in the consoles under logs/): {variant: {key: [values seen]}}, in the
    order first seen; a key with several values (one per SMMU, or the
    policy of each mode) keeps them all"""
    import shlex
    info = {}
    for f in sorted(Path(logs).glob("*.log")):
        m = GUEST_LOG.match(f.name)
        if not m or m.group(3) not in variants:
            continue
        seen = info.setdefault(m.group(3), {})
        for line in f.read_text(errors="replace").splitlines():
            line = line.strip().replace('\\"', '"')
            if not line.startswith("BENCH-INFO "):
                continue
            rest = line[len("BENCH-INFO "):]
            if rest.startswith("smmu=") and " " in rest:
                # one SMMU and its queues: kept as one value, so that each
                # SMMU keeps its own sizes
                rest = rest[len("smmu="):]
                if rest not in seen.setdefault("smmu", []):
                    seen["smmu"].append(rest)
                continue
            try:
                words = shlex.split(rest)
            except ValueError:
                words = rest.split()
            for w in words:
                key, sep, value = w.partition("=")
                if sep and value not in seen.setdefault(key, []):
                    seen[key].append(value)
    return info


def guest(d):
    """DIR/guest.tsv (variant, key, value) from the guests' consoles in
    DIR/logs/, for the report's machine table; none when no guest reported
    anything (a native run)"""
    d = Path(d)
    variants = read_env(d / "env.txt").get("variants", "").split() if (d / "env.txt").is_file() else []
    if not variants:
        raise ResultsError(f"{d}/env.txt names no variants.")
    info = guest_info(d / "logs", variants)
    rows = [(v, k_, x) for v in variants for k_, vals in info.get(v, {}).items() for x in vals]
    (d / "guest.tsv").unlink(missing_ok=True)
    if rows:
        (d / "guest.tsv").write_text("variant\tkey\tvalue\n" + "".join("\t".join(r) + "\n" for r in rows))


def read_guest(path):
    """guest.tsv as guest_info gives it"""
    info = {}
    for line in Path(path).read_text().splitlines()[1:]:
        f = line.split("\t")
        if len(f) == 3:
            info.setdefault(f[0], {}).setdefault(f[1], []).append(f[2])
    return info


GUEST_KEYS = ("cpus_online", "firmware", "iort", "smmu", "smmus_not_listed", "iommu_default",
              "iommu_policy", "device", "device_iommu", "released", "group_type", "kernel")


def render_guest(info, variants):
    """the guest-reported machine as a table: a key a row, a variant a
    column; empty when no guest said anything"""
    if not info:
        return ""
    keys = [k_ for k_ in GUEST_KEYS if any(k_ in info.get(v, {}) for v in variants)]
    out = ["## The machine, as each guest reported it\n",
           "From the guests' BENCH-INFO lines (tools/guest/init.c): the CPUs online, the firmware's "
           "tables, each SMMU with its queues' entries and the IOMMU mode from the kernel's log, the "
           "device the benchmark took and the IOMMU that translates it. Several values are those of "
           "several SMMUs, of both modes or of several boards.\n",
           "| | " + " | ".join(variants) + " |",
           "|---|" + "---|" * len(variants)]
    for k_ in keys:
        out.append(f"| {k_} | " + " | ".join(" / ".join(info.get(v, {}).get(k_, ["-"])).replace("|", "\\|")
                                            for v in variants) + " |")
    return "\n".join(out) + "\n\n"


def report(d):
    """write summary.tsv, results.md and results.json of the run in d;
    returns the markdown"""
    d = Path(d)
    for f in ("results.md", "results.json", "summary.tsv"):
        (d / f).unlink(missing_ok=True)
    if not (d / "points.tsv").is_file() or not (d / "env.txt").is_file():
        raise ResultsError(f"{d} has no points.tsv and env.txt: it is not the output of "
                           "'make bench' or of a bench bundle.")
    env = read_env(d / "env.txt")
    variants = env.get("variants", "").split()
    if not variants:
        raise ResultsError(f"{d}/env.txt names no variants.")
    points = read_points(d / "points.tsv")
    rows = summarize(points, variants)
    if not rows:
        raise ResultsError(f"{d}/points.tsv holds no points, so there is no table.")
    (d / "summary.tsv").write_text("".join(summary_line(r) + "\n" for r in rows))
    md = render_md(rows, env, variants)
    if (d / "counters.tsv").is_file():
        md += render_counters(d / "counters.tsv", variants)
    guest = read_guest(d / "guest.tsv") if (d / "guest.tsv").is_file() else {}
    md += render_guest(guest, variants)
    (d / "results.md").write_text(md)

    def num(s):
        return int(s) if s.isdigit() else s

    def fig(s):
        """a figure as the table has it: an integer where it is one"""
        return int(s) if s.lstrip("-").isdigit() else float(s)
    doc = {"env": env, "guest": guest,
           "points": [{k_: num(v) for k_, v in p.items()} for p in points],
           "summary": [{"mode": r["mode"], "granule": int(r["granule"]), "threads": int(r["threads"]),
                        "variant": r["variant"], "rounds": r["rounds"],
                        "map_us": [fig(x) for x in r["map_us"]],
                        "unmap_us": [fig(x) for x in r["unmap_us"]],
                        "per_cpu_ops_per_s": [fig(x) for x in r["per_cpu_ops_per_s"]],
                        "throughput": r["throughput"],
                        "ratio_to_first": [fig(x) for x in r["ratio_to_first"]] if r["ratio_to_first"] else None,
                        "ratio_throughput": r["ratio_throughput"]} for r in rows]}
    (d / "results.json").write_text(json.dumps(doc, indent=2) + "\n")
    return md


def pg_size(size):
    """a run's page size as the tables print it: 4K, 64K, 16M"""
    size = float(size)
    return awk_num(size / 1048576) + "M" if size >= 1048576 else awk_num(size / 1024) + "K"


def pg_rows(tsv, lines, nfields):
    """(order, med, cell, cnt) of bench.tsv LINES of NFIELDS fields (fmt path
    op size pages median_ns min_ns max_ns [adds walks syncs]): the runs in
    their order, each (run, path, op)'s median and "median [min-max]" cell,
    and with 11 fields its counts"""
    order, med, cell, cnt = [], {}, {}, {}
    for line in lines:
        f = line.split("\t")
        if len(f) != nfields:
            raise ResultsError(f"{tsv}: expected {nfields} fields, got {len(f)}: {line}")
        key = (f[0], f[3], f[4])
        if key not in order:
            order.append(key)
        med[key, f[1], f[2]] = float(f[5])
        cell[key, f[1], f[2]] = "%d [%d-%d]" % (float(f[5]), float(f[6]), float(f[7]))
        if nfields == 11:
            cnt[key, f[1], f[2]] = {"adds": int(f[8]), "walks": int(f[9]), "syncs": int(f[10])}
    return order, med, cell, cnt


def pgreport(d):
    """results.md of a 'make bench-pgtable' run, from d/bench.tsv (fmt path
    op size pages median_ns min_ns max_ns, and since the driver shapes adds
    walks syncs: pgreport_drivers) and d/env.txt"""
    d = Path(d)
    tsv = d / "bench.tsv"
    if not tsv.is_file() or tsv.stat().st_size == 0:
        raise ResultsError(f"{tsv} is missing or empty.")
    lines = tsv.read_text().splitlines()
    if len(lines[0].split("\t")) == 11:
        return pgreport_drivers(d, lines)
    order, med, cell, _ = pg_rows(tsv, lines, 8)
    out = ["# io-pgtable map/unmap of runs: one page per walk (old) and a run per walk (new)", ""]
    out += ["    " + l for l in (d / "env.txt").read_text().splitlines()]
    out += ["",
            "Time of one map_pages()/unmap_pages() of the whole run, in ns: median [min-max] over",
            "15 interleaved rounds (old, new, new, old, ...), each the mean over 256 pages' worth of",
            "repetitions. LPAE's old path is one call per page, as the IOMMU core did before unmap_pages().",
            "",
            "| format | run | map old | map new | map old/new | unmap old | unmap new | unmap old/new | unmap new per page |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key in order:
        out.append("| %s | %d x %s | %s | %s | %.2fx | %s | %s | %.2fx | %.1f |" % (
            key[0], float(key[2]), pg_size(key[1]),
            cell[key, "old", "map"], cell[key, "new", "map"], med[key, "old", "map"] / med[key, "new", "map"],
            cell[key, "old", "unmap"], cell[key, "new", "unmap"],
            med[key, "old", "unmap"] / med[key, "new", "unmap"], med[key, "new", "unmap"] / float(key[2])))
    out += ["", "Targets (issue: v7s unmap of 256 x 4K at least 5x faster than the per-page loop, "
            "and within 1.5x of LPAE):", ""]
    for sfx in ("", "-nc"):
        v, l = ("v7s" + sfx, "4096", "256"), ("lpae" + sfx, "4096", "256")
        if (v, "new", "unmap") not in med or (l, "new", "unmap") not in med:
            continue
        sp = med[v, "old", "unmap"] / med[v, "new", "unmap"]
        r = med[v, "new", "unmap"] / med[l, "new", "unmap"]
        out.append("- v7s%s unmap of 256 x 4K, old/new: %.2fx (%s)" % (sfx, sp, "met" if sp >= 5 else "NOT met"))
        out.append("- v7s%s/lpae%s unmap of 256 x 4K, both new: %.2fx (%s)" % (
            sfx, sfx, r, "met" if r <= 1.5 else "NOT met"))
    out += ["", "Target (issue: a 64K run unmaps per page within 1.5x of a 4K run's per page, both new):", ""]
    for sfx in ("", "-nc"):
        b, s4 = ("v7s" + sfx, "65536", "16"), ("v7s" + sfx, "4096", "256")
        if (b, "new", "unmap") not in med or (s4, "new", "unmap") not in med:
            continue
        pb, p4 = med[b, "new", "unmap"] / 16, med[s4, "new", "unmap"] / 256
        out.append("- v7s%s unmap per page, 16 x 64K against 256 x 4K: %.1f ns against %.1f ns, %.2fx (%s)" % (
            sfx, pb, p4, pb / p4, "met" if pb / p4 <= 1.5 else "NOT met"))
    md = "\n".join(out) + "\n"
    (d / "results.md").write_text(md)
    return md


PG_DRIVERS = {
    "arm-smmu": "flush ops (a TLBIVAL per add), coherent walker",
    "msm": "flush ops (a TLBIVA per add and context), non-coherent walker",
    "mtk": "no flush ops (one range invalidation per unmap, in iotlb_sync), non-coherent walker",
    "lpae": "LPAE stage 1, coherent walker: the reference",
}


def pgreport_drivers(d, lines):
    """results.md of a bench-pgtable run whose lines carry counts (fmt path
    op size pages median_ns min_ns max_ns adds walks syncs), by driver shape"""
    order, med, cell, cnt = pg_rows(d / "bench.tsv", lines, 11)
    for key in order:
        for path in ("old", "new"):
            for op in ("map", "unmap"):
                if (key, path, op) not in med:
                    raise ResultsError(f"{d}/bench.tsv: no {path} {op} line for {key[0]} {key[2]} x {key[1]}")

    def moved(key, op, what):
        o, n = cnt[key, "old", op][what], cnt[key, "new", op][what]
        return "%d" % o if o == n else "%d -> %d" % (o, n)
    out = ["# io-pgtable map/unmap of runs by driver shape: one page per walk (old), a run per walk (new)", ""]
    out += ["    " + l for l in (d / "env.txt").read_text().splitlines()]
    out += ["", "Driver shapes (ARMv7s io_pgtable_cfg as each driver sets it up):", ""]
    out += ["- %s: %s" % (k, v) for k, v in PG_DRIVERS.items() if any(o[0] == k for o in order)]
    out += ["",
            "Time (UML) of one map_pages()/unmap_pages() of the whole run, in ns: median [min-max] over",
            "15 interleaved rounds (old, new, new, old, ...), each the mean over 4096 pages' worth of",
            "repetitions (at least 8). LPAE's old path is one call per page, as the IOMMU core did before",
            "unmap_pages(). Counts, for one map or unmap of the run, old -> new where they differ: TLB",
            "adds (tlb_add_page()), walk and full flushes, PTE syncs (dma_sync_single_for_device(); counted",
            "for ARMv7s only). The counts are exact; what a TLBIVA or a sync costs on each IOMMU is not known",
            "here, so no time on hardware is derived from them.",
            "",
            "| driver | run | map old | map new | map old/new | unmap old | unmap new | unmap old/new "
            "| map syncs | unmap syncs | unmap TLB adds | unmap walk flushes |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for key in order:
        out.append("| %s | %d x %s | %s | %s | %.2fx | %s | %s | %.2fx | %s | %s | %s | %s |" % (
            key[0], float(key[2]), pg_size(key[1]),
            cell[key, "old", "map"], cell[key, "new", "map"], med[key, "old", "map"] / med[key, "new", "map"],
            cell[key, "old", "unmap"], cell[key, "new", "unmap"],
            med[key, "old", "unmap"] / med[key, "new", "unmap"],
            moved(key, "map", "syncs"), moved(key, "unmap", "syncs"),
            moved(key, "unmap", "adds"), moved(key, "unmap", "walks")))
    out += ["", "Goal (S2 for ARMv7s: map and unmap of 256 x 4K at least 5x faster than one page per walk, "
            "for the driver shape with no flush ops):", ""]
    k = ("mtk", "4096", "256")
    if (k, "new", "unmap") in med:
        for op in ("map", "unmap"):
            r = med[k, "old", op] / med[k, "new", op]
            out.append("- mtk %s of 256 x 4K, old/new: %.2fx (%s)" % (op, r, "met" if r >= 5 else "NOT met"))
    out += ["", "arm-smmu and msm (no goal: their per-add TLB invalidations bound the gain):", ""]
    for drv in ("arm-smmu", "msm"):
        k = (drv, "4096", "256")
        if (k, "new", "unmap") not in med:
            continue
        out.append("- %s 256 x 4K, old/new: map %.2fx, unmap %.2fx in UML; the unmap still issues %s TLB "
                   "adds, a TLBIVA register write each on hardware, which a run per walk does not remove" % (
                       drv, med[k, "old", "map"] / med[k, "new", "map"],
                       med[k, "old", "unmap"] / med[k, "new", "unmap"], moved(k, "unmap", "adds")))
    md = "\n".join(out) + "\n"
    (d / "results.md").write_text(md)
    return md


def smoke_check(d):
    """(lines, sane) of a 'make bench-smoke' run (bare, base, series at one
    thread, strict): checks that hold whatever the timing (tools/bench/smoke-check
    says which and why)"""
    d = Path(d)
    variants = read_env(d / "env.txt").get("variants", "").split()
    if not variants:
        raise ResultsError(f"{d}/env.txt names no variants.")
    np_, pts = {}, {}
    for line in (d / "points.tsv").read_text().splitlines()[1:]:
        f = line.split("\t")
        if len(f) >= 12 and f[2] == "strict" and f[3] == "1":
            np_[f[0]] = np_.get(f[0], 0) + 1
            pts[f[0]] = f
    ns, summ = {}, {}
    for line in (d / "summary.tsv").read_text().splitlines():
        f = line.split("\t")
        if len(f) >= 15 and f[0] == "strict" and f[2] == "1":
            ns[f[3]] = ns.get(f[3], 0) + 1
            summ[f[3]] = f
    out, sane = [], True

    def check(ok, what):
        nonlocal sane
        out.append(("ok    " if ok else "FAIL  ") + what)
        sane = sane and ok
    for v in variants:
        n_p, n_s = np_.get(v, 0), ns.get(v, 0)
        check(n_p == 1 and n_s == 1, f"{v}: one strict 1-thread point, read by the parser "
              f"({n_p} in points.tsv, {n_s} in summary.tsv)")
        if n_p != 1 or n_s != 1:
            continue
        p, sm = pts[v], summ[v]
        ops, el, kind = p[10], p[11], sm[14]
        if v == "bare":
            check(ops == "0" and el == "0",
                  f"bare: mainline map_benchmark reports no operation count (ops={ops} elapsed_ns={el})")
            check(kind == "derived", f"bare: its throughput is labelled derived ({kind})")
            continue
        check(ops.isdigit() and int(ops) > 0 and el.isdigit() and int(el) > 0,
              f"{v}: the kernel counted operations (ops={ops} elapsed_ns={el})")
        check(kind == "counted", f"{v}: its throughput is labelled counted ({kind})")
        if kind != "counted":
            continue
        m, u = int(p[6]), int(p[8])
        if m + u == 0:
            check(False, f"{v}: map + unmap latency is zero")
            continue
        bound = 1e7 / (m + u)
        tput = float(sm[11])
        check(tput <= bound, "%s: counted %.0f/s is under the latency bound 1 / (%.1f + %.1f us) = %.0f/s "
              "(%.2f of it)" % (v, tput, m / 10, u / 10, bound, tput / bound))
    return out, sane


LAVA_POINT_KEYS = ("threads", "granule", "seconds", "map_100ns", "map_sd", "unmap_100ns", "unmap_sd")


def lava_records(text, where):
    """the records of a LAVA job log: lava-run's standard output, or a
    lava-server's raw log (the same lines, each as a YAML list item). Each
    line is one YAML flow mapping {dt, lvl, msg}; LAVA writes its floats as
    tagged strings (! "30.0"), so it is read with YAML, not JSON. Needs
    python3-yaml (Debian's, which LAVA's own code uses)."""
    import yaml
    recs, other = [], []
    for nr, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if line.startswith("- "):
            line = line[2:]
        if not line.startswith("{"):
            other.append(line)  # lava-run's own messages outside the log
            continue
        try:
            rec = yaml.safe_load(line)
        except yaml.YAMLError as e:
            raise ResultsError(f"{where} line {nr}: not a LAVA log record ({str(e).splitlines()[0]})")
        if not isinstance(rec, dict) or "lvl" not in rec:
            raise ResultsError(f"{where} line {nr}: not a LAVA log record (no lvl)")
        recs.append(rec)
    if not recs:
        last = " / ".join(x for x in other[-3:] if x) or "nothing"
        raise ResultsError(f"{where}: no LAVA log record at all; the log ends: {last}")
    return recs


def lava_point(text, where):
    """a BENCH-POINT case's verbatim line (its extra test_case_id) as the
    fields of points.tsv after variant, round and mode"""
    f = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep or not re.fullmatch("[0-9]+", value):
            raise ResultsError(f"{where}: a BENCH-POINT case the parser cannot read: '{text}'")
        f[key] = value
    missing = [k_ for k_ in LAVA_POINT_KEYS if k_ not in f]
    if missing:
        raise ResultsError(f"{where}: a BENCH-POINT case without {', '.join(missing)}: '{text}'")
    return [f[k_] for k_ in LAVA_POINT_KEYS] + [f.get("ops", "-"), f.get("elapsed_ns", "-")]


def lava_monitor_name(variant):
    """the name of a boot's monitor (tools/lava/jobs), as LAVA writes it as
    the definition of that boot's cases"""
    return f"iommu-scale-bench-{variant}".replace(" ", "-").lower()


def lava_job(text, job, boots):
    """the points of each boot of one job, {variant: points}, or
    ResultsError naming the job and the boot. boots: [(variant, points
    asked for, console file or None)], in the job's order: a job of
    tools/lava/jobs boots each variant in turn with three actions
    (deploy, boot, test), so boot k's actions are 3k+1..3k+3, and its test
    action's cases carry level 3k+3.N and its monitor's name. Checked:
    LAVA's verdict, each boot's monitor, a BENCH-ERROR case, a missing
    BENCH-DONE, a count that differs from the guest's and from the job's.
    Each boot's console (LAVA's target lines while its actions ran: without
    carriage returns, escape sequences and blank lines, and with " escaped
    as \\") goes to its console file first, failed job or not."""
    nb = len(boots)
    byname = {lava_monitor_name(v): i for i, (v, _, _) in enumerate(boots)}
    points, console = [[] for _ in boots], [[] for _ in boots]
    done, monitor = [None] * nb, [None] * nb
    verdict, errors, action = None, [], 0

    def boot_of_level(level):
        top = str(level).split(".")[0]
        return int(top) // 3 - 1 if top.isdigit() and int(top) % 3 == 0 else None

    for rec in lava_records(text, f"job {job}"):
        msg, lvl = rec.get("msg"), rec["lvl"]
        if lvl in ("info", "debug") and isinstance(msg, str) and msg.startswith("start: "):
            level = msg.split()[1] if len(msg.split()) > 1 else ""
            top = level.split(".")[0]
            if top.isdigit():
                action = int(top)
                # a boot that LAVA retries starts its sub-actions again: the
                # console kept is the last attempt's
                if action % 3 == 2 and level == f"{action}.1" and 0 <= (action - 1) // 3 < nb:
                    console[(action - 1) // 3] = []
        if lvl == "target" and isinstance(msg, str) and 0 <= (action - 1) // 3 < nb:
            console[(action - 1) // 3].append(msg.rstrip("\r"))
        if lvl != "results" or not isinstance(msg, dict):
            continue
        extra = msg.get("extra")
        if not isinstance(extra, dict):
            extra = {}
        if msg.get("definition") == "lava" and msg.get("case") == "lava-test-monitor":
            i = boot_of_level(msg.get("level", ""))
            if i is not None and 0 <= i < nb:
                monitor[i] = extra.get("status")
        if msg.get("definition") == "lava" and msg.get("case") == "job":
            verdict = (msg.get("result"), msg.get("error_type", extra.get("error_type")),
                       str(msg.get("error_msg", extra.get("error_msg", ""))).strip())
        definition = msg.get("definition")
        i = byname.get(definition) if isinstance(definition, str) else None
        if i is None:
            continue
        if boot_of_level(msg.get("level", "")) != i:
            raise ResultsError(f"job {job}: a case of {boots[i][0]}'s monitor at level {msg.get('level')}, "
                               f"not in its test action ({3 * i + 3}): this log is not of a job that "
                               "tools/lava/jobs wrote")
        line = str(extra.get("test_case_id", ""))
        if msg.get("result") != "pass":
            errors.append((i, line))
        elif line.startswith("points="):
            done[i] = line
        else:
            points[i].append(lava_point(line, f"job {job}, boot of {boots[i][0]}"))
    for i, (_, _, cf) in enumerate(boots):
        if cf is not None:
            cf.write_text("\n".join(console[i]) + "\n")
    if errors:
        i, line = errors[0]
        raise ResultsError(f"job {job}, boot of {boots[i][0]}: the guest failed: BENCH-ERROR {line}")
    if verdict is None:
        raise ResultsError(f"job {job}: the log holds no verdict of LAVA's (no lava/job result): "
                           "the job did not end, or this is not its whole log")
    if verdict[0] != "pass":
        raise ResultsError(f"job {job}: LAVA's verdict is {verdict[0]}"
                           + (f" ({verdict[1]}: {verdict[2]})" if verdict[1] else ""))
    out = {}
    for i, (v, want, _) in enumerate(boots):
        where = f"job {job}, boot of {v}"
        if monitor[i] != "passed":
            raise ResultsError(f"{where}: LAVA's monitor of the guest did not pass (status {monitor[i]}): "
                               "it timed out (the guest was silent for longer than the boot action's "
                               "timeout) or the console closed before 'reboot: Power down'")
        if done[i] is None:
            raise ResultsError(f"{where}: the guest did not finish its sweep (no BENCH-DONE case)")
        n = done[i].split()[0].partition("=")[2]
        if not n.isdigit() or int(n) != len(points[i]) or len(points[i]) != want:
            raise ResultsError(f"{where}: {len(points[i])} BENCH-POINT cases, the guest's BENCH-DONE says "
                               f"'{done[i]}', the job asked for {want}")
        out[v] = points[i]
    return out


def lava(d):
    """DIR/points.tsv and DIR/logs/rR-MODE-VARIANT.log from the jobs of
    DIR/jobs/index.tsv (a line a boot; a job's boots on consecutive lines,
    in its order) and their logs in DIR/lava/; every job must have passed,
    with all its points"""
    d = Path(d)
    index = d / "jobs" / "index.tsv"
    if not index.is_file():
        raise ResultsError(f"{index} does not exist: it is written by make lava-jobs (tools/lava/jobs).")
    (d / "logs").mkdir(exist_ok=True)
    jobs = []   # [(job, round, mode, [(variant, points)])]
    for nr, line in enumerate(index.read_text().splitlines()[1:], start=2):
        f = line.split("\t")
        if len(f) != 5 or not f[1].isdigit() or not f[4].isdigit():
            raise ResultsError(f"{index} line {nr}: expected job, round, mode, variant, points")
        job, rnd, mode, variant, want = f
        if jobs and jobs[-1][0] == job:
            if (rnd, mode) != jobs[-1][1:3] or variant in [b[0] for b in jobs[-1][3]]:
                raise ResultsError(f"{index} line {nr}: job {job} again, with another round or mode, "
                                   "or a variant it already boots")
            jobs[-1][3].append((variant, int(want)))
        elif job in [j[0] for j in jobs]:
            raise ResultsError(f"{index} line {nr}: job {job}'s boots are not on consecutive lines")
        else:
            jobs.append((job, rnd, mode, [(variant, int(want))]))
    if not jobs:
        raise ResultsError(f"{index} names no job.")
    rows = []
    for job, rnd, mode, boots in jobs:
        log = d / "lava" / (Path(job).stem + ".log")
        if not log.is_file():
            raise ResultsError(f"job {job}: no log ({log}): it was not run, or not collected")
        got = lava_job(log.read_text(errors="replace"), job, [(v, want, d / "logs" / f"r{rnd}-{mode}-{v}.log")
                                              for v, want in boots])
        rows += [[v, rnd, mode] + p for v, _ in boots for p in got[v]]
    (d / "points.tsv").write_text("\t".join(POINT_FIELDS) + "\n" + "".join("\t".join(r) + "\n" for r in rows))


def compare(a, b, aa):
    """(markdown, agree) for two runs of the same parameters (a: make
    bench, b: make lava-run, say), from their results.json. For each mode,
    granule, thread count and variant after the first: the median ratio to
    the first variant in each run, their difference, and the A/A spread,
    the largest distance from 1 of variant aa's ratio (min or max) in
    either run at that point. The two agree where the difference is at
    most the spread."""
    runs = []
    for d in (a, b):
        f = Path(d) / "results.json"
        if not f.is_file():
            raise ResultsError(f"{f} does not exist: report the run first (make bench-report RESULTS={d}).")
        runs.append(json.loads(f.read_text()))
    va, vb = (r["env"].get("variants", "").split() for r in runs)
    if va != vb:
        raise ResultsError(f"the runs have different variants ({' '.join(va)} / {' '.join(vb)})")
    if aa not in va[1:]:
        raise ResultsError(f"the A/A variant {aa} is not one of the compared variants {' '.join(va[1:])}")
    for k_ in ("threads", "granules", "modes", "seconds", "rounds", "smp", "dma_bits", "dir"):
        if runs[0]["env"].get(k_) != runs[1]["env"].get(k_):
            raise ResultsError(f"the runs differ in {k_} ({runs[0]['env'].get(k_)} / {runs[1]['env'].get(k_)})")
    cells = [{(r["mode"], r["granule"], r["threads"], r["variant"]): r for r in run["summary"]} for run in runs]
    out = ["| mode | granule | threads | variant | ratio, A | ratio, B | difference | A/A spread | agree |",
           "|---|---:|---:|---|---:|---:|---:|---:|---|"]
    agree = True
    for key in sorted(cells[0], key=lambda k_: (k_[0], k_[1], k_[2], va.index(k_[3]))):
        if key[3] == va[0]:
            continue
        if key not in cells[1]:
            raise ResultsError(f"run B has no point at {key}")
        ra, rb = cells[0][key]["ratio_to_first"], cells[1][key]["ratio_to_first"]
        spread = max(abs(x - 1) for run in cells for x in run[key[:3] + (aa,)]["ratio_to_first"][1:])
        diff = abs(rb[0] - ra[0])
        ok = diff <= spread
        agree &= ok
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {ra[0]:.2f} | {rb[0]:.2f} | {diff:.2f} "
                   f"| {spread:.2f} | {'yes' if ok else 'NO'} |")
    return "\n".join(out) + "\n", agree


def render_notes(notes):
    """MAINTAINERS-notes.md with every include block made again from the
    results file it names: that file without its '# ' title, its '## '
    headings one level down"""
    notes = Path(notes)
    out, skip = [], False
    for line in notes.read_text().splitlines():
        if line.startswith("<!-- include: ") and line.endswith(" -->"):
            out.append(line)
            name = line[len("<!-- include: "):-len(" -->")]
            path = notes.parent / name
            if not path.is_file():
                raise ResultsError(f"{notes} names {name}, which does not exist")
            for l in path.read_text().splitlines():
                if l.startswith("# "):
                    continue
                out.append("#" + l if l.startswith("## ") else l)
            skip = True
            continue
        if line == "<!-- end include -->":
            skip = False
        if not skip:
            out.append(line)
    if skip:
        raise ResultsError("an include block is not closed")
    return "\n".join(out) + "\n"


# "model": a verdict of herd7 or spin, for an ordering or protocol claim that
# no run on this host can reach (a load-load reordering on an x86 host)
FRONT_KINDS = ("hardware", "simulated", "QEMU TCG", "native harness", "UML", "model")


def front_page_problems(notes, top):
    """What is wrong with the front page of MAINTAINERS-notes.md: its
    length, and its table of patches against patches/series, the patches
    and the results directories its rows cite. An empty list: nothing."""
    notes, top = Path(notes), Path(top)
    lines = notes.read_text().splitlines()
    probs = []
    if "<!-- end front page -->" not in lines:
        return ["no '<!-- end front page -->' line"]
    end = lines.index("<!-- end front page -->") + 1
    if end > 150:
        probs.append(f"the front page is {end} lines, more than 150")
    if len(lines) > 1500:
        probs.append(f"the notes are {len(lines)} lines, more than 1500: move what backs no series today to results/notes-history/")
    try:
        a = lines.index("<!-- front page table -->", 0, end)
        b = lines.index("<!-- end front page table -->", a, end)
    except ValueError:
        return probs + ["no '<!-- front page table -->' ... '<!-- end front page table -->' block"]
    # the series of each patch, from patches/series
    want, name = {}, None
    for l in (top / "patches" / "series").read_text().splitlines():
        m = re.match(r"#\s*mail:\s*(\S+)", l)
        if m:
            name = m.group(1)
        elif l.strip() and not l.startswith("#"):
            want[l.strip()[:4]] = (name, l.strip())
    seen = set()
    for l in lines[a + 3:b]:
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(cells) != 8:
            probs.append(f"a row has {len(cells)} cells, not 8: {l[:60]}")
            continue
        num, _, series, stable, _, figure, evidence, _ = cells
        if num not in want:
            probs.append(f"{num}: not a patch of patches/series")
            continue
        seen.add(num)
        if series != want[num][0]:
            probs.append(f"{num}: series '{series}', patches/series says '{want[num][0]}'")
        patch = (top / "patches" / want[num][1]).read_text()
        msg = patch.split("\n---\n", 1)[0]
        has = re.search(r"^Cc: stable@vger\.kernel\.org", msg, re.M) is not None
        if stable not in ("yes", "no") or (stable == "yes") != has:
            probs.append(f"{num}: stable '{stable}', but the patch {'has' if has else 'has no'} Cc: stable")
        if evidence == "none":
            if not figure.startswith("no figure"):
                probs.append(f"{num}: a figure with no evidence")
            continue
        m = re.fullmatch(r"(.+); (results/[\w./-]+)", evidence)
        if not m:
            probs.append(f"{num}: evidence '{evidence}' is not 'KIND; results/DIR'")
            continue
        kind, rdir = m.groups()
        if not kind.startswith(FRONT_KINDS):
            probs.append(f"{num}: kind '{kind}' is none of {', '.join(FRONT_KINDS)}")
        if kind.startswith("simulated"):
            pm = re.fullmatch(r"simulated \(([\w.-]+)\)", kind)
            if not pm or not (top / "tools/native/sim/profiles" / (pm.group(1) + ".profile")).is_file():
                probs.append(f"{num}: a simulated figure names no machine profile of tools/native/sim/profiles")
        d = top / rdir
        if not d.is_dir():
            probs.append(f"{num}: {rdir} does not exist")
            continue
        text = ""
        for f in sorted(d.rglob("*")):
            if f.is_file() and f.suffix in (".md", ".tsv", ".txt", ".dat", ".json"):
                text += f.read_text(errors="replace")
        for tok in re.findall(r"(?<![\w.])\d+\.\d+(?![\d.])", figure):
            if tok not in text:
                probs.append(f"{num}: the figure {tok} is not in {rdir}")
    for num in sorted(set(want) - seen):
        probs.append(f"{num}: no row on the front page")
    return probs


def results_index(notes, top):
    """results/README.md: which committed run backs which row of the front
    page of MAINTAINERS-notes.md, and which runs back none of them (the
    record's history). Generated; make notes writes it and notes-check
    fails when it differs."""
    notes, top = Path(notes), Path(top)
    lines = notes.read_text().splitlines()
    a = lines.index("<!-- front page table -->")
    b = lines.index("<!-- end front page table -->", a)
    backs = {}
    for l in lines[a + 3:b]:
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(cells) != 8:
            continue
        num, what, series, _, state, figure, evidence, _ = cells
        m = re.fullmatch(r"(.+); (results/[\w./-]+)", evidence)
        if m:
            backs.setdefault(m.group(2).rstrip("/"), []).append((num, series, state, m.group(1), figure))
    out = ["# results/", "",
           "Committed runs, one directory each, named by date and what ran; each",
           "holds its results.md (or the files it names) and the command that made it.",
           "This page is generated by `make notes` from the front page of",
           "MAINTAINERS-notes.md, and `make notes-check` fails when it differs.", "",
           "## The runs that back the front page", "",
           "| run | patch | series | state | kind | figure |", "|---|---|---|---|---|---|"]
    for d in sorted(backs):
        for num, series, state, kind, figure in backs[d]:
            out.append(f"| {d[len('results/'):]} | {num} | {series} | {state} | {kind} | {figure} |")
    rest = sorted(p.name for p in (top / "results").iterdir()
                  if p.is_dir() and f"results/{p.name}" not in backs)
    out += ["", "## The record's history", "",
            f"{len(rest)} runs back no row of the front page today: earlier versions,",
            "alternatives measured and dropped, calibrations. MAINTAINERS-notes.md",
            "below its front page says what each showed.", ""]
    out += [f"- {n}" for n in rest]
    return "\n".join(out) + "\n"


def main(argv):
    cmds = {"report": report, "pgreport": pgreport, "lava": lava, "guest": guest}
    try:
        if len(argv) == 2 and argv[0] in cmds:
            cmds[argv[0]](argv[1])
            return 0
        if len(argv) == 4 and argv[0] == "compare":
            md, agree = compare(argv[1], argv[2], argv[3])
            sys.stdout.write(md)
            return 0 if agree else 1
        if len(argv) == 2 and argv[0] == "smoke-check":
            lines, sane = smoke_check(argv[1])
            print("\n".join(lines))
            return 0 if sane else 1
        if len(argv) == 3 and argv[0] == "index" and argv[2] in ("render", "check"):
            notes = Path(argv[1])
            text = results_index(notes, notes.resolve().parent)
            if argv[2] == "render":
                sys.stdout.write(text)
                return 0
            have = (notes.resolve().parent / "results" / "README.md")
            if not have.is_file() or have.read_text() != text:
                print("results/README.md differs from what the front page says (run make notes)")
                return 1
            return 0
        if len(argv) == 2 and argv[0] == "front-page-check":
            probs = front_page_problems(argv[1], Path(argv[1]).resolve().parent)
            for p in probs:
                print(f"results.py: front page: {p}", file=sys.stderr)
            return 1 if probs else 0
        if len(argv) == 3 and argv[0] == "notes" and argv[2] in ("update", "check", "render"):
            notes = Path(argv[1])
            text = render_notes(notes)
            if argv[2] == "render":
                sys.stdout.write(text)
                return 0
            if argv[-1] == "check":
                if text != notes.read_text():
                    print(f"results.py: {notes} does not match the results files it includes", file=sys.stderr)
                    return 1
                return 0
            if text != notes.read_text():
                notes.write_text(text)
                print("changed")
            return 0
    except ResultsError as e:
        print(f"results.py: error: {e}", file=sys.stderr)
        return 1
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
