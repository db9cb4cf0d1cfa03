#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tools/results/results.py: figures worked out by hand on small runs,
broken input, and every committed results/*/results.md of a benchmark or
native run recomputed from its points.tsv and env.txt, to the byte.

    python3 tools/results/results_test.py
"""
import json
import shutil
import tempfile
import unittest
from pathlib import Path

import results

TOP = Path(__file__).resolve().parent.parent.parent
HEADER = "\t".join(results.POINT_FIELDS) + "\n"


def point(variant, rnd, threads, map_100ns, unmap_100ns, ops="-", elapsed="-", mode="strict", granule=1):
    return "\t".join(str(x) for x in (variant, rnd, mode, threads, granule, 2, map_100ns, 0,
                                      unmap_100ns, 0, ops, elapsed)) + "\n"


class Run(unittest.TestCase):
    """a run directory in a temporary directory"""

    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, points, variants="base series", kind=None):
        (self.dir / "points.tsv").write_text(HEADER + "".join(points))
        env = f"command=make bench VARIANTS=\"{variants}\"\nvariants={variants}\n"
        if kind:
            env += f"kind={kind}\n"
        (self.dir / "env.txt").write_text(env)

    def rows(self):
        results.report(self.dir)
        return {(r["mode"], r["threads"], r["variant"]): r for r in
                [dict(zip(["mode", "granule", "threads", "variant"], l.split("\t")[:4]),
                      line=l.split("\t")) for l in (self.dir / "summary.tsv").read_text().splitlines()]}


class Figures(Run):
    def test_counted_median_min_max_and_ratio(self):
        # base: 1000, 2000, 4000 ops/s; series: 2000, 3000, 8000: ratios by
        # round 2, 1.5, 2 -> median 2, min 1.5, max 2
        self.write([point("base", 1, 1, 20, 60, 1000, 10**9), point("series", 1, 1, 10, 50, 2000, 10**9),
                    point("base", 2, 1, 30, 70, 2000, 10**9), point("series", 2, 1, 10, 50, 3000, 10**9),
                    point("base", 3, 1, 40, 80, 4000, 10**9), point("series", 3, 1, 10, 50, 8000, 10**9)])
        r = self.rows()
        base = r["strict", "1", "base"]["line"]
        series = r["strict", "1", "series"]["line"]
        self.assertEqual(base[4], "3")                          # rounds
        self.assertEqual(base[5:8], ["3", "2", "4"])            # map us: median, min, max
        self.assertEqual(base[8:11], ["7", "6", "8"])           # unmap us
        self.assertEqual(base[11:15], ["2000", "1000", "4000", "counted"])
        self.assertEqual(base[15:], ["-", "-", "-", "-"])       # no ratio for the first variant
        self.assertEqual(series[15:], ["2", "1.5", "2", "counted"])
        md = (self.dir / "results.md").read_text()
        self.assertIn("| 1 | 3.0 / 7.0 us; 2.0K (1.0K-4.0K) | 1.0 / 5.0 us; 3.0K (2.0K-8.0K) | 2.00x (1.50-2.00) |", md)

    def test_even_count_median_is_the_mean_of_the_middle_two(self):
        self.write([point("base", 1, 2, 10, 40, 100, 10**9), point("series", 1, 2, 10, 40, 300, 10**9),
                    point("base", 2, 2, 20, 50, 200, 10**9), point("series", 2, 2, 10, 40, 300, 10**9)])
        base = self.rows()["strict", "2", "base"]["line"]
        series = self.rows()["strict", "2", "series"]["line"]
        self.assertEqual(base[5:8], ["1.5", "1", "2"])
        # per CPU: ops / s / threads = 50 and 100 -> 75
        self.assertEqual(base[11:14], ["75", "50", "100"])
        # ratios 3 and 1.5 -> 2.25
        self.assertEqual(series[15:18], ["2.25", "1.5", "3"])

    def test_derived_throughput_and_derived_ratio(self):
        # no operation count: 1e7 / (map + unmap in 100 ns) per thread;
        # base 1e7/100 = 100000, series 1e7/50 = 200000 -> 2x, marked *
        self.write([point("base", 1, 1, 50, 50), point("series", 1, 1, 25, 25, 999, 10**9)])
        r = self.rows()
        self.assertEqual(r["strict", "1", "base"]["line"][11:15], ["100000", "100000", "100000", "derived"])
        # series has a count, base does not: like is compared with like
        self.assertEqual(r["strict", "1", "series"]["line"][15:], ["2", "2", "2", "derived"])
        md = (self.dir / "results.md").read_text()
        self.assertIn("\\* derived from latency", md)
        self.assertIn("2.00x* (2.00-2.00)", md)

    def test_rounding_as_awk_wrote_numbers(self):
        self.assertEqual(results.awk_num(3.0), "3")
        self.assertEqual(results.awk_num(2147483647.0), "2147483647")
        self.assertEqual(results.awk_num(2147483648.0), "2.14748e+09")
        self.assertEqual(results.awk_num(1 / 3), "0.333333")
        self.assertEqual(results.awk_num(6536271.5), "6.53627e+06")
        self.assertEqual(results.stats(["10", "9", "100"]), ("10", "9", "100"))  # numeric order


class Guest(Run):
    """the machine table, from the guests' BENCH-INFO lines"""

    def log(self, name, *lines):
        (self.dir / "logs").mkdir(exist_ok=True)
        (self.dir / "logs" / name).write_text("".join(l + "\n" for l in lines))

    def test_each_variant_its_machine_several_values_kept(self):
        self.write([point("base", 1, 1, 20, 60, 1000, 10**9), point("series", 1, 1, 10, 50, 2000, 10**9)])
        self.log("r1-strict-base.log", "[    0.1] booting", "BENCH-INFO kernel=\"7.3.4 #1 SMP\"",
                 "BENCH-INFO cpus_online=2", "BENCH-INFO firmware=acpi iort=yes",
                 "BENCH-INFO smmu=arm-smmu-v3.0.auto cmdq=256 evtq=128 priq=0",
                 "BENCH-INFO smmu=arm-smmu-v3.1.auto cmdq=65536 evtq=128 priq=0",
                 "BENCH-INFO iommu_default=Translated iommu_policy=strict")
        # LAVA's console escapes the quote; the lazy boot logs the other policy
        self.log("r1-lazy-base.log", "BENCH-INFO kernel=\\\"7.3.4 #1 SMP\\\"",
                 "BENCH-INFO iommu_default=Translated iommu_policy=lazy\r")
        self.log("r1-strict-series.log", "BENCH-INFO cpus_online=2")
        self.log("r1-strict-other.log", "BENCH-INFO cpus_online=99")   # not a variant of the run
        self.log("r1-t1-base.log", "BENCH-INFO cpus_online=98")        # not a boot's console
        results.guest(self.dir)
        info = results.read_guest(self.dir / "guest.tsv")
        self.assertEqual(info["base"]["kernel"], ["7.3.4 #1 SMP"])
        self.assertEqual(info["base"]["iommu_policy"], ["lazy", "strict"])
        # each SMMU keeps its own queues
        self.assertEqual(info["base"]["smmu"], ["arm-smmu-v3.0.auto cmdq=256 evtq=128 priq=0",
                                                "arm-smmu-v3.1.auto cmdq=65536 evtq=128 priq=0"])
        self.assertNotIn("cmdq", info["base"])
        self.assertEqual(info["series"], {"cpus_online": ["2"]})
        results.report(self.dir)
        md = (self.dir / "results.md").read_text()
        self.assertIn("## The machine, as each guest reported it", md)
        self.assertIn("| smmu | arm-smmu-v3.0.auto cmdq=256 evtq=128 priq=0 / arm-smmu-v3.1.auto cmdq=65536 "
                      "evtq=128 priq=0 | - |", md)
        self.assertIn("| cpus_online | 2 | 2 |", md)
        self.assertIn("| iommu_policy | lazy / strict | - |", md)
        self.assertEqual(json.loads((self.dir / "results.json").read_text())["guest"]["base"]["firmware"],
                         ["acpi"])

    def test_no_guest_lines_no_table(self):
        self.write([point("base", 1, 1, 20, 60, 1000, 10**9), point("series", 1, 1, 10, 50, 2000, 10**9)])
        self.log("r1-strict-base.log", "no info here")
        (self.dir / "guest.tsv").write_text("variant\tkey\tvalue\nbase\tcpus_online\t7\n")  # stale
        results.guest(self.dir)
        self.assertFalse((self.dir / "guest.tsv").exists())
        results.report(self.dir)
        self.assertNotIn("The machine", (self.dir / "results.md").read_text())


class Broken(Run):
    def test_missing_variant(self):
        self.write([point("base", 1, 1, 20, 60)])
        with self.assertRaisesRegex(results.ResultsError, "no points for variant series"):
            results.report(self.dir)

    def test_bad_field_and_no_table_left_behind(self):
        (self.dir / "results.md").write_text("an old table\n")
        self.write([point("base", 1, 1, 20, 60), "base\t2\tstrict\t1\t1\t2\tx\t0\t1\t0\t-\t-\n"])
        with self.assertRaisesRegex(results.ResultsError, "field 7 is not a number: x"):
            results.report(self.dir)
        self.assertFalse((self.dir / "results.md").exists())

    def test_short_line(self):
        self.write([point("base", 1, 1, 20, 60), "base\t2\tstrict\n"])
        with self.assertRaisesRegex(results.ResultsError, "expected 12 fields, got 3"):
            results.report(self.dir)

    def test_zero_latency(self):
        self.write([point("base", 1, 1, 0, 0)], variants="base")
        with self.assertRaisesRegex(results.ResultsError, "zero latency"):
            results.report(self.dir)

    def test_no_variants(self):
        (self.dir / "points.tsv").write_text(HEADER)
        (self.dir / "env.txt").write_text("command=x\n")
        with self.assertRaisesRegex(results.ResultsError, "names no variants"):
            results.report(self.dir)


class PgReport(Run):
    def test_ratios_and_verdicts(self):
        # fmt path op size pages median min max; v7s old/new 5000/1000 = 5x (met),
        # v7s/lpae new 1000/500 = 2x (NOT met); 64K: 160/16 = 10 ns a page
        # against 1000/256 = 3.9 ns: 2.56x (NOT met)
        rows = [("v7s", "old", "map", 4096, 256, 6000, 5900, 6100), ("v7s", "new", "map", 4096, 256, 2000, 1900, 2100),
                ("v7s", "old", "unmap", 4096, 256, 5000, 4900, 5100), ("v7s", "new", "unmap", 4096, 256, 1000, 990, 1010),
                ("lpae", "old", "map", 4096, 256, 3000, 2900, 3100), ("lpae", "new", "map", 4096, 256, 1000, 900, 1100),
                ("lpae", "old", "unmap", 4096, 256, 2000, 1900, 2100), ("lpae", "new", "unmap", 4096, 256, 500, 490, 510),
                ("v7s", "old", "map", 65536, 16, 900, 900, 900), ("v7s", "new", "map", 65536, 16, 300, 300, 300),
                ("v7s", "old", "unmap", 65536, 16, 800, 800, 800), ("v7s", "new", "unmap", 65536, 16, 160, 150, 170)]
        (self.dir / "bench.tsv").write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
        (self.dir / "env.txt").write_text("kernel=fixture\n")
        md = results.pgreport(self.dir)
        self.assertIn("| v7s | 256 x 4K | 6000 [5900-6100] | 2000 [1900-2100] | 3.00x | 5000 [4900-5100] | "
                      "1000 [990-1010] | 5.00x | 3.9 |", md)
        self.assertIn("| v7s | 16 x 64K |", md)
        self.assertIn("- v7s unmap of 256 x 4K, old/new: 5.00x (met)", md)
        self.assertIn("- v7s/lpae unmap of 256 x 4K, both new: 2.00x (NOT met)", md)
        self.assertIn("- v7s unmap per page, 16 x 64K against 256 x 4K: 10.0 ns against 3.9 ns, 2.56x (NOT met)", md)
        self.assertNotIn("v7s-nc", md)

    def test_driver_shapes(self):
        # fmt path op size pages median min max adds walks syncs; mtk 256 x 4K
        # map 2500/500 = 5x (met), unmap 2000/1000 = 2x (NOT met)
        rows = []
        for drv, mo, mn, uo, un, adds, syncs in (("mtk", 2500, 500, 2000, 1000, 0, 256),
                                                 ("msm", 3000, 1000, 2600, 1300, 256, 256)):
            rows += [(drv, "old", "map", 4096, 256, mo, mo, mo, 0, 0, syncs),
                     (drv, "new", "map", 4096, 256, mn, mn, mn, 0, 0, 1),
                     (drv, "old", "unmap", 4096, 256, uo, uo, uo, adds, 0, syncs),
                     (drv, "new", "unmap", 4096, 256, un, un, un, adds, 0, 1)]
        (self.dir / "bench.tsv").write_text("".join("\t".join(map(str, r)) + "\n" for r in rows))
        (self.dir / "env.txt").write_text("kernel=fixture\n")
        md = results.pgreport(self.dir)
        self.assertIn("| mtk | 256 x 4K | 2500 [2500-2500] | 500 [500-500] | 5.00x | 2000 [2000-2000] | "
                      "1000 [1000-1000] | 2.00x | 256 -> 1 | 256 -> 1 | 0 | 0 |", md)
        self.assertIn("- mtk map of 256 x 4K, old/new: 5.00x (met)", md)
        self.assertIn("- mtk unmap of 256 x 4K, old/new: 2.00x (NOT met)", md)
        self.assertIn("- msm 256 x 4K, old/new: map 3.00x, unmap 2.00x in UML; the unmap still issues 256 TLB adds", md)
        self.assertNotIn("arm-smmu 256", md)
        # a missing line is an error, not a shorter table
        (self.dir / "bench.tsv").write_text("".join("\t".join(map(str, r)) + "\n" for r in rows[:-1]))
        with self.assertRaisesRegex(results.ResultsError, "no new unmap line for msm"):
            results.pgreport(self.dir)

    def test_empty(self):
        (self.dir / "bench.tsv").write_text("")
        with self.assertRaisesRegex(results.ResultsError, "missing or empty"):
            results.pgreport(self.dir)


class SmokeCheck(Run):
    def smoke(self, points):
        self.write(points, variants="bare base")
        results.report(self.dir)
        return results.smoke_check(self.dir)

    def test_sane(self):
        # base: 1 thread, 10 + 40 (100 ns) -> bound 1e7 / 50 = 200000/s; counted 150000/s
        lines, sane = self.smoke([point("bare", 1, 1, 10, 40, 0, 0), point("base", 1, 1, 10, 40, 300000, 2 * 10**9)])
        self.assertTrue(sane, lines)
        self.assertIn("ok    bare: its throughput is labelled derived (derived)", lines)
        self.assertIn("ok    base: counted 150000/s is under the latency bound 1 / (1.0 + 4.0 us) = 200000/s "
                      "(0.75 of it)", lines)

    def test_over_the_bound(self):
        lines, sane = self.smoke([point("bare", 1, 1, 10, 40, 0, 0), point("base", 1, 1, 10, 40, 500000, 2 * 10**9)])
        self.assertFalse(sane)
        self.assertIn("FAIL  base: counted 250000/s is under the latency bound 1 / (1.0 + 4.0 us) = 200000/s "
                      "(1.25 of it)", lines)

    def test_bare_with_a_count_and_base_without(self):
        lines, sane = self.smoke([point("bare", 1, 1, 10, 40, 5, 10**9), point("base", 1, 1, 10, 40)])
        self.assertFalse(sane)
        self.assertIn("FAIL  bare: mainline map_benchmark reports no operation count (ops=5 elapsed_ns=1000000000)",
                      lines)
        self.assertIn("FAIL  base: the kernel counted operations (ops=- elapsed_ns=-)", lines)


class Notes(unittest.TestCase):
    def test_block_made_again(self):
        with tempfile.TemporaryDirectory() as t:
            t = Path(t)
            (t / "r").mkdir()
            (t / "r" / "results.md").write_text("# title\n\n## strict\n\n| a |\n")
            (t / "N.md").write_text("x\n<!-- include: r/results.md -->\nstale\n<!-- end include -->\ny\n")
            self.assertEqual(results.render_notes(t / "N.md"),
                             "x\n<!-- include: r/results.md -->\n\n### strict\n\n| a |\n<!-- end include -->\ny\n")
            (t / "N.md").write_text("<!-- include: r/missing.md -->\n<!-- end include -->\n")
            with self.assertRaisesRegex(results.ResultsError, "does not exist"):
                results.render_notes(t / "N.md")
            (t / "N.md").write_text("<!-- include: r/results.md -->\n")
            with self.assertRaisesRegex(results.ResultsError, "not closed"):
                results.render_notes(t / "N.md")

    def test_the_notes_match_their_results(self):
        notes = TOP / "MAINTAINERS-notes.md"
        self.assertEqual(results.render_notes(notes), notes.read_text())


class FrontPage(unittest.TestCase):
    """the front page of MAINTAINERS-notes.md against patches/ and results/"""

    ROW = "| {n} | what | {s} | {st} | ready | {fig} | {ev} | none |"

    def make(self, t, rows, extra=0):
        (t / "patches").mkdir()
        (t / "patches" / "series").write_text("# mail: one\n0001-a.patch\n\n# mail: two after=one\n0002-b.patch\n")
        (t / "patches" / "0001-a.patch").write_text("Subject: a\n\nWhy.\n\nCc: stable@vger.kernel.org\n---\n diff\n")
        (t / "patches" / "0002-b.patch").write_text("Subject: b\n\nWhy.\n---\nCc: stable@vger.kernel.org below the line\n")
        (t / "results" / "r").mkdir(parents=True)
        (t / "results" / "r" / "results.md").write_text("| x | 1.23x (0.98-1.50) |\n")
        (t / "tools/native/sim/profiles").mkdir(parents=True)
        (t / "tools/native/sim/profiles/m1.profile").write_text("")
        head = ["# notes", ""] + [""] * extra + ["<!-- front page table -->",
                "| patch | what | series | stable | state | figure | evidence | open |", "|---|---|---|---|---|---|---|---|"]
        (t / "N.md").write_text("\n".join(head + rows + ["<!-- end front page table -->", "<!-- end front page -->", "# record", ""]))
        return results.front_page_problems(t / "N.md", t)

    def good(self):
        return [self.ROW.format(n="0001", s="one", st="yes", fig="1.23x (0.98-1.50) on v7.3.4", ev="UML; results/r"),
                self.ROW.format(n="0002", s="two", st="no", fig="no figure: by reading", ev="none")]

    def run_case(self, rows, extra=0):
        with tempfile.TemporaryDirectory() as t:
            return self.make(Path(t), rows, extra)

    def test_good(self):
        self.assertEqual(self.run_case(self.good()), [])

    def test_a_figure_not_in_its_results(self):
        rows = self.good()
        rows[0] = rows[0].replace("1.23x", "1.24x")
        self.assertEqual(self.run_case(rows), ["0001: the figure 1.24 is not in results/r"])

    def test_rows_series_stable(self):
        rows = self.good()
        self.assertEqual(self.run_case(rows[:1]), ["0002: no row on the front page"])
        self.assertIn("0002: series 'one', patches/series says 'two'",
                      self.run_case([rows[0], rows[1].replace("| two |", "| one |")]))
        # a Cc: stable below the --- line is not the patch's
        self.assertEqual(self.run_case([rows[0], rows[1].replace("| no |", "| yes |")]),
                         ["0002: stable 'yes', but the patch has no Cc: stable"])

    def test_evidence(self):
        rows = self.good()
        self.assertIn("0002: a figure with no evidence", self.run_case([rows[0], rows[1].replace("no figure", "0.5x")]))
        self.assertIn("0001: kind 'guess' is none of hardware, simulated, QEMU TCG, native harness, UML, model",
                      self.run_case([rows[0].replace("UML;", "guess;"), rows[1]]))
        self.assertIn("0001: a simulated figure names no machine profile of tools/native/sim/profiles",
                      self.run_case([rows[0].replace("UML;", "simulated (m2);"), rows[1]]))
        self.assertEqual(self.run_case([rows[0].replace("UML;", "simulated (m1);"), rows[1]]), [])
        self.assertEqual(self.run_case([rows[0].replace("UML;", "model (herd7);"), rows[1]]), [])
        self.assertIn("0001: results/q does not exist", self.run_case([rows[0].replace("results/r", "results/q"), rows[1]]))

    def test_the_results_index(self):
        with tempfile.TemporaryDirectory() as t:
            t = Path(t)
            self.make(t, self.good())
            (t / "results" / "old").mkdir()
            text = results.results_index(t / "N.md", t)
            self.assertIn("| r | 0001 | one | ready | UML | 1.23x (0.98-1.50) on v7.3.4 |", text)
            self.assertIn("\n- old\n", text)
            self.assertNotIn("| old |", text)
            # a row citing no run is in neither list
            self.assertNotIn("0002", text)

    def test_the_committed_results_index(self):
        self.assertEqual(results.results_index(TOP / "MAINTAINERS-notes.md", TOP), (TOP / "results" / "README.md").read_text())

    def test_length(self):
        self.assertEqual(self.run_case(self.good(), extra=150), ["the front page is 159 lines, more than 150"])

    def test_the_notes_front_page(self):
        self.assertEqual(results.front_page_problems(TOP / "MAINTAINERS-notes.md", TOP), [])


class Committed(unittest.TestCase):
    """every committed run with a points.tsv, recomputed"""

    def test_every_committed_results_md(self):
        runs = sorted(p.parent for p in (TOP / "results").glob("*/points.tsv")
                      if (p.parent / "results.md").is_file() and (p.parent / "env.txt").is_file()
                      )
        self.assertGreater(len(runs), 10)
        for run in runs:
            with self.subTest(run=run.name), tempfile.TemporaryDirectory() as t:
                for f in ("points.tsv", "env.txt", "counters.tsv", "guest.tsv"):
                    if (run / f).is_file():
                        shutil.copy(run / f, t)
                results.report(t)
                self.assertEqual((Path(t) / "results.md").read_text(), (run / "results.md").read_text())

    def test_every_committed_pgtable_results_md(self):
        runs = sorted(p.parent for p in (TOP / "results").glob("*/bench.tsv"))
        self.assertGreater(len(runs), 2)
        for run in runs:
            with self.subTest(run=run.name), tempfile.TemporaryDirectory() as t:
                for f in ("bench.tsv", "env.txt"):
                    shutil.copy(run / f, t)
                results.pgreport(t)
                self.assertEqual((Path(t) / "results.md").read_text(), (run / "results.md").read_text())


