#!/usr/bin/env python3
"""Generate the .npy golden files read by tests_cpu/graph/npy_test.cpp.

Run from anywhere:  python3 tools/gen_npy_goldens.py
It rewrites tests_cpu/graph/golden/*.npy. The expected values are written
out by hand in npy_test.cpp too, so keep the two in sync when editing.
"""
import os

import ml_dtypes
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "tests_cpu", "graph", "golden")

# One 1-d file per dtype, little-endian unless the descr says otherwise.
# Values are non-uniform and reach the ends of each integer range.
DTYPE_FILES = {
    "bool.npy": np.array([True, False, False, True, True], dtype="|b1"),
    "int8.npy": np.array([-128, -1, 0, 7, 127], dtype="|i1"),
    "int16_be.npy": np.array([-32768, -2, 0, 300, 32767], dtype=">i2"),
    "int32.npy": np.array([-2147483648, -3, 0, 70000, 2147483647], dtype="<i4"),
    "int64.npy": np.array([-(2**63), -4, 0, 2**40 + 5, 2**63 - 1], dtype="<i8"),
    "uint8.npy": np.array([0, 1, 128, 200, 255], dtype="|u1"),
    "uint16.npy": np.array([0, 1, 256, 40000, 65535], dtype="<u2"),
    "uint32.npy": np.array([0, 1, 65536, 3000000000, 4294967295], dtype="<u4"),
    "uint64_be.npy": np.array([0, 1, 2**32, 2**63 + 9, 2**64 - 1], dtype=">u8"),
    "float16.npy": np.array([1.0, -2.0, 0.5, 65504.0, -0.0], dtype="<f2"),
    "float32.npy": np.array([1.5, -2.25, 0.0, 1e10, -3.0e-5], dtype="<f4"),
    "float64_be.npy": np.array([1.0, -2.5, 3.141592653589793, 1e300, -0.125],
                               dtype=">f8"),
    # numpy saves ml_dtypes' bfloat16 as '<V2' records.
    "bfloat16.npy": np.array([1.0, -2.0, 0.5, 3.3895313892515355e38, -0.0], dtype=ml_dtypes.bfloat16),
}


def save(name, array, version=None):
    path = os.path.join(OUT, name)
    if version is None:
        np.save(path, array, allow_pickle=array.dtype == object)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, array, version=version)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, array in DTYPE_FILES.items():
        save(name, array)

    # 2-d C order: [[1.5, -2.25, 3], [0, -0.5, 10]].
    save("float32_2x3.npy",
         np.array([[1.5, -2.25, 3.0], [0.0, -0.5, 10.0]], dtype="<f4"))
    # Fortran order: the file stores columns, i.e. 1 4 2 5 3 6.
    save("int32_fortran_2x3.npy",
         np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], dtype="<i4")))
    # Big-endian and 2-d at once: [[1, -2], [3, 1000]].
    save("int16_be_2x2.npy", np.array([[1, -2], [3, 1000]], dtype=">i2"))
    save("scalar_float64.npy", np.array(2.5, dtype="<f8"))
    save("empty_float32_0x3.npy", np.zeros((0, 3), dtype="<f4"))
    # Explicit versions 2.0 and 3.0 (numpy would pick 1.0 for these).
    save("int64_v2.npy", np.array([[7, -8, 9], [-10, 11, 12]], dtype="<i8"),
         version=(2, 0))
    save("uint16_v3.npy", np.array([3, 1, 4, 1, 5], dtype="<u2"),
         version=(3, 0))

    # Files the reader must refuse.
    save("object.npy", np.array([1, "a", None], dtype=object))
    save("structured.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")]))
    save("unicode.npy", np.array(["ab", "cde"], dtype="<U3"))


if __name__ == "__main__":
    main()
