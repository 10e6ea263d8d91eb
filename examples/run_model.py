#!/usr/bin/env python3
"""Loads a model (.lops or .onnx), runs it on one input and prints its top
outputs: the libops Python package (pip install .).

    python3 examples/run_model.py MODEL [K]

Same input and output as run_model.c: the first input gets ops-run's example
values (element i = ((7i + 3) mod 17 - 8) / 8, unknown extents 1); prints
the K (default 3) largest values of the first output, "position value" a
line.
"""
import sys

import numpy as np

import libops


def main(argv):
    if len(argv) < 2:
        print("usage: run_model.py MODEL [K]", file=sys.stderr)
        return 2
    k = int(argv[2]) if len(argv) > 2 else 3
    sess = libops.InferenceSession(argv[1])
    first = sess.inputs[0]
    shape = [d if isinstance(d, int) else 1 for d in first.shape]
    i = np.arange(int(np.prod(shape)))
    x = (((i * 7 + 3) % 17 - 8) / 8.0).astype(np.float32).reshape(shape)
    y = sess.run({first.name: x})[0].ravel()
    for j in np.argsort(-y, kind="stable")[:k]:
        print(f"{j} {y[j]:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
