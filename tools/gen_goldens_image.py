#!/usr/bin/env python3
"""Generate the goldens of the resize op under tests_cpu/golden/image/
(tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_image.py
Needs `pip install onnx numpy`. The expected values come from onnx's own
reference evaluator (onnx.reference) running a one-node Resize model, an
implementation independent of libops' tap tables; NHWC cases are the NCHW
ones transposed.
"""
import numpy as np
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from golden_manifest import Manifest

rng = np.random.default_rng(20261128)
M = None

MODES = {"nearest": 0, "linear": 1, "cubic": 2}
COORDS = {"half_pixel": 0, "asymmetric": 1, "align_corners": 2, "pytorch_half_pixel": 3, "tf_half_pixel_for_nn": 4}
NEAREST = {"round_prefer_floor": 0, "round_prefer_ceil": 1, "floor": 2, "ceil": 3}
TOL = {np.float64: (1e-12, 1e-12), np.float32: (1e-5, 1e-6)}


def onnx_resize(x, out_hw, scales, mode, coord, nearest, cubic_a, exclude_outside):
    inputs = ["x", "", "scales"] if scales else ["x", "", "", "sizes"]
    node = helper.make_node("Resize", inputs, ["z"], mode=mode, coordinate_transformation_mode=coord,
                            nearest_mode=nearest, cubic_coeff_a=cubic_a, exclude_outside=exclude_outside)
    inits = [helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, *scales])] if scales else \
        [helper.make_tensor("sizes", TensorProto.INT64, [4], [x.shape[0], x.shape[1], *out_hw])]
    t = TensorProto.DOUBLE if x.dtype == np.float64 else TensorProto.FLOAT
    g = helper.make_graph([node], "resize", [helper.make_tensor_value_info("x", t, list(x.shape))],
                          [helper.make_tensor_value_info("z", t, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    return ReferenceEvaluator(m).run(None, {"x": x})[0]


def tf_half_pixel_for_nn(x, out_hw, nearest):
    """ONNX opset 11's tf_half_pixel_for_nn (onnx.reference lacks it):
    source (o + 0.5) / scale, rounded by nearest_mode, clamped."""
    rnd = {"round_prefer_floor": lambda c: np.ceil(c - 0.5), "round_prefer_ceil": lambda c: np.floor(c + 0.5),
           "floor": np.floor, "ceil": np.ceil}[nearest]
    idx = [np.clip(rnd((np.arange(o) + 0.5) * (i / o)), 0, i - 1).astype(np.int64)
           for i, o in zip(x.shape[2:], out_hw)]
    return x[:, :, idx[0]][:, :, :, idx[1]]


def case(name, shape, out_hw, mode="nearest", coord="half_pixel", nearest="round_prefer_floor", scales=None,
         cubic_a=-0.75, exclude_outside=0, dtype=np.float32, nhwc=False):
    x = rng.standard_normal(shape).astype(dtype)
    if coord == "tf_half_pixel_for_nn":
        z = tf_half_pixel_for_nn(x, out_hw, nearest)
    else:
        z = onnx_resize(x, out_hw, scales, mode, coord, nearest, cubic_a, exclude_outside).astype(dtype)
    assert tuple(z.shape[2:]) == tuple(out_hw), (name, z.shape, out_hw)
    i = [out_hw[0], out_hw[1], MODES[mode], COORDS[coord], NEAREST[nearest], 1 if nhwc else 0, exclude_outside]
    # The scales as the model holds them (float32).
    t = [float(np.float32(scales[0])) if scales else 0.0, float(np.float32(scales[1])) if scales else 0.0, cubic_a]
    rtol, atol = TOL[dtype]
    if mode == "cubic" and dtype == np.float64:  # onnx.reference computes the cubic weights in float32
        rtol, atol = 2e-6, 5e-6
    if nhwc:
        x, z = x.transpose(0, 2, 3, 1), z.transpose(0, 2, 3, 1)
    tag = "f64" if dtype == np.float64 else "f32"
    M.case("resize", f"{name}_{tag}", [x], [z], i=i, t=t, rtol=rtol, atol=atol)


def main():
    global M
    M = Manifest("image")
    for dtype in (np.float32, np.float64):
        for mode in MODES:
            for coord in COORDS:
                if coord == "tf_half_pixel_for_nn" and mode != "nearest":
                    continue
                case(f"{mode}_{coord}_up", (1, 2, 4, 5), (7, 10), mode, coord, dtype=dtype)
                case(f"{mode}_{coord}_down", (2, 1, 9, 7), (4, 3), mode, coord, dtype=dtype)
            case(f"{mode}_scales_2x", (1, 3, 3, 4), (6, 8), mode, scales=[2.0, 2.0], dtype=dtype)
            case(f"{mode}_scales_fractional", (1, 2, 5, 6), (8, 4), mode, "asymmetric", scales=[1.7, 0.75],
                 dtype=dtype)
            case(f"{mode}_nhwc", (2, 5, 4, 3), (8, 7), mode, "pytorch_half_pixel", dtype=dtype, nhwc=True)
            case(f"{mode}_to_one_pixel", (1, 2, 4, 5), (1, 1), mode, "align_corners", dtype=dtype)
        for nearest in NEAREST:
            case(f"nearest_{nearest}", (1, 1, 5, 4), (8, 11), "nearest", "asymmetric", nearest, dtype=dtype)
            case(f"nearest_{nearest}_half_pixel", (1, 1, 7, 6), (3, 5), "nearest", "half_pixel", nearest,
                 dtype=dtype)
        case("cubic_a_tf", (1, 2, 5, 5), (9, 7), "cubic", "half_pixel", cubic_a=-0.5, dtype=dtype)
        case("cubic_exclude_outside", (1, 2, 5, 5), (9, 7), "cubic", "half_pixel", exclude_outside=1, dtype=dtype)
        case("cubic_exclude_outside_down", (1, 1, 8, 9), (3, 4), "cubic", "asymmetric", exclude_outside=1,
             dtype=dtype)
    M.write("tools/gen_goldens_image.py")


if __name__ == "__main__":
    main()
