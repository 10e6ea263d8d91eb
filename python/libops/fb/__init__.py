"""The flatc-generated code of schemas/graph.fbs (``libops.fb.<Table>``), which
the graph builder writes graph files with. A wheel and a build tree hold the
modules here; a source checkout finds or makes them (libops._fbgen) and adds
their folder to this package's path."""
import os as _os

if not _os.path.isfile(_os.path.join(_os.path.dirname(__file__), "Graph.py")):
    from .._fbgen import generated_dir as _generated_dir

    __path__.append(_generated_dir())  # noqa: F821 (a package's __path__)
