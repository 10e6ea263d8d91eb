#!/usr/bin/env python3
"""Generate the ONNX import goldens read by tests_cpu/graph/onnx_import_test.cpp.

Run from anywhere:  python3 tools/gen_goldens_onnx.py
Needs `pip install onnx onnxruntime numpy` (developer tools, not build
dependencies). It rewrites tests_cpu/golden/onnx/: per case a small model
<case>.onnx built with onnx.helper, its inputs <case>.in<k>.npy (in the
order of the graph's inputs) and the outputs ONNX Runtime computes,
<case>.out<k>.npy (in the order of the graph's outputs). Where ONNX Runtime
has no kernel for a case, onnx.reference computes it instead. MANIFEST lists
one case per line:

    <case> in=<n> out=<n> [rtol=r] [atol=a]

With --only GROUP (a *_cases function, e.g. crop_and_resize_cases) it
writes that group's files alone and replaces its lines in MANIFEST, leaving
every other golden as it is: the groups before the newest ones share one
random stream, and regenerating them all moves their inputs (and the LSTM
reference of onnx.reference no longer runs through).

Cases cover each mapped op with several shapes (broadcasting, size-1 dims),
its attribute combinations and its opset variants, plus two whole models
(an MLP and a small CNN with a residual block) with random weights.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from golden_manifest import merge_group

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests_cpu", "golden", "onnx")
rng = np.random.default_rng(20260118)
lines = []

ONNX_TYPE = {np.dtype(np.float16): TensorProto.FLOAT16, np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
             np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32,
             np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.uint8): TensorProto.UINT8,
             np.dtype(np.uint32): TensorProto.UINT32, np.dtype(np.int8): TensorProto.INT8,
             np.dtype(np.int16): TensorProto.INT16, np.dtype(np.uint16): TensorProto.UINT16}


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def pos(*shape):
    return (rng.random(shape) + 0.1).astype(np.float32)


def ints(lo, hi, *shape, dtype=np.int64):
    return rng.integers(lo, hi, shape).astype(dtype)


def run_reference(m, feeds):
    try:
        import onnxruntime as ort
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return sess.run(None, feeds)
    except Exception as e:  # no ORT kernel for this op, opset or dtype
        from onnx.reference import ReferenceEvaluator
        print(f"  (onnx.reference: {str(e).splitlines()[0][:100]})")
        return ReferenceEvaluator(m).run(None, feeds)


def case(name, nodes, inputs, outputs, inits=None, opset=13, dims=None, rtol=1e-5, atol=1e-6, external=False,
         expected=None, domains=()):
    """inputs: {name: array}; outputs: names; inits: {name: array} initializers;
    dims: {input name: declared shape} (dim_param strings allowed); external:
    the initializers go to the data file <name>.weights beside the model;
    expected: the outputs computed here from the op's definition, for a case
    that neither ONNX Runtime nor onnx.reference runs; domains: other
    operator domains the nodes use (version 1)."""
    inits = inits or {}
    dims = dims or {}
    vis = [helper.make_tensor_value_info(n, ONNX_TYPE[a.dtype], dims.get(n, list(a.shape)))
           for n, a in inputs.items()]
    outs = [helper.make_empty_tensor_value_info(o) for o in outputs]
    g = helper.make_graph(nodes, name, vis, outs,
                          initializer=[numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains],
                          producer_name="gen_goldens_onnx")
    m.ir_version = 8 if opset <= 17 else 10
    results = expected if expected is not None else run_reference(m, inputs)
    if external:
        onnx.save_model(m, os.path.join(OUT, f"{name}.onnx"), save_as_external_data=True,
                        all_tensors_to_one_file=True, location=f"{name}.weights", size_threshold=0)
    else:
        with open(os.path.join(OUT, f"{name}.onnx"), "wb") as f:
            f.write(m.SerializeToString())
    for k, a in enumerate(inputs.values()):
        np.save(os.path.join(OUT, f"{name}.in{k}.npy"), np.require(a, requirements="C"))
    for k, a in enumerate(results):
        np.save(os.path.join(OUT, f"{name}.out{k}.npy"), np.require(np.asarray(a), requirements="C"))
    lines.append(f"{name} in={len(inputs)} out={len(results)} rtol={rtol:g} atol={atol:g}")


N = helper.make_node


def one(op, name, inputs, opset=13, n_out=1, inits=None, dims=None, rtol=1e-5, atol=1e-6, **attrs):
    """A one-node model: graph inputs, then initializers, feed the node."""
    names = list(inputs) + list((inits or {}).keys())
    outs = [f"z{k}" for k in range(n_out)]
    case(name, [N(op, names, outs, **attrs)], inputs, outs, inits, opset, dims, rtol, atol)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))

    # ---- element-wise, one input
    x = f32(2, 3, 4)
    for op in ["Abs", "Neg", "Exp", "Relu", "Sigmoid", "Tanh", "Erf", "Floor", "Ceil", "Sin", "Cos", "Softplus",
               "Softsign", "Sign", "Identity", "Reciprocal"]:
        one(op, f"{op.lower()}", {"x": x})
    one("Sqrt", "sqrt", {"x": pos(3, 4)})
    one("Log", "log", {"x": pos(3, 1, 4)})
    one("Round", "round_halves", {"x": np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6], np.float32)}, opset=11)
    one("IsNaN", "isnan", {"x": np.array([1.0, np.nan, -np.inf, 0.0], np.float32)})
    one("IsInf", "isinf", {"x": np.array([1.0, np.nan, -np.inf, np.inf], np.float32)})
    one("Not", "not", {"x": rng.random((2, 3)) > 0.5})
    one("Relu", "relu_opset6", {"x": f32(5)}, opset=7)
    one("Exp", "exp_dynamic", {"x": f32(3, 2)}, dims={"x": ["N", 2]})

    # ---- element-wise, two inputs (numpy broadcasting, size-1 dims)
    shapes = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1,), (2, 3)), ((), (2, 2))]
    for op in ["Add", "Sub", "Mul", "Div"]:
        for k, (sa, sb) in enumerate(shapes):
            b = pos(*sb) if op == "Div" else f32(*sb)
            one(op, f"{op.lower()}_b{k}", {"a": f32(*sa), "b": b})
    one("Add", "add_int64", {"a": ints(-50, 50, 2, 3), "b": ints(-50, 50, 3)})
    one("Mul", "mul_int32", {"a": ints(-9, 9, 4, 1, dtype=np.int32), "b": ints(-9, 9, 1, 5, dtype=np.int32)})
    one("Add", "add_opset7", {"a": f32(2, 3), "b": f32(3)}, opset=7)
    one("Pow", "pow", {"a": pos(2, 3), "b": f32(3)})
    one("Pow", "pow_int_exponent", {"a": f32(2, 3)}, inits={"e": np.array(3, np.int64)}, opset=15)
    for op in ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]:
        one(op, f"{op.lower()}", {"a": ints(0, 3, 2, 3, 4), "b": ints(0, 3, 3, 1)})
    one("Less", "less_float", {"a": f32(3, 4), "b": f32(4)})
    for op in ["And", "Or", "Xor"]:
        one(op, op.lower(), {"a": rng.random((2, 3)) > 0.5, "b": rng.random((3,)) > 0.5})
    one("Where", "where", {"c": rng.random((2, 1, 4)) > 0.5, "a": f32(3, 4), "b": f32(2, 3, 1)}, opset=9)
    one("Max", "max3", {"a": f32(2, 3), "b": f32(3), "c": f32(1, 3)})
    one("Min", "min2", {"a": f32(2, 3), "b": f32(2, 1)})
    one("Sum", "sum3", {"a": f32(2, 3), "b": f32(3), "c": f32(2, 3)})
    one("Mean", "mean2", {"a": f32(2, 3), "b": f32(2, 3)})
    one("Max", "max1", {"a": f32(4)})
    one("Mod", "mod_int", {"a": ints(-20, 20, 6), "b": np.array([3, -3, 4, -4, 5, 7], np.int64)})
    one("Mod", "fmod_float", {"a": f32(6) * 5, "b": pos(6)}, fmod=1)

    # ---- activations with parameters
    one("LeakyRelu", "leakyrelu", {"x": f32(3, 4)}, alpha=0.1)
    one("LeakyRelu", "leakyrelu_default", {"x": f32(3, 4)})
    one("Elu", "elu", {"x": f32(3, 4)}, alpha=0.7)
    one("PRelu", "prelu", {"x": f32(2, 3, 2, 2)}, inits={"slope": pos(3, 1, 1)})
    one("Selu", "selu", {"x": f32(3, 4)})
    one("HardSigmoid", "hardsigmoid", {"x": f32(3, 4) * 3}, alpha=0.3, beta=0.4)
    one("HardSwish", "hardswish", {"x": f32(3, 4) * 3}, opset=14)
    one("Gelu", "gelu", {"x": f32(3, 4)}, opset=20)
    one("Gelu", "gelu_tanh", {"x": f32(3, 4)}, opset=20, approximate="tanh")
    one("Clip", "clip_attr", {"x": f32(3, 4)}, opset=7, min=-0.5, max=0.7)
    one("Clip", "clip_inputs", {"x": f32(3, 4)}, inits={"lo": np.array(-0.5, np.float32), "hi": np.array(0.2, np.float32)})
    case("clip_max_only", [N("Clip", ["x", "", "hi"], ["z0"])], {"x": f32(3, 4)}, ["z0"],
         {"hi": np.array(0.1, np.float32)})
    one("Clip", "clip_none", {"x": f32(5)})

    # ---- matrix products
    one("MatMul", "matmul_2d", {"a": f32(3, 4), "b": f32(4, 5)})
    one("MatMul", "matmul_batched", {"a": f32(2, 3, 4), "b": f32(4, 5)})
    one("MatMul", "matmul_broadcast", {"a": f32(2, 1, 3, 4), "b": f32(5, 4, 2)})
    one("MatMul", "matmul_vec_mat", {"a": f32(4), "b": f32(4, 5)})
    one("MatMul", "matmul_mat_vec", {"a": f32(3, 4), "b": f32(4)})
    one("Gemm", "gemm", {"a": f32(3, 4)}, inits={"b": f32(4, 5), "c": f32(5)})
    one("Gemm", "gemm_trans", {"a": f32(4, 3)}, inits={"b": f32(5, 4), "c": f32(3, 5)}, transA=1, transB=1,
        alpha=0.5, beta=2.0)
    one("Gemm", "gemm_no_c", {"a": f32(3, 4)}, inits={"b": f32(4, 2)}, alpha=1.5)
    one("Gemm", "gemm_opset7", {"a": f32(3, 4)}, inits={"b": f32(4, 5), "c": f32(1, 5)}, opset=7, beta=0.5)
    one("Gemm", "gemm_dynamic", {"a": f32(2, 4)}, inits={"b": f32(4, 5), "c": f32(5)}, dims={"a": ["N", 4]})

    # ---- convolution and pooling
    img = f32(2, 3, 7, 6)
    w = f32(4, 3, 3, 3) * 0.3
    bias = f32(4)
    one("Conv", "conv_pad1", {"x": img}, inits={"w": w, "b": bias}, pads=[1, 1, 1, 1])
    one("Conv", "conv_stride2", {"x": img}, inits={"w": w, "b": bias}, strides=[2, 2])
    one("Conv", "conv_dilation2", {"x": img}, inits={"w": w}, dilations=[2, 2], pads=[2, 1, 2, 1])
    one("Conv", "conv_asym_pads", {"x": img}, inits={"w": w, "b": bias}, pads=[0, 1, 2, 0], strides=[1, 2])
    one("Conv", "conv_same_upper", {"x": img}, inits={"w": w, "b": bias}, auto_pad="SAME_UPPER", strides=[2, 2])
    one("Conv", "conv_same_lower", {"x": img}, inits={"w": w, "b": bias}, auto_pad="SAME_LOWER", strides=[2, 2])
    one("Conv", "conv_valid", {"x": img}, inits={"w": w}, auto_pad="VALID")
    one("Conv", "conv_1x1", {"x": img}, inits={"w": f32(5, 3, 1, 1)}, kernel_shape=[1, 1])
    one("Conv", "conv_group2", {"x": f32(1, 4, 5, 5)}, inits={"w": f32(6, 2, 3, 3), "b": f32(6)}, group=2,
        pads=[1, 1, 1, 1])
    one("Conv", "conv_depthwise", {"x": f32(2, 3, 5, 5)}, inits={"w": f32(3, 1, 3, 3)}, group=3, strides=[2, 2],
        pads=[1, 1, 1, 1])
    one("Conv", "conv_dynamic_batch", {"x": img}, inits={"w": w, "b": bias}, pads=[1, 1, 1, 1],
        dims={"x": ["N", 3, 7, 6]})
    one("Conv", "conv_opset11", {"x": img}, inits={"w": w, "b": bias}, opset=11, pads=[1, 1, 1, 1])
    pimg = f32(2, 3, 8, 7)
    one("MaxPool", "maxpool_2x2", {"x": pimg}, kernel_shape=[2, 2], strides=[2, 2])
    one("MaxPool", "maxpool_3x3_pad", {"x": pimg}, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    one("MaxPool", "maxpool_asym", {"x": pimg}, kernel_shape=[3, 2], pads=[0, 1, 1, 0])
    one("MaxPool", "maxpool_dilation", {"x": pimg}, kernel_shape=[2, 2], dilations=[2, 2])
    one("MaxPool", "maxpool_same_upper", {"x": pimg}, kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")
    one("MaxPool", "maxpool_opset8", {"x": pimg}, opset=8, kernel_shape=[2, 2])
    one("AveragePool", "avgpool_2x2", {"x": pimg}, kernel_shape=[2, 2], strides=[2, 2])
    one("AveragePool", "avgpool_pad_exclude", {"x": pimg}, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    one("AveragePool", "avgpool_pad_include", {"x": pimg}, kernel_shape=[3, 3], pads=[1, 1, 1, 1],
        count_include_pad=1)
    one("AveragePool", "avgpool_asym_include", {"x": pimg}, kernel_shape=[2, 3], pads=[1, 0, 0, 2],
        count_include_pad=1)
    one("GlobalAveragePool", "globalavgpool", {"x": pimg})
    one("GlobalMaxPool", "globalmaxpool", {"x": pimg})
    bn = {"scale": pos(3), "bias": f32(3), "mean": f32(3), "var": pos(3)}
    one("BatchNormalization", "batchnorm", {"x": pimg}, inits=bn, epsilon=1e-3)
    one("BatchNormalization", "batchnorm_opset9", {"x": f32(4, 3)}, inits=bn, opset=9)
    one("BatchNormalization", "batchnorm_opset15", {"x": pimg}, inits=bn, opset=15)
    one("InstanceNormalization", "instancenorm", {"x": f32(2, 3, 4, 5)}, inits={"s": pos(3), "b": f32(3)})
    one("LayerNormalization", "layernorm", {"x": f32(2, 3, 8)}, inits={"s": pos(8), "b": f32(8)}, opset=17)
    one("LayerNormalization", "layernorm_axis1", {"x": f32(2, 3, 4)}, inits={"s": pos(3, 4), "b": f32(3, 4)},
        opset=17, axis=1)
    one("LayerNormalization", "layernorm_no_bias", {"x": f32(4, 6)}, inits={"s": pos(6)}, opset=17, epsilon=1e-3)

    # ---- softmax: opset < 13 flattens at axis, opset >= 13 normalises along it
    sx = f32(2, 3, 4)
    one("Softmax", "softmax_opset11_axis1", {"x": sx}, opset=11, axis=1)
    one("Softmax", "softmax_opset11_default_2d", {"x": f32(3, 5)}, opset=11)
    one("Softmax", "softmax_opset11_dynamic", {"x": sx}, opset=11, axis=1, dims={"x": ["N", 3, 4]})
    # Ranks an opset-11 Softmax and a Flatten need, known only through the
    # nodes before them (import-time shape functions, symbolic batch).
    case("rank_through_nodes_dynamic",
         [N("Transpose", ["x"], ["t"], perm=[0, 2, 1]), N("Relu", ["t"], ["r"]),
          N("Softmax", ["r"], ["s"], axis=1), N("Flatten", ["s"], ["z0"], axis=2)],
         {"x": sx}, ["z0"], opset=11, dims={"x": ["N", 3, 4]})
    one("Softmax", "softmax_opset13_axis1", {"x": sx}, axis=1)
    one("Softmax", "softmax_opset13_default", {"x": sx})
    one("LogSoftmax", "logsoftmax_opset11_axis1", {"x": sx}, opset=11, axis=1)
    one("LogSoftmax", "logsoftmax_opset13_axis0", {"x": sx}, axis=0)

    # ---- shapes and data movement
    one("Flatten", "flatten_axis1", {"x": sx})
    one("Flatten", "flatten_axis0", {"x": sx}, axis=0)
    one("Flatten", "flatten_axis2_dynamic", {"x": sx}, axis=2, dims={"x": ["N", 3, 4]})
    one("Flatten", "flatten_axis_neg", {"x": sx}, axis=-1)
    one("Reshape", "reshape", {"x": sx}, inits={"s": np.array([6, 4], np.int64)})
    one("Reshape", "reshape_zero_minus1", {"x": sx}, inits={"s": np.array([0, -1], np.int64)})
    one("Reshape", "reshape_zero_dynamic", {"x": sx}, inits={"s": np.array([0, -1], np.int64)},
        dims={"x": ["N", 3, 4]})
    one("Reshape", "reshape_minus1", {"x": sx}, inits={"s": np.array([-1], np.int64)})
    one("Reshape", "reshape_zero_mid", {"x": sx}, inits={"s": np.array([2, 0, 2, 2], np.int64)}, opset=14)
    one("Reshape", "reshape_allowzero", {"x": sx}, inits={"s": np.array([4, -1], np.int64)}, opset=14,
        allowzero=1)
    one("Transpose", "transpose_default", {"x": sx})
    one("Transpose", "transpose_perm", {"x": sx}, perm=[1, 0, 2])
    one("Concat", "concat_axis1", {"a": f32(2, 3), "b": f32(2, 1), "c": f32(2, 2)}, axis=1)
    one("Concat", "concat_axis_neg", {"a": f32(2, 3, 2), "b": f32(2, 3, 1)}, axis=-1)
    one("Split", "split_equal", {"x": f32(6, 4)}, opset=11, n_out=3)
    one("Split", "split_sizes_attr", {"x": f32(2, 7)}, opset=11, n_out=2, axis=1, split=[3, 4])
    one("Split", "split_sizes_input", {"x": f32(2, 7)}, inits={"s": np.array([2, 5], np.int64)}, n_out=2, axis=-1)
    one("Split", "split_num_outputs_uneven", {"x": f32(7, 2)}, opset=18, n_out=3, num_outputs=3)
    one("Slice", "slice_opset9", {"x": sx}, opset=9, starts=[1, 0], ends=[2, 3], axes=[0, 2])
    one("Slice", "slice_steps", {"x": f32(5, 6)},
        inits={"s": np.array([4, 1], np.int64), "e": np.array([-10**12, 6], np.int64),
               "a": np.array([0, 1], np.int64), "st": np.array([-2, 2], np.int64)})
    one("Slice", "slice_neg_axes_int_max", {"x": sx},
        inits={"s": np.array([-3], np.int64), "e": np.array([2**63 - 1], np.int64), "a": np.array([-1], np.int64)})
    one("Slice", "slice_no_axes", {"x": f32(4, 5)}, inits={"s": np.array([1, -4], np.int64),
                                                         "e": np.array([3, -1], np.int64)})
    one("Squeeze", "squeeze_attr", {"x": f32(1, 3, 1, 2)}, opset=11, axes=[0, -2])
    one("Squeeze", "squeeze_input", {"x": f32(1, 3, 1, 2)}, inits={"a": np.array([2], np.int64)})
    one("Squeeze", "squeeze_all", {"x": f32(1, 3, 1, 2)})
    one("Unsqueeze", "unsqueeze_attr", {"x": f32(3, 2)}, opset=11, axes=[0, 3])
    one("Unsqueeze", "unsqueeze_input", {"x": f32(3, 2)}, inits={"a": np.array([-1, 1], np.int64)})
    one("Gather", "gather_axis0", {"x": f32(5, 3)}, inits={"i": np.array([[0, 4], [-1, 2]], np.int64)})
    one("Gather", "gather_axis1_int32", {"x": f32(2, 5, 3)}, inits={"i": np.array([3, 0, -2], np.int32)}, axis=1)
    one("Gather", "gather_scalar", {"x": f32(4, 3)}, inits={"i": np.array(2, np.int64)})
    one("Gather", "gather_indices_input", {"x": f32(6, 2), "i": ints(-6, 6, 4)})
    one("GatherElements", "gatherelements", {"x": f32(3, 4)}, inits={"i": ints(0, 3, 2, 4)}, axis=0)
    one("GatherND", "gathernd", {"x": f32(3, 4, 2)}, inits={"i": np.array([[0, 1], [2, 3]], np.int64)})
    one("Cast", "cast_float_to_int32", {"x": f32(3, 4) * 10}, to=TensorProto.INT32)
    one("Cast", "cast_int64_to_float", {"x": ints(-100, 100, 5)}, to=TensorProto.FLOAT)
    one("Cast", "cast_float_to_bool", {"x": np.array([0, 1.5, -2, 0], np.float32)}, to=TensorProto.BOOL)
    one("CastLike", "castlike", {"x": ints(-9, 9, 4)}, inits={"t": np.zeros(1, np.float64)}, opset=15)
    one("Dropout", "dropout_opset12", {"x": f32(3, 4)}, opset=12)
    one("Dropout", "dropout_opset10", {"x": f32(3, 4)}, opset=10, ratio=0.3)
    case("shape", [N("Shape", ["x"], ["z0"])], {"x": sx}, ["z0"])
    case("shape_start_end", [N("Shape", ["x"], ["z0"], start=1, end=-1)], {"x": f32(2, 3, 4, 5)}, ["z0"], opset=15)
    case("size", [N("Size", ["x"], ["z0"])], {"x": sx}, ["z0"])
    # x.view(x.size(0), -1) as exporters write it: folded into a constant shape.
    case("shape_chain_reshape", [N("Shape", ["x"], ["s"]), N("Gather", ["s", "i0"], ["n"], axis=0),
                                 N("Unsqueeze", ["n", "ax"], ["nu"]), N("Concat", ["nu", "m1"], ["shape"], axis=0),
                                 N("Reshape", ["x", "shape"], ["z0"])], {"x": sx}, ["z0"],
         {"i0": np.array(0, np.int64), "ax": np.array([0], np.int64), "m1": np.array([-1], np.int64)})
    case("range_folded", [N("Range", ["s", "l", "d"], ["r"]), N("Add", ["x", "r"], ["z0"])],
         {"x": np.arange(8, dtype=np.float32).reshape(2, 4) / 4}, ["z0"],
         {"s": np.array(1.0, np.float32), "l": np.array(3.0, np.float32), "d": np.array(0.5, np.float32)}, opset=11)
    case("constant", [N("Constant", [], ["c"], value=numpy_helper.from_array(f32(3, 4), "c")),
                      N("Add", ["x", "c"], ["z0"])], {"x": f32(2, 3, 4)}, ["z0"])
    case("constant_floats", [N("Constant", [], ["c"], value_floats=[1.0, -2.0, 3.5]),
                             N("Mul", ["x", "c"], ["z0"])], {"x": f32(2, 3)}, ["z0"])
    case("constant_shape_reshape", [N("Constant", [], ["s"], value_ints=[3, -1]),
                                    N("Reshape", ["x", "s"], ["z0"])], {"x": f32(2, 3, 2)}, ["z0"])
    case("constantofshape", [N("ConstantOfShape", ["s"], ["c"],
                                value=numpy_helper.from_array(np.array([2], np.int64), "v")),
                             N("Add", ["x", "c"], ["z0"])], {"x": ints(0, 9, 2, 3)}, ["z0"],
         {"s": np.array([2, 3], np.int64)})
    case("constantofshape_default", [N("ConstantOfShape", ["s"], ["z0"])], {}, ["z0"],
         {"s": np.array([3, 2], np.int64)})
    one("Expand", "expand", {"x": f32(3, 1)}, inits={"s": np.array([2, 3, 4], np.int64)})
    one("Expand", "expand_bidirectional", {"x": f32(2, 1, 4)}, inits={"s": np.array([3, 1], np.int64)})
    one("Tile", "tile", {"x": f32(2, 1, 3)}, inits={"r": np.array([2, 3, 1], np.int64)})
    one("Pad", "pad_constant", {"x": f32(2, 3)}, inits={"p": np.array([1, 0, 2, 3], np.int64),
                                                        "v": np.array(1.5, np.float32)}, opset=11)
    one("Pad", "pad_reflect", {"x": f32(3, 4)}, inits={"p": np.array([0, 2, 1, 1], np.int64)}, mode="reflect")
    one("Pad", "pad_edge", {"x": f32(2, 3, 3)}, inits={"p": np.array([0, 1, 1, 0, 2, 0], np.int64)}, mode="edge")
    one("Pad", "pad_opset2", {"x": f32(2, 3)}, opset=7, pads=[0, 1, 1, 2], value=-1.0)
    one("Pad", "pad_axes", {"x": f32(2, 3, 4)}, inits={"p": np.array([1, 2, 0, 1], np.int64),
                                                       "v": np.array(0.5, np.float32),
                                                       "a": np.array([-1, 0], np.int64)}, opset=18)
    one("Range", "range_float", {"s": np.array(0.5, np.float32), "l": np.array(3.0, np.float32),
                                 "d": np.array(0.75, np.float32)}, opset=11)
    one("Range", "range_int64", {}, inits={"s": np.array(10, np.int64), "l": np.array(-2, np.int64),
                                           "d": np.array(-3, np.int64)}, opset=11)
    one("CumSum", "cumsum", {"x": f32(3, 4)}, inits={"a": np.array(1, np.int64)})
    one("CumSum", "cumsum_exclusive_reverse", {"x": f32(3, 4)}, inits={"a": np.array(0, np.int32)}, exclusive=1,
        reverse=1)
    one("TopK", "topk", {"x": f32(3, 6)}, inits={"k": np.array([2], np.int64)}, n_out=2)
    one("TopK", "topk_smallest_axis0", {"x": f32(5, 3)}, inits={"k": np.array([3], np.int64)}, n_out=2, axis=0,
        largest=0)
    one("TopK", "topk_opset9", {"x": f32(2, 5)}, opset=9, n_out=2, k=2)
    one("Trilu", "trilu_upper", {"x": f32(4, 5)}, opset=14)
    one("Trilu", "trilu_lower_k", {"x": f32(2, 4, 4)}, inits={"k": np.array(-1, np.int64)}, opset=14, upper=0)
    scatter_cases()
    dtype_cases()
    if_cases()
    one("NonZero", "nonzero", {"x": np.array([[1, 0, 2], [0, 3, 0]], np.float32)})

    # ---- reductions: axes as an attribute (before opset 13 / 18) or an input
    rx = f32(2, 3, 4)
    one("ReduceSum", "reducesum_attr", {"x": rx}, opset=11, axes=[1])
    one("ReduceSum", "reducesum_input", {"x": rx}, inits={"a": np.array([0, 2], np.int64)})
    one("ReduceSum", "reducesum_all_nokeep", {"x": rx}, keepdims=0)
    one("ReduceSum", "reducesum_noop", {"x": rx}, noop_with_empty_axes=1)
    one("ReduceMean", "reducemean", {"x": rx}, axes=[-1])
    one("ReduceMean", "reducemean_opset18", {"x": rx}, inits={"a": np.array([1], np.int64)}, opset=18, keepdims=0)
    one("ReduceMax", "reducemax", {"x": rx}, axes=[0, 2], keepdims=0)
    one("ReduceMin", "reducemin", {"x": rx}, axes=[1])
    one("ReduceProd", "reduceprod", {"x": rx}, axes=[2])
    one("ReduceL1", "reducel1", {"x": rx}, axes=[1])
    one("ReduceL2", "reducel2", {"x": rx}, axes=[2], keepdims=0)
    one("ReduceLogSumExp", "reducelogsumexp", {"x": rx}, axes=[1])
    one("ReduceSumSquare", "reducesumsquare", {"x": rx}, axes=[0])
    # noop_with_empty_axes without axes: each element reduced alone (|x|,
    # x^2, log x), not a copy of x; then with the axes at run time.
    px = pos(2, 3, 4)
    for op, name, v in (("ReduceL1", "reducel1_noop", rx), ("ReduceL2", "reducel2_noop", rx),
                        ("ReduceSumSquare", "reducesumsquare_noop", rx), ("ReduceLogSum", "reducelogsum_noop", px),
                        ("ReduceLogSumExp", "reducelogsumexp_noop", rx)):
        one(op, name, {"x": v}, opset=18, noop_with_empty_axes=1)
    for op, name, v in (("ReduceL2", "reducel2_noop_runtime_axes", rx),
                        ("ReduceLogSum", "reducelogsum_noop_runtime_axes", px),
                        ("ReduceSumSquare", "reducesumsquare_runtime_axes", rx),
                        ("ReduceLogSumExp", "reducelogsumexp_noop_runtime_axes", rx)):
        one(op, name, {"x": v, "axes": np.zeros(0, np.int64)}, opset=18, noop_with_empty_axes=1)
    one("ReduceLogSum", "reducelogsum_runtime_axes_given", {"x": px, "axes": np.array([1], np.int64)}, opset=18,
        noop_with_empty_axes=1)
    one("ArgMax", "argmax", {"x": rx}, axis=1)
    one("ArgMax", "argmax_nokeep", {"x": rx}, axis=-1, keepdims=0)
    one("ArgMin", "argmin", {"x": rx}, axis=0)

    # ---- external data (initializers in a file beside the model)
    case("external_data", [N("MatMul", ["x", "w"], ["m"]), N("Add", ["m", "b"], ["z0"])], {"x": f32(2, 4)}, ["z0"],
         {"w": f32(4, 3), "b": f32(3)}, external=True)

    # ---- whole models
    mlp()
    cnn()

    errors()
    conv_transpose_cases()
    mobilenet_block()
    unet_mini()
    bert_mini()
    runtime_shape_cases()
    ceil_mode_cases()
    recurrent_cases()
    lstm_classifier()
    resize_cases()
    unet_resize()
    einsum_cases()
    rnn_cases()
    one_d_cases()
    lowering_cases()
    sequence_reversal_cases()
    scan_cases()
    random_cases()
    quantize_cases()
    window_cases()
    integer_cases()
    dft_cases()
    quantized_conv_cases()
    loss_cases()
    max_unpool_cases()
    grid_sample_cases()
    roi_align_cases()
    sequence_cases()
    runtime_axis_cases()
    spectrogram_cases()
    max_roi_pool_cases()
    crop_and_resize_cases()
    antialias_resize_cases()
    unique_axis_cases()
    flex_attention_cases()
    grid_sample_3d_cases()
    deform_conv_cases()
    max_unpool_runtime_cases()
    tfidf_cases()

    with open(os.path.join(OUT, "MANIFEST"), "w") as f:
        f.write("# case in=N out=N rtol=r atol=a (tools/gen_goldens_onnx.py)\n")
        f.write("\n".join(lines) + "\n")
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"{len(lines)} cases in {OUT} ({total} bytes)")


def scatter_cases():
    """Scatter, one-hot, depth/space and nearest resizing (their own random
    stream, so adding cases here leaves the other goldens as they are)."""
    r = np.random.default_rng(20260119)
    g = lambda *s: r.standard_normal(s).astype(np.float32)
    one("ScatterElements", "scatterelements", {"x": g(3, 4)},
        inits={"i": np.array([[1, 0, 2, 0], [2, 2, 0, 1]], np.int64), "u": g(2, 4)}, axis=0)
    one("ScatterElements", "scatterelements_add", {"x": g(3, 4)},
        inits={"i": np.array([[1, 1], [3, 3], [0, 2]], np.int64), "u": g(3, 2)}, axis=1, reduction="add", opset=16)
    one("ScatterND", "scatternd", {"x": g(4, 3)},
        inits={"i": np.array([[1], [3]], np.int64), "u": g(2, 3)})
    one("ScatterND", "scatternd_mul", {"x": g(2, 3)},
        inits={"i": np.array([[0, 1], [1, 2], [0, 1]], np.int64), "u": g(3)}, opset=16, reduction="mul")
    one("OneHot", "onehot", {"i": np.array([[0, 2], [1, 3]], np.int64)},
        inits={"d": np.array(4, np.int64), "v": np.array([-1.0, 2.5], np.float32)}, opset=11)
    one("OneHot", "onehot_axis0", {"i": np.array([2, 0, 1], np.int64)},
        inits={"d": np.array(3, np.int64), "v": np.array([0, 1], np.int64)}, opset=11, axis=0)
    one("DepthToSpace", "depthtospace_dcr", {"x": g(2, 8, 2, 3)}, blocksize=2)
    one("DepthToSpace", "depthtospace_crd", {"x": g(1, 8, 3, 2)}, blocksize=2, mode="CRD")
    one("SpaceToDepth", "spacetodepth", {"x": g(2, 2, 4, 6)}, blocksize=2, dims={"x": ["N", 2, 4, 6]})
    one("Resize", "resize_nearest_asymmetric", {"x": g(1, 2, 3, 4)},
        inits={"roi": np.zeros(0, np.float32), "s": np.array([1, 1, 2, 3], np.float32)},
        coordinate_transformation_mode="asymmetric", nearest_mode="floor", mode="nearest")
    one("Resize", "resize_nearest_half_pixel", {"x": g(2, 1, 2, 3)},
        inits={"roi": np.zeros(0, np.float32), "s": np.array([1, 1, 3, 2], np.float32)}, mode="nearest")
    case("resize_sizes", [N("Resize", ["x", "", "", "sz"], ["z0"], mode="nearest")], {"x": g(1, 1, 2, 2)}, ["z0"],
         {"sz": np.array([1, 1, 4, 6], np.int64)})
    one("Upsample", "upsample_opset9", {"x": g(1, 2, 2, 3)}, inits={"s": np.array([1, 1, 2, 2], np.float32)},
        opset=9)


def dtype_cases():
    """float16 and float64 models: constants the importer makes (alpha,
    epsilon, scales) take the input's dtype, so nothing is promoted."""
    r = np.random.default_rng(20260120)
    h = lambda *s: r.standard_normal(s).astype(np.float16)
    d = lambda *s: r.standard_normal(s).astype(np.float64)
    one("LeakyRelu", "leakyrelu_f16", {"x": h(3, 4)}, alpha=0.2, rtol=1e-3, atol=1e-3)
    one("HardSigmoid", "hardsigmoid_f16", {"x": h(3, 4)}, rtol=1e-3, atol=1e-3)
    one("Elu", "elu_f64", {"x": d(3, 4)})
    one("Gemm", "gemm_f64", {"a": d(2, 3)}, inits={"b": d(3, 4), "c": d(4)}, alpha=0.5, beta=3.0)
    one("LayerNormalization", "layernorm_f64", {"x": d(2, 5)}, inits={"s": d(5), "b": d(5)}, opset=17)


