"""Graph builder: records variables and nodes, then writes schemas/graph.fbs.

Values follow Note [Value addressing] in the schema: each value is
(producer id, output index); variables and nodes of one graph share one id
space, and each Subgraph has its own.
"""
import re

import flatbuffers
import numpy as np

from . import _fbgen
from . import signatures as _signatures

_OP_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _registry():
    """The signatures ops are checked against: the loaded library's registry
    (which holds loaded op libraries' ops) where the native module is there,
    else op_signatures.json, generated from libops' own registry."""
    try:
        from .ops import _table
        return _table()
    except ImportError:
        return _signatures.signatures()


# ValueKind and SequenceOpKind of schemas/graph.fbs, in their order.
VALUE_KINDS = ("tensor", "sequence", "optional tensor", "optional sequence")
SEQUENCE_OPS = ("empty", "construct", "insert", "erase", "at", "length", "concat", "split", "optional",
                "has_element", "get_element")


def fnv1a64(name):
    """FNV-1a 64 hash of the name's UTF-8 bytes: the custom-op hash."""
    h = 0xcbf29ce484222325
    for byte in name.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


class Value:
    """One value: output `index` of the variable or node `id` in `scope`.

    ``v[i]`` and ``v.outputs(n)`` name other outputs of the same producer.
    """
    __slots__ = ("scope", "id", "index")

    def __init__(self, scope, id_, index):
        self.scope, self.id, self.index = scope, id_, index

    def __getitem__(self, i):
        return self.scope._output_of(self.id, i)

    def outputs(self, n):
        return tuple(self[i] for i in range(n))

    def __iter__(self):  # without this, __getitem__ would iterate forever
        raise TypeError("a Value is not iterable; use v.outputs(n)")

    def __repr__(self):
        return f"Value({self.scope.name}:{self.id}:{self.index})"


