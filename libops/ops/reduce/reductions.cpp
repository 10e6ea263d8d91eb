// The reductions that are one legacy reduce kernel each, a row per op (the
// functors and their NaN, empty and integer rules are in
// libops/legacy/ops/reduce_ops.h, index_reduce_ops.h and
// summary_stats_ops.h). Every row takes the signature of reduce_common.h;
// variance and standard deviation add b arg 1, bias_corrected.
//
// Result dtypes: kSame keeps x's (sum, prod, min, max: integer sums
// accumulate in 64 bits and wrap only on store); kFloat gives
// float_result_type(x) (mean, norms, variance: integers give float32);
// kBool and kInt64 are what their names say. An empty reduction gives the
// op's identity (0 for sum, 1 for prod, -inf/+inf or the integer extremes
// for max/min, NaN for mean and variance); argmax and argmin over an empty
// axis are an error, as in numpy.
#include <memory>
#include <string>
#include <vector>

#include "libops/legacy/ops/index_reduce_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/ops/summary_stats_ops.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/registry.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

enum class ReductionResult { kSame, kFloat, kBool, kInt64 };

struct ReductionDef {
  const char* name;
  ops_legacy_group_t group;
  int num;
  TypeSet inputs;
  ReductionResult result;
  bool bias_arg;  // variance, stdev: b arg 1 bias_corrected
  const char* summary;
  const char* aliases;  // space-separated
};

using legacy::IndexReduceOp;
using legacy::ReduceBoolOp;
using legacy::ReduceFloatOp;
using legacy::ReduceLongOp;
using legacy::ReduceSameOp;
using legacy::SummaryStatsOp;
using R = ReductionResult;

constexpr TypeSet kNum = types::kNumeric;

constexpr ReductionDef same(const char* name, ReduceSameOp op, const char* summary, const char* aliases) {
  return {name, OPS_REDUCE_SAME, static_cast<int>(op), kNum, R::kSame, false, summary, aliases};
}
constexpr ReductionDef to_float(const char* name, ReduceFloatOp op, const char* summary, const char* aliases) {
  return {name, OPS_REDUCE_FLOAT, static_cast<int>(op), kNum, R::kFloat, false, summary, aliases};
}

const ReductionDef kReductions[] = {
    same("reduce_sum", ReduceSameOp::sum, "Sum over axes; an empty reduction gives 0.", "sum"),
    same("reduce_prod", ReduceSameOp::prod, "Product over axes; an empty reduction gives 1.", "prod"),
    same("reduce_max", ReduceSameOp::max, "Maximum over axes; NaN wins.", "reduce_amax"),
    same("reduce_min", ReduceSameOp::min, "Minimum over axes; NaN wins.", "reduce_amin"),
    to_float("reduce_mean", ReduceFloatOp::mean, "Mean over axes; integers give float32.", "mean"),
    to_float("reduce_norm1", ReduceFloatOp::norm1, "Sum of |x| over axes.", "norm1"),
    to_float("reduce_norm2", ReduceFloatOp::norm2, "Euclidean norm sqrt(sum x^2) over axes.", "norm2"),
    to_float("reduce_norm_max", ReduceFloatOp::norm_max, "Maximum of |x| over axes.", "norm_max"),
    to_float("reduce_sqnorm", ReduceFloatOp::squared_norm, "Sum of x^2 over axes.", "squared_norm"),
    {"reduce_variance", OPS_SUMMARY_STATS, static_cast<int>(SummaryStatsOp::variance), kNum, R::kFloat, true,
     "Variance over axes: mean squared deviation, over n - 1 when bias_corrected.", "variance"},
    {"reduce_stdev", OPS_SUMMARY_STATS, static_cast<int>(SummaryStatsOp::standard_deviation), kNum, R::kFloat, true,
     "Standard deviation over axes, over n - 1 when bias_corrected.", "standard_deviation std"},
    {"reduce_any", OPS_REDUCE_BOOL, static_cast<int>(ReduceBoolOp::any), types::kAny, R::kBool, false,
     "Whether any element over the axes is nonzero (NaN counts).", "any"},
    {"reduce_all", OPS_REDUCE_BOOL, static_cast<int>(ReduceBoolOp::all), types::kAny, R::kBool, false,
     "Whether every element over the axes is nonzero; true for an empty reduction.", "all"},
    {"count_nonzero", OPS_REDUCE_LONG, static_cast<int>(ReduceLongOp::count_nonzero), types::kAny, R::kInt64, false,
     "Number of nonzero elements over axes, as int64.", ""},
    {"count_zero", OPS_REDUCE_LONG, static_cast<int>(ReduceLongOp::count_zero), types::kAny, R::kInt64, false,
     "Number of zero elements over axes, as int64.", ""},
    {"argmax", OPS_INDEX_REDUCE, static_cast<int>(IndexReduceOp::index_max), kNum, R::kInt64, false,
     "Index of the largest element over axes (C order within them), int64; first on ties, NaN wins.", "arg_max"},
    {"argmin", OPS_INDEX_REDUCE, static_cast<int>(IndexReduceOp::index_min), kNum, R::kInt64, false,
     "Index of the smallest element over axes (C order within them), int64; first on ties, NaN wins.", "arg_min"},
    {"argamax", OPS_INDEX_REDUCE, static_cast<int>(IndexReduceOp::index_absolute_max), kNum, R::kInt64, false,
     "Index of the largest |x| over axes, int64; first on ties, NaN wins.", ""},
    {"argamin", OPS_INDEX_REDUCE, static_cast<int>(IndexReduceOp::index_absolute_min), kNum, R::kInt64, false,
     "Index of the smallest |x| over axes, int64; first on ties, NaN wins.", ""},
};

