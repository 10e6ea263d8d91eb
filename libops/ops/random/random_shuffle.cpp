// random_shuffle: x with its rows (dim 0) in a random order drawn from an
// explicit seed: JAX's permutation (Note [Threefry random numbers]): a
// round or more of stable sorts of the rows by 32-bit keys. libnd4j's
// random_shuffle, with the seed given rather than taken from a graph RNG.
//
// Everything runs on the call's device through kernels other ops already
// have: the keys are element-wise draws (draw.h), the sort is argsort's
// (sort.h), the rows move as gather's (indexed_rows.h).
#include <algorithm>
#include <cmath>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/index/index_call.h"
#include "libops/ops/random/draw.h"
#include "libops/ops/sort/sort_call.h"

namespace libops::ops {
namespace {

// JAX's number of sorting rounds: ceil(3 ln n / ln(2^32 - 1)), enough that
// all n keys of some round differ with high probability.
int shuffle_rounds(int64_t n) {
  return static_cast<int>(std::ceil(3.0 * std::log(static_cast<double>(std::max<int64_t>(1, n))) /
                                    std::log(4294967295.0)));
}

// perm: the permutation of n rows (int64, dense, on the call's device).
Status draw_permutation(const Context& block, int64_t seed, int64_t n, NDArray& perm) {
  const Dims shape{n};
  rng::ThreefryKey key = rng::threefry_key(seed);
  for (int r = 0, rounds = shuffle_rounds(n); r < rounds; ++r) {
    DrawDesc d;
    d.kind = DrawKind::kBits32;
    d.n = n;
    rng::threefry_split(key, &key, &d.key);
    NDArray keys, order;
    RETURN_IF_ERROR(NDArray::create(DataType::kUInt32, shape, 'c', keys));
    RETURN_IF_ERROR(NDArray::create(DataType::kInt64, shape, 'c', order));
    RETURN_IF_ERROR(draw_into(block, d, keys));
    SortDesc sd;
    sd.k = n;
    RETURN_IF_ERROR(sort_along(block, keys, 0, sd, nullptr, &order));
    if (r == 0) {
      perm = order;
      continue;
    }
    // This round sorts the rows the last one left: perm = perm[order].
    IndexedRows g;
    g.count = n;
    g.k = 1;
    g.dims[0] = n;
    NDArray next;
    RETURN_IF_ERROR(NDArray::create(DataType::kInt64, shape, 'c', next));
    int64_t bad = -1;
    RETURN_IF_ERROR(run_gather_rows(block, g, perm, order, next, bad));
    perm = next;
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(random_shuffle, 1, 1, false, 0, 1) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const int64_t n = x.dim(0);
  if (shuffle_rounds(n) == 0) return assign_on_device(block, *z, x);  // one row
  NDArray perm, xd;
  RETURN_IF_ERROR(draw_permutation(block, INT_ARG(0), n, perm));
  RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), xd));
  IndexedRows g;
  g.count = n;
  g.k = 1;
  g.dims[0] = n;
  g.row = x.length() / n;
  DeviceOutputStage stage;
  RETURN_IF_ERROR(stage.begin(block, *z, x.dtype()));
  int64_t bad = -1;
  RETURN_IF_ERROR(run_gather_rows(block, g, xd, perm, stage.target(), bad));
  return stage.finish(block, *z);
}

DECLARE_SHAPE_FN(random_shuffle) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  REQUIRE_TRUE(x->rank() >= 1, OPS_ERR_SHAPE, "x%s has rank 0: it needs rows (dim 0) to shuffle",
               x->shape().str().c_str());
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(random_shuffle) {
  // On a device through the draw, sort and gather kernels.
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(random_shuffle) {
  args.describe("x with its rows (dim 0) randomly permuted from an explicit seed, as jax.random.permutation.");
  args.input("x", "any dtype, rank >= 1");
  args.output("z", "x's rows in the drawn order");
  args.i_arg("seed", "any 64-bit value; the key is (seed >> 32, seed & 0xffffffff), JAX's PRNGKey(seed)");
}
