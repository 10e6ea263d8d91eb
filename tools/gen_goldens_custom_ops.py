#!/usr/bin/env python3
"""Generate the numpy goldens for the custom-op tests (matmul, reductions,
softmax, gather) under tests_cpu/golden/custom_ops/.

Run from anywhere:  python3 tools/gen_goldens_custom_ops.py
Each case writes <op>_<case>_<role>.npy files: the inputs (x, y, indices)
and the expected output (z). Values come from a fixed seed, so the files
only change when this script does.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "golden", "custom_ops")
rng = np.random.default_rng(20240611)


def save(name, array):
    np.save(os.path.join(OUT, name + ".npy"), np.array(array, order="C"))


def uniform(shape, dtype, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def matmul_cases():
    f32 = np.float32
    cases = {
        "2d": (uniform((3, 4), f32), uniform((4, 5), f32)),
        "batched": (uniform((2, 3, 4), f32), uniform((4, 5), f32)),
        "bcast": (uniform((1, 3, 4), f32), uniform((2, 4, 5), f32)),
        "bcast4d": (uniform((2, 1, 3, 4), f32), uniform((1, 3, 4, 2), f32)),
        "vecmat": (uniform((4,), f32), uniform((4, 5), f32)),
        "matvec": (uniform((3, 4), f32), uniform((4,), f32)),
        "dot": (uniform((6,), f32), uniform((6,), f32)),
        "vec_batched": (uniform((4,), f32), uniform((2, 4, 3), f32)),
        "f64": (uniform((5, 7), np.float64), uniform((7, 3), np.float64)),
        "f16": (uniform((4, 6), np.float16), uniform((6, 3), np.float16)),
        # Products near 2^31 and beyond: numpy wraps in int32.
        "i32": (rng.integers(-70000, 70000, size=(3, 4)).astype(np.int32),
                rng.integers(-70000, 70000, size=(4, 2)).astype(np.int32)),
        # Mixed dtypes: libops multiplies int32 @ float32 in float32 (Note
        # [Type promotion]) where numpy would use float64, so the golden
        # casts x to float32 first.
        "mixed": (rng.integers(-5, 6, size=(2, 3)).astype(np.int32),
                  uniform((3, 2), f32)),
    }
    for name, (x, y) in cases.items():
        if name == "mixed":
            z = (x.astype(np.float32) @ y).astype(np.float32)
        else:
            with np.errstate(over="ignore"):
                z = np.matmul(x, y)
        save(f"matmul_{name}_x", x)
        save(f"matmul_{name}_y", y)
        save(f"matmul_{name}_z", np.asarray(z))


def reduce_cases():
    x = uniform((2, 3, 4), np.float32, -5.0, 5.0)
    save("reduce_x", x)
    for axes, keep in [((1,), False), ((0, 2), False), ((), False), ((0, 2), True), ((-1,), True)]:
        tag = "_".join(str(a) for a in axes) if axes else "all"
        tag += "_keep" if keep else ""
        ax = axes if axes else None
        save(f"reduce_sum_{tag}_z", np.sum(x, axis=ax, keepdims=keep, dtype=np.float64).astype(np.float32))
        save(f"reduce_mean_{tag}_z", np.mean(x, axis=ax, keepdims=keep, dtype=np.float64).astype(np.float32))
        save(f"reduce_max_{tag}_z", np.max(x, axis=ax, keepdims=keep))
    xi = rng.integers(-100, 100, size=(3, 4)).astype(np.int32)
    save("reduce_int_x", xi)
    save("reduce_mean_int_1_z", np.mean(xi, axis=1).astype(np.float32))


def softmax_ref(x, axis):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - np.max(x64, axis=axis, keepdims=True))
    return (e / np.sum(e, axis=axis, keepdims=True)).astype(x.dtype)


def softmax_cases():
    x = uniform((3, 5), np.float32, -3.0, 3.0)
    x[2] += 1000.0  # exp(1000) overflows; the max shift must avoid it
    save("softmax_x", x)
    save("softmax_last_z", softmax_ref(x, -1))
    save("softmax_axis0_z", softmax_ref(x, 0))
    x3 = uniform((2, 3, 4), np.float64, -4.0, 4.0)
    save("softmax_3d_x", x3)
    save("softmax_3d_axis1_z", softmax_ref(x3, 1))


def gather_cases():
    x = uniform((3, 4, 2), np.float32)
    save("gather_x", x)
    idx = np.array([[2, 0], [-1, 1], [3, -4]], dtype=np.int64)
    save("gather_axis1_indices", idx)
    save("gather_axis1_z", np.take(x, idx, axis=1))
    idx0 = np.array([1, -3, 2, 1], dtype=np.int32)
    save("gather_axis0_indices", idx0)
    save("gather_axis0_z", np.take(x, idx0, axis=0))


def small_matmul_cases():
    """Batches of small matrices (Note [Small matrices]: every extent <= 8
    runs libops' Matrix kernels, not BLAS), with their own generator so the
    goldens above keep their values. x and y are stored as multiplied;
    the `_t` cases store x or y transposed in the last two dims, for the
    transpose flags."""
    r = np.random.default_rng(37)

    def u(shape, dtype=np.float32):
        return r.uniform(-2.0, 2.0, size=shape).astype(dtype)

    cases = {
        "small4": (u((64, 4, 4)), u((64, 4, 4))),
        "small3_bcast": (u((5, 1, 3, 3)), u((1, 6, 3, 3))),
        "small2_f64": (u((9, 2, 2), np.float64), u((9, 2, 2), np.float64)),
        "small_points": (u((50, 4, 4)), u((50, 4, 1))),   # a transform per point
        "small_rect_f64": (u((7, 7, 5), np.float64), u((7, 5, 8), np.float64)),  # the 8x8x8 kernel
        "small_shared": (u((100, 3, 3)), u((3, 3))),      # one y for every entry
    }
    for name, (x, y) in cases.items():
        save(f"matmul_{name}_x", x)
        save(f"matmul_{name}_y", y)
        save(f"matmul_{name}_z", np.matmul(x, y))
    # Transpose flags: x and y stored transposed, z the product of the untransposed.
    x, y = u((33, 4, 3)), u((33, 2, 4))
    save("matmul_small_t_x", x)
    save("matmul_small_t_y", y)
    save("matmul_small_t_z", np.matmul(np.swapaxes(x, 1, 2), np.swapaxes(y, 1, 2)))


def main():
    os.makedirs(OUT, exist_ok=True)
    matmul_cases()
    reduce_cases()
    softmax_cases()
    gather_cases()
    small_matmul_cases()


if __name__ == "__main__":
    main()
