// Note [Expressions] (libops/expr/expr.h): every row of the transform
// tables as an expression node against its legacy op (the same functor in
// the same compute type). Apart from expr_test.cpp so that the two sweeps,
// each a few hundred instantiations of the engine, compile in parallel.
#include <gtest/gtest.h>

#include <string>

#include "expr/expr_test_util.h"

namespace libops {
namespace {

using namespace libops::expr;
using namespace libops::expr_test;

template <template <typename> class F, unsigned kSet, typename T>
void check_unary_row(int group, int num, const char* name, DataType out_dt) {
  const DataType dt = dtype_of_v<T>;
  SCOPED_TRACE(std::string(name) + " on " + dtype_name(dt));
  const NDArray x = spread(dt, 1000);
  NDArray z = test::zeros(out_dt, x.shape());
  const auto node = Unary<F, kSet, TypedInput<T>>(in<T>(x), name);
  ASSERT_TRUE((out(z) = node).run().is_ok());
  std::string where;
  EXPECT_TRUE(same_values(z, legacy_unary(group, num, x, out_dt), where)) << where;
}

// Typed leaves (in<T>), so each row compiles for its one compute type.
TEST(Expressions, EveryTransformNodeIsItsLegacyOp) {
#define ROW(NUM, NAME, F, SET) \
  check_unary_row<legacy::F, legacy::SET, float>(OPS_TRANSFORM_STRICT, NUM, #NAME, DataType::kFloat32);
  LIBOPS_TRANSFORM_STRICT_OPS(ROW)
#undef ROW
#define ROW(NUM, NAME, F, SET) \
  check_unary_row<legacy::F, legacy::SET, float>(OPS_TRANSFORM_FLOAT, NUM, #NAME, DataType::kFloat32);
  LIBOPS_TRANSFORM_FLOAT_OPS(ROW)
#undef ROW
#define ROW(NUM, NAME, F, SET) \
  check_unary_row<legacy::F, legacy::SET, float>(OPS_TRANSFORM_BOOL, NUM, #NAME, DataType::kBool);
  LIBOPS_TRANSFORM_BOOL_OPS(ROW)
#undef ROW
#define ROW(NUM, NAME, F, SET)                                                                         \
  if constexpr (legacy::SET != legacy::kIntTypes)                                                      \
    check_unary_row<legacy::F, legacy::SET, float>(OPS_TRANSFORM_SAME, NUM, #NAME, DataType::kFloat32); \
  if constexpr (legacy::SET != legacy::kFloatTypes)                                                    \
    check_unary_row<legacy::F, legacy::SET, int32_t>(OPS_TRANSFORM_SAME, NUM, #NAME, DataType::kInt32);
  LIBOPS_TRANSFORM_SAME_OPS(ROW)
#undef ROW
  // float64 for a few, through the same engine.
  check_unary_row<legacy::fn::transform_strict::Exp, legacy::kFloatTypes, double>(OPS_TRANSFORM_STRICT, 0, "exp",
                                                                                 DataType::kFloat64);
  check_unary_row<legacy::fn::transform_strict::Tanh, legacy::kFloatTypes, double>(OPS_TRANSFORM_STRICT, 15, "tanh",
                                                                                  DataType::kFloat64);
}


}  // namespace
}  // namespace libops
