// roll: x's elements shifted cyclically along axes (numpy.roll): element i
// moves to (i + shift) mod n. i args: the shifts, then as many axes; no
// axes rolls the flattened array (numpy.roll without an axis, one shift).
// Each axis is two slice copies on the call's device (through a
// temporary when several axes roll).
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

Status roll_args(Context& block, std::vector<int64_t>& shifts, std::vector<int>& axes) {
  const NDArray& x = *block.input(0);
  const auto& i = block.i_args();
  axes.clear();
  if (i.size() == 1) {  // the flattened array
    shifts.assign(1, i[0]);
    return Status::ok();
  }
  REQUIRE_TRUE(i.size() % 2 == 0, 0, "takes one shift, or shifts then as many axes; got %zu i args", i.size());
  const size_t n = i.size() / 2;
  shifts.assign(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(n));
  for (size_t k = 0; k < n; ++k) {
    const int64_t a = i[n + k];
    REQUIRE_TRUE(a >= -x.rank() && a < x.rank(), 0, "axis %lld (i arg %zu) is out of range for x%s",
                 static_cast<long long>(a), n + k, x.shape().str().c_str());
    axes.push_back(static_cast<int>(a < 0 ? a + x.rank() : a));
  }
  return Status::ok();
}

// dst = src rolled by `shift` along `axis` (two copies).
Status roll_axis(const Context& block, const NDArray& src, int axis, int64_t shift, NDArray& dst) {
  const int64_t n = src.dim(axis);
  if (n == 0) return Status::ok();
  const int64_t s = ((shift % n) + n) % n;
  NDArray a, b, c, d;
  RETURN_IF_ERROR(src.slice(axis, 0, n - s, 1, a));
  RETURN_IF_ERROR(dst.slice(axis, s, n, 1, b));
  RETURN_IF_ERROR(assign_on_device(block, b, a));
  if (s == 0) return Status::ok();
  RETURN_IF_ERROR(src.slice(axis, n - s, n, 1, c));
  RETURN_IF_ERROR(dst.slice(axis, 0, s, 1, d));
  return assign_on_device(block, d, c);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(roll, 1, 1, false, 0, 1) {
  using namespace libops;
  std::vector<int64_t> shifts;
  std::vector<int> axes;
  RETURN_IF_ERROR(ops::roll_args(block, shifts, axes));
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  if (axes.empty()) {  // flattened: z and a dense copy of x seen as vectors
    NDArray flat_x, flat_z, dense;
    RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), dense));
    RETURN_IF_ERROR(dense.reshape(Dims{x.length()}, flat_x));
    NDArray zd = *z;
    if (!z->is_c_contiguous()) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', zd));
    RETURN_IF_ERROR(zd.reshape(Dims{x.length()}, flat_z));
    RETURN_IF_ERROR(ops::roll_axis(block, flat_x, 0, shifts[0], flat_z));
    return zd.same_view(*z) ? Status::ok() : ops::assign_on_device(block, *z, zd);
  }
  NDArray cur = x;
  for (size_t k = 0; k < axes.size(); ++k) {
    NDArray next = *z;
    if (k + 1 < axes.size()) RETURN_IF_ERROR(NDArray::create(x.dtype(), x.shape(), 'c', next));
    RETURN_IF_ERROR(ops::roll_axis(block, cur, axes[k], shifts[k], next));
    cur = next;
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(roll) {
  using namespace libops;
  std::vector<int64_t> shifts;
  std::vector<int> axes;
  RETURN_IF_ERROR(ops::roll_args(block, shifts, axes));
  const NDArray* x = INPUT_VARIABLE(0);
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(roll) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(roll) {
  args.describe("Shifts elements cyclically along axes.");
  args.input("x", "any array");
  args.output("z", "x rolled: element i of an axis moves to (i + shift) mod n");
  args.i_list("shifts_and_axes", "one shift (the flattened array), or n shifts then n axes").count(1, 2 * libops::kMaxRank);
}
