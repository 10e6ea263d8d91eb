"""libops on Ray: batch inference with Ray Data, online serving with Ray Serve.

Ray is an optional dependency (pip install "ray[data,serve]"); nothing else
in libops imports this module. docs/scale-out.md has the figures.

Batch inference: a model is loaded once per actor, and Ray Data streams
batches of rows through it::

    import ray, libops.ray
    ds = ray.data.read_parquet("s3://bucket/images/")     # a column "x"
    model = libops.ray.put_model("resnet18.onnx")          # converted once, in the object store
    out = libops.ray.map_batches(ds, model, batch_size=64) # columns "x" -> the model's outputs
    out.write_parquet(...)

or, with Ray Data's own call (the same Predictor)::

    ds.map_batches(libops.ray.Predictor, fn_constructor_kwargs={"model": model, "threads": 2},
                   compute=ray.data.ActorPoolStrategy(size=4), num_cpus=2, batch_size=64)

Serving: requests of one row (or a few) are batched into one run::

    from ray import serve
    handle = serve.run(libops.ray.deployment("model.onnx", max_batch_size=16))
    y = handle.remote({"x": row}).result()["y"]
    # over HTTP: POST {"inputs": {"x": [[...]]}}  ->  {"outputs": {"y": [[...]]}}

Note [Cores per node]: a libops session runs its kernels on `threads`
threads; each actor or replica reserves that many of Ray's CPUs, so Ray
never places more actors on a node than actors x threads <= its cores. The
defaults are one-thread actors, as many as the node has cores, in a pool
that starts with one actor and grows while batches wait: Ray Data's other
tasks (reads, transforms before inference) need CPUs too, and a pool that
took every core at once would leave them none, a deadlock. For the same
reason, an actor given all of a node's cores can only run data that needs
no task on that node (materialized, or read elsewhere).
"""
import os

import numpy as np

try:
    import ray
    import ray.data
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(f"libops.ray needs Ray ({e}): pip install 'ray[data,serve]'") from None

from .errors import Error
from .session import InferenceSession


def __getattr__(name):
    # ModelServer lives in its own module: Ray Serve takes 1.4 s to import
    # here, which every batch-inference actor would pay at start otherwise.
    if name == "ModelServer":
        from ._ray_serve import ModelServer
        return ModelServer
    raise AttributeError(f"module 'libops.ray' has no attribute {name!r}")


__all__ = ["ModelServer", "Predictor", "deployment", "load_model", "map_batches", "plan_actors", "put_model"]


def put_model(model):
    """The model as an object-store reference, for actors on nodes that cannot
    read the caller's files. `model` is a path (.onnx files are converted here,
    once, so each actor loads the converted graph) or .lops bytes."""
    return ray.put(_model_bytes(model))


def _model_bytes(model):
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model)
    path = os.fspath(model)
    if path.lower().endswith(".onnx"):
        from . import convert_onnx
        return convert_onnx(path)
    with open(path, "rb") as f:
        return f.read()


def load_model(model, threads=1):
    """An InferenceSession over `model`: a path, .lops bytes, or an object
    reference made by put_model. A model that cannot be loaded raises
    libops.Error naming the model, once: no retry can mend it."""
    if isinstance(model, ray.ObjectRef):
        model = ray.get(model)
    try:
        return InferenceSession(model, threads=threads)
    except (Error, OSError, TypeError, ValueError) as e:
        what = f"{len(model)} bytes of model" if isinstance(model, (bytes, bytearray, memoryview)) else repr(
            os.fspath(model))
        # The same class (libops.InvalidGraphError, FileNotFoundError, ...),
        # the model named first.
        raise type(e)(f"libops.ray could not load {what}: {e}") from None


def _as_array(column):
    """A batch column as one numpy array [rows, ...], from numpy, pandas or
    pyarrow (tensor columns arrive as arrays of per-row arrays)."""
    if isinstance(column, np.ndarray):
        a = column
    elif hasattr(column, "chunks"):  # pyarrow.ChunkedArray: Ray's tensor columns shape each chunk
        parts = [c.to_numpy(zero_copy_only=False) for c in column.chunks]
        a = np.concatenate([np.stack(list(p)) if p.dtype == object and len(p) else p for p in parts]) if parts \
            else np.empty(0)
    elif hasattr(column, "to_numpy"):
        try:
            a = column.to_numpy(zero_copy_only=False)  # pyarrow
        except TypeError:
            a = column.to_numpy()  # pandas
    else:
        a = np.asarray(column)
    if a.dtype == object:
        a = np.stack([np.asarray(v) for v in a]) if len(a) else a
    return a


def _columns(batch):
    """{name: column} of a numpy dict, a pandas DataFrame or a pyarrow Table."""
    if isinstance(batch, dict):
        return batch
    if hasattr(batch, "column_names") and hasattr(batch, "column"):  # pyarrow.Table
        return {name: batch.column(name) for name in batch.column_names}
    if hasattr(batch, "columns") and hasattr(batch, "__getitem__"):  # pandas.DataFrame
        return {name: batch[name] for name in batch.columns}
    raise TypeError(f"a batch is a dict of arrays, a pandas DataFrame or a pyarrow Table, not {type(batch).__name__}")


