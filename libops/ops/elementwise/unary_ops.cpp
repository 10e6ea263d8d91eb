// The unary element-wise ops: z = f(x), each one legacy transform kernel
// (libops/legacy/ops/transform_*_ops.h holds the functors and their NaN,
// rounding and integer rules). Result dtypes: Note [Element-wise result
// dtypes] in elementwise.h. To add one: a row here.
#include "libops/legacy/ops/transform_bool_ops.h"
#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/elementwise/elementwise.h"

namespace libops::ops {
namespace {

using legacy::TransformBoolOp;
using legacy::TransformFloatOp;
using legacy::TransformSameOp;
using legacy::TransformStrictOp;
using R = ElementwiseResult;

constexpr TypeSet kNum = types::kNumeric;
constexpr TypeSet kIntBool = types::kInt | types::kBool;

constexpr ElementwiseDef same(const char* name, TransformSameOp op, TypeSet in, const char* summary,
                              const char* aliases = "") {
  return {name, 1, OPS_TRANSFORM_SAME, static_cast<int>(op), in, R::kSame, summary, aliases};
}
constexpr ElementwiseDef strict(const char* name, TransformStrictOp op, const char* summary,
                                const char* aliases = "") {
  return {name, 1, OPS_TRANSFORM_STRICT, static_cast<int>(op), kNum, R::kFloat, summary, aliases};
}
constexpr ElementwiseDef to_float(const char* name, TransformFloatOp op, const char* summary) {
  return {name, 1, OPS_TRANSFORM_FLOAT, static_cast<int>(op), kNum, R::kFloat, summary, ""};
}
constexpr ElementwiseDef to_bool(const char* name, TransformBoolOp op, TypeSet in, const char* summary,
                                 const char* aliases = "") {
  return {name, 1, OPS_TRANSFORM_BOOL, static_cast<int>(op), in, R::kBool, summary, aliases};
}

const ElementwiseDef kUnaryOps[] = {
    // x's dtype; integers stay integers (rounding ops are the identity on them).
    same("abs", TransformSameOp::abs, kNum, "|x|; integers wrap at the minimum, as numpy's"),
    same("neg", TransformSameOp::neg, kNum, "-x", "negative"),
    same("sign", TransformSameOp::sign, kNum, "-1, 0 or 1 by the sign of x; NaN stays NaN, -0.0 stays -0.0"),
    same("square", TransformSameOp::square, kNum, "x * x"),
    same("cube", TransformSameOp::cube, kNum, "x * x * x"),
    same("reciprocal", TransformSameOp::reciprocal, kNum, "1 / x; integers truncate, 1 / 0 = 0", "inv"),
    same("floor", TransformSameOp::floor, kNum, "the largest integer <= x"),
    same("ceil", TransformSameOp::ceil, kNum, "the smallest integer >= x", "ceiling"),
    same("round", TransformSameOp::round, kNum, "x rounded to the nearest integer, halves away from zero"),
    same("trunc", TransformSameOp::trunc, kNum, "x rounded toward zero"),
    same("bitwise_not", TransformSameOp::bitwise_not, kIntBool,
         "~x in x's integer dtype; logical not for bool", "toggle_bits invert"),
    same("population_count", TransformSameOp::population_count, types::kInt,
         "the number of set bits of x in its own dtype, in that dtype", "popcount bits_count"),
    // Floats; integers are converted to float32 first.
    to_float("sqrt", TransformFloatOp::sqrt, "the square root of x; NaN below 0"),
    to_float("rsqrt", TransformFloatOp::rsqrt, "1 / sqrt(x)"),
    to_float("cbrt", TransformFloatOp::cbrt, "the cube root of x"),
    strict("rint", TransformStrictOp::rint, "x rounded to the nearest integer, halves to even"),
    strict("exp", TransformStrictOp::exp, "e^x"),
    strict("expm1", TransformStrictOp::expm1, "e^x - 1, accurate near 0"),
    strict("exp2", TransformStrictOp::exp2, "2^x"),
    strict("log", TransformStrictOp::log, "the natural logarithm of x; -inf at 0, NaN below"),
    strict("log1p", TransformStrictOp::log1p, "log(1 + x), accurate near 0"),
    strict("log2", TransformStrictOp::log2, "the base-2 logarithm of x"),
    strict("log10", TransformStrictOp::log10, "the base-10 logarithm of x"),
    strict("sin", TransformStrictOp::sin, "sin(x), x in radians"),
    strict("cos", TransformStrictOp::cos, "cos(x), x in radians"),
    strict("tan", TransformStrictOp::tan, "tan(x), x in radians"),
    strict("asin", TransformStrictOp::asin, "arcsin(x), in [-pi/2, pi/2]"),
    strict("acos", TransformStrictOp::acos, "arccos(x), in [0, pi]"),
    strict("atan", TransformStrictOp::atan, "arctan(x), in [-pi/2, pi/2]"),
    strict("sinh", TransformStrictOp::sinh, "the hyperbolic sine of x"),
    strict("cosh", TransformStrictOp::cosh, "the hyperbolic cosine of x"),
    strict("tanh", TransformStrictOp::tanh, "the hyperbolic tangent of x"),
    strict("asinh", TransformStrictOp::asinh, "the inverse hyperbolic sine of x"),
    strict("acosh", TransformStrictOp::acosh, "the inverse hyperbolic cosine of x; NaN below 1"),
    strict("atanh", TransformStrictOp::atanh, "the inverse hyperbolic tangent of x; +-inf at +-1"),
    strict("erf", TransformStrictOp::erf, "the error function 2/sqrt(pi) * integral of e^(-t^2) from 0 to x"),
    strict("erfc", TransformStrictOp::erfc, "1 - erf(x), accurate for large x"),
    strict("lgamma", TransformStrictOp::lgamma, "log |gamma(x)|"),
    strict("digamma", TransformStrictOp::digamma, "d/dx log gamma(x)"),
    strict("sigmoid", TransformStrictOp::sigmoid, "1 / (1 + e^-x)"),
    strict("log_sigmoid", TransformStrictOp::log_sigmoid, "log(sigmoid(x)), accurate for large |x|", "logsigmoid"),
    strict("softplus", TransformStrictOp::softplus, "log(1 + e^x), accurate for large |x|"),
    strict("softsign", TransformStrictOp::softsign, "x / (1 + |x|)"),
    strict("silu", TransformStrictOp::swish, "x * sigmoid(x)", "swish"),
    strict("mish", TransformStrictOp::mish, "x * tanh(softplus(x))"),
    // selu, elu, celu, hard_sigmoid and the other activations with
    // parameters are rows of ops/nn/activations.cpp.
    // bool results.
    to_bool("is_nan", TransformBoolOp::is_nan, kNum, "x is NaN", "isnan"),
    to_bool("is_inf", TransformBoolOp::is_inf, kNum, "x is +inf or -inf", "isinf"),
    to_bool("is_finite", TransformBoolOp::is_finite, kNum, "x is neither NaN nor infinite", "isfinite"),
    to_bool("logical_not", TransformBoolOp::logical_not, types::kAny, "x == 0", "boolean_not not"),
};

const ElementwiseTableRegistrar kRegisterUnary(kUnaryOps, static_cast<int>(sizeof kUnaryOps / sizeof kUnaryOps[0]));

}  // namespace

// For the registry test: every row of this table is a registered op.
const ElementwiseDef* unary_elementwise_defs(int& count) {
  count = static_cast<int>(sizeof kUnaryOps / sizeof kUnaryOps[0]);
  return kUnaryOps;
}

}  // namespace libops::ops
