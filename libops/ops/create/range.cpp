// range and linspace: evenly spaced values (numpy.arange / numpy.linspace,
// ONNX's Range, libnd4j's range and lin_space).
//   range     start, start + delta, ... below limit (above it for a negative
//             delta): ceil((limit - start) / delta) values, none when that
//             is <= 0; delta 0 is an error
//   linspace  num values from start to stop, both included
// The arguments are t args, or scalar inputs (range: start, limit, delta;
// linspace: start, stop, num), whose dtype then gives z's unless d arg 0
// names one. Values are computed in double and rounded once to z's dtype
// (the legacy linspace kernel, on the call's device), so integer ranges
// are exact below 2^53.
#include <cmath>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {
namespace {

constexpr int64_t kMaxLength = int64_t{1} << 40;

// Arg k: the t arg, or scalar input k when the call gives inputs.
Status scalar_arg(const Context& block, int k, double& v) {
  if (block.num_inputs() == 0) {
    v = block.t_arg(k);
    return Status::ok();
  }
  const NDArray& a = *block.input(k);
  REQUIRE_TRUE(a.length() == 1, OPS_ERR_SHAPE, "input %d must hold one value, got %s", k, a.desc().str().c_str());
  if (a.buffer() && a.buffer()->host_stale()) RETURN_IF_ERROR(a.buffer()->sync_to_host());
  REQUIRE_TRUE(a.has_data(), 0, "input %d: its value is not known yet", k);
  v = a.get_double(0);
  return Status::ok();
}

DataType result_dtype(const Context& block, DataType fallback) {
  if (block.d_arg(0) != DataType::kInvalid) return block.d_arg(0);
  if (block.num_inputs() == 0) return fallback;
  DataType t = block.input(0)->dtype();
  for (int k = 1; k < block.num_inputs(); ++k) t = promote_types(t, block.input(k)->dtype());
  return t;
}

// z[i] = start + i * (stop - start) / (n - 1), through a float64 array.
Status spaced(const Context& block, double start, double stop, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  NDArray f = z;
  if (z.dtype() != DataType::kFloat64 || !z.is_c_contiguous())
    RETURN_IF_ERROR(step_array(block, DataType::kFloat64, z.shape(), f));
  RETURN_IF_ERROR(linspace_into(block, start, stop, f));
  return f.same_view(z) ? Status::ok() : assign_on_device(block, z, f);
}

Status range_length(const Context& block, double& start, double& delta, int64_t& n) {
  double limit = 0;
  RETURN_IF_ERROR(scalar_arg(block, 0, start));
  RETURN_IF_ERROR(scalar_arg(block, 1, limit));
  RETURN_IF_ERROR(scalar_arg(block, 2, delta));
  REQUIRE_TRUE(std::isfinite(start) && std::isfinite(limit) && std::isfinite(delta) && delta != 0, 0,
               "start %g, limit %g and delta %g must be finite, and delta not 0", start, limit, delta);
  const double count = std::ceil((limit - start) / delta);
  REQUIRE_TRUE(count <= static_cast<double>(kMaxLength), OPS_ERR_SHAPE,
               "start %g, limit %g and delta %g give %g values; at most %lld", start, limit, delta, count,
               static_cast<long long>(kMaxLength));
  n = count > 0 ? static_cast<int64_t>(count) : 0;
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(range, -2, 1, false, 0, 0) {
  using namespace libops;
  double start = 0, delta = 0;
  int64_t n = 0;
  RETURN_IF_ERROR(ops::range_length(block, start, delta, n));
  return ops::spaced(block, start, start + static_cast<double>(n - 1) * delta, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(range) {
  using namespace libops;
  REQUIRE_TRUE(block.num_inputs() == 0 || block.num_inputs() == 3, 0,
               "takes start, limit and delta as 3 scalar inputs or as t args, got %d inputs", block.num_inputs());
  double start = 0, delta = 0;
  int64_t n = 0;
  RETURN_IF_ERROR(ops::range_length(block, start, delta, n));
  shapes.push_back(TensorShape{ops::result_dtype(block, DataType::kFloat32), Dims{n}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(range) { descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device(); }

DECLARE_ARGS(range) {
  args.describe("Values from start by delta up to (not including) limit.");
  reads_on_host(args, "the start, limit and delta inputs when given (z's length)");
  args.optional_input("start", "scalar (with limit and delta, instead of t args)");
  args.optional_input("limit", "scalar");
  args.optional_input("delta", "scalar");
  args.output("z", "[ceil((limit - start) / delta)] values");
  args.t_arg("start", 0.0, "the first value").finite();
  args.t_arg("limit", 0.0, "the bound, not included").finite();
  args.t_arg("delta", 1.0, "the step; not 0").finite();
  args.d_arg("dtype", libops::DataType::kInvalid, "z's dtype; none = the inputs' (float32 with t args)");
}

CUSTOM_OP_IMPL(linspace, -2, 1, false, 0, 0) {
  using namespace libops;
  double start = 0, stop = 0;
  RETURN_IF_ERROR(ops::scalar_arg(block, 0, start));
  RETURN_IF_ERROR(ops::scalar_arg(block, 1, stop));
  return ops::spaced(block, start, stop, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(linspace) {
  using namespace libops;
  REQUIRE_TRUE(block.num_inputs() == 0 || block.num_inputs() == 3, 0,
               "takes start, stop and num as 3 scalar inputs or as t and i args, got %d inputs", block.num_inputs());
  double start = 0, stop = 0, num = static_cast<double>(INT_ARG(0));
  RETURN_IF_ERROR(ops::scalar_arg(block, 0, start));
  RETURN_IF_ERROR(ops::scalar_arg(block, 1, stop));
  if (block.num_inputs() == 3) RETURN_IF_ERROR(ops::scalar_arg(block, 2, num));
  REQUIRE_TRUE(std::isfinite(start) && std::isfinite(stop), 0, "start %g and stop %g must be finite", start, stop);
  REQUIRE_TRUE(num >= 0 && num <= static_cast<double>(ops::kMaxLength), 0, "num is %g: it must be in [0, 2^40]", num);
  const DataType t = block.d_arg(0) != DataType::kInvalid ? block.d_arg(0)
                     : block.num_inputs() == 3      ? float_result_type(promote_types(INPUT_VARIABLE(0)->dtype(),
                                                                                      INPUT_VARIABLE(1)->dtype()))
                                                    : DataType::kFloat32;
  shapes.push_back(TensorShape{t, Dims{static_cast<int64_t>(num)}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(linspace) { descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device(); }

DECLARE_ARGS(linspace) {
  args.describe("num values evenly spaced from start to stop, both included.");
  reads_on_host(args, "the start, stop and num inputs when given (z's length)");
  args.optional_input("start", "scalar (with stop and num, instead of t and i args)");
  args.optional_input("stop", "scalar");
  args.optional_input("num", "integer scalar");
  args.output("z", "[num] values");
  args.i_arg("num", 50, "how many values").range(0, 1099511627776.0);
  args.t_arg("start", 0.0, "the first value").finite();
  args.t_arg("stop", 1.0, "the last value").finite();
  args.d_arg("dtype", libops::DataType::kInvalid, "z's dtype; none = the inputs' float dtype (float32 with t args)");
}

DECLARE_SYN(lin_space, linspace)
