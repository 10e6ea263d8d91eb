// max_roi_pool: each region of interest max-pooled to a fixed grid of bins
// (Fast R-CNN's RoI pooling, ONNX's MaxRoiPool).
//
//   inputs  x [N, C, H, W] float, rois [num_rois, 5] float: batch index,
//           x1, y1, x2, y2 (input coordinates, times spatial_scale)
//   i args  pooled_height, pooled_width
//   t arg   spatial_scale (1.0)
//   output  [num_rois, C, pooled_height, pooled_width], x's dtype
//
// The binning is max_roi_pool_one's (max_roi_pool.h). rois are read on the
// host first: a batch index that is not a whole number in [0, N), or a
// coordinate that is not finite (or beyond 2^52 once scaled), is an error
// naming the roi, before any kernel runs.
#include "libops/ops/image/max_roi_pool.h"

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {

DeviceKernel<MaxRoiPoolDeviceFn> max_roi_pool_device_kernel;

namespace {

DataType compute_dtype(const NDArray& x) {
  return x.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
}

Status read_geometry(const Context& block, MaxRoiPoolDesc& d) {
  const NDArray& x = *block.input(0);
  const NDArray& rois = *block.input(1);
  if (x.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W]", x.shape().str().c_str());
  if (rois.rank() != 2 || rois.dim(1) != 5)
    return block.error(StatusCode::kInvalidArgument, "rois%s must be [num_rois, 5]: batch index, x1, y1, x2, y2",
                       rois.shape().str().c_str());
  d.n = x.dim(0), d.c = x.dim(1), d.h = x.dim(2), d.w = x.dim(3);
  d.rois = rois.dim(0);
  d.oh = block.i_arg(0);
  d.ow = block.i_arg(1);
  d.spatial_scale = block.t_arg(0);
  return Status::ok();
}

template <typename C>
Status check_rois(const Context& block, const MaxRoiPoolDesc& d, const C* rois) {
  constexpr double kLimit = 4503599627370496.0;  // 2^52: rounded coordinates stay exact integers
  for (int64_t r = 0; r < d.rois; ++r) {
    const C* v = rois + 5 * r;
    const double b = static_cast<double>(v[0]);
    if (!(b >= 0 && b < static_cast<double>(d.n) && b == std::floor(b)))
      return block.error(StatusCode::kInvalidArgument, "rois[%lld] has batch index %g: not an image in [0, %lld)",
                         static_cast<long long>(r), b, static_cast<long long>(d.n));
    for (int k = 1; k < 5; ++k)
      if (!(std::fabs(static_cast<double>(v[k]) * d.spatial_scale) < kLimit))
        return block.error(StatusCode::kInvalidArgument,
                           "rois[%lld] = (%g, %g, %g, %g): a coordinate times spatial_scale is not finite or past 2^52",
                           static_cast<long long>(r), double(v[1]), double(v[2]), double(v[3]), double(v[4]));
  }
  return Status::ok();
}

template <typename C>
void max_roi_pool_cpu(const MaxRoiPoolDesc& d, const C* x, const C* rois, C* z, int64_t n) {
  parallel_for(n, 1024, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) max_roi_pool_one(d, x, rois, k, z);
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(max_roi_pool, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  MaxRoiPoolDesc d;
  RETURN_IF_ERROR(read_geometry(block, d));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType ct = compute_dtype(*INPUT_VARIABLE(0));
  NDArray x, rois;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), ct, rois));
  RETURN_IF_ERROR(with_op_name(block, rois.buffer()->sync_to_host()));
  RETURN_IF_ERROR(ct == DataType::kFloat64 ? check_rois(block, d, rois.data_as<double>())
                                           : check_rois(block, d, rois.data_as<float>()));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), ct, x));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, ct));
  if (!block.device().is_cpu()) {
    const MaxRoiPoolDeviceFn fn = max_roi_pool_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, x, rois, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x, &rois}, out.target())));
  if (ct == DataType::kFloat64)
    max_roi_pool_cpu(d, x.data_as<double>(), rois.data_as<double>(), out.target().data_as<double>(), z->length());
  else
    max_roi_pool_cpu(d, x.data_as<float>(), rois.data_as<float>(), out.target().data_as<float>(), z->length());
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(max_roi_pool) {
  using namespace libops;
  ops::MaxRoiPoolDesc d;
  RETURN_IF_ERROR(ops::read_geometry(block, d));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), Dims{d.rois, d.c, d.oh, d.ow}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(max_roi_pool) {
  // On a device through the backend's kernel (max_roi_pool.cu).
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(max_roi_pool) {
  args.describe("Regions of interest max-pooled to a fixed grid (Fast R-CNN's RoI pooling, ONNX's MaxRoiPool).");
  reads_on_host(args, "rois, checked before pooling");
  args.input("x", "[N, C, H, W] float");
  args.input("rois", "[num_rois, 5] float: batch index, x1, y1, x2, y2 in input coordinates (times spatial_scale)");
  args.output("z", "[num_rois, C, pooled_height, pooled_width], x's dtype; an empty bin is 0, NaN wins");
  args.i_arg("pooled_height", "bins along the height").positive();
  args.i_arg("pooled_width", "bins along the width").positive();
  args.t_arg("spatial_scale", 1.0, "roi coordinates times this are pixels").finite();
}
