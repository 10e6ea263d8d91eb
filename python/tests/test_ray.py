"""libops.ray on a local Ray cluster: batch inference (Ray Data) and serving
(Ray Serve), with an actor and a replica killed mid-run.

The cluster is started here, on this machine only: every Ray process binds
to 127.0.0.1 (the head node, its worker processes, Serve's HTTP proxy), no
dashboard, usage statistics off. Skipped when Ray is not installed
(./buildnativeoperations.sh --test installs it)."""
import json
import os
import signal
import socket
import tempfile
import threading
import time
import urllib.request

import numpy as np
import pytest

# Before Ray is imported (it reads them then): usage statistics off, and
# Ray's switch for a one-machine instance, under which every process binds
# to the loopback address (by default they listen on every interface).
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'ray[data,serve]')")
import ray.data  # noqa: E402
from ray import serve  # noqa: E402

import libops  # noqa: E402
import libops.ray as libops_ray  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = 3072  # a few thousand rows
BATCH = 64
SHAPE = (3, 16, 16)


def cnn_onnx(path):
    """A small CNN as an exporter writes it: symbolic batch, conv + bias +
    relu, flatten, a matmul to 10 logits, softmax."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    w = (rng.standard_normal((8, 3, 3, 3)) * 0.3).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    w2 = (rng.standard_normal((8 * 16 * 16, 10)) * 0.05).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Flatten", ["r"], ["f"]),
             helper.make_node("MatMul", ["f", "w2"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["probs"], axis=1)]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", *SHAPE])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10]),
                               helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 10])],
                              [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (b, "b"), (w2, "w2"))])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.fixture(scope="module")
def cluster():
    # Worker processes inherit the driver's environment: they import libops
    # (and ray_faults) from the same places.
    os.environ["PYTHONPATH"] = os.pathsep.join([HERE] + [p for p in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    temp = tempfile.mkdtemp(prefix="lr", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", object_store_memory=200 << 20,
             _temp_dir=temp, log_to_driver=False, configure_logging=False)
    yield temp
    serve.shutdown()
    ray.shutdown()


def descendants(pid):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def listening_addresses(pids):
    """The local addresses of the TCP sockets these processes listen on."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if cols[3] != "0A" or cols[9] not in inodes:  # 0A: LISTEN
                    continue
                hexaddr = cols[1].split(":")[0]
                raw = b"".join(bytes.fromhex(hexaddr[i:i + 8])[::-1] for i in range(0, len(hexaddr), 8))
                found.append(socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, raw))
    return found


def is_loopback(address):
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1") or address.startswith("::ffff:127.")


def test_every_ray_process_listens_on_the_loopback_address_only(cluster):
    addresses = listening_addresses(descendants(os.getpid()))
    assert addresses, "found no listening socket of the Ray processes"
    assert all(is_loopback(a) for a in addresses), addresses


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return cnn_onnx(str(tmp_path_factory.mktemp("model") / "cnn.onnx"))


@pytest.fixture(scope="module")
def rows():
    return np.random.default_rng(11).standard_normal((ROWS, *SHAPE)).astype(np.float32)


@pytest.fixture(scope="module")
def reference(model, rows):
    """The single-process run: the same model, the same batches of BATCH rows
    (a row's result may differ in its last bits between a batch of one row
    and a larger batch, so the batches match the pipeline's)."""
    sess = libops.InferenceSession(model, threads=1)
    outs = [sess.run({"x": rows[i:i + BATCH]}) for i in range(0, ROWS, BATCH)]
    return {"logits": np.concatenate([o[0] for o in outs]), "probs": np.concatenate([o[1] for o in outs])}


def dataset(rows, block=4 * BATCH):
    """The rows with their ids, in blocks of whole batches (so that each batch
    holds the rows the reference's batch holds), made in this process: no
    task has to run before inference, which an actor given both cores
    (threads_per_actor=2) would starve (libops.ray's Note [Cores per node])."""
    import pyarrow as pa
    from ray.data.extensions import ArrowTensorArray
    ray.data.DataContext.get_current().execution_options.preserve_order = True
    ids = np.arange(len(rows), dtype=np.int64)
    return ray.data.from_arrow([pa.table({"x": ArrowTensorArray.from_numpy(rows[i:i + block]),
                                          "id": ids[i:i + block]}) for i in range(0, len(rows), block)])


