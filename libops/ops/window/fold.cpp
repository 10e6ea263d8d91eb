// fold: sums sliding windows back into place, the adjoint of unfold (Nx's
// fold; PyTorch's nn.functional.fold, col2im, without the channel dim).
// Note [Sliding windows] in window.h has the layout.
//
//   input   x (leading..., prod(kernel_size), L), any numeric dtype
//   i args  K output sizes, then unfold's window: K kernel sizes, K strides,
//           K dilations, a (before, after) padding pair per spatial dim
//           (6K values); or the same list as input 1 (ONNX's Col2Im, whose
//           image and block shapes may be computed at run time)
//   output  (leading..., output_size...) in x's dtype
//
// Each output element gathers the entries that land on it, taps in
// ascending order, in x's compute type (integers wrap): no atomics, and a
// device gives the CPU's bits (window.cu).
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/window/window.h"

CUSTOM_OP_IMPL(fold, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  WindowGeometry g;
  Dims out;
  RETURN_IF_ERROR(window_geometry(block, true, g, out));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const bool on_cpu = block.device().is_cpu();
  const FoldDeviceFn device_fn = on_cpu ? nullptr : fold_device_kernel.get(block.device().type);
  if (!on_cpu && device_fn == nullptr) return no_device_implementation(block);
  const NDArray& x = *INPUT_VARIABLE(0);
  const DataType ct = fold_compute_dtype(x.dtype());
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, ct, xd));
  DeviceOutputStage stage;
  RETURN_IF_ERROR(stage.begin(block, *z, ct));
  if (on_cpu) {
    fold_cpu(g, ct, xd.data(), stage.target().data());
  } else {
    RETURN_IF_ERROR(with_op_name(block, device_fn(block.device(), g, xd, stage.target())));
  }
  return stage.finish(block, *z);
}

DECLARE_SHAPE_FN(fold) {
  using namespace libops;
  ops::WindowGeometry g;
  Dims out;
  RETURN_IF_ERROR(ops::window_geometry(block, true, g, out));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(fold) {
  // On a device through the backend's fold kernel (window.cu).
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(fold) {
  args.describe("Sums sliding windows back into place (unfold's adjoint): (leading..., prod(kernel_size), L) -> "
                "(leading..., output_size...).");
  args.input("x", "(leading..., prod(kernel_size), L), L the number of windows the args give");
  args.optional_input("output_size_and_window", "the i args' list as an integer vector, instead of i args");
  args.output("z", "x's dtype; each element the sum of the entries of x whose tap lands on it (0 where none does)");
  args.i_list("output_size_and_window",
              "K output sizes (>= 0), then as unfold's window: K kernel sizes, K strides, K dilations (each >= 1), "
              "(before, after) zero padding per spatial dim (>= 0); K = values / 6")
      .count(6, 6 * libops::kMaxRank)
      .or_input(1);
}
