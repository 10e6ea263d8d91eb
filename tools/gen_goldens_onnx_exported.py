#!/usr/bin/env python3
"""Generate the goldens of tests_cpu/graph/onnx_exported_test.cpp: ONNX models
written the way exporters write them (PyTorch's TorchScript and dynamo
exporters, tf2onnx, Paddle2ONNX): symbolic input dims, shapes computed at run
time (Shape -> Gather -> Concat -> Reshape, Range, Expand, ConstantOfShape),
shape logic wrapped in If, opsets 11 to 27.

Run from anywhere:  python3 tools/gen_goldens_onnx_exported.py
Needs `pip install onnx onnxruntime numpy` (developer tools, not build
dependencies). It rewrites tests_cpu/golden/onnx_exported/: per case a model
<case>.onnx and one or more input sets, each run through one session in
order, so that a model with symbolic dims is run at several shapes:
<case>.s<j>.in<k>.npy and the outputs ONNX Runtime computes,
<case>.s<j>.out<k>.npy (onnx.reference where ONNX Runtime has no kernel for
the opset). MANIFEST lists one case per line:

    <case> in=<n> out=<n> sets=<n> [rtol=r] [atol=a]

Models named err_* have no data: the test checks the importer's message.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests_cpu", "golden", "onnx_exported")
rng = np.random.default_rng(20261129)
lines = []
N = helper.make_node

ONNX_TYPE = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
             np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32,
             np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.uint8): TensorProto.UINT8,
             np.dtype(np.float16): TensorProto.FLOAT16}


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def const(name, array):
    return N("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name + "_value"))


def run_reference(m, feeds):
    try:
        import onnxruntime as ort
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return sess.run(None, feeds)
    except Exception as e:  # no ORT kernel for this op or opset
        from onnx.reference import ReferenceEvaluator
        print(f"  (onnx.reference: {str(e).splitlines()[0][:100]})")
        return ReferenceEvaluator(m).run(None, feeds)


def make_model(name, nodes, inputs, outputs, inits=None, opset=17, ir_version=None):
    """inputs: [(name, numpy dtype, dims)] with dims holding ints and dim_param
    strings; outputs: names (types left to the importer)."""
    vis = [helper.make_tensor_value_info(n, ONNX_TYPE[np.dtype(t)], dims) for n, t, dims in inputs]
    outs = [helper.make_empty_tensor_value_info(o) for o in outputs]
    g = helper.make_graph(nodes, name, vis, outs,
                          initializer=[numpy_helper.from_array(np.asarray(a), n) for n, a in (inits or {}).items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="gen_goldens_onnx_exported")
    m.ir_version = ir_version or (8 if opset <= 17 else 10 if opset <= 22 else 11)
    return m


def case(name, model, input_sets, rtol=1e-5, atol=1e-6):
    """input_sets: a list of {input name: array}, run in order through one session."""
    with open(os.path.join(OUT, f"{name}.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    n_out = None
    for j, feeds in enumerate(input_sets):
        results = run_reference(model, feeds)
        n_out = len(results)
        for k, a in enumerate(feeds.values()):
            np.save(os.path.join(OUT, f"{name}.s{j}.in{k}.npy"), np.require(a, requirements="C"))
        for k, a in enumerate(results):
            np.save(os.path.join(OUT, f"{name}.s{j}.out{k}.npy"), np.require(np.asarray(a), requirements="C"))
    lines.append(f"{name} in={len(input_sets[0])} out={n_out} sets={len(input_sets)} rtol={rtol:g} atol={atol:g}")


def error_model(name, model):
    with open(os.path.join(OUT, f"{name}.onnx"), "wb") as f:
        f.write(model.SerializeToString())


# ---------------------------------------------------------------- opsets


def opset_cases():
    """Nodes map by operator version (Note [Operator versions]): opsets 23 to 27
    changed none of these operators, so a model that declares them runs."""
    w1, b1, w2 = f32(8, 16), f32(16), f32(16, 4)
    for opset in (23, 25, 27):
        nodes = [N("MatMul", ["x", "w1"], ["h"]), N("Add", ["h", "b1"], ["hb"]), N("Relu", ["hb"], ["r"]),
                 N("MatMul", ["r", "w2"], ["o"]), N("Softmax", ["o"], ["y"], axis=-1)]
        m = make_model(f"mlp_opset{opset}", nodes, [("x", np.float32, ["batch", 8])], ["y"],
                       {"w1": w1, "b1": b1, "w2": w2}, opset=opset)
        case(f"mlp_opset{opset}", m, [{"x": f32(3, 8)}, {"x": f32(5, 8)}])
    # Reshape, Transpose, Unsqueeze, Flatten, Cast, Identity and Shape all got
    # new versions at opsets 23 to 25 that only widened their dtypes.
    nodes = [N("Transpose", ["x"], ["t"], perm=[0, 2, 1]), const("axes", np.array([1], np.int64)),
             N("Unsqueeze", ["t", "axes"], ["u"]), N("Flatten", ["u"], ["f"], axis=2),
             N("Cast", ["f"], ["c"], to=TensorProto.DOUBLE), N("Identity", ["c"], ["y"]),
             const("shape", np.array([2, -1], np.int64)), N("Reshape", ["x", "shape"], ["r"]),
             N("Shape", ["r"], ["s"])]
    m = make_model("shape_ops_opset25", nodes, [("x", np.float32, [2, 3, 4])], ["y", "s"], opset=25)
    case("shape_ops_opset25", m, [{"x": f32(2, 3, 4)}])

    # Versions 23 to 27 with new attributes: Range-27 counts float16 in float32
    # (stash_type), DequantizeLinear-23 picks its result's dtype, QuantizeLinear-23
    # the division's precision.
    nodes = [N("Range", ["s", "l", "d"], ["y"])]
    m = make_model("range_float16_opset27", nodes, [("s", np.float16, []), ("l", np.float16, []),
                                                    ("d", np.float16, [])], ["y"], opset=27)
    case("range_float16_opset27", m, [{"s": np.array(1000.0, np.float16), "l": np.array(1030.0, np.float16),
                                       "d": np.array(1.5, np.float16)}])
    nodes = [N("DequantizeLinear", ["q", "s", "z"], ["y"], output_dtype=TensorProto.FLOAT16),
             N("QuantizeLinear", ["y", "s", "z"], ["q2"], precision=TensorProto.FLOAT)]
    m = make_model("quantize_opset23", nodes, [("q", np.uint8, [2, 5])], ["y", "q2"],
                   {"s": np.array(0.25, np.float32), "z": np.array(100, np.uint8)}, opset=23)
    case("quantize_opset23", m, [{"q": rng.integers(0, 255, (2, 5)).astype(np.uint8)}])

    # Refused: an operator removed before the model's opset, one added after it.
    m = make_model("err_upsample_opset10", [N("Upsample", ["x", "s"], ["y"])],
                   [("x", np.float32, [1, 1, 2, 2])], ["y"], {"s": np.array([1, 1, 2, 2], np.float32)}, opset=10)
    error_model("err_upsample_opset10", m)
    m = make_model("err_gelu_opset18", [N("Gelu", ["x"], ["y"])], [("x", np.float32, [3])], ["y"], opset=18)
    error_model("err_gelu_opset18", m)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    opset_cases()
    with open(os.path.join(OUT, "MANIFEST"), "w") as f:
        f.write("# written by tools/gen_goldens_onnx_exported.py; do not edit\n")
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} cases to {OUT}")


if __name__ == "__main__":
    main()
