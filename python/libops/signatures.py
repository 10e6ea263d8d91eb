"""Keyword arguments for custom ops, from the registry's op signatures.

op_signatures.json beside this file is generated from the op registry
(``ops-run --list-ops --format json``; tests_cpu checks that it matches); the
graph builder reads it. ``libops.ops`` reads the loaded library's registry
instead (``table``), which also holds the ops of loaded op libraries.
Each op's args have a name, a kind (t, i, b, d), a position among the args
of that kind, a default and, for enumerated ints, named choices. This module
turns ``g.op("conv2d", x, w, kH=3, kW=3, ..., data_format="NHWC")`` into the
positional t/i/b/d lists a graph node stores: named args land at their
positions, gaps before them take their defaults, and a choice may be given
by name. Ranges are checked by the library when the graph loads.
"""
import json
import os

_PATH = os.path.join(os.path.dirname(__file__), "op_signatures.json")
_SIGNATURES = None
_KINDS = ("t", "i", "b", "d")


def signatures():
    """{op name: signature}, aliases included, read once."""
    global _SIGNATURES
    if _SIGNATURES is None:
        with open(_PATH, encoding="utf-8") as f:
            _SIGNATURES = table_from_json(f.read())
    return _SIGNATURES


def _value(op, spec, v, dtype):
    """One value of arg `spec` as its list stores it."""
    kind = spec["kind"]
    if kind == "d":
        return 0 if v is None else dtype(v)  # None: "not given" (the invalid dtype)
    if kind == "b":
        if not isinstance(v, (bool, int)) or v not in (0, 1, True, False):
            raise ValueError(f"{op}: {spec['name']} is a bool arg, got {v!r}")
        return bool(v)
    if kind == "i":
        if isinstance(v, str):
            if v not in spec["choices"]:
                names = ", ".join(spec["choices"]) or "none"
                raise ValueError(f"{op}: {spec['name']}={v!r} is not one of its named values ({names})")
            return spec["choices"][v]
        if isinstance(v, bool):
            return int(v)
        if not isinstance(v, int):
            raise ValueError(f"{op}: {spec['name']} is an integer arg, got {v!r}")
        return v
    return float(v)


def table_from_json(text):
    """{op name: signature}, aliases included, from the registry's JSON."""
    ops = json.loads(text)
    table = dict(ops)
    for sig in ops.values():
        for alias in sig["aliases"]:
            table[alias] = sig
    return table


def resolve(op, kwargs, lists, dtype, table=None):
    """Fills `lists` ({kind: list of positional args}) from keyword `kwargs`.

    ``dtype`` converts a dtype name for d args; ``table`` is the signature
    table to read (default: op_signatures.json). Raises ValueError naming the
    op and the arg for an unknown op or arg, an arg given twice (by position
    and by name), or a required arg left out before one that is given."""
    if not kwargs:
        return lists
    sig = (table if table is not None else signatures()).get(op)
    if sig is None:
        raise ValueError(f"{op}: keyword args need the op's signature, and no op '{op}' is in "
                         f"op_signatures.json (regenerate it with ops-run --list-ops --format json)")
    by_name = {a["name"]: a for a in sig["args"]}
    for name in kwargs:
        if name not in by_name:
            known = ", ".join(by_name) or "none"
            raise ValueError(f"{op}: no arg named '{name}' (its args: {known})")
    # In position order, so that filling a gap never meets a later name.
    for name in sorted(kwargs, key=lambda n: (by_name[n]["kind"], by_name[n]["position"])):
        spec, v = by_name[name], kwargs[name]
        kind, pos = spec["kind"], spec["position"]
        values = list(v) if spec["list"] else [v]
        out = lists[kind]
        if len(out) > pos:
            raise ValueError(f"{op}: {name} ({kind} arg {pos}) is given both by position and by name")
        # Positions before this one: their defaults, unless required.
        for gap in range(len(out), pos):
            before = next(a for a in sig["args"] if a["kind"] == kind and a["position"] == gap)
            if before["required"]:
                raise ValueError(f"{op}: {name} is given but the required arg {before['name']} "
                                 f"({kind} arg {gap}) before it is not")
            out.append(_value(op, before, before["default"], dtype))
        out.extend(_value(op, spec, x, dtype) for x in values)
    return lists


def check_call(op, n_inputs, n_outputs, table=None):
    """Checks a call of `op` against its signature: the op exists and takes
    `n_inputs` inputs and `n_outputs` outputs. (Its args are checked by the
    library, which also takes libnd4j's spellings: bools given as t args and
    the like.) Raises ValueError naming the op; returns the signature."""
    table = table if table is not None else signatures()
    sig = table.get(op)
    if sig is None:
        import difflib
        close = difflib.get_close_matches(op, list(table), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(f"no op named '{op}' is registered{hint}")
    ins = sig["inputs"]
    variadic = any(i["variadic"] for i in ins)
    lo = sum(1 for i in ins if not i["optional"])
    hi = None if variadic else len(ins)
    if n_inputs < lo or (hi is not None and n_inputs > hi):
        want = f"at least {lo}" if hi is None else (str(lo) if lo == hi else f"{lo} to {hi}")
        names = ", ".join(i["name"] + ("..." if i["variadic"] else "?" if i["optional"] else "") for i in ins)
        raise ValueError(f"{op}: takes {want} inputs ({names}), got {n_inputs}")
    outs = sig["outputs"]
    if not any(o["variadic"] for o in outs) and n_outputs > len(outs):
        raise ValueError(f"{op}: has {len(outs)} outputs, {n_outputs} asked for")
    return sig