def check_every_row_once(result, reference):
    ids = np.asarray(result["id"])
    assert len(ids) == ROWS, f"{len(ids)} rows came back of {ROWS}"
    assert np.array_equal(np.sort(ids), np.arange(ROWS)), "rows missing or repeated"
    order = np.argsort(ids)
    for name in ("logits", "probs"):
        got = np.asarray(result[name])[order]
        assert got.dtype == np.float32 and got.shape == (ROWS, 10)
        assert np.array_equal(got, reference[name]), f"{name}: not bit-for-bit the single-process run"


def collect(ds):
    batches = list(ds.iter_batches(batch_size=None, batch_format="numpy"))
    return {k: np.concatenate([b[k] for b in batches]) for k in batches[0]}


def test_two_actors_give_every_row_of_a_single_process_run_bit_for_bit(cluster, model, rows, reference):
    out = libops_ray.map_batches(dataset(rows), model, batch_size=BATCH, threads_per_actor=1, keep_columns=["id"])
    check_every_row_once(collect(out), reference)


def test_the_model_from_the_object_store(cluster, model, rows, reference):
    ref = libops_ray.put_model(model)  # converted once here; actors read bytes
    out = libops_ray.map_batches(dataset(rows), ref, batch_size=BATCH, actors_per_node=1, threads_per_actor=2,
                                 keep_columns=["id"])
    check_every_row_once(collect(out), reference)


def test_an_actor_killed_mid_run_loses_no_row_and_repeats_none(cluster, model, rows, reference, tmp_path):
    from ray_faults import PredictorThatDiesOnce
    marker = str(tmp_path / "killed")
    ds = dataset(rows).map_batches(
        PredictorThatDiesOnce, fn_constructor_kwargs={"marker": marker, "after": 5, "model": model,
                                                      "keep_columns": ["id"]},
        compute=ray.data.ActorPoolStrategy(size=2), num_cpus=1, batch_size=BATCH, batch_format="numpy")
    result = collect(ds)
    with open(marker) as f:
        killed = int(f.read())
    assert killed > 0 and killed != os.getpid()  # an actor did die, by its own hand
    check_every_row_once(result, reference)


def test_pandas_and_arrow_batches(cluster, model, rows, reference):
    pred = libops_ray.Predictor(model, keep_columns=True)
    import pandas as pd
    import pyarrow as pa
    x = rows[:BATCH]
    frame = pd.DataFrame({"x": list(x.astype(np.float64)), "tag": np.arange(BATCH)})  # float64: converted
    for batch in (frame, pa.table({"x": pa.array(list(x.reshape(BATCH, -1))), "tag": np.arange(BATCH)})):
        if isinstance(batch, pa.Table):  # flat rows: the model wants [3, 16, 16]
            with pytest.raises(libops.Error, match="x"):
                pred(batch)
            continue
        out = pred(batch)
        assert np.array_equal(out["tag"], np.arange(BATCH))
        assert np.array_equal(out["probs"], reference["probs"][:BATCH])
    from ray.data.extensions import ArrowTensorArray
    out = pred(pa.table({"x": ArrowTensorArray.from_numpy(x), "tag": np.arange(BATCH)}))
    assert np.array_equal(out["logits"], reference["logits"][:BATCH])


