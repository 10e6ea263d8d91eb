"""Legacy ops by group and number (or name): libops.legacy("transform_strict",
"exp", x). The output is allocated by its group's rule (below); pass `out`
to give it yourself.

  transform_float   x's shape; x's dtype if float, else float32
  transform_same, transform_strict   x's shape and dtype
  transform_bool    x's shape, bool
  transform_any     x's shape; `dtype` (default x's)
  scalar*, pairwise*, broadcast*   x and y broadcast; bool for the *_bool groups, else x's dtype
  reduce_float, reduce3, summary_stats   reduced over `axes` (None: all); float
  reduce_same       reduced; x's dtype
  reduce_bool       reduced; bool
  reduce_long, index_reduce   reduced; int64
"""
import numpy as np

from . import _dtypes
from ._native import native

GROUPS = ("transform_float", "transform_same", "transform_strict", "transform_bool", "transform_any", "scalar",
          "scalar_bool", "scalar_int", "pairwise", "pairwise_bool", "pairwise_int", "broadcast", "broadcast_bool",
          "broadcast_int", "reduce_float", "reduce_same", "reduce_bool", "reduce_long", "reduce3", "index_reduce",
          "summary_stats")  # the ops_legacy_group_t values, in order (random: libops.ops' random ops)


def _float(d):
    return d if np.issubdtype(d, np.floating) or d.name == "bfloat16" else np.dtype(np.float32)


def _reduced(shape, axes, keep_dims):
    rank = len(shape)
    axes = range(rank) if axes is None or len(axes) == 0 else [a % rank for a in axes]
    return tuple(1 if k in axes else d for k, d in enumerate(shape)) if keep_dims else \
        tuple(d for k, d in enumerate(shape) if k not in axes)


def legacy(group, op, x, y=None, axes=None, extra=(), keep_dims=False, dtype=None, out=None):
    """Runs legacy op `op` (its number, or its name in the group) of `group`
    (a name of GROUPS or its number) on x (and y); returns the output."""
    g = GROUPS.index(group) if isinstance(group, str) and group in GROUPS else -1 if isinstance(group, str) else int(group)
    if not 0 <= g < len(GROUPS):
        raise ValueError(f"legacy: unknown group {group!r} (groups: {', '.join(GROUPS)})")
    name = GROUPS[g]
    num = native().legacy_find(g, op) if isinstance(op, str) else int(op)
    x = np.asarray(x)
    y = None if y is None else np.asarray(y)
    if out is not None:
        shape, code = tuple(out.shape), _dtypes.code_of(out.dtype)
    else:
        if name.startswith("transform"):
            shape = x.shape
            d = {"transform_float": _float(x.dtype), "transform_bool": np.dtype(bool),
                 "transform_any": np.dtype(dtype) if dtype is not None else x.dtype}.get(name, x.dtype)
        elif name.startswith(("scalar", "pairwise", "broadcast")):
            shape = np.broadcast_shapes(x.shape, y.shape) if y is not None else x.shape
            d = np.dtype(bool) if name.endswith("_bool") else x.dtype
        else:
            shape = _reduced(x.shape, axes, keep_dims)
            d = {"reduce_same": x.dtype, "reduce_bool": np.dtype(bool), "reduce_long": np.dtype(np.int64),
                 "index_reduce": np.dtype(np.int64)}.get(name, _float(x.dtype))
        code = _dtypes.code_of(d)
    xa, xc = _dtypes.to_native(x)
    ya, yc = (None, 0) if y is None else _dtypes.to_native(y)
    z = _dtypes.from_native(native().legacy(g, num, xa, xc, ya, yc, code, list(shape),
                                            [] if axes is None else [int(a) for a in axes],
                                            [float(v) for v in extra]))
    if out is not None:
        out[...] = z
        return out
    return z
