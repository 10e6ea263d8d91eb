// log_loss: libnd4j's (generic/loss/logLoss.cpp) and TensorFlow's
// tf.losses.log_loss. Inputs (predictions, weights, labels), labels of
// predictions' shape, predictions probabilities in [0, 1]; i arg 0 the
// reduction (Note [Loss reduction] in loss_common.h); t arg 0 epsilon,
// which keeps the logs finite (libnd4j's calls always give it; TensorFlow's
// default 1e-7 when they do not). Per element, as libnd4j:
//   L = -labels * log(p + epsilon) - (1 - labels) * log(1 - p + epsilon)
#include "libops/ops/loss/loss_common.h"

namespace libops::ops {
namespace {

Status log_losses(const Context& block, const NDArray& p, const NDArray& y, NDArray& losses) {
  const DataType dt = p.dtype();
  const double eps = block.t_arg(0);
  NDArray eps_s, one_eps, one, p_eps, log_p, q_eps, log_q, not_y, hit, miss, sum;
  RETURN_IF_ERROR(loss_scalar(block, dt, eps, eps_s));
  RETURN_IF_ERROR(loss_scalar(block, dt, 1.0 + eps, one_eps));
  RETURN_IF_ERROR(loss_scalar(block, dt, 1.0, one));
  RETURN_IF_ERROR(run_nested(block, "add", {&p, &eps_s}, {}, p_eps));
  RETURN_IF_ERROR(run_nested(block, "log", {&p_eps}, {}, log_p));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&one_eps, &p}, {}, q_eps));
  RETURN_IF_ERROR(run_nested(block, "log", {&q_eps}, {}, log_q));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&one, &y}, {}, not_y));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&y, &log_p}, {}, hit));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&not_y, &log_q}, {}, miss));
  RETURN_IF_ERROR(run_nested(block, "add", {&hit, &miss}, {}, sum));
  return run_nested(block, "neg", {&sum}, {}, losses);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(log_loss, 3, 1, false, 0, 1) { return libops::ops::elementwise_loss_run(block, libops::ops::log_losses); }
DECLARE_SHAPE_FN(log_loss) { return libops::ops::elementwise_loss_shape(block, "predictions", shapes); }
DECLARE_TYPES(log_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(log_loss) {
  args.describe("Weighted binary cross-entropy of probabilities, reduced (libnd4j's log_loss).");
  libops::ops::loss_weighted_io(args, "predictions", "probabilities in [0, 1]",
                                "the true values (0 or 1, or in between), predictions' shape");
  libops::ops::loss_reduction_arg(args);
  args.t_arg("epsilon", 1e-7, "added inside each log, keeping it finite").at_least(0).finite();
}