def test_a_model_that_cannot_load_fails_the_run_soon_naming_it(cluster, rows, tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not a model")
    start = time.monotonic()
    with pytest.raises(Exception) as info:
        libops_ray.map_batches(dataset(rows[:4 * BATCH]), str(bad), batch_size=BATCH).materialize()
    assert time.monotonic() - start < 120
    message = str(info.value)
    assert "libops.ray could not load" in message and "broken.onnx" in message


def test_actors_and_threads_fit_the_cores():
    assert libops_ray.plan_actors(cores_per_node=2) == (2, 1)
    assert libops_ray.plan_actors(threads_per_actor=2, cores_per_node=2) == (1, 2)
    assert libops_ray.plan_actors(actors_per_node=3, threads_per_actor=2, cores_per_node=8) == (3, 2)
    with pytest.raises(ValueError, match="2 actors x 2 threads do not fit a node of 2 cores"):
        libops_ray.plan_actors(actors_per_node=2, threads_per_actor=2, cores_per_node=2)
    with pytest.raises(ValueError, match="threads_per_actor is 0"):
        libops_ray.plan_actors(threads_per_actor=0, cores_per_node=2)


# ---- serving ----

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(cluster, model):
    port = free_port()
    # Serve gives its HTTP proxy 60 s to start, a limit of its own that a
    # machine busy with other test suites can pass: one more try then.
    for attempt in range(2):
        try:
            serve.start(http_options={"host": "127.0.0.1", "port": port})
            break
        except ray.exceptions.RayError:
            if attempt == 1:
                raise
            serve.shutdown()
    handle = serve.run(libops_ray.deployment(model, threads=1, max_batch_size=8, batch_wait_timeout_s=0.01),
                       name="cnn", route_prefix="/cnn")
    yield handle, port
    serve.delete("cnn")


def expected_rows(model, rows):
    sess = libops.InferenceSession(model, threads=1)
    return sess.run({"x": rows})[1]


def closest_row(got, want_all):
    return int(np.argmin(np.abs(want_all - got).sum(axis=1)))


def test_concurrent_requests_get_their_own_rows(served, model, rows):
    handle, _ = served
    inputs = rows[:96]
    want = expected_rows(model, inputs)
    got, errors = [None] * len(inputs), []

    def client(k0):
        try:
            for k in range(k0, len(inputs), 8):
                got[k] = handle.remote({"x": inputs[k]}).result(timeout_s=60)["probs"]
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    before = handle.stats.remote().result(timeout_s=60)
    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    stats = handle.stats.remote().result(timeout_s=60)
    assert stats["requests"] - before["requests"] == len(inputs)
    assert stats["largest_batch"] > 1, "no two requests shared a run: batching was not exercised"
    for k, g in enumerate(got):
        assert g.shape == (1, 10)
        # Batched with others or alone, a row's result is its own: the rows
        # differ by far more than the last bits a batch size can move.
        assert closest_row(g[0], want) == k
        np.testing.assert_allclose(g[0], want[k], rtol=1e-5, atol=1e-7)


def test_several_rows_in_one_request_and_bad_requests(served, model, rows):
    handle, port = served
    want = expected_rows(model, rows[:3])
    out = handle.remote({"inputs": {"x": rows[:3]}}).result(timeout_s=60)
    np.testing.assert_allclose(out["probs"], want, rtol=1e-5, atol=1e-7)
    with pytest.raises(Exception, match=r"the request has no input 'x' \(it gave: y\)"):
        handle.remote({"y": rows[0]}).result(timeout_s=60)
    # Over HTTP, on 127.0.0.1: JSON in and out; a bad request is a 400 with
    # the reason.
    body = json.dumps({"inputs": {"x": rows[:2].tolist()}}).encode()
    with urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/cnn", data=body), timeout=60) as r:
        reply = json.loads(r.read())
    np.testing.assert_allclose(np.array(reply["outputs"]["probs"], np.float32), want[:2], rtol=1e-5, atol=1e-7)
    bad = json.dumps({"inputs": {"x": [[1.0, 2.0]]}}).encode()
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/cnn", data=bad), timeout=60)
    assert info.value.code == 400 and "x" in json.loads(info.value.read())["error"]


def test_a_replica_killed_under_load(served, model, rows):
    handle, _ = served
    inputs = rows[:64]
    want = expected_rows(model, inputs)
    pid = handle.pid.remote().result(timeout_s=60)
    stop = threading.Event()
    answered, failed, wrong = [], [], []

    def client(k0):
        k = k0
        while not stop.is_set():
            try:
                g = handle.remote({"x": inputs[k]}).result(timeout_s=30)["probs"][0]
            except Exception as e:  # noqa: BLE001 - a failure must be an error, never a wrong answer
                failed.append(e)
                time.sleep(0.05)
            else:
                (answered if np.allclose(g, want[k], rtol=1e-5, atol=1e-7) else wrong).append(k)
            k = (k + 4) % len(inputs)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    before = len(answered)
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # recovered: a new replica answers
        time.sleep(0.5)
        try:
            if handle.pid.remote().result(timeout_s=10) != pid:
                break
        except Exception:  # noqa: BLE001 - still restarting
            pass
    else:
        pytest.fail("no replica answered within 90 s of the kill")
    after_recovery = len(answered)
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join()
    assert before > 0
    assert not wrong, f"{len(wrong)} requests got another row's answer"
    assert len(answered) > after_recovery, "no request was answered after the replica came back"
    # Requests after recovery are all answered.
    for k in range(8):
        g = handle.remote({"x": inputs[k]}).result(timeout_s=60)["probs"][0]
        np.testing.assert_allclose(g, want[k], rtol=1e-5, atol=1e-7)
