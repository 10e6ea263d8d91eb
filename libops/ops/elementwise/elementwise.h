// Element-wise custom ops that are one legacy kernel each: the unary math
// set (unary_ops.cpp) and the broadcasting binary set (binary_ops.cpp). Each
// op is one row of a table, not a file: an ElementwiseDef names the op, its
// legacy (group, number), the dtypes it takes and the dtype it gives, and
// ElementwiseOp gives all of them one signature, shape function and body.
// They run on every device the legacy tables do.
//
// Note [Element-wise result dtypes]
//   kSame           x's dtype (abs, floor, ...; integers stay integers)
//   kFloat          float_result_type(x): floats keep theirs, integers give
//                   float32 (sqrt, exp, sin, ...: integers are converted
//                   to float32 first, on the call's device, as numpy and
//                   PyTorch do)
//   kBool           bool (is_nan, comparisons, logical ops)
//   kPromoted       promote_types(x, y) (Note [Type promotion])
//   kPromotedFloat  float_result_type(promote_types(x, y)) (atan2, ...)
#pragma once

#include "libops/c_types.h"
#include "libops/ops/declarable_op.h"

namespace libops::ops {

enum class ElementwiseResult { kSame, kFloat, kBool, kPromoted, kPromotedFloat };

// Note [Element-wise parameters]
// A unary row may take float parameters (leaky_relu's alpha, selu's alpha
// and gamma): each one is an optional t arg of the op, in order, declared
// with its default, finite, and > 0 where `positive`. How they reach the
// kernel:
//   kExtra    all of them as the legacy call's extra params, extra[k] = t
//             arg k (a transform group; the functor reads e.get(k, ...))
//   kScalarY  t arg 0 as the scalar y of a scalar-group kernel, in x's
//             compute dtype (float, or double for float64): the binary
//             functors that take their parameter as y (leaky_relu's alpha,
//             relu's threshold)
struct ElementwiseParam {
  const char* name;
  double default_value;
  const char* doc;
  bool positive = false;
};
enum class ElementwiseParamUse { kExtra, kScalarY };

struct ElementwiseDef {
  const char* name;
  int arity;                  // 1: z = f(x); 2: z = f(x, y) with broadcasting
  ops_legacy_group_t group;   // a transform group (arity 1) or a pairwise group (arity 2)
  int num;                    // the op's number in that group
  TypeSet inputs;             // accepted dtypes of x (and y)
  ElementwiseResult result;
  const char* summary;        // one line: what z is
  const char* aliases;        // space-separated other names ("" for none)
  // Note [Element-wise parameters]; none by default.
  const ElementwiseParam* params = nullptr;
  int n_params = 0;
  ElementwiseParamUse param_use = ElementwiseParamUse::kExtra;
};

class ElementwiseOp final : public DeclarableOp {
 public:
  explicit ElementwiseOp(const ElementwiseDef& def);
  const ElementwiseDef& def() const { return def_; }

 protected:
  Status validate_and_execute(Context& block) override;
  Status calculate_output_shape(Context& block, ShapeList& shapes) override;
  void declare_types(OpDescriptor& descriptor) override;
  void declare_args(OpSignature& args) override;

 private:
  const ElementwiseDef& def_;
};

// Registers every op of a table (and its aliases) when the library loads.
// Tables are static arrays, so the defs outlive the ops.
struct ElementwiseTableRegistrar {
  ElementwiseTableRegistrar(const ElementwiseDef* defs, int count);
};

// The tables (unary_ops.cpp, binary_ops.cpp, nn/activations.cpp), for
// tests and tools.
const ElementwiseDef* unary_elementwise_defs(int& count);
const ElementwiseDef* binary_elementwise_defs(int& count);
const ElementwiseDef* activation_elementwise_defs(int& count);

}  // namespace libops::ops
