"""libops.ray's serving half: ModelServer, a Ray Serve deployment of one
model (libops.ray.deployment makes the application). A module of its own so
that batch inference never imports Ray Serve."""
import asyncio
import os

import numpy as np

try:
    from ray import serve
except ImportError as e:
    raise ImportError(f"libops.ray's serving needs Ray Serve ({e}): pip install 'ray[serve]'") from None

from .ray import load_model


def _request_feeds(request, session):
    """A request's inputs as arrays with a leading row dimension, and their
    row count. A request is {"inputs": {name: value}} or {name: value}; a
    value one rank below the model's input is one row."""
    if not isinstance(request, dict):
        raise TypeError(f"a request is a dict of inputs, not {type(request).__name__}")
    values = request.get("inputs", request)
    if not isinstance(values, dict):
        raise TypeError('a request\'s "inputs" is a dict {input name: array}')
    feeds, rows = {}, None
    for info in session.inputs:
        if info.name not in values:
            raise KeyError(f"the request has no input {info.name!r} (it gave: {', '.join(map(str, values))})")
        a = np.asarray(values[info.name], dtype=info.dtype)
        if info.shape is not None and a.ndim == len(info.shape) - 1:
            a = a[np.newaxis]
        if a.ndim == 0:
            raise ValueError(f"input {info.name!r} is a scalar; requests give rows")
        if rows is not None and a.shape[0] != rows:
            raise ValueError(f"input {info.name!r} has {a.shape[0]} rows, another {rows}")
        rows = a.shape[0]
        feeds[info.name] = a
    for name in values:
        if name not in feeds:
            raise KeyError(f"the model has no input {name!r} (inputs: {', '.join(i.name for i in session.inputs)})")
    return feeds, rows


class ModelServer:
    """A Ray Serve deployment of one model. Concurrent requests are batched
    into one run (up to max_batch_size requests, waiting at most
    batch_wait_timeout_s for a batch to fill) and each gets its own rows
    back. Called through a DeploymentHandle with a dict of arrays, it returns
    {output: array}; over HTTP it takes and gives JSON
    ({"inputs": {...}} -> {"outputs": {...}}). A request whose inputs cannot
    be batched with the others (another shape) runs alone; a request that
    fails gets its own error, never another request's rows."""

    def __init__(self, model, threads=1, max_batch_size=16, batch_wait_timeout_s=0.005):
        self.session = load_model(model, threads)
        self.requests = self.batches = self.largest_batch = 0
        self._batched.set_max_batch_size(int(max_batch_size))
        self._batched.set_batch_wait_timeout_s(float(batch_wait_timeout_s))

    async def __call__(self, request):
        if hasattr(request, "json") and hasattr(request, "method"):  # an HTTP request (starlette)
            try:
                body = await request.json()
            except ValueError as e:
                return _json_error(400, f"the body is not JSON: {e}")
            try:
                feeds = _request_feeds(body, self.session)
            except (TypeError, KeyError, ValueError) as e:
                return _json_error(400, str(e))
            result = await self._batched(feeds)
            if isinstance(result, Exception):
                return _json_error(400, f"{type(result).__name__}: {result}")
            return {"outputs": {k: v.tolist() for k, v in result.items()}}
        result = await self._batched(_request_feeds(request, self.session))
        if isinstance(result, Exception):
            raise result
        return result

    def pid(self):
        """This replica's process id (for tests and monitoring)."""
        return os.getpid()

    def stats(self):
        """Requests answered, the runs (batches) they took, and the most
        requests one run held, since this replica started."""
        return {"requests": self.requests, "batches": self.batches, "largest_batch": self.largest_batch}

    @serve.batch(max_batch_size=16, batch_wait_timeout_s=0.005)  # the limits are set per replica in __init__
    async def _batched(self, requests):
        # On a worker thread, so that the replica's event loop keeps taking
        # requests (and answering health checks) while a batch runs; Serve
        # runs one batch at a time.
        return await asyncio.get_running_loop().run_in_executor(None, self._run_batch, requests)

    def _run_batch(self, requests):
        self.requests += len(requests)
        self.batches += 1
        self.largest_batch = max(self.largest_batch, len(requests))
        names = [o.name for o in self.session.outputs]
        feeds_list = [r[0] for r in requests]
        rows = [r[1] for r in requests]
        try:
            joined = {k: np.concatenate([f[k] for f in feeds_list]) for k in feeds_list[0]}
        except ValueError:  # shapes that cannot share a run: each request alone
            return [self._run_one(r) for r in requests]
        total = sum(rows)
        try:
            outputs = self.session.run(joined)
        except Exception:  # one bad request must not fail the others
            return [self._run_one(r) for r in requests]
        if any(out.ndim == 0 or out.shape[0] != total for out in outputs):
            # Outputs without a row per input row cannot be split by request.
            return [self._run_one(r) for r in requests]
        results, start = [], 0
        for n in rows:
            results.append({name: np.array(out[start:start + n]) for name, out in zip(names, outputs)})
            start += n
        return results

    def _run_one(self, request):
        try:
            outputs = self.session.run(request[0])
        except Exception as e:
            return e
        return {o.name: out for o, out in zip(self.session.outputs, outputs)}


def _json_error(status, message):
    from starlette.responses import JSONResponse
    return JSONResponse({"error": message}, status_code=status)
