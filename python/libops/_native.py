"""The native module (_libops), imported when first needed, so that the graph
builder works where it is not built (a source checkout with tools/ on the
path)."""
_module = None


def native():
    global _module
    if _module is None:
        try:
            from . import _libops
        except ImportError as e:
            raise ImportError(
                "libops' native module is not built: pip install the package (pip install .), or build with "
                "-DLIBOPS_PYTHON=ON and put <build>/python on PYTHONPATH") from e
        from .errors import raise_status
        _libops._set_raiser(raise_status)
        _module = _libops
    return _module
