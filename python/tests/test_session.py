"""InferenceSession: ONNX and builder models, inputs and outputs, threads."""
import threading

import numpy as np
import pytest

import libops


def relu_graph(dtype="float32", shape=(-1, 3)):
    g = libops.Graph()
    x = g.placeholder("x", dtype, list(shape))
    g.output("y", g.op("relu", x))
    return g.to_bytes()


def test_an_onnx_model_as_exporters_write_it(golden):
    # Symbolic batch, a Shape-computed flatten into a matmul: ONNX Runtime's
    # outputs are the goldens (tools/gen_goldens_onnx_exported.py).
    sess = libops.InferenceSession(golden("onnx_exported", "view_batch_flatten.onnx"))
    assert [i.name for i in sess.inputs] == ["x"]
    assert isinstance(sess.inputs[0].shape[0], str)  # the symbolic batch, by its name
    for s in ("s0", "s1"):
        x = np.load(golden("onnx_exported", f"view_batch_flatten.{s}.in0.npy"))
        want = np.load(golden("onnx_exported", f"view_batch_flatten.{s}.out0.npy"))
        [y] = sess.run({"x": x})
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_a_builder_model_and_named_outputs():
    g = libops.Graph()
    x = g.placeholder("x", "float", [-1, 4])  # "float" is float32, as in ONNX
    w = g.constant("w", np.arange(8, dtype=np.float32).reshape(4, 2))
    logits = g.op("matmul", x, w)
    g.output("logits", logits)
    g.output("probs", g.op("softmax", logits, axis=1))
    sess = libops.InferenceSession(g.to_bytes(), threads=1, profiling=True)
    assert [o.name for o in sess.outputs] == ["logits", "probs"]
    assert sess.inputs[0].dtype == np.float32
    xv = np.array([[1, 0, -1, 2], [0.5, 0.5, 0.5, 0.5]], np.float32)
    logits_v, probs_v = sess.run({"x": xv})
    want = xv @ np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(logits_v, want, rtol=1e-6)
    e = np.exp(want - want.max(axis=1, keepdims=True))
    [p] = sess.run({"x": xv}, outputs=["probs"])
    np.testing.assert_allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    assert "matmul" in sess.profile()
    with pytest.raises(KeyError, match="no output named 'nope'"):
        sess.run({"x": xv}, outputs=["nope"])


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                   "float16", "float32", "float64"])
def test_every_dtype_round_trips(dtype):
    g = libops.Graph()
    x = g.placeholder("x", dtype, [-1])
    g.output("y", g.op("reshape", x, shape=[-1, 2]))
    sess = libops.InferenceSession(g.to_bytes())
    a = (np.arange(6) % 3).astype(dtype)
    [y] = sess.run({"x": a})
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y, a.reshape(3, 2))


def test_bfloat16_crosses_as_ml_dtypes():
    ml = pytest.importorskip("ml_dtypes")
    sess = libops.InferenceSession(relu_graph("bfloat16", [-1]))
    a = np.array([-1.5, 0.0, 2.25], ml.bfloat16)
    [y] = sess.run({"x": a})
    assert y.dtype == ml.bfloat16
    np.testing.assert_array_equal(y.astype(np.float32), [0.0, 0.0, 2.25])


def test_strided_and_empty_inputs():
    sess = libops.InferenceSession(relu_graph())
    base = np.arange(-12, 12, dtype=np.float32).reshape(6, 4)
    view = base[::2, 1:]  # rows 0, 2, 4; columns 1..3: strided, read in place
    [y] = sess.run({"x": view})
    np.testing.assert_array_equal(y, np.maximum(view, 0))
    flipped = base[::-1, :3]  # a negative stride: copied first
    [y] = sess.run({"x": flipped})
    np.testing.assert_array_equal(y, np.maximum(flipped, 0))
    [y] = sess.run({"x": np.zeros((0, 3), np.float32)})
    assert y.shape == (0, 3)


def test_outputs_are_the_engines_memory_and_inputs_are_not_copied():
    # An identity graph's output is its input's memory: the input was read
    # in place. The package copies such an output (the engine does not own
    # the caller's array), so the result does not share it.
    g = libops.Graph()
    x = g.placeholder("x", "float32", [-1])
    g.output("same", x)
    g.output("doubled", g.op("add", x, x))
    sess = libops.InferenceSession(g.to_bytes())
    a = np.arange(4, dtype=np.float32)
    same, doubled = sess.run({"x": a})
    np.testing.assert_array_equal(same, a)
    assert not np.shares_memory(same, a)
    # The computed output is a view of the engine's buffer, owned by it.
    assert not doubled.flags["OWNDATA"] and doubled.base is not None
    np.testing.assert_array_equal(doubled, 2 * a)
    del sess  # the arrays outlive the session
    np.testing.assert_array_equal(doubled, 2 * a)


