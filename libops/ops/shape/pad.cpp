// pad: x extended by paddings[d] = (before, after) elements on each side of
// dim d (numpy.pad, TF's pad and mirror_pad, libnd4j's pad).
//
//   inputs  x, paddings (an integer [rank, 2] array; or 2 * rank i args
//           after the mode)
//   i arg   mode: 0 constant (the t arg value), 1 reflect (mirror without
//           the edge: [1 2 3] -> 3 2 [1 2 3] 2 1; padding < n), 2 symmetric
//           (mirror with the edge: 2 1 [1 2 3] 3 2; padding <= n), 3 edge
//           (repeat the edge value)
//   t arg   value, for constant mode (default 0)
//
// x is copied into the middle of z. Constant pads are filled around it;
// the other modes' pads are copies of slices of z itself (flipped for
// reflect and symmetric, broadcast for edge), dim after dim, so corners
// take the padding of every dim they lie in. All copies run on the call's
// device.
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/host_reads.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

enum PadMode { kConstant = 0, kReflect = 1, kSymmetric = 2, kEdge = 3 };

Status pad_amounts(Context& block, std::vector<int64_t>& before, std::vector<int64_t>& after) {
  const NDArray& x = *block.input(0);
  const int rank = x.rank();
  std::vector<int64_t> p;
  if (block.num_inputs() > 1) {
    const NDArray& pa = *block.input(1);
    REQUIRE_TRUE(dtype_is_integer(pa.dtype()), OPS_ERR_DTYPE, "paddings must be an integer array, got %s",
                 dtype_name(pa.dtype()));
    REQUIRE_TRUE(pa.rank() == 2 && pa.dim(0) == rank && pa.dim(1) == 2, OPS_ERR_SHAPE,
                 "paddings%s must be [%d, 2] for x%s", pa.shape().str().c_str(), rank, x.shape().str().c_str());
    // Shape inference before the values exist (a graph's load-time plan).
    REQUIRE_TRUE(pa.has_data(), 0, "paddings given as input 1: its values are not known yet");
    NDArray flat;
    RETURN_IF_ERROR(pa.reshape_copy(Dims{2 * static_cast<int64_t>(rank)}, flat));
    if (flat.buffer()->host_stale()) RETURN_IF_ERROR(flat.buffer()->sync_to_host());
    for (int64_t k = 0; k < flat.length(); ++k) p.push_back(flat.get_int64(k));
  } else {
    p.assign(block.i_args().begin() + 1, block.i_args().end());
  }
  REQUIRE_TRUE(static_cast<int>(p.size()) == 2 * rank, 0,
               "paddings has %zu values for x%s of rank %d: it needs (before, after) per dim", p.size(),
               x.shape().str().c_str(), rank);
  const int64_t mode = INT_ARG(0);
  before.resize(static_cast<size_t>(rank));
  after.resize(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const int64_t b = p[static_cast<size_t>(2 * d)], a = p[static_cast<size_t>(2 * d + 1)], n = x.dim(d);
    REQUIRE_TRUE(b >= 0 && a >= 0, OPS_ERR_SHAPE, "paddings (%lld, %lld) of dim %d are negative",
                 static_cast<long long>(b), static_cast<long long>(a), d);
    if (mode != kConstant)
      REQUIRE_TRUE((b == 0 && a == 0) || n > 0, OPS_ERR_SHAPE,
                   "dim %d of x%s is empty: there is nothing to %s", d, x.shape().str().c_str(),
                   mode == kEdge ? "repeat" : "mirror");
    // TensorFlow's limits: a mirror cannot be wider than what it mirrors.
    const int64_t limit = mode == kReflect ? n - 1 : n;
    if (mode == kReflect || mode == kSymmetric)
      REQUIRE_TRUE(b <= limit && a <= limit, OPS_ERR_SHAPE,
                   "paddings (%lld, %lld) of dim %d of x%s are too wide for %s mode: at most %lld",
                   static_cast<long long>(b), static_cast<long long>(a), d, x.shape().str().c_str(),
                   mode == kReflect ? "reflect" : "symmetric", static_cast<long long>(limit));
    before[static_cast<size_t>(d)] = b;
    after[static_cast<size_t>(d)] = a;
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(pad, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  std::vector<int64_t> before, after;
  RETURN_IF_ERROR(pad_amounts(block, before, after));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x = *INPUT_VARIABLE(0);
  const int64_t mode = INT_ARG(0);
  if (mode == kConstant) {
    // Only the pads are filled, so z is written once: dim d's two slabs
    // take the middle range of the dims before d and all of the dims after
    // it, which tiles z outside the middle without overlap.
    NDArray value;
    RETURN_IF_ERROR(NDArray::scalar(z->dtype(), T_ARG(0), value));
    NDArray outer = *z;
    for (int d = 0; d < x.rank(); ++d) {
      const int64_t b = before[static_cast<size_t>(d)], n = x.dim(d);
      NDArray slab;
      if (b > 0) {
        RETURN_IF_ERROR(outer.slice(d, 0, b, 1, slab));
        RETURN_IF_ERROR(assign_on_device(block, slab, value));
      }
      if (after[static_cast<size_t>(d)] > 0) {
        RETURN_IF_ERROR(outer.slice(d, b + n, outer.dim(d), 1, slab));
        RETURN_IF_ERROR(assign_on_device(block, slab, value));
      }
      RETURN_IF_ERROR(outer.slice(d, b, b + n, 1, outer));
    }
  }
  NDArray middle = *z;
  for (int d = 0; d < x.rank(); ++d)
    RETURN_IF_ERROR(middle.slice(d, before[static_cast<size_t>(d)], before[static_cast<size_t>(d)] + x.dim(d), 1, middle));
  RETURN_IF_ERROR(assign_on_device(block, middle, x));
  if (mode == kConstant) return Status::ok();
  // Dim by dim: z with the dims done so far in full and the others in x's
  // range; the pads of dim d are copies of that region's own values.
  for (int d = 0; d < x.rank(); ++d) {
    const int64_t b = before[static_cast<size_t>(d)], a = after[static_cast<size_t>(d)], n = x.dim(d);
    NDArray region = *z;
    for (int e = d + 1; e < x.rank(); ++e)
      RETURN_IF_ERROR(region.slice(e, before[static_cast<size_t>(e)], before[static_cast<size_t>(e)] + x.dim(e), 1, region));
    // Elements start, start - 1, ..., stop + 1 of dim d (stop may be -1).
    auto backwards = [&](int64_t start, int64_t stop, NDArray& out) {
      return region.slice(d, start, stop < 0 ? -region.dim(d) - 1 : stop, -1, out);
    };
    for (int side = 0; side < 2; ++side) {
      const int64_t width = side == 0 ? b : a;
      if (width == 0) continue;
      NDArray dst, src;
      RETURN_IF_ERROR(side == 0 ? region.slice(d, 0, b, 1, dst) : region.slice(d, b + n, b + n + a, 1, dst));
      if (mode == kEdge) {
        RETURN_IF_ERROR(side == 0 ? region.slice(d, b, b + 1, 1, src) : region.slice(d, b + n - 1, b + n, 1, src));
      } else {
        const int64_t skip = mode == kReflect ? 1 : 0;  // reflect leaves the edge out
        RETURN_IF_ERROR(side == 0 ? backwards(b + skip + width - 1, b + skip - 1, src)
                                  : backwards(b + n - 1 - skip, b + n - 1 - skip - width, src));
      }
      RETURN_IF_ERROR(assign_on_device(block, dst, src));  // src lies inside z: copied first
    }
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(pad) {
  using namespace libops;
  std::vector<int64_t> before, after;
  RETURN_IF_ERROR(ops::pad_amounts(block, before, after));
  const NDArray* x = INPUT_VARIABLE(0);
  Dims out = x->shape();
  for (int d = 0; d < out.size(); ++d) out[d] += before[static_cast<size_t>(d)] + after[static_cast<size_t>(d)];
  shapes.push_back(TensorShape{x->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(pad) {
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_PATTERN(pad, kInjective)

DECLARE_ARGS(pad) {
  args.describe("Pads x with a constant, a reflection, a symmetric reflection or its edge values.");
  reads_on_host(args, "the paddings input when given (z's shape)");
  args.input("x", "any array");
  args.optional_input("paddings", "an integer [rank, 2] array of (before, after) per dim, instead of i args");
  args.output("z", "x padded; each dim grows by before + after");
  args.i_arg("mode", 0, "how pads are filled").one_of({{0, "constant"}, {1, "reflect"}, {2, "symmetric"}, {3, "edge"}});
  args.i_list("paddings", "(before, after) per dim, when not given as an input").at_least(0);
  args.t_arg("value", 0.0, "the fill value of constant mode").nan_allowed();
}

DECLARE_SYN(mirror_pad, pad)
