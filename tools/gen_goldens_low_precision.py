#!/usr/bin/env python3
"""Generate the goldens of cast_low_precision (libops/ops/arith/
cast_low_precision.cpp) under tests_cpu/golden/low_precision/.

Run from anywhere:  python3 tools/gen_goldens_low_precision.py
Expected values come from ONNX's reference implementation of Cast (numpy
and ml_dtypes), and the float8 and float4 encodings are checked against
ml_dtypes' own conversions here, so two independent implementations agree
before a golden is written. libops holds a low-precision element in a byte:
the float formats' bit patterns as uint8, int4 and int2 as int8, uint4 and
uint2 as uint8 (low_precision.h).
"""
import ml_dtypes
import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from golden_manifest import Manifest

M = Manifest("low_precision")

# libops' LowPrecision code -> (name, ONNX type, ml_dtypes type)
FORMATS = {
    1: ("e4m3fn", TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
    2: ("e4m3fnuz", TensorProto.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz),
    3: ("e5m2", TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2),
    4: ("e5m2fnuz", TensorProto.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz),
    5: ("e8m0", TensorProto.FLOAT8E8M0, ml_dtypes.float8_e8m0fnu),
    6: ("e2m1", TensorProto.FLOAT4E2M1, ml_dtypes.float4_e2m1fn),
    7: ("int4", TensorProto.INT4, ml_dtypes.int4),
    8: ("uint4", TensorProto.UINT4, ml_dtypes.uint4),
    9: ("int2", TensorProto.INT2, ml_dtypes.int2),
    10: ("uint2", TensorProto.UINT2, ml_dtypes.uint2),
}
FLOATS = {1, 2, 3, 4, 5, 6}
NP_TO_ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
              np.dtype(np.int32): TensorProto.INT32, np.dtype(np.float64): TensorProto.DOUBLE}


def as_bytes(fmt, a):
    if fmt in FLOATS:
        return np.asarray(a).view(np.uint8)
    return np.asarray(a).astype(np.int8 if fmt in (7, 9) else np.uint8)


def onnx_cast(x, to, saturate=1, round_mode="up"):
    """ONNX's reference Cast of x (numpy or ml_dtypes array) to type `to`."""
    src = NP_TO_ONNX.get(x.dtype) or next(t for _, t, d in FORMATS.values() if np.dtype(d) == x.dtype)
    attrs = {"to": to}
    if to in (TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2,
              TensorProto.FLOAT8E5M2FNUZ, TensorProto.FLOAT8E8M0):
        attrs["saturate"] = saturate
    if to == TensorProto.FLOAT8E8M0:
        attrs["round_mode"] = round_mode
    node = helper.make_node("Cast", ["x"], ["y"], **attrs)
    g = helper.make_graph([node], "cast", [helper.make_tensor_value_info("x", src, list(x.shape))],
                          [helper.make_tensor_value_info("y", to, list(x.shape))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 25)])
    m.ir_version = 11
    return ReferenceEvaluator(m).run(None, {"x": x})[0]


# Every kind of value: zeros of both signs, ties between two neighbours,
# subnormals, the largest finite of each format and just past it, the
# infinities and NaN.
X = np.array([0.0, -0.0, 1.0, -1.5, 0.3, 3.25, -7.0, 1e-3, 0.0009765625, 2.0 ** -17, 2.0 ** -18, 448.0, 464.0,
              480.0, -500.0, 240.0, 248.0, 57344.0, 61440.0, 1e6, 6.0, 6.5, -7.0, 0.25, 0.75, 2.5, 3.5, -2.5,
              np.inf, -np.inf, np.nan, 1.17549435e-38, 3.0e38, 5.5, -8.5, 7.5, 15.4, -100.0], np.float32).reshape(2, 19)
SAT_NAMES = {1: "sat", 0: "nosat"}


