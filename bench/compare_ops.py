#!/usr/bin/env python3
"""Runs bench/ops_bench and prints each general op beside its reference,
measured in the same run:

  gather / scatter_nd / slice / pad   GB/s as a fraction of StreamCopy's
  argmax / cumsum                     GB/s as a fraction of the add op's
                                      (argmax also of reduce_sum's, the
                                      same read-only stream)
  gelu / layer_norm                   GB/s as a fraction of the add op's
                                      (the STREAM triad's pattern) and of
                                      StreamCopy's
  sort / argsort / qr / svd           time against numpy.sort / argsort
                                      (16M float32; sort also as float64
                                      and int32) and numpy.linalg.qr / svd
                                      on the same data

  bench/compare_ops.py build/cpu-release/ops_bench [--repetitions N]

Each libops figure is the best repetition (bench_json.py); numpy's is the
best of as many. numpy.sort is single-threaded, so sort is set beside it at
1 thread and at 2; numpy.linalg runs on OpenBLAS with its own threads.
"""
import json
import sys
import timeit

import numpy as np

import bench_json

N = 16 * 1024 * 1024
MATRIX = 512


def numpy_ms(call, repetitions):
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repetitions, number=number)) / number * 1e3


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    reps = bench_json.repetitions(sys.argv)
    proc = bench_json.run(sys.argv[1], reps)
    proc.check_returncode()
    rows, errors = bench_json.figures(json.loads(proc.stdout), False)
    for name, msg in sorted(errors.items()):
        print(f"{name}: error: {msg}")

    def gbs(name):
        return bench_json.gbs(rows, name)

    def ms(name):
        return bench_json.ms(rows, name)

    print(f"{'op':14} {'threads':>7} {'GB/s':>7} {'reference':>14} {'ref GB/s':>8} {'ratio':>6}")
    for threads in (1, 2):
        for op, ref in (("GatherRows", "StreamCopy"), ("ScatterNdRows", "StreamCopy"), ("Slice", "StreamCopy"),
                        ("Pad", "StreamCopy"), ("Argmax", "Add"), ("Argmax", "Sum"), ("Cumsum", "Add"),
                        ("Gelu", "Add"), ("Gelu", "StreamCopy"), ("LayerNorm", "Add"), ("LayerNorm", "StreamCopy")):
            mine, theirs = gbs(f"BM_{op}/{threads}"), gbs(f"BM_{ref}/{threads}")
            print(f"{op:14} {threads:7d} {mine:7.2f} {ref:>14} {theirs:8.2f} {mine / theirs:6.2f}")

    rng = np.random.default_rng(7)
    x = np.sin(0.001 * (np.arange(N) % 100003)).astype(np.float32)
    rng.shuffle(x)
    a = rng.uniform(-1, 1, (MATRIX, MATRIX))
    x64 = x.astype(np.float64)
    i32 = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)  # as BM_SortI32: the whole range
    reference = {
        "Sort": numpy_ms(lambda: np.sort(x), reps),
        "SortStable": numpy_ms(lambda: np.sort(x, kind="stable"), reps),
        "Argsort": numpy_ms(lambda: np.argsort(x), reps),
        "SortF64": numpy_ms(lambda: np.sort(x64), reps),
        "SortI32": numpy_ms(lambda: np.sort(i32), reps),
        "Qr512": numpy_ms(lambda: np.linalg.qr(a), reps),
        "Svd512": numpy_ms(lambda: np.linalg.svd(a), reps),
    }
    names = {"Sort": "numpy.sort", "SortStable": "numpy.sort stable", "Argsort": "numpy.argsort",
             "SortF64": "numpy.sort float64", "SortI32": "numpy.sort int32", "Qr512": "numpy.linalg.qr",
             "Svd512": "numpy.linalg.svd"}
    print()
    print(f"{'op':14} {'threads':>7} {'libops ms':>10} {'reference':>20} {'ref ms':>8} {'ratio':>6}")
    for op in ("Sort", "SortStable", "Argsort", "SortF64", "SortI32", "Qr512", "Svd512"):
        for threads in (1, 2):
            mine = ms(f"BM_{op.replace('Stable', '')}/{threads}")
            print(f"{op:14} {threads:7d} {mine:10.1f} {names[op]:>20} {reference[op]:8.1f} "
                  f"{mine / reference[op]:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
