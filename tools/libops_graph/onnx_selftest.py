"""Self-check of the Python ONNX import (libops_graph.onnx_import) against
the golden models of tests_cpu/golden/onnx. Run from tools/:

    LIBOPS_LIB=build/cpu-release/libops.so python3 -m libops_graph.onnx_selftest

Exits non-zero on the first mismatch.
"""
import os
import sys
import tempfile

from . import onnx_import

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests_cpu", "golden", "onnx")


def check(cond, what):
    if not cond:
        print(f"onnx_selftest: FAILED: {what}")
        sys.exit(1)


def main():
    model = os.path.join(GOLDEN, "model_cnn.onnx")
    data = onnx_import.convert(model)
    check(data[4:8] == b"LOPS", "convert() gives a libops graph file")
    with open(model, "rb") as f:
        check(onnx_import.convert_bytes(f.read()) == data, "convert_bytes() gives the same bytes as convert()")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cnn.lops")
        check(onnx_import.main([model, "-o", out]) == 0, "the command line converts")
        with open(out, "rb") as f:
            check(f.read() == data, "the command line writes what convert() gives")
    problems = onnx_import.list_unsupported(os.path.join(GOLDEN, "err_many.onnx"))
    check(len(problems) == 4 and "'e1' (Einsum" in problems[0], f"list_unsupported: {problems}")
    check(onnx_import.list_unsupported(model) == [], "a supported model has no problems")
    try:
        onnx_import.convert(os.path.join(GOLDEN, "err_bad_attribute.onnx"))
        check(False, "an unsupported attribute raises")
    except onnx_import.OnnxImportError as e:
        check("'pool1' (MaxPool, opset 13): attribute 'ceil_mode'" in str(e), f"the error names the node: {e}")
    print("onnx_selftest: ok")


if __name__ == "__main__":
    main()
