"""InferenceSession: load a model (.onnx or .lops), run it on numpy arrays.

    sess = libops.InferenceSession("model.onnx", threads=2)
    [y] = sess.run({"x": x})                  # outputs in graph order
    probs = sess.run({"x": x}, outputs=["probs"])[0]
    sess.inputs   # [ValueInfo(name='x', dtype=dtype('float32'), shape=('N', 3, 224, 224))]

A sequence input or output (an ONNX model's seq(tensor)) is a Python list of
arrays; an optional one an array (or a list), or None when empty
(sess.input_kinds / output_kinds: "tensor", "sequence", "optional tensor",
"optional sequence").

Inputs are read where they are (no copy) when their dtype is a libops dtype
and their strides are non-negative; outputs are numpy arrays over the
engine's memory (no copy), which the arrays keep alive; an output that would
view an input's memory (an identity graph) is copied instead, as the engine
does not own the caller's array. Runs release the
GIL, and one session may be run from many threads at once (Note [Sessions
from many threads] in python/src/libops_ext.cpp).
"""
import os
from collections import namedtuple

from . import _dtypes
from ._native import native
from .graph import VALUE_KINDS

ValueInfo = namedtuple("ValueInfo", "name dtype shape")
ValueInfo.__doc__ = """A graph input or output: its name, numpy dtype (None
when known only at run time) and shape (None when the rank is not known;
each extent an int, the symbolic name of an ONNX dim_param, or None)."""


def _infos(raw):
    out = []
    for name, code, shape, dim_names in raw:
        if shape is not None:
            shape = tuple(dim_names[k] if (d < 0 and k < len(dim_names) and dim_names[k]) else (None if d < 0 else d)
                          for k, d in enumerate(shape))
        out.append(ValueInfo(name, _dtypes.numpy_dtype(code) if code else None, shape))
    return out


class InferenceSession:
    """A loaded model and the settings its runs use.

    model: a path (.onnx or .lops; ONNX files are converted when loaded) or
    the bytes of a .lops file (ONNX bytes: convert them with
    libops.convert_onnx on a path first). threads: kernel threads for this
    session's runs (0: the process's count, libops.set_num_threads). device:
    "cpu", "cuda" or "cuda:N". profiling: keep the last run's per-node table
    (profile())."""

    def __init__(self, model, threads=0, device="cpu", profiling=False):
        nat = native()
        if isinstance(model, (bytes, bytearray, memoryview)):
            self._graph = nat.Graph.from_bytes(bytes(model))
        else:
            self._graph = nat.Graph.from_file(os.fspath(model))
        if threads < 0:
            raise ValueError(f"threads is {threads}; 0 or more")
        self._session = nat.Session(self._graph, int(threads), "" if device == "cpu" else device, bool(profiling))
        self.inputs = _infos(self._graph.values(True))
        self.outputs = _infos(self._graph.values(False))
        self._output_index = {o.name: k for k, o in enumerate(self.outputs)}
        self.input_kinds = [VALUE_KINDS[k] for k in self._graph.kinds(True)]
        self.output_kinds = [VALUE_KINDS[k] for k in self._graph.kinds(False)]
        self._lists = any(k != "tensor" for k in self.input_kinds + self.output_kinds)
        self._input_kind = {i.name: k for i, k in zip(self.inputs, self.input_kinds)}

    def run(self, feeds, outputs=None):
        """Runs the model on `feeds` ({input name: array}); returns the
        outputs as a list, in graph order, or those named in `outputs`."""
        fast = self._session.run_dict(feeds) if type(feeds) is dict and not self._lists else None
        if self._lists:
            result = self._run_values(feeds)
        elif fast is not None:  # Note [Run fast path] in python/src/libops_ext.cpp
            result, bfloat16 = fast
            if bfloat16:
                result = [_dtypes.from_native((r, _dtypes.BFLOAT16)) if bfloat16 >> k & 1 else r
                          for k, r in enumerate(result)]
        else:
            result = self._run_general(feeds)
        if outputs is None:
            return result
        try:
            return [result[self._output_index[n]] for n in outputs]
        except KeyError as e:
            raise KeyError(f"no output named {e.args[0]!r} (outputs: {', '.join(self._output_index)})") from None

    def _run_general(self, feeds):
        names, arrays, codes = [], [], []
        for name, value in feeds.items():
            a, code = _dtypes.to_native(value)
            names.append(name)
            arrays.append(a)
            codes.append(code)
        return [_dtypes.from_native(p) for p in self._session.run(names, arrays, codes)]

    def _run_values(self, feeds):
        names, arrays, codes = [], [], []
        list_names, lists, list_codes, present = [], [], [], []
        for name, value in feeds.items():
            kind = self._input_kind.get(name, "tensor")
            if kind == "tensor":
                a, code = _dtypes.to_native(value)
                names.append(name)
                arrays.append(a)
                codes.append(code)
                continue
            items = [] if value is None else list(value) if kind.endswith("sequence") else [value]
            natives = [_dtypes.to_native(v) for v in items]
            list_names.append(name)
            lists.append([a for a, _ in natives])
            list_codes.append([c for _, c in natives])
            present.append(value is not None)
        out = self._session.run_values(names, arrays, codes, list_names, lists, list_codes, present)
        convert = _dtypes.from_native
        return [None if o is None else [convert(x) for x in o] if isinstance(o, list) else convert(o) for o in out]

    def profile(self):
        """The last run's per-node table, slowest first ("" unless the
        session was made with profiling=True)."""
        return self._session.profile()

    @property
    def rewrites(self):
        """The folds and fusions the loader applied, one line each."""
        return list(self._graph.rewrites())

    def __repr__(self):
        return f"InferenceSession(inputs={self.inputs}, outputs={self.outputs})"
