"""Every registered op by name: ``libops.ops.softmax(x, axis=1)``.

Positional arguments are the op's input arrays; keyword arguments are its
args by name, as docs/ops.md lists them (an enumerated arg also takes its
value's name, a dtype arg a dtype or its name); ``t_args``, ``i_args``,
``b_args`` and ``d_args`` give them by position instead. An op with one
output returns an array, one with several a tuple. Ops of op libraries
loaded with libops.load_op_library appear here too.

    libops.ops.matmul(a, b, transpose_y=True)
    values, indices = libops.ops.top_k(x, k=3)
"""
from . import _dtypes
from . import signatures as _signatures
from ._native import native

_TABLE = None


def _table():
    """The loaded library's signatures (its registry, op libraries included)."""
    global _TABLE
    if _TABLE is None:
        _TABLE = _signatures.table_from_json(native().registry_json())
    return _TABLE


def _forget():
    """After an op library loads: read the registry again."""
    global _TABLE
    _TABLE = None


def call(op, *inputs, t_args=(), i_args=(), b_args=(), d_args=(), **kwargs):
    """Runs `op` on `inputs`; see the module's docstring."""
    lists = {"t": [float(v) for v in t_args], "i": [int(v) for v in i_args], "b": [bool(v) for v in b_args],
             "d": [_dtypes.code_of(d) for d in d_args]}
    table = _table()
    _signatures.resolve(op, kwargs, lists, _dtypes.code_of, table)
    _signatures.check_call(op, len(inputs), 1, table)
    arrays, codes = [], []
    for x in inputs:
        a, code = _dtypes.to_native(x)
        arrays.append(a)
        codes.append(code)
    outs = native().op_call(op, arrays, codes, lists["t"], lists["i"], lists["b"], lists["d"])
    outs = [_dtypes.from_native(p) for p in outs]
    return outs[0] if len(outs) == 1 else tuple(outs)


def _make(op):
    def fn(*inputs, **kwargs):
        return call(op, *inputs, **kwargs)
    fn.__name__ = op
    sig = _table().get(op, {})
    ins = ", ".join(i["name"] + ("..." if i["variadic"] else "?" if i["optional"] else "") for i in sig.get("inputs", []))
    args = ", ".join(f"{a['name']}={a['default']!r}" if not a["required"] else a["name"] for a in sig.get("args", []))
    fn.__doc__ = f"{op}({ins}{'; ' + args if args else ''}): libops' op of that name (docs/ops.md)."
    return fn


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name not in _table():
        raise AttributeError(f"libops.ops has no op named {name!r}")
    return _make(name)


def __dir__():
    return sorted(k for k in _table() if k.isidentifier())


__all__ = ["call"]
