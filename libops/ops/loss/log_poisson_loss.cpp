// log_poisson_loss: libnd4j's (generic/loss/log_poisson_loss.cpp) and
// TensorFlow's tf.nn.log_poisson_loss, weighted and reduced. Inputs
// (log_predictions, weights, labels), labels of log_predictions' shape;
// i arg 0 the reduction (Note [Loss reduction] in loss_common.h); i arg 1
// full, as libnd4j takes it (not a b arg). Per element, c = log_predictions
// and z = labels:
//   L = exp(c) - z * c
// and with full, Stirling's approximation of log(z!) added:
//   + z * log(z) - z + 0.5 * log(2 * pi * z)
// libnd4j adds that term at every element, so a label 0 gives NaN
// (0 * log 0); TensorFlow adds it only where z > 1. This op does as libnd4j.
#include <numbers>

#include "libops/ops/loss/loss_common.h"

namespace libops::ops {
namespace {

Status log_poisson_losses(const Context& block, const NDArray& c, const NDArray& z, NDArray& losses) {
  NDArray rate, zc, basic;
  RETURN_IF_ERROR(run_nested(block, "exp", {&c}, {}, rate));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&z, &c}, {}, zc));
  if (block.i_arg(1) == 0) return run_nested(block, "subtract", {&rate, &zc}, {}, losses);
  RETURN_IF_ERROR(run_nested(block, "subtract", {&rate, &zc}, {}, basic));
  const DataType dt = c.dtype();
  NDArray two_pi, half, log_z, z_log_z, less_z, two_pi_z, log_2pi_z, half_log, stirling;
  RETURN_IF_ERROR(loss_scalar(block, dt, 2.0 * std::numbers::pi, two_pi));
  RETURN_IF_ERROR(loss_scalar(block, dt, 0.5, half));
  RETURN_IF_ERROR(run_nested(block, "log", {&z}, {}, log_z));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&z, &log_z}, {}, z_log_z));
  RETURN_IF_ERROR(run_nested(block, "subtract", {&z_log_z, &z}, {}, less_z));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&two_pi, &z}, {}, two_pi_z));
  RETURN_IF_ERROR(run_nested(block, "log", {&two_pi_z}, {}, log_2pi_z));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&log_2pi_z, &half}, {}, half_log));
  RETURN_IF_ERROR(run_nested(block, "add", {&less_z, &half_log}, {}, stirling));
  return run_nested(block, "add", {&basic, &stirling}, {}, losses);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(log_poisson_loss, 3, 1, false, 0, 1) {
  return libops::ops::elementwise_loss_run(block, libops::ops::log_poisson_losses);
}
DECLARE_SHAPE_FN(log_poisson_loss) { return libops::ops::elementwise_loss_shape(block, "log_predictions", shapes); }
DECLARE_TYPES(log_poisson_loss) {
  libops::ops::loss_weighted_types(descriptor, false);
  descriptor.runs_on_any_device();  // nested ops on the call's device
}
DECLARE_ARGS(log_poisson_loss) {
  args.describe("Weighted Poisson negative log-likelihood exp(c) - z c of log-rates c, reduced (libnd4j's "
                "log_poisson_loss).");
  libops::ops::loss_weighted_io(args, "log_predictions", "the logs of the predicted rates",
                                "the observed counts, log_predictions' shape");
  libops::ops::loss_reduction_arg(args);
  args.i_arg("full", 0, "add Stirling's approximation of log(labels!) (NaN where a label is 0, as libnd4j)").flag();
}
