"""libops dtype codes (ops_dtype_t, include/libops/c_types.h) and numpy.

numpy has no bfloat16: its arrays cross as uint16 bits, shown as
ml_dtypes.bfloat16 where ml_dtypes is installed (else as those uint16 bits).
"""
import numpy as np

try:
    import ml_dtypes as _ml
except ImportError:  # pragma: no cover - optional
    _ml = None

BFLOAT16 = 11
NAMES = {1: "bool", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "uint8", 7: "uint16", 8: "uint32",
         9: "uint64", 10: "float16", 11: "bfloat16", 12: "float32", 13: "float64"}
CODES = {name: code for code, name in NAMES.items()}
CODES["float"] = 12  # as ONNX and the C API say it
CODES["double"] = 13


def numpy_dtype(code):
    """The numpy dtype of a libops code; bfloat16 is ml_dtypes' (else uint16)."""
    if code == BFLOAT16:
        return np.dtype(_ml.bfloat16) if _ml is not None else np.dtype(np.uint16)
    name = NAMES.get(code)
    return np.dtype(name) if name else None


def code_of(dtype):
    """The libops code of a numpy dtype or a name ("float32", "float",
    "bfloat16"); ValueError when it has none."""
    if isinstance(dtype, str) and dtype in CODES:
        return CODES[dtype]
    d = np.dtype(dtype)
    code = CODES.get("bfloat16" if d.name == "bfloat16" else d.name)
    if code is None:
        raise ValueError(f"dtype {dtype!r} has no libops dtype (bool, int8-64, uint8-64, float16, bfloat16, "
                         f"float32, float64)")
    return code


# The dtypes the native module reads as they are: to_native's fast path.
_DIRECT = {np.dtype(n) for c, n in NAMES.items() if c != BFLOAT16}


def to_native(a):
    """(array the native module reads, dtype code override): bfloat16 as its
    uint16 bits; negative strides copied (libops views need none). The
    common case (an ndarray of a libops dtype) costs two lookups."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if a.dtype in _DIRECT:
        strides = a.strides
        if strides and min(strides) < 0:
            a = np.ascontiguousarray(a)
        return a, 0
    if a.dtype.name == "bfloat16":
        return to_native(a.view(np.uint16))[0], BFLOAT16
    raise ValueError(f"dtype {a.dtype} has no libops dtype (bool, int8-64, uint8-64, float16, bfloat16, float32, "
                     f"float64)")


def from_native(pair):
    """An (array, code) the native module returned, as the caller sees it."""
    array, code = pair
    if code == BFLOAT16 and _ml is not None:
        return array.view(_ml.bfloat16)
    return array

