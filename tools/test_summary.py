#!/usr/bin/env python3
"""Counts of a test run: one line per suite, "N passed, N failed, N skipped",
and why each skipped test skipped.

    python3 tools/test_summary.py BUILD_DIR/test-results

Reads the JUnit XML files the run leaves there: GoogleTest's (tests_cpu,
tests_cpu_<isa>, tests_cuda: --gtest_output), pytest's (--junitxml) and
ctest's own (--output-junit: one case per ctest test, which counts the
suites that write no XML of their own). Exits 1 when a suite failed or a
ctest test wrote no result, so that a run whose checks did not run cannot
pass.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET


def cases(path):
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name = (case.get("classname", "") + "." + case.get("name", "")).strip(".")
        skipped = case.find("skipped")
        failed = case.find("failure") is not None or case.find("error") is not None
        # GoogleTest marks a skip as status/result "skipped" (and, since 1.11, a <skipped> child).
        if skipped is None and (case.get("result") == "skipped" or case.get("status") == "notrun"):
            skipped = case
        why = ""
        if skipped is not None:
            # GoogleTest writes "file:line" then the GTEST_SKIP() message.
            lines = [l.strip() for l in (skipped.get("message") or skipped.text or "").splitlines() if l.strip()]
            why = lines[-1] if lines else "no reason given"
            if len(lines) == 1 and ":" in why and why.rsplit(":", 1)[-1].isdigit():
                why = f"no reason given ({why})"
        yield name, failed, skipped is not None, why


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    files = sorted(glob.glob(os.path.join(folder, "*.xml")))
    if not files:
        print(f"== test counts: no results in {folder}: the tests did not run")
        return 1
    bad = False
    total = [0, 0, 0]
    for path in files:
        suite = os.path.splitext(os.path.basename(path))[0]
        try:
            found = list(cases(path))
        except ET.ParseError as e:
            print(f"== {suite}: unreadable results ({e})")
            bad = True
            continue
        passed = sum(1 for _, f, s, _ in found if not f and not s)
        failed = sum(1 for _, f, _, _ in found if f)
        skipped = [(n, w) for n, f, s, w in found if s and not f]
        total[0] += passed
        total[1] += failed
        total[2] += len(skipped)
        print(f"== {suite}: {passed} passed, {failed} failed, {len(skipped)} skipped")
        # Why they skipped, by reason, with one test for each.
        # (shapes in a reason, "[3,1]", are one reason).
        reasons = {}
        for name, why in skipped:
            reasons.setdefault(re.sub(r"\[[^\]]*\]", "[..]", why), []).append(name)
        ranked = sorted(reasons.items(), key=lambda kv: -len(kv[1]))
        for why, names in ranked[:8]:
            print(f"     {len(names)} skipped: {why} (e.g. {names[0]})")
        if len(ranked) > 8:
            print(f"     {sum(len(n) for _, n in ranked[8:])} skipped for {len(ranked) - 8} other reasons")
        for name, f, _, _ in found:
            if f:
                print(f"     failed: {name}")
        bad = bad or failed > 0 or not found
    print(f"== all suites: {total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