def lava_rec(lvl, msg):
    """one record as LAVA's log writes it (lava_common.log.dump: YAML flow
    style, every scalar double-quoted, a float as a tagged string)"""
    import json
    text = json.dumps({"dt": "2026-12-03T09:00:00.000000", "lvl": lvl, "msg": msg})
    return text.replace('"measurement": 30.0', '"measurement": ! "30.0"') + "\n"


def lava_case(result, line, variant="base", level="3.1"):
    return lava_rec("results", {"case": "x", "definition": "iommu-scale-bench-" + variant,
                                "extra": {"test_case_id": line}, "level": level, "result": result})


P1 = "threads=1 granule=1 seconds=2 map_100ns=5123 map_sd=12 unmap_100ns=4021 unmap_sd=9 ops=1000 elapsed_ns=2000000000"
P2 = "threads=2 granule=1 seconds=2 map_100ns=6000 map_sd=14 unmap_100ns=5000 unmap_sd=11"
JOB_PASS = lava_rec("results", {"case": "job", "definition": "lava", "result": "pass", "measurement": 30.0})
MONITOR_PASS = lava_rec("results", {"case": "lava-test-monitor", "definition": "lava", "result": "pass",
                                    "extra": {"status": "passed"}, "level": "3.1"})


def lava_boot(k, variant, points=(P1, P2), console="Booting Linux"):
    """the records of boot k (0, 1, ...) of a job: its three actions"""
    a = 3 * k
    return (lava_rec("info", f"start: {a + 1} tmpfs-deploy") + lava_rec("info", f"start: {a + 2}.1 boot-qemu")
            + lava_rec("target", f"{console} {variant}") + lava_rec("info", f"start: {a + 3} lava-test-monitor")
            + "".join(lava_case("pass", x, variant, f"{a + 3}.1") for x in points)
            + lava_case("pass", f"points={len(points)}", variant, f"{a + 3}.1")
            + lava_rec("results", {"case": "lava-test-monitor", "definition": "lava", "result": "pass",
                                   "extra": {"status": "passed"}, "level": f"{a + 3}.1"}))