class _Record:
    """A variable or node waiting to be serialized."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


class _Scope:
    """What Graph and Subgraph share: variables, nodes, inputs, outputs."""

    def __init__(self, root, name):
        self.root = root or self
        self.name = name
        self.records = {}   # id -> _Record, variables and nodes in one space
        self.inputs = []    # placeholder names, in order
        self.outputs = []   # (name, Value)
        self._names = set()

    # -- variables ---------------------------------------------------------
    def placeholder(self, name, dtype, shape=None, kind="tensor"):
        """A value fed at run time; -1 in `shape` is an unknown dimension,
        shape=None an unknown rank. kind: "tensor", "sequence", "optional
        tensor" or "optional sequence" (ValueKind in the schema); a sequence's
        dtype and shape are each element's (dtype None: any)."""
        shape = None if shape is None else [_int64(d, "shape") for d in shape]
        if shape and min(shape) < -1:
            raise ValueError(f"placeholder '{name}': dims must be >= -1: {shape}")
        if kind not in VALUE_KINDS:
            raise ValueError(f"placeholder '{name}': kind {kind!r} is not one of {', '.join(VALUE_KINDS)}")
        if dtype is None and kind == "tensor":
            raise ValueError(f"placeholder '{name}': a tensor needs a dtype")
        self.inputs.append(name)
        return self._add(name, kind="placeholder", dtype=0 if dtype is None else self.root.dtype(dtype),
                         shape=shape, value_kind=VALUE_KINDS.index(kind))

    def constant(self, name, array):
        """A constant; stored little-endian in C order, 64-byte aligned."""
        array = np.asarray(array)
        dtype = self.root.dtype(array.dtype)
        data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        return self._add(name, kind="constant", dtype=dtype,
                         shape=list(array.shape), data=data.tobytes())

    # -- nodes -------------------------------------------------------------
    def op(self, op_name, *inputs, t_args=(), i_args=(), b_args=(), d_args=(),
           num_outputs=1, name=None, device=None, **kwargs):
        """A custom op by its registry name; returns its output 0.

        Args go positionally (t_args, i_args, b_args, d_args, as the op's
        signature orders them: docs/ops.md) or by name as keyword arguments,
        e.g. ``g.op("softmax", x, axis=1)`` or
        ``g.op("conv2d", x, w, kH=3, kW=3, sH=1, sW=1, pH=1, pW=1, dH=1,
        dW=1, same_mode=0, data_format="NHWC")``; an enumerated arg takes
        its value's name. Named args after positional ones of the same kind
        continue them; skipped optional args take their defaults."""
        if not _OP_NAME.match(op_name):
            raise ValueError(f"op name '{op_name}' is not lower_snake")
        lists = {"t": [float(v) for v in t_args],
                 "i": [_int64(v, "i_args") for v in i_args],
                 "b": [bool(v) for v in b_args],
                 "d": [self.root.dtype(d) for d in d_args]}
        table = _registry()
        _signatures.resolve(op_name, kwargs, lists, self.root.dtype, table)
        # Checked now, where the mistake is made, rather than when the file loads.
        _signatures.check_call(op_name, len(inputs), num_outputs, table)
        return self._node(("custom", op_name), inputs, name, device,
                          num_outputs=num_outputs,
                          t_args=lists["t"],
                          i_args=[_int64(v, "i_args") for v in lists["i"]],
                          b_args=lists["b"], d_args=lists["d"])

    def legacy(self, group, num, x=None, y=None, axes=None, extra=None,
               seed=None, keep_dims=False, dtype=None, shape=None, name=None,
               device=None):
        """A legacy op (group, num); group is an int or a LegacyGroup name
        such as "pairwise". extra are its float params. As the executor reads
        them (graph/planner.h): keep_dims keeps reduced dims (reductions);
        dtype is the output dtype (transform_any, random); shape is the
        output shape of a random op given no x."""
        groups = self.root.fb.LegacyGroup.LegacyGroup
        if isinstance(group, str):
            group = getattr(groups, group.upper(), None)
        if group not in {v for k, v in vars(groups).items() if k.isupper()}:
            raise ValueError(f"legacy: unknown group {group!r}")
        if not 0 <= num < (1 << 31):
            raise ValueError(f"legacy: op number {num} is out of range")
        if seed is not None and not 0 <= seed < (1 << 64):
            raise ValueError(f"legacy: seed {seed} is not a uint64")
        if x is None and (y is not None or group != groups.RANDOM):
            raise ValueError("legacy: only a random op may have no input x")
        inputs = tuple(v for v in (x, y) if v is not None)
        return self._node(("legacy", group, num), inputs, name, device,
                          t_args=[float(v) for v in extra or ()],
                          axes=[_int64(a, "axes") for a in axes or ()],
                          b_args=[True] if keep_dims else [],
                          d_args=[] if dtype is None else [self.root.dtype(dtype)],
                          i_args=[_int64(d, "shape") for d in shape or ()],
                          seed=seed)

    def sequence(self, op, *inputs, axis=None, new_axis=None, keepdims=None, of_sequence=None, dtype=None,
                 name=None):
        """A sequence op (SequenceOp in the schema), run by the executor:
        "empty" (dtype), "construct", "insert" (seq, x[, pos]), "erase"
        (seq[, pos]), "at" (seq, pos), "length", "concat" (seq; axis,
        new_axis), "split" (x[, split]; axis, keepdims), "optional" (x, or
        none: of_sequence), "has_element", "get_element"."""
        if op not in SEQUENCE_OPS:
            raise ValueError(f"sequence op {op!r} is not one of {', '.join(SEQUENCE_OPS)}")
        i_args = []
        if op == "concat":
            i_args = [_int64(axis or 0, "axis"), 1 if new_axis else 0]
        elif op == "split":
            i_args = [_int64(axis or 0, "axis"), 0 if keepdims is not None and not keepdims else 1]
        elif op == "optional" and not inputs:
            i_args = [1 if of_sequence else 0]
        d_args = [self.root.dtype(dtype)] if op == "empty" and dtype is not None else []
        return self._node(("sequence", SEQUENCE_OPS.index(op)), inputs, name, None, i_args=i_args, d_args=d_args)

    def if_then_else(self, cond, then_graph, else_graph, inputs=(), name=None):
        """outputs = then_graph(*inputs) if cond else else_graph(*inputs).
        Both branches take len(inputs) inputs and give the same number of
        outputs; returns them as a tuple of Values."""
        self._check_call(then_graph, len(inputs), None)
        n_out = len(then_graph.outputs)
        self._check_call(else_graph, len(inputs), n_out)
        v = self._node(("if", then_graph.index, else_graph.index),
                       (cond, *inputs), name, None, num_outputs=n_out)
        return v.outputs(n_out)

    def while_loop(self, cond_graph, body_graph, loop_vars, name=None,
                   scan_outputs=0):
        """vars = loop_vars; while cond_graph(*vars): vars = body_graph(*vars).
        cond_graph gives one bool scalar; returns the final vars.

        With scan_outputs=k, body_graph gives k more outputs after the new
        vars; each one's values over the iterations are stacked along a new
        axis 0 and returned after the final vars (WhileOp in the schema)."""
        n = len(loop_vars)
        if not 0 <= int(scan_outputs) < (1 << 32):
            raise ValueError(f"scan_outputs={scan_outputs} is out of range")
        k = int(scan_outputs)
        self._check_call(cond_graph, n, 1)
        self._check_call(body_graph, n, n + k)
        v = self._node(("while", cond_graph.index, body_graph.index, k),
                       tuple(loop_vars), name, None, num_outputs=n + k)
        return v.outputs(n + k)

    def output(self, name, value):
        """Mark `value` as a named output of this graph."""
        self._check_value(value)
        if name in (n for n, _ in self.outputs):
            raise ValueError(f"{self.name}: output '{name}' already exists")
        self.outputs.append((name, value))

    # -- helpers -----------------------------------------------------------
    def _add(self, name, **fields):
        if name in self._names:
            raise ValueError(f"{self.name}: name '{name}' is already used")
        self._names.add(name)
        id_ = len(self.records)
        self.records[id_] = _Record(id=id_, name=name, **fields)
        return Value(self, id_, 0)

    def _node(self, op, inputs, name, device, num_outputs=1, **args):
        for v in inputs:
            self._check_value(v)
        name = name or f"{op[1] if op[0] == 'custom' else op[0]}_{len(self.records)}"
        fields = dict(t_args=[], i_args=[], b_args=[], d_args=[], axes=[],
                      seed=None)
        fields.update(args)
        return self._add(name, kind="node", op=op, device=device,
                         num_outputs=num_outputs,
                         inputs=[(v.id, v.index) for v in inputs], **fields)

    def _output_of(self, id_, index):
        rec = self.records[id_]
        if rec.kind != "node" and index != 0:
            raise IndexError(f"variable '{rec.name}' has only output 0")
        if rec.kind == "node":
            rec.num_outputs = max(rec.num_outputs, index + 1)
        return Value(self, id_, index)

    def _check_value(self, v):
        if not isinstance(v, Value):
            raise TypeError(f"{self.name}: expected a Value, got {v!r}")
        if v.scope is not self:
            raise ValueError(f"{v!r} belongs to '{v.scope.name}', not "
                             f"'{self.name}'; pass it in as a subgraph input")

    def _check_call(self, sub, n_in, n_out):
        if not isinstance(sub, Subgraph) or sub.root is not self.root:
            raise TypeError(f"expected a Subgraph of this Graph, got {sub!r}")
        if len(sub.inputs) != n_in:
            raise ValueError(f"subgraph '{sub.name}' takes {len(sub.inputs)} "
                             f"inputs, given {n_in}")
        if n_out is not None and len(sub.outputs) != n_out:
            raise ValueError(f"subgraph '{sub.name}' gives {len(sub.outputs)} "
                             f"outputs, needs {n_out}")

    def _build_body(self, b):
        """Serialize variables, nodes, inputs and outputs; returns the four
        vector offsets (None for an empty list)."""
        fb = self.root.fb
        variables = [_build_variable(b, fb, r) for r in self.records.values()
                     if r.kind != "node"]
        nodes = [_build_node(b, fb, r) for r in self.records.values()
                 if r.kind == "node"]
        inputs = [b.CreateString(n) for n in self.inputs]
        outputs = []
        for name, v in self.outputs:
            s = b.CreateString(name)
            # A struct field is written inline, between Start and End.
            fb.Output.OutputStart(b)
            fb.Output.OutputAddName(b, s)
            fb.Output.OutputAddValue(b, fb.ValueRef.CreateValueRef(b, v.id, v.index))
            outputs.append(fb.Output.OutputEnd(b))
        return dict(Variables=_offsets(b, variables), Nodes=_offsets(b, nodes),
                    Inputs=_offsets(b, inputs), Outputs=_offsets(b, outputs))


