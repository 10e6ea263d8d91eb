#!/usr/bin/env python3
"""Generate the goldens of the resize, crop_and_resize, grid_sample, roi_align
and non_max_suppression ops, and of libnd4j's resize_nearest_neighbor,
resize_bilinear and resize_bicubic (TensorFlow's kernels written out in
numpy: tf_axis_taps), under tests_cpu/golden/image/ (tools/golden_manifest.py).

Run from anywhere:  python3 tools/gen_goldens_image.py
Needs `pip install onnx numpy` (and onnxruntime for grid_sample's bicubic
padding cases). The expected values come from onnx's own
reference evaluator (onnx.reference) running a one-node Resize model, an
implementation independent of libops' tap tables; NHWC cases are the NCHW
ones transposed. crop_and_resize's reference is TF's sampling written out in
float64 numpy (crop_resize below); non_max_suppression's is the greedy walk of
TF's and ONNX's specifications (nms below), its ONNX form also checked
against ONNX Runtime in tools/gen_goldens_onnx.py.
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


def crop_resize(image, boxes, box_index, crop_h, crop_w, nearest=False, extrapolation=0.0):
    """TF's crop_and_resize: crop_h rows spread from y1 (H - 1) to y2 (H - 1), one row at their middle.
    Sample positions are computed in the op's compute type (float32, or float64 for a float64 image), as TF
    computes them in float32: a position like 0.9f * 5 rounds to 4.5 there, and nearest then picks row 5."""
    ct = np.float64 if image.dtype == np.float64 else np.float32
    _, H, W, C = image.shape
    img = image.astype(np.float64)
    hm, wm, half = ct(H - 1), ct(W - 1), ct(0.5)
    z = np.full((len(boxes), crop_h, crop_w, C), extrapolation, np.float64)
    for b, (y1, x1, y2, x2) in enumerate(boxes.astype(ct)):
        for y in range(crop_h):
            in_y = y1 * hm + ct(y) * ((y2 - y1) * hm / ct(crop_h - 1)) if crop_h > 1 else half * (y1 + y2) * hm
            if not 0 <= in_y <= hm:
                continue
            for x in range(crop_w):
                in_x = x1 * wm + ct(x) * ((x2 - x1) * wm / ct(crop_w - 1)) if crop_w > 1 else half * (x1 + x2) * wm
                if not 0 <= in_x <= wm:
                    continue
                im = img[box_index[b]]
                if nearest:  # round half away from zero
                    z[b, y, x] = im[int(np.floor(float(in_y) + 0.5)), int(np.floor(float(in_x) + 0.5))]
                    continue
                t, bo, l, r = int(np.floor(in_y)), int(np.ceil(in_y)), int(np.floor(in_x)), int(np.ceil(in_x))
                yl, xl = float(in_y) - t, float(in_x) - l
                top = im[t, l] + (im[t, r] - im[t, l]) * xl
                bottom = im[bo, l] + (im[bo, r] - im[bo, l]) * xl
                z[b, y, x] = top + (bottom - top) * yl
    return z


def crop_resize_cases():
    image = rng.standard_normal((2, 6, 7, 3)).astype(np.float32)
    # Inside, flipped (y1 > y2), partly outside the image (extrapolated), one row/column.
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.9, 0.7, 0.15, 0.05], [-0.31, 0.4, 0.6, 1.3], [0.33, 0.0, 0.61, 1.0]],
                     np.float32)
    index = np.array([0, 1, 1, 0], np.int32)
    size = np.array([4, 5], np.int32)
    for name, nearest, extra in (("bilinear", False, 0.0), ("nearest", True, 0.0), ("extrapolate", False, -1.5)):
        z = crop_resize(image, boxes, index, 4, 5, nearest, extra).astype(np.float32)
        M.case("crop_and_resize", name, [image, boxes, index, size], [z], i=[int(nearest)],
               t=[extra] if extra else None, rtol=1e-5, atol=1e-5)
    one = np.array([1, 1], np.int64)
    z = crop_resize(image.astype(np.float64), boxes.astype(np.float64), index.astype(np.int64), 1, 1)
    M.case("crop_and_resize", "one_pixel_f64", [image.astype(np.float64), boxes.astype(np.float64),
                                                index.astype(np.int64), one], [z], rtol=1e-12, atol=1e-12)
    u8 = rng.integers(0, 255, (1, 4, 4, 2)).astype(np.uint8)
    b1 = np.array([[0.0, 0.0, 1.0, 1.0]], np.float32)
    z = crop_resize(u8, b1, np.array([0]), 7, 3).astype(np.float32)
    M.case("crop_and_resize", "uint8_image", [u8, b1, np.array([0], np.int64), np.array([7, 3], np.int32)], [z],
           rtol=1e-5, atol=1e-4)


def iou(a, b, center):
    def corners(v):
        if center:  # x, y, w, h
            return v[1] - v[3] / 2, v[0] - v[2] / 2, v[1] + v[3] / 2, v[0] + v[2] / 2
        return min(v[0], v[2]), min(v[1], v[3]), max(v[0], v[2]), max(v[1], v[3])
    ay1, ax1, ay2, ax2 = corners(a)
    by1, bx1, by2, bx2 = corners(b)
    area_a, area_b = (ay2 - ay1) * (ax2 - ax1), (by2 - by1) * (bx2 - bx1)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ay2, by2) - max(ay1, by1), 0) * max(min(ax2, bx2) - max(ax1, bx1), 0)
    return inter / (area_a + area_b - inter)


def nms(boxes, scores, max_out, iou_threshold, score_threshold=None, center=False):
    """Greedy suppression: by falling score (stable), keep a box overlapping no kept one by more than the threshold."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    kept = []
    for i in order:
        if max_out >= 0 and len(kept) >= max_out:
            break
        if score_threshold is not None and not scores[i] > score_threshold:
            break
        if all(iou(boxes[i], boxes[k], center) <= iou_threshold for k in kept):
            kept.append(i)
    return kept


