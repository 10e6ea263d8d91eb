#!/usr/bin/env python3
"""Writes examples/op_library/scale_shift.onnx: an ONNX model whose first node
is of a custom domain (com.example) and names the op library's op
example_scale_shift, with its args as attributes, then a Relu of ONNX's own:

    z = relu(x * 2 + 0.5),  x: float32[2, 3]

Run it with the op library loaded:
    ops-run examples/op_library/scale_shift.onnx --op-library libexample_ops.so --input x=x.npy
"""
import os

from onnx import TensorProto, helper, save

here = os.path.dirname(os.path.abspath(__file__))
nodes = [helper.make_node("example_scale_shift", ["x"], ["y"], domain="com.example", scale=2.0, shift=0.5),
         helper.make_node("Relu", ["y"], ["z"])]
g = helper.make_graph(nodes, "scale_shift", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                      [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
                      producer_name="examples/op_library/make_model.py")
m.ir_version = 8
save(m, os.path.join(here, "scale_shift.onnx"))