def encodes():
    for fmt in (1, 2, 3, 4):
        name, onnx_t, mld = FORMATS[fmt]
        for sat in (1, 0):
            want = onnx_cast(X, onnx_t, saturate=sat)
            # ml_dtypes converts without saturating; clip first to saturate.
            check = (np.clip(X, -float(ml_dtypes.finfo(mld).max), float(ml_dtypes.finfo(mld).max)) if sat else X).astype(mld)
            assert np.array_equal(as_bytes(fmt, want), as_bytes(fmt, check)), (name, sat)
            M.case("cast_low_precision", f"f32_to_{name}_{SAT_NAMES[sat]}", [X], [as_bytes(fmt, want)],
                   i=[0, fmt, 0], b=[sat], d="uint8")
    # float4 E2M1 always saturates.
    want = onnx_cast(X, TensorProto.FLOAT4E2M1)
    finite = np.clip(X, -6.0, 6.0).astype(ml_dtypes.float4_e2m1fn)
    keep = ~np.isnan(X)  # ml_dtypes' float4 has no NaN; ONNX's NaN is 0b0111 of the sign
    assert np.array_equal(as_bytes(6, want)[keep], as_bytes(6, finite)[keep])
    M.case("cast_low_precision", "f32_to_e2m1", [X], [as_bytes(6, want)], i=[0, 6, 0], d="uint8")
    # float8 E8M0: a power of two, rounded up, down or to the nearest.
    pos = np.abs(X[np.isfinite(X) & (X != 0)]).astype(np.float32)  # 1-D
    for code, mode in ((0, "up"), (1, "down"), (2, "nearest")):
        want = onnx_cast(pos, TensorProto.FLOAT8E8M0, saturate=1, round_mode=mode)
        M.case("cast_low_precision", f"f32_to_e8m0_{mode}", [pos], [as_bytes(5, want)], i=[0, 5, code],
               b=[1], d="uint8")
    # The integers: floats rounded to nearest even and saturated; integers
    # wrapped to the low bits.
    ints = np.array([-9, -8, -3, -2, -1, 0, 1, 2, 3, 7, 8, 15, 16, 17, 100, -100], np.int32)
    finite = X[np.isfinite(X)]
    for fmt in (7, 8, 9, 10):
        name, onnx_t, _ = FORMATS[fmt]
        d = "int8" if fmt in (7, 9) else "uint8"
        M.case("cast_low_precision", f"f32_to_{name}", [finite], [as_bytes(fmt, onnx_cast(finite, onnx_t))],
               i=[0, fmt, 0], d=d)
        M.case("cast_low_precision", f"i32_to_{name}", [ints], [as_bytes(fmt, onnx_cast(ints, onnx_t))],
               i=[0, fmt, 0], d=d)


def decodes():
    # Every code of each format, to float32 (float16 for e5m2).
    for fmt, (name, _, mld) in FORMATS.items():
        if fmt in (1, 2, 3, 4, 5):
            codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
        elif fmt == 6:
            codes = np.arange(16, dtype=np.uint8)
        else:
            lo, hi = int(ml_dtypes.iinfo(mld).min), int(ml_dtypes.iinfo(mld).max)
            codes = np.arange(lo, hi + 1).astype(np.int8 if fmt in (7, 9) else np.uint8)
        values = codes.view(mld) if fmt in FLOATS else codes.astype(mld)
        want = onnx_cast(values, TensorProto.FLOAT)
        if fmt != 5:  # ml_dtypes agrees on every code (e8m0's NaN code aside, checked by ONNX alone)
            assert np.array_equal(want, values.astype(np.float32), equal_nan=True), name
        M.case("cast_low_precision", f"{name}_to_f32", [codes], [want.astype(np.float32)], i=[fmt, 0, 0],
               d="float32")
    codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
    M.case("cast_low_precision", "e5m2_to_f16", [codes],
           [onnx_cast(codes.view(ml_dtypes.float8_e5m2), TensorProto.FLOAT16)], i=[3, 0, 0], d="float16")
    # Between two formats: E4M3FN's every code to E5M2, saturating.
    codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
    want = onnx_cast(codes.view(ml_dtypes.float8_e4m3fn), TensorProto.FLOAT8E5M2, saturate=1)
    M.case("cast_low_precision", "e4m3fn_to_e5m2", [codes], [as_bytes(3, want)], i=[1, 3, 0], b=[1], d="uint8")


if __name__ == "__main__":
    encodes()
    decodes()
    M.write("tools/gen_goldens_low_precision.py")
