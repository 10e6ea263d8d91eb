// grid_sample: x sampled at the points of a grid of normalized coordinates
// (ONNX's GridSample 2-D and 3-D, PyTorch's grid_sample).
//
//   inputs  x [N, C, H, W] float, grid [N, oH, oW, 2] float: (x, y) per
//           output pixel, -1 and 1 the image's edges (align_corners: the
//           centers of its corner pixels); or volumes: x [N, C, D, H, W],
//           grid [N, oD, oH, oW, 3] of (x, y, z) (bilinear is then
//           trilinear; no bicubic)
//   i args  mode: 0 bilinear (default), 1 nearest (halves to even),
//           2 bicubic (Keys, a = -0.75); padding_mode: 0 zeros (default),
//           1 border, 2 reflection
//   b arg   align_corners (default false)
//   output  [N, C, oH, oW] ([N, C, oD, oH, oW]), x's dtype
//
// The sampling rules are grid_sample_one's and grid_sample_one_3d's
// (grid_sample.h); float16 and
// bfloat16 are computed in float32.
#include "libops/ops/image/grid_sample.h"

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {

DeviceKernel<GridSampleDeviceFn> grid_sample_device_kernel;

namespace {

DataType compute_dtype(const NDArray& x) {
  return x.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
}

Status read_geometry(const Context& block, GridSampleDesc& d) {
  const NDArray& x = *block.input(0);
  const NDArray& grid = *block.input(1);
  if (x.rank() != 4 && x.rank() != 5)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W] or [N, C, D, H, W]",
                       x.shape().str().c_str());
  d.volumetric = x.rank() == 5;
  const int64_t k = d.volumetric ? 3 : 2;
  if (grid.rank() != x.rank() || grid.dim(x.rank() - 1) != k || grid.dim(0) != x.dim(0))
    return block.error(StatusCode::kInvalidArgument, "grid%s must be %s with x%s's N", grid.shape().str().c_str(),
                       d.volumetric ? "[N, oD, oH, oW, 3]" : "[N, oH, oW, 2]", x.shape().str().c_str());
  d.n = x.dim(0), d.c = x.dim(1), d.h = x.dim(x.rank() - 2), d.w = x.dim(x.rank() - 1);
  d.oh = grid.dim(grid.rank() - 3), d.ow = grid.dim(grid.rank() - 2);
  if (d.volumetric) d.d = x.dim(2), d.od = grid.dim(1);
  if (d.n * d.c * d.od * d.oh * d.ow > 0 && (d.d < 1 || d.h < 1 || d.w < 1))
    return block.error(StatusCode::kInvalidArgument, "x%s has no pixels to sample", x.shape().str().c_str());
  d.mode = static_cast<int>(block.i_arg(0));
  d.padding = static_cast<int>(block.i_arg(1));
  d.align_corners = block.b_arg(0);
  if (d.volumetric && d.mode == kGridBicubic)
    return block.error(StatusCode::kInvalidArgument, "bicubic sampling is for images [N, C, H, W]; x%s is a volume",
                       x.shape().str().c_str());
  return Status::ok();
}

template <typename C>
void grid_sample_cpu(const GridSampleDesc& d, const C* x, const C* grid, C* z, int64_t n) {
  parallel_for(n, 8192, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) grid_sample_at(d, x, grid, k, z);
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(grid_sample, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  GridSampleDesc d;
  RETURN_IF_ERROR(read_geometry(block, d));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType ct = compute_dtype(*INPUT_VARIABLE(0));
  NDArray x, grid;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), ct, x));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), ct, grid));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, ct));
  if (!block.device().is_cpu()) {
    const GridSampleDeviceFn fn = grid_sample_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, x, grid, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x, &grid}, out.target())));
  if (ct == DataType::kFloat64)
    grid_sample_cpu(d, x.data_as<double>(), grid.data_as<double>(), out.target().data_as<double>(), z->length());
  else
    grid_sample_cpu(d, x.data_as<float>(), grid.data_as<float>(), out.target().data_as<float>(), z->length());
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(grid_sample) {
  using namespace libops;
  ops::GridSampleDesc d;
  RETURN_IF_ERROR(ops::read_geometry(block, d));
  const Dims shape = d.volumetric ? Dims{d.n, d.c, d.od, d.oh, d.ow} : Dims{d.n, d.c, d.oh, d.ow};
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(grid_sample) {
  // On a device through the backend's kernel (grid_sample.cu).
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(grid_sample) {
  args.describe("x sampled at a grid of normalized coordinates (ONNX's GridSample, PyTorch's grid_sample).");
  args.input("x", "[N, C, H, W] float, or a volume [N, C, D, H, W]");
  args.input("grid", "[N, oH, oW, 2] float: (x, y) per output pixel, -1 and 1 the image's edges; for a volume "
                     "[N, oD, oH, oW, 3] of (x, y, z)");
  args.output("z", "[N, C, oH, oW] ([N, C, oD, oH, oW]), x's dtype");
  args.i_arg("mode", 0, "how a point is read (a volume: bilinear is trilinear, no bicubic)")
      .one_of({{0, "bilinear"}, {1, "nearest"}, {2, "bicubic"}});
  args.i_arg("padding_mode", 0, "what points outside the image read")
      .one_of({{0, "zeros"}, {1, "border"}, {2, "reflection"}});
  args.b_arg("align_corners", false, "-1 and 1 are the centers of the corner pixels, not the image's edges");
}
