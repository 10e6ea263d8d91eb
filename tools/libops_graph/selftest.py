"""Self-check: build a small graph, read it back with the flatc-generated
reader and check every field. Run from tools/:  python3 -m libops_graph.selftest
Exits non-zero on the first mismatch.
"""
import sys

import numpy as np

from . import Graph, fnv1a64


def build():
    g = Graph(device="cpu", threads=4, profiling=True)
    x = g.placeholder("x", "float32", [-1, 3])
    flag = g.placeholder("flag", "bool", [])
    w = g.constant("w", np.array([[1.5, -2, 3], [0.25, 4, -1], [7, 8, 9]],
                                 dtype=np.float32))
    big = g.constant("big", np.arange(-500, 500, dtype=">i4"))  # stored LE
    y = g.op("matmul", x, w, b_args=[False, True], name="mm")
    parts = g.op("split", y, i_args=[2, -1], t_args=[0.5], d_args=["float16"])
    noise = g.legacy("random", 3, y, extra=[0.0, 2.5], seed=2**64 - 1)
    total = g.legacy(15, 0, y, big, axes=[1, -1])

    then_g = g.subgraph("then")
    a = then_g.placeholder("a", "float32", [-1, 3])
    then_g.output("out", a)  # identity: a subgraph without nodes
    else_g = g.subgraph("else")
    b = else_g.placeholder("b", "float32", None)  # unknown rank
    else_g.output("out", else_g.op("multiply", b, else_g.constant(
        "two", np.float32(2))))
    (picked,) = g.if_then_else(flag, then_g, else_g, inputs=[y])

    cond = g.subgraph("cond")
    i, acc = cond.placeholder("i", "int64", []), cond.placeholder("acc", "float32")
    cond.output("go", cond.op("less", i, cond.constant("n", np.int64(10))))
    body = g.subgraph("body")
    i, acc = body.placeholder("i", "int64", []), body.placeholder("acc", "float32")
    body.output("i", body.op("add", i, body.constant("one", np.int64(1))))
    body.output("acc", body.op("add", acc, acc))
    i_end, acc_end = g.while_loop(cond, body, [g.constant("zero", np.int64(0)),
                                               noise])

    g.output("y", y)
    g.output("split_1", parts[1])
    g.output("total", total)
    g.output("picked", picked)
    g.output("acc", acc_end)
    return g, dict(x=x, flag=flag, w=w, big=big, y=y, parts=parts,
                   noise=noise, total=total, picked=picked, i_end=i_end)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def check_builder_errors():
    """Mistakes the builder must refuse up front."""
    def refuses(fn, what):
        try:
            fn()
        except (ValueError, TypeError, IndexError):
            return
        raise AssertionError(f"builder accepted {what}")
    g = Graph()
    x = g.placeholder("x", "float32", [2])
    w = g.constant("w", np.zeros(2, np.float32))
    sub = g.subgraph("sub")
    refuses(lambda: sub.op("neg", x), "a value of another scope")
    refuses(lambda: g.op("MatMul", x), "a non lower_snake op name")
    refuses(lambda: g.placeholder("x", "float32"), "a duplicate name")
    refuses(lambda: g.legacy("no_such_group", 0, x), "an unknown group")
    refuses(lambda: w[1], "output 1 of a variable")
    refuses(lambda: list(x), "iterating a Value")
    refuses(lambda: g.constant("obj", np.array([None])), "an object array")
    refuses(lambda: g.while_loop(sub, sub, [x]), "a loop without outputs")
    refuses(lambda: g.if_then_else(x, "sub", sub), "a branch that is no Subgraph")
    c = sub.placeholder("c", "bool", [])
    sub.output("o", c)
    sub.if_then_else(c, sub, sub, inputs=[c])
    refuses(g.to_bytes, "a subgraph that calls itself")

    g = Graph()
    sub = g.subgraph("sub")
    sub.output("o", sub.placeholder("a", "int32", []))
    (out,) = g.if_then_else(g.placeholder("c", "bool", []), sub, sub,
                            inputs=[g.constant("k", np.int32(3))])
    g.to_bytes()
    sub.output("late", sub.constant("late", np.int32(1)))
    refuses(g.to_bytes, "a branch given an output after its use")


