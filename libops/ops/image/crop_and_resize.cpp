// crop_and_resize: boxes cut from images and resized to one size (TF's
// crop_and_resize, libnd4j's crop_and_resize).
//
//   inputs  image [batch, H, W, C] (NHWC, any numeric dtype), boxes
//           [num_boxes, 4] float (y1, x1, y2, x2 in [0, 1] image
//           coordinates; y1 > y2 flips the crop), box_index [num_boxes]
//           integers in [0, batch), crop_size [2] integers (crop_h, crop_w
//           >= 1)
//   i arg   method: 0 bilinear (default), 1 nearest
//   t arg   extrapolation_value (default 0): what samples outside the image read
//   output  [num_boxes, crop_h, crop_w, C], float32 (float64 for a float64 image)
//
// TF's sampling (crop_and_resize.h). crop_size and box_index are read on
// the host (two and num_boxes integers): the first gives the output's
// shape, the second is checked before the kernel runs, so a bad index is
// an error naming its box on every device.
#include "libops/ops/image/crop_and_resize.h"

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {

DeviceKernel<CropResizeDeviceFn> crop_resize_device_kernel;

namespace {

DataType compute_dtype(const NDArray& image) {
  return image.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
}

Status read_geometry(const Context& block, CropResizeDesc& d) {
  const NDArray& image = *block.input(0);
  const NDArray& boxes = *block.input(1);
  const NDArray& index = *block.input(2);
  const NDArray& size = *block.input(3);
  if (image.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "image%s must be [batch, H, W, C]", image.shape().str().c_str());
  if (boxes.rank() != 2 || boxes.dim(1) != 4 || index.shape() != Dims{boxes.dim(0)})
    return block.error(StatusCode::kInvalidArgument, "boxes%s and box_index%s must be [num_boxes, 4] and [num_boxes]",
                       boxes.shape().str().c_str(), index.shape().str().c_str());
  if (size.shape() != Dims{2})
    return block.error(StatusCode::kInvalidArgument, "crop_size%s must be [2]: crop_h, crop_w",
                       size.shape().str().c_str());
  if (!size.has_data())
    return block.error(StatusCode::kInvalidArgument, "crop_size: its values are not known yet (they are the output's size)");
  RETURN_IF_ERROR(with_op_name(block, const_cast<NDArray&>(size).buffer()->sync_to_host()));
  d.batch = image.dim(0), d.h = image.dim(1), d.w = image.dim(2), d.c = image.dim(3);
  d.boxes = boxes.dim(0);
  d.crop_h = size.get_int64(0);
  d.crop_w = size.get_int64(1);
  if (d.crop_h < 1 || d.crop_w < 1)
    return block.error(StatusCode::kInvalidArgument, "crop_size (%lld, %lld) must be >= 1", static_cast<long long>(d.crop_h),
                       static_cast<long long>(d.crop_w));
  if (d.boxes > 0 && (d.h < 1 || d.w < 1))
    return block.error(StatusCode::kInvalidArgument, "image%s has no pixels to sample", image.shape().str().c_str());
  d.nearest = block.i_arg(0) == 1;
  d.extrapolation = block.t_arg(0);
  return Status::ok();
}

template <typename C>
void crop_resize_cpu(const CropResizeDesc& d, const C* image, const C* boxes, const int64_t* index, C* z, int64_t n) {
  parallel_for(n, 16384, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) crop_resize_one(d, image, boxes, index, k, z);
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(crop_and_resize, 4, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  CropResizeDesc d;
  RETURN_IF_ERROR(read_geometry(block, d));
  NDArray index, image, boxes;
  RETURN_IF_ERROR(checked_int64_on_host(block, *INPUT_VARIABLE(2), "box_index", "an image", 0, d.batch, index));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType ct = compute_dtype(*INPUT_VARIABLE(0));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), ct, image));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), ct, boxes));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, ct));
  if (!block.device().is_cpu()) {
    const CropResizeDeviceFn fn = crop_resize_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, image, boxes, index, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&image, &boxes}, out.target())));
  const int64_t* bi = index.data_as<int64_t>();
  if (ct == DataType::kFloat64)
    crop_resize_cpu(d, image.data_as<double>(), boxes.data_as<double>(), bi, out.target().data_as<double>(), z->length());
  else
    crop_resize_cpu(d, image.data_as<float>(), boxes.data_as<float>(), bi, out.target().data_as<float>(), z->length());
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(crop_and_resize) {
  using namespace libops;
  ops::CropResizeDesc d;
  RETURN_IF_ERROR(ops::read_geometry(block, d));
  shapes.push_back(TensorShape{ops::compute_dtype(*INPUT_VARIABLE(0)), Dims{d.boxes, d.crop_h, d.crop_w, d.c}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(crop_and_resize) {
  // On a device through the backend's kernel (crop_and_resize.cu).
  descriptor.allow_input(0, libops::types::kNumeric).allow_input(1, libops::types::kFloat)
      .allow_input(2, libops::types::kInt).allow_input(3, libops::types::kInt).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(crop_and_resize) {
  args.describe("Boxes cut from images and resized to one size (TF's crop_and_resize).");
  reads_on_host(args, "crop_size (z's extent)");
  args.input("image", "[batch, H, W, C]");
  args.input("boxes", "[num_boxes, 4]: y1, x1, y2, x2 in [0, 1] image coordinates");
  args.input("box_index", "[num_boxes] integers: each box's image, in [0, batch)");
  args.input("crop_size", "[2] integers: crop_h, crop_w >= 1");
  args.output("z", "[num_boxes, crop_h, crop_w, C], float32 (float64 for a float64 image)");
  args.i_arg("method", 0, "how samples are read").one_of({{0, "bilinear"}, {1, "nearest"}});
  args.t_arg("extrapolation_value", 0.0, "what samples outside the image read").finite();
}
