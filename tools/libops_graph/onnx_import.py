"""``python3 -m libops_graph.onnx_import``: the ONNX import of the libops
package (python/libops/onnx_import.py), kept here for scripts that use
tools/ on their path."""
import sys

from . import _PYTHON  # noqa: F401 (puts python/ on the path)
from libops.onnx_import import *  # noqa: E402,F401,F403
from libops.onnx_import import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
