// What libnd4j's loss ops (libnd4j/include/ops/declarable/headers/loss.h)
// share: their inputs, the weights against the per-example losses, and the
// four reductions. Each op file computes its losses L with nested ops
// (nested_call.h) and hands them to loss_reduce_into.
//
// Note [Loss reduction]
// A weighted loss takes (x, weights, labels), x being predictions, logits or
// log-predictions by the op, computes per-example losses L and reduces
// E = L * weights (weights broadcast against L) by i arg 0, as libnd4j does:
//   0 none                    E itself, of L's shape
//   1 sum                     sum(E)
//   2 mean_by_weight          sum(E) / the sum of the weights broadcast to
//                             L's shape; 0 when that sum is 0
//   3 mean_by_nonzero_weight  sum(E) / the number of nonzero weights broadcast
//                             to L's shape; 0 when there are none
// Weights are one value (an array of one element, of any rank: libnd4j's
// tests give [1, 1]) or have L's rank, each extent L's or 1. Ops whose L
// lacks axes of the labels (softmax_cross_entropy_loss drops the classes,
// mean_pairwssqerr_loss all but the batch) also take weights of the labels'
// rank with extent 1 on those axes, as libnd4j's calls give them.
// Broadcasting repeats each weight L.length / weights.length times, so modes
// 2 and 3 count the weights themselves and scale: no broadcast array is made.
// Everything is computed in the float dtype of input 0 (float_result_type:
// integers give float32), the dtype of the output, on the call's device.
#pragma once

#include "libops/ops/declarable_op.h"
#include "libops/ops/nested_call.h"

namespace libops::ops {

enum class LossReduction : int64_t { kNone = 0, kSum = 1, kMeanByWeight = 2, kMeanByNonzeroWeight = 3 };

// The shape of an op's per-example losses, and the axes of the labels it
// lacks (sorted; empty when L has the labels' rank).
struct LossShape {
  Dims loss;
  Dims dropped;
};

// i arg 0, the reduction of Note [Loss reduction].
void loss_reduction_arg(OpSignature& args);
// The inputs (x, weights, labels) and the output of a weighted loss.
void loss_weighted_io(OpSignature& args, const char* x, const char* x_doc, const char* labels_doc);
// The dtypes of a weighted loss: numbers; x floats only when `float_x`. Each
// op also declares runs_on_any_device: its nested ops run on the call's device.
void loss_weighted_types(OpDescriptor& descriptor, bool float_x);

// "labels[2,4] must have predictions[2,3]'s shape" unless they agree.
Status loss_check_same_shape(const Context& block, const NDArray& labels, const char* x_name);
// Whether weights (input 1) broadcast against `shape` (Note [Loss reduction]).
Status loss_check_weights(const Context& block, const LossShape& shape);
// Output 0: L's shape for reduction 0, else a scalar; x's float dtype.
void loss_output_shape(const Context& block, const LossShape& shape, ShapeList& shapes);

// `a` as dtype `dt`: itself when it is, else a copy converted on the call's device.
Status loss_as_dtype(const Context& block, const NDArray& a, DataType dt, NDArray& out);
// A scalar `value` of dtype `dt`, for nested calls.
Status loss_scalar(const Context& block, DataType dt, double value, NDArray& out);

// The weights (input 1) in dtype `dt`, shaped to broadcast against L.
Status loss_weights(const Context& block, const LossShape& shape, DataType dt, NDArray& w);

// Output 0 = the reduction (i arg 0) of losses * weights (input 1), where
// `losses` has shape.loss in the output's dtype.
Status loss_reduce_into(Context& block, const NDArray& losses, const LossShape& shape);
// Output 0 = the mean of modes 2 and 3: `total` (the sum of the weighted
// losses, a scalar) over the weights `w` (loss_weights, output's dtype)
// summed or counted, 0 where that is 0.
Status loss_mean_into(Context& block, const NDArray& total, const NDArray& w, const LossShape& shape);

// The elementwise losses (absolute difference, squared error, huber, log,
// hinge, log-Poisson, sigmoid cross-entropy) are one formula each, run by
// elementwise_loss_run (loss_formula.h); their shape function:
Status elementwise_loss_shape(Context& block, const char* x_name, ShapeList& shapes);

}  // namespace libops::ops
