#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of tools/results/iovareport.py: hand-made fixtures with figures worked out
by hand (ci/fixtures/iovareport/), broken input, and every committed
results/*/ of a native iova run recomputed from its points.txt.

    python3 tools/results/iovareport_test.py
"""
import shutil
import tempfile
import unittest
from pathlib import Path

import iovareport

TOP = Path(__file__).resolve().parent.parent.parent
FIX = TOP / "ci" / "fixtures" / "iovareport"


def row(rows, workload, threads, variant):
    for r in rows:
        if (r["workload"], r["threads"], r["variant"]) == (workload, threads, variant):
            return r
    raise AssertionError(f"no row {workload} {threads} {variant}")


class Figures(unittest.TestCase):
    """ci/fixtures/iovareport/two-rounds: three rounds, two thread counts"""

    def setUp(self):
        d = FIX / "two-rounds"
        self.env = iovareport.parse_env((d / "env.txt").read_text())
        self.variants = self.env["variants"].split()
        self.rows = iovareport.summarise(iovareport.parse_points((d / "points.txt").read_text()), self.variants)

    def test_median_min_max(self):
        r = row(self.rows, "a", 1, "series")
        self.assertEqual(r["alloc_ns"], [30, 30, 60])
        self.assertEqual(r["free_ns"], [10, 10, 20])
        self.assertEqual(row(self.rows, "a", 1, "base")["alloc_ns"], [20, 10, 30])

    def test_ratio_is_round_by_round(self):
        # base/series alloc+free per round: 40/40, 20/40, 60/80
        self.assertEqual(row(self.rows, "a", 1, "series")["ratio_to_first"], [0.75, 0.5, 1.0])
        # 80/40, 80/80, 80/160: the median of the ratios, not the ratio of the medians
        self.assertEqual(row(self.rows, "a", 2, "series")["ratio_to_first"], [1.0, 0.5, 2.0])
        self.assertEqual(row(self.rows, "a", 1, "base")["ratio_to_first"], [1.0, 1.0, 1.0])

    def test_aa_noise(self):
        self.assertEqual(row(self.rows, "a", 1, "base-aa")["ratio_to_first"], [1.0, 0.5, 1.0])

    def test_counters(self):
        r = row(self.rows, "a", 2, "base")
        self.assertEqual(r["path_pct"]["rbtree"], 5.0)
        self.assertEqual(r["path_pct"]["cpu"], 95.0)
        self.assertEqual(r["rbtree_acq_per_1k"], 100.0)
        self.assertEqual(r["rbtree_contended_pct"], 25.0)
        self.assertEqual(r["rbtree_hold_ns"], 10.0)
        self.assertEqual(row(self.rows, "a", 2, "series")["words_per_alloc"], 2.0)
        self.assertEqual(r["allocs_per_s_per_thread"], [1000.0, 1000.0, 1000.0])

    def test_order_of_the_run(self):
        self.assertEqual([(r["threads"], r["variant"]) for r in self.rows],
                         [(t, v) for t in (1, 2) for v in ("base", "series", "base-aa")])

    def test_markdown(self):
        md = iovareport.markdown(self.rows, self.env, self.variants)
        self.assertIn("| 1 | series | 30.0 (30.0-60.0) | 10.0 (10.0-20.0) |", md)
        self.assertIn("| 0.75 (0.50-1.00) |", md)
        self.assertIn("## Workload a: same CPU (rcache hits)", md)


class BySize(unittest.TestCase):
    """the rcache's miss rate by size, worked by hand"""

    def test_parse_and_miss(self):
        b = iovareport.parse_by_size("cpu@1:90,depot@1:5,rbtree@1:5,bitmap@2:1,cpu@2:3,rbtree@64:7")
        self.assertEqual(b, {1: {"cpu": 90, "depot": 5, "rbtree": 5}, 2: {"bitmap": 1, "cpu": 3},
                             64: {"rbtree": 7}})
        self.assertEqual(iovareport.miss_pct(b), {1: 5.0, 2: 25.0, 64: 100.0})
        self.assertEqual(iovareport.parse_by_size("-"), {})
        self.assertIsNone(iovareport.parse_by_size(None))
        with self.assertRaisesRegex(iovareport.ReportError, "not path@granules:count"):
            iovareport.parse_by_size("cpu:1")

    def test_table(self):
        lines = (FIX / "two-rounds" / "points.txt").read_text().splitlines()
        # round 1: 10% of size 1 and all of size 64 missed; round 2: 30% and all; round 3: 20% and all
        extra = {1: "cpu@1:900,rbtree@1:100,rbtree@64:5", 2: "cpu@1:700,bitmap@1:300,rbtree@64:5",
                 3: "cpu@1:800,rbtree@1:200,rbtree@64:5"}
        lines = [ln + " by_size=" + extra[int(ln.split()[0].split("=")[1])] for ln in lines]
        env = iovareport.parse_env((FIX / "two-rounds" / "env.txt").read_text())
        v = env["variants"].split()
        rows = iovareport.summarise(iovareport.parse_points("\n".join(lines)), v)
        self.assertEqual(row(rows, "a", 1, "series")["miss_pct_by_size"], {1: 20.0, 64: 100.0})
        md = iovareport.markdown(rows, env, v)
        self.assertIn("| threads | variant | 1 | 64 |", md)
        self.assertIn("| 1 | series | 20.0 | 100.0 |", md)


class Broken(unittest.TestCase):
    def setUp(self):
        self.d = Path(tempfile.mkdtemp())
        shutil.copy(FIX / "two-rounds" / "env.txt", self.d)
        self.points = (FIX / "two-rounds" / "points.txt").read_text().splitlines()

    def tearDown(self):
        shutil.rmtree(self.d)

    def write(self, lines):
        (self.d / "points.txt").write_text("\n".join(lines) + "\n")

    def test_missing_field(self):
        self.write([self.points[0].replace(" alloc_ns=20", "")] + self.points[1:])
        with self.assertRaisesRegex(iovareport.ReportError, "no alloc_ns"):
            iovareport.report(self.d)

    def test_not_a_number(self):
        self.write([self.points[0].replace("alloc_ns=20", "alloc_ns=fast")] + self.points[1:])
        with self.assertRaisesRegex(iovareport.ReportError, "is not a number"):
            iovareport.report(self.d)

    def test_missing_variant_point(self):
        self.write([p for p in self.points if not (p.startswith("round=2 variant=series workload=a threads=2"))])
        with self.assertRaisesRegex(iovareport.ReportError, "different rounds"):
            iovareport.report(self.d)

    def test_no_table_is_left_behind(self):
        (self.d / "results.md").write_text("an old table\n")
        self.write([])
        with self.assertRaises(iovareport.ReportError):
            iovareport.report(self.d)
        self.assertFalse((self.d / "results.md").exists())


class Committed(unittest.TestCase):
    """every committed native iova run: its results.md is what its points give"""

    def test_recompute(self):
        runs = [d for d in sorted((TOP / "results").glob("*/"))
                if (d / "points.txt").is_file() and (d / "env.txt").is_file()
                and "kind=native-iova" in (d / "env.txt").read_text()]
        for d in runs:
            with self.subTest(run=d.name):
                with tempfile.TemporaryDirectory() as t:
                    for f in ("env.txt", "points.txt"):
                        shutil.copy(d / f, t)
                    self.assertEqual(iovareport.report(t), (d / "results.md").read_text())


if __name__ == "__main__":
    unittest.main()
