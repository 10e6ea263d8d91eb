// roi_align: each region of interest pooled to a fixed grid of bins by
// bilinear sampling (ONNX's RoiAlign; Mask R-CNN's RoIAlign).
//
//   inputs  x [N, C, H, W] float, rois [num_rois, 4] float (x1, y1, x2, y2
//           in input coordinates, scaled by spatial_scale), batch_indices
//           [num_rois] integers in [0, N)
//   i args  output_height (1), output_width (1), sampling_ratio (0:
//           adaptive, ceil(roi side / bins)), mode (0 avg, 1 max),
//           coordinate mode (0 half_pixel, 1 output_half_pixel: opset
//           10's, no shift and rois at least one pixel)
//   t arg   spatial_scale (1.0)
//   output  [num_rois, C, output_height, output_width], x's dtype
//
// rois and batch_indices are read on the host (a few numbers per roi):
// batch indices outside [0, N), rois that are not finite, and adaptive
// grids of more than kMaxSamples samples per side are errors naming the
// roi, before any kernel runs.
#include "libops/ops/image/roi_align.h"

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {

DeviceKernel<RoiAlignDeviceFn> roi_align_device_kernel;

namespace {

// An adaptive grid this fine would be an roi thousands of times the
// image's size: refused rather than sampled for minutes.
constexpr int64_t kMaxSamples = 4096;

DataType compute_dtype(const NDArray& x) {
  return x.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
}

Status read_geometry(const Context& block, RoiAlignDesc& d) {
  const NDArray& x = *block.input(0);
  const NDArray& rois = *block.input(1);
  const NDArray& index = *block.input(2);
  if (x.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W]", x.shape().str().c_str());
  if (rois.rank() != 2 || rois.dim(1) != 4 || index.shape() != Dims{rois.dim(0)})
    return block.error(StatusCode::kInvalidArgument,
                       "rois%s and batch_indices%s must be [num_rois, 4] and [num_rois]", rois.shape().str().c_str(),
                       index.shape().str().c_str());
  d.n = x.dim(0), d.c = x.dim(1), d.h = x.dim(2), d.w = x.dim(3);
  d.rois = rois.dim(0);
  d.oh = block.i_arg(0);
  d.ow = block.i_arg(1);
  d.sampling_ratio = block.i_arg(2);
  d.max_mode = block.i_arg(3) == 1;
  d.half_pixel = block.i_arg(4) == 0;
  d.spatial_scale = block.t_arg(0);
  if (d.rois > 0 && d.c > 0 && (d.h < 1 || d.w < 1))
    return block.error(StatusCode::kInvalidArgument, "x%s has no pixels to sample", x.shape().str().c_str());
  return Status::ok();
}

// Every roi finite, with an adaptive grid of at most kMaxSamples per side.
template <typename C>
Status check_rois(const Context& block, const RoiAlignDesc& d, const C* rois) {
  for (int64_t r = 0; r < d.rois; ++r) {
    const C* v = rois + 4 * r;
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2]) || !std::isfinite(v[3]))
      return block.error(StatusCode::kInvalidArgument, "rois[%lld] = (%g, %g, %g, %g) is not finite",
                         static_cast<long long>(r), double(v[0]), double(v[1]), double(v[2]), double(v[3]));
    const RoiGeometry<C> g = roi_geometry(d, v);
    if (g.grid_h > kMaxSamples || g.grid_w > kMaxSamples)
      return block.error(StatusCode::kInvalidArgument,
                         "rois[%lld] = (%g, %g, %g, %g) needs %lld x %lld samples per bin; at most %lld per side "
                         "(give sampling_ratio)",
                         static_cast<long long>(r), double(v[0]), double(v[1]), double(v[2]), double(v[3]),
                         static_cast<long long>(g.grid_h), static_cast<long long>(g.grid_w),
                         static_cast<long long>(kMaxSamples));
  }
  return Status::ok();
}

template <typename C>
void roi_align_cpu(const RoiAlignDesc& d, const C* x, const C* rois, const int64_t* batch, C* z, int64_t n) {
  parallel_for(n, 256, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) roi_align_one(d, x, rois, batch, k, z);
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(roi_align, 3, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  RoiAlignDesc d;
  RETURN_IF_ERROR(read_geometry(block, d));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray batch, x, rois;
  RETURN_IF_ERROR(checked_int64_on_host(block, *INPUT_VARIABLE(2), "batch_indices", "an image", 0, d.n, batch));
  const DataType ct = compute_dtype(*INPUT_VARIABLE(0));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), ct, rois));
  RETURN_IF_ERROR(with_op_name(block, rois.buffer()->sync_to_host()));
  RETURN_IF_ERROR(ct == DataType::kFloat64 ? check_rois(block, d, rois.data_as<double>())
                                           : check_rois(block, d, rois.data_as<float>()));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), ct, x));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, ct));
  if (!block.device().is_cpu()) {
    const RoiAlignDeviceFn fn = roi_align_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, x, rois, batch, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x, &rois}, out.target())));
  const int64_t* bi = batch.data_as<int64_t>();
  if (ct == DataType::kFloat64)
    roi_align_cpu(d, x.data_as<double>(), rois.data_as<double>(), bi, out.target().data_as<double>(), z->length());
  else
    roi_align_cpu(d, x.data_as<float>(), rois.data_as<float>(), bi, out.target().data_as<float>(), z->length());
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(roi_align) {
  using namespace libops;
  ops::RoiAlignDesc d;
  RETURN_IF_ERROR(ops::read_geometry(block, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), Dims{d.rois, d.c, d.oh, d.ow}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(roi_align) {
  // On a device through the backend's kernel (roi_align.cu).
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kFloat)
      .allow_input(2, libops::types::kInt).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(roi_align) {
  args.describe("Regions of interest pooled to a fixed grid by bilinear sampling (ONNX's RoiAlign).");
  reads_on_host(args, "rois and batch_indices, checked before sampling");
  args.input("x", "[N, C, H, W] float");
  args.input("rois", "[num_rois, 4] float: x1, y1, x2, y2 in input coordinates (times spatial_scale)");
  args.input("batch_indices", "[num_rois] integers: each roi's image, in [0, N)");
  args.output("z", "[num_rois, C, output_height, output_width], x's dtype");
  args.i_arg("output_height", 1, "bins along the height").positive();
  args.i_arg("output_width", 1, "bins along the width").positive();
  args.i_arg("sampling_ratio", 0, "samples per bin along each side; 0: ceil(roi side / bins)").range(0, 4096);
  args.i_arg("mode", 0, "how a bin's samples combine").one_of({{0, "avg"}, {1, "max (ONNX Runtime's)"}});
  args.i_arg("coordinate_mode", 0, "how rois map to pixels")
      .one_of({{0, "half_pixel"}, {1, "output_half_pixel (opset 10)"}});
  args.t_arg("spatial_scale", 1.0, "roi coordinates times this are pixels").finite();
}