def check_scan_outputs():
    """A while loop with scan outputs: the body gives the new vars, then the
    values to stack; the node has both as outputs."""
    g = Graph()
    cond = g.subgraph("cond")
    i = cond.placeholder("i", "int64", [])
    cond.output("go", cond.op("less", i, cond.constant("n", np.int64(3))))
    body = g.subgraph("body")
    i = body.placeholder("i", "int64", [])
    body.output("i", body.op("add", i, body.constant("one", np.int64(1))))
    body.output("seen", body.op("multiply", i, i))
    i_end, squares = g.while_loop(cond, body, [g.constant("zero", np.int64(0))],
                                  scan_outputs=1)
    g.output("squares", squares)
    fb = g.fb
    root = fb.Graph.Graph.GetRootAs(g.to_bytes(), 0)
    node = root.Nodes(0)
    check(node.NumOutputs() == 2, "while: 1 loop value + 1 scan output")
    wop = fb.WhileOp.WhileOp()
    wop.Init(node.Op().Bytes, node.Op().Pos)
    check(wop.ScanOutputs() == 1, "while scan_outputs")
    check((root.Outputs(0).Value().Id(), root.Outputs(0).Value().Output()) ==
          (squares.id, 1), "the scan output is node output 1")

    def refuses(fn, what):
        try:
            fn()
        except ValueError:
            return
        raise AssertionError(f"builder accepted {what}")
    refuses(lambda: g.while_loop(cond, body, [g.constant("z", np.int64(0))]),
            "a body with a scan output but scan_outputs=0")
    refuses(lambda: g.while_loop(cond, body, [i_end], scan_outputs=2),
            "scan_outputs=2 for a body that gives 1")
    refuses(lambda: g.while_loop(cond, body, [i_end], scan_outputs=-1),
            "a negative scan_outputs")


def check_keyword_args():
    """Keyword args land at the positions op_signatures.json gives them."""
    g = Graph()
    x = g.placeholder("x", "float32", [1, 3, 8, 8])
    w = g.constant("w", np.zeros((4, 3, 3, 3), np.float32))

    def node_args(v):
        rec = g.records[v.id]
        return rec.t_args, rec.i_args, rec.b_args, rec.d_args

    conv = g.op("conv2d", x, w, data_format="NHWC", kH=3, kW=3, sH=2, sW=2,
                pH=1, pW=1, dH=1, dW=1, same_mode="explicit")
    check(node_args(conv)[1] == [3, 3, 2, 2, 1, 1, 1, 1, 0, 1],
          f"conv2d kwargs by name and choice name: {node_args(conv)}")
    # Positional then named: weights_format continues the 9 window args,
    # data_format (skipped) takes its default.
    conv = g.op("conv2d", x, w, i_args=[3, 3, 1, 1, 0, 0, 1, 1, 0],
                weights_format=0)
    check(node_args(conv)[1] == [3, 3, 1, 1, 0, 0, 1, 1, 0, 0, 0],
          f"conv2d positional + named: {node_args(conv)}")
    s = g.op("reduce_sum", x, axes=[1, -1], keep_dims=True)
    check(node_args(s)[1:3] == ([1, -1], [True]), f"reduce_sum: {node_args(s)}")
    bn = g.op("batchnorm", x, x, x, epsilon=1e-3)
    check(node_args(bn)[0] == [1e-3], f"batchnorm epsilon: {node_args(bn)}")
    mm = g.op("mmul", x, x, transpose_y=True)  # an alias finds matmul's args
    check(node_args(mm)[1] == [0, 1], f"matmul alias: {node_args(mm)}")
    c = g.op("cast", x, dtype="float16")
    check(node_args(c)[3] == [g.dtype("float16")], f"cast dtype: {node_args(c)}")

    def refuses(fn, what):
        try:
            fn()
        except ValueError as e:
            return str(e)
        raise AssertionError(f"builder accepted {what}")
    msg = refuses(lambda: g.op("softmax", x, axes=1), "an undeclared arg")
    check("softmax: no arg named 'axes' (its args: axis)" in msg, msg)
    msg = refuses(lambda: g.op("conv2d", x, w, data_format=1), "a required gap")
    check("the required arg kH (i arg 0)" in msg, msg)
    msg = refuses(lambda: g.op("conv2d", x, w, i_args=[3] * 10, data_format=1),
                  "an arg given twice")
    check("data_format (i arg 9) is given both by position and by name" in msg, msg)
    msg = refuses(lambda: g.op("maxpool2d", x, kH=2, kW=2, sH=2, sW=2, pH=0,
                               pW=0, dH=1, dW=1, same_mode=0,
                               data_format="NCWH"), "an unknown choice name")
    check("data_format='NCWH' is not one of its named values (NCHW, NHWC, NCHWc)" in msg, msg)
    refuses(lambda: g.op("no_such_op", x, axis=1), "kwargs of an unknown op")