def if_cases():
    """If: branches read outer values (a graph input, a node's output, an
    initializer) by name; the condition is a scalar or a one-element tensor."""
    r = np.random.default_rng(20260121)
    x = r.standard_normal((2, 3)).astype(np.float32)
    then_g = helper.make_graph([N("Add", ["x", "c1"], ["t0"]), N("Identity", ["y"], ["t1"])], "then", [],
                               [helper.make_empty_tensor_value_info("t0"), helper.make_empty_tensor_value_info("t1")])
    inner_then = helper.make_graph([N("Neg", ["y"], ["n0"])], "inner_then", [], [helper.make_empty_tensor_value_info("n0")])
    inner_else = helper.make_graph([N("Sigmoid", ["x"], ["n1"])], "inner_else", [],
                                   [helper.make_empty_tensor_value_info("n1")])
    else_g = helper.make_graph([N("Mul", ["x", "y"], ["e0"]),
                                N("If", ["c2"], ["e1"], then_branch=inner_then, else_branch=inner_else)], "else", [],
                               [helper.make_empty_tensor_value_info("e0"), helper.make_empty_tensor_value_info("e1")])
    nodes = [N("Relu", ["x"], ["y"]), N("If", ["c"], ["z0", "z1"], name="choose", then_branch=then_g, else_branch=else_g)]
    inits = {"c1": r.standard_normal(3).astype(np.float32)}
    case("if_true", nodes, {"x": x, "c": np.array(True), "c2": np.array(True)}, ["z0", "z1"], inits)
    case("if_false_nested", nodes, {"x": x, "c": np.array(False), "c2": np.array(False)}, ["z0", "z1"], inits)
    # Loop: a trip count, the iteration number and an outer value in the body.
    vi = helper.make_tensor_value_info
    body = helper.make_graph([N("Identity", ["cond_in"], ["cond_out"]), N("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
                              N("Mul", ["y", "fi"], ["s"]), N("Add", ["v_in", "s"], ["v_out"])], "body",
                             [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                              vi("v_in", TensorProto.FLOAT, [2, 3])],
                             [vi("cond_out", TensorProto.BOOL, []), vi("v_out", TensorProto.FLOAT, [2, 3])])
    case("loop_trip_count", [N("Relu", ["x"], ["y"]), N("Loop", ["n", "", "x"], ["z0"], body=body)], {"x": x},
         ["z0"], {"n": np.array(3, np.int64)})
    # Loop: no trip count, stops on a condition the body computes.
    body = helper.make_graph([N("Mul", ["v_in", "two"], ["v_out"]), N("ReduceSum", ["v_out"], ["tot"], keepdims=0),
                              N("Less", ["tot", "limit"], ["cond_out"])], "body",
                             [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                              vi("v_in", TensorProto.FLOAT, [3])],
                             [vi("cond_out", TensorProto.BOOL, []), vi("v_out", TensorProto.FLOAT, [3])],
                             initializer=[numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    case("loop_condition", [N("Loop", ["", "c", "v"], ["z0"], body=body)],
         {"v": np.array([0.5, 1.0, 0.25], np.float32), "c": np.array(True)}, ["z0"],
         {"limit": np.array(50.0, np.float32)})
    case("if_cond_shape1", nodes, {"x": x, "c": np.array([False]), "c2": np.array(True)}, ["z0", "z1"], inits)


def conv_transpose_cases():
    """ConvTranspose (deconv2d); generated last, so earlier cases keep their data."""
    x = f32(2, 3, 4, 5)
    w = f32(3, 4, 3, 3)
    b = f32(4)
    one("ConvTranspose", "convtranspose", {"x": x}, inits={"w": w, "b": b})
    one("ConvTranspose", "convtranspose_pad1", {"x": x}, inits={"w": w}, pads=[1, 1, 1, 1])
    one("ConvTranspose", "convtranspose_k2_s2", {"x": x}, inits={"w": f32(3, 2, 2, 2), "b": f32(2)}, strides=[2, 2],
        dims={"x": ["N", 3, 4, 5]})
    one("ConvTranspose", "convtranspose_s2_pad1_outpad1", {"x": x}, inits={"w": w, "b": b}, strides=[2, 2],
        pads=[1, 1, 1, 1], output_padding=[1, 1])
    one("ConvTranspose", "convtranspose_dilation2", {"x": x}, inits={"w": w}, dilations=[2, 2], pads=[1, 2, 1, 2])
    one("ConvTranspose", "convtranspose_asym_pads", {"x": x}, inits={"w": w, "b": b}, strides=[2, 2],
        pads=[2, 0, 1, 1])
    one("ConvTranspose", "convtranspose_same_upper", {"x": x}, inits={"w": w}, strides=[2, 2], auto_pad="SAME_UPPER")
    one("ConvTranspose", "convtranspose_same_lower", {"x": x}, inits={"w": w}, strides=[2, 2], auto_pad="SAME_LOWER")
    one("ConvTranspose", "convtranspose_output_shape", {"x": x}, inits={"w": w, "b": b}, strides=[2, 2],
        output_shape=[9, 10])


def mobilenet_block():
    """An inverted residual block (MobileNetV2): 1x1 expand, BN, ReLU6 as
    Clip, 3x3 depthwise (group = channels), BN, ReLU6, 1x1 project, BN,
    residual add; dynamic batch."""
    c, e = 4, 12
    inits = {"w1": f32(e, c, 1, 1) * 0.5, "w2": f32(e, 1, 3, 3) * 0.5, "w3": f32(c, e, 1, 1) * 0.3,
             "lo": np.array(0, np.float32), "hi": np.array(6, np.float32)}
    for name, ch in (("b1", e), ("b2", e), ("b3", c)):
        inits[name + "_s"], inits[name + "_o"] = pos(ch), f32(ch) * 0.1
        inits[name + "_m"], inits[name + "_v"] = f32(ch) * 0.1, pos(ch)

    def bn(name, x, y):
        return N("BatchNormalization", [x, name + "_s", name + "_o", name + "_m", name + "_v"], [y], epsilon=1e-5)

    nodes = [N("Conv", ["x", "w1"], ["a1"]), bn("b1", "a1", "n1"), N("Clip", ["n1", "lo", "hi"], ["r1"]),
             N("Conv", ["r1", "w2"], ["a2"], group=e, pads=[1, 1, 1, 1]), bn("b2", "a2", "n2"),
             N("Clip", ["n2", "lo", "hi"], ["r2"]), N("Conv", ["r2", "w3"], ["a3"]), bn("b3", "a3", "n3"),
             N("Add", ["x", "n3"], ["y"])]
    case("model_mobilenet_block", nodes, {"x": f32(2, c, 7, 6) * 3}, ["y"], inits, opset=13,
         dims={"x": ["N", c, 7, 6]}, rtol=1e-4, atol=1e-5)


def unet_mini():
    """Two levels: conv-relu, maxpool, conv-relu, ConvTranspose 2x2/2 up,
    concat with the skip, conv."""
    inits = {"w1": f32(4, 3, 3, 3) * 0.3, "b1": f32(4), "w2": f32(8, 4, 3, 3) * 0.2, "b2": f32(8),
             "wt": f32(8, 4, 2, 2) * 0.3, "bt": f32(4), "w3": f32(2, 8, 3, 3) * 0.2, "b3": f32(2)}
    nodes = [N("Conv", ["x", "w1", "b1"], ["a1"], pads=[1, 1, 1, 1]), N("Relu", ["a1"], ["s1"]),
             N("MaxPool", ["s1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             N("Conv", ["p1", "w2", "b2"], ["a2"], pads=[1, 1, 1, 1]), N("Relu", ["a2"], ["r2"]),
             N("ConvTranspose", ["r2", "wt", "bt"], ["u"], kernel_shape=[2, 2], strides=[2, 2]),
             N("Concat", ["u", "s1"], ["cat"], axis=1),
             N("Conv", ["cat", "w3", "b3"], ["y"], pads=[1, 1, 1, 1])]
    case("model_unet_mini", nodes, {"x": f32(1, 3, 8, 10)}, ["y"], inits, opset=13, rtol=1e-4, atol=1e-5)


def bert_mini(seq=8, d=16, heads=2, ffn=32):
    """One BERT-style layer as exporters write it: decomposed LayerNorm,
    GELU through Erf, an additive attention mask."""
    dh = d // heads
    inits = {"two": np.array(2, np.float32), "eps": np.array(1e-12, np.float32),
             "sqrt2": np.array(np.sqrt(2), np.float32), "one": np.array(1, np.float32),
             "half": np.array(0.5, np.float32), "scale": np.array(1 / np.sqrt(dh), np.float32),
             "mask": np.where(np.arange(seq) < seq - 2, 0, -10000).astype(np.float32).reshape(1, 1, 1, seq),
             "heads_shape": np.array([1, seq, heads, dh], np.int64), "flat_shape": np.array([1, seq, d], np.int64)}
    nodes = []

    def linear(x, fin, fout, name):
        inits[name + "_w"], inits[name + "_b"] = f32(fin, fout) * 0.3, f32(fout) * 0.1
        nodes.extend([N("MatMul", [x, name + "_w"], [name + "_m"]), N("Add", [name + "_m", name + "_b"], [name])])
        return name

    def layer_norm(x, name):
        inits[name + "_g"], inits[name + "_bt"] = pos(d), f32(d) * 0.1
        nodes.extend([N("ReduceMean", [x], [name + "_mu"], axes=[-1]), N("Sub", [x, name + "_mu"], [name + "_c"]),
                      N("Pow", [name + "_c", "two"], [name + "_sq"]),
                      N("ReduceMean", [name + "_sq"], [name + "_var"], axes=[-1]),
                      N("Add", [name + "_var", "eps"], [name + "_ve"]), N("Sqrt", [name + "_ve"], [name + "_sd"]),
                      N("Div", [name + "_c", name + "_sd"], [name + "_n"]),
                      N("Mul", [name + "_n", name + "_g"], [name + "_ng"]),
                      N("Add", [name + "_ng", name + "_bt"], [name])])
        return name

    def heads_of(t):
        nodes.extend([N("Reshape", [t, "heads_shape"], [t + "_r"]),
                      N("Transpose", [t + "_r"], [t + "_h"], perm=[0, 2, 1, 3])])
        return t + "_h"

    q, k, v = (heads_of(linear("x", d, d, n)) for n in ("q", "k", "v"))
    nodes.extend([N("Transpose", [k], ["kt"], perm=[0, 1, 3, 2]), N("MatMul", [q, "kt"], ["s"]),
                  N("Mul", ["s", "scale"], ["ss"]), N("Add", ["ss", "mask"], ["sm"]),
                  N("Softmax", ["sm"], ["p"], axis=-1), N("MatMul", ["p", v], ["ctx"]),
                  N("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
                  N("Reshape", ["ctx_t", "flat_shape"], ["ctx_f"])])
    o = linear("ctx_f", d, d, "o")
    nodes.append(N("Add", ["x", o], ["res1"]))
    h = layer_norm("res1", "ln1")
    f = linear(h, d, ffn, "f1")
    nodes.extend([N("Div", [f, "sqrt2"], ["g_d"]), N("Erf", ["g_d"], ["g_e"]), N("Add", ["g_e", "one"], ["g_a"]),
                  N("Mul", [f, "g_a"], ["g_m"]), N("Mul", ["g_m", "half"], ["gelu"])])
    f2 = linear("gelu", ffn, d, "f2")
    nodes.append(N("Add", [h, f2], ["res2"]))
    layer_norm("res2", "y")
    case("model_bert_mini", nodes, {"x": f32(1, seq, d)}, ["y"], inits, opset=13, rtol=1e-4, atol=1e-5)


def runtime_shape_cases():
    """Shapes known only at run time: a Reshape fed its shape, whose 0
    copies a dim, and the Shape -> Gather -> Unsqueeze -> Concat -> Reshape
    chain exporters write for a dynamic batch."""
    case("reshape_runtime_shape", [N("Reshape", ["x", "s"], ["z0"])],
         {"x": f32(2, 3, 4), "s": np.array([0, -1], np.int64)}, ["z0"])
    case("shape_chain_dynamic",
         [N("Shape", ["x"], ["s"]), N("Gather", ["s", "i0"], ["n"], axis=0), N("Unsqueeze", ["n", "ax"], ["nu"]),
          N("Concat", ["nu", "m1"], ["shape"], axis=0), N("Reshape", ["x", "shape"], ["z0"])],
         {"x": f32(3, 3, 4)}, ["z0"],
         {"i0": np.array(0, np.int64), "ax": np.array([0], np.int64), "m1": np.array([-1], np.int64)},
         dims={"x": ["N", 3, 4]})
    case("shape_start_end_dynamic", [N("Shape", ["x"], ["z0"], start=1, end=-1)], {"x": f32(2, 3, 4, 5)}, ["z0"],
         opset=15, dims={"x": ["N", 3, 4, "W"]})


def ceil_mode_cases():
    """Pooling with ceil_mode = 1 (Note [Ceil mode] in libops/ops/nn/conv_utils.h)."""
    x = f32(2, 3, 8, 7)
    one("MaxPool", "maxpool_ceil", {"x": x}, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    one("MaxPool", "maxpool_ceil_pads", {"x": x}, kernel_shape=[2, 2], strides=[3, 3], pads=[1, 1, 1, 1], ceil_mode=1)
    one("AveragePool", "averagepool_ceil", {"x": x}, kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)
    one("AveragePool", "averagepool_ceil_incpad", {"x": x}, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
        ceil_mode=1, count_include_pad=1)
    one("AveragePool", "averagepool_ceil_pads", {"x": x}, kernel_shape=[3, 2], strides=[2, 2], pads=[1, 1, 1, 1],
        ceil_mode=1)


def rnn(op, name, direction="forward", layout=0, inputs=("B",), outs=("Y", "Y_h", "Y_c"), opset=14,
        **attrs):
    """One LSTM / GRU / RNN node: sequence 5, batch 3, input 4, hidden 6."""
    T, B, I, H = 5, 3, 4, 6
    G, D = {"LSTM": 4, "GRU": 3, "RNN": 1}[op], (2 if direction == "bidirectional" else 1)
    x = f32(B, T, I) if layout else f32(T, B, I)
    inits = {"W": f32(D, G * H, I) * 0.5, "R": f32(D, G * H, H) * 0.5}
    feeds = {"x": x}
    names = ["x", "W", "R"]
    opt = {"B": lambda: f32(D, 2 * G * H) * 0.5,
           "sequence_lens": lambda: np.array([T, 2, 4][:B], np.int32),
           "initial_h": lambda: f32(*((B, D, H) if layout else (D, B, H))),
           "initial_c": lambda: f32(*((B, D, H) if layout else (D, B, H))),
           "P": lambda: f32(D, 3 * H) * 0.5}
    order = ["B", "sequence_lens", "initial_h", "initial_c", "P"][:5 if op == "LSTM" else 3]
    for k in order:
        if k in inputs:
            inits[k] = opt[k]()
            names.append(k)
        else:
            names.append("")
    while names[-1] == "":
        names.pop()
    node_outs = [o if o in outs else "" for o in (("Y", "Y_h", "Y_c") if op == "LSTM" else ("Y", "Y_h"))]
    if not any(node_outs):
        node_outs = ["Y"]
    while node_outs[-1] == "":
        node_outs.pop()
    if layout:
        attrs["layout"] = 1
    case(name, [N(op, names, node_outs, hidden_size=H, direction=direction, **attrs)], feeds,
         [o for o in node_outs if o], inits, opset=opset, rtol=1e-5, atol=1e-5)


def recurrent_cases():
    """LSTM and GRU (lstm_layer / gru_layer); generated after the others."""
    rnn("LSTM", "lstm_forward", opset=7)
    rnn("LSTM", "lstm_reverse_y_h_only", direction="reverse", outs=("Y_h",))
    rnn("LSTM", "lstm_bidirectional_all_inputs", direction="bidirectional",
        inputs=("B", "sequence_lens", "initial_h", "initial_c", "P"))
    # ONNX Runtime refuses layout 1, and onnx.reference (which then computes
    # the goldens) ignores sequence_lens: the layout-1 cases have none.
    rnn("LSTM", "lstm_layout1_init", layout=1, inputs=("B", "initial_h"))
    rnn("LSTM", "lstm_layout1_bidirectional", layout=1, direction="bidirectional",
        inputs=("B", "initial_h", "initial_c"))
    rnn("LSTM", "lstm_no_bias", inputs=(), outs=("Y", "Y_c"))
    rnn("LSTM", "lstm_activations", activations=["HardSigmoid", "Tanh", "Softsign"], activation_alpha=[0.3],
        activation_beta=[0.45])
    rnn("GRU", "gru_forward", opset=7)
    rnn("GRU", "gru_linear_before_reset", linear_before_reset=1, inputs=("B", "initial_h"))
    rnn("GRU", "gru_bidirectional_seq_lens", direction="bidirectional", linear_before_reset=1,
        inputs=("B", "sequence_lens", "initial_h"))
    rnn("GRU", "gru_reverse_layout1", direction="reverse", layout=1, inputs=("B", "initial_h"))
    rnn("GRU", "gru_layout1_bidirectional_y_h", layout=1, direction="bidirectional", outs=("Y_h",))


def resize_cases():
    """Resize onto the resize op: linear and cubic, every coordinate mode,
    scales and sizes; Upsample's linear mode."""
    x = f32(1, 2, 5, 6)
    sc = lambda *v: {"roi": np.zeros(0, np.float32), "s": np.array([1, 1, *v], np.float32)}  # noqa: E731
    one("Resize", "resize_linear_half_pixel", {"x": x}, inits=sc(2, 2), mode="linear")
    one("Resize", "resize_linear_fractional", {"x": x}, inits=sc(1.5, 0.7), mode="linear")
    one("Resize", "resize_linear_align_corners", {"x": x}, inits=sc(1.8, 2.5), mode="linear",
        coordinate_transformation_mode="align_corners")
    one("Resize", "resize_linear_asymmetric_down", {"x": f32(2, 3, 9, 8)}, inits=sc(0.5, 0.4), mode="linear",
        coordinate_transformation_mode="asymmetric")
    one("Resize", "resize_cubic_half_pixel", {"x": x}, inits=sc(2, 1.5), mode="cubic", rtol=1e-4, atol=1e-5)
    one("Resize", "resize_cubic_pytorch_exclude", {"x": x}, inits=sc(1.6, 2), mode="cubic",
        coordinate_transformation_mode="pytorch_half_pixel", cubic_coeff_a=-0.5, exclude_outside=1, rtol=1e-4,
        atol=1e-5)
    case("resize_linear_sizes", [N("Resize", ["x", "", "", "sz"], ["z0"], mode="linear")], {"x": x}, ["z0"],
         {"sz": np.array([1, 2, 7, 4], np.int64)})
    one("Resize", "resize_nearest_ceil_down", {"x": f32(1, 1, 7, 9)}, inits=sc(0.6, 0.5), mode="nearest",
        nearest_mode="ceil")
    one("Resize", "resize_nearest_round_up_fractional", {"x": x}, inits=sc(1.7, 2.3), mode="nearest",
        nearest_mode="round_prefer_ceil", coordinate_transformation_mode="align_corners")
    one("Upsample", "upsample_linear_opset9", {"x": f32(1, 2, 3, 4)}, inits={"s": np.array([1, 1, 2, 2], np.float32)},
        opset=9, mode="linear")


def einsum_cases():
    """Einsum lowered onto permute, reduce_sum and matmul (Note [Einsum])."""
    for name, eq, shapes in [
        ("einsum_batched_matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("einsum_attention_scores", "bhqd,bhkd->bhqk", [(1, 2, 5, 4), (1, 2, 6, 4)]),
        ("einsum_attention_context", "bhqk,bhkd->bqhd", [(1, 2, 5, 6), (1, 2, 6, 4)]),
        ("einsum_transpose", "ij->ji", [(3, 4)]),
        ("einsum_sum_axis", "ijk->ki", [(2, 3, 4)]),
        ("einsum_dot", "i,i->", [(5,), (5,)]),
        ("einsum_matvec", "ij,j->i", [(3, 4), (4,)]),
        ("einsum_rowwise_dot", "bi,bi->b", [(3, 4), (3, 4)]),
        ("einsum_outer", "i,j->ij", [(3,), (4,)]),
        ("einsum_implicit", "ij,kj", [(3, 4), (2, 4)]),
        ("einsum_three_operands", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
        ("einsum_grouped_free", "abc,cd->abd", [(2, 3, 4), (4, 5)]),
        ("einsum_grouped_contraction", "abcd,cde->abe", [(2, 3, 4, 5), (4, 5, 6)]),
        ("einsum_summed_before", "ij,jk->i", [(2, 3), (3, 4)]),
        ("einsum_broadcast_batch", "bij,bjk->bik", [(1, 3, 4), (2, 4, 5)]),
        # "..." (numpy's rule: right-aligned, extents of 1 broadcast)
        ("einsum_ellipsis_matmul", "...ij,...jk->...ik", [(2, 3, 4, 5), (2, 3, 5, 6)]),
        ("einsum_ellipsis_implicit", "...ij,jk", [(2, 3, 4), (4, 5)]),
        ("einsum_ellipsis_middle", "b...d,b...d->b...", [(2, 3, 4), (2, 3, 4)]),
        ("einsum_ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]),
        # an index repeated within an operand: its diagonal
        ("einsum_diagonal", "ii->i", [(4, 4)]),
        ("einsum_batch_trace", "bii->b", [(3, 4, 4)]),
        ("einsum_diagonal_apart", "iji,jk->ik", [(3, 2, 3), (2, 5)]),
    ]:
        names = [f"x{k}" for k in range(len(shapes))]
        case(name, [N("Einsum", names, ["z0"], equation=eq)], {n: f32(*s) for n, s in zip(names, shapes)}, ["z0"],
             opset=12, rtol=1e-5, atol=1e-5)
    case("einsum_dynamic_batch", [N("Einsum", ["q", "k"], ["z0"], equation="bqd,bkd->bqk")],
         {"q": f32(3, 5, 4), "k": f32(3, 6, 4)}, ["z0"], opset=12, dims={"q": ["B", 5, 4], "k": ["B", 6, 4]})


def unet_resize(c=4):
    """A 2-level U-Net whose decoder upsamples with Resize (linear,
    half_pixel, as torch's bilinear interpolate exports) instead of
    ConvTranspose."""
    def conv(x, cin, cout, name):
        inits[name + "_w"], inits[name + "_b"] = f32(cout, cin, 3, 3) * 0.3, f32(cout) * 0.1
        nodes.append(N("Conv", [x, name + "_w", name + "_b"], [name + "_c"], pads=[1, 1, 1, 1]))
        nodes.append(N("Relu", [name + "_c"], [name]))
        return name
    nodes, inits = [], {}
    e1 = conv("x", 3, c, "e1")
    nodes.append(N("MaxPool", [e1], ["p1"], kernel_shape=[2, 2], strides=[2, 2]))
    e2 = conv("p1", c, 2 * c, "e2")
    inits["roi"], inits["up_s"] = np.zeros(0, np.float32), np.array([1, 1, 2, 2], np.float32)
    nodes.append(N("Resize", [e2, "roi", "up_s"], ["up"], mode="linear"))
    nodes.append(N("Concat", ["up", e1], ["cat"], axis=1))
    d1 = conv("cat", 3 * c, c, "d1")
    inits["head_w"] = f32(1, c, 1, 1)
    nodes.append(N("Conv", [d1, "head_w"], ["y"]))
    case("model_unet_resize", nodes, {"x": f32(1, 3, 8, 10)}, ["y"], inits, opset=13, rtol=1e-4, atol=1e-5)


def rnn_cases():
    """ONNX's RNN (rnn_layer); generated after the others."""
    rnn("RNN", "rnn_forward", opset=7, outs=("Y", "Y_h"))
    rnn("RNN", "rnn_bidirectional_seq_lens", direction="bidirectional", inputs=("B", "sequence_lens", "initial_h"),
        outs=("Y", "Y_h"))
    rnn("RNN", "rnn_reverse_relu_y_h", direction="reverse", activations=["Relu"], outs=("Y_h",))
    # layout 1 goes to onnx.reference (ORT refuses it), which knows Tanh alone.
    rnn("RNN", "rnn_layout1", layout=1, inputs=("B", "initial_h"), outs=("Y", "Y_h"))
    rnn("RNN", "rnn_leaky_relu", activations=["LeakyRelu"], activation_alpha=[0.2], outs=("Y", "Y_h"))


def one_d_cases():
    """1-D Conv and pooling over [N, C, W], run as 2-D over a unit height."""
    x = f32(2, 3, 11)
    one("Conv", "conv1d", {"x": x}, inits={"w": f32(4, 3, 3), "b": f32(4)})
    one("Conv", "conv1d_stride_pad_dilation", {"x": x}, inits={"w": f32(5, 3, 3)}, strides=[2], pads=[2, 2],
        dilations=[2])
    one("Conv", "conv1d_asymmetric_pads", {"x": x}, inits={"w": f32(2, 3, 4)}, pads=[1, 2])
    one("Conv", "conv1d_same_lower", {"x": x}, inits={"w": f32(2, 3, 4)}, auto_pad="SAME_LOWER", strides=[2])
    one("Conv", "conv1d_same_upper", {"x": x}, inits={"w": f32(2, 3, 4)}, auto_pad="SAME_UPPER")
    one("Conv", "conv1d_depthwise", {"x": x}, inits={"w": f32(6, 1, 3), "b": f32(6)}, group=3, pads=[1, 1])
    one("MaxPool", "maxpool1d", {"x": x}, kernel_shape=[3], strides=[2], pads=[1, 1])
    one("MaxPool", "maxpool1d_ceil", {"x": x}, kernel_shape=[2], strides=[2], ceil_mode=1)
    one("AveragePool", "avgpool1d", {"x": x}, kernel_shape=[3], strides=[1], pads=[1, 1])
    one("AveragePool", "avgpool1d_include_pad", {"x": x}, kernel_shape=[4], strides=[3], pads=[1, 2],
        count_include_pad=1)
    inits = {"w1": f32(8, 3, 5) * 0.3, "b1": f32(8) * 0.1, "w2": f32(8, 8, 3) * 0.3, "fc": f32(8, 4), "fb": f32(4)}
    nodes = [N("Conv", ["x", "w1", "b1"], ["c1"], pads=[2, 2]), N("Relu", ["c1"], ["r1"]),
             N("MaxPool", ["r1"], ["p1"], kernel_shape=[2], strides=[2]),
             N("Conv", ["p1", "w2"], ["c2"], pads=[2, 2], dilations=[2]), N("Relu", ["c2"], ["r2"]),
             N("GlobalAveragePool", ["r2"], ["g"]), N("Flatten", ["g"], ["f"]), N("Gemm", ["f", "fc", "fb"], ["y"])]
    case("model_conv1d_classifier", nodes, {"x": f32(2, 3, 32)}, ["y"], inits, opset=13, rtol=1e-4, atol=1e-5)


def lowering_cases():
    """Ops lowered onto existing ones: Celu, ThresholdedRelu, Shrink, EyeLike,
    Hardmax, LpNormalization, MeanVarianceNormalization, GlobalLpPool, LpPool."""
    x = f32(2, 3, 4, 5) * 2
    one("Celu", "celu", {"x": x}, opset=12, alpha=0.7)
    one("ThresholdedRelu", "thresholdedrelu", {"x": x}, opset=10, alpha=0.4)
    one("Shrink", "shrink", {"x": x}, opset=9, lambd=0.8, bias=0.3)
    one("Shrink", "shrink_int", {"x": ints(-5, 6, 3, 4)}, opset=9, lambd=1.5, bias=1.0)
    one("EyeLike", "eyelike", {"x": f32(3, 5)}, opset=9)
    one("EyeLike", "eyelike_dtype", {"x": f32(4, 2)}, opset=9, dtype=TensorProto.INT64)
    h = f32(3, 4, 5)
    h[0, 1, :] = 1.0  # ties: the first index wins
    one("Hardmax", "hardmax", {"x": h}, opset=13)
    one("Hardmax", "hardmax_axis1", {"x": h}, opset=13, axis=1)
    one("LpNormalization", "lpnormalization", {"x": x}, opset=13, axis=1, p=2)
    one("LpNormalization", "lpnormalization_p1", {"x": x}, opset=13, p=1)
    one("MeanVarianceNormalization", "meanvariancenormalization", {"x": x}, opset=13)
    one("MeanVarianceNormalization", "meanvariancenormalization_axes", {"x": x}, opset=13, axes=[1, 3])
    one("GlobalLpPool", "globallppool", {"x": x}, opset=13)
    one("GlobalLpPool", "globallppool_p3", {"x": x}, opset=13, p=3, rtol=1e-5, atol=1e-5)
    one("LpPool", "lppool", {"x": x}, opset=11, kernel_shape=[2, 3], strides=[1, 2], pads=[1, 1, 1, 1])
    x3 = f32(1, 2, 4, 5, 6)
    one("LpPool", "lppool_3d", {"x": x3}, opset=18, kernel_shape=[2, 2, 3], strides=[1, 2, 2],
        pads=[1, 0, 1, 1, 1, 0], rtol=1e-5, atol=1e-5)
    one("LpPool", "lppool_3d_p1", {"x": x3}, opset=18, kernel_shape=[3, 2, 2], p=1, dilations=[1, 2, 1])
    one("LpPool", "lppool_p1_1d", {"x": f32(2, 3, 9)}, opset=11, kernel_shape=[3], strides=[2], p=1)


def lstm_classifier(vocab=20, emb=8, hidden=16, classes=5, seq=7):
    """Token ids -> embedding (Gather) -> LSTM -> last h -> Gemm -> Softmax,
    with a symbolic batch."""
    inits = {"emb": f32(vocab, emb), "W": f32(1, 4 * hidden, emb) * 0.4, "R": f32(1, 4 * hidden, hidden) * 0.4,
             "B": f32(1, 8 * hidden) * 0.2, "fc_w": f32(classes, hidden), "fc_b": f32(classes)}
    nodes = [N("Gather", ["emb", "ids"], ["e"]),
             N("Transpose", ["e"], ["et"], perm=[1, 0, 2]),
             N("LSTM", ["et", "W", "R", "B"], ["", "h"], hidden_size=hidden),
             N("Squeeze", ["h", "ax0"], ["hs"]),
             N("Gemm", ["hs", "fc_w", "fc_b"], ["logits"], transB=1),
             N("Softmax", ["logits"], ["y"], axis=-1)]
    inits["ax0"] = np.array([0], np.int64)
    case("model_lstm_classifier", nodes, {"ids": ints(0, vocab, 4, seq)}, ["y"], inits, opset=13,
         dims={"ids": ["batch", seq]}, rtol=1e-4, atol=1e-5)


def save_only(name, nodes, inputs, outputs, inits=None, opset=13, domains=(), types=None):
    """A model without reference outputs: one the importer must refuse, or one
    whose outputs the tests check by their properties (random draws).
    inputs: {name: shape}, float unless types {name: TensorProto type} says."""
    types = types or {}
    vis = [helper.make_tensor_value_info(n, types.get(n, TensorProto.FLOAT), shape) for n, shape in inputs.items()]
    outs = [helper.make_empty_tensor_value_info(o) for o in outputs]
    g = helper.make_graph(nodes, name, vis, outs,
                          initializer=[numpy_helper.from_array(np.asarray(a), n) for n, a in (inits or {}).items()])
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    m = helper.make_model(g, opset_imports=ops, producer_name="gen_goldens_onnx")
    m.ir_version = 8
    with open(os.path.join(OUT, f"{name}.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    return m


def errors():
    """Models the importer refuses, for the error tests (err_*.onnx)."""
    save_only("err_unsupported_op", [N("Relu", ["x"], ["r"], name="first"),
                                     N("StringNormalizer", ["r"], ["z"], name="my_normalizer")],
              {"x": [2, 3]}, ["z"])
    save_only("err_bad_attribute", [N("MaxPool", ["x"], ["z"], name="pool1", kernel_shape=[2, 2], ceil_mode=1,
                                        pads=[0, 0, 1, 1])],
              {"x": [1, 1, 5, 5]}, ["z"])
    save_only("err_unknown_attribute", [N("Relu", ["x"], ["z"], name="r", not_an_onnx_attribute=3)],
              {"x": [2]}, ["z"])
    save_only("err_many", [N("Einsum", ["x"], ["a"], name="e1", equation="ij->ik"),
                           N("Relu", ["x"], ["b"], name="fine"),
                           N("MaxPool", ["y"], ["c"], name="p", kernel_shape=[2, 2], ceil_mode=1, pads=[1, 0, 0, 0]),
                           N("StringNormalizer", ["b"], ["d"], name="u"),
                           N("Custom", ["b"], ["e"], name="ms", domain="com.microsoft")],
              {"x": [2, 2], "y": [1, 1, 4, 4]}, ["a", "c", "d", "e"], domains=["com.microsoft"])
    body = helper.make_graph([N("Identity", ["cond_in"], ["cond_out"]), N("Add", ["v_in", "v_in"], ["v_out"]),
                              N("Identity", ["v_in"], ["scan"])], "body",
                             [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                              helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [2])],
                             [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                              helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [2]),
                              helper.make_tensor_value_info("scan", TensorProto.FLOAT, [2])])
    save_only("err_loop_scan", [N("Loop", ["n", "", "x"], ["z", "zs"], name="repeat", body=body)], {"x": [2]},
              ["z", "zs"], {"n": np.array(3, np.int64)})
    then_g = helper.make_graph([N("Identity", ["x"], ["t"])], "then", [], [helper.make_empty_tensor_value_info("t")])
    else_g = helper.make_graph([N("Einsum", ["x"], ["e"], name="inner", equation="i->j")], "else", [],
                               [helper.make_empty_tensor_value_info("e")])
    m = save_only("err_if_branch", [N("If", ["c"], ["z"], name="branch", then_branch=then_g, else_branch=else_g)],
                  {"x": [2]}, ["z"])
    m.graph.input.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
    with open(os.path.join(OUT, "err_if_branch.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    save_only("err_resize_crop", [N("Resize", ["x", "roi", "s"], ["z"], name="up", mode="linear",
                                    coordinate_transformation_mode="tf_crop_and_resize")],
              {"x": [1, 2, 2]}, ["z"], {"roi": np.array([0, 0, 0, 1, 1, 1], np.float32),
                                        "s": np.array([1, 2, 2], np.float32)})
    save_only("err_opset_too_new", [N("Relu", ["x"], ["z"])], {"x": [2]}, ["z"], opset=30)
    m = save_only("err_external_escape", [N("Add", ["x", "w"], ["z"])], {"x": [3]}, ["z"], inits={"w": f32(3)})
    t = m.graph.initializer[0]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "../outside.bin"), ("offset", "0"), ("length", "12")):
        e = t.external_data.add()
        e.key, e.value = k, v
    with open(os.path.join(OUT, "err_external_escape.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for e in t.external_data:
        if e.key == "location":
            e.value = "external_data.weights"
        if e.key == "offset":
            e.value = "1000000"
    with open(os.path.join(OUT, "err_external_offset.onnx"), "wb") as f:
        f.write(m.SerializeToString())


def mlp():
    """784 -> 32 -> relu -> 10 -> softmax, dynamic batch."""
    inits = {"w1": f32(48, 32) * 0.2, "b1": f32(32), "w2": f32(32, 10) * 0.2, "b2": f32(10)}
    nodes = [N("Gemm", ["x", "w1", "b1"], ["h"]), N("Relu", ["h"], ["r"]),
             N("MatMul", ["r", "w2"], ["m"]), N("Add", ["m", "b2"], ["logits"]),
             N("Softmax", ["logits"], ["probs"], axis=1)]
    case("model_mlp", nodes, {"x": f32(4, 48)}, ["probs", "logits"], inits, opset=13, dims={"x": ["batch", 48]},
         atol=1e-5)


def cnn():
    """conv-bn-relu-maxpool, a residual block (conv-bn-relu-conv-bn + skip),
    global average pool, flatten, gemm."""
    c = 8
    inits = {}

    def conv(name, cin, cout, k):
        inits[name + "_w"] = f32(cout, cin, k, k) * float(1.0 / np.sqrt(cin * k * k))
        inits[name + "_b"] = f32(cout) * 0.1

    def bn(name, ch):
        inits[name + "_s"] = pos(ch)
        inits[name + "_o"] = f32(ch) * 0.1
        inits[name + "_m"] = f32(ch) * 0.1
        inits[name + "_v"] = pos(ch)

    conv("c1", 3, c, 3)
    bn("bn1", c)
    conv("c2", c, c, 3)
    bn("bn2", c)
    conv("c3", c, c, 3)
    bn("bn3", c)
    inits["fc_w"] = f32(10, c) * 0.3
    inits["fc_b"] = f32(10)

    def bnn(name, x, y):
        return N("BatchNormalization", [x, name + "_s", name + "_o", name + "_m", name + "_v"], [y], epsilon=1e-5)

    nodes = [
        N("Conv", ["x", "c1_w", "c1_b"], ["a1"], pads=[1, 1, 1, 1]), bnn("bn1", "a1", "n1"), N("Relu", ["n1"], ["r1"]),
        N("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        N("Conv", ["p1", "c2_w", "c2_b"], ["a2"], pads=[1, 1, 1, 1]), bnn("bn2", "a2", "n2"), N("Relu", ["n2"], ["r2"]),
        N("Conv", ["r2", "c3_w", "c3_b"], ["a3"], pads=[1, 1, 1, 1]), bnn("bn3", "a3", "n3"),
        N("Add", ["n3", "p1"], ["res"]), N("Relu", ["res"], ["r3"]),
        N("GlobalAveragePool", ["r3"], ["g"]), N("Flatten", ["g"], ["f"], axis=1),
        N("Gemm", ["f", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    case("model_cnn", nodes, {"x": f32(2, 3, 12, 12)}, ["y"], inits, opset=13, dims={"x": ["N", 3, 12, 12]},
         rtol=1e-4, atol=1e-5)


def sequence_reversal_cases():
    """ReverseSequence with ONNX's default axes (time 0, batch 1) and TF's (batch 0, time 1)."""
    one("ReverseSequence", "reverse_sequence_time_major", {"x": f32(4, 3, 2)},
        inits={"n": np.array([4, 1, 3], np.int64)})
    one("ReverseSequence", "reverse_sequence_batch_major", {"x": f32(2, 5, 3)},
        inits={"n": np.array([2, 5], np.int64)}, time_axis=1, batch_axis=0)
    # MaxPool's Indices output: offsets into (N, C, spatial...), 1-D and 2-D.
    one("MaxPool", "maxpool_indices", {"x": f32(2, 3, 6, 5)}, n_out=2, kernel_shape=[3, 2], strides=[2, 1],
        pads=[1, 0, 1, 0], opset=12)
    one("MaxPool", "maxpool_indices_1d", {"x": f32(2, 2, 7)}, n_out=2, kernel_shape=[3], strides=[2], opset=12)
    # NonMaxSuppression: corners and centres, thresholds as inputs, every optional input omitted.
    boxes = rng.uniform(0, 8, (2, 7, 4)).astype(np.float32)
    boxes[..., 2:] = boxes[..., :2] + rng.uniform(1, 4, (2, 7, 2)).astype(np.float32)
    one("NonMaxSuppression", "nms_corners", {"b": boxes, "s": rng.uniform(0, 1, (2, 3, 7)).astype(np.float32)},
        inits={"m": np.array([3], np.int64), "t": np.array([0.25], np.float32), "st": np.array([0.3], np.float32)},
        opset=11)
    one("NonMaxSuppression", "nms_centres", {"b": rng.uniform(1, 6, (1, 8, 4)).astype(np.float32),
                                             "s": rng.uniform(0, 1, (1, 2, 8)).astype(np.float32)},
        inits={"m": np.array([4], np.int64), "t": np.array([0.2], np.float32)}, opset=11, center_point_box=1)
    one("NonMaxSuppression", "nms_defaults", {"b": boxes, "s": rng.uniform(0, 1, (2, 1, 7)).astype(np.float32)},
        opset=10)
    # 3-D windows over NCDHW: conv (grouped, uneven pads), transposed conv, pools.
    v = f32(2, 4, 5, 6, 4)
    one("Conv", "conv3d_grouped_uneven_pads", {"x": v}, inits={"w": f32(6, 2, 3, 2, 3), "b": f32(6)}, group=2,
        strides=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0], dilations=[1, 2, 1], rtol=1e-4, atol=1e-5)
    one("Conv", "conv3d_same_upper", {"x": f32(1, 2, 5, 4, 3)}, inits={"w": f32(3, 2, 2, 3, 2)},
        strides=[2, 2, 1], auto_pad="SAME_UPPER", rtol=1e-4, atol=1e-5)
    one("ConvTranspose", "convtranspose3d", {"x": f32(1, 4, 3, 2, 3)}, inits={"w": f32(4, 3, 2, 3, 2), "b": f32(6)},
        group=2, strides=[2, 1, 2], pads=[1, 1, 0, 1, 1, 0], output_padding=[1, 0, 1], rtol=1e-4, atol=1e-5)
    one("MaxPool", "maxpool3d", {"x": v}, kernel_shape=[3, 2, 2], strides=[2, 2, 1], pads=[1, 0, 1, 1, 1, 0])
    one("MaxPool", "maxpool3d_ceil_dilated", {"x": v}, kernel_shape=[2, 2, 2], strides=[2, 2, 2], dilations=[1, 2, 1],
        ceil_mode=1, opset=12)
    one("AveragePool", "avgpool3d_exclude_pad", {"x": v}, kernel_shape=[3, 3, 2], strides=[1, 2, 2],
        pads=[1, 1, 0, 1, 1, 0])
    one("AveragePool", "avgpool3d_include_pad_uneven", {"x": v}, kernel_shape=[2, 3, 3], pads=[0, 1, 1, 1, 2, 0],
        count_include_pad=1)
    # DepthToSpace / SpaceToDepth with symbolic spatial dims (their own ops now: no known extents needed).
    one("DepthToSpace", "depth_to_space_dynamic_crd", {"x": f32(2, 8, 3, 5)}, blocksize=2, mode="CRD", opset=13,
        dims={"x": ["N", 8, "H", "W"]})
    one("SpaceToDepth", "space_to_depth_dynamic", {"x": f32(1, 3, 6, 4)}, blocksize=2, opset=13,
        dims={"x": ["N", "C", "H", "W"]})
    # LRN, ReduceLogSum, BitShift, Compress and the old Scatter.
    # (ONNX Runtime takes odd sizes only, and onnx.reference loops over the batch for its channels.)
    one("LRN", "lrn_size5", {"x": f32(2, 6, 3, 4)}, size=5, alpha=2e-4, beta=0.6, bias=1.5, opset=13)
    one("ReduceLogSum", "reduce_log_sum_axes", {"x": pos(2, 3, 4)}, axes=[1], keepdims=0, opset=13)
    one("ReduceLogSum", "reduce_log_sum_input_axes", {"x": pos(3, 5)}, inits={"a": np.array([-1], np.int64)},
        opset=18)
    one("BitShift", "bitshift_left_u32", {"x": np.array([1, 2, 3, 255], np.uint32), "y": np.array([1, 2, 3, 4], np.uint32)},
        direction="LEFT", opset=11)
    one("BitShift", "bitshift_right_u8", {"x": np.array([16, 4, 255, 1], np.uint8), "y": np.array([1, 2, 3, 0], np.uint8)},
        direction="RIGHT", opset=11)
    one("Compress", "compress_axis1", {"x": f32(3, 5, 2)}, inits={"c": np.array([True, False, True, True], bool)},
        axis=1, opset=11)
    one("Compress", "compress_flat", {"x": f32(2, 3)}, inits={"c": np.array([False, True, True, False, True], bool)},
        opset=11)
    one("Scatter", "scatter_opset10", {"x": f32(3, 4)},
        inits={"i": np.array([[2, 0], [1, 3]], np.int64), "u": f32(2, 2)}, axis=1, opset=10)



def scan_cases():
    """Loop with scan outputs and Scan (opsets 8 and 9+): per-iteration values
    stacked along a new axis, with and without loop-carried values, zero
    iterations, early exit, reverse directions and other axes."""
    r = np.random.default_rng(20260301)

    def g32(*shape):
        return r.standard_normal(shape).astype(np.float32)

    vi = helper.make_tensor_value_info
    F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
    # Loop: a loop-carried value, two scan outputs (a tensor and a scalar) and an outer value in the body.
    body = helper.make_graph([N("Identity", ["cond_in"], ["cond_out"]), N("Cast", ["i"], ["fi"], to=F),
                              N("Mul", ["w", "fi"], ["s"]), N("Add", ["v_in", "s"], ["v_out"]),
                              N("Mul", ["v_in", "v_in"], ["sq"]), N("Mul", ["fi", "fi"], ["fi2"])], "body",
                             [vi("i", I64, []), vi("cond_in", B, []), vi("v_in", F, [2, 3])],
                             [vi("cond_out", B, []), vi("v_out", F, [2, 3]), vi("sq", F, [2, 3]), vi("fi2", F, [])])
    loop = [N("Loop", ["n", "", "v"], ["z0", "z1", "z2"], body=body)]
    case("loop_scan_carried", loop, {"v": g32(2, 3), "w": g32(2, 3)}, ["z0", "z1", "z2"],
         {"n": np.array(4, np.int64)})
    # Zero trips: the final value is the initial one, the scan outputs are empty.
    case("loop_scan_zero_trips", loop, {"v": g32(2, 3), "w": g32(2, 3)}, ["z0", "z1", "z2"],
         {"n": np.array(0, np.int64)})
    # No loop-carried value: only scan outputs.
    body = helper.make_graph([N("Identity", ["cond_in"], ["cond_out"]), N("Cast", ["i"], ["fi"], to=F),
                              N("Mul", ["x", "fi"], ["row"])], "body",
                             [vi("i", I64, []), vi("cond_in", B, [])],
                             [vi("cond_out", B, []), vi("row", F, [4])])
    case("loop_scan_only", [N("Loop", ["n", ""], ["z0"], body=body)], {"x": g32(4)}, ["z0"],
         {"n": np.array(3, np.int64)})
    # Early exit: no trip count; the body's condition ends the loop, its last iteration's values included.
    body = helper.make_graph([N("Mul", ["v_in", "two"], ["v_out"]), N("ReduceSum", ["v_out"], ["tot"], keepdims=0),
                              N("Less", ["tot", "limit"], ["cond_out"]), N("Identity", ["tot"], ["seen"])], "body",
                             [vi("i", I64, []), vi("cond_in", B, []), vi("v_in", F, [3])],
                             [vi("cond_out", B, []), vi("v_out", F, [3]), vi("seen", F, [])],
                             initializer=[numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    case("loop_scan_early_exit", [N("Loop", ["m", "c", "v"], ["z0", "z1"], body=body)],
         {"v": np.array([0.5, 1.0, 0.25], np.float32), "c": np.array(True)}, ["z0", "z1"],
         {"limit": np.array(50.0, np.float32), "m": np.array(100, np.int64)})
    # Scan 9+: a state, two scan inputs, an outer value.
    body = helper.make_graph([N("Mul", ["a", "b"], ["ab"]), N("Add", ["s_in", "ab"], ["s_out"]),
                              N("Sub", ["a", "w"], ["d"])], "body",
                             [vi("s_in", F, [3]), vi("a", F, [3]), vi("b", F, [3])],
                             [vi("s_out", F, [3]), vi("s_scan", F, [3]), vi("d", F, [3])])
    body.node.append(N("Identity", ["s_out"], ["s_scan"]))
    case("scan_two_inputs_state", [N("Scan", ["s", "x", "y"], ["z0", "z1", "z2"], body=body, num_scan_inputs=2)],
         {"s": g32(3), "x": g32(5, 3), "y": g32(5, 3), "w": g32(3)}, ["z0", "z1", "z2"], opset=11)
    # Scan 9+: reverse directions, scan axes other than 0 (one negative), outputs prepended and on other axes.
    body = helper.make_graph([N("ReduceSum", ["a"], ["ra"], axes=[0], keepdims=0), N("Add", ["s_in", "ra"], ["s_out"]),
                              N("Mul", ["a", "b"], ["o1"]), N("Identity", ["s_out"], ["o2"])], "body",
                             [vi("s_in", F, [4]), vi("a", F, [2, 4]), vi("b", F, [4])],
                             [vi("s_out", F, [4]), vi("o1", F, [2, 4]), vi("o2", F, [4])])
    case("scan_reverse_axes", [N("Scan", ["s", "x", "y"], ["z0", "z1", "z2"], body=body, num_scan_inputs=2,
                                 scan_input_axes=[1, -1], scan_input_directions=[1, 0],
                                 scan_output_axes=[2, -1], scan_output_directions=[0, 1])],
         {"s": g32(4), "x": g32(2, 5, 4), "y": g32(4, 5)}, ["z0", "z1", "z2"], opset=11)
    # Scan 9 (opset 9: no negative axes yet) with scan_output_axes 1 and an empty sequence.
    body = helper.make_graph([N("Add", ["s_in", "a"], ["s_out"]), N("Neg", ["a"], ["o"])], "body",
                             [vi("s_in", F, [2]), vi("a", F, [2])], [vi("s_out", F, [2]), vi("o", F, [2])])
    scan9 = [N("Scan", ["s", "x"], ["z0", "z1"], body=body, num_scan_inputs=1, scan_output_axes=[1])]
    case("scan_opset9_axes", scan9, {"s": g32(2), "x": g32(3, 2)}, ["z0", "z1"], opset=9)
    # An empty sequence, which neither ONNX Runtime nor onnx.reference runs: by Scan's definition the
    # state is the initial one and the scan output holds zero entries of the body's output shape.
    s0 = g32(2)
    case("scan_empty_sequence", [N("Scan", ["s", "x"], ["z0", "z1"], body=body, num_scan_inputs=1)],
         {"s": s0, "x": g32(0, 2)}, ["z0", "z1"], opset=9, expected=[s0, np.zeros((0, 2), np.float32)])
    # Scan 8: batch axis 0, sequence axis 1, a reverse scan input, sequence_lens omitted and given in full.
    body = helper.make_graph([N("Add", ["s_in", "a"], ["s_out"]), N("Mul", ["a", "b"], ["o"])], "body",
                             [vi("s_in", F, [3]), vi("a", F, [3]), vi("b", F, [3])],
                             [vi("s_out", F, [3]), vi("o", F, [3])])
    feeds = {"s": g32(2, 3), "x": g32(2, 4, 3), "y": g32(2, 4, 3)}
    case("scan_opset8", [N("Scan", ["", "s", "x", "y"], ["z0", "z1"], body=body, num_scan_inputs=2,
                           directions=[0, 1])], feeds, ["z0", "z1"], opset=8)
    case("scan_opset8_full_lens", [N("Scan", ["lens", "s", "x", "y"], ["z0", "z1"], body=body, num_scan_inputs=2)],
         feeds, ["z0", "z1"], {"lens": np.array([4, 4], np.int64)}, opset=8)
    # What stays refused: shorter sequences in opset 8, an output axis for an output of unknown rank.
    save_only("err_scan_sequence_lens", [N("Scan", ["lens", "s", "x", "y"], ["z0", "z1"], name="seq", body=body,
                                           num_scan_inputs=2)],
              {"s": [2, 3], "x": [2, 4, 3], "y": [2, 4, 3]}, ["z0", "z1"], {"lens": np.array([4, 2], np.int64)}, opset=8)
    body = helper.make_graph([N("Identity", ["a"], ["o"])], "body", [vi("a", F, None)], [vi("o", F, None)])
    save_only("err_scan_output_axis", [N("Scan", ["x"], ["z"], name="unranked", body=body, num_scan_inputs=1,
                                         scan_output_axes=[1])],
              {"x": None}, ["z"], opset=11)
    # Symbolic dims: the stacked output's rank is known at import, so a Transpose after it maps.
    body = helper.make_graph([N("Add", ["s_in", "a"], ["s_out"]), N("Mul", ["a", "a"], ["o"])], "body",
                             [vi("s_in", F, ["C"]), vi("a", F, ["C"])], [vi("s_out", F, ["C"]), vi("o", F, ["C"])])
    case("scan_dynamic_dims", [N("Scan", ["s", "x"], ["z0", "ys"], body=body, num_scan_inputs=1, scan_input_axes=[1],
                                 scan_output_axes=[1], scan_output_directions=[1]),
                               N("Transpose", ["ys"], ["z1"], perm=[1, 0])],
         {"s": g32(3), "x": g32(3, 5)}, ["z0", "z1"], opset=11, dims={"s": ["C"], "x": ["C", "T"]})
    # A Loop with scan outputs inside a Loop body, reading an outer value; a Squeeze after the outer stack.
    inner = helper.make_graph([N("Identity", ["c2_in"], ["c2_out"]), N("Add", ["w_in", "x"], ["w_out"]),
                               N("Mul", ["w_in", "x"], ["p"])], "inner",
                              [vi("j", I64, []), vi("c2_in", B, []), vi("w_in", F, ["D"])],
                              [vi("c2_out", B, []), vi("w_out", F, ["D"]), vi("p", F, ["D"])])
    outer = helper.make_graph([N("Identity", ["c_in"], ["c_out"]), N("Loop", ["m", "", "v_in"], ["v_out", "ps"], body=inner),
                               N("ReduceSum", ["ps"], ["red"], axes=[0], keepdims=1)], "outer",
                              [vi("i", I64, []), vi("c_in", B, []), vi("v_in", F, ["D"])],
                              [vi("c_out", B, []), vi("v_out", F, ["D"]), vi("red", F, [1, "D"])])
    case("loop_scan_nested", [N("Loop", ["n", "", "x"], ["z0", "reds"], body=outer),
                              N("Squeeze", ["reds"], ["z1"], axes=[1])],
         {"x": g32(4)}, ["z0", "z1"], {"n": np.array(3, np.int64), "m": np.array(2, np.int64)}, opset=11,
         dims={"x": ["D"]})



def random_cases():
    """Random ops: no reference values (ONNX Runtime's generator is not
    libops' threefry); the tests check ranges, moments and determinism."""
    save_only("random_uniform", [N("RandomUniform", [], ["z"], shape=[4000], low=2.0, high=5.0, seed=3.0)],
              {}, ["z"], opset=13)
    save_only("random_uniform_two", [N("RandomUniform", [], ["a"], shape=[64], seed=3.0),
                                     N("RandomUniform", [], ["b"], shape=[64], seed=4.0),
                                     N("RandomUniform", [], ["c"], shape=[64]),
                                     N("RandomUniform", [], ["d"], shape=[64])], {}, ["a", "b", "c", "d"], opset=13)
    save_only("random_normal", [N("RandomNormal", [], ["z"], shape=[50, 80], mean=1.0, scale=2.0, seed=7.0,
                                  dtype=TensorProto.DOUBLE)], {}, ["z"], opset=13)
    save_only("random_uniform_like", [N("RandomUniformLike", ["x"], ["z"], low=-1.0, high=1.0,
                                        dtype=TensorProto.DOUBLE)], {"x": ["n", 3]}, ["z"], opset=13)
    save_only("random_normal_like", [N("RandomNormalLike", ["x"], ["z"], seed=1.0)], {"x": [2, 3]}, ["z"], opset=13)
    save_only("bernoulli", [N("Bernoulli", ["p"], ["z"], seed=5.0)], {"p": ["n"]}, ["z"], opset=15)
    save_only("bernoulli_int32", [N("Bernoulli", ["p"], ["z"], dtype=TensorProto.INT32)], {"p": [3, 4]}, ["z"],
              opset=15)
    save_only("multinomial", [N("Multinomial", ["logits"], ["z"], sample_size=4000, seed=2.0)], {"logits": [2, 3]},
              ["z"], opset=13)
    save_only("err_random_int_dtype", [N("RandomUniform", [], ["z"], name="ru", shape=[3], dtype=TensorProto.INT32)],
              {}, ["z"], opset=13)


def quantize_cases():
    """QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear: per tensor and
    per axis, saturation, ties to even, the default uint8 zero point."""
    r = np.random.default_rng(20261128)

    def g32(*shape):
        return (r.standard_normal(shape) * 4).astype(np.float32)

    x = g32(2, 3, 4)
    # Ties (x / scale = k + 0.5) round to even; values far outside saturate.
    ties = np.array([-3.5, -2.5, -0.5, 0.5, 1.5, 2.5, 1000.0, -1000.0], np.float32)
    s, zu, zi = np.array(0.5, np.float32), np.array(128, np.uint8), np.array(-3, np.int8)
    one("QuantizeLinear", "quantize_u8", {"x": x}, inits={"s": s, "zp": zu})
    one("QuantizeLinear", "quantize_i8", {"x": x}, inits={"s": s, "zp": zi})
    one("QuantizeLinear", "quantize_ties", {"x": ties}, inits={"s": np.array(1.0, np.float32),
                                                               "zp": np.array(0, np.int8)})
    one("QuantizeLinear", "quantize_no_zp_opset10", {"x": np.abs(x)}, opset=10, inits={"s": s})
    one("QuantizeLinear", "quantize_axis1", {"x": x}, inits={"s": np.array([0.1, 0.2, 0.4], np.float32),
                                                             "zp": np.array([1, -2, 3], np.int8)})
    one("QuantizeLinear", "quantize_axis_last", {"x": x}, axis=-1,
        inits={"s": np.array([0.1, 0.2, 0.4, 0.8], np.float32), "zp": np.array([0, 10, 20, 255], np.uint8)})
    one("QuantizeLinear", "quantize_int16", {"x": x * 1000}, opset=21,
        inits={"s": np.array(0.25, np.float32), "zp": np.array(-7, np.int16)})
    q = r.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    one("DequantizeLinear", "dequantize_u8", {"x": q}, inits={"s": s, "zp": zu})
    one("DequantizeLinear", "dequantize_no_zp_opset10", {"x": q}, opset=10, inits={"s": s})
    one("DequantizeLinear", "dequantize_axis1", {"x": q.astype(np.int8)},
        inits={"s": np.array([0.1, 0.2, 0.4], np.float32), "zp": np.array([1, -2, 3], np.int8)})
    one("DequantizeLinear", "dequantize_int32", {"x": r.integers(-1000, 1000, (5,)).astype(np.int32)},
        inits={"s": np.array(0.01, np.float32)})
    case("quantize_roundtrip", [N("QuantizeLinear", ["x", "s", "zp"], ["q"]),
                                N("DequantizeLinear", ["q", "s", "zp"], ["z"])],
         {"x": x}, ["z"], {"s": np.array(0.05, np.float32), "zp": np.array(0, np.int8)})
    dq = [N("DynamicQuantizeLinear", ["x"], ["y", "scale", "zp"])]
    case("dynamic_quantize", dq, {"x": x}, ["y", "scale", "zp"], opset=11)
    case("dynamic_quantize_positive", dq, {"x": np.abs(x) + 1}, ["y", "scale", "zp"], opset=11)
    case("dynamic_quantize_negative", dq, {"x": -np.abs(x) - 1}, ["y", "scale", "zp"], opset=11)
    case("dynamic_quantize_zeros", dq, {"x": np.zeros((2, 3), np.float32)}, ["y", "scale", "zp"], opset=11)


def window_cases():
    """Hann, Hamming and Blackman windows, periodic and symmetric, with the
    size a constant (folded) and a graph input."""
    size = np.array(10, np.int64)
    for op in ["HannWindow", "HammingWindow", "BlackmanWindow"]:
        for periodic in [1, 0]:
            name = f"{op[:-6].lower()}_window_{'periodic' if periodic else 'symmetric'}"
            case(name, [N(op, ["n"], ["z"], periodic=periodic)], {"n": size}, ["z"], opset=17, atol=1e-6)
    case("hann_window_double_const", [N("HannWindow", ["n"], ["z"], output_datatype=TensorProto.DOUBLE)], {}, ["z"],
         {"n": np.array(7, np.int32)}, opset=17, rtol=1e-12, atol=1e-12)
    case("blackman_window_one", [N("BlackmanWindow", ["n"], ["z"], periodic=1)], {"n": np.array(1, np.int64)},
         ["z"], opset=17)



def integer_cases():
    """Unique (flattened, sorted and in order of first occurrence, all four
    outputs), MatMulInteger and QLinearMatMul with scalar and per-row or
    per-column zero points and scales."""
    r = np.random.default_rng(20261129)
    x = r.integers(-3, 4, (3, 5)).astype(np.float32)
    outs = ["y", "idx", "inv", "cnt"]
    case("unique_sorted", [N("Unique", ["x"], outs)], {"x": x}, outs, opset=11)
    case("unique_unsorted", [N("Unique", ["x"], outs, sorted=0)], {"x": x}, outs, opset=11)
    case("unique_int64_values_only", [N("Unique", ["x"], ["y"])], {"x": r.integers(0, 4, (7,))}, ["y"], opset=11)
    a8 = r.integers(-128, 128, (4, 6)).astype(np.int8)
    b8 = r.integers(-128, 128, (6, 5)).astype(np.int8)
    au = r.integers(0, 256, (2, 4, 6)).astype(np.uint8)
    bu = r.integers(0, 256, (6, 5)).astype(np.uint8)
    one("MatMulInteger", "matmul_integer_i8", {"a": a8, "b": b8}, opset=10)
    one("MatMulInteger", "matmul_integer_u8_zp", {"a": au, "b": bu}, opset=10,
        inits={"azp": np.array(3, np.uint8), "bzp": np.array(200, np.uint8)})
    # Per-row and per-column zero points, which neither ONNX Runtime nor onnx.reference broadcasts: from the definition.
    azp, bzp = np.array([1, -2, 3, 0], np.int8), np.array([0, 5, -5, 7, 1], np.int8)
    want = (a8.astype(np.int32) - azp.astype(np.int32)[:, None]) @ (b8.astype(np.int32) - bzp.astype(np.int32))
    case("matmul_integer_per_row_col", [N("MatMulInteger", ["a", "b", "azp", "bzp"], ["z0"])], {"a": a8, "b": b8},
         ["z0"], {"azp": azp, "bzp": bzp}, opset=10, expected=[want.astype(np.int32)])
    qm = ["a", "as", "az", "b", "bs", "bz", "ys", "yz"]
    case("qlinear_matmul_u8", [N("QLinearMatMul", qm, ["y"])], {"a": au[0], "b": bu}, ["y"],
         {"as": np.array(0.02, np.float32), "az": np.array(120, np.uint8), "bs": np.array(0.03, np.float32),
          "bz": np.array(130, np.uint8), "ys": np.array(0.5, np.float32), "yz": np.array(100, np.uint8)}, opset=10)
    case("qlinear_matmul_i8_per_col", [N("QLinearMatMul", qm, ["y"])], {"a": a8, "b": b8}, ["y"],
         {"as": np.array(0.01, np.float32), "az": np.array(2, np.int8),
          "bs": np.array([0.01, 0.02, 0.03, 0.04, 0.05], np.float32), "bz": np.array([0, 0, 0, 0, 0], np.int8),
          "ys": np.array(0.2, np.float32), "yz": np.array(-10, np.int8)}, opset=10)



def dft_cases():
    """DFT of real and complex signals, forward and inverse, onesided, cropped
    and zero-padded by dft_length, along the default and another axis."""
    r = np.random.default_rng(20261130)
    real = r.standard_normal((2, 8, 1)).astype(np.float32)
    cplx = r.standard_normal((2, 6, 2)).astype(np.float32)
    one("DFT", "dft_real", {"x": real}, opset=17, rtol=1e-4, atol=1e-5)
    one("DFT", "dft_complex_inverse", {"x": cplx}, opset=17, inverse=1, rtol=1e-4, atol=1e-5)
    one("DFT", "dft_real_onesided", {"x": real}, opset=17, onesided=1, rtol=1e-4, atol=1e-5)
    one("DFT", "dft_length_crop", {"x": real}, opset=17, inits={"n": np.array(5, np.int64)}, rtol=1e-4, atol=1e-5)
    one("DFT", "dft_length_pad", {"x": cplx}, opset=17, inits={"n": np.array(9, np.int64)}, rtol=1e-4, atol=1e-5)
    one("DFT", "dft_opset20_axis", {"x": r.standard_normal((3, 4, 5, 2))}, opset=20,
        inits={"n": np.array(4, np.int64), "axis": np.array(1, np.int64)}, rtol=1e-10, atol=1e-12)
    # Real signals run rfft and mirror the missing bins: an odd length, and
    # another axis; inverse + onesided runs irfft (default and odd lengths).
    one("DFT", "dft_real_odd", {"x": r.standard_normal((2, 9, 1)).astype(np.float32)}, opset=17, rtol=1e-4,
        atol=1e-5)
    one("DFT", "dft_real_axis2", {"x": r.standard_normal((3, 4, 6, 1)).astype(np.float32)}, opset=17, axis=2,
        rtol=1e-4, atol=1e-5)
    one("DFT", "dft_irfft", {"x": r.standard_normal((2, 5, 3, 2)).astype(np.float32)}, opset=17, inverse=1,
        onesided=1, rtol=1e-4, atol=1e-5)
    # An odd output length: ONNX Runtime's result differs from numpy's irfft,
    # which ONNX's reference runs; the expected values are numpy's.
    xc = r.standard_normal((2, 5, 2))
    case("dft_irfft_length", [N("DFT", ["x", "n"], ["z0"], inverse=1, onesided=1)], {"x": xc}, ["z0"],
         {"n": np.array(7, np.int64)}, opset=17, rtol=1e-10, atol=1e-12,
         expected=[np.fft.irfft(xc[..., 0] + 1j * xc[..., 1], n=7, axis=1)[..., np.newaxis]])



def quantized_conv_cases():
    """ConvInteger and QLinearConv: zero points, padding (which pads with the
    zero point), strides, groups, per-channel weight scales, a bias, 1-D."""
    r = np.random.default_rng(20261201)
    xu = r.integers(0, 256, (1, 4, 6, 5)).astype(np.uint8)
    wu = r.integers(0, 256, (6, 2, 3, 3)).astype(np.uint8)
    one("ConvInteger", "conv_integer_zp_pads", {"x": xu}, opset=10, pads=[1, 1, 1, 1], group=2,
        inits={"w": wu, "xzp": np.array(100, np.uint8), "wzp": np.array(120, np.uint8)})
    one("ConvInteger", "conv_integer_stride", {"x": xu}, opset=10, strides=[2, 2],
        inits={"w": r.integers(0, 256, (3, 4, 2, 2)).astype(np.uint8)})
    xi = r.integers(-128, 128, (2, 3, 7, 7)).astype(np.int8)
    qc = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"]
    base = {"xs": np.array(0.05, np.float32), "xz": np.array(3, np.int8),
            "w": r.integers(-128, 128, (4, 3, 3, 3)).astype(np.int8),
            "ws": np.array([0.01, 0.02, 0.015, 0.03], np.float32), "wz": np.array(0, np.int8),
            "ys": np.array(0.4, np.float32), "yz": np.array(-5, np.int8)}
    case("qlinear_conv_per_channel", [N("QLinearConv", qc, ["y"], pads=[1, 1, 1, 1])], {"x": xi}, ["y"], base,
         opset=10)
    case("qlinear_conv_bias_stride", [N("QLinearConv", qc + ["b"], ["y"], strides=[2, 2], pads=[0, 1, 0, 1])],
         {"x": xi}, ["y"], dict(base, b=r.integers(-500, 500, (4,)).astype(np.int32)), opset=10)
    xu1 = r.integers(0, 256, (2, 3, 9)).astype(np.uint8)
    case("qlinear_conv_1d_u8", [N("QLinearConv", qc, ["y"], pads=[2, 2], dilations=[2])], {"x": xu1}, ["y"],
         {"xs": np.array(0.02, np.float32), "xz": np.array(128, np.uint8),
          "w": r.integers(0, 256, (2, 3, 3)).astype(np.uint8), "ws": np.array(0.03, np.float32),
          "wz": np.array(128, np.uint8), "ys": np.array(0.1, np.float32), "yz": np.array(128, np.uint8)}, opset=10)



def loss_cases():
    """NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: each reduction,
    class weights, ignore_index, extra dims, the log_prob output."""
    r = np.random.default_rng(20261202)
    x = r.standard_normal((4, 5)).astype(np.float32)
    t = np.array([0, 4, 2, 2], np.int64)
    w = (r.random(5) + 0.5).astype(np.float32)
    for red in ["mean", "sum", "none"]:
        one("NegativeLogLikelihoodLoss", f"nll_loss_{red}", {"x": x, "t": t}, reduction=red)
    one("NegativeLogLikelihoodLoss", "nll_loss_weight_ignore", {"x": x, "t": t}, inits={"w": w}, ignore_index=2)
    x3 = r.standard_normal((2, 3, 4, 2)).astype(np.float32)
    t3 = r.integers(0, 3, (2, 4, 2)).astype(np.int64)
    one("NegativeLogLikelihoodLoss", "nll_loss_dims_int32", {"x": x3, "t": t3.astype(np.int32)}, inits={"w": w[:3]})
    case("softmax_cross_entropy", [N("SoftmaxCrossEntropyLoss", ["x", "t"], ["z0", "z1"])], {"x": x, "t": t},
         ["z0", "z1"], rtol=1e-5, atol=1e-6)
    case("softmax_cross_entropy_dims", [N("SoftmaxCrossEntropyLoss", ["x", "t", "w"], ["z0"], reduction="none",
                                          ignore_index=1)],
         {"x": x3, "t": t3}, ["z0"], {"w": w[:3]})



def max_unpool_cases():
    """MaxUnpool after MaxPool's Indices: 2-D with strides equal to the kernel
    and overlapping, 1-D, and an output_shape larger than the default."""
    r = np.random.default_rng(20261203)
    for name, k, st, hw in [("max_unpool_2x2", [2, 2], [2, 2], 6), ("max_unpool_overlap", [3, 3], [2, 2], 7)]:
        x = r.standard_normal((2, 3, hw, hw)).astype(np.float32)
        case(name, [N("MaxPool", ["x"], ["p", "i"], kernel_shape=k, strides=st),
                    N("MaxUnpool", ["p", "i"], ["z"], kernel_shape=k, strides=st)], {"x": x}, ["z"], opset=11)
    case("max_unpool_1d", [N("MaxPool", ["x"], ["p", "i"], kernel_shape=[2], strides=[2]),
                           N("MaxUnpool", ["p", "i"], ["z"], kernel_shape=[2], strides=[2])],
         {"x": r.standard_normal((1, 2, 8)).astype(np.float32)}, ["z"], opset=11)
    case("max_unpool_output_shape", [N("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
                                     N("MaxUnpool", ["p", "i", "shape"], ["z"], kernel_shape=[2, 2], strides=[2, 2])],
         {"x": r.standard_normal((1, 2, 5, 5)).astype(np.float32)}, ["z"],
         {"shape": np.array([1, 2, 5, 5], np.int64)}, opset=11)



def grid_sample_cases():
    """GridSample in opset 16's and opset 20's names, against ONNX Runtime."""
    r = np.random.default_rng(20261205)
    x = r.standard_normal((1, 2, 6, 5)).astype(np.float32)
    g = (r.random((1, 4, 3, 2)) * 2.6 - 1.3).astype(np.float32)
    one("GridSample", "grid_sample_bilinear_zeros", {"x": x, "g": g}, opset=16)
    one("GridSample", "grid_sample_bicubic_border_align", {"x": x, "g": g}, opset=16, mode="bicubic",
        padding_mode="border", align_corners=1, rtol=1e-4, atol=1e-5)
    one("GridSample", "grid_sample_nearest_reflection", {"x": x, "g": g}, opset=20, mode="nearest",
        padding_mode="reflection")
    one("GridSample", "grid_sample_linear_reflection_align", {"x": x, "g": g}, opset=20, mode="linear",
        padding_mode="reflection", align_corners=1)



def roi_align_cases():
    """RoiAlign in opset 10 (output_half_pixel) and 16, avg and max, against ONNX Runtime."""
    r = np.random.default_rng(20261207)
    x = r.standard_normal((2, 3, 8, 9)).astype(np.float32)
    rois = np.array([[0, 0, 8, 7], [1.5, 2.2, 6.7, 7.1], [-2, -1, 3, 4]], np.float32)
    idx = {"i": np.array([0, 1, 1], np.int64)}
    one("RoiAlign", "roi_align_opset10", {"x": x, "r": rois}, opset=10, inits=idx, output_height=2, output_width=3)
    one("RoiAlign", "roi_align_half_pixel_max", {"x": x, "r": rois}, opset=16, inits=idx, mode="max",
        output_height=3, output_width=2, sampling_ratio=2)
    one("RoiAlign", "roi_align_scale", {"x": x, "r": rois * 2}, opset=16, inits=idx, spatial_scale=0.5,
        output_height=2, output_width=2)



def runtime_axis_cases():
    """DFT with its axis given at run time (Note [Axes given at run time] in
    graph/onnx/onnx_convert.cpp): a chain of If nodes over the signal axes.
    The model is fed axis 1 here; onnx_import_test.cpp feeds the others and
    an axis that is not a signal axis by hand. STFT with its frame step and
    length given at run time."""
    r = np.random.default_rng(20261203)
    x = r.standard_normal((2, 5, 4, 2)).astype(np.float32)
    case("dft_runtime_axis", [N("DFT", ["x", "", "axis"], ["y"])], {"x": x, "axis": np.array(1, np.int64)}, ["y"],
         opset=20, rtol=1e-4, atol=1e-5)
    # STFT's frame_step and frame_length given at run time (frames counted
    # then); onnx_import_test.cpp also feeds values that must fail.
    signal = r.standard_normal((2, 64, 1)).astype(np.float32)
    case("stft_runtime_frames", [N("STFT", ["signal", "step", "", "length"], ["y"])],
         {"signal": signal, "step": np.array(6, np.int64), "length": np.array(16, np.int64)}, ["y"], opset=17,
         rtol=1e-4, atol=1e-5)


def sequence_cases():
    """Sequences and optionals built and read inside one graph (the importer
    keeps them as lists of values), against ONNX Runtime."""
    r = np.random.default_rng(20261208)
    a, b, c = (r.standard_normal((2, k, 3)).astype(np.float32) for k in (1, 2, 3))
    i64 = {"last": np.array(-1, np.int64), "zero": np.array(0, np.int64), "one": np.array(1, np.int64)}
    case("sequence_construct_concat", [N("SequenceConstruct", ["a", "b", "c"], ["s"]),
                                       N("ConcatFromSequence", ["s"], ["z0"], axis=1),
                                       N("SequenceLength", ["s"], ["z1"]),
                                       N("SequenceAt", ["s", "last"], ["z2"])],
         {"a": a, "b": b, "c": c}, ["z0", "z1", "z2"], i64, opset=13)
    case("sequence_stack_new_axis", [N("SequenceConstruct", ["a", "a2"], ["s"]),
                                     N("ConcatFromSequence", ["s"], ["z"], axis=-1, new_axis=1)],
         {"a": a, "a2": a * 2}, ["z"], opset=13)
    case("sequence_insert_erase", [N("SequenceEmpty", [], ["e"], dtype=TensorProto.FLOAT),
                                   N("SequenceInsert", ["e", "a"], ["s1"]),
                                   N("SequenceInsert", ["s1", "b", "zero"], ["s2"]),
                                   N("SequenceInsert", ["s2", "c"], ["s3"]),
                                   N("SequenceErase", ["s3", "one"], ["s4"]),
                                   N("ConcatFromSequence", ["s4"], ["z"], axis=1)],
         {"a": a, "b": b, "c": c}, ["z"], i64, opset=13)
    x = r.standard_normal((2, 5, 3)).astype(np.float32)
    case("split_to_sequence", [N("SplitToSequence", ["x"], ["s"], axis=1, keepdims=0),
                               N("ConcatFromSequence", ["s"], ["z0"], axis=2, new_axis=1),
                               N("SplitToSequence", ["x", "two"], ["t"], axis=1),
                               N("SequenceAt", ["t", "last"], ["z1"]),
                               N("SplitToSequence", ["x", "sizes"], ["u"], axis=-2),
                               N("SequenceAt", ["u", "one"], ["z2"])],
         {"x": x}, ["z0", "z1", "z2"], dict(i64, two=np.array(2, np.int64), sizes=np.array([1, 4], np.int64)),
         opset=13)
    case("optional_present", [N("Optional", ["x"], ["o"]), N("OptionalHasElement", ["o"], ["z0"]),
                              N("OptionalGetElement", ["o"], ["z1"])], {"x": x}, ["z0", "z1"], opset=18)
    # Run-time lists (Note [Run-time sequences] in graph/onnx/onnx_convert.cpp):
    # a sequence graph output, a split of an input of unknown rank, positions
    # and splits given at run time. The first two are checked by value in
    # onnx_import_test.cpp (a sequence output has no .npy golden).
    save_only("sequence_output", [N("SequenceConstruct", ["x", "x"], ["s"], name="make")], {"x": [2]}, ["s"],
              opset=13)
    save_only("split_to_sequence_unknown_rank", [N("SplitToSequence", ["x"], ["s"], name="split", axis=1),
                                                  N("ConcatFromSequence", ["s"], ["z"], axis=0)],
              {"x": None}, ["z"], opset=13)
    seq_a = r.standard_normal((2, 3)).astype(np.float32)
    case("sequence_runtime_positions",
         [N("SequenceConstruct", ["x", "y"], ["s"]), N("SequenceAt", ["s", "p"], ["z0"]),
          N("SequenceInsert", ["s", "x", "p"], ["s2"]), N("SequenceErase", ["s2", "q"], ["s3"]),
          N("ConcatFromSequence", ["s3"], ["z1"], axis=1), N("SequenceLength", ["s3"], ["z2"]),
          N("SplitToSequence", ["x", "sizes"], ["t"], axis=1), N("SequenceAt", ["t", "q"], ["z3"])],
         {"x": seq_a, "y": (seq_a * 2)[:, :2].copy(), "p": np.array(-1, np.int64), "q": np.array(0, np.int64),
          "sizes": np.array([2, 1], np.int64)}, ["z0", "z1", "z2", "z3"], opset=13)



def spectrogram_cases():
    """MelWeightMatrix (constant inputs) and STFT with and without a window,
    onesided and full, against ONNX Runtime."""
    r = np.random.default_rng(20261209)
    mel = {"m": np.array(8, np.int64), "n": np.array(64, np.int64), "sr": np.array(8000, np.int64),
           "lo": np.array(0.0, np.float32), "hi": np.array(4000.0, np.float32)}
    case("mel_weight_matrix", [N("MelWeightMatrix", ["m", "n", "sr", "lo", "hi"], ["z"])], {}, ["z"], mel, opset=17)
    mel2 = dict(mel, m=np.array(5, np.int64), n=np.array(50, np.int64), sr=np.array(16000, np.int64),
                lo=np.array(125.0, np.float32), hi=np.array(3800.0, np.float32))
    case("mel_weight_matrix_double", [N("MelWeightMatrix", ["m", "n", "sr", "lo", "hi"], ["z"],
                                        output_datatype=TensorProto.DOUBLE)], {}, ["z"], mel2, opset=17)
    sig = r.standard_normal((2, 40, 1)).astype(np.float32)
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)).astype(np.float32)
    case("stft_window_onesided", [N("STFT", ["x", "step", "w"], ["z"])], {"x": sig}, ["z"],
         {"step": np.array(8, np.int64), "w": hann}, opset=17, rtol=1e-4, atol=1e-5)
    case("stft_frame_length_full", [N("STFT", ["x", "step", "", "fl"], ["z"], onesided=0)], {"x": sig}, ["z"],
         {"step": np.array(5, np.int64), "fl": np.array(12, np.int64)}, opset=17, rtol=1e-4, atol=5e-5)
    cplx = r.standard_normal((1, 30, 2)).astype(np.float32)
    case("stft_complex", [N("STFT", ["x", "step", "", "fl"], ["z"], onesided=0)], {"x": cplx}, ["z"],
         {"step": np.array(7, np.int64), "fl": np.array(10, np.int64)}, opset=17, rtol=1e-4, atol=1e-5)



def max_roi_pool_cases():
    """MaxRoiPool against ONNX Runtime (onnx.reference has no kernel for it)."""
    r = np.random.default_rng(20261211)
    x = r.standard_normal((2, 3, 8, 9)).astype(np.float32)
    rois = np.array([[0, 0, 0, 8, 7], [1, 1.5, 2.5, 6.7, 7.1], [1, -2, -1, 3, 4], [0, 5, 5, 5, 5]], np.float32)
    one("MaxRoiPool", "max_roi_pool", {"x": x, "r": rois}, pooled_shape=[2, 3])
    one("MaxRoiPool", "max_roi_pool_scale", {"x": x, "r": rois * np.float32([1, 4, 4, 4, 4])}, pooled_shape=[3, 3],
        spatial_scale=0.25)


def crop_and_resize_cases():
    """Resize with coordinate_transformation_mode tf_crop_and_resize: boxes
    inside and partly outside the image (the extrapolation value there),
    every mode, a roi computed at run time, axes [3, 2] (opset 18)."""
    r = np.random.default_rng(20261129)
    x = r.standard_normal((1, 2, 6, 7)).astype(np.float32)
    crop = dict(coordinate_transformation_mode="tf_crop_and_resize")
    roi_out = np.array([0, 0, 0.2, -0.3, 1, 1, 1.1, 0.8], np.float32)
    case("resize_crop_linear_outside", [N("Resize", ["x", "roi", "", "sz"], ["z"], mode="linear",
                                          extrapolation_value=7.5, **crop)], {"x": x}, ["z"],
         {"roi": roi_out, "sz": np.array([1, 2, 5, 6], np.int64)}, opset=13)
    case("resize_crop_nearest_scales", [N("Resize", ["x", "roi", "s"], ["z"], mode="nearest", **crop)], {"x": x},
         ["z"], {"roi": np.array([0, 0, 0.1, 0.25, 1, 1, 0.9, 0.75], np.float32),
                 "s": np.array([1, 1, 1.5, 0.5], np.float32)}, opset=13)
    case("resize_crop_cubic_runtime_roi", [N("Resize", ["x", "roi", "", "sz"], ["z"], mode="cubic", **crop)],
         {"x": x, "roi": np.array([0, 0, -0.1, 0.05, 1, 1, 0.7, 1.2], np.float32)}, ["z"],
         {"sz": np.array([1, 2, 4, 9], np.int64)}, opset=13, rtol=1e-4, atol=1e-5)
    case("resize_crop_axes_3_2", [N("Resize", ["x", "roi", "", "sz"], ["z"], mode="linear", axes=[3, 2],
                                    extrapolation_value=-1.0, **crop)], {"x": x}, ["z"],
         {"roi": np.array([0.1, -0.2, 0.9, 0.6], np.float32), "sz": np.array([5, 3], np.int64)}, opset=18)


def antialias_resize_cases():
    """Resize with antialias = 1 (opset 18): linear and cubic kernels widened
    on the axes that shrink; H and W shrinking by different scales (tables of
    different tap counts), one axis growing, exclude_outside with
    cubic_coeff_a -0.5, sizes to one row, align_corners and
    pytorch_half_pixel."""
    r = np.random.default_rng(20261130)
    x = r.standard_normal((1, 2, 13, 17)).astype(np.float32)
    aa = dict(antialias=1)
    case("resize_antialias_linear_scales", [N("Resize", ["x", "", "s"], ["z"], mode="linear", **aa)], {"x": x},
         ["z"], {"s": np.array([1, 1, 0.35, 0.6], np.float32)}, opset=18, rtol=1e-5, atol=1e-6)
    case("resize_antialias_cubic_shrink_grow", [N("Resize", ["x", "", "", "sz"], ["z"], mode="cubic", **aa)],
         {"x": x}, ["z"], {"sz": np.array([1, 2, 6, 23], np.int64)}, opset=18, rtol=1e-5, atol=1e-6)
    case("resize_antialias_cubic_exclude_outside", [N("Resize", ["x", "", "s"], ["z"], mode="cubic",
                                                      exclude_outside=1, cubic_coeff_a=-0.5, **aa)], {"x": x},
         ["z"], {"s": np.array([1, 1, 0.45, 0.45], np.float32)}, opset=18, rtol=1e-5, atol=1e-6)
    case("resize_antialias_linear_one_row", [N("Resize", ["x", "", "", "sz"], ["z"], mode="linear",
                                               coordinate_transformation_mode="pytorch_half_pixel", **aa)],
         {"x": x}, ["z"], {"sz": np.array([1, 2, 1, 5], np.int64)}, opset=18, rtol=1e-5, atol=1e-6)
    case("resize_antialias_linear_align_corners", [N("Resize", ["x", "", "", "sz"], ["z"], mode="linear",
                                                     coordinate_transformation_mode="align_corners", **aa)],
         {"x": x}, ["z"], {"sz": np.array([1, 2, 4, 3], np.int64)}, opset=18, rtol=1e-5, atol=1e-6)


def unique_axis_cases():
    """Unique with axis: duplicate rows among 40 of a [40, 3] int64 matrix
    (ties on the first columns), the columns of a [2, 30, 2] float32 array
    with repeats (axis 1, sorted = 0: groups in order of first index), and a
    negative axis; all four outputs."""
    r = np.random.default_rng(20261201)
    outs = ["y", "indices", "inverse", "counts"]
    rows = r.integers(0, 3, (40, 3)).astype(np.int64)
    case("unique_axis0_int_rows", [N("Unique", ["x"], outs, axis=0)], {"x": rows}, outs, opset=11)
    cols = r.choice(np.array([-1.5, 0.0, 0.25, 2.0], np.float32), (2, 6, 2))
    x = np.concatenate([cols, cols[:, ::-1], cols[:, 2:5], cols[:, :3], cols[:, 1:4], cols[:, ::2], cols[:, :1],
                        cols[:, 5:], cols[:, ::3], cols[:, 3:6], cols[:, :3]], axis=1)[:, :30]
    case("unique_axis1_unsorted", [N("Unique", ["x"], outs, axis=1, sorted=0)], {"x": x}, outs, opset=11)
    case("unique_negative_axis_3d", [N("Unique", ["x"], outs, axis=-1)], {"x": np.ascontiguousarray(
        np.moveaxis(x, 1, 2))}, outs, opset=11)
    # Refused: rows of a length known only at run time, and slices of 300.
    save_only("err_unique_axis_dynamic", [N("Unique", ["x"], ["y"], name="u", axis=0)], {"x": ["n", "m"]}, ["y"],
              opset=11)
    save_only("err_unique_axis_wide", [N("Unique", ["x"], ["y"], name="u", axis=0)], {"x": [4, 300]}, ["y"], opset=11)


def flex_attention_cases():
    """ai.onnx.preview FlexAttention (the reference implementation's values):
    grouped-query heads (4 query heads over 2) with a causal score_mod that
    reads a constant of its own and a prob_mod, symbolic dims (the heads
    repeated at run time), float16 inputs with an explicit scale, float64."""
    r = np.random.default_rng(20261202)
    preview = ["ai.onnx.preview"]
    f = helper.make_tensor_value_info
    causal = np.triu(np.full((5, 6), -np.inf, np.float32), 1)
    score_g = helper.make_graph([N("Add", ["s", "mask"], ["t"])], "score_mod", [f("s", TensorProto.FLOAT, None)],
                                [f("t", TensorProto.FLOAT, None)], initializer=[numpy_helper.from_array(causal, "mask")])
    prob_g = helper.make_graph([N("Constant", [], ["two"], value=numpy_helper.from_array(np.float32(2.0))),
                                N("Mul", ["p", "two"], ["u"])],
                               "prob_mod", [f("p", TensorProto.FLOAT, None)], [f("u", TensorProto.FLOAT, None)])
    q = r.standard_normal((2, 4, 5, 8)).astype(np.float32)
    k = r.standard_normal((2, 2, 6, 8)).astype(np.float32)
    v = r.standard_normal((2, 2, 6, 3)).astype(np.float32)
    node = N("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview", score_mod=score_g, prob_mod=prob_g)
    case("flex_attention_gqa_mods", [node], {"q": q, "k": k, "v": v}, ["y"], opset=23, domains=preview)
    case("flex_attention_symbolic_dims", [N("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview")],
         {"q": q, "k": k, "v": v}, ["y"], opset=23, domains=preview,
         dims={"q": ["b", "hq", "l", 8], "k": ["b", "hkv", "s", 8], "v": ["b", "hkv", "s", 3]})
    case("flex_attention_fp16_scale", [N("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview", scale=0.3)],
         {"q": q.astype(np.float16), "k": k[:, :1].repeat(4, 1).astype(np.float16),
          "v": v[:, :1].repeat(4, 1).astype(np.float16)}, ["y"], opset=23, domains=preview, rtol=2e-3, atol=2e-3)
    case("flex_attention_float64", [N("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview")],
         {"q": q.astype(np.float64), "k": k.astype(np.float64), "v": v.astype(np.float64)}, ["y"], opset=23,
         domains=preview, rtol=1e-12, atol=1e-12)
    save_only("err_flex_attention_opset", [N("FlexAttention", ["q", "k", "v"], ["y"], name="fa",
                                             domain="ai.onnx.preview")],
              {"q": [1, 1, 2, 4], "k": [1, 1, 2, 4], "v": [1, 1, 2, 4]}, ["y"], opset=13, domains=preview)


def grid_sample_3d_cases():
    """GridSample over volumes (opset 20, 5-D): trilinear with border padding,
    nearest with reflection and align_corners, trilinear with zeros and points
    outside the volume."""
    r = np.random.default_rng(20261203)
    x = r.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    grid = r.uniform(-1.3, 1.3, (2, 3, 4, 2, 3)).astype(np.float32)
    for name, mode, padding, align in [("linear_border", "linear", "border", 0),
                                        ("nearest_reflection_aligned", "nearest", "reflection", 1),
                                        ("linear_zeros", "linear", "zeros", 0)]:
        case(f"grid_sample_3d_{name}", [N("GridSample", ["x", "g"], ["y"], mode=mode, padding_mode=padding,
                                          align_corners=align)], {"x": x, "g": grid}, ["y"], opset=20)


def deform_conv_cases():
    """DeformConv (opset 19): two groups and two offset groups with a bias and
    a mask, strides, asymmetric pads and dilations, offsets up to 2.5 pixels
    (taps falling outside the image); and without bias or mask."""
    r = np.random.default_rng(20261204)
    x = r.standard_normal((2, 4, 7, 6)).astype(np.float32)
    w = r.standard_normal((6, 2, 3, 2)).astype(np.float32)
    b = r.standard_normal((6,)).astype(np.float32)
    # stride (2, 1), pads (1, 0, 2, 1), dilation (1, 2): oH = (7 + 3 - 3) // 2 + 1 = 4, oW = (6 + 1 - 3) + 1 = 5.
    offset = r.uniform(-2.5, 2.5, (2, 2 * 2 * 6, 4, 5)).astype(np.float32)
    mask = r.uniform(0, 1, (2, 2 * 6, 4, 5)).astype(np.float32)
    attrs = dict(group=2, offset_group=2, strides=[2, 1], pads=[1, 0, 2, 1], dilations=[1, 2], kernel_shape=[3, 2])
    case("deform_conv_groups_mask_bias", [N("DeformConv", ["x", "w", "o", "b", "m"], ["y"], **attrs)],
         {"x": x, "w": w, "o": offset, "b": b, "m": mask}, ["y"], opset=19, rtol=1e-4, atol=1e-5)
    case("deform_conv_plain", [N("DeformConv", ["x", "w", "o"], ["y"], group=2)],
         {"x": x, "w": w, "o": r.uniform(-1.5, 1.5, (2, 12, 5, 5)).astype(np.float32)}, ["y"], opset=19, rtol=1e-4,
         atol=1e-5)


def max_unpool_runtime_cases():
    """MaxUnpool with output_shape given at run time (a graph input): MaxPool
    over 5 x 5, unpooled back to 5 x 5, larger than the 4 x 4 the window
    gives; the indices address the output_shape, as ONNX Runtime and PyTorch
    read them (ONNX's reference pads a 4 x 4 result instead)."""
    r = np.random.default_rng(20261205)
    case("max_unpool_runtime_output_shape",
         [N("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
          N("MaxUnpool", ["p", "i", "shape"], ["z"], kernel_shape=[2, 2], strides=[2, 2])],
         {"x": r.standard_normal((1, 2, 5, 5)).astype(np.float32), "shape": np.array([1, 2, 5, 5], np.int64)}, ["z"],
         opset=11)


def tfidf_cases():
    """TfIdfVectorizer over integer tokens, against ONNX Runtime: tokens from a
    vocabulary of 6 (3 for trigrams) so that most n-grams of a pool of
    distinct 1-, 2- and 3-grams occur, columns in a shuffled order, each mode
    with and without weights (which belong to the pool's n-grams), sizes
    outside [min, max] and a size with no n-grams, skips."""
    r = np.random.default_rng(20261201)

    def pool(sizes, vocab):  # {n: count} -> pool, ngram_counts (distinct n-grams per size)
        grams, counts = [], []
        for n in range(1, max(sizes) + 1):
            counts.append(len(grams))
            seen = set()
            while len(seen) < sizes.get(n, 0):
                seen.add(tuple(int(v) for v in r.integers(0, vocab, n)))
            for g in sorted(seen, key=lambda g: r.random()):
                grams.extend(g)
        return grams, counts

    def tfidf(name, x, sizes, weights=False, **attrs):
        grams, counts = pool(sizes, int(x.max()) + 1)
        g = sum(sizes.values())
        indexes = [int(v) for v in r.permutation(g + 2)[:g]]  # two columns no n-gram fills
        if weights:
            attrs["weights"] = [float(v) for v in np.round(r.random(g) * 4 + 0.5, 3)]
        case(name, [N("TfIdfVectorizer", ["x"], ["z"], pool_int64s=grams, ngram_counts=counts, ngram_indexes=indexes,
                      **attrs)], {"x": x}, ["z"], opset=9)

    tfidf("tfidf_tf_rows_skips", r.integers(0, 6, (3, 12)).astype(np.int64), {1: 4, 2: 6, 3: 5}, mode="TF",
          min_gram_length=1, max_gram_length=3, max_skip_count=2)
    tfidf("tfidf_idf_weights_int32", r.integers(0, 6, 15).astype(np.int32), {1: 3, 2: 5}, weights=True, mode="IDF",
          min_gram_length=1, max_gram_length=2, max_skip_count=1)
    tfidf("tfidf_tfidf_weights_bigrams", r.integers(0, 6, (2, 9)).astype(np.int64), {1: 3, 2: 6, 3: 2}, weights=True,
          mode="TFIDF", min_gram_length=2, max_gram_length=2, max_skip_count=3)
    tfidf("tfidf_tfidf_unigrams_once", r.integers(0, 6, (2, 7)).astype(np.int64), {1: 4}, mode="TFIDF",
          min_gram_length=1, max_gram_length=1, max_skip_count=3)
    tfidf("tfidf_idf_no_weights_empty_size", r.integers(0, 3, (4, 8)).astype(np.int32), {1: 2, 3: 6}, mode="IDF",
          min_gram_length=2, max_gram_length=3, max_skip_count=1)


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