class Subgraph(_Scope):
    """A body for if_then_else / while_loop; its placeholders are its inputs.
    Create with Graph.subgraph(); finish it before using it."""

    def __init__(self, root, name, index):
        super().__init__(root, name)
        self.index = index


class Graph(_Scope):
    """The root graph: builds the whole file. See the package docstring."""

    def __init__(self, device=None, threads=0, profiling=False, gen_dir=None):
        self.fb = _fbgen.load(gen_dir)
        super().__init__(None, "main")
        self.subgraphs = []
        self.device, self.threads, self.profiling = device, threads, profiling

    def subgraph(self, name):
        sub = Subgraph(self, name, len(self.subgraphs))
        self.subgraphs.append(sub)
        return sub

    def dtype(self, d):
        """DType code of a numpy dtype or name ("float32", "bfloat16"; "float"
        is float32 and "double" float64, as in ONNX and C)."""
        aliases = {"float": "float32", "double": "float64", "bfloat16": "bfloat16"}
        name = aliases[d] if isinstance(d, str) and d in aliases else np.dtype(d).name
        code = getattr(self.fb.DType.DType, name.upper(), None)
        if code is None:
            raise ValueError(f"dtype {d!r} has no libops DType")
        return code

    def to_bytes(self):
        """The serialized graph (file identifier "LOPS")."""
        self._check_calls()
        fb, b = self.fb, flatbuffers.Builder(1024)
        subs = [_table(b, fb, "Subgraph", Name=b.CreateString(sub.name),
                       **sub._build_body(b)) for sub in self.subgraphs]
        body, subs = self._build_body(b), _offsets(b, subs)
        config = _table(b, fb, "Configuration",
                        Device=b.CreateString(self.device) if self.device else None,
                        Threads=self.threads, Profiling=self.profiling)
        root = _table(b, fb, "Graph", Version=fb.SchemaVersion.SchemaVersion.V1,
                      Subgraphs=subs, Configuration=config, **body)
        b.Finish(root, file_identifier=b"LOPS")
        return bytes(b.Output())

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.to_bytes())

    def _check_calls(self):
        """Re-check every control-flow node now that all subgraphs are
        complete: arities still match, and no subgraph calls itself, even
        through others."""
        calls = {}  # subgraph index -> indexes of the subgraphs it uses
        for scope in [self, *self.subgraphs]:
            for r in scope.records.values():
                if r.kind != "node" or r.op[0] not in ("if", "while"):
                    continue
                first, second = (self.subgraphs[i] for i in r.op[1:3])
                n = len(r.inputs)
                if r.op[0] == "if":  # inputs: cond, args...
                    scope._check_call(first, n - 1, r.num_outputs)
                    scope._check_call(second, n - 1, r.num_outputs)
                else:  # the body gives the vars, then the scan outputs
                    scope._check_call(first, n, 1)
                    scope._check_call(second, n, n + r.op[3])
                    if r.num_outputs != n + r.op[3]:
                        raise ValueError(f"{scope.name}: while node '{r.name}' "
                                         f"has {r.num_outputs} outputs, "
                                         f"needs {n + r.op[3]}")
                if scope is not self:
                    calls.setdefault(scope.index, set()).update(r.op[1:3])
        for start, callees in calls.items():
            stack, seen = list(callees), set()
            while stack:
                i = stack.pop()
                if i == start:
                    raise ValueError(f"subgraph '{self.subgraphs[i].name}' "
                                     "calls itself")
                if i not in seen:
                    seen.add(i)
                    stack.extend(calls.get(i, ()))


