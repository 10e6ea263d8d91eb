"""examples/run_model.py, run as a user runs it: its top outputs must be
numpy's (the example references tools/build_examples.py wrote)."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_run_model_prints_the_top_outputs():
    build = os.environ.get("LIBOPS_BUILD_DIR")
    if not build or not os.path.exists(os.path.join(build, "examples", "mlp.lops")):
        pytest.skip("LIBOPS_BUILD_DIR with the example graphs is not set (ctest sets it)")
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "run_model.py"),
                          os.path.join(build, "examples", "mlp.lops"), "3"],
                         capture_output=True, text=True, check=True).stdout
    got = [line.split() for line in out.splitlines()]
    want = np.load(os.path.join(build, "examples", "mlp.example.logits.npy")).ravel()
    order = np.argsort(-want, kind="stable")[:3]
    assert [int(i) for i, _ in got] == list(order)
    np.testing.assert_allclose([float(v) for _, v in got], want[order], rtol=1e-4)
