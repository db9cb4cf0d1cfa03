#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a KUnit run from its console log, with the kernel tree's own KTAP
parser (tools/testing/kunit/kunit_parser.py), the one kunit.py uses.

    tools/gates/ktap.py --kunit-dir TREE/tools/testing/kunit [-k KNOWN_SKIPS]
                  [--reports REGEX] [--expected STRING] LOG

Prints one line per suite and a total, and exits 1 if a case failed, a
suite has no result line (the kernel stopped inside it), fewer suites
reported than the plan announced, no test ran, a case or a parameter of a
case was skipped that KNOWN_SKIPS does not list with its reason
('suite.case  reason'), or a line of the log matches REGEX (the kernel
reports of lib.sh's KERNEL_REPORTS: a KUnit case does not fail by itself
on a KASAN or lockdep report), unless the line holds STRING (lib.sh's
KERNEL_REPORTS_EXPECTED: the one report a test makes on purpose).

tools/gates/ktap (awk, no Python) prints the same lines; the boot judge uses it
(also in a bench bundle), and the self-tests require both to agree on every
fixture and on the committed boot logs with KUnit.
"""
import argparse
import re
import sys
from pathlib import Path


def load_parser(kunit_dir):
    """kunit_parser and kunit_printer from a kernel tree"""
    if not (Path(kunit_dir) / "kunit_parser.py").is_file():
        sys.exit(f"ktap.py: error: {kunit_dir} has no kunit_parser.py: "
                 "point --kunit-dir at a Linux tree's tools/testing/kunit.")
    sys.dont_write_bytecode = True  # nothing written into the kernel tree
    sys.path.insert(0, str(kunit_dir))
    import kunit_parser  # pylint: disable=import-outside-toplevel
    import kunit_printer  # pylint: disable=import-outside-toplevel
    return kunit_parser, kunit_printer


def read_known(path):
    """'suite.case' -> reason, for the lines that give a reason"""
    known = {}
    if not path:
        return known
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(None, 1)
        if len(fields) == 2 and fields[1].strip():
            known[fields[0]] = fields[1].strip()
    return known


def directive(test):
    """the KTAP directive of a skipped test, as the log wrote it"""
    return "SKIP " + test.skip_reason if test.skip_reason else "SKIP"


class Suite:
    """counts of one suite, as tools/gates/ktap keeps them"""

    def __init__(self, name):
        self.name = name
        self.passed = self.failed = self.skipped = 0
        self.failed_names = []
        self.bad_skips = []


def judge(lines, known, reports, kp, printer, expected=""):
    """(output lines, bad) for the console LINES"""
    out = []
    splat = [l for l in lines if reports and re.search(reports, l)
             and not (expected and expected in l)]
    root = kp.parse_run_tests(lines, printer)
    St = kp.TestStatus
    if root.status == St.FAILURE_TO_PARSE_TESTS:
        return ['NO KTAP: no "KTAP version" line in the log: '
                'the kernel did not run the tests'], True
    bad = False
    total = {"p": 0, "f": 0, "s": 0}
    results = 0
    suites = [t for t in root.subtests
              if not (t.name == "" and t.status == St.TEST_CRASHED and not t.subtests)]
    for suite in suites:
        s = Suite(suite.name)
        for case in suite.subtests:
            if case.name == "" and case.status == St.TEST_CRASHED:
                continue  # a case the plan announced and the log never reached
            for param in case.subtests:
                if param.status == St.SKIPPED:
                    if f"{s.name}.{case.name}" in known:
                        s.skipped += 1
                    else:
                        s.bad_skips.append(f"{case.name}[{param.name}] ({directive(param)})")
            if case.status == St.SUCCESS:
                s.passed += 1
            elif case.status == St.SKIPPED:
                if f"{s.name}.{case.name}" in known:
                    s.skipped += 1
                else:
                    s.bad_skips.append(f"{case.name} ({directive(case)})")
            else:
                s.failed += 1
                s.failed_names.append(case.name)
        nbad = len(s.bad_skips)
        total["p"] += s.passed
        total["f"] += s.failed
        total["s"] += s.skipped + nbad
        counts = f"{s.passed} passed, {s.failed} failed, {s.skipped + nbad} skipped"
        # no result line: kunit_parser leaves the suite "crashed", or, where
        # the log ended inside it, "no tests" with the cases it did see
        has_result = not (suite.status == St.TEST_CRASHED or
                          (suite.status == St.NO_TESTS and suite.subtests))
        if has_result:
            results += 1
        if not has_result:
            out.append(f"CRASH {s.name:<32} {counts}; no result line: the kernel stopped inside this suite")
            bad = True
        elif s.failed > 0 or suite.status == St.FAILURE:
            names = "".join(" " + n for n in s.failed_names) or " (suite)"
            out.append(f"FAIL  {s.name:<32} {counts}; failed:{names}")
            bad = True
        elif nbad > 0:
            out.append(f"FAIL  {s.name:<32} {counts}; skipped without a reason in the "
                       "known-skips list:" + "".join(" " + b for b in s.bad_skips))
            bad = True
        elif suite.status == St.SKIPPED and s.name not in known:
            out.append(f"FAIL  {s.name:<32} whole suite skipped ({directive(suite)}) "
                       "and not in the known-skips list")
            bad = True
        elif s.passed + s.skipped == 0 and suite.status != St.SKIPPED:
            out.append(f"PASS  {s.name:<32} (no subtests)")
            total["p"] += 1
        else:
            out.append(f"PASS  {s.name:<32} {counts}")
    planned = root.expected_count or 0
    if planned and results < planned:
        out.append(f"CRASH {planned - results} of {planned} planned suites reported no result: "
                   "the run ended early")
        bad = True
    if total["p"] == 0:
        out.append("NO TESTS: no test case passed or ran")
        bad = True
    if splat:
        first = re.sub(r"^\[ *[0-9.]+\] ", "", splat[0].rstrip())
        out.append(f"SPLAT {len(splat)} kernel report line(s) (lib.sh KERNEL_REPORTS); "
                   f"the first: {first}")
        bad = True
    out.append(f"kunit: {len(suites)} suites, {total['p']} passed, "
               f"{total['f']} failed, {total['s']} skipped")
    return out, bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kunit-dir", required=True,
                    help="a Linux tree's tools/testing/kunit (kunit_parser.py)")
    ap.add_argument("-k", dest="known", help="known skips: 'suite.case  reason' lines")
    ap.add_argument("--reports", default="", help="extended regex of kernel report lines")
    ap.add_argument("--expected", default="",
                    help="a report line holding this string is expected (KERNEL_REPORTS_EXPECTED)")
    ap.add_argument("log")
    args = ap.parse_args(argv)
    kp, kprint = load_parser(args.kunit_dir)
    log = Path(args.log)
    if not log.is_file():
        sys.exit(f"ktap.py: error: KTAP log {log} does not exist.")
    lines = log.read_text(errors="replace").splitlines(keepends=True)
    out, bad = judge(lines, read_known(args.known), args.reports, kp,
                     kprint.Printer(print=False), args.expected)
    print("\n".join(out))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
