"""Golden manifests: the op calls of a generator and their expected values,
as tests_cpu/golden_manifest.h reads them. One MANIFEST line per call,

    <op> <case> in=<n> out=<n> [i=a,b] [t=a,b] [b=0,1] [d=dtype] [rtol=r] [atol=a]

with inputs <op>_<case>_in<k>.npy and outputs _out<k>.npy beside it.
"""
import os

import numpy as np


class Manifest:
    def __init__(self, name):
        self.dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests_cpu", "golden", name)
        self.lines = []
        os.makedirs(self.dir, exist_ok=True)
        for f in os.listdir(self.dir):
            os.remove(os.path.join(self.dir, f))

    def case(self, op, name, inputs, outputs, i=None, t=None, b=None, d=None, rtol=0, atol=0):
        for k, a in enumerate(inputs):
            np.save(os.path.join(self.dir, f"{op}_{name}_in{k}.npy"), np.require(a, requirements="C"))
        for k, a in enumerate(outputs):
            np.save(os.path.join(self.dir, f"{op}_{name}_out{k}.npy"), np.require(a, requirements="C"))
        line = f"{op} {name} in={len(inputs)} out={len(outputs)}"
        for key, vals in (("i", i), ("t", t), ("b", b)):
            if vals:
                line += f" {key}=" + ",".join(repr(float(v)) if key == "t" else str(int(v)) for v in vals)
        if d:
            line += f" d={d}"
        if rtol:
            line += f" rtol={rtol:g}"
        if atol:
            line += f" atol={atol:g}"
        self.lines.append(line)

    def write(self, generator):
        with open(os.path.join(self.dir, "MANIFEST"), "w") as f:
            f.write(f"# op case in=N out=N [i=..] [t=..] [b=..] [d=dtype] [rtol=..] [atol=..] ({generator})\n")
            f.write("\n".join(self.lines) + "\n")
        print(f"{len(self.lines)} cases in {self.dir}")
