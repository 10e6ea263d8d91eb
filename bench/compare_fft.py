#!/usr/bin/env python3
"""Runs bench/fft_bench (libops's fft and rfft ops, one thread) and times
numpy.fft on the same shapes in the same run, printing both and their ratio.

  bench/compare_fft.py build/cpu-release/fft_bench [--repetitions N]

numpy's FFT is pocketfft (C++, single-threaded), the FFT PyTorch's CPU
backend also uses. The ratio is libops time / numpy time: below 1 is faster.
Each figure is the best repetition, as in bench/compare.py.
"""
import json
import sys
import timeit

import numpy as np

import bench_json

VALUES = 1 << 18


def numpy_time(op, dtype, n, repetitions):
    """Best time in ms of one numpy call on the benchmark's shape."""
    batch = VALUES // n
    x = np.sin(0.37 * np.arange(batch * n * 2)).reshape(batch, n, 2)
    if op == "Fft":
        c = (x[..., 0] + 1j * x[..., 1]).astype(np.complex64 if dtype == "Float32" else np.complex128)
        call = lambda: np.fft.fft(c, axis=-1)  # noqa: E731
    else:
        r = x[..., 0].astype(np.float32 if dtype == "Float32" else np.float64)
        call = lambda: np.fft.rfft(r, axis=-1)  # noqa: E731
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
    print(f"{'benchmark':26} {'libops ms':>10} {'numpy ms':>10} {'ratio':>7}")
    for name, row in sorted(rows.items()):
        kind, n = name[len("BM_"):].split("/")
        op = "Rfft" if kind.startswith("Rfft") else "Fft"
        dtype = kind[len(op):]
        ours = row["real_time"] if row["time_unit"] == "ms" else row["real_time"] / 1e6
        theirs = numpy_time(op, dtype, int(n), reps)
        print(f"{name:26} {ours:10.3f} {theirs:10.3f} {ours / theirs:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
