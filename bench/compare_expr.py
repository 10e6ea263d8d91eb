#!/usr/bin/env python3
"""Runs bench/expr_bench and prints the chain z = tanh(x * 2 + 1) * x over
16M float32 (Note [Expressions] in libops/expr/expr.h) beside its
references, measured in the same run:

  libops, one C++ expression (one pass)     against
    - the same four ops called one by one (four passes),
    - numpy: np.tanh(x * 2 + 1) * x (float32 throughout),
    - tanh alone (one pass: the arithmetic floor of the chain),
    - a STREAM-style copy (the bandwidth floor of one read and one write),
  at 1 and 2 threads; then hard_swish written three ways (a hand loop, four
  op calls, one expression: docs/cpp-authoring.md) beside the hard_swish op.

  bench/compare_expr.py build/cpu-release/expr_bench [--repetitions N]
"""
import sys

import numpy as np

import bench_json

N = 16 << 20


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    rows, reps = bench_json.collect(sys.argv)

    def ms(name):
        return bench_json.ms(rows, name)

    x = np.sin(np.float32(0.001) * (np.arange(N) % 100003).astype(np.float32)).astype(np.float32)
    two, one = np.float32(2), np.float32(1)
    numpy_ms = bench_json.best_ms(lambda: np.tanh(x * two + one) * x, reps)

    print(f"z = tanh(x * 2 + 1) * x, {N} float32; ratios measured in this run (numpy: {numpy_ms:.1f} ms)\n")
    print("| threads | expression ms | four ops ms | tanh alone ms | STREAM copy ms | vs ops | vs numpy "
          "| of STREAM copy's bandwidth |")
    print("|---|---|---|---|---|---|---|---|")
    for t in (1, 2):
        e, o = ms(f"BM_ChainExpression/{t}"), ms(f"BM_ChainOps/{t}")
        th, st = ms(f"BM_TanhOp/{t}"), ms(f"BM_StreamCopy/{t}")
        print(f"| {t} | {e:.1f} | {o:.1f} | {th:.1f} | {st:.1f} | {o / e:.1f}x | {numpy_ms / e:.1f}x | {st / e:.2f} |")

    # hard_swish three ways (docs/cpp-authoring.md, "One op, three ways").
    hs_numpy_ms = bench_json.best_ms(lambda: x * np.clip(x + np.float32(3), 0, 6) / np.float32(6), reps)
    print(f"\nhard_swish = x * relu6(x + 3) / 6, {N} float32 (numpy: {hs_numpy_ms:.1f} ms)\n")
    print("| threads | hand loop ms | four op calls ms | one expression ms | hard_swish op ms | STREAM copy ms |")
    print("|---|---|---|---|---|---|")
    for t in (1, 2):
        cells = [ms(f"BM_HardSwish{k}/{t}") for k in ("HandLoop", "OpCalls", "Expression", "Op")]
        print(f"| {t} | " + " | ".join(f"{c:.1f}" for c in cells) + f" | {ms(f'BM_StreamCopy/{t}'):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
