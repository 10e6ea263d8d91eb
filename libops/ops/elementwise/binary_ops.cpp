// The binary element-wise ops: z = f(x, y) with numpy broadcasting, each one
// legacy pairwise kernel (libops/legacy/ops/binary*_ops.h holds the functors
// and their NaN, division and integer rules: Note [Binary NaN policy], Note
// [Integer division]). add, subtract, multiply, divide and
// squared_difference have files of their own in ops/arith. Result dtypes:
// Note [Element-wise result dtypes] in elementwise.h. To add one: a row here.
#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/ops/binary_int_ops.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/ops/elementwise/elementwise.h"

namespace libops::ops {
namespace {

using legacy::BinaryBoolOp;
using legacy::BinaryIntOp;
using legacy::BinaryOp;
using R = ElementwiseResult;

constexpr TypeSet kNum = types::kNumeric;
constexpr TypeSet kIntBool = types::kInt | types::kBool;

constexpr ElementwiseDef arith(const char* name, BinaryOp op, const char* summary, const char* aliases = "") {
  return {name, 2, OPS_PAIRWISE, static_cast<int>(op), kNum, R::kPromoted, summary, aliases};
}
constexpr ElementwiseDef arith_float(const char* name, BinaryOp op, const char* summary, const char* aliases = "") {
  return {name, 2, OPS_PAIRWISE, static_cast<int>(op), kNum, R::kPromotedFloat, summary, aliases};
}
constexpr ElementwiseDef compare(const char* name, BinaryBoolOp op, TypeSet in, const char* summary,
                                 const char* aliases = "") {
  return {name, 2, OPS_PAIRWISE_BOOL, static_cast<int>(op), in, R::kBool, summary, aliases};
}
constexpr ElementwiseDef bits(const char* name, BinaryIntOp op, const char* summary, const char* aliases = "") {
  return {name, 2, OPS_PAIRWISE_INT, static_cast<int>(op), kIntBool, R::kPromoted, summary, aliases};
}

const ElementwiseDef kBinaryOps[] = {
    arith("pow", BinaryOp::pow, "x^y; integers by repeated squaring, wrapping", "power"),
    arith("mod", BinaryOp::mod, "the remainder of x / y truncated, with x's sign (C's %, fmod)",
          "fmod truncate_mod truncatemod"),
    arith("floor_mod", BinaryOp::floor_mod, "the remainder of x / y floored, with y's sign (Python's %)",
          "floormod"),
    arith("floor_div", BinaryOp::floor_div, "x / y rounded toward -inf", "floordiv"),
    arith("truncate_div", BinaryOp::truncate_div, "x / y rounded toward zero", "truncatediv"),
    arith("maximum", BinaryOp::max, "the larger of x and y; NaN if either is", "max"),
    arith("minimum", BinaryOp::min, "the smaller of x and y; NaN if either is", "min"),
    arith("divide_no_nan", BinaryOp::divide_no_nan, "x / y, and 0 where y is 0", "safe_divide"),
    arith("reverse_subtract", BinaryOp::reverse_subtract, "y - x", "reversesubtract"),
    arith("reverse_divide", BinaryOp::reverse_divide, "y / x", "reversedivide"),
    arith("reverse_mod", BinaryOp::reverse_mod, "mod(y, x)", "reversemod"),
    arith_float("remainder", BinaryOp::remainder, "x - n * y, n = x / y rounded to the nearest even (IEEE 754)"),
    arith_float("atan2", BinaryOp::atan2, "atan2(x, y): the angle of the point (y, x) in (-pi, pi]", "tf_atan2"),
    arith_float("igamma", BinaryOp::igamma, "the regularized lower incomplete gamma function P(x, y)"),
    arith_float("igammac", BinaryOp::igammac, "the regularized upper incomplete gamma function Q(x, y)"),
    compare("equal", BinaryBoolOp::equals, types::kAny, "x == y; false for NaN", "equals"),
    compare("not_equal", BinaryBoolOp::not_equals, types::kAny, "x != y; true for NaN", "not_equals"),
    compare("less", BinaryBoolOp::less_than, types::kAny, "x < y", "less_than"),
    compare("less_equal", BinaryBoolOp::less_or_equal, types::kAny, "x <= y", "less_or_equal"),
    compare("greater", BinaryBoolOp::greater_than, types::kAny, "x > y", "greater_than"),
    compare("greater_equal", BinaryBoolOp::greater_or_equal, types::kAny, "x >= y", "greater_or_equal"),
    compare("logical_and", BinaryBoolOp::logical_and, types::kAny, "x != 0 and y != 0", "boolean_and"),
    compare("logical_or", BinaryBoolOp::logical_or, types::kAny, "x != 0 or y != 0", "boolean_or"),
    compare("logical_xor", BinaryBoolOp::logical_xor, types::kAny, "(x != 0) != (y != 0)", "boolean_xor"),
    bits("bitwise_and", BinaryIntOp::bitwise_and, "x & y"),
    bits("bitwise_or", BinaryIntOp::bitwise_or, "x | y"),
    bits("bitwise_xor", BinaryIntOp::bitwise_xor, "x ^ y"),
    bits("shift_left", BinaryIntOp::shift_left, "x << y; a count outside the width shifts every bit out",
         "shift_bits left_shift"),
    bits("shift_right", BinaryIntOp::shift_right,
         "x >> y, arithmetic for signed x; a count outside the width leaves the sign fill", "rshift_bits right_shift"),
    bits("cyclic_shift_left", BinaryIntOp::cyclic_shift_left, "x rotated left by y bits of x's width",
         "cyclic_shift_bits"),
    bits("cyclic_shift_right", BinaryIntOp::cyclic_shift_right, "x rotated right by y bits of x's width",
         "cyclic_rshift_bits"),
};

const ElementwiseTableRegistrar kRegisterBinary(kBinaryOps,
                                                static_cast<int>(sizeof kBinaryOps / sizeof kBinaryOps[0]));

}  // namespace

const ElementwiseDef* binary_elementwise_defs(int& count) {
  count = static_cast<int>(sizeof kBinaryOps / sizeof kBinaryOps[0]);
  return kBinaryOps;
}

}  // namespace libops::ops
