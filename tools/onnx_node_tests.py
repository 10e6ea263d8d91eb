#!/usr/bin/env python3
"""Runs ONNX's own node tests (the onnx wheel's backend/test/data/node) and its
nine light models (backend/test/data/light) through `ops-run model.onnx`, as a
user would run a model, and compares every output with the expected values.

    python3 tools/onnx_node_tests.py build/cpu-release/ops-run [--jobs 2]
        [--filter REGEX] [--show-failures] [--json results.json]
        [--expect tests_cpu/graph/onnx_node_tests_pass.txt] [--write-expect FILE]

Each test folder holds model.onnx and test_data_set_*/input_*.pb and
output_*.pb (TensorProtos). The inputs are written as .npy files, ops-run
runs the model on them (--output-dir), and each output must have the expected
dtype (float8, float4, int4 and int2 as libops holds them: one byte each) and
shape and agree within rtol 1e-3, atol 1e-7 (onnx.backend.test's defaults),
NaNs in the same places. Sequence inputs go in as lists of .npy files
(--input name=a.npy,b.npy, name=[] when empty), empty optionals as
name=none; sequence outputs come back as DIR/<name>/<i>.npy and empty
optionals as DIR/<name>.none (tools/ops_run.cpp).

--expect FILE: the names of tests that must pass (one a line; '#' comments).
The run exits non-zero when one of them fails, so a change that breaks an
operator that used to import is caught; tests that pass and are not listed are
reported, to be added with --write-expect.

Results are summarized by the first line of each failure, so the largest
groups of refusals come first.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

RTOL, ATOL = 1e-3, 1e-7
TIMEOUT_S = 60


def node_test_root():
    import onnx
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


def light_model_root():
    import onnx
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")


def file_name_for(output):
    """The file ops-run --output-dir writes an output to (tools/ops_run.cpp)."""
    s = re.sub(r"[^A-Za-z0-9_.-]", "_", output)
    return "_" + s if not s or s[0] == "." else s


def read_pb(path):
    """A test's input or output file: (kind, name, value). kind is 'tensor',
    or 'other' for sequences and optionals (not fed through .npy files)."""
    import onnx
    from onnx import numpy_helper
    with open(path, "rb") as f:
        data = f.read()
    t = onnx.TensorProto()
    try:
        t.ParseFromString(data)
    except Exception:  # noqa: BLE001 - not a tensor: a sequence or an optional
        return "other", "", None
    # A SequenceProto or OptionalProto parses as a TensorProto with junk
    # fields; a real tensor has a data type.
    if t.data_type == 0:
        return "other", t.name, None
    return "tensor", t.name, as_libops_bytes(t.data_type, numpy_helper.to_array(t))


# ONNX's types narrower than a byte or without a numpy dtype (float8, float4,
# int4, int2: TensorProto codes 17-26) cross ops-run's .npy files one element
# a byte, as libops holds them: the float formats' bit patterns as uint8, the
# integers' values as int8 (signed) or uint8.
LOW_PRECISION_FLOATS = {17, 18, 19, 20, 23, 24}
LOW_PRECISION_SIGNED = {22, 26}
LOW_PRECISION_UNSIGNED = {21, 25}


def as_libops_bytes(data_type, value):
    if data_type in LOW_PRECISION_FLOATS:
        return value.view(np.uint8)
    if data_type in LOW_PRECISION_SIGNED:
        return value.astype(np.int8)
    if data_type in LOW_PRECISION_UNSIGNED:
        return value.astype(np.uint8)
    return value


def read_value(path, kind):
    """A test's input or output file of a graph value of `kind` ('tensor_type',
    'sequence_type' or 'optional_type'): ('tensor', array), ('sequence',
    [arrays]), ('none', None), or ('other', None) for what ops-run cannot
    take (maps, sparse tensors)."""
    import onnx
    from onnx import numpy_helper
    with open(path, "rb") as f:
        data = f.read()

    def tensor(t):
        return as_libops_bytes(t.data_type, numpy_helper.to_array(t))

    def sequence(sq):
        if sq.elem_type != onnx.SequenceProto.TENSOR:
            return "other", None
        return "sequence", [tensor(t) for t in sq.tensor_values]

    if kind == "tensor_type":
        k, _, v = read_pb(path)
        return ("tensor", v) if k == "tensor" else ("other", None)
    if kind == "sequence_type":
        sq = onnx.SequenceProto()
        sq.ParseFromString(data)
        return sequence(sq)
    if kind == "optional_type":
        op = onnx.OptionalProto()
        op.ParseFromString(data)
        if op.elem_type == onnx.OptionalProto.UNDEFINED:
            return "none", None
        if op.elem_type == onnx.OptionalProto.TENSOR:
            return "tensor", tensor(op.tensor_value)
        if op.elem_type == onnx.OptionalProto.SEQUENCE:
            return sequence(op.sequence_value)
    return "other", None


def model_io(model_path):
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    ins = [(i.name, i.type.WhichOneof("value")) for i in m.graph.input if i.name not in inits]
    outs = [(o.name, o.type.WhichOneof("value")) for o in m.graph.output]
    return ins, outs


def first_line(text):
    for line in text.strip().splitlines():
        line = line.strip()
        if line:
            return line
    return "(no message)"


def compare(name, got, want):
    if got.dtype == np.dtype("V2") and want.dtype.name == "bfloat16":
        got = got.view(want.dtype)  # ops-run writes bfloat16 as numpy saves ml_dtypes' ('<V2')
    if want.dtype.name == "bfloat16":
        got, want = got.astype(np.float32), want.astype(np.float32)
    if got.dtype != want.dtype:
        # ops-run writes bool as |b1 and strings are not supported; a dtype
        # difference is a failure either way.
        return f"output '{name}': dtype {got.dtype}, expected {want.dtype}"
    if got.shape != want.shape:
        return f"output '{name}': shape {list(got.shape)}, expected {list(want.shape)}"
    if want.dtype.kind in "fc":
        if not np.array_equal(np.isnan(got), np.isnan(want)):
            return f"output '{name}': NaNs in other places"
        ok = np.isclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
        if not ok.all():
            bad = np.argwhere(~ok)[0]
            i = tuple(bad)
            return (f"output '{name}': {int((~ok).sum())} of {ok.size} values differ "
                    f"(first at {list(i)}: {got[i]!r}, expected {want[i]!r})")
    elif not np.array_equal(got, want):
        ne = got != want
        i = tuple(np.argwhere(ne)[0])
        return f"output '{name}': {int(ne.sum())} of {ne.size} values differ (first at {list(i)}: {got[i]!r}, expected {want[i]!r})"
    return None


def run_ops_run(args):
    """Runs ops-run; None when it succeeded, else ("fail", its first error line)."""
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "fail", f"timed out after {TIMEOUT_S} s"
    if p.returncode != 0:
        msg = first_line(p.stderr)
        if p.returncode < 0:
            msg = f"CRASH (signal {-p.returncode}): {msg}"
        return "fail", msg
    return None


def run_test(ops_run, test_dir):
    """Returns (status, message): status 'pass' or 'fail'."""
    model = os.path.join(test_dir, "model.onnx")
    try:
        ins, outs = model_io(model)
    except Exception as e:  # noqa: BLE001
        return "fail", f"the onnx package cannot read the model: {e}"
    if any(kind not in ("tensor_type", "sequence_type", "optional_type") for _, kind in ins + outs):
        return "fail", "map or sparse input/output (not fed through .npy)"
    sets = sorted(d for d in os.listdir(test_dir) if d.startswith("test_data_set_"))
    if not sets:
        return "fail", "no test data"
    for ds in sets:
        ds_dir = os.path.join(test_dir, ds)
        with tempfile.TemporaryDirectory() as tmp:
            args = [ops_run, model]
            n_in = len([f for f in os.listdir(ds_dir) if f.startswith("input_")])
            if n_in != len(ins):
                return "fail", f"{ds}: {n_in} input files for {len(ins)} graph inputs"
            for k, (name, declared) in enumerate(ins):
                kind, value = read_value(os.path.join(ds_dir, f"input_{k}.pb"), declared)
                if kind == "other":
                    return "fail", "map or sparse input (not fed through .npy)"
                if kind == "none":
                    args += ["--input", f"{name}=none"]
                    continue
                values = value if kind == "sequence" else [value]
                if any(v.dtype.kind in "OUS" for v in values):
                    return "fail", "string tensor input (no .npy string dtype in libops)"
                paths = []
                for e, v in enumerate(values):
                    paths.append(os.path.join(tmp, f"in{k}_{e}.npy"))
                    np.save(paths[-1], v)
                args += ["--input", f"{name}={','.join(paths) if paths else '[]'}"]
            out_dir = os.path.join(tmp, "out")
            os.mkdir(out_dir)
            args += ["--output-dir", out_dir]
            failed = run_ops_run(args)
            if failed:
                return failed
            for k, (name, declared) in enumerate(outs):
                kind, want = read_value(os.path.join(ds_dir, f"output_{k}.pb"), declared)
                if kind == "other":
                    return "fail", "map or sparse output (not read through .npy)"
                base = os.path.join(out_dir, file_name_for(name))
                if kind == "none":
                    if not os.path.exists(base + ".none"):
                        return "fail", f"{ds}: output '{name}': a value, expected an empty optional"
                    continue
                if os.path.exists(base + ".none"):
                    return "fail", f"{ds}: output '{name}': an empty optional, expected a value"
                if kind == "sequence":
                    if not os.path.isdir(base):
                        return "fail", f"output '{name}' was not written as a sequence"
                    n = len([f for f in os.listdir(base) if f.endswith(".npy")])
                    if n != len(want):
                        return "fail", f"{ds}: output '{name}': a sequence of {n}, expected {len(want)}"
                    for e, w in enumerate(want):
                        got = np.load(os.path.join(base, f"{e}.npy"), allow_pickle=False)
                        err = compare(f"{name}[{e}]", got, w)
                        if err:
                            return "fail", f"{ds}: {err}"
                    continue
                got_path = base + ".npy"
                if not os.path.exists(got_path):
                    return "fail", f"output '{name}' was not written"
                got = np.load(got_path, allow_pickle=False)
                err = compare(name, got, want)
                if err:
                    return "fail", f"{ds}: {err}"
    return "pass", ""


def run_light_model(ops_run, model):
    """One of ONNX's light models (backend/test/data/light: AlexNet,
    DenseNet-121, Inception v1 and v2, ResNet-50, ShuffleNet, SqueezeNet,
    VGG-19, ZFNet-512): fed what ONNX's backend test runner feeds them
    (arange(n) / n in float32, unknown dims 1) and compared with the stored
    output the same way as a node test."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(model)
    inits = {i.name for i in m.graph.initializer}
    prefix = os.path.splitext(model)[0]
    with tempfile.TemporaryDirectory() as tmp:
        args = [ops_run, model]
        for k, x in enumerate(i for i in m.graph.input if i.name not in inits):
            shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in x.type.tensor_type.shape.dim)
            n = int(np.prod(shape))
            path = os.path.join(tmp, f"in{k}.npy")
            np.save(path, (np.arange(n).reshape(shape) / n).astype(np.float32))
            args += ["--input", f"{x.name}={path}"]
        out_dir = os.path.join(tmp, "out")
        os.mkdir(out_dir)
        args += ["--output-dir", out_dir]
        failed = run_ops_run(args)
        if failed:
            return failed
        for k, o in enumerate(m.graph.output):
            t = onnx.TensorProto()
            with open(f"{prefix}_output_{k}.pb", "rb") as f:
                t.ParseFromString(f.read())
            got_path = os.path.join(out_dir, file_name_for(o.name) + ".npy")
            if not os.path.exists(got_path):
                return "fail", f"output '{o.name}' was not written"
            err = compare(o.name, np.load(got_path, allow_pickle=False), numpy_helper.to_array(t))
            if err:
                return "fail", err
    return "pass", ""