def test_errors_name_what_went_wrong():
    sess = libops.InferenceSession(relu_graph())
    with pytest.raises(libops.DtypeError, match="float64"):
        sess.run({"x": np.zeros((2, 3), np.float64)})
    with pytest.raises(libops.InvalidArgumentError, match="has no input 'z' \\(inputs: x\\)"):
        sess.run({"z": np.zeros((2, 3), np.float32)})
    with pytest.raises(libops.ShapeError):
        sess.run({"x": np.zeros((2, 4), np.float32)})
    with pytest.raises(libops.IOError_, match="cannot open"):
        libops.InferenceSession("/nonexistent/model.onnx")
    with pytest.raises(libops.InvalidGraphError):
        libops.InferenceSession(b"not a graph at all, just some bytes")
    with pytest.raises(ValueError, match="object"):
        sess.run({"x": np.array([None, None])})
    with pytest.raises(libops.InvalidArgumentError, match="unknown device 'tpu'"):
        libops.InferenceSession(relu_graph(), device="tpu")
    assert issubclass(libops.ShapeError, libops.Error)


def test_eight_threads_share_one_session():
    g = libops.Graph()
    x = g.placeholder("x", "float32", [-1, 64])
    w = g.constant("w", (np.arange(64 * 64, dtype=np.float32).reshape(64, 64) % 7 - 3) / 8)
    g.output("y", g.op("matmul", g.op("relu", x), w))
    sess = libops.InferenceSession(g.to_bytes(), threads=1)
    wv = (np.arange(64 * 64, dtype=np.float32).reshape(64, 64) % 7 - 3) / 8
    failures = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        for _ in range(20):
            xv = rng.standard_normal((5, 64)).astype(np.float32)
            [y] = sess.run({"x": xv})
            if not np.allclose(y, np.maximum(xv, 0) @ wv, rtol=1e-4, atol=1e-4):
                failures.append(seed)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_sequences_and_optionals_are_lists_and_none(tmp_path):
    # An ONNX model with a sequence input and output and an optional input:
    # sequences cross as Python lists of arrays, an empty optional as None.
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    g = helper.make_graph(
        [helper.make_node("SequenceInsert", ["s", "t"], ["grown"]),
         helper.make_node("SequenceLength", ["grown"], ["n"]),
         helper.make_node("OptionalHasElement", ["o"], ["has"])],
        "lists",
        [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, ["k"]),
         helper.make_value_info("o", helper.make_optional_type_proto(
             helper.make_tensor_type_proto(TensorProto.FLOAT, [2])))],
        [helper.make_tensor_sequence_value_info("grown", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    path = tmp_path / "lists.onnx"
    path.write_bytes(m.SerializeToString())
    sess = libops.InferenceSession(str(path))
    assert sess.input_kinds == ["sequence", "tensor", "optional tensor"]
    assert sess.output_kinds == ["sequence", "tensor", "tensor"]
    a, b = np.array([1, 2], np.float32), np.array([3], np.float32)
    t = np.array([4, 5, 6], np.float32)
    grown, n, has = sess.run({"s": [a, b], "t": t, "o": None})
    assert isinstance(grown, list) and len(grown) == 3
    for got, want in zip(grown, [a, b, t]):
        np.testing.assert_array_equal(got, want)
    assert int(n) == 3 and not bool(has)
    grown, n, has = sess.run({"s": [], "t": t, "o": np.zeros(2, np.float32)})
    assert len(grown) == 1 and int(n) == 1 and bool(has)
    with pytest.raises(libops.DtypeError, match="element 0 of input 's'"):
        sess.run({"s": [np.array([1], np.int32)], "t": t, "o": None})


def test_a_builder_graph_with_sequence_nodes():
    # The builder's sequence ops, fed and read through InferenceSession: a
    # split at lengths given at run time, an insert, a concatenation.
    g = libops.Graph()
    x = g.placeholder("x", "float32", [2, -1])
    lengths = g.placeholder("lengths", "int64", [-1])
    extra = g.placeholder("extra", "float32", None, kind="sequence")
    parts = g.sequence("split", x, lengths, axis=1)
    both = g.sequence("insert", parts, g.sequence("at", extra, g.constant("zero", np.int64(0))))
    g.output("parts", both)
    g.output("joined", g.sequence("concat", both, axis=1))
    g.output("n", g.sequence("length", both))
    sess = libops.InferenceSession(g.to_bytes())
    assert sess.input_kinds == ["tensor", "tensor", "sequence"]
    xv = np.arange(10, dtype=np.float32).reshape(2, 5)
    e = np.full((2, 1), -1, np.float32)
    parts, joined, n = sess.run({"x": xv, "lengths": np.array([2, 3], np.int64), "extra": [e]})
    assert [p.shape for p in parts] == [(2, 2), (2, 3), (2, 1)]
    np.testing.assert_array_equal(joined, np.concatenate([xv, e], axis=1))
    assert int(n) == 3
    with pytest.raises(ValueError, match="kind 'list'"):
        g.placeholder("bad", "float32", None, kind="list")