class Lava(Run):
    """tools/results/results.py lava: LAVA job logs to points.tsv and consoles"""

    def job(self, name, text, points=2, rnd=1, mode="strict", variant="base"):
        (self.dir / "jobs").mkdir(exist_ok=True)
        (self.dir / "lava").mkdir(exist_ok=True)
        idx = self.dir / "jobs" / "index.tsv"
        if not idx.exists():
            idx.write_text("job\tround\tmode\tvariant\tpoints\n")
        with idx.open("a") as f:
            f.write(f"{name}.yaml\t{rnd}\t{mode}\t{variant}\t{points}\n")
        if text is not None:   # None: a further boot of the job before
            (self.dir / "lava" / f"{name}.log").write_text(text)

    def good(self):
        return (lava_rec("info", "start: 1 tmpfs-deploy") + lava_rec("target", "Booting Linux")
                + lava_rec("target", "BENCH-POINT " + P1) + lava_case("pass", P1)
                + lava_case("pass", P2) + lava_case("pass", "points=2") + MONITOR_PASS + JOB_PASS)

    def fails(self, want):
        with self.assertRaises(results.ResultsError) as e:
            results.lava(self.dir)
        self.assertIn(want, str(e.exception))

    def test_points_and_console(self):
        self.job("001-r1-strict-base", self.good())
        self.job("002-r1-strict-series", "- " + self.good().replace("\n{", "\n- {").replace(
            "iommu-scale-bench-base", "iommu-scale-bench-series"), variant="series")
        results.lava(self.dir)
        rows = (self.dir / "points.tsv").read_text().splitlines()
        self.assertEqual(rows[0], "\t".join(results.POINT_FIELDS))
        self.assertEqual(rows[1], "base\t1\tstrict\t1\t1\t2\t5123\t12\t4021\t9\t1000\t2000000000")
        self.assertEqual(rows[2], "base\t1\tstrict\t2\t1\t2\t6000\t14\t5000\t11\t-\t-")
        self.assertEqual(rows[3].split("\t")[0], "series")
        self.assertEqual((self.dir / "logs" / "r1-strict-base.log").read_text(),
                         "Booting Linux\nBENCH-POINT " + P1 + "\n")

    def test_guest_error(self):
        self.job("001-r1-strict-base", self.good().replace(lava_case("pass", "points=2"),
                                                           lava_case("fail", "no edu PCI device")))
        self.fails("job 001-r1-strict-base.yaml, boot of base: the guest failed: BENCH-ERROR no edu PCI device")

    def test_lava_verdict(self):
        # as lava-run writes it: the error at the record's top level
        bad = lava_rec("results", {"case": "job", "definition": "lava", "result": "fail",
                                   "error_type": "Infrastructure", "error_msg": "boot timed out\n"})
        self.job("001-r1-strict-base", self.good().replace(JOB_PASS, bad))
        self.fails("LAVA's verdict is fail (Infrastructure: boot timed out)")

    def test_monitor_timed_out(self):
        self.job("001-r1-strict-base", self.good().replace(MONITOR_PASS, lava_rec(
            "results", {"case": "lava-test-monitor", "definition": "lava", "result": "fail",
                        "extra": {"status": "failed"}, "level": "3.1"})))
        self.fails("LAVA's monitor of the guest did not pass (status failed)")

    def test_no_records(self):
        self.job("001-r1-strict-base", "lava-run should be executed as root\n")
        self.fails("no LAVA log record at all; the log ends: lava-run should be executed as root")

    def test_console_of_a_failed_job(self):
        self.job("001-r1-strict-base", self.good().replace(JOB_PASS, ""))
        self.fails("no lava/job result")
        self.assertIn("Booting Linux", (self.dir / "logs" / "r1-strict-base.log").read_text())

    def test_no_verdict(self):
        self.job("001-r1-strict-base", self.good().replace(JOB_PASS, ""))
        self.fails("no lava/job result")

    def test_no_done(self):
        self.job("001-r1-strict-base", self.good().replace(lava_case("pass", "points=2"), ""))
        self.fails("did not finish its sweep (no BENCH-DONE case)")

    def test_counts_differ(self):
        self.job("001-r1-strict-base", self.good().replace(lava_case("pass", P2), ""))
        self.fails("1 BENCH-POINT cases, the guest's BENCH-DONE says 'points=2', the job asked for 2")
        self.setUp()
        self.job("001-r1-strict-base", self.good(), points=3)
        self.fails("the job asked for 3")

    def test_unreadable_point(self):
        self.job("001-r1-strict-base", self.good().replace(P2, "threads=2 granule=one"))
        self.fails("a BENCH-POINT case the parser cannot read: 'threads=2 granule=one'")
        self.setUp()
        self.job("001-r1-strict-base", self.good().replace(P2, "threads=2 granule=1"))
        self.fails("a BENCH-POINT case without seconds, map_100ns")

    def test_damaged_record(self):
        self.job("001-r1-strict-base", self.good() + '{"lvl": "target", "msg": "cut\n')
        self.fails("job 001-r1-strict-base.yaml line 9: not a LAVA log record")

    def test_one_job_boots_each_variant(self):
        # a round's job: base, then series; each boot's cases by its monitor
        text = (lava_rec("info", "start: 0 validate") + lava_boot(0, "base")
                + lava_boot(1, "series", (P2, P1), "Booting Linux again") + lava_rec("info", "start: 7 finalize")
                + lava_rec("target", "after the last boot") + JOB_PASS)
        self.job("001-r1-strict", text)
        self.job("001-r1-strict", None, variant="series")
        results.lava(self.dir)
        rows = [r.split("\t") for r in (self.dir / "points.tsv").read_text().splitlines()[1:]]
        self.assertEqual([(r[0], r[3]) for r in rows], [("base", "1"), ("base", "2"), ("series", "2"), ("series", "1")])
        self.assertEqual((self.dir / "logs" / "r1-strict-base.log").read_text(), "Booting Linux base\n")
        self.assertEqual((self.dir / "logs" / "r1-strict-series.log").read_text(), "Booting Linux again series\n")

    def test_one_boot_of_a_job_failed(self):
        bad = lava_boot(1, "series").replace('"status": "passed"', '"status": "failed"')
        self.job("001-r1-strict", lava_boot(0, "base") + bad + JOB_PASS)
        self.job("001-r1-strict", None, variant="series")
        self.fails("job 001-r1-strict.yaml, boot of series: LAVA's monitor of the guest did not pass (status failed)")
        self.setUp()
        self.job("001-r1-strict", lava_boot(0, "base") + lava_boot(1, "series", (P1,)) + JOB_PASS)
        self.job("001-r1-strict", None, variant="series", points=2)
        self.fails("job 001-r1-strict.yaml, boot of series: 1 BENCH-POINT cases")

    def test_a_retried_boot_keeps_its_last_console(self):
        first = lava_rec("info", "start: 2.1 boot-qemu") + lava_rec("target", "first attempt, hung")
        # a target line that reads like an action start moves nothing
        text = (lava_rec("info", "start: 1 tmpfs-deploy") + first
                + lava_rec("target", "start: 9 not an action") + lava_boot(0, "base")[
                    len(lava_rec("info", "start: 1 tmpfs-deploy")):] + JOB_PASS)
        self.job("001-r1-strict", text)
        results.lava(self.dir)
        self.assertEqual((self.dir / "logs" / "r1-strict-base.log").read_text(), "Booting Linux base\n")

    def test_malformed_records_are_results_errors(self):
        bad = lava_rec("results", {"case": "x", "definition": ["not", "a", "name"], "extra": "not a map",
                                   "level": "3.1", "result": "pass"})
        self.job("001-r1-strict", lava_boot(0, "base") + bad + JOB_PASS)
        results.lava(self.dir)   # ignored: not a case of any boot's monitor
        self.setUp()
        self.job("001-r1-strict", lava_boot(0, "base", ("threads=1 granule=\u00b2",)) + JOB_PASS)
        self.fails("a BENCH-POINT case the parser cannot read")

    def test_a_case_outside_its_boot(self):
        # series' cases in base's test action: not a job of tools/lava/jobs
        text = lava_boot(0, "base") + lava_boot(1, "series").replace('"level": "6.1"', '"level": "3.1"') + JOB_PASS
        self.job("001-r1-strict", text)
        self.job("001-r1-strict", None, variant="series")
        self.fails("a case of series's monitor at level 3.1, not in its test action (6)")

    def test_index_boots_of_a_job_together(self):
        self.job("001-r1-strict", lava_boot(0, "base") + JOB_PASS)
        self.job("002-r1-lazy", lava_boot(0, "base") + JOB_PASS, mode="lazy")
        self.job("001-r1-strict", lava_boot(0, "base") + JOB_PASS, variant="series")
        self.fails("job 001-r1-strict.yaml's boots are not on consecutive lines")

    def test_missing_log(self):
        self.job("001-r1-strict-base", self.good())
        (self.dir / "lava" / "001-r1-strict-base.log").unlink()
        self.fails("job 001-r1-strict-base.yaml: no log")
        (self.dir / "jobs" / "index.tsv").unlink()
        self.fails("is written by make lava-jobs")