DataType result_dtype(const ReductionDef& d, DataType x) {
  switch (d.result) {
    case R::kSame: return x;
    case R::kFloat: return float_result_type(x);
    case R::kBool: return DataType::kBool;
    case R::kInt64: return DataType::kInt64;
  }
  return x;
}

class ReductionOp final : public DeclarableOp {
 public:
  explicit ReductionOp(const ReductionDef& def)
      : DeclarableOp(def.name, OpKind::kReduction, -1, 1, false, 0, 0), def_(def) {}

 protected:
  void declare_types(OpDescriptor& descriptor) override {
    descriptor.allow_input(0, def_.inputs).runs_on_any_device();
    descriptor.allow_input(1, types::kInt);
  }

  void declare_args(OpSignature& args) override {
    static const char* const kResults[] = {"the reduction, in x's dtype", "the reduction, in x's float dtype",
                                           "the reduction, bool", "the reduction, int64"};
    args.describe(def_.summary);
    reduction_args(args, kResults[static_cast<int>(def_.result)]);
    if (def_.bias_arg) args.b_arg("bias_corrected", false, "divide by n - 1 rather than n");
    if (def_.group != OPS_INDEX_REDUCE)
      args.b_arg("noop_with_empty_axes", false,
                 "an empty axes input reduces no axis (ONNX's noop_with_empty_axes): each element is reduced alone, "
                 "so z has x's shape (sum, max: x; norm1, norm2: |x|; sqnorm: x^2) instead of reducing every axis");
  }

  // ONNX's noop_with_empty_axes: an axes input given, and empty, reduces
  // over no axis, each element alone (its b arg follows bias_corrected
  // where there is one). Not a copy of x: ONNX Runtime and ONNX's reference
  // give |x| for ReduceL1 and ReduceL2, x^2 for ReduceSumSquare.
  bool noop(const Context& block) const {
    return def_.group != OPS_INDEX_REDUCE && block.b_arg(def_.bias_arg ? 2 : 1) && block.num_inputs() > 1 &&
           block.input(1)->length() == 0;
  }

  Status calculate_output_shape(Context& block, ShapeList& shapes) override {
    const NDArray& x = *block.input(0);
    if (noop(block)) {
      shapes.push_back(TensorShape{result_dtype(def_, x.dtype()), x.shape(), 'c'});
      return Status::ok();
    }
    Dims axes;
    RETURN_IF_ERROR(reduction_axes(block, axes));
    const Dims out = reduced_shape(x.shape(), axes, block.b_arg(0));
    if (def_.group == OPS_INDEX_REDUCE && x.length() == 0 && out.product() > 0)
      return block.error(StatusCode::kShape, "x%s has no elements along axes %s to take the %s of",
                         x.shape().str().c_str(), axes.str().c_str(), def_.name);
    shapes.push_back(TensorShape{result_dtype(def_, x.dtype()), out, 'c'});
    return Status::ok();
  }

  Status validate_and_execute(Context& block) override {
    ExtraParams extra;
    if (def_.bias_arg) {
      const double bias_corrected = block.b_arg(1) ? 1.0 : 0.0;  // summary_stats_ops.h reads extra[0]
      extra = ExtraParams::from(&bias_corrected, 1);
    }
    const NDArray& x = *block.input(0);
    if (noop(block)) {
      // Each element alone: x with a trailing unit axis, reduced over it.
      NDArray unit;
      RETURN_IF_ERROR(x.expand_dims(x.rank(), unit));
      return reduce_into(block, def_.group, def_.num, unit, Dims{x.rank()}, *block.output(0), extra);
    }
    Dims axes;
    RETURN_IF_ERROR(reduction_axes(block, axes));
    return reduce_into(block, def_.group, def_.num, x, axes, *block.output(0), extra);
  }

 private:
  const ReductionDef& def_;
};

struct RegisterReductions {
  RegisterReductions() {
    for (const ReductionDef& d : kReductions) {
      OpRegistry::instance().add(std::make_unique<ReductionOp>(d), d.aliases);
      declare_op_pattern(d.name, OpPattern::kReduction);
    }
  }
} const kRegister;

}  // namespace

std::vector<std::string> reduction_op_names() {
  std::vector<std::string> v;
  for (const ReductionDef& d : kReductions) v.emplace_back(d.name);
  return v;
}

}  // namespace libops::ops
