// in_top_k: for each row of predictions, whether its target class is among
// the k highest scores (TF's in_top_k, libnd4j's in_top_k). Ties count in
// the target's favour, as in TF: the target is in the top k when fewer than
// k classes score strictly more than it, so every class tied at the
// boundary is in. A target whose score is NaN or infinite is not in.
//
//   inputs  predictions [rows, classes] float, targets [rows] integers,
//           each in [0, classes)
//   i arg   k >= 0
//   output  [rows] bool
//
// The targets are read on the host (one small array) and checked before
// the kernel runs, so a class out of range is an error naming its row on
// every device (TF answers false there; a wrong class id is a bug in the
// caller's data, not an answer).
#include "libops/ops/metrics/in_top_k.h"

#include <cmath>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {

DeviceKernel<InTopKDeviceFn> in_top_k_device_kernel;

namespace {

Status read_shapes(const Context& block, InTopKDesc& d) {
  const NDArray& p = *block.input(0);
  const NDArray& t = *block.input(1);
  if (p.rank() != 2 || t.rank() != 1 || t.dim(0) != p.dim(0))
    return block.error(StatusCode::kInvalidArgument,
                       "predictions%s and targets%s must be [rows, classes] and [rows]", p.shape().str().c_str(),
                       t.shape().str().c_str());
  d.rows = p.dim(0);
  d.classes = p.dim(1);
  d.k = block.i_arg(0);
  return Status::ok();
}

template <typename T>
void in_top_k_cpu(const InTopKDesc& d, const T* p, const int64_t* targets, bool* z) {
  parallel_for(d.rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(d.classes, 1)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* row = p + r * d.classes;
      const T score = row[targets[r]];
      int64_t above = 0;
      for (int64_t c = 0; c < d.classes; ++c) above += row[c] > score;
      z[r] = std::isfinite(static_cast<double>(score)) && above < d.k;
    }
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(in_top_k, 2, 1, false, 0, 1) {
  using namespace libops;
  using namespace libops::ops;
  InTopKDesc d;
  RETURN_IF_ERROR(read_shapes(block, d));
  NDArray targets, p;
  RETURN_IF_ERROR(checked_int64_on_host(block, *INPUT_VARIABLE(1), "targets", "a class", 0, d.classes, targets));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (d.rows == 0) return Status::ok();
  const DataType ct = INPUT_VARIABLE(0)->dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), ct, p));  // float16 and bfloat16 widen exactly
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, DataType::kBool));
  if (!block.device().is_cpu()) {
    const InTopKDeviceFn fn = in_top_k_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, p, targets, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&p}, out.target())));
  bool* zo = out.target().data_as<bool>();
  if (ct == DataType::kFloat64) in_top_k_cpu(d, p.data_as<double>(), targets.data_as<int64_t>(), zo);
  else in_top_k_cpu(d, p.data_as<float>(), targets.data_as<int64_t>(), zo);
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(in_top_k) {
  using namespace libops;
  ops::InTopKDesc d;
  RETURN_IF_ERROR(ops::read_shapes(block, d));
  shapes.push_back(TensorShape{DataType::kBool, Dims{d.rows}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(in_top_k) {
  // On a device through the backend's kernel (in_top_k.cu).
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kInt).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kBool);
}

DECLARE_ARGS(in_top_k) {
  args.describe("Whether each row's target class is among its k highest predictions (ties in its favour).");
  args.input("predictions", "[rows, classes] scores");
  args.input("targets", "[rows] class ids in [0, classes)");
  args.output("z", "[rows] bool: fewer than k classes score strictly more than the (finite) target score");
  args.i_arg("k", "how many of the highest scores count").at_least(0);
}