def strip_path(msg):
    m = re.sub(r"^ops-run: \S*model\.onnx( \(converted from ONNX\))?: (onnx: )?", "", msg)
    return re.sub(r"^test_data_set_\d+: ", "", m)


def reason_key(msg):
    """Groups messages that differ only in node names, numbers and values."""
    m = strip_path(msg)
    m = re.sub(r"node \d+ '[^']*' ", "node N ", m)
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r"\[[^\]]*\]", "[…]", m)
    m = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", m)
    return m[:200]


def read_expect(path):
    names = set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.add(line)
    return names


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ops_run")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--filter", default="")
    ap.add_argument("--show-failures", action="store_true", help="print every failing test with its message")
    ap.add_argument("--json", help="write {test: [status, message]} here")
    ap.add_argument("--expect", help="tests that must pass (exits 1 when one fails)")
    ap.add_argument("--write-expect", help="write the passing tests' names here")
    ap.add_argument("--groups", type=int, default=25, help="how many failure groups to print")
    a = ap.parse_args(argv)

    root, light_root = node_test_root(), light_model_root()
    node_tests = sorted(t for t in os.listdir(root) if re.search(a.filter, t))
    light = sorted(f[:-5] for f in os.listdir(light_root) if f.endswith(".onnx") and re.search(a.filter, f[:-5]))
    tests = node_tests + light
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futs = {pool.submit(run_test, a.ops_run, os.path.join(root, t)): t for t in node_tests}
        futs.update({pool.submit(run_light_model, a.ops_run, os.path.join(light_root, t + ".onnx")): t for t in light})
        for fut in concurrent.futures.as_completed(futs):
            results[futs[fut]] = fut.result()

    passed = sorted(t for t, (s, _) in results.items() if s == "pass")
    failed = sorted(t for t, (s, _) in results.items() if s != "pass")
    import onnx
    node_passed = sum(1 for t in node_tests if results[t][0] == "pass")
    print(f"ONNX {onnx.__version__} node tests: {node_passed} of {len(node_tests)} pass "
          f"({100.0 * node_passed / max(1, len(node_tests)):.1f}%), {len(node_tests) - node_passed} fail")
    if light:
        light_passed = sum(1 for t in light if results[t][0] == "pass")
        print(f"ONNX {onnx.__version__} light models: {light_passed} of {len(light)} pass")

    groups = collections.Counter(reason_key(results[t][1]) for t in failed)
    example = {}
    for t in failed:
        example.setdefault(reason_key(results[t][1]), (t, strip_path(results[t][1])))
    for key, n in groups.most_common(a.groups):
        t, msg = example[key]
        print(f"{n:5d}  {msg[:220]}  (e.g. {t})")
    if a.show_failures:
        for t in failed:
            print(f"FAIL {t}: {results[t][1]}")
    crashes = [t for t in failed if results[t][1].startswith("CRASH")]
    for t in crashes:
        print(f"CRASH {t}: {results[t][1]}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({t: list(results[t]) for t in tests}, f, indent=1, sort_keys=True)
    if a.write_expect:
        with open(a.write_expect, "w") as f:
            f.write(f"# ONNX {onnx.__version__} node tests and light models that pass through ops-run "
                    f"(tools/onnx_node_tests.py --write-expect); one a line.\n")
            f.write("\n".join(passed) + "\n")
    status = 0
    if crashes:
        status = 1
    if a.expect:
        expected = read_expect(a.expect)
        regressed = sorted(t for t in expected if t in results and results[t][0] != "pass")
        missing = sorted(t for t in expected if t not in results and not a.filter)
        new = sorted(t for t in passed if t not in expected)
        for t in regressed:
            print(f"REGRESSED {t}: {results[t][1]}")
        for t in missing:
            print(f"MISSING {t}: listed in {a.expect} but not in this onnx wheel")
        if new:
            print(f"{len(new)} tests pass that {a.expect} does not list (add them with --write-expect)")
        if regressed or missing:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
