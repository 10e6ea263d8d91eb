"""libops: tensor operations and graphs of them, on CPUs and NVIDIA GPUs.

Run a model (ONNX or libops' own .lops), with numpy arrays in and out::

    import libops
    sess = libops.InferenceSession("model.onnx", threads=2)
    [probs] = sess.run({"x": x})

Call any op by name, with its args by name (docs/ops.md)::

    y = libops.ops.softmax(x, axis=1)
    z = libops.legacy("transform_strict", "exp", x)

Build a graph file::

    g = libops.Graph()
    x = g.placeholder("x", "float32", [-1, 784])
    g.output("y", g.op("softmax", g.op("matmul", x, g.constant("w", w)), axis=1))
    g.save("model.lops")

Errors raise libops.Error (a subclass per status, e.g. libops.ShapeError)
with the engine's message, which names the op or node, the shapes and the
dtypes.
"""
from . import ops
from ._native import native as _native
from .errors import (CancelledError, DeviceError, DtypeError, Error, InternalError, InvalidArgumentError,
                     InvalidGraphError, IOError_, LimitError, NotImplementedByLibopsError, NullPointerError,
                     OutOfMemoryError, ShapeError, UnknownOpError)
from .graph import Graph, Subgraph, Value, fnv1a64
from .legacy import legacy
from .session import InferenceSession, ValueInfo

__version__ = "0.1.0"


def version():
    """The loaded native library's version ("major.minor.patch")."""
    return _native().version()


def set_num_threads(n):
    """Kernel threads for op calls and sessions that set none (0: the
    default, LIBOPS_NUM_THREADS or every core)."""
    _native().set_num_threads(int(n))


def get_num_threads():
    return _native().get_num_threads()


def set_device(device):
    """Where this thread's op calls run: "cpu", "cuda" or "cuda:N"."""
    _native().set_device(device)


def load_op_library(path):
    """Registers the ops of a library built with libops_add_op_library; they
    run in libops.ops, graphs and ONNX models like libops' own."""
    _native().load_op_library(str(path))
    ops._forget()


def convert_onnx(path):
    """The .lops bytes of an ONNX model (libops.Error naming the node,
    op type, opset and attribute when it cannot be converted)."""
    return _native().convert_onnx(str(path))


__all__ = ["CancelledError", "DeviceError", "DtypeError", "Error", "Graph", "IOError_", "InferenceSession",
           "InternalError", "InvalidArgumentError", "InvalidGraphError", "LimitError", "NotImplementedByLibopsError",
           "NullPointerError", "OutOfMemoryError", "ShapeError", "Subgraph", "UnknownOpError", "Value", "ValueInfo",
           "convert_onnx", "fnv1a64", "get_num_threads", "legacy", "load_op_library", "ops", "set_device",
           "set_num_threads", "version"]
