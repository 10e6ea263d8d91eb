#!/usr/bin/env python3
"""Generate the numpy goldens for the Fourier-transform op tests (fft, ifft,
rfft, irfft) under tests_cpu/golden/signal/.

Run from anywhere:  python3 tools/gen_goldens_fft.py
Each case writes <op>_<case>_x.npy (the input) and <op>_<case>_z.npy (the
expected output), plus <op>_<case>_args.npy: the op's i args (axes; for
irfft the output length first, 0 for numpy's default). Complex arrays are
stored as libops takes them: float arrays with a last dim of 2 (real,
imaginary). Expected values come from numpy.fft in float64 and are then
rounded to the case's dtype. Values come from fixed seeds, so the files only
change when this script does.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "signal")


def save(name, array):
    np.save(os.path.join(OUT, name + ".npy"), np.array(array, order="C"))


def as_pairs(c, dtype):
    return np.stack([c.real, c.imag], axis=-1).astype(dtype)


def complex_input(rng, shape):
    return rng.uniform(-1.0, 1.0, size=shape) + 1j * rng.uniform(-1.0, 1.0, size=shape)


def write(op, case, x, z, args):
    save(f"{op}_{case}_x", x)
    save(f"{op}_{case}_z", z)
    save(f"{op}_{case}_args", np.array(args, dtype=np.int64))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(8101)
    # fft / ifft: name -> (shape, dtype, axes); axes None is the op's default
    # (the last signal dim).
    complex_cases = {
        "last_f64": ((3, 8), np.float64, None),
        "radix_mix_f64": ((2, 60), np.float64, None),     # 4 * 3 * 5
        "prime_f64": ((2, 37), np.float64, None),         # Bluestein
        "direct_prime_f64": ((1, 49), np.float64, None),  # 7 * 7
        "middle_axis_f64": ((2, 7, 3), np.float64, [1]),
        "two_axes_f32": ((4, 6, 5), np.float32, [0, 2]),
        "negative_axis_f32": ((3, 10), np.float32, [-2]),
        "all_axes_f64": ((3, 4, 5), np.float64, [2, 0, 1]),
    }
    for case, (shape, dtype, axes) in complex_cases.items():
        c = complex_input(rng, shape).astype(np.complex64 if dtype == np.float32 else np.complex128)
        c = c.astype(np.complex128)
        np_axes = axes if axes is not None else [-1]
        write("fft", case, as_pairs(c, dtype), as_pairs(np.fft.fftn(c, axes=np_axes), dtype), axes or [])
        write("ifft", case, as_pairs(c, dtype), as_pairs(np.fft.ifftn(c, axes=np_axes), dtype), axes or [])

    # rfft: name -> (shape, dtype, axes)
    real_cases = {
        "even_f64": ((3, 10), np.float64, None),
        "odd_f64": ((2, 9), np.float64, None),
        "prime_f32": ((2, 41), np.float32, None),
        "middle_axis_f64": ((2, 6, 3), np.float64, [1]),
        "two_axes_f32": ((6, 5, 4), np.float32, [1, 0]),  # the real axis is 0
    }
    for case, (shape, dtype, axes) in real_cases.items():
        x = rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
        np_axes = axes if axes is not None else [-1]
        z = np.fft.rfftn(x.astype(np.float64), axes=np_axes)
        write("rfft", case, x, as_pairs(z, dtype), axes or [])

    # irfft: name -> (complex shape, dtype, length, axes); length 0 is
    # 2 * (bins - 1). Inputs are arbitrary complex bins, not only spectra of
    # real signals: the imaginary parts of bin 0 and bin n/2 must be ignored.
    inverse_cases = {
        "default_f64": ((3, 6), np.float64, 0, None),
        "odd_length_f64": ((2, 5), np.float64, 9, None),
        "padded_f64": ((2, 5), np.float64, 16, None),
        "cropped_f64": ((2, 6), np.float64, 4, None),
        "middle_axis_f32": ((2, 4, 3), np.float32, 0, [1]),
        "two_axes_f64": ((4, 3, 5), np.float64, 0, [2, 0]),  # the real axis is 0
    }
    for case, (shape, dtype, length, axes) in inverse_cases.items():
        c = complex_input(rng, shape)
        c = as_pairs(c, dtype).astype(np.float64)
        c = c[..., 0] + 1j * c[..., 1]
        np_axes = axes if axes is not None else [-1]
        s = None
        if length:
            s = [c.shape[a] for a in np_axes[:-1]] + [length]
        z = np.fft.irfftn(c, s=s, axes=np_axes)
        write("irfft", case, as_pairs(c, dtype), z.astype(dtype), [length] + (axes or []))


if __name__ == "__main__":
    main()
