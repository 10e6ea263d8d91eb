// Note [Expressions] (libops/expr/expr.h): every row of the binary tables
// as an expression node against its legacy op (the transform rows are in
// expr_unary_test.cpp); then chains against their ops called one by one,
// broadcasting, strided and empty views, dtype mixes, an output that is
// also an input, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "expr/expr_test_util.h"

namespace libops {
namespace {

using namespace libops::expr;
using namespace libops::expr_test;
using test::make;

template <template <typename> class F, unsigned kSet, typename T>
void check_binary_row(int group, int num, const char* name, DataType out_dt) {
  const DataType dt = dtype_of_v<T>;
  SCOPED_TRACE(std::string(name) + " on " + dtype_name(dt));
  const NDArray x = spread(dt, 600);
  // y: x reversed and shifted, so that x and y pair different values.
  NDArray y = test::zeros(dt, {600});
  for (int64_t i = 0; i < 600; ++i) y.set_double(i, x.get_double(599 - i) + (dt == DataType::kInt32 ? 1 : 0.5));
  NDArray z = test::zeros(out_dt, {600});
  const auto node = Binary<F, kSet, TypedInput<T>, TypedInput<T>>(in<T>(x), in<T>(y), name);
  ASSERT_TRUE((out(z) = node).run().is_ok());
  std::string where;
  EXPECT_TRUE(same_values(z, legacy_binary(group, num, x, y, out_dt, {600}), where)) << where;
}

TEST(Expressions, EveryBinaryNodeIsItsLegacyOp) {
#define ROW(NUM, NAME, F, SET)                                                                    \
  check_binary_row<legacy::F, legacy::SET, float>(OPS_PAIRWISE, NUM, #NAME, DataType::kFloat32);  \
  if constexpr (legacy::SET != legacy::kFloatTypes)                                               \
    check_binary_row<legacy::F, legacy::SET, int32_t>(OPS_PAIRWISE, NUM, #NAME, DataType::kInt32);
  LIBOPS_BINARY_OPS(ROW)
#undef ROW
#define ROW(NUM, NAME, F, SET)                                                                         \
  check_binary_row<legacy::F, legacy::SET, float>(OPS_PAIRWISE_BOOL, NUM, #NAME, DataType::kBool);     \
  check_binary_row<legacy::F, legacy::SET, int32_t>(OPS_PAIRWISE_BOOL, NUM, #NAME, DataType::kBool);
  LIBOPS_BINARY_BOOL_OPS(ROW)
#undef ROW
}


// The chain (x * 2 + 1).tanh() * x against its four ops called one by one,
// dense and then strided: the same float32 values, except that in one pass
// the compiler may fuse x * 2 + 1 into an FMA (one rounding where the
// separate ops round twice), so within a few ulp.
TEST(Expressions, AChainIsItsOpsInOnePass) {
  const NDArray x = spread(DataType::kFloat32, 100003);
  NDArray z = test::zeros(DataType::kFloat32, x.shape());
  ASSERT_TRUE((out(z) = tanh(in(x) * 2.f + 1.f) * in(x)).run().is_ok());
  std::vector<double> want(static_cast<size_t>(x.length()));
  for (int64_t i = 0; i < x.length(); ++i) {
    const float v = static_cast<float>(x.get_double(i));
    const float t = legacy::fn::transform_strict::Tanh<float>::op(v * 2.f + 1.f, ExtraParams{});
    want[static_cast<size_t>(i)] = t * v;
  }
  EXPECT_TRUE(test::all_close(z, want, 1e-6, 1e-6));

  // Every other element of a [2, n] array, into a transposed output.
  NDArray wide = spread(DataType::kFloat32, 2 * 501), rows, xs;
  ASSERT_TRUE(wide.reshape({501, 2}, rows).is_ok());
  ASSERT_TRUE(rows.slice(1, 0, 1, 1, xs).is_ok());  // [501, 1], stride 2
  NDArray zt = test::zeros(DataType::kFloat32, {1, 501}), ztv;
  ASSERT_TRUE(zt.permute({1, 0}, ztv).is_ok());
  ASSERT_TRUE((out(ztv) = in(xs) * in(xs) - 1).run().is_ok());
  std::vector<double> want_t;
  for (int64_t i = 0; i < 501; ++i) {
    const double v = static_cast<float>(wide.get_double(2 * i));
    want_t.push_back(v * v - 1.0);
  }
  EXPECT_TRUE(test::all_close(zt, want_t, 1e-6, 1e-6));
}

TEST(Expressions, LeavesBroadcastToTheOutput) {
  NDArray a = make(DataType::kFloat32, {3, 1}, {1, 2, 3});
  NDArray b = make(DataType::kFloat32, {4}, {10, 20, 30, 40});
  NDArray z = test::zeros(DataType::kFloat32, {3, 4});
  ASSERT_TRUE((out(z) = in(a) * in(b) + in(a)).run().is_ok());
  EXPECT_TRUE(test::all_close(z, {11, 21, 31, 41, 22, 42, 62, 82, 33, 63, 93, 123}, 0, 0));
  NDArray bad = test::zeros(DataType::kFloat32, {3, 5});
  const Status st = (out(bad) = in(a) * in(b)).run();
  EXPECT_EQ(st.code(), StatusCode::kShape);
  EXPECT_EQ(st.message(),
            "expression float32[3,5] = multiply(float32[3,1], float32[4]): [4] does not broadcast to the output's "
            "shape [3,5]");
}

TEST(Expressions, DtypesMixConvertOnLoadAndStore) {
  // int32 and float16 leaves compute in float32 (their promotion); the
  // result is stored as float64.
  NDArray i = make(DataType::kInt32, {4}, {1, -2, 3, 100000});
  NDArray h = make(DataType::kFloat16, {4}, {0.5, 0.25, -1, 2});
  NDArray z = test::zeros(DataType::kFloat64, {4});
  ASSERT_TRUE((out(z) = in(i) * in(h) + 1).run().is_ok());
  EXPECT_TRUE(test::all_close(z, {1.5, 0.5, -2, 200001}, 0, 0));
  // Integers alone compute as integers: 7 / 2 = 3; a float-only node or a
  // fractional scalar makes it float.
  NDArray s = make(DataType::kInt32, {2}, {7, -7});
  NDArray zi = test::zeros(DataType::kInt32, {2}), zf = test::zeros(DataType::kFloat32, {2});
  ASSERT_TRUE((out(zi) = in(s) / 2).run().is_ok());
  EXPECT_TRUE(test::all_close(zi, {3, -3}, 0, 0));
  ASSERT_TRUE((out(zf) = in(s) * 0.5).run().is_ok());
  EXPECT_TRUE(test::all_close(zf, {3.5, -3.5}, 0, 0));
  ASSERT_TRUE((out(zf) = sqrt(in(s) * in(s))).run().is_ok());
  EXPECT_TRUE(test::all_close(zf, {7, 7}, 0, 0));
  // Comparisons give bool; where() picks; cast<T> rounds through T.
  NDArray x = make(DataType::kFloat32, {4}, {-1.5, 0.1, 2.7, std::nan("")});
  NDArray zb = test::zeros(DataType::kBool, {4});
  ASSERT_TRUE((out(zb) = in(x) > 0).run().is_ok());
  EXPECT_TRUE(test::all_close(zb, {0, 1, 1, 0}, 0, 0));
  NDArray zw = test::zeros(DataType::kFloat32, {4});
  ASSERT_TRUE((out(zw) = where(in(x) > 0, in(x), -in(x) * 10)).run().is_ok());
  EXPECT_TRUE(test::all_close(zw, {15, 0.1, 2.7, std::nan("")}, 1e-7, 0));
  ASSERT_TRUE((out(zw) = cast<int8_t>(in(x) * 100)).run().is_ok());
  // -150 and 270 saturate, NaN becomes 0: the dtype conversion's rules (loops/convert.h).
  EXPECT_TRUE(test::all_close(zw, {-128, 10, 127, 0}, 0, 0));
}

TEST(Expressions, AnOutputThatIsAlsoAnInput) {
  NDArray x = make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4});
  ASSERT_TRUE((out(x) = in(x) * 2 + 1).run().is_ok());  // the same view: in place
  EXPECT_TRUE(test::all_close(x, {3, 5, 7, 9}, 0, 0));
  NDArray t;
  ASSERT_TRUE(x.permute({1, 0}, t).is_ok());
  ASSERT_TRUE((out(x) = in(t) - in(x)).run().is_ok());  // its transpose: through a temporary
  EXPECT_TRUE(test::all_close(x, {0, 2, -2, 0}, 0, 0));
}

TEST(Expressions, EmptyOutputsAndErrorsNameTheExpression) {
  NDArray e = test::zeros(DataType::kFloat32, {0, 3});
  NDArray ze = test::zeros(DataType::kFloat32, {0, 3});
  EXPECT_TRUE((out(ze) = exp(in(e)) + 1).run().is_ok());
  NDArray i = make(DataType::kInt32, {2}, {1, 2});
  NDArray zi = test::zeros(DataType::kInt32, {2});
  const Status st = (out(zi) = bitwise_not(in(i) * 0.5)).run();
  EXPECT_EQ(st.code(), StatusCode::kDtype);
  EXPECT_EQ(st.message(),
            "expression bitwise_not(multiply(int32[2], 0.5)): a node takes only integer and bool dtypes, and its "
            "arrays compute in float32");
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  const Status dev = (out(zi) = in(x) + 1).run(Device::cuda(0));
  EXPECT_EQ(dev.code(), StatusCode::kNotImplemented);
  EXPECT_EQ((out(zi) = tanh(in(x) * 2.f + 1.f) * in(x)).str(),
            "int32[2] = multiply(tanh(add(multiply(float32[2], 2), 1)), float32[2])");
}

}  // namespace
}  // namespace libops
