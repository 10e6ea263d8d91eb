#include "libops/ops/elementwise/elementwise.h"

#include <memory>
#include <string>

#include "libops/legacy/legacy.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/registry.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

// Groups whose kernels take floats only: integer inputs are converted first.
bool float_only(const ElementwiseDef& d) {
  return d.result == ElementwiseResult::kFloat || d.result == ElementwiseResult::kPromotedFloat;
}

DataType result_dtype(const ElementwiseDef& d, DataType x, DataType y) {
  switch (d.result) {
    case ElementwiseResult::kSame: return x;
    case ElementwiseResult::kFloat: return float_result_type(x);
    case ElementwiseResult::kBool: return DataType::kBool;
    case ElementwiseResult::kPromoted: return promote_types(x, y);
    case ElementwiseResult::kPromotedFloat: return float_result_type(promote_types(x, y));
  }
  return x;
}

// `a` converted to `dt` into a new dense array, on the call's device.
Status converted(const Context& block, const NDArray& a, DataType dt, NDArray& out) {
  NDArray tmp;
  RETURN_IF_ERROR(NDArray::create(dt, a.shape(), 'c', tmp));
  RETURN_IF_ERROR(assign_on_device(block, tmp, a));
  out = std::move(tmp);
  return Status::ok();
}

}  // namespace

ElementwiseOp::ElementwiseOp(const ElementwiseDef& def)
    : DeclarableOp(def.name, OpKind::kCustom, def.arity, 1, true, 0, 0), def_(def) {}

void ElementwiseOp::declare_types(OpDescriptor& descriptor) {
  descriptor.allow_inputs(def_.inputs).runs_on_any_device();
}

void ElementwiseOp::declare_args(OpSignature& args) {
  args.describe(def_.summary);
  if (def_.arity == 1) {
    args.input("x", "the array");
  } else {
    args.input("x", "left operand");
    args.input("y", "right operand, broadcast against x (Note [Broadcasting])");
  }
  static const char* const kResults[] = {"x's dtype", "x's float dtype (integers give float32)", "bool",
                                         "the promoted dtype of x and y", "the promoted float dtype of x and y"};
  args.output("z", kResults[static_cast<int>(def_.result)]);
  for (int k = 0; k < def_.n_params; ++k) {
    const ElementwiseParam& p = def_.params[k];
    ArgSpec& a = args.t_arg(p.name, p.default_value, p.doc).finite();
    if (p.positive) a.positive();
  }
}

Status ElementwiseOp::calculate_output_shape(Context& block, ShapeList& shapes) {
  const NDArray& x = *block.input(0);
  if (def_.arity == 1) {
    shapes.push_back(TensorShape{result_dtype(def_, x.dtype(), x.dtype()), x.shape(), 'c'});
    return Status::ok();
  }
  const NDArray& y = *block.input(1);
  TensorShape out;
  out.dtype = result_dtype(def_, x.dtype(), y.dtype());
  RETURN_IF_ERROR(broadcast_shapes(block.op_name(), x.shape(), y.shape(), out.dims));
  shapes.push_back(out);
  return Status::ok();
}

Status ElementwiseOp::validate_and_execute(Context& block) {
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  NDArray x = *block.input(0);
  NDArray y = def_.arity == 2 ? *block.input(1) : NDArray();
  // Integers into float kernels: in z's float dtype (Note [Element-wise
  // result dtypes]); the promoted float dtype for both sides of a binary op.
  if (float_only(def_)) {
    if (!dtype_is_float(x.dtype())) RETURN_IF_ERROR(converted(block, x, z->dtype(), x));
    if (def_.arity == 2 && !dtype_is_float(y.dtype())) RETURN_IF_ERROR(converted(block, y, z->dtype(), y));
  }
  legacy::LegacyCall call;
  call.group = def_.group;
  call.num = def_.num;
  // Note [Element-wise parameters]: the t args (resolved, so every
  // declared one is there) as extra params or as the scalar y.
  if (def_.n_params > 0 && def_.param_use == ElementwiseParamUse::kScalarY) {
    RETURN_IF_ERROR(NDArray::scalar(float_result_type(x.dtype()) == DataType::kFloat64 ? DataType::kFloat64
                                                                                       : DataType::kFloat32,
                                    block.t_arg(0), y));
  } else {
    for (int k = 0; k < def_.n_params; ++k) call.extra.v[call.extra.n++] = block.t_arg(k);
  }
  call.x = &x;
  call.y = def_.arity == 2 || !y.is_null() ? &y : nullptr;
  call.z = z;
  call.device = block.device();
  Status s = legacy::exec(call);
  // The legacy layer names its own op; say which custom op called it.
  return s.is_ok() ? s : s.with_prefix(std::string(block.op_name()) + ": ");
}

ElementwiseTableRegistrar::ElementwiseTableRegistrar(const ElementwiseDef* defs, int count) {
  for (int k = 0; k < count; ++k) {
    OpRegistry::instance().add(std::make_unique<ElementwiseOp>(defs[k]), defs[k].aliases);
    declare_op_pattern(defs[k].name, defs[k].arity == 1 ? OpPattern::kElementwise : OpPattern::kBroadcast);
  }
}

}  // namespace libops::ops
