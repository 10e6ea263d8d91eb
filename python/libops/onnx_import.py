"""ONNX import from Python: the C++ importer of libops (graph/onnx/), called
through the C API with ctypes, so Python, C and C++ users share one mapping
table (docs/onnx.md).

    python3 -m libops_graph.onnx_import model.onnx -o model.lops
    python3 -m libops_graph.onnx_import --list-unsupported model.onnx

    from libops_graph.onnx_import import convert, list_unsupported
    lops_bytes = convert("model.onnx")            # raises OnnxImportError
    problems = list_unsupported("model.onnx")     # [] when it converts

libops.so is found through $LIBOPS_LIB, else the newest build/*/libops.so of
this checkout, else the system's library path (pass lib= to choose).
"""
import argparse
import ctypes
import ctypes.util
import glob
import os
import sys

__all__ = ["OnnxImportError", "convert", "convert_bytes", "list_unsupported", "find_library"]


class OnnxImportError(RuntimeError):
    """The model cannot be converted; the message names the node, its op type, opset and attribute."""


def find_library():
    env = os.environ.get("LIBOPS_LIB")
    if env:
        return env
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    built = sorted(glob.glob(os.path.join(root, "build", "*", "libops.so")), key=os.path.getmtime, reverse=True)
    release = [p for p in built if "release" in p and "-address" not in p and "-thread" not in p]
    if release or built:
        return (release or built)[0]
    found = ctypes.util.find_library("ops")
    if found:
        return found
    raise OnnxImportError("libops.so not found: build libops (./buildnativeoperations.sh) or set LIBOPS_LIB")


_libs = {}


def _load(lib=None):
    path = lib or find_library()
    if path in _libs:
        return _libs[path]
    so = ctypes.CDLL(os.path.abspath(path) if os.path.exists(path) else path)
    P, S, C = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p
    so.ops_last_error.restype = C
    so.ops_onnx_convert_file.argtypes = [C, ctypes.POINTER(P), ctypes.POINTER(S)]
    so.ops_onnx_convert_file.restype = ctypes.c_int
    so.ops_onnx_convert_buffer.argtypes = [P, S, C, ctypes.POINTER(P), ctypes.POINTER(S)]
    so.ops_onnx_convert_buffer.restype = ctypes.c_int
    so.ops_onnx_free.argtypes = [P]
    so.ops_onnx_free.restype = None
    so.ops_onnx_list_unsupported.argtypes = [C, ctypes.POINTER(C)]
    so.ops_onnx_list_unsupported.restype = ctypes.c_int
    _libs[path] = so
    return so


def _take(so, status, data, size):
    if status != 0:
        raise OnnxImportError(so.ops_last_error().decode("utf-8", "replace"))
    try:
        return ctypes.string_at(data.value, size.value)
    finally:
        so.ops_onnx_free(data)


def convert(path, lib=None):
    """The libops graph file (.lops bytes) of the ONNX model at `path`."""
    so = _load(lib)
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    status = so.ops_onnx_convert_file(os.fsencode(path), ctypes.byref(data), ctypes.byref(size))
    return _take(so, status, data, size)


def convert_bytes(model, base_dir=None, lib=None):
    """Like convert, for a serialized model; external data is read from base_dir."""
    so = _load(lib)
    data, size = ctypes.c_void_p(), ctypes.c_size_t()
    buf = ctypes.create_string_buffer(bytes(model), len(model))
    status = so.ops_onnx_convert_buffer(buf, len(model), os.fsencode(base_dir) if base_dir else None,
                                        ctypes.byref(data), ctypes.byref(size))
    return _take(so, status, data, size)


def list_unsupported(path, lib=None):
    """Every problem that stops the model from converting ([] when none)."""
    so = _load(lib)
    text = ctypes.c_char_p()
    if so.ops_onnx_list_unsupported(os.fsencode(path), ctypes.byref(text)) != 0:
        raise OnnxImportError(so.ops_last_error().decode("utf-8", "replace"))
    return [line for line in text.value.decode("utf-8", "replace").split("\n") if line]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m libops_graph.onnx_import",
                                 description="Convert an ONNX model to a libops graph file (.lops).")
    ap.add_argument("model", help="the .onnx file")
    ap.add_argument("-o", "--output", help="the .lops file to write (default: the model's name with .lops)")
    ap.add_argument("--list-unsupported", action="store_true", help="print every node that cannot be imported")
    ap.add_argument("--lib", help="path to libops.so")
    args = ap.parse_args(argv)
    try:
        if args.list_unsupported:
            problems = list_unsupported(args.model, args.lib)
            for p in problems:
                print(p)
            if not problems:
                print(f"{args.model}: every node can be imported")
            return 1 if problems else 0
        out = args.output or os.path.splitext(args.model)[0] + ".lops"
        data = convert(args.model, args.lib)
        with open(out, "wb") as f:
            f.write(data)
        print(f"wrote {out} ({len(data)} bytes)")
        return 0
    except OnnxImportError as e:
        print(f"onnx_import: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
