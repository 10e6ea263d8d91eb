// The element-wise losses, each one formula (Note [Loss formulas]).
//
// Note [Loss formulas]
// An element-wise loss (labels of x's shape, L = f(x, labels) element by
// element) is written once, as a generic lambda over two values (Note [Op
// formulas] in libops/ops/formula.h):
//   [](auto p, auto y) { return abs(p - y); }
// elementwise_loss_run evaluates it as formula_into does, and on the CPU
// also folds the weighting and the reduction into the one pass: the
// per-example losses, times the weights, and for reductions 1 to 3 their
// sum, with no temporary array. Huber's loss was ten nested calls and nine
// temporaries the size of x; log loss eleven. On other devices the losses
// come from the nested ops, then loss_reduce_into.
#pragma once

#include "libops/ops/formula.h"
#include "libops/ops/loss/loss_common.h"

namespace libops::ops {

template <typename Formula>
Status elementwise_loss_run(Context& block, const Formula& losses_of) {
  const NDArray& labels = *block.input(2);
  const LossShape shape{labels.shape(), {}};
  NDArray* z = block.output(0);
  const DataType dt = z->dtype();
  const auto mode = static_cast<LossReduction>(block.i_arg(0));
  if (!formula_by_expression(block)) {
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
    const DataType ct = formula_compute_dtype(dt);
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
  return formula_compute_dtype(dt) == DataType::kFloat64 ? run(double{}) : run(float{});
}

}  // namespace libops::ops