def read_back(buf, v):
    fb = Graph().fb
    check(fb.Graph.Graph.GraphBufferHasIdentifier(buf, 0), "identifier LOPS")
    root = fb.Graph.Graph.GetRootAs(buf, 0)
    check(root.Version() == fb.SchemaVersion.SchemaVersion.V1 == 1, "version")
    DType, Op = fb.DType.DType, fb.Op.Op

    variables = {root.Variables(k).Name().decode(): root.Variables(k)
                 for k in range(root.VariablesLength())}
    nodes = {root.Nodes(k).Name().decode(): root.Nodes(k)
             for k in range(root.NodesLength())}
    ids = [t.Id() for t in list(variables.values()) + list(nodes.values())]
    check(len(set(ids)) == len(ids), f"ids shared by variables and nodes are "
          f"unique: {ids}")
    check([root.Inputs(k).decode() for k in range(root.InputsLength())] ==
          ["x", "flag"], "graph inputs are the placeholders in order")

    def array(var):
        check(var.ValueType() == fb.VariableValue.VariableValue.Array,
              "a constant")
        a = fb.Array.Array()
        a.Init(var.Value().Bytes, var.Value().Pos)
        return a

    def placeholder(var):
        check(var.ValueType() == fb.VariableValue.VariableValue.Placeholder,
              "a placeholder")
        p = fb.Placeholder.Placeholder()
        p.Init(var.Value().Bytes, var.Value().Pos)
        return p

    p = placeholder(variables["x"])
    check(p.Dtype() == DType.FLOAT32 and list(p.ShapeAsNumpy()) == [-1, 3], "x")
    p = placeholder(variables["flag"])
    check(p.Dtype() == DType.BOOL and not p.ShapeIsNone() and
          p.ShapeLength() == 0, "flag is a scalar placeholder")
    for name, expect in (("w", np.array([[1.5, -2, 3], [0.25, 4, -1], [7, 8, 9]],
                                        "<f4")),
                         ("big", np.arange(-500, 500, dtype="<i4"))):
        a = array(variables[name])
        check(list(a.ShapeAsNumpy()) == list(expect.shape), f"{name} shape")
        check(a.Order() == fb.Order.Order.C, f"{name} order")
        check(a.DataAsNumpy().tobytes() == expect.tobytes(), f"{name} data")
        start = a._tab.Vector(a._tab.Offset(10))  # Array.data, field 3
        check(start % 64 == 0, f"{name} data is 64-byte aligned ({start})")
    check(array(variables["w"]).Dtype() == DType.FLOAT32, "w dtype")
    check(array(variables["big"]).Dtype() == DType.INT32, "big dtype")

    def op_of(node, cls):
        o = cls()
        o.Init(node.Op().Bytes, node.Op().Pos)
        return o

    def refs(node):
        return [(node.Inputs(k).Id(), node.Inputs(k).Output())
                for k in range(node.InputsLength())]

    mm = nodes["mm"]
    check(mm.OpType() == Op.CustomOp, "mm is a custom op")
    c = op_of(mm, fb.CustomOp.CustomOp)
    check(c.Name() == b"matmul" and c.Hash() == fnv1a64("matmul"), "mm op")
    check(refs(mm) == [(v["x"].id, 0), (v["w"].id, 0)], "mm inputs")
    check(mm.Id() == v["y"].id and mm.NumOutputs() == 1, "mm id, outputs")
    check(list(mm.BArgsAsNumpy()) == [False, True], "mm b_args")
    check(mm.Seed() is None and mm.Device() is None, "mm has no seed, device")

    split = nodes[f"split_{v['parts'].id}"]
    check(split.NumOutputs() == 2, "split grew to 2 outputs by indexing")
    check(list(split.IArgsAsNumpy()) == [2, -1], "split i_args")
    check(list(split.TArgsAsNumpy()) == [0.5], "split t_args")
    check(list(split.DArgsAsNumpy()) == [DType.FLOAT16], "split d_args")

    noise = nodes[f"legacy_{v['noise'].id}"]
    check(noise.OpType() == Op.LegacyOp, "noise is legacy")
    lg = op_of(noise, fb.LegacyOp.LegacyOp)
    check(lg.Group() == fb.LegacyGroup.LegacyGroup.RANDOM == 21 and
          lg.Num() == 3, "noise group and num")
    check(noise.Seed() == 2**64 - 1, "seed keeps all 64 bits")
    check(list(noise.TArgsAsNumpy()) == [0.0, 2.5], "extra params as t_args")
    total = nodes[f"legacy_{v['total'].id}"]
    check(op_of(total, fb.LegacyOp.LegacyOp).Group() ==
          fb.LegacyGroup.LegacyGroup.REDUCE_SAME, "group by number")
    check(list(total.AxesAsNumpy()) == [1, -1], "axes")
    check(refs(total) == [(v["y"].id, 0), (v["big"].id, 0)], "x and y")

    if_node = nodes[f"if_{v['picked'].id}"]
    check(if_node.OpType() == Op.IfOp, "if node")
    f = op_of(if_node, fb.IfOp.IfOp)
    check((f.ThenBranch(), f.ElseBranch()) == (0, 1), "if branches")
    check(refs(if_node) == [(v["flag"].id, 0), (v["y"].id, 0)], "if inputs")
    while_node = nodes[f"while_{v['i_end'].id}"]
    wop = op_of(while_node, fb.WhileOp.WhileOp)
    check((wop.Cond(), wop.Body()) == (2, 3), "while subgraphs")
    check(while_node.NumOutputs() == 2 and
          refs(while_node)[1] == (v["noise"].id, 0), "while loop vars")

    outs = {root.Outputs(k).Name().decode(): root.Outputs(k).Value()
            for k in range(root.OutputsLength())}
    check({k: (r.Id(), r.Output()) for k, r in outs.items()} == {
        "y": (v["y"].id, 0), "split_1": (v["parts"].id, 1),
        "total": (v["total"].id, 0), "picked": (v["picked"].id, 0),
        "acc": (v["i_end"].id, 1)}, "graph outputs")

    check(root.SubgraphsLength() == 4, "4 subgraphs")
    names = [root.Subgraphs(k).Name().decode() for k in range(4)]
    check(names == ["then", "else", "cond", "body"], f"subgraphs {names}")
    body = root.Subgraphs(3)
    check([body.Inputs(k) for k in range(body.InputsLength())] == [b"i", b"acc"],
          "body inputs")
    check(body.OutputsLength() == 2 and body.NodesLength() == 2 and
          body.VariablesLength() == 3, "body contents")
    else_p = fb.Placeholder.Placeholder()
    var = root.Subgraphs(1).Variables(0)
    else_p.Init(var.Value().Bytes, var.Value().Pos)
    check(else_p.ShapeIsNone(), "unknown rank: no shape vector")

    then_g = root.Subgraphs(0)
    check(then_g.NodesLength() == 0 and then_g.NodesIsNone() and
          then_g.Outputs(0).Value().Id() == then_g.Variables(0).Id(),
          "then passes its input through")

    cfg = root.Configuration()
    check(cfg.Device() == b"cpu" and cfg.Threads() == 4 and cfg.Profiling(),
          "configuration")


def main():
    # FNV-1a 64 known answers.
    check(fnv1a64("") == 0xcbf29ce484222325, "fnv1a64('')")
    check(fnv1a64("a") == 0xaf63dc4c8601ec8c, "fnv1a64('a')")
    check(fnv1a64("foobar") == 0x85944171f73967e8, "fnv1a64('foobar')")
    check_builder_errors()
    check_keyword_args()
    check_scan_outputs()
    empty = Graph().fb.Graph.Graph.GetRootAs(Graph().to_bytes(), 0)
    check(empty.Version() == 1 and empty.VariablesLength() == 0 and
          empty.Configuration().Threads() == 0, "an empty graph")
    g, values = build()
    buf = g.to_bytes()
    read_back(bytearray(buf), values)
    if len(sys.argv) > 1:  # optionally keep the file for other readers
        g.save(sys.argv[1])
    print(f"libops_graph selftest: OK ({len(buf)} bytes)")


if __name__ == "__main__":
    main()