class Predictor:
    """Runs batches of rows through a model; Ray Data's map_batches makes one
    per actor, so the model loads once per actor.

    model: a path every node can read, .lops bytes, or put_model's reference.
    threads: kernel threads of this actor's runs (reserve as many CPUs:
    map_batches(..., num_cpus=threads)). inputs: {model input: column}
    (default: each input reads the column of its name). outputs: the model
    outputs to return (default all), each as the column of its name, or
    {output: column}. keep_columns: other columns to pass through with each
    row (an id, say), or True for all that are not inputs.

    A column's dtype is converted to the input's when they differ (pandas
    gives float64 for Python floats); its rows must have the input's shape."""

    def __init__(self, model, threads=1, inputs=None, outputs=None, keep_columns=()):
        self.session = load_model(model, threads)
        self.inputs = dict(inputs) if inputs else {i.name: i.name for i in self.session.inputs}
        known = {i.name: i for i in self.session.inputs}
        for name in self.inputs:
            if name not in known:
                raise ValueError(f"the model has no input {name!r} (inputs: {', '.join(known)})")
        self._dtypes = {name: known[name].dtype for name in self.inputs}
        if outputs is None:
            outputs = [o.name for o in self.session.outputs]
        self.outputs = dict(outputs) if isinstance(outputs, dict) else {o: o for o in outputs}
        names = [o.name for o in self.session.outputs]
        for name in self.outputs:
            if name not in names:
                raise ValueError(f"the model has no output {name!r} (outputs: {', '.join(names)})")
        self.keep_columns = keep_columns

    def __call__(self, batch):
        columns = _columns(batch)
        feeds = {}
        for name, column in self.inputs.items():
            if column not in columns:
                raise KeyError(f"the batch has no column {column!r} for the model's input {name!r} "
                               f"(columns: {', '.join(map(str, columns))})")
            a = _as_array(columns[column])
            want = self._dtypes[name]
            feeds[name] = a if want is None or a.dtype == want else a.astype(want)
        results = self.session.run(feeds, outputs=list(self.outputs))
        out = {}
        if self.keep_columns is True:
            keep = [c for c in columns if c not in self.inputs.values()]
        else:
            keep = list(self.keep_columns)
        for c in keep:
            out[c] = _as_array(columns[c])
        for (name, column), value in zip(self.outputs.items(), results):
            out[column] = value
        return out


def plan_actors(actors_per_node=None, threads_per_actor=None, cores_per_node=None):
    """(actors per node, threads per actor) with actors x threads <= cores.

    cores_per_node defaults to the fewest CPUs of the cluster's live nodes;
    threads to 1, actors to as many as fit. Asking for more than fits is an
    error (oversubscribed kernels run slower than fewer actors would)."""
    if cores_per_node is None:
        cpus = [n["Resources"].get("CPU", 0) for n in ray.nodes() if n.get("Alive")]
        cpus = [int(c) for c in cpus if c >= 1]
        if not cpus:
            raise RuntimeError("no live Ray node has a CPU (is ray.init() called?)")
        cores_per_node = min(cpus)
    threads = 1 if threads_per_actor is None else int(threads_per_actor)
    if threads < 1:
        raise ValueError(f"threads_per_actor is {threads}; 1 or more")
    actors = cores_per_node // threads if actors_per_node is None else int(actors_per_node)
    if actors < 1 or actors * threads > cores_per_node:
        raise ValueError(f"{actors} actors x {threads} threads do not fit a node of {cores_per_node} cores")
    return actors, threads


def map_batches(dataset, model, batch_size=64, actors_per_node=None, threads_per_actor=None, inputs=None,
                outputs=None, keep_columns=(), **map_batches_args):
    """dataset.map_batches over a pool of Predictor actors: up to
    actors_per_node on each live node, each running threads_per_actor
    kernel threads (plan_actors gives the defaults; the pool starts with one
    actor and grows while batches wait: Note [Cores per node]). Returns the
    lazy Dataset; other arguments go to Ray Data's map_batches."""
    actors, threads = plan_actors(actors_per_node, threads_per_actor)
    nodes = sum(1 for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU", 0) >= threads)
    return dataset.map_batches(Predictor,
                               fn_constructor_kwargs={"model": model, "threads": threads, "inputs": inputs,
                                                      "outputs": outputs, "keep_columns": keep_columns},
                               compute=ray.data.ActorPoolStrategy(min_size=1, max_size=actors * max(nodes, 1)), num_cpus=threads,
                               batch_size=batch_size, batch_format="numpy", **map_batches_args)


def deployment(model, threads=1, max_batch_size=16, batch_wait_timeout_s=0.005, num_replicas=1, **options):
    """A Serve application of ModelServer over `model` (a path every node can
    read, .lops bytes or put_model's reference): serve.run(deployment(...)).
    Each replica reserves `threads` CPUs; other options go to
    serve.deployment (max_ongoing_requests, ...)."""
    from ray import serve

    from ._ray_serve import ModelServer
    cls = serve.deployment(ModelServer, num_replicas=num_replicas,
                           ray_actor_options={"num_cpus": threads}, **options)
    return cls.bind(model, threads, max_batch_size, batch_wait_timeout_s)