def _int64(v, what):
    v = int(v)
    if not _INT64[0] <= v <= _INT64[1]:
        raise ValueError(f"{what}: {v} does not fit in int64")
    return v


def _offsets(b, offs):
    """A vector of table or string offsets, or None when empty."""
    if not offs:
        return None
    b.StartVector(4, len(offs), 4)
    for off in reversed(offs):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _numbers(b, values, dtype):
    """A vector of numbers, or None when empty."""
    return b.CreateNumpyVector(np.asarray(values, dtype=dtype)) if values else None


def _table(b, fb, table, **fields):
    """Write table `table` with the fields that are not None, through the
    generated <Table>Start/<Table>Add<Field>/<Table>End functions. Child
    objects (strings, vectors, tables) must be built before this call."""
    module = getattr(fb, table)
    getattr(module, f"{table}Start")(b)
    for field, value in fields.items():
        if value is not None:
            getattr(module, f"{table}Add{field}")(b, value)
    return getattr(module, f"{table}End")(b)


def _build_variable(b, fb, r):
    name = b.CreateString(r.name)
    shape = _numbers(b, r.shape or [], "<i8")
    if r.kind == "constant":
        # The generated Python helpers ignore force_align: 64, so align by
        # hand: Prep pads the buffer so that the bytes start 64-aligned.
        b.Prep(64, len(r.data))
        data = b.CreateByteVector(r.data)
        value = _table(b, fb, "Array", Dtype=r.dtype, Shape=shape,
                       Order=fb.Order.Order.C, Data=data)
        kind = fb.VariableValue.VariableValue.Array
    else:
        if r.shape is not None and shape is None:
            shape = _empty(b)  # a scalar; an absent shape is an unknown rank
        value = _table(b, fb, "Placeholder", Dtype=r.dtype, Shape=shape, Kind=r.value_kind or None)
        kind = fb.VariableValue.VariableValue.Placeholder
    return _table(b, fb, "Variable", Id=r.id, Name=name, ValueType=kind,
                  Value=value)


