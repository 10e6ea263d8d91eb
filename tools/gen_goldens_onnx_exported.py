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
With --only GROUP (a *_cases function) it writes that group's files alone and
replaces its lines in MANIFEST. The older groups draw their inputs from one
shared random stream, which --only starts afresh (their goldens then differ
from a full run's, while still right); the newer groups keep their own.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from golden_manifest import merge_group

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


def run_reference(m, feeds, optimize=True):
    try:
        import onnxruntime as ort
        so = ort.SessionOptions()
        if not optimize:
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
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


def case(name, model, input_sets, rtol=1e-5, atol=1e-6, optimize=True, expected=None):
    """input_sets: a list of {input name: array}, run in order through one session.
    optimize=False: ONNX Runtime's graph rewrites off, where they approximate.
    expected: a function of one input set giving the outputs, for models no
    reference runs (custom domains)."""
    with open(os.path.join(OUT, f"{name}.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    n_out = None
    for j, feeds in enumerate(input_sets):
        results = expected(feeds) if expected else run_reference(model, feeds, optimize)
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


# ---------------------------------------------------------------- shapes at run time


def i64(*v):
    return np.array(v, np.int64)


def scalar(v):
    return np.array(v, np.int64)


def shape_subgraph_cases():
    """Shapes computed from the input's: Shape -> Gather -> Concat -> Reshape
    (as torch.onnx writes x.view(x.size(0), -1)), Range over a sequence
    length, Expand and ConstantOfShape to a computed shape."""
    w = f32(48, 10)
    nodes = [N("Shape", ["x"], ["s"]), const("zero", scalar(0)), N("Gather", ["s", "zero"], ["n"], axis=0),
             const("ax0", i64(0)), N("Unsqueeze", ["n", "ax0"], ["n1"]), const("minus1", i64(-1)),
             N("Concat", ["n1", "minus1"], ["target"], axis=0), N("Reshape", ["x", "target"], ["flat"]),
             N("MatMul", ["flat", "w"], ["y"])]
    m = make_model("view_batch_flatten", nodes, [("x", np.float32, ["N", 3, 4, 4])], ["y"], {"w": w}, opset=13)
    case("view_batch_flatten", m, [{"x": f32(2, 3, 4, 4)}, {"x": f32(5, 3, 4, 4)}, {"x": f32(1, 3, 4, 4)}])

    # Positions: Range(0, seq) from Shape, Unsqueeze, Expand to [batch, seq],
    # an embedding Gather and a causal mask from Trilu on ConstantOfShape.
    table = f32(16, 4)
    nodes = [N("Shape", ["ids"], ["s"]), const("one", scalar(1)), const("one1", i64(1)),
             N("Gather", ["s", "one"], ["seq"], axis=0),
             const("start", scalar(0)), const("step", scalar(1)), N("Range", ["start", "seq", "step"], ["pos"]),
             const("ax0", i64(0)), N("Unsqueeze", ["pos", "ax0"], ["pos1"]), N("Expand", ["pos1", "s"], ["posb"]),
             N("Gather", ["table", "posb"], ["emb"], axis=0),
             const("two1", i64(2)), N("Slice", ["s", "one1", "two1"], ["seq1"]), N("Concat", ["seq1", "seq1"], ["sq"], axis=0),
             N("ConstantOfShape", ["sq"], ["ones"], value=numpy_helper.from_array(np.array([1.0], np.float32))),
             N("Trilu", ["ones"], ["mask"], upper=0)]
    m = make_model("positions_and_causal_mask", nodes, [("ids", np.int64, ["batch", "seq"])], ["emb", "mask"],
                   {"table": table}, opset=14)
    case("positions_and_causal_mask", m, [{"ids": np.zeros((2, 5), np.int64)}, {"ids": np.zeros((1, 9), np.int64)}])


def runtime_input_cases():
    """Inputs that give a shape, computed at run time: Slice starts/ends,
    Pad pads, Split sizes, TopK's K, Trilu's k, OneHot's depth, Unsqueeze and
    Squeeze axes, Clip with one bound."""
    # x[:, : n // 2] and x[:, ::-1][:, 1:] with n = x.shape[1].
    nodes = [N("Shape", ["x"], ["s"]), const("one", scalar(1)), N("Gather", ["s", "one"], ["n"], axis=0),
             const("two", scalar(2)), N("Div", ["n", "two"], ["half"]), const("ax0", i64(0)),
             N("Unsqueeze", ["half", "ax0"], ["half1"]), const("zero1", i64(0)), const("axis1", i64(1)),
             N("Slice", ["x", "zero1", "half1", "axis1"], ["left"]),
             const("big", i64(-1)), const("small", i64(-(2 ** 62))), const("neg", i64(-1)),
             N("Slice", ["x", "big", "small", "axis1", "neg"], ["rev"])]
    m = make_model("slice_runtime", nodes, [("x", np.float32, [2, "n"])], ["left", "rev"], opset=13)
    case("slice_runtime", m, [{"x": f32(2, 6)}, {"x": f32(2, 9)}])

    # Center crop / pad to 4x4: pads computed from the input's H and W
    # (what CenterCropPad's function body does); negative pads crop.
    nodes = [N("Shape", ["x"], ["s"]), const("hw_idx", i64(2, 3)), N("Gather", ["s", "hw_idx"], ["hw"], axis=0),
             const("target", i64(4, 4)), N("Sub", ["target", "hw"], ["diff"]), const("two", scalar(2)),
             N("Div", ["diff", "two"], ["before"]), N("Sub", ["diff", "before"], ["after"]),
             const("z2", i64(0, 0)), N("Concat", ["z2", "before", "z2", "after"], ["pads"], axis=0),
             N("Pad", ["x", "pads"], ["y"], mode="constant")]
    m = make_model("pad_runtime", nodes, [("x", np.float32, [1, 2, "H", "W"])], ["y"], opset=18)
    case("pad_runtime", m, [{"x": f32(1, 2, 2, 3)}, {"x": f32(1, 2, 4, 4)}])
    # Constant pads with a negative (cropping) one, and a fill value given
    # at run time.
    nodes = [N("Pad", ["x", "pads", "v"], ["y"], mode="constant")]
    m = make_model("pad_crop_runtime_value", nodes, [("x", np.float32, [3, 5]), ("v", np.float32, [])], ["y"],
                   {"pads": i64(1, -2, 0, 1)}, opset=18)
    case("pad_crop_runtime_value", m, [{"x": f32(3, 5), "v": np.array(7.5, np.float32)}])

    # Split into [n - 2, 2] along the last axis; TopK of n // 2; Trilu with k
    # from the input; OneHot with its depth from the input.
    nodes = [N("Shape", ["x"], ["s"]), const("last", scalar(-1)), N("Gather", ["s", "last"], ["n"], axis=0),
             const("two", scalar(2)), N("Sub", ["n", "two"], ["rest"]), const("ax0", i64(0)),
             N("Unsqueeze", ["rest", "ax0"], ["rest1"]), N("Unsqueeze", ["two", "ax0"], ["two1"]),
             N("Concat", ["rest1", "two1"], ["sizes"], axis=0), N("Split", ["x", "sizes"], ["a", "b"], axis=-1),
             N("Div", ["n", "two"], ["k0"]), N("Unsqueeze", ["k0", "ax0"], ["k"]),
             N("TopK", ["x", "k"], ["vals", "idx"], axis=-1)]
    m = make_model("split_topk_runtime", nodes, [("x", np.float32, [3, "n"])], ["a", "b", "vals", "idx"], opset=13)
    case("split_topk_runtime", m, [{"x": f32(3, 6)}, {"x": f32(3, 8)}])
    nodes = [N("Trilu", ["x", "k"], ["lo"], upper=0), N("Trilu", ["x", "k"], ["hi"], upper=1),
             N("OneHot", ["ids", "depth", "vals"], ["oh"], axis=-1)]
    m = make_model("trilu_onehot_runtime", nodes, [("x", np.float32, [4, 5]), ("k", np.int64, []),
                                                   ("ids", np.int64, [3]), ("depth", np.int64, []),
                                                   ("vals", np.float32, [2])], ["lo", "hi", "oh"], opset=14)
    case("trilu_onehot_runtime", m, [{"x": f32(4, 5), "k": np.array(-1, np.int64), "ids": i64(0, 2, -1),
                                      "depth": np.array(4, np.int64), "vals": np.array([-1, 3], np.float32)}])
    # Unsqueeze and Squeeze with axes as graph inputs, Clip with a min only.
    nodes = [N("Unsqueeze", ["x", "axes"], ["u"]), N("Squeeze", ["u", "axes"], ["back"]),
             N("Clip", ["x", "lo", ""], ["c"])]
    m = make_model("axes_and_clip_runtime", nodes, [("x", np.float32, [2, 3]), ("axes", np.int64, [2]),
                                                    ("lo", np.float32, [])], ["u", "back", "c"], opset=13)
    case("axes_and_clip_runtime", m, [{"x": f32(2, 3), "axes": i64(-1, 0), "lo": np.array(0.1, np.float32)}])


def dynamic_spatial_cases():
    """A small CNN on images of any size: five stride-2 convolutions take 64 or
    96 pixels to 2 or 3, and small probes (2 or 3 pixels) to 1; the head reads
    H and W back with Shape to flatten. A probed 1 must never be baked in."""
    nodes, inits = [], {}
    c_in, name = 3, "x"
    for i, c_out in enumerate([4, 8, 8, 8, 8]):
        inits[f"w{i}"] = f32(c_out, c_in, 3, 3) * 0.3
        nodes.append(N("Conv", [name, f"w{i}"], [f"c{i}"], strides=[2, 2], pads=[1, 1, 1, 1]))
        nodes.append(N("Relu", [f"c{i}"], [f"r{i}"]))
        c_in, name = c_out, f"r{i}"
    nodes += [N("Shape", [name], ["s"]), const("hw_idx", i64(2, 3)), N("Gather", ["s", "hw_idx"], ["hw"], axis=0),
              const("first2", i64(0, 1)), N("Gather", ["s", "first2"], ["nc"], axis=0),
              N("ReduceProd", ["hw"], ["area"], keepdims=1), N("Concat", ["nc", "area"], ["target"], axis=0),
              N("Reshape", [name, "target"], ["flat"]), N("ReduceMean", ["flat"], ["pooled"], axes=[2], keepdims=0),
              N("GlobalAveragePool", [name], ["gap"]), N("Add", [name, "gap"], ["y"])]
    for batch in ("N", 1):  # a symbolic batch, and a fixed one (every dim but H and W known)
        name = f"cnn_dynamic_hw_batch_{batch}"
        m = make_model(name, nodes, [("x", np.float32, [batch, 3, "H", "W"])], ["pooled", "y"], inits, opset=13)
        b2 = 2 if batch == "N" else 1
        case(name, m, [{"x": f32(1, 3, 64, 64)}, {"x": f32(b2, 3, 96, 64)}, {"x": f32(1, 3, 32, 32)}],
             rtol=1e-4, atol=1e-5)


def if_cases():
    """Shape logic wrapped in If, as PyTorch's exporter writes shape-dependent
    code: the then branch squeezes a batch of one to rank 2, the else branch
    keeps rank 3; what follows reads the If's output, whose rank is known
    only when the graph runs."""
    then_g = helper.make_graph([N("Squeeze", ["x", "ax0"], ["t"])], "then", [],
                               [helper.make_empty_tensor_value_info("t")])
    else_g = helper.make_graph([N("Identity", ["x"], ["e"])], "else", [],
                               [helper.make_empty_tensor_value_info("e")])
    nodes = [N("Shape", ["x"], ["s"]), const("zero", scalar(0)), N("Gather", ["s", "zero"], ["n"], axis=0),
             const("one", scalar(1)), N("Equal", ["n", "one"], ["single"]),
             const("ax0", i64(0)),
             N("If", ["single"], ["y"], then_branch=then_g, else_branch=else_g),
             N("ReduceSum", ["y", "last"], ["total"], keepdims=0), N("CastLike", ["total", "x"], ["c"]),
             N("Mul", ["c", "c"], ["out"])]
    m = make_model("if_squeeze_or_identity", nodes, [("x", np.float32, ["N", 3, 4])], ["out"],
                   {"last": i64(-1)}, opset=15)
    case("if_squeeze_or_identity", m, [{"x": f32(1, 3, 4)}, {"x": f32(2, 3, 4)}])


def function_cases():
    """Model-local functions, as onnxscript and the dynamo exporter write
    modules: a scaled GELU block with an attribute (and its default), called
    twice, one call leaving an output unused; it calls a second function.
    The functions import another opset than the model."""
    inner = helper.make_function(
        "mylib", "Scale", ["x"], ["y"],
        [N("Constant", [], ["s"], value_float=0.0), helper.make_node("Constant", [], ["k"]),
         N("Mul", ["x", "k"], ["y"])],
        opset_imports=[helper.make_opsetid("", 13)], attributes=[])
    # Constant's value_float comes from the caller's attribute 'factor'.
    inner.node[1].attribute.append(
        helper.make_attribute_ref("value_float", onnx.AttributeProto.FLOAT, ref_attr_name="factor"))
    del inner.node[0]
    inner.attribute.append("factor")
    gelu = helper.make_function(
        "mylib", "GeluBlock", ["x"], ["y", "aux"],
        [N("Scale", ["x"], ["xs"], domain="mylib"), const("half", np.array(0.5, np.float32)),
         const("rsqrt2", np.array(1 / np.sqrt(2), np.float32)), N("Mul", ["xs", "rsqrt2"], ["u"]),
         N("Erf", ["u"], ["e"]), const("one", np.array(1.0, np.float32)), N("Add", ["e", "one"], ["e1"]),
         N("Mul", ["xs", "e1"], ["p"]), N("Mul", ["p", "half"], ["y"]), N("Neg", ["y"], ["aux"])],
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("mylib", 1)], attributes=[])
    gelu.attribute_proto.append(helper.make_attribute("factor", 1.0))
    gelu.node[0].attribute.append(helper.make_attribute_ref("factor", onnx.AttributeProto.FLOAT, ref_attr_name="factor"))
    nodes = [N("GeluBlock", ["x"], ["g1", "a1"], domain="mylib", factor=2.0),
             N("GeluBlock", ["g1"], ["g2", "unused"], domain="mylib"), N("Add", ["g2", "a1"], ["y"])]
    g = helper.make_graph(nodes, "functions", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 5])],
                          [helper.make_empty_tensor_value_info("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("mylib", 1)],
                          functions=[inner, gelu], producer_name="gen_goldens_onnx_exported")
    m.ir_version = 10
    case("model_local_functions", m, [{"x": f32(3, 5)}, {"x": f32(1, 5)}])


def fpn_cases():
    """A feature pyramid's top-down path as detectors export it: the coarse
    map is resized to the size of the finer one, read with Shape at run time
    (sizes), or by a computed scale (scales), then added to it. With H and W
    symbolic, probes that agree by chance must not decide the sizes."""
    inits = {"w1": f32(8, 3, 3, 3) * 0.3, "w2": f32(8, 8, 3, 3) * 0.2, "lat": f32(8, 8, 1, 1) * 0.3}
    nodes = [N("Conv", ["x", "w1"], ["c1"], strides=[2, 2], pads=[1, 1, 1, 1]),   # H/2
             N("Conv", ["c1", "w2"], ["c2"], strides=[2, 2], pads=[1, 1, 1, 1]),  # H/4
             N("Conv", ["c1", "lat"], ["l1"]),
             N("Shape", ["l1"], ["s1"]), const("hw", i64(2)), const("end", i64(4)),
             N("Slice", ["s1", "hw", "end"], ["size_hw"]), N("Shape", ["c2"], ["s2"]), const("nc0", i64(0)),
             N("Slice", ["s2", "nc0", "hw"], ["nc"]), N("Concat", ["nc", "size_hw"], ["sizes"], axis=0),
             N("Resize", ["c2", "", "", "sizes"], ["up"], mode="nearest"),
             N("Add", ["up", "l1"], ["p1"]),
             const("two", np.array([1, 1, 2, 2], np.float32)),
             N("Resize", ["p1", "", "two"], ["p0"], mode="linear", coordinate_transformation_mode="half_pixel")]
    m = make_model("fpn_resize_to_lateral", nodes, [("x", np.float32, [1, 3, "H", "W"])], ["p1", "p0"], inits,
                   opset=13)
    case("fpn_resize_to_lateral", m, [{"x": f32(1, 3, 32, 48)}, {"x": f32(1, 3, 24, 24)}, {"x": f32(1, 3, 8, 8)}],
         rtol=1e-4, atol=1e-5)


def transformer_cases():
    """Opset 23/24 operators on symbolic sequence lengths: Attention with
    grouped KV heads, a KV cache and a causal mask, after RotaryEmbedding of Q
    and K and an RMSNormalization, as a decoder step is exported."""
    d, qh, kvh = 16, 4, 2
    hd = d // qh
    inits = {"wq": f32(d, d) * 0.3, "wk": f32(d, kvh * hd) * 0.3, "wv": f32(d, kvh * hd) * 0.3,
             "g": (rng.random(d) + 0.5).astype(np.float32)}
    pos = np.arange(32, dtype=np.float64)[:, None] / (10000 ** (np.arange(hd // 2) / (hd // 2)))
    inits["cos"] = np.cos(pos).astype(np.float32)
    inits["sin"] = np.sin(pos).astype(np.float32)
    nodes = [N("RMSNormalization", ["x", "g"], ["xn"], axis=-1),
             N("MatMul", ["xn", "wq"], ["q"]), N("MatMul", ["xn", "wk"], ["k"]), N("MatMul", ["xn", "wv"], ["v"]),
             N("RotaryEmbedding", ["q", "cos", "sin", "pos_ids"], ["qr"], num_heads=qh),
             N("RotaryEmbedding", ["k", "cos", "sin", "pos_ids"], ["kr"], num_heads=kvh),
             N("Attention", ["qr", "kr", "v", "", "past_k", "past_v"], ["y", "present_k", "present_v"],
               q_num_heads=qh, kv_num_heads=kvh, is_causal=1)]
    m = make_model("decoder_step_gqa_cache", nodes,
                   [("x", np.float32, ["batch", "seq", d]), ("pos_ids", np.int64, ["batch", "seq"]),
                    ("past_k", np.float32, ["batch", kvh, "past", hd]), ("past_v", np.float32, ["batch", kvh, "past", hd])],
                   ["y", "present_k", "present_v"], inits, opset=24)
    def feeds(b, s, past):
        return {"x": f32(b, s, d), "pos_ids": np.tile(np.arange(past, past + s, dtype=np.int64), (b, 1)),
                "past_k": f32(b, kvh, past, hd), "past_v": f32(b, kvh, past, hd)}
    case("decoder_step_gqa_cache", m, [feeds(1, 5, 3), feeds(2, 1, 8), feeds(1, 4, 0)], rtol=1e-4, atol=1e-5)


def low_precision_cases():
    """Quantized weights as exporters write them (Note [Low-precision values]
    in graph/onnx/onnx_convert.cpp): float8 E4M3FN weights dequantized per
    output channel, activations quantized to float8 and back; int4 weights
    in blocks of 16 along the input axis with int4 zero points; an If whose
    branches read a captured float8 weight and give float8 values."""
    import ml_dtypes
    fp8, int4 = ml_dtypes.float8_e4m3fn, ml_dtypes.int4
    w8 = numpy_helper.from_array((rng.standard_normal((16, 8)) * 40).astype(np.float32).astype(fp8), "w8")
    nodes = [N("DequantizeLinear", ["w8", "w_scale"], ["w"], axis=1),
             N("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
             N("DequantizeLinear", ["xq", "x_scale"], ["xd"]),
             N("MatMul", ["xd", "w"], ["y0"]), N("Add", ["y0", "bias"], ["y"])]
    m = make_model("fp8_dq_matmul", nodes, [("x", np.float32, ["batch", 16])], ["y"],
                   {"w_scale": (rng.random(8) * 0.02 + 0.01).astype(np.float32),
                    "x_scale": np.float32(0.01), "bias": f32(8)}, opset=19)
    m.graph.initializer.append(w8)
    m.graph.initializer.append(numpy_helper.from_array(np.zeros((), np.float32).astype(fp8), "x_zero"))
    case("fp8_dq_matmul", m, [{"x": f32(3, 16) * 3}, {"x": f32(1, 16)}], rtol=1e-4, atol=1e-5)

    w4 = numpy_helper.from_array(rng.integers(-8, 8, (32, 8)).astype(np.int8).astype(int4), "w4")
    z4 = numpy_helper.from_array(rng.integers(-2, 3, (2, 8)).astype(np.int8).astype(int4), "z4")
    nodes = [N("DequantizeLinear", ["w4", "s4", "z4"], ["w"], axis=0, block_size=16),
             N("MatMul", ["x", "w"], ["y"])]
    m = make_model("int4_blocked_dq_matmul", nodes, [("x", np.float32, ["batch", 32])], ["y"],
                   {"s4": (rng.random((2, 8)) * 0.1 + 0.05).astype(np.float32)}, opset=21)
    m.graph.initializer.extend([w4, z4])
    # Optimized, ONNX Runtime fuses the pair into MatMulNBits, which
    # quantizes x as well (results 2% off); the golden is the exact one.
    case("int4_blocked_dq_matmul", m, [{"x": f32(2, 32)}], rtol=1e-4, atol=1e-5, optimize=False)

    # QuantizeLinear in blocks of 2 along axis 1, to uint8 with zero points;
    # and a scale whose rank is not x's, refused.
    nodes = [N("QuantizeLinear", ["x", "qs", "qz"], ["q"], axis=1, block_size=2),
             N("Cast", ["q"], ["y"], to=TensorProto.FLOAT)]
    m = make_model("quantize_blocked", nodes, [("x", np.float32, [2, 5])], ["y"],
                   {"qs": np.array([[0.1, 0.2, 0.05], [0.3, 0.02, 0.5]], np.float32),
                    "qz": np.array([[10, 128, 0], [3, 250, 7]], np.uint8)}, opset=21)
    case("quantize_blocked", m, [{"x": f32(2, 5) * 3}], optimize=False)
    m = make_model("err_quantize_blocked_rank", [N("QuantizeLinear", ["x", "qs"], ["q"], name="qb", axis=1, block_size=2)],
                   [("x", np.float32, [2, 4])], ["q"], {"qs": np.ones(2, np.float32)}, opset=21)
    error_model("err_quantize_blocked_rank", m)

    # The branches give float8 (one reads the captured weight, the other
    # requantizes it at half scale); the If's output is dequantized after.
    then_g = helper.make_graph([N("Identity", ["w8"], ["t"])], "then", [], [helper.make_empty_tensor_value_info("t")])
    else_g = helper.make_graph([N("DequantizeLinear", ["w8", "half"], ["e0"]),
                                N("QuantizeLinear", ["e0", "one", "zero8"], ["e"])], "else", [],
                               [helper.make_empty_tensor_value_info("e")])
    nodes = [N("If", ["flag"], ["wq"], then_branch=then_g, else_branch=else_g),
             N("DequantizeLinear", ["wq", "two"], ["w"]), N("MatMul", ["x", "w"], ["y"])]
    m = make_model("if_fp8_branches", nodes, [("flag", np.bool_, []), ("x", np.float32, [2, 16])], ["y"],
                   {"half": np.float32(0.5), "one": np.float32(1.0), "two": np.float32(2.0)}, opset=19)
    m.graph.initializer.extend([w8, numpy_helper.from_array(np.zeros((), np.float32).astype(fp8), "zero8")])
    x = f32(2, 16)
    case("if_fp8_branches", m, [{"flag": np.array(True), "x": x}, {"flag": np.array(False), "x": x}],
         rtol=1e-4, atol=1e-5)

    # A loop whose body makes float8: its results would carry no format.
    body = helper.make_graph([N("Identity", ["cond_in"], ["cond_out"]), N("Cast", ["v_in"], ["v8"], to=TensorProto.FLOAT8E4M3FN),
                              N("Cast", ["v8"], ["v_out"], to=TensorProto.FLOAT8E4M3FN)], "body",
                             [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                              helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [3])],
                             [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                              helper.make_empty_tensor_value_info("v_out")])
    m = make_model("err_loop_fp8_body", [N("Loop", ["trips", "go", "v"], ["v_final"], body=body)],
                   [("v", np.float32, [3])], ["v_final"], {"trips": np.int64(2), "go": np.array(True)}, opset=19)
    error_model("err_loop_fp8_body", m)


def custom_domain_cases():
    """Note [Custom domains] in graph/onnx/onnx_convert.cpp: a node of a
    domain not ONNX's own names a registered op, here libops' own softmax
    (axis as an INT attribute), between nodes of the default domain. The
    expected values are numpy's; no reference engine knows the domain."""
    nodes = [N("Mul", ["x", "two"], ["x2"]), N("softmax", ["x2"], ["p"], domain="com.example", axis=1),
             N("Log", ["p"], ["y"])]
    m = make_model("custom_domain_softmax", nodes, [("x", np.float32, ["N", 5])], ["y"], {"two": np.float32(2.0)})
    m.opset_import.append(helper.make_opsetid("com.example", 1))

    def log_softmax_2x(feeds):
        z = feeds["x"].astype(np.float64) * 2
        z = z - z.max(axis=1, keepdims=True)
        return [(z - np.log(np.exp(z).sum(axis=1, keepdims=True))).astype(np.float32)]
    case("custom_domain_softmax", m, [{"x": f32(3, 5)}], rtol=1e-5, atol=1e-5, expected=log_softmax_2x)
    # An attribute the op does not declare, and an op type nothing registers.
    bad = make_model("err_custom_domain", [N("softmax", ["x"], ["p"], domain="com.example", name="sm", temperature=2.0),
                                           N("frobnicate", ["p"], ["y"], domain="com.example", name="fr")],
                     [("x", np.float32, [2, 3])], ["y"])
    bad.opset_import.append(helper.make_opsetid("com.example", 1))
    error_model("err_custom_domain", bad)


def loop_sequence_cases():
    """A list appended to in a loop, then stacked or concatenated, as
    PyTorch's exporter writes torch.stack / torch.cat of a Python list built
    in a scripted loop (Note [Sequences grown in loops] in
    graph/onnx/onnx_convert.cpp): SequenceEmpty, a Loop whose body
    SequenceInserts each iteration's value, then ConcatFromSequence (a new
    axis 0 and 1, along axes 0 and 1), SequenceLength and SequenceAt at a
    position given at run time, on a symbolic batch and trip count."""
    body = helper.make_graph(
        [N("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
         N("Mul", ["acc_in", "half"], ["scaled"]), N("Add", ["scaled", "fi"], ["acc_out"]),
         N("Tanh", ["acc_out"], ["elem"]),
         N("SequenceInsert", ["seq_in", "elem"], ["seq_out"]),
         N("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_in", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_out", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["batch", 4])],
        [numpy_helper.from_array(np.float32(0.5), "half")])
    nodes = [N("SequenceEmpty", [], ["seq0"], dtype=TensorProto.FLOAT),
             const("go", np.array(True)),
             N("Loop", ["trips", "go", "seq0", "x"], ["seq", "acc"], body=body),
             N("ConcatFromSequence", ["seq"], ["stack0"], axis=0, new_axis=1),
             N("ConcatFromSequence", ["seq"], ["stack1"], axis=1, new_axis=1),
             N("ConcatFromSequence", ["seq"], ["cat0"], axis=0),
             N("ConcatFromSequence", ["seq"], ["cat1"], axis=-1),
             N("SequenceLength", ["seq"], ["length"]),
             N("SequenceAt", ["seq", "pos"], ["picked"])]
    m = make_model("loop_appended_sequence", nodes,
                   [("x", np.float32, ["batch", 4]), ("trips", np.int64, []), ("pos", np.int64, [])],
                   ["stack0", "stack1", "cat0", "cat1", "length", "picked", "acc"], opset=17)
    case("loop_appended_sequence", m,
         [{"x": f32(2, 4), "trips": np.array(3, np.int64), "pos": np.array(-1, np.int64)},
          {"x": f32(3, 4), "trips": np.array(5, np.int64), "pos": np.array(1, np.int64)}])
    # The list starts with the input (SequenceConstruct), then grows.
    seeded = [N("SequenceConstruct", ["x"], ["seq0"])] + nodes[1:4]
    m = make_model("loop_appended_to_seeded_sequence", seeded,
                   [("x", np.float32, ["batch", 4]), ("trips", np.int64, [])], ["stack0", "acc"], opset=17)
    case("loop_appended_to_seeded_sequence", m,
         [{"x": f32(2, 4), "trips": np.array(3, np.int64)}, {"x": f32(1, 4), "trips": np.array(0, np.int64)}])
    # A recurrence over a sequence split at run time, as exporters write
    # `for x_t in x.unbind(0)`: SplitToSequence of a symbolic length, read
    # by SequenceAt(seq, i) in the Loop's body (a captured sequence).
    rnn_body = helper.make_graph(
        [N("SequenceAt", ["steps", "i"], ["x_t"]), N("Mul", ["h_in", "half"], ["decayed"]),
         N("Add", ["x_t", "decayed"], ["pre"]), N("Tanh", ["pre"], ["h_out"]),
         N("Identity", ["h_out"], ["h_scan"]), N("Identity", ["cond_in"], ["cond_out"])],
        "rnn_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("h_scan", TensorProto.FLOAT, ["batch", 4])],
        [numpy_helper.from_array(np.float32(0.5), "half")])
    rnn_nodes = [N("SplitToSequence", ["x"], ["steps"], axis=0, keepdims=0),
                 N("SequenceLength", ["steps"], ["T"]),
                 const("go", np.array(True)),
                 N("Loop", ["T", "go", "h0"], ["h", "hs"], body=rnn_body),
                 # keepdims: pieces [1, batch, 4] along axis 1 of [batch, T, 4]
                 N("Transpose", ["x"], ["xb"], perm=[1, 0, 2]),
                 N("SplitToSequence", ["xb"], ["cols"], axis=1),
                 N("ConcatFromSequence", ["cols"], ["xb_again"], axis=1),
                 N("SequenceAt", ["cols", "last"], ["last_col"])]
    m = make_model("split_sequence_recurrence", rnn_nodes,
                   [("x", np.float32, ["T", "batch", 4]), ("h0", np.float32, ["batch", 4])],
                   ["h", "hs", "xb_again", "last_col"], {"last": np.array(-1, np.int64)}, opset=17)
    case("split_sequence_recurrence", m,
         [{"x": f32(3, 2, 4), "h0": f32(2, 4)}, {"x": f32(6, 1, 4), "h0": f32(1, 4)}])
    # A list made before the loop (SequenceConstruct of three layers'
    # outputs), indexed by the iteration inside the body and by a constant
    # in an If branch: passed into both subgraphs stacked.
    list_body = helper.make_graph(
        [N("SequenceAt", ["feats", "i"], ["f_i"]), N("Add", ["sum_in", "f_i"], ["sum_out"]),
         N("Identity", ["cond_in"], ["cond_out"])],
        "list_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("sum_in", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("sum_out", TensorProto.FLOAT, ["batch", 4])])
    first_g = helper.make_graph([N("SequenceAt", ["feats", "zero"], ["first"])], "then", [],
                                [helper.make_tensor_value_info("first", TensorProto.FLOAT, ["batch", 4])],
                                [numpy_helper.from_array(np.array(0, np.int64), "zero")])
    neg_g = helper.make_graph([N("Neg", ["x"], ["negx"])], "else", [],
                              [helper.make_tensor_value_info("negx", TensorProto.FLOAT, ["batch", 4])])
    list_nodes = [N("Relu", ["x"], ["a"]), N("Sigmoid", ["x"], ["b"]), N("Tanh", ["x"], ["c"]),
                  N("SequenceConstruct", ["a", "b", "c"], ["feats"]),
                  N("SequenceLength", ["feats"], ["n"]), const("go", np.array(True)),
                  N("Loop", ["n", "go", "x"], ["total"], body=list_body),
                  N("If", ["flag"], ["picked"], then_branch=first_g, else_branch=neg_g)]
    m = make_model("list_read_in_subgraphs", list_nodes,
                   [("x", np.float32, ["batch", 4]), ("flag", np.bool_, [])], ["total", "picked"], opset=17)
    case("list_read_in_subgraphs", m, [{"x": f32(2, 4), "flag": np.array(True)},
                                       {"x": f32(3, 4), "flag": np.array(False)}])
    # The grown sequence as a graph output, or read by another op than those
    # three: a run-time list (Note [Run-time sequences]). The output is
    # checked by value in onnx_exported_test.cpp (no .npy golden for a
    # sequence).
    m = make_model("loop_sequence_output", nodes[:3], [("x", np.float32, ["batch", 4]), ("trips", np.int64, [])],
                   ["seq"], opset=17)
    error_model("loop_sequence_output", m)
    m = make_model("loop_sequence_erased", nodes[:3] + [N("SequenceErase", ["seq"], ["shorter"]),
                                                        N("ConcatFromSequence", ["shorter"], ["y"], axis=0),
                                                        N("SequenceLength", ["shorter"], ["n"])],
                   [("x", np.float32, ["batch", 4]), ("trips", np.int64, [])], ["y", "n"], opset=17)
    r = np.random.default_rng(20261201)  # its own stream: the cases above keep their inputs
    case("loop_sequence_erased", m,
         [{"x": r.standard_normal((2, 4)).astype(np.float32), "trips": np.array(3, np.int64)},
          {"x": r.standard_normal((3, 4)).astype(np.float32), "trips": np.array(5, np.int64)}])


def runtime_list_cases():
    """Sequences only known at run time, as exporters write them (Note
    [Run-time sequences] in graph/onnx/onnx_convert.cpp): an If whose
    branches give lists of different lengths (a Python list built under a
    condition); a split at sizes given at run time, mapped piece by piece
    with SequenceMap and concatenated; a list carried through a Loop that
    edits it (insert at the front), all on a symbolic batch."""
    r = np.random.default_rng(20261202)

    def f32(*shape):  # this group's own stream, so that --only writes what a full run does
        return r.standard_normal(shape).astype(np.float32)

    then_g = helper.make_graph(
        [N("Relu", ["x"], ["a"]), N("Neg", ["x"], ["b"]), N("SequenceConstruct", ["a", "b", "x"], ["l"])], "then", [],
        [helper.make_tensor_sequence_value_info("l", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([N("Sigmoid", ["x"], ["c"]), N("SequenceConstruct", ["c"], ["l2"])], "else", [],
                               [helper.make_tensor_sequence_value_info("l2", TensorProto.FLOAT, None)])
    nodes = [N("If", ["flag"], ["feats"], then_branch=then_g, else_branch=else_g),
             N("ConcatFromSequence", ["feats"], ["cat"], axis=1),
             N("SequenceLength", ["feats"], ["n"]),
             N("SequenceAt", ["feats", "last"], ["tail"])]
    m = make_model("if_returns_list", nodes, [("x", np.float32, ["batch", 4]), ("flag", np.bool_, [])],
                   ["cat", "n", "tail"], {"last": np.array(-1, np.int64)}, opset=17)
    case("if_returns_list", m, [{"x": f32(2, 4), "flag": np.array(True)}, {"x": f32(3, 4), "flag": np.array(False)},
                                {"x": f32(1, 4), "flag": np.array(True)}])
    # Ragged pieces of x along axis 1, each reduced to [batch, 1] by the
    # map's body, then joined: [batch, len(sizes)].
    map_body = helper.make_graph(
        [N("ReduceMean", ["piece"], ["m"], axes=[1], keepdims=1), N("Mul", ["m", "w"], ["out"])], "map_body",
        [helper.make_tensor_value_info("piece", TensorProto.FLOAT, ["batch", None]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["batch", 1])])
    nodes = [N("SplitToSequence", ["x", "sizes"], ["pieces"], axis=1),
             N("SequenceMap", ["pieces", "scale"], ["means"], body=map_body),
             N("ConcatFromSequence", ["means"], ["y"], axis=1)]
    m = make_model("split_map_concat", nodes, [("x", np.float32, ["batch", "width"]), ("sizes", np.int64, ["n"]),
                                               ("scale", np.float32, [])], ["y"], opset=17)
    case("split_map_concat", m,
         [{"x": f32(2, 7), "sizes": np.array([1, 4, 2], np.int64), "scale": np.array(2, np.float32)},
          {"x": f32(3, 5), "sizes": np.array([5], np.int64), "scale": np.array(-1, np.float32)}])
    # A carried list that the body inserts at the front of (not an append:
    # a run-time list), read after the loop.
    body = helper.make_graph(
        [N("Cast", ["i"], ["fi"], to=TensorProto.FLOAT), N("Add", ["x", "fi"], ["elem"]),
         N("SequenceInsert", ["seq_in", "elem", "zero"], ["seq_out"]), N("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_in", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_out", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(0, np.int64), "zero")])
    nodes = [N("SequenceConstruct", ["x"], ["seq0"]), const("go", np.array(True)),
             N("Loop", ["trips", "go", "seq0"], ["seq"], body=body),
             N("ConcatFromSequence", ["seq"], ["y"], axis=0, new_axis=1),
             N("SequenceAt", ["seq", "pos"], ["picked"])]
    m = make_model("loop_edits_list", nodes, [("x", np.float32, ["batch", 4]), ("trips", np.int64, []),
                                              ("pos", np.int64, [])], ["y", "picked"], opset=17)
    case("loop_edits_list", m, [{"x": f32(2, 4), "trips": np.array(3, np.int64), "pos": np.array(-1, np.int64)},
                                {"x": f32(1, 4), "trips": np.array(0, np.int64), "pos": np.array(0, np.int64)}])


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    opset_cases()
    shape_subgraph_cases()
    runtime_input_cases()
    dynamic_spatial_cases()
    if_cases()
    function_cases()
    fpn_cases()
    transformer_cases()
    low_precision_cases()
    custom_domain_cases()
    loop_sequence_cases()
    runtime_list_cases()
    with open(os.path.join(OUT, "MANIFEST"), "w") as f:
        f.write("# written by tools/gen_goldens_onnx_exported.py; do not edit\n")
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} cases to {OUT}")


def only(group):
    """Writes one group's cases and replaces their lines in MANIFEST."""
    globals()[group]()
    merge_group(OUT, lines, group)


if __name__ == "__main__":
    import sys
    if len(sys.argv) == 3 and sys.argv[1] == "--only":
        only(sys.argv[2])
    else:
        main()
