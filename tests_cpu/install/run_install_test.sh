#!/bin/sh
# Installs libops from a build folder into a temporary prefix and uses it as
# a project outside the tree would (issue: packaging):
#   - examples/ configured with find_package(libops CONFIG): a C and a C++
#     program run the example MLP and print its top outputs, which must be
#     numpy's (the example references tools/build_examples.py wrote), and a
#     program of element-wise expressions prints numpy's values;
#   - the same C program compiled with pkg-config alone;
#   - the op library examples/op_library builds with libops_add_op_library;
#     the installed ops-run loads it (--op-library), lists its op and runs an
#     ONNX model whose custom-domain node names it.
#
#   tests_cpu/install/run_install_test.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

step() { echo "== $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }

step "cmake --install into a temporary prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install"; }
for f in lib/libops.so include/libops/c_api.h include/libops/ops/declarable_op.h lib/cmake/libops/libopsConfig.cmake \
         lib/pkgconfig/libops.pc bin/ops-run; do
  [ -e "$prefix/$f" ] || fail "the install lacks $f"
done

step "libops.so exports the C API and the op headers' C++ alone (Note [Exported symbols])"
if command -v nm >/dev/null; then
  exported=$(nm -D --defined-only -C "$prefix/lib/libops.so" | awk '{ $1 = ""; $2 = ""; print }')
  echo "$exported" | grep -q "^  *ops_graph_run$" || fail "ops_graph_run is not exported"
  echo "$exported" | grep -q "libops::OpRegistry::instance()" || fail "OpRegistry::instance is not exported"
  inside=$(echo "$exported" | grep -E "libops::(graph|onnx|legacy|blas|loops|capi)::" | head -3)
  [ -z "$inside" ] || fail "internal symbols are exported: $inside"
fi

step "examples/ with find_package(libops CONFIG)"
generator=""
command -v ninja >/dev/null && generator="-G Ninja"
# shellcheck disable=SC2086
cmake -S "$src/examples" -B "$work/examples" $generator -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure examples"; }
cmake --build "$work/examples" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build examples"; }

model="$build/examples/mlp.lops"
reference="$build/examples/mlp.example.logits.npy"
check_top() {  # program output file, reference .npy
  python3 - "$1" "$2" <<'PY'
import sys
import numpy as np
got = [line.split() for line in open(sys.argv[1]).read().split("\n") if line]
want = np.load(sys.argv[2]).ravel()
order = np.argsort(-want, kind="stable")[:len(got)]
assert len(got) == 3, got
for (i, v), j in zip(got, order):
    assert int(i) == j and abs(float(v) - want[j]) <= 1e-4 * max(1.0, abs(want[j])), (got, order, want[order])
PY
}
"$work/examples/run_model_c" "$model" 3 >"$work/c.txt" || fail "run_model_c"
check_top "$work/c.txt" "$reference" || fail "run_model_c's top outputs: $(cat "$work/c.txt")"
"$work/examples/run_model_cpp" "$model" 3 >"$work/cpp.txt" || fail "run_model_cpp"
check_top "$work/cpp.txt" "$reference" || fail "run_model_cpp's top outputs: $(cat "$work/cpp.txt")"

step "an expression program (libops/expr/expr.h from the install)"
"$work/examples/expressions" >"$work/expr.txt" || fail "expressions"
python3 - "$work/expr.txt" <<'PY' || fail "the expression program's values: $(cat "$work/expr.txt")"
import sys
import numpy as np
lines = open(sys.argv[1]).read().split("\n")
x = (0.25 * np.arange(12) - 1.0).astype(np.float32).reshape(3, 4)
z = np.tanh(x * np.float32(2) + np.float32(1)) * x
got = np.array(lines[0].split(), np.float32).reshape(3, 4)
assert np.allclose(got, z, rtol=2e-6, atol=1e-7), (got, z)
sums = (x.T.astype(np.float64) ** 2).sum(axis=1)
assert np.allclose(np.array(lines[1].split(), np.float64), sums, rtol=1e-12), (lines[1], sums)
assert "does not broadcast" in lines[2], lines[2]
PY

step "the C program with pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -o "$work/run_model_pc" "$src/examples/run_model.c" $(pkg-config --cflags --libs libops) \
  -Wl,-rpath,"$(pkg-config --variable=libdir libops)" || fail "compile with pkg-config"
"$work/run_model_pc" "$model" 3 >"$work/pc.txt" || fail "run_model_pc"
check_top "$work/pc.txt" "$reference" || fail "the pkg-config build's top outputs: $(cat "$work/pc.txt")"

step "the op library, through the installed ops-run"
lib="$work/examples/libexample_ops.so"
"$prefix/bin/ops-run" --op-library "$lib" --list-ops >"$work/ops.txt" || fail "ops-run --op-library --list-ops"
grep -q "example_scale_shift(x) -> z" "$work/ops.txt" || fail "the op library's op is not listed"
python3 -c "import numpy as np; np.save('$work/x.npy', np.array([[-1, 0, 1], [2, -3, 0.25]], np.float32))"
"$prefix/bin/ops-run" "$src/examples/op_library/scale_shift.onnx" --op-library "$lib" --input x="$work/x.npy" \
  --output-dir "$work/out" >/dev/null || fail "ops-run on the custom-domain model"
python3 -c "
import numpy as np
z = np.load('$work/out/z.npy')
want = np.maximum(np.array([[-1, 0, 1], [2, -3, 0.25]], np.float32) * 2 + 0.5, 0)
assert np.array_equal(z, want), (z, want)" || fail "the custom-domain model's output"
if "$prefix/bin/ops-run" "$src/examples/op_library/scale_shift.onnx" --input x="$work/x.npy" 2>"$work/err.txt" >/dev/null; then
  fail "the custom-domain model ran without its op library"
fi
grep -q "names no registered op" "$work/err.txt" || fail "unexpected message without the op library: $(cat "$work/err.txt")"
step "add_subdirectory: a parent project configures libops as a subproject"
mkdir -p "$work/parent"
cat >"$work/parent/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(parent LANGUAGES C CXX)
add_subdirectory("$src" libops)
add_executable(run_model_c "$src/examples/run_model.c")
target_link_libraries(run_model_c PRIVATE libops::libops)
if(TARGET tests_cpu)
  message(FATAL_ERROR "a subproject build must not build libops' tests")
endif()
CM
# Configure and generate only: building would compile the library again.
# shellcheck disable=SC2086
cmake -S "$work/parent" -B "$work/parent-build" $generator >"$work/parent.log" 2>&1 ||
  { cat "$work/parent.log"; fail "configure a parent project with add_subdirectory"; }
echo "install test passed"