def _empty(b):
    """A present but empty [long] vector."""
    b.StartVector(8, 0, 8)
    return b.EndVector()


def _build_op(b, fb, kind, args):
    """The Op union member for a node: (offset, union type)."""
    if kind == "custom":
        name = b.CreateString(args[0])
        return (_table(b, fb, "CustomOp", Name=name, Hash=fnv1a64(args[0])),
                fb.Op.Op.CustomOp)
    table, fields = {"legacy": ("LegacyOp", ("Group", "Num")),
                     "if": ("IfOp", ("ThenBranch", "ElseBranch")),
                     "while": ("WhileOp", ("Cond", "Body", "ScanOutputs")),
                     "sequence": ("SequenceOp", ("Kind",))}[kind]
    return (_table(b, fb, table, **dict(zip(fields, args))),
            getattr(fb.Op.Op, table))


def _build_node(b, fb, r):
    op, op_type = _build_op(b, fb, r.op[0], r.op[1:])
    inputs = None
    if r.inputs:
        fb.Node.NodeStartInputsVector(b, len(r.inputs))
        for id_, index in reversed(r.inputs):
            fb.ValueRef.CreateValueRef(b, id_, index)
        inputs = b.EndVector()
    return _table(
        b, fb, "Node", Id=r.id, Name=b.CreateString(r.name), OpType=op_type,
        Op=op, Inputs=inputs, NumOutputs=r.num_outputs,
        TArgs=_numbers(b, r.t_args, "<f8"), IArgs=_numbers(b, r.i_args, "<i8"),
        BArgs=_numbers(b, r.b_args, "bool"), DArgs=_numbers(b, r.d_args, "<i4"),
        Axes=_numbers(b, r.axes, "<i8"), Seed=r.seed,
        Device=b.CreateString(r.device) if r.device else None)
