#!/usr/bin/env python3
"""Unit tests of the simulation's Python side: simrun.py, calibrate.py,
predict.py's table helpers. Run: python3 tools/native/sim/sim_test.py"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate  # noqa: E402
import predict  # noqa: E402
import iova_predict  # noqa: E402
import simrun  # noqa: E402

OUT = """RESULT variant=series threads=2 cmds=10 lists=5 ops_per_s_per_cpu=1234 cmpxchg=7 failures=0
SIMPROFILE model=sim-1 profile=p cpus_used=2 virtual_ns=10 cpu_work_ns=5 cpu_park_ns=5 line_ns=3 transfers=4
SIMPOINT op=smmu: read an entry ns=40 n=2
SIMPOINT op=cmpxchg ns=30 n=7
SIMLINE field=cmdq->q.llq lines=1 ns=30 transfers=3 accesses=9
SIMLINE field=CPUs' own (MCS nodes, stack) lines=4 ns=1 transfers=1 accesses=2 held_ns=6 busiest_held_ns=4
"""


class Parse(unittest.TestCase):
    def test_fields(self):
        r = simrun.parse(OUT)
        self.assertEqual(r["result"]["variant"], "series")
        self.assertEqual(simrun.rate(r), 1234.0)
        self.assertEqual(r["profile"]["model"], "sim-1")

    def test_names_with_spaces(self):
        r = simrun.parse(OUT)
        self.assertEqual(r["points"][0]["op"], "smmu: read an entry")
        self.assertEqual(r["points"][0]["ns"], "40")
        self.assertEqual(r["lines"][1]["field"], "CPUs' own (MCS nodes, stack)")
        self.assertEqual(r["lines"][1]["lines"], "4")

    def test_held_after_a_name_with_spaces(self):
        r = simrun.parse(OUT)
        self.assertEqual(r["lines"][1]["held_ns"], "6")
        self.assertEqual(r["lines"][1]["busiest_held_ns"], "4")

    def test_no_result(self):
        self.assertIsNone(simrun.parse("FAIL  something\n")["result"])


IOVA_OUT = ("RESULT variant=base workload=f threads=16 allocs=2000 frees=2000 alloc_ns=7127.7 "
            "free_ns=8503.8 cpu=0 depot=0 bitmap=500 rbtree=1500 fail=0 rbtree_acq=3000 rbtree_cont=1500 "
            "rbtree_hold_ns=1 rbtree_wait_ns=4000000 classes=3 clock=virtual ops_per_s_per_cpu=64031 failures=0\n")


class IovaPredict(unittest.TestCase):
    def test_point_row(self):
        r = iova_predict.point_row(simrun.parse(IOVA_OUT))
        self.assertEqual(r["rate"], 64031.0)
        self.assertEqual(r["rbtree_per_k"], 1500.0)
        self.assertEqual(r["contended_pct"], 50.0)
        self.assertEqual(r["rbtree_wait_ns"], 2000.0)
        self.assertEqual(r["classes"], 3)
        self.assertEqual(r["paths"], "0.0/0.0/25.0/75.0")

    def test_fmt_range(self):
        self.assertEqual(iova_predict.fmt_range([3, 1, 2]), "2 (1-3)")
        self.assertEqual(iova_predict.fmt_range([1.5, 0.5], "%.2f"), "1.00 (0.50-1.50)")

    def test_csv_ints_refuses(self):
        self.assertEqual(iova_predict.csv_ints("1,16,64"), [1, 16, 64])
        for bad in ("", "0", "1,x", "-1"):
            with self.assertRaises(Exception):
                iova_predict.csv_ints(bad)

    def test_blame_only_where_the_reference_passed(self):
        failed = [("p", "d", 64, 1, "base", "x"), ("p", "d", 64, 1, "classes", "y"),
                  ("p", "f", 64, 1, "classes", "z"), ("p", "d", 64, 2, "classes", "w")]
        got = iova_predict.blamed(failed, "base")
        self.assertEqual([f[5] for f in got], ["z", "w"])
        self.assertEqual(iova_predict.blamed([], "base"), [])

    def test_the_simulated_arguments(self):
        a = iova_predict.args_for("p.profile", "base", "f", 16, 0.01, 0.005, 2, 30, 2)
        self.assertIn("--sim-profile=p.profile", a)
        self.assertEqual(a[a.index("--threads") + 1], "16")
        self.assertEqual(a[a.index("--check") + 1], "1")
        self.assertEqual(a[-1], "--sim-report=-")


class Criteria(unittest.TestCase):
    def test_within(self):
        self.assertTrue(simrun.within(1.35, 1.0, 0.35))
        self.assertFalse(simrun.within(1.36, 1.0, 0.35))
        self.assertTrue(simrun.within(0.65, 1.0, 0.35))
        self.assertFalse(simrun.within(0.64, 1.0, 0.35))

    def test_order(self):
        self.assertTrue(simrun.same_order({"a": 1, "b": 3, "c": 2}, {"a": 10, "b": 30, "c": 20}))
        self.assertFalse(simrun.same_order({"a": 1, "b": 3, "c": 2}, {"a": 10, "b": 20, "c": 30}))

    def pub(self):
        return [{"cpus": 8, "base": 100, "spinlock": 100, "add": 100},
                {"cpus": 16, "base": 100, "spinlock": 150, "add": 300},
                {"cpus": 32, "base": 100, "spinlock": 200, "add": 400}]

    def test_check_holds(self):
        pred = {"base": [1, 10, 10], "spinlock": [1, 16, 19], "add": [1, 28, 45]}
        holds, rows = calibrate.check(pred, self.pub())
        self.assertTrue(holds)
        self.assertEqual([r["cpus"] for r in rows], [16, 32])  # 8 is below the check's range

    def test_check_fails_on_a_ratio(self):
        pred = {"base": [1, 10, 10], "spinlock": [1, 16, 19], "add": [1, 28, 60]}
        holds, rows = calibrate.check(pred, self.pub())
        self.assertFalse(holds)
        self.assertFalse(rows[1]["add"]["ok"])

    def test_check_fails_on_the_order(self):
        # ratios within 35% but spinlock above add at 16
        pred = {"base": [1, 10, 10], "spinlock": [1, 19, 20], "add": [1, 17, 40]}
        pub = self.pub()
        pub[1]["add"] = 200
        holds, rows = calibrate.check(pred, pub)
        self.assertFalse(rows[0]["order"])
        self.assertFalse(holds)

    def test_objective(self):
        self.assertEqual(calibrate.objective([1, 2], [1, 2]), 0)
        self.assertGreater(calibrate.objective([2, 2], [1, 2]), 0.4)


class Files(unittest.TestCase):
    def test_published_table(self):
        rows = calibrate.read_published(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "published-2020.tsv"))
        self.assertEqual([int(r["cpus"]) for r in rows], [2, 4, 8, 16, 32, 64, 96])
        self.assertEqual(rows[-1]["base"], 5200)

    def test_profiles_read(self):
        d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiles")
        for name in os.listdir(d):
            kv = simrun.read_profile(os.path.join(d, name))
            for k in ("name", "cpus", "t_other", "t_sync", "xfer_scale", "atomics", "t_far", "home_order",
                      "t_cons_lag"):
                self.assertIn(k, kv, "%s lacks %s" % (name, k))

    @staticmethod
    def script(path, body):
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        return path

    def test_cache_key_follows_the_binary(self):
        with tempfile.TemporaryDirectory() as d:
            b = self.script(os.path.join(d, "bin"), "echo 'RESULT ops_per_s_per_cpu=1 failures=0'\n")
            c = os.path.join(d, "cache")
            self.assertEqual(simrun.rate(simrun.run(b, ["x"], c)), 1)
            self.script(b, "echo 'RESULT ops_per_s_per_cpu=2 failures=0'\n")
            self.assertEqual(simrun.rate(simrun.run(b, ["x"], c)), 2)

    def test_failed_run_raises(self):
        with tempfile.TemporaryDirectory() as d:
            b = self.script(os.path.join(d, "bin"), "echo 'FAIL  a check'\nexit 1\n")
            with self.assertRaises(simrun.RunError) as e:
                simrun.run(b, ["x"])
            self.assertIn("FAIL  a check", str(e.exception))
            self.assertEqual(e.exception.status, "failed")


class Contention(unittest.TestCase):
    def test_busiest_line_share(self):
        text = ("RESULT variant=v cmds=8 syncs_checked=2 ops_per_s_per_cpu=5\n"
                "SIMPROFILE virtual_ns=1000 cpu_work_ns=1 cpu_park_ns=3 transfers=20\n"
                "SIMLINE field=cmdq->lock lines=1 ns=9 transfers=10 accesses=12 held_ns=900 busiest_held_ns=900\n"
                "SIMLINE field=queue entries lines=2 ns=3 transfers=10 accesses=10 held_ns=300 busiest_held_ns=250\n")
        md = predict.contention_md("v", 4, simrun.parse(text))
        self.assertIn("| cmdq->lock | 1 | 0.00 | 10 | 1.00 | 90.0 |", md)
        self.assertIn("| queue entries | 2 | 0.00 | 10 | 1.00 | 25.0 |", md)


if __name__ == "__main__":
    unittest.main()
