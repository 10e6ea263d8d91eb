// deform_conv2d: a 2-D convolution whose taps read x at learned offsets,
// bilinearly, optionally weighted by a mask (ONNX's DeformConv,
// torchvision's deform_conv2d; Note [Deformable convolution] in
// deform_conv2d.h).
//
//   inputs  x [N, C, H, W] float; weights [oC, C / groups, kH, kW]; offset
//           [N, offset_groups 2 kH kW, oH, oW] (dy, dx per tap); bias [oC]
//           (optional, empty: none); mask [N, offset_groups kH kW, oH, oW]
//           (optional)
//   i args  strides, pads (top, left, bottom, right), dilations, groups,
//           offset_groups
//   output  [N, oC, oH, oW], x's dtype; oH and oW are offset's and must be
//           what the window gives: (H + pads - (kH - 1) dH - 1) / sH + 1
//
// Per image, the columns (the sampling loop body of deform_conv2d.h, on the
// CPU or the device's kernel), then one batched GEMM over the groups on the
// call's device; the bias by a nested add. float16 and bfloat16 compute in
// float32.
#include "libops/ops/nn/deform_conv2d.h"

#include <limits>

#include "blas/gemm.h"
#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {

DeviceKernel<DeformColumnsFn> deform_columns_device_kernel;

namespace {

const NDArray* optional_input(const Context& block, int k) {
  return block.num_inputs() > k && block.input(k)->length() > 0 ? block.input(k) : nullptr;
}

// The geometry, checked: shapes, channel and group counts, z's extents.
Status deform_geometry(const Context& block, DeformDesc& d, int64_t& n, int64_t& oc, int64_t& groups) {
  const NDArray& x = *block.input(0);
  const NDArray& w = *block.input(1);
  const NDArray& off = *block.input(2);
  if (x.rank() != 4 || w.rank() != 4 || off.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s, weights%s and offset%s must be rank 4",
                       x.shape().str().c_str(), w.shape().str().c_str(), off.shape().str().c_str());
  n = x.dim(0), d.c = x.dim(1), d.h = x.dim(2), d.w = x.dim(3);
  oc = w.dim(0), d.kh = w.dim(2), d.kw = w.dim(3);
  d.sh = block.i_arg(0), d.sw = block.i_arg(1), d.ph = block.i_arg(2), d.pw = block.i_arg(3);
  const int64_t pb = block.i_arg(4), pr = block.i_arg(5);
  d.dh = block.i_arg(6), d.dw = block.i_arg(7);
  groups = block.i_arg(8), d.offset_groups = block.i_arg(9);
  if (d.c % groups != 0 || oc % groups != 0 || w.dim(1) != d.c / groups)
    return block.error(StatusCode::kInvalidArgument, "x%s and weights%s do not split into %lld groups (weights "
                       "[oC, C / groups, kH, kW], oC a multiple of groups)", x.shape().str().c_str(),
                       w.shape().str().c_str(), static_cast<long long>(groups));
  if (d.c % d.offset_groups != 0)
    return block.error(StatusCode::kInvalidArgument, "x%s's %lld channels do not split into %lld offset groups",
                       x.shape().str().c_str(), static_cast<long long>(d.c),
                       static_cast<long long>(d.offset_groups));
  const int64_t taps = d.kh * d.kw;
  d.oh = (d.h + d.ph + pb - (d.kh - 1) * d.dh - 1) / d.sh + 1;
  d.ow = (d.w + d.pw + pr - (d.kw - 1) * d.dw - 1) / d.sw + 1;
  if (off.dim(0) != n || off.dim(1) != d.offset_groups * 2 * taps || off.dim(2) != d.oh || off.dim(3) != d.ow)
    return block.error(StatusCode::kInvalidArgument, "offset%s must be [%lld, %lld, %lld, %lld] (N, offset_groups "
                       "2 kH kW, and the window's output extents)", off.shape().str().c_str(),
                       static_cast<long long>(n), static_cast<long long>(d.offset_groups * 2 * taps),
                       static_cast<long long>(d.oh), static_cast<long long>(d.ow));
  if (const NDArray* b = optional_input(block, 3); b != nullptr && (b->rank() != 1 || b->dim(0) != oc))
    return block.error(StatusCode::kInvalidArgument, "bias%s must be [%lld]", b->shape().str().c_str(),
                       static_cast<long long>(oc));
  const NDArray* mask = optional_input(block, 4);
  d.has_mask = mask != nullptr;
  if (mask != nullptr && (mask->rank() != 4 || mask->dim(0) != n || mask->dim(1) != d.offset_groups * taps ||
                          mask->dim(2) != d.oh || mask->dim(3) != d.ow))
    return block.error(StatusCode::kInvalidArgument, "mask%s must be [%lld, %lld, %lld, %lld]",
                       mask->shape().str().c_str(), static_cast<long long>(n),
                       static_cast<long long>(d.offset_groups * taps), static_cast<long long>(d.oh),
                       static_cast<long long>(d.ow));
  return Status::ok();
}

template <typename C>
void columns_cpu(const DeformDesc& d, const NDArray& x, const NDArray& offset, const NDArray* mask, int64_t image,
                 NDArray& cols) {
  const int64_t positions = d.oh * d.ow, per_image = d.c * d.kh * d.kw * positions;
  const C* xi = x.data_as<const C>() + image * d.c * d.h * d.w;
  const C* oi = offset.data_as<const C>() + image * d.offset_groups * 2 * d.kh * d.kw * positions;
  const C* mi =
      mask != nullptr ? mask->data_as<const C>() + image * d.offset_groups * d.kh * d.kw * positions : nullptr;
  C* col = cols.data_as<C>();
  parallel_for(per_image, 4096, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) deform_column(d, xi, oi, mi, k, col);
  });
}

