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

#include "libops/ops/loss/loss_formula.h"

namespace libops::ops {
namespace {

Status log_poisson_losses(Context& block) {
  auto basic = [](auto c, auto z) { return exp(c) - z * c; };
  if (block.i_arg(1) == 0) return elementwise_loss_run(block, basic);
  return elementwise_loss_run(block, [basic](auto c, auto z) {
    return basic(c, z) + ((z * log(z) - z) + log(z * (2.0 * std::numbers::pi)) * 0.5);
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(log_poisson_loss, 3, 1, false, 0, 1) {
  return libops::ops::log_poisson_losses(block);
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
