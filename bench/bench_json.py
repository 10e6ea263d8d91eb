"""Runs a Google Benchmark binary and picks one figure per benchmark from its
JSON report: the part bench/compare.py and bench/compare_cuda.py share.

Repetitions of all benchmarks are interleaved in random order, so a slow spell
on a shared machine does not fall on one benchmark only. Each figure is the
best repetition (highest bytes/s, lowest time), since contention only ever
slows a run down, or, on request, the median repetition.
"""
import subprocess


def repetitions(argv, default=3):
    """The N of a `--repetitions N` in a script's arguments, else `default`."""
    if "--repetitions" in argv:
        return int(argv[argv.index("--repetitions") + 1])
    return default


def run(binary, repetitions):
    """Runs `binary` with JSON output and `repetitions` interleaved
    repetitions of every benchmark. Returns the CompletedProcess without
    checking it: what a failure means is the caller's choice."""
    return subprocess.run([binary, "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
                           "--benchmark_enable_random_interleaving=true"],
                          capture_output=True, text=True)


def better(a, b):
    """The faster of two repetitions of one benchmark."""
    if "bytes_per_second" in a:
        return a if a["bytes_per_second"] >= b["bytes_per_second"] else b
    return a if a["real_time"] <= b["real_time"] else b


def figures(report, median):
    """(rows, errors) from a parsed JSON report: rows maps each benchmark's
    name (without its /manual_time or /real_time suffix) to its best
    repetition, or to its median aggregate when `median`; errors maps the name
    of each benchmark that reported an error to its message, and such runs
    never become rows."""
    rows, errors = {}, {}
    for b in report["benchmarks"]:
        name = (b["run_name"] if "run_name" in b else b["name"]).replace("/manual_time", "").replace("/real_time", "")
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
            continue
        if median:
            if b.get("aggregate_name") == "median":
                rows[name] = b
        elif b.get("run_type", "iteration") == "iteration":
            rows[name] = better(rows[name], b) if name in rows else b
    return rows, errors


def collect(argv):
    """Runs the benchmark binary named by argv[1] with argv's --repetitions
    (bench_json.repetitions), prints the error of each benchmark that
    failed, and returns (rows, repetitions) as figures() gives them."""
    import json

    reps = repetitions(argv)
    proc = run(argv[1], reps)
    proc.check_returncode()
    rows, errors = figures(json.loads(proc.stdout), False)
    for name, msg in sorted(errors.items()):
        print(f"{name}: error: {msg}")
    return rows, reps


def ms(rows, name):
    """A row's real time in milliseconds; NaN when the benchmark is missing."""
    row = rows.get(name)
    if row is None:
        return float("nan")
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[row.get("time_unit", "ns")]
    return row["real_time"] * scale


def gbs(rows, name):
    """A row's bytes per second in GB/s; NaN when the benchmark is missing."""
    return rows[name]["bytes_per_second"] / 1e9 if name in rows else float("nan")


def best_ms(call, repetitions):
    """The best of `repetitions` timings of call() in milliseconds, each over
    as many calls as timeit's autorange picks (how the scripts time numpy)."""
    import timeit

    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repetitions, number=number)) / number * 1e3