const void* on_device(const Context& block, const NDArray& a) {
  return block.device().is_cpu() ? a.data() : a.device_data();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(deform_conv2d, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  DeformDesc d;
  int64_t n = 0, oc = 0, groups = 1;
  RETURN_IF_ERROR(deform_geometry(block, d, n, oc, groups));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType ct = INPUT_VARIABLE(0)->dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  NDArray x, w, offset, mask, cols;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), ct, x));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), ct, w));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(2), ct, offset));
  if (d.has_mask) RETURN_IF_ERROR(dense_on_device(block, *block.input(4), ct, mask));
  const int64_t positions = d.oh * d.ow, rows = d.c * d.kh * d.kw;
  RETURN_IF_ERROR(step_array(block, ct, Dims{rows, positions}, cols));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, ct));
  NDArray& target = out.target();
  const DeformColumnsFn device_columns =
      block.device().is_cpu() ? nullptr : deform_columns_device_kernel.get(block.device().type);
  if (!block.device().is_cpu() && device_columns == nullptr) return no_device_implementation(block);
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x, &w, &offset, d.has_mask ? &mask : nullptr},
                                                      target)));
  const int64_t ocg = oc / groups, icg_rows = rows / groups;
  const size_t esize = ct == DataType::kFloat64 ? 8 : 4;
  for (int64_t image = 0; image < n; ++image) {
    if (device_columns != nullptr) {
      RETURN_IF_ERROR(with_op_name(block, device_columns(block.device(), d, x, offset, d.has_mask ? &mask : nullptr,
                                                         image, cols)));
    } else {
      RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {}, cols)));
      if (ct == DataType::kFloat64) columns_cpu<double>(d, x, offset, d.has_mask ? &mask : nullptr, image, cols);
      else columns_cpu<float>(d, x, offset, d.has_mask ? &mask : nullptr, image, cols);
      cols.buffer()->mark_host_written();
    }
    // z[image] group g = weights of g [oC / g, C / g kH kW] x its rows of the columns.
    char* z_image = static_cast<char*>(const_cast<void*>(on_device(block, target))) +
                    static_cast<size_t>(image * oc * positions) * esize;
    RETURN_IF_ERROR(with_op_name(
        block, blas::gemm_batched_on(block.device(), ct, false, false, ocg, positions, icg_rows, 1.0,
                                     on_device(block, w), icg_rows, ocg * icg_rows, on_device(block, cols), positions,
                                     icg_rows * positions, 0.0, z_image, positions, ocg * positions, groups)));
  }
  if (block.device().is_cpu()) target.buffer()->mark_host_written();
  else target.buffer()->mark_device_written();
  if (const NDArray* bias = optional_input(block, 3); bias != nullptr) {
    NDArray b4, summed;
    RETURN_IF_ERROR(with_op_name(block, bias->reshape(Dims{1, oc, 1, 1}, b4)));
    RETURN_IF_ERROR(run_nested(block, "add", {&target, &b4}, {}, summed));
    RETURN_IF_ERROR(assign_on_device(block, target, summed));
  }
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(deform_conv2d) {
  using namespace libops;
  ops::DeformDesc d;
  int64_t n = 0, oc = 0, groups = 1;
  RETURN_IF_ERROR(ops::deform_geometry(block, d, n, oc, groups));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), Dims{n, oc, d.oh, d.ow}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(deform_conv2d) {
  // On a device through the backend's column kernel (deform_conv2d.cu) and its GEMM.
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(deform_conv2d) {
  args.describe("2-D convolution whose taps read x at learned offsets, bilinearly, optionally masked (ONNX's "
                "DeformConv, torchvision's deform_conv2d).");
  args.input("x", "[N, C, H, W] float");
  args.input("weights", "[oC, C / groups, kH, kW]");
  args.input("offset", "[N, offset_groups 2 kH kW, oH, oW]: (dy, dx) per tap and output position");
  args.optional_input("bias", "[oC] (empty: none)");
  args.optional_input("mask", "[N, offset_groups kH kW, oH, oW]: each sample's weight (DCNv2)");
  args.output("z", "[N, oC, oH, oW], x's dtype");
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  args.i_arg("stride_h", 1, "the window's step down H").range(1, kMax);
  args.i_arg("stride_w", 1, "the window's step along W").range(1, kMax);
  args.i_arg("pad_top", 0, "zeros above the image").range(0, kMax);
  args.i_arg("pad_left", 0, "zeros left of the image").range(0, kMax);
  args.i_arg("pad_bottom", 0, "zeros below the image").range(0, kMax);
  args.i_arg("pad_right", 0, "zeros right of the image").range(0, kMax);
  args.i_arg("dilation_h", 1, "the spacing of the kernel's rows").range(1, kMax);
  args.i_arg("dilation_w", 1, "the spacing of the kernel's columns").range(1, kMax);
  args.i_arg("groups", 1, "channel groups of x and z").range(1, kMax);
  args.i_arg("offset_groups", 1, "channel groups sharing one set of offsets (and mask)").range(1, kMax);
}
