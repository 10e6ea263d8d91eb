// unfold: the sliding windows of x's last K dims, side by side (Nx's
// unfold; PyTorch's nn.functional.unfold, im2col, without folding a channel
// dim into the taps). Note [Sliding windows] in window.h has the layout.
//
//   input   x (leading..., S0, ..., S(K-1)), any numeric dtype
//   i args  the window: K kernel sizes, K strides, K dilations, then a
//           (before, after) zero-padding pair per spatial dim (5K values)
//   output  (leading..., prod(kernel_size), L) in x's dtype
//
// Elements move by their size, so nothing is compiled per dtype; on a
// device the backend's kernel does the same (window.cu).
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/window/window.h"

CUSTOM_OP_IMPL(unfold, 1, 1, false, 0, 5) {
  using namespace libops;
  using namespace libops::ops;
  WindowGeometry g;
  Dims out;
  RETURN_IF_ERROR(window_geometry(block, false, g, out));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const bool on_cpu = block.device().is_cpu();
  const UnfoldDeviceFn device_fn = on_cpu ? nullptr : unfold_device_kernel.get(block.device().type);
  if (!on_cpu && device_fn == nullptr) return no_device_implementation(block);
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), xd));
  DeviceOutputStage stage;
  RETURN_IF_ERROR(stage.begin(block, *z, x.dtype()));
  if (on_cpu) {
    unfold_cpu(g, x.element_size(), xd.data(), stage.target().data());
  } else {
    RETURN_IF_ERROR(with_op_name(block, device_fn(block.device(), g, xd, stage.target())));
  }
  return stage.finish(block, *z);
}

DECLARE_SHAPE_FN(unfold) {
  using namespace libops;
  ops::WindowGeometry g;
  Dims out;
  RETURN_IF_ERROR(ops::window_geometry(block, false, g, out));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(unfold) {
  // On a device through the backend's unfold kernel (window.cu).
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(unfold) {
  args.describe("Sliding windows of the last K dims: (leading..., S...) -> (leading..., prod(kernel_size), L).");
  args.input("x", "(leading..., S0, ..., S(K-1)), at least K dims");
  args.output("z", "x's dtype; z[..., tap, window], taps and windows in row-major order, 0 where a tap lands "
                   "in the padding");
  args.i_list("window",
              "K kernel sizes, K strides, K dilations (each >= 1), then (before, after) zero padding per spatial dim "
              "(>= 0); K = values / 5")
      .count(5, 5 * libops::kMaxRank);
}
