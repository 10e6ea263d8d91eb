"""libops.ops.<name>, libops.legacy, op libraries and the graph builder's
checks."""
import os

import numpy as np
import pytest

import libops

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_ops_by_name_with_keyword_args():
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], np.float32)
    p = libops.ops.softmax(x, axis=1)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(p, e / e.sum(axis=1, keepdims=True), rtol=1e-6)
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    np.testing.assert_allclose(libops.ops.matmul(a, a, transpose_y=True), a @ a.T)
    values, indices = libops.ops.top_k(np.array([3, 1, 4, 1, 5], np.float32), k=2)
    np.testing.assert_array_equal(values, [5, 4])
    np.testing.assert_array_equal(indices, [4, 2])
    assert "softmax" in dir(libops.ops)
    assert "axis" in libops.ops.softmax.__doc__


def test_op_errors():
    with pytest.raises(AttributeError, match="no op named 'softmaxx'"):
        libops.ops.softmaxx
    with pytest.raises(ValueError, match="no arg named 'axes'"):
        libops.ops.softmax(np.ones(3, np.float32), axes=1)
    with pytest.raises(ValueError, match="takes 2 inputs"):
        libops.ops.add(np.ones(3, np.float32))
    with pytest.raises(libops.ShapeError, match="cannot broadcast"):
        libops.ops.add(np.ones((2, 3), np.float32), np.ones(4, np.float32))


def test_legacy_by_group_and_name():
    x = np.array([0.0, 1.0, -2.0], np.float32)
    np.testing.assert_allclose(libops.legacy("transform_strict", "exp", x), np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(libops.legacy("pairwise", "add", x, np.ones(3, np.float32)), x + 1)
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(libops.legacy("reduce_same", "sum", m, axes=[1]), m.sum(axis=1))
    np.testing.assert_array_equal(libops.legacy("reduce_same", "sum", m, axes=[1], keep_dims=True), m.sum(1, keepdims=True))
    with pytest.raises(ValueError, match="unknown group"):
        libops.legacy("nope", 0, x)


def test_builder_checks_calls_when_nodes_are_added():
    g = libops.Graph()
    x = g.placeholder("x", "float32", [3])
    with pytest.raises(ValueError, match="no op named 'relux' is registered .*relu"):
        g.op("relux", x)
    with pytest.raises(ValueError, match="matmul: takes 2 to 3 inputs"):
        g.op("matmul", x)
    with pytest.raises(ValueError, match="top_k: has 2 outputs, 3 asked for"):
        g.op("top_k", x, k=1, num_outputs=3)


def test_op_library_from_python():
    lib = os.environ.get("LIBOPS_EXAMPLE_OP_LIBRARY")
    if not lib:
        pytest.skip("LIBOPS_EXAMPLE_OP_LIBRARY is not set (ctest sets it)")
    with pytest.raises(libops.IOError_, match="cannot load"):
        libops.load_op_library("/nonexistent/libnothing.so")
    libops.load_op_library(lib)
    x = np.array([1.0, -2.0], np.float32)
    np.testing.assert_allclose(libops.ops.example_scale_shift(x, scale=3.0, shift=0.5), x * 3 + 0.5)
    # An ONNX node of a custom domain names it.
    sess = libops.InferenceSession(os.path.join(ROOT, "examples", "op_library", "scale_shift.onnx"))
    xv = np.array([[-1, 0, 1], [2, -3, 0.25]], np.float32)
    [z] = sess.run({"x": xv})
    np.testing.assert_array_equal(z, np.maximum(xv * 2 + 0.5, 0))


def test_threads_and_version():
    assert libops.version() == libops.__version__
    libops.set_num_threads(1)
    assert libops.get_num_threads() == 1
    libops.set_num_threads(0)
    assert libops.get_num_threads() >= 1
