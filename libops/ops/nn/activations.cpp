// The activations that are one legacy kernel with scalar parameters, as rows
// of the element-wise table (ops/elementwise/elementwise.h): each takes a
// float16, bfloat16, float32 or float64 x and gives x's dtype and shape, on
// every device the legacy tables run on. Parameters are optional t args
// with ONNX's defaults (Note [Element-wise parameters]). The parameterless
// activations (sigmoid, tanh, softplus, softsign, silu, mish, log_sigmoid)
// are rows of ops/elementwise/unary_ops.cpp; relu, relu6, gelu, prelu,
// softmax and log_softmax have files of their own here.
//
// NaN in gives NaN out; at +-inf each op gives its limit (Note [Transform
// special values] in legacy/ops/transform_strict_ops.h).
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/ops/elementwise/elementwise.h"

namespace libops::ops {
namespace {

using legacy::BinaryOp;
using legacy::TransformStrictOp;
using P = ElementwiseParam;
using R = ElementwiseResult;
using Use = ElementwiseParamUse;

constexpr TypeSet kFloat = types::kFloat;

template <int N>
constexpr ElementwiseDef strict(const char* name, TransformStrictOp op, const char* summary, const char* aliases,
                                const P (&params)[N]) {
  return {name, 1, OPS_TRANSFORM_STRICT, static_cast<int>(op), kFloat, R::kSame, summary, aliases, params, N,
          Use::kExtra};
}
// A binary functor whose y is the parameter, run as the scalar group.
template <int N>
constexpr ElementwiseDef scalar_y(const char* name, BinaryOp op, const char* summary, const char* aliases,
                                  const P (&params)[N]) {
  return {name, 1, OPS_SCALAR, static_cast<int>(op), kFloat, R::kSame, summary, aliases, params, N, Use::kScalarY};
}

constexpr P kLeakyRelu[] = {{"alpha", 0.01, "the slope for x < 0"}};
constexpr P kThresholdedRelu[] = {{"alpha", 1.0, "the threshold: x where x > alpha, else 0"}};
constexpr P kElu[] = {{"alpha", 1.0, "the scale of e^x - 1 for x <= 0 (the value at -inf is -alpha)"}};
constexpr P kCelu[] = {{"alpha", 1.0, "the scale: alpha (e^(x / alpha) - 1) for x <= 0", true}};
// ONNX's defaults are these constants rounded to float32.
constexpr P kSelu[] = {
    {"alpha", legacy::fn::transform_strict::kSeluAlpha, "the scale of e^x - 1 for x <= 0"},
    {"gamma", legacy::fn::transform_strict::kSeluScale, "the scale of the whole result"}};
constexpr P kHardSigmoid[] = {{"alpha", 0.2, "the slope"}, {"beta", 0.5, "the offset"}};

const ElementwiseDef kActivations[] = {
    scalar_y("leaky_relu", BinaryOp::leaky_relu, "x where x >= 0, else alpha * x", "leakyrelu", kLeakyRelu),
    scalar_y("thresholded_relu", BinaryOp::relu, "x where x > alpha, else 0; NaN stays NaN", "thresholdedrelu",
             kThresholdedRelu),
    strict("elu", TransformStrictOp::elu, "x where x > 0, else alpha * (e^x - 1)", "", kElu),
    strict("celu", TransformStrictOp::celu, "x where x > 0, else alpha * (e^(x / alpha) - 1)", "", kCelu),
    strict("selu", TransformStrictOp::selu, "gamma * (x where x > 0, else alpha * (e^x - 1))", "", kSelu),
    strict("hard_sigmoid", TransformStrictOp::hard_sigmoid, "clamp(alpha * x + beta, 0, 1)", "hardsigmoid",
           kHardSigmoid),
    {"hard_swish", 1, OPS_TRANSFORM_STRICT, static_cast<int>(TransformStrictOp::hard_swish), kFloat, R::kSame,
     "x * clamp(x / 6 + 1/2, 0, 1)", "hardswish"},  // no parameters
};

const ElementwiseTableRegistrar kRegisterActivations(kActivations,
                                                     static_cast<int>(sizeof kActivations / sizeof kActivations[0]));

}  // namespace

const ElementwiseDef* activation_elementwise_defs(int& count) {
  count = static_cast<int>(sizeof kActivations / sizeof kActivations[0]);
  return kActivations;
}

}  // namespace libops::ops