def nms_cases():
    # Clusters of overlapping boxes, a tie in score (the lower index first), a zero-area box, flipped corners.
    base = rng.uniform(0, 10, (4, 2))
    boxes = []
    for c in base:
        for _ in range(4):
            y, x = c + rng.uniform(-1, 1, 2)
            h, w = rng.uniform(1, 3, 2)
            boxes.append([y, x, y + h, x + w])
    boxes[3] = [boxes[3][2], boxes[3][3], boxes[3][0], boxes[3][1]]  # corners given the other way round
    boxes.append([5.0, 5.0, 5.0, 8.0])  # zero area: overlaps nothing
    boxes = np.array(boxes, np.float32)
    scores = rng.uniform(0, 1, len(boxes)).astype(np.float32)
    scores[7] = scores[2]  # a tie
    for name, max_out, thr, score_thr in (("default", -1, 0.5, None), ("max3", 3, 0.5, None),
                                          ("tight_iou", -1, 0.1, None), ("score_threshold", -1, 0.7, 0.4)):
        kept = np.array(nms(boxes.astype(np.float64), scores.astype(np.float64), max_out, thr, score_thr), np.int32)
        M.case("non_max_suppression", name, [boxes, scores], [kept], i=[max_out],
               t=[thr] + ([score_thr] if score_thr is not None else []))
    # The ONNX form: [batch, n, 4] centre boxes, [batch, classes, n] scores; thresholds as inputs.
    cb = rng.uniform(1, 6, (2, 6, 4))
    cs = rng.uniform(0, 1, (2, 3, 6))
    rows = [[b, c, i] for b in range(2) for c in range(3) for i in nms(cb[b], cs[b, c], 2, 0.3, 0.2, center=True)]
    M.case("non_max_suppression", "batched_centres_f64",
           [cb, cs, np.array(2, np.int64), np.array(0.3), np.array(0.2)], [np.array(rows, np.int64).reshape(-1, 3)],
           i=[-1, 1])
    M.case("non_max_suppression", "no_boxes", [np.zeros((0, 4), np.float32), np.zeros(0, np.float32)],
           [np.zeros(0, np.int32)])


