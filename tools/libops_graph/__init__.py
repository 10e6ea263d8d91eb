"""libops_graph: build libops graph files (schemas/graph.fbs) from Python.

The builder lives in the libops package (python/libops/graph.py, as
libops.Graph); this module keeps ``import libops_graph`` working for scripts
that put tools/ on their path, by putting python/ there too. Setup: ``pip
install flatbuffers numpy`` and flatc on PATH (the flatc-generated code is
not committed; libops/_fbgen.py finds or makes it).

Example::

    g = Graph(device="cpu")
    x = g.placeholder("x", "float32", [-1, 784])     # -1: unknown dim
    w = g.constant("w", np.ones((784, 10), np.float32))
    y = g.op("matmul", x, w, transpose_y=0, name="fc")   # args by name or position
    top = g.op("top_k", y, i_args=[5], num_outputs=2)  # top[1]: 2nd output
    z = g.legacy("transform_strict", 3, y)             # (group, num)
    g.output("probs", z)
    g.save("model.lops")

Control flow takes subgraphs; a subgraph's placeholders are its inputs and
it sees nothing of the outer graph::

    body = g.subgraph("body")
    i = body.placeholder("i", "int64", [])
    body.output("i", body.op("add", i, body.constant("one", np.int64(1))))
    cond = g.subgraph("cond")
    j = cond.placeholder("j", "int64", [])
    cond.output("go", cond.op("less", j, cond.constant("n", np.int64(10))))
    (final,) = g.while_loop(cond, body, [g.constant("zero", np.int64(0))])
    out = g.if_then_else(flag, then_graph, else_graph, inputs=[y])

Run ``python3 -m libops_graph.selftest`` (from tools/) to check the setup.
"""
import os as _os
import sys as _sys

_PYTHON = _os.path.abspath(_os.path.join(_os.path.dirname(__file__), "..", "..", "python"))
if _PYTHON not in _sys.path:
    _sys.path.insert(0, _PYTHON)

from libops.graph import Graph, Subgraph, Value, fnv1a64  # noqa: E402

__all__ = ["Graph", "Subgraph", "Value", "fnv1a64"]
