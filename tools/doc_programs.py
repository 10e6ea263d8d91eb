#!/usr/bin/env python3
"""Compiles and runs the complete programs of a Markdown page, and checks
their output (ctest: doc_programs).

A program is a ```cpp block whose first line is `// program: <name>`; the
```text block right after it is its expected standard output, exactly.

  tools/doc_programs.py --doc docs/cpp-authoring.md --cxx c++ --root SRC \\
      [--lib path/to/libops.so] [--flag=-fsanitize=address ...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

BLOCK = re.compile(r"```cpp\n// program: (\w+)\n(.*?)```\s*```text\n(.*?)```", re.S)


def programs(text):
    return [(m.group(1), "// program: " + m.group(1) + "\n" + m.group(2), m.group(3)) for m in BLOCK.finditer(text)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--doc", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--root", required=True, help="the source tree (for -I)")
    ap.add_argument("--lib", help="libops shared library to link")
    ap.add_argument("--flag", action="append", default=[], help="an extra compiler flag (repeatable)")
    args = ap.parse_args()

    found = programs(open(args.doc).read())
    declared = len(re.findall(r"^// program: ", open(args.doc).read(), re.M))
    failures = 0
    if not found or len(found) != declared:
        print(f"[FAILED] {args.doc}: {declared} programs declared, {len(found)} with an output block after them")
        failures += 1
    with tempfile.TemporaryDirectory() as tmp:
        for name, source, expected in found:
            src = os.path.join(tmp, name + ".cpp")
            exe = os.path.join(tmp, name)
            open(src, "w").write(source)
            cmd = [args.cxx, "-std=c++20", "-O1", "-I", args.root, "-I", os.path.join(args.root, "include"),
                   *args.flag, src, "-o", exe]
            if args.lib:
                cmd += [args.lib, f"-Wl,-rpath,{os.path.dirname(os.path.abspath(args.lib))}"]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"[FAILED] {name}: does not compile:\n{r.stderr[-4000:]}")
                failures += 1
                continue
            r = subprocess.run([exe], capture_output=True, text=True, timeout=120)
            if r.returncode != 0 or r.stdout != expected:
                print(f"[FAILED] {name}: exit {r.returncode}\n--- expected\n{expected}--- got\n{r.stdout}{r.stderr}")
                failures += 1
            else:
                print(f"[ok] {name}")
    print(f"{len(found)} program(s), {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