GS_MODES = {"linear": 0, "nearest": 1, "cubic": 2}
GS_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def onnx_grid_sample(x, grid, mode, padding, align):
    node = helper.make_node("GridSample", ["x", "g"], ["z"], mode=mode, padding_mode=padding, align_corners=align)
    t = TensorProto.DOUBLE if x.dtype == np.float64 else TensorProto.FLOAT
    g = helper.make_graph([node], "gs", [helper.make_tensor_value_info("x", t, list(x.shape)),
                                         helper.make_tensor_value_info("g", t, list(grid.shape))],
                          [helper.make_tensor_value_info("z", t, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    if mode == "cubic" and padding != "zeros":
        # onnx.reference clamps or reflects the point before taking its 16
        # taps; ONNX Runtime (and PyTorch, which exports these models) pads
        # each tap instead, as libops does.
        import onnxruntime as ort
        m.ir_version = 10
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return sess.run(None, {"x": x, "g": grid})[0]
    return ReferenceEvaluator(m).run(None, {"x": x, "g": grid})[0]


def grid_sample_cases():
    """grid_sample against onnx.reference's GridSample (ONNX Runtime's for
    bicubic with border or reflection padding): every mode, padding
    mode and align_corners, with grid points inside, on and well outside the
    image (reflection folds them back more than once), halves for nearest."""
    r = np.random.default_rng(20261204)
    x = r.standard_normal((2, 3, 5, 6)).astype(np.float32)
    grid = (r.random((2, 4, 7, 2)) * 3.2 - 1.6).astype(np.float32)
    grid[0, 0, :4] = [[-1, -1], [1, 1], [-1, 1], [3.9, -4.7]]  # corners, and far outside
    for mode in GS_MODES:
        for padding in GS_PADDING:
            for align in (0, 1):
                z = onnx_grid_sample(x, grid, mode, padding, align).astype(np.float32)
                M.case("grid_sample", f"{mode}_{padding}_align{align}", [x, grid], [z],
                       i=[GS_MODES[mode], GS_PADDING[padding]], b=[align], rtol=1e-5, atol=1e-5)
    # Nearest ties: a 4-pixel row, points at pixel positions 0.5 and 1.5 (align_corners: -1 + k / 3).
    x1 = np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4)
    g1 = np.array([[[[-2 / 3, 0], [0, 0], [2 / 3, 0]]]], np.float32)
    M.case("grid_sample", "nearest_halves_to_even", [x1, g1], [onnx_grid_sample(x1, g1, "nearest", "zeros", 1)],
           i=[1, 0], b=[1], rtol=1e-6, atol=1e-6)
    # float64, and a one-pixel image.
    x64 = r.standard_normal((1, 2, 4, 3))
    g64 = r.random((1, 3, 3, 2)) * 2.4 - 1.2
    M.case("grid_sample", "linear_border_f64", [x64, g64], [onnx_grid_sample(x64, g64, "linear", "border", 0)],
           i=[0, 1], b=[0], rtol=1e-6, atol=1e-6)
    xp = r.standard_normal((1, 1, 1, 1)).astype(np.float32)
    gp = (r.random((1, 2, 2, 2)) * 4 - 2).astype(np.float32)
    for padding in GS_PADDING:
        for align in (0, 1):
            if padding == "reflection" and align:
                continue  # an empty range to reflect in: onnx.reference divides by zero
            M.case("grid_sample", f"one_pixel_{padding}_align{align}", [xp, gp],
                   [onnx_grid_sample(xp, gp, "linear", padding, align).astype(np.float32)],
                   i=[0, GS_PADDING[padding]], b=[align], rtol=1e-5, atol=1e-6)


def onnx_roi_align(x, rois, index, **attrs):
    node = helper.make_node("RoiAlign", ["x", "r", "i"], ["z"], **attrs)
    t = TensorProto.DOUBLE if x.dtype == np.float64 else TensorProto.FLOAT
    g = helper.make_graph([node], "ra", [helper.make_tensor_value_info("x", t, list(x.shape)),
                                         helper.make_tensor_value_info("r", t, list(rois.shape)),
                                         helper.make_tensor_value_info("i", TensorProto.INT64, list(index.shape))],
                          [helper.make_tensor_value_info("z", t, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)])
    return ReferenceEvaluator(m).run(None, {"x": x, "r": rois, "i": index})[0]


def roi_align_cases():
    """roi_align against onnx.reference's RoiAlign: avg and max, both
    coordinate modes, adaptive and fixed sampling, a spatial scale, rois
    reaching past the image, a degenerate roi, a one-pixel image."""
    r = np.random.default_rng(20261206)
    x = r.standard_normal((2, 3, 10, 12)).astype(np.float32)
    rois = np.array([[0, 0, 11, 9], [2.5, 1.2, 7.7, 8.1], [-3, -2, 4, 3], [6, 5, 15, 14], [4, 4, 4, 4]], np.float32)
    index = np.array([0, 1, 1, 0, 1], np.int64)
    for mode, m in (("avg", 0), ("max", 1)):
        for coord, c in (("half_pixel", 0), ("output_half_pixel", 1)):
            for ratio in (0, 2):
                z = onnx_roi_align(x, rois, index, mode=mode, coordinate_transformation_mode=coord, output_height=3,
                                   output_width=4, sampling_ratio=ratio)
                M.case("roi_align", f"{mode}_{coord}_ratio{ratio}", [x, rois, index], [z.astype(np.float32)],
                       i=[3, 4, ratio, m, c], t=[1.0], rtol=1e-5, atol=1e-5)
    scaled = rois * 4
    z = onnx_roi_align(x, scaled, index, spatial_scale=0.25, output_height=2, output_width=2)
    M.case("roi_align", "spatial_scale", [x, scaled, index], [z.astype(np.float32)], i=[2, 2, 0, 0, 0], t=[0.25],
           rtol=1e-5, atol=1e-5)
    x64 = r.standard_normal((1, 2, 6, 5))
    r64 = np.array([[0.3, 0.7, 4.2, 5.1]])
    z = onnx_roi_align(x64, r64, np.array([0], np.int64), output_height=2, output_width=3)
    M.case("roi_align", "f64", [x64, r64, np.array([0], np.int64)], [z], i=[2, 3, 0, 0, 0], t=[1.0], rtol=1e-10,
           atol=1e-10)
    x1 = r.standard_normal((1, 1, 1, 1)).astype(np.float32)
    r1 = np.array([[-0.5, -0.5, 0.5, 0.5], [0, 0, 3, 3]], np.float32)
    z = onnx_roi_align(x1, r1, np.array([0, 0], np.int64), output_height=2, output_width=2, sampling_ratio=2)
    M.case("roi_align", "one_pixel", [x1, r1, np.array([0, 0], np.int64)], [z.astype(np.float32)],
           i=[2, 2, 2, 0, 0], t=[1.0], rtol=1e-5, atol=1e-6)


def max_roi_pool(x, rois, ph, pw, scale):
    """Fast R-CNN's RoI pooling as ONNX's MaxRoiPool (ONNX Runtime's kernel;
    onnx.reference has none): corners scaled and rounded half away from
    zero, at least one pixel, bins floor/ceil-split and clipped, empty bins
    0. gen_goldens_onnx.py checks the same definition against ONNX Runtime."""
    def rnd(v):
        return int(np.sign(v) * np.floor(abs(v) + 0.5))
    n, c, h, w = x.shape
    z = np.zeros((len(rois), c, ph, pw), x.dtype)
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        x1, y1, x2, y2 = (rnd(float(v) * scale) for v in (x1, y1, x2, y2))
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        bh, bw = np.float32(rh) / np.float32(ph), np.float32(rw) / np.float32(pw)
        for i in range(ph):
            hs = min(max(int(np.floor(np.float32(i) * bh)) + y1, 0), h)
            he = min(max(int(np.ceil(np.float32(i + 1) * bh)) + y1, 0), h)
            for j in range(pw):
                ws = min(max(int(np.floor(np.float32(j) * bw)) + x1, 0), w)
                we = min(max(int(np.ceil(np.float32(j + 1) * bw)) + x1, 0), w)
                if he > hs and we > ws:
                    z[r, :, i, j] = x[int(b), :, hs:he, ws:we].max(axis=(1, 2))
    return z


def max_roi_pool_cases():
    """max_roi_pool: rois inside, past and before the image, one pixel, a
    spatial scale that rounds halves, bins that come out empty."""
    r = np.random.default_rng(20261210)
    x = r.standard_normal((2, 3, 9, 11)).astype(np.float32)
    rois = np.array([[0, 0, 0, 10, 8], [1, 2.4, 1.6, 7.5, 6.5], [1, -3, -2, 4, 3], [0, 6, 5, 15, 14],
                     [1, 4, 4, 4, 4], [0, 9, 7, 10, 8]], np.float32)
    for ph, pw in ((2, 2), (3, 4), (5, 1)):
        M.case("max_roi_pool", f"pool_{ph}x{pw}", [x, rois], [max_roi_pool(x, rois, ph, pw, 1.0)], i=[ph, pw],
               t=[1.0])
    doubled = rois.copy()
    doubled[:, 1:] *= 2
    doubled[1, 1:] += 0.5  # x1 2.4 -> 5.3 * 0.5 = 2.65; y2 6.5 -> 13.5 * 0.5 = 6.75
    M.case("max_roi_pool", "scale_half", [x, doubled], [max_roi_pool(x, doubled, 3, 3, 0.5)], i=[3, 3], t=[0.5])
    x64 = r.standard_normal((1, 2, 6, 5))
    r64 = np.array([[0, 0.5, 1.5, 3.5, 4.5]])
    M.case("max_roi_pool", "f64", [x64, r64], [max_roi_pool(x64, r64, 2, 2, 1.0)], i=[2, 2], t=[1.0])


def tf_axis_taps(n_in, n_out, mode, align, half):
    """TensorFlow's resize kernels along one axis, written out as (index,
    weight) lists per output index: the reference of libnd4j's
    resize_nearest_neighbor / resize_bilinear / resize_bicubic."""
    scale = (n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out
    taps = []
    for o in range(n_out):
        if mode == "nearest":
            if align:
                i = int(np.floor(o * scale + 0.5))  # roundf of a non-negative value
            elif half:
                i = max(int(np.floor((o + 0.5) * scale)), 0)
            else:
                i = int(np.floor(o * scale))
            taps.append([(min(i, n_in - 1), 1.0)])
            continue
        c = (o + 0.5) * scale - 0.5 if half else o * scale
        f = int(np.floor(c))
        t = c - f
        if mode == "linear":
            lower, upper = max(f, 0), min(int(np.ceil(c)), n_in - 1)
            taps.append([(lower, 1 - t), (upper, t)])
            continue
        a = -0.5 if half else -0.75

        def keys(d):
            d = abs(d)
            if d <= 1:
                return ((a + 2) * d - (a + 3)) * d * d + 1
            return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a if d < 2 else 0.0
        row = [(f + k, keys(t - k)) for k in (-1, 0, 1, 2)]
        if half:  # Keys' cubic: taps outside the image weigh 0, the rest renormalized
            row = [(i, w if 0 <= i < n_in else 0.0) for i, w in row]
            total = sum(w for _, w in row)
            row = [(i, w / total) for i, w in row]
        taps.append([(min(max(i, 0), n_in - 1), w) for i, w in row])
    return taps


def tf_resize(images, out_hw, mode, align, half):
    """images [N, H, W, C] -> [N, oh, ow, C] in float64."""
    x = images.astype(np.float64)
    ty = tf_axis_taps(x.shape[1], out_hw[0], mode, align, half)
    tx = tf_axis_taps(x.shape[2], out_hw[1], mode, align, half)
    z = np.zeros((x.shape[0], out_hw[0], out_hw[1], x.shape[3]))
    for oy, rows in enumerate(ty):
        for ox, cols in enumerate(tx):
            for iy, wy in rows:
                for ix, wx in cols:
                    z[:, oy, ox, :] += wy * wx * x[:, iy, ix, :]
    return z.astype(images.dtype)


def tf_resize_cases():
    """libnd4j's resize_nearest_neighbor, resize_bilinear and resize_bicubic."""
    r = np.random.default_rng(20261129)
    ops = {"nearest": "resize_nearest_neighbor", "linear": "resize_bilinear", "cubic": "resize_bicubic"}
    for mode, op in ops.items():
        for tag, align, half in (("default", False, False), ("align_corners", True, False),
                                 ("half_pixel", False, True)):
            for shape, out_hw, kind in (((2, 4, 5, 3), (7, 9), "up"), ((1, 9, 7, 2), (4, 3), "down")):
                x = r.standard_normal(shape).astype(np.float32)
                M.case(op, f"{tag}_{kind}", [x], [tf_resize(x, out_hw, mode, align, half)], i=list(out_hw),
                       b=[align, half], rtol=1e-5, atol=1e-5)
        # One image [H, W, C], the size as input 1.
        x = r.standard_normal((5, 4, 2)).astype(np.float32)
        z = tf_resize(x[None], (3, 6), mode, False, True)[0]
        M.case(op, "one_image_size_input", [x, np.array([3, 6], np.int32)], [z], b=[False, True], rtol=1e-5,
               atol=1e-5)


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
    crop_resize_cases()
    nms_cases()
    grid_sample_cases()
    roi_align_cases()
    max_roi_pool_cases()
    tf_resize_cases()
    M.write("tools/gen_goldens_image.py")


if __name__ == "__main__":
    main()
