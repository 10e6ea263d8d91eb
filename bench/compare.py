#!/usr/bin/env python3
"""Runs a libops benchmark binary and prints each libops figure beside its
reference from the same run, as a ratio.

  bench/compare.py build/cpu-release/core_bench [--repetitions N] [--median]

Pairs (libops / reference): Add, Exp, Sum vs StreamTriad in bytes/s at the
same thread count (>= 0.9 is the goal); SgemmMatmulOp vs SgemmCblasDirect in
time (<= 1.03) and vs SgemmDnnlMatmul, oneDNN's matmul primitive (<= 1.05,
i.e. >= 0.95 of its speed); WeightsGemmPacked vs WeightsGemmBlas per shape
(the packed-weights GEMM against blas::gemm, in us); Conv3x3Winograd vs
Conv3x3DnnlDirect per layer (libops' Winograd kernel against oneDNN's direct
convolution, in us, with the filters' one-time transform beside); the C API
per-call time is printed in ns (goal <= 300).

Bytes are counted as STREAM does: what the kernel reads and writes, not the
extra read of each written cache line (write-allocate). The triad moves 16
bytes per 12 counted, a 1-read-1-write op (exp) 12 per 8, a read-only sum 4
per 4, so the triad ratio understates exp and overstates sum. The last
column therefore compares each op with a plain loop of its own access
pattern: Add vs StreamTriad, Exp vs StreamScale, Sum vs StreamRead.

Repetitions of all benchmarks are interleaved in random order, so a slow
spell on a shared machine does not fall on one benchmark only, and each
figure is the best repetition (highest bytes/s, lowest time), as STREAM
reports its best rate: contention only ever slows a run down. --median
uses the median repetition instead.
"""
import json
import sys

import bench_json


def run(binary, repetitions, median):
    """(rows, errors) as bench_json.figures gives them; a failing binary raises."""
    proc = bench_json.run(binary, repetitions)
    proc.check_returncode()
    return bench_json.figures(json.loads(proc.stdout), median)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    reps = bench_json.repetitions(sys.argv)
    rows, errors = run(sys.argv[1], reps, "--median" in sys.argv)
    for name, msg in sorted(errors.items()):
        print(f"{name}: error: {msg}")
    print(f"{'benchmark':32} {'libops':>14} {'reference':>14} {'ratio':>7}   {'same-pattern ref':>16} {'ratio':>7}")
    same_pattern = {"Add": "StreamTriad", "Exp": "StreamScale", "Sum": "StreamRead"}
    for threads in (1, 2):
        ref = rows.get(f"BM_StreamTriad/{threads}")
        for op in ("Add", "Exp", "Sum"):
            b = rows.get(f"BM_{op}/{threads}")
            if not b or not ref:
                continue
            got, want = b["bytes_per_second"] / 1e9, ref["bytes_per_second"] / 1e9
            line = f"{op + ' ' + str(threads) + 't (GB/s vs triad)':32} {got:14.2f} {want:14.2f} {got / want:7.3f}"
            own = rows.get(f"BM_{same_pattern[op]}/{threads}")
            if own:
                own_gbs = own["bytes_per_second"] / 1e9
                line += f"   {same_pattern[op] + f' {own_gbs:.2f}':>16} {got / own_gbs:7.3f}"
            print(line)
    for threads in (1, 2):
        a = rows.get(f"BM_SgemmMatmulOp/{threads}")
        for ref_name, label in (("SgemmCblasDirect", "cblas"), ("SgemmDnnlMatmul", "dnnl mm")):
            d = rows.get(f"BM_{ref_name}/{threads}")
            if a and d:
                print(f"{f'sgemm 1024 {threads}t (ms vs {label})':32} {a['real_time']:14.3f} "
                      f"{d['real_time']:14.3f} {a['real_time'] / d['real_time']:7.3f}")
    # Constant-weight GEMMs: the packed-weights GEMM against blas::gemm (what
    # the ops run without it), per shape m/n/k and thread count, in us.
    for name in sorted(rows):
        if not name.startswith("BM_WeightsGemmPacked/"):
            continue
        args = name.split("/", 1)[1]
        d = rows.get("BM_WeightsGemmBlas/" + args)
        if d:
            m, n, k, threads = args.split("/")[:4]
            label = f"{m}x{n}x{k} {threads}t (us vs gemm)"
            got, want = bench_json.ms(rows, name) * 1e3, bench_json.ms(rows, "BM_WeightsGemmBlas/" + args) * 1e3
            print(f"{label:32} {got:14.1f} {want:14.1f} {got / want:7.3f}")
    # 3x3 stride-1 convolutions in 8-lane channel blocks: libops' Winograd
    # kernel (4x4 and 2x2 tiles) against oneDNN's direct one, per layer
    # channels/side/batch and thread count, in us; and the filters'
    # transform a node pays once.
    for name in sorted(rows):
        if not name.startswith("BM_Conv3x3Winograd/"):
            continue
        c, side, batch, threads, tile = name.split("/")[1:6]
        direct = f"BM_Conv3x3DnnlDirect/{c}/{side}/{batch}/{threads}"
        if direct in rows:
            label = f"conv3x3 {c}c {side}x{side} b{batch} {threads}t F{tile} (us vs direct)"
            got, want = bench_json.ms(rows, name) * 1e3, bench_json.ms(rows, direct) * 1e3
            prepare = f"BM_Conv3x3WinogradPrepare/{c}/{side}/{batch}/{threads}/{tile}"
            extra = f"   transform {bench_json.ms(rows, prepare) * 1e3:.0f} us" if prepare in rows else ""
            print(f"{label:32} {got:14.1f} {want:14.1f} {got / want:7.3f}{extra}")
    c = rows.get("BM_CApiAddOneElement")
    if c:
        print(f"{'C API add, 1 element (ns/call)':32} {c['cpu_time']:14.1f} {'300 (goal)':>14}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
