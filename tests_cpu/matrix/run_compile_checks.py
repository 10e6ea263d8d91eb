#!/usr/bin/env python3
"""Compile-time checks of libops/matrix/matrix.h, run by ctest.

1. Every case of must_not_compile.cpp fails to compile with each compiler
   given (and CASE 0 compiles), with the expected words in the message.
2. With --clang (a clang++), matrix_test.cpp is built again with
   -fenable-matrix and run, so both implementations of Note [Two
   implementations] pass the same tests whatever compiler built tests_cpu.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cases(path):
    found = []
    for m in re.finditer(r'#(?:el)?if CASE == (\d+)\s*// expect: (compiles|"([^"]*)")', open(path).read()):
        found.append((int(m.group(1)), None if m.group(2) == "compiles" else m.group(3)))
    return found


def compile_case(cxx, flags, root, case):
    cmd = [cxx, "-std=c++20", "-fsyntax-only", f"-DCASE={case}", "-I", root, *flags,
           os.path.join(HERE, "must_not_compile.cpp")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True, help="the source tree (for -I)")
    ap.add_argument("--cxx", action="append", default=[], help="a C++ compiler to check (repeatable)")
    ap.add_argument("--clang", help="clang++ for the -fenable-matrix build of matrix_test.cpp")
    args = ap.parse_args()

    failures = 0
    compilers = [(c, []) for c in args.cxx]
    if args.clang:
        compilers.append((args.clang, ["-fenable-matrix"]))
    for cxx, flags in compilers:
        name = " ".join([os.path.basename(cxx), *flags])
        for case, expect in cases(os.path.join(HERE, "must_not_compile.cpp")):
            rc, err = compile_case(cxx, flags, args.root, case)
            if expect is None:
                ok = rc == 0
                why = "" if ok else "the valid program did not compile:\n" + err[-3000:]
            else:
                ok = rc != 0 and expect in err
                why = "" if ok else ("it compiled" if rc == 0 else f"the message lacks {expect!r}:\n" + err[-3000:])
            print(f"[{'ok' if ok else 'FAILED'}] {name}: case {case}" + (f" ({why})" if why else ""))
            failures += not ok

    if args.clang:
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "matrix_test_clang")
            cmd = [args.clang, "-std=c++20", "-O2", "-fenable-matrix", "-DLIBOPS_EXPECT_MATRIX_EXTENSION",
                   "-I", args.root, os.path.join(HERE, "matrix_test.cpp"), "-o", exe, "-lgtest", "-lgtest_main",
                   "-pthread"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("[FAILED] building matrix_test.cpp with clang++ -fenable-matrix:\n" + r.stderr[-4000:])
                failures += 1
            else:
                r = subprocess.run([exe, "--gtest_brief=1"], capture_output=True, text=True)
                tail = r.stdout.strip().splitlines()[-1:] or [""]
                print(f"[{'ok' if r.returncode == 0 else 'FAILED'}] matrix_test.cpp with clang++ -fenable-matrix: "
                      + tail[0])
                if r.returncode != 0:
                    print(r.stdout[-4000:] + r.stderr[-2000:])
                    failures += 1
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
