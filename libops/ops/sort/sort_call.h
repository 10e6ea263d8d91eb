// What sort, argsort and top_k share: staging x as rows along the axis, and
// writing the kernel's results back into the outputs' own layout.
#pragma once

#include <tuple>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/sort/sort.h"

namespace libops::ops {

// Sorts x along `axis` on the call's device. values (x's dtype) and
// indices (int64) are the op's outputs, of x's shape with `k` positions
// along the axis; either may be null.
inline Status sort_along(const Context& block, const NDArray& x, int axis, const SortDesc& base, NDArray* values,
                         NDArray* indices) {
  const int r = x.rank();
  Dims to_last, back;  // axis last, and the inverse
  for (int d = 0; d < r; ++d)
    if (d != axis) to_last.push_back(d);
  to_last.push_back(axis);
  back.resize(r);
  for (int d = 0; d < r; ++d) back[static_cast<int>(to_last[d])] = d;
  NDArray xp, xd;
  RETURN_IF_ERROR(x.permute(to_last, xp));
  const DataType kt = sort_key_dtype(x.dtype());
  RETURN_IF_ERROR(dense_on_device(block, xp, kt, xd));
  SortDesc d = base;
  d.n = r == 0 ? 1 : x.dim(axis);
  d.rows = d.n == 0 ? 0 : x.length() / d.n;
  Dims staged_shape = xp.shape();
  if (r > 0) staged_shape[r - 1] = d.k;
  // On the CPU with the axis already last, an output that is dense in the
  // staged dtype and shares no memory with x is written by the kernel
  // itself: no staging array, no copy back.
  const bool last_axis = r == 0 || axis == r - 1;
  auto direct = [&](const NDArray* out, DataType dt) {
    return out != nullptr && block.device().is_cpu() && last_axis && out->dtype() == dt && out->is_c_contiguous() &&
           !out->may_overlap(x);
  };
  const bool values_direct = direct(values, kt), indices_direct = direct(indices, DataType::kInt64);
  NDArray vs, is;
  if (values_direct) vs = *values;
  else if (values) RETURN_IF_ERROR(NDArray::create(kt, staged_shape, 'c', vs));
  if (indices_direct) is = *indices;
  else if (indices) RETURN_IF_ERROR(NDArray::create(DataType::kInt64, staged_shape, 'c', is));
  if (d.rows > 0 && d.k > 0) {
    if (block.device().is_cpu()) {
      RETURN_IF_ERROR(with_op_name(block, sort_rows_cpu(d, xd, values ? &vs : nullptr, indices ? &is : nullptr)));
      if (values) vs.buffer()->mark_host_written();
      if (indices) is.buffer()->mark_host_written();
    } else {
      const SortDeviceFn fn = sort_device_kernel.get(block.device().type);
      if (fn == nullptr) return no_device_implementation(block);
      RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, xd, values ? &vs : nullptr, indices ? &is : nullptr)));
    }
  }
  for (auto [staged, out, written] : {std::tuple{&vs, values, values_direct}, std::tuple{&is, indices, indices_direct}}) {
    if (out == nullptr || written || out->length() == 0) continue;
    NDArray view;
    RETURN_IF_ERROR(staged->permute(back, view));
    RETURN_IF_ERROR(assign_on_device(block, *out, view));
  }
  return Status::ok();
}

}  // namespace libops::ops