class Compare(unittest.TestCase):
    """tools/results/results.py compare: two runs' ratios against the A/A spread"""

    def run_dir(self, ratios):
        d = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, d)
        summary = []
        for v, r in ratios.items():
            summary.append({"mode": "strict", "granule": 1, "threads": 1, "variant": v,
                            "ratio_to_first": r})
        env = {"variants": " ".join(ratios), "threads": "1", "granules": "1", "modes": "strict",
               "seconds": "2", "rounds": "2", "smp": "2", "dma_bits": "32", "dir": "bidir"}
        (d / "results.json").write_text(json.dumps({"env": env, "summary": summary}))
        return d

    def test_agree_within_the_spread(self):
        a = self.run_dir({"base": None, "base-aa": [1.0, 0.95, 1.04], "series": [1.10, 1.05, 1.15]})
        b = self.run_dir({"base": None, "base-aa": [1.0, 0.98, 1.02], "series": [1.14, 1.10, 1.18]})
        md, agree = results.compare(a, b, "base-aa")
        self.assertTrue(agree)
        self.assertIn("| strict | 1 | 1 | series | 1.10 | 1.14 | 0.04 | 0.05 | yes |", md)

    def test_disagree_beyond_it(self):
        a = self.run_dir({"base": None, "base-aa": [1.0, 0.99, 1.01], "series": [1.10, 1.05, 1.15]})
        b = self.run_dir({"base": None, "base-aa": [1.0, 0.98, 1.02], "series": [1.20, 1.10, 1.25]})
        md, agree = results.compare(a, b, "base-aa")
        self.assertFalse(agree)
        self.assertIn("| series | 1.10 | 1.20 | 0.10 | 0.02 | NO |", md)

    def test_different_runs_are_refused(self):
        a = self.run_dir({"base": None, "base-aa": [1.0, 1.0, 1.0]})
        b = self.run_dir({"base": None, "series": [1.0, 1.0, 1.0]})
        with self.assertRaises(results.ResultsError):
            results.compare(a, b, "base-aa")


