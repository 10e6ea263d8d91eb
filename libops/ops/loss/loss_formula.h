// The element-wise losses, each one formula (Note [Loss formulas]).
//
// Note [Loss formulas]
// An element-wise loss (labels of x's shape, L = f(x, labels) element by
// element) is written once, as a generic lambda over two values:
//   [](auto p, auto y) { return abs(p - y); }
// elementwise_loss_run evaluates it two ways from that one text:
// - on the CPU as an expression (libops/expr/expr.h): the per-example
//   losses, times the weights, and for reductions 1 to 3 their sum, in one
//   pass over x and the labels with no temporary array. Huber's loss was
//   ten nested calls and nine temporaries the size of x; log loss eleven.
//   It computes in float32 (float64 for float64 outputs; float16 and
//   bfloat16 inputs are widened first and the result rounded once);
// - on other devices as nested op calls on the call's device (NestedValue,
//   nested_value.h), each operator one op, then loss_reduce_into.
// Functions the formulas use must exist for both: the operators, unary -,
// abs, square, exp, log, log1p, min and max (NaN-propagating, as the
// legacy rows and the maximum / minimum ops are). Numbers are scalars of
// the compute dtype on either path.
#pragma once

#include "libops/expr/expr.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/loss/loss_common.h"
#include "libops/ops/nested_value.h"

namespace libops::ops {

// Tests set this to take the other devices' path (nested ops) on the CPU,
// so that each formula's nested form is checked where no device is.
inline thread_local bool losses_as_nested_ops = false;

template <typename Formula>
Status elementwise_loss_run(Context& block, const Formula& losses_of) {
  const NDArray& labels = *block.input(2);
  const LossShape shape{labels.shape(), {}};
  NDArray* z = block.output(0);
  const DataType dt = z->dtype();
  const auto mode = static_cast<LossReduction>(block.i_arg(0));
  if (!block.device().is_cpu() || losses_as_nested_ops) {
    NDArray x, y;
    RETURN_IF_ERROR(loss_as_dtype(block, *block.input(0), dt, x));
    RETURN_IF_ERROR(loss_as_dtype(block, labels, dt, y));
    Status status;
    const NestedValue losses = losses_of(NestedValue(block, x, status), NestedValue(block, y, status));
    RETURN_IF_ERROR(status);
    return loss_reduce_into(block, losses.array(), shape);
  }
  if (mode == LossReduction::kNone && z->length() == 0) return Status::ok();
  auto run = [&](auto tag) -> Status {
    using C = decltype(tag);
    const DataType ct = std::is_same_v<C, double> ? DataType::kFloat64 : DataType::kFloat32;
    NDArray x, y, w;
    RETURN_IF_ERROR(loss_as_dtype(block, *block.input(0), ct, x));
    RETURN_IF_ERROR(loss_as_dtype(block, labels, ct, y));
    RETURN_IF_ERROR(loss_weights(block, shape, ct, w));
    const auto weighted = losses_of(expr::in<C>(x), expr::in<C>(y)) * expr::in<C>(w);
    if (mode == LossReduction::kNone) return with_op_name(block, (expr::out(*z) = weighted).run());
    NDArray total;
    RETURN_IF_ERROR(with_op_name(block, NDArray::create(dt, Dims{}, 'c', total)));
    RETURN_IF_ERROR(with_op_name(block, (expr::out(total) = expr::sum(weighted)).run()));
    if (mode == LossReduction::kSum) return assign_on_device(block, *z, total);
    NDArray w_out;
    RETURN_IF_ERROR(loss_weights(block, shape, dt, w_out));
    return loss_mean_into(block, total, w_out, shape);
  };
  return dt == DataType::kFloat64 ? run(double{}) : run(float{});
}

}  // namespace libops::ops
