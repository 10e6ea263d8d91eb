// confusion_matrix: z[label, prediction] counts (or sums the weights of)
// each pair (TF's confusion_matrix, libnd4j's confusion_matrix).
//
//   inputs  labels [n], predictions [n] integers >= 0; weights [n],
//           optional
//   i arg   num_classes (-1: the largest label or prediction + 1); every
//           value must be below it
//   d arg   dtype of z (default int32); the weights are converted to it
//           before they are summed, as TF does
//   output  [num_classes, num_classes]
//
// Built from ops that run on the call's device: the range check and the
// class count are two reductions read back as scalars, then
// bincount(labels * num_classes + predictions) over num_classes^2 bins.
#include <utility>

#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {
namespace {

// The largest class bound that keeps num_classes^2 bins countable.
constexpr int64_t kMaxClasses = int64_t{1} << 18;

// One reduction (min or max) of an integer vector, read back to the host.
Status reduced_value(const Context& block, legacy::ReduceSameOp op, const NDArray& v, int64_t& out) {
  NDArray v64, m;
  RETURN_IF_ERROR(dense_on_device(block, v, DataType::kInt64, v64));
  RETURN_IF_ERROR(reduced_to_host(block, static_cast<int>(op), v64, m));
  out = m.get_int64(0);
  return Status::ok();
}

// Checks the inputs and finds the class count. Reads two or four scalars
// back from the device (none for empty inputs).
Status count_classes(const Context& block, int64_t& classes) {
  const NDArray& labels = *block.input(0);
  const NDArray& preds = *block.input(1);
  if (labels.rank() != 1 || preds.shape() != labels.shape())
    return block.error(StatusCode::kInvalidArgument, "labels%s and predictions%s must be vectors of one length",
                       labels.shape().str().c_str(), preds.shape().str().c_str());
  if (block.num_inputs() > 2 && block.input(2)->shape() != labels.shape())
    return block.error(StatusCode::kInvalidArgument, "weights%s must have labels%s's shape",
                       block.input(2)->shape().str().c_str(), labels.shape().str().c_str());
  const int64_t given = block.i_arg(0);
  if (!labels.has_data() || !preds.has_data()) {  // a shape-only call: the count must be given
    if (given < 0)
      return block.error(StatusCode::kInvalidArgument,
                         "labels and predictions: their values are not known yet (without num_classes they give the "
                         "output's size)");
    classes = given;
    return Status::ok();
  }
  int64_t top = -1;
  const std::pair<const char*, const NDArray*> vectors[] = {{"labels", &labels}, {"predictions", &preds}};
  for (const auto& [name, v] : vectors) {
    if (v->length() == 0) continue;
    int64_t lo = 0, hi = 0;
    RETURN_IF_ERROR(reduced_value(block, legacy::ReduceSameOp::min, *v, lo));
    RETURN_IF_ERROR(reduced_value(block, legacy::ReduceSameOp::max, *v, hi));
    if (lo < 0)
      return block.error(StatusCode::kInvalidArgument, "%s hold %lld: classes are >= 0", name, static_cast<long long>(lo));
    if (given >= 0 && hi >= given)
      return block.error(StatusCode::kInvalidArgument, "%s hold %lld: classes must be below num_classes %lld", name,
                         static_cast<long long>(hi), static_cast<long long>(given));
    top = std::max(top, hi);
  }
  classes = given >= 0 ? given : top + 1;
  if (classes > kMaxClasses)
    return block.error(StatusCode::kInvalidArgument, "%lld classes: at most %lld (the matrix has classes^2 entries)",
                       static_cast<long long>(classes), static_cast<long long>(kMaxClasses));
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(confusion_matrix, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  int64_t classes = 0;
  RETURN_IF_ERROR(count_classes(block, classes));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& labels = *INPUT_VARIABLE(0);
  if (labels.length() == 0) {  // no pairs: all zeros
    NDArray zero;
    RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(z->dtype(), 0.0, zero)));
    return assign_on_device(block, *z, zero);
  }
  // The pair's bin: label * classes + prediction, in int64.
  NDArray l64, p64, n, row, bin;
  RETURN_IF_ERROR(dense_on_device(block, labels, DataType::kInt64, l64));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), DataType::kInt64, p64));
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(DataType::kInt64, static_cast<double>(classes), n)));
  RETURN_IF_ERROR(run_nested(block, "multiply", {&l64, &n}, {}, row));
  RETURN_IF_ERROR(run_nested(block, "add", {&row, &p64}, {.inplace = true}, bin));
  const int64_t bins = classes * classes;
  NDArray counts, flat;
  if (block.num_inputs() > 2) {
    NDArray w;
    RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(2), z->dtype(), w));
    RETURN_IF_ERROR(run_nested(block, "bincount", {&bin, &w}, {.i = {bins, bins}}, counts));
  } else {
    RETURN_IF_ERROR(run_nested(block, "bincount", {&bin}, {.i = {bins, bins}}, counts));
  }
  RETURN_IF_ERROR(with_op_name(block, counts.reshape(Dims{classes, classes}, flat)));
  return assign_on_device(block, *z, flat);
}

DECLARE_SHAPE_FN(confusion_matrix) {
  using namespace libops;
  int64_t classes = 0;
  RETURN_IF_ERROR(ops::count_classes(block, classes));
  shapes.push_back(TensorShape{block.d_arg(0), Dims{classes, classes}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(confusion_matrix) {
  // Built from reductions, multiply, add and bincount on the call's device.
  descriptor.allow_input(0, libops::types::kInt).allow_input(1, libops::types::kInt)
      .allow_input(2, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kNumeric);
}

DECLARE_ARGS(confusion_matrix) {
  args.describe("Counts (or weight sums) of each (label, prediction) pair in a [classes, classes] matrix.");
  reads_on_host(args, "the smallest and largest label and prediction (z's extent, or checked against num_classes)");
  args.input("labels", "[n] integers >= 0");
  args.input("predictions", "[n] integers >= 0");
  args.optional_input("weights", "[n]; converted to z's dtype, then summed per pair (else each pair counts 1)");
  args.output("z", "[num_classes, num_classes]: row = label, column = prediction");
  args.i_arg("num_classes", -1, "the class count; -1: the largest label or prediction + 1").at_least(-1);
  args.d_arg("dtype", libops::DataType::kInt32, "z's dtype");
}