class LavaRecorded(Run):
    """real lava-run logs (ci/fixtures/lava): the format as it is, not as
    the cases above write it"""

    def job(self, log):
        (self.dir / "jobs").mkdir()
        (self.dir / "lava").mkdir()
        (self.dir / "jobs" / "index.tsv").write_text(
            "job\tround\tmode\tvariant\tpoints\n001-r1-strict.yaml\t1\tstrict\tbase\t1\n"
            "001-r1-strict.yaml\t1\tstrict\tseries\t1\n")
        shutil.copy(TOP / "ci" / "fixtures" / "lava" / log, self.dir / "lava" / "001-r1-strict.log")

    def test_pass(self):
        self.job("round.log")
        results.lava(self.dir)
        rows = [r.split("\t") for r in (self.dir / "points.tsv").read_text().splitlines()[1:]]
        self.assertEqual([r[:5] for r in rows], [["base", "1", "strict", "1", "1"], ["series", "1", "strict", "1", "1"]])
        self.assertTrue(all(r[10].isdigit() and r[11].isdigit() for r in rows))   # counted: ops, elapsed_ns
        for v in ("base", "series"):
            console = (self.dir / "logs" / f"r1-strict-{v}.log").read_text()
            self.assertEqual(console.count("Linux version 7.3.4"), 2, v)   # the banner and BENCH-INFO kernel=
            self.assertEqual(console.count("BENCH-DONE points=1\n"), 1, v)
            self.assertNotIn("\r", console)     # LAVA drops them; the parser adds none
        # each boot's console is its own: base's kernel is not series'
        self.assertNotEqual((self.dir / "logs" / "r1-strict-base.log").read_text(),
                            (self.dir / "logs" / "r1-strict-series.log").read_text())

    def test_guest_error_in_the_second_boot(self):
        self.job("round-guest-error.log")
        with self.assertRaises(results.ResultsError) as e:
            results.lava(self.dir)
        self.assertIn("job 001-r1-strict.yaml, boot of series: the guest failed: "
                      "BENCH-ERROR bench.group must be DMA (strict) or DMA-FQ (lazy)", str(e.exception))
        # base's boot, which passed, still has its console
        self.assertIn("BENCH-DONE points=1", (self.dir / "logs" / "r1-strict-base.log").read_text())


if __name__ == "__main__":
    unittest.main()
