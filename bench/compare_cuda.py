#!/usr/bin/env python3
"""Runs bench/cuda_bench.cpp's binary and prints each libops figure beside
its reference from the same run, the ratio and the goal.

  bench/compare_cuda.py build-cuda/cuda_bench [--repetitions N] [--median]

Figures (libops / reference, goal):
  add (legacy pairwise and the add op) and sum (legacy reduce_same), 256M
  float32, in bytes/s vs a device-to-device cudaMemcpyAsync of 256M float32
  (add counts 12 bytes per element, sum 4, the copy 8): >= 0.9;
  sgemm and hgemm 4096 through the matmul op vs cuBLAS called directly on the
  same buffers, in time: <= 1.03;
  the fft op on 2^14 signals of 1024 complex float32 vs cufftExecC2C called
  directly on the same buffers, in time: <= 1.05;
  a 100-node graph of 1-element adds on cuda:0, time per node: <= 5 us (also
  shown: (t(100) - t(1)) / 99, the per-node cost without the fixed cost of a
  run).

Bandwidth and GEMM figures are device times between CUDA events around each
call; graph figures are wall time of runs that each end with a device
synchronize (see the header of bench/cuda_bench.cpp).

Repetitions of all benchmarks are interleaved in random order and each figure
is the best repetition (highest bytes/s, lowest time); --median uses the
median repetition instead. Without a CUDA device the binary says so and runs
nothing; this script prints its message and exits with 0.
"""
import json
import sys

import bench_json

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds(b):
    return b["real_time"] * UNIT_SECONDS[b.get("time_unit", "ns")]


def run(binary, repetitions, median):
    """(rows by name, errors by name), or None and the binary's own message
    when it ran nothing (no device) or failed."""
    proc = bench_json.run(binary, repetitions)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return None, (proc.stdout + proc.stderr).strip(), proc.returncode
    return bench_json.figures(report, median), "", proc.returncode


def verdict(ok):
    return "met" if ok else "MISSED"


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    reps = bench_json.repetitions(sys.argv)
    result, message, rc = run(sys.argv[1], reps, "--median" in sys.argv)
    if result is None:
        print(message)
        return rc
    rows, errors = result
    for name, msg in sorted(errors.items()):
        print(f"{name}: error: {msg}")

    print(f"{'figure':36} {'libops':>12} {'reference':>12} {'ratio':>7}  goal")
    copy = rows.get("BM_CudaCopy")
    for label, name in (("add legacy", "BM_CudaAddLegacy"), ("add op", "BM_CudaAddOp"),
                        ("sum legacy", "BM_CudaSumLegacy")):
        b = rows.get(name)
        if not b or not copy:
            continue
        got, want = b["bytes_per_second"] / 1e9, copy["bytes_per_second"] / 1e9
        r = got / want
        print(f"{label + ' (GB/s vs D2D copy)':36} {got:12.1f} {want:12.1f} {r:7.3f}  >= 0.9 {verdict(r >= 0.9)}")

    for label, op, ref in (("sgemm 4096 (ms vs cuBLAS)", "BM_CudaSgemmMatmulOp", "BM_CudaSgemmCublasDirect"),
                           ("hgemm 4096 (ms vs cuBLAS)", "BM_CudaHgemmMatmulOp", "BM_CudaHgemmCublasDirect"),
                           ("fft 16K x 1024 c64 (ms vs cuFFT)", "BM_CudaFftOp", "BM_CudaCufftDirect")):
        a, d = rows.get(op), rows.get(ref)
        if not a or not d:
            continue
        ta, td = seconds(a) * 1e3, seconds(d) * 1e3
        r = ta / td
        goal = 1.05 if op == "BM_CudaFftOp" else 1.03
        print(f"{label:36} {ta:12.3f} {td:12.3f} {r:7.3f}  <= {goal} {verdict(r <= goal)}")

    g1, g100 = rows.get("BM_CudaGraphChain/1"), rows.get("BM_CudaGraphChain/100")
    if g100:
        per_node = seconds(g100) / 100 * 1e6
        print(f"{'graph 100 adds (us/node)':36} {per_node:12.2f} {5.0:12.2f} {per_node / 5.0:7.3f}  "
              f"<= 5 us {verdict(per_node <= 5.0)}")
        if g1:
            marginal = (seconds(g100) - seconds(g1)) / 99 * 1e6
            print(f"{'graph (t100 - t1) / 99 (us/node)':36} {marginal:12.2f} {5.0:12.2f} {marginal / 5.0:7.3f}")
            print(f"{'graph 1 add, whole run (us)':36} {seconds(g1) * 1e6:12.2f}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
