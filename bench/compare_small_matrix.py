#!/usr/bin/env python3
"""Runs bench/small_matrix_bench and prints the batched products of small
matrices (Note [Small matrices] in blas/small_gemm.h) beside their
references, measured in the same run:

  libops matmul on [2^20, S, S] x [2^20, S, S] float32, S = 2, 3, 4, 8,
  at 1 and 2 threads, against
    - OpenBLAS called once per matrix (cblas_sgemm, one thread),
    - numpy.matmul on the same shapes (numpy's own threads),
    - a STREAM-style copy at the same thread count, as the fraction of its
      bandwidth the product reaches for the bytes it moves (A and B read,
      C written).

  bench/compare_small_matrix.py build/cpu-release/small_matrix_bench [--repetitions N]

Each libops figure is the best repetition (bench_json.py); numpy's is the
best of as many.
"""
import sys

import numpy as np

import bench_json

BATCH = 1 << 20
SIZES = (2, 3, 4, 8)


def numpy_ms(s, repetitions):
    rng = np.random.default_rng(0)
    a = rng.random((BATCH, s, s), dtype=np.float32)
    b = rng.random((BATCH, s, s), dtype=np.float32)
    c = np.empty_like(a)
    return bench_json.best_ms(lambda: np.matmul(a, b, out=c), repetitions)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    rows, reps = bench_json.collect(sys.argv)

    def ms(name):
        return bench_json.ms(rows, name)

    def gbs(name):
        return bench_json.gbs(rows, name)

    print(f"batched matmul, {BATCH} float32 S x S matrices per operand; ratios measured in this run\n")
    print("| S | threads | libops ms | OpenBLAS per matrix ms | numpy.matmul ms | vs OpenBLAS | vs numpy "
          "| GB/s | of STREAM copy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in SIZES:
        numpy = numpy_ms(s, reps)
        blas = ms(f"BM_BlasPerMatrix/1/{s}")
        for threads in (1, 2):
            ours = ms(f"BM_MatmulBatched/{threads}/{s}")
            bw = gbs(f"BM_MatmulBatched/{threads}/{s}")
            stream = gbs(f"BM_StreamCopy/{threads}")
            print(f"| {s} | {threads} | {ours:.2f} | {blas:.1f} | {numpy:.2f} | {blas / ours:.1f}x | "
                  f"{numpy / ours:.1f}x | {bw:.1f} | {bw / stream:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
