// REDUCE_SAME (z has x's dtype): sum, max, min, prod, asum, amax, amin.
#include <limits>

#include "legacy/reduce_test_util.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> reduce_values(const char* op, const NDArray& x, const std::vector<int64_t>& axes,
                                  DataType zt = DataType::kInvalid) {
  if (zt == DataType::kInvalid) zt = x.dtype();
  NDArray z = make_z(zt, reduced_dims(x.shape(), axes, false));
  Status s = run_reduce(OPS_REDUCE_SAME, op_num(OPS_REDUCE_SAME, op), x, nullptr, z, axes);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

}  // namespace

TEST(ReduceSame, EveryOpMatchesNumpyGoldens) { expect_group_goldens(OPS_REDUCE_SAME); }

TEST(ReduceSame, Int8ResultsWrapLikeNumpyCastToInt8) {
  Inputs in = load_inputs("x", DataType::kInt8);
  expect_group_matches_golden(OPS_REDUCE_SAME, "x", in.x, nullptr);  // as_stored() wraps the goldens
  NDArray big = make(DataType::kInt8, {3}, {100, 100, 7});
  EXPECT_TRUE(all_close(reduce_values("sum", big, {}), {-49}));  // 207 - 256
  EXPECT_TRUE(all_close(reduce_values("prod", big, {}), {112}));  // 70000 mod 256
}

TEST(ReduceSame, NanPropagatesThroughMaxMinAndTheAbsoluteVariants) {
  // 40 values per row so the NaN sits past the first lanes. The same values
  // reduce on the generic path (dense rows), the strided generic path and the
  // kept-inner path (F-order memory: the kept dim is innermost).
  std::vector<double> v(80);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i % 7) - 3.0;
  v[29] = kNan;  // row 0 only
  NDArray rows = make(DataType::kFloat32, {2, 40}, v);
  NDArray strided = strided_view(rows), cols = transposed_view(rows);
  for (const char* op : {"max", "min", "amax", "amin", "sum", "prod", "asum"}) {
    SCOPED_TRACE(op);
    std::vector<double> a = reduce_values(op, rows, {1});
    EXPECT_TRUE(std::isnan(a[0])) << a[0];
    EXPECT_FALSE(std::isnan(a[1]));
    EXPECT_TRUE(all_close(reduce_values(op, strided, {1}), a));
    EXPECT_TRUE(all_close(reduce_values(op, cols, {1}), a));
  }
  // A NaN first, last, or after an infinity.
  EXPECT_TRUE(std::isnan(reduce_values("max", make(DataType::kFloat64, {3}, {kNan, 1, 2}), {})[0]));
  EXPECT_TRUE(std::isnan(reduce_values("max", make(DataType::kFloat64, {3}, {1, 2, kNan}), {})[0]));
  EXPECT_TRUE(std::isnan(reduce_values("min", make(DataType::kFloat64, {3}, {-kInf, kNan, 2}), {})[0]));
  EXPECT_TRUE(all_close(reduce_values("max", make(DataType::kFloat64, {3}, {-kInf, -5, kInf}), {}), {kInf}));
  EXPECT_TRUE(all_close(reduce_values("amin", make(DataType::kFloat64, {3}, {-kInf, -5, 7}), {}), {5}));
}

TEST(ReduceSame, EmptyReductionsGiveTheIdentity) {
  // Note [Empty reductions]: x [0, 3] reduced over axis 0.
  NDArray f = make(DataType::kFloat32, {0, 3}, {});
  EXPECT_TRUE(all_close(reduce_values("sum", f, {0}), {0, 0, 0}));
  EXPECT_TRUE(all_close(reduce_values("prod", f, {0}), {1, 1, 1}));
  EXPECT_TRUE(all_close(reduce_values("max", f, {0}), {-kInf, -kInf, -kInf}));
  EXPECT_TRUE(all_close(reduce_values("min", f, {0}), {kInf, kInf, kInf}));
  EXPECT_TRUE(all_close(reduce_values("asum", f, {0}), {0, 0, 0}));
  EXPECT_TRUE(all_close(reduce_values("amax", f, {0}), {0, 0, 0}));
  EXPECT_TRUE(all_close(reduce_values("amin", f, {0}), {kInf, kInf, kInf}));
  // Integer extremes are those of z's dtype, not the wrapped compute type's.
  NDArray i8 = make(DataType::kInt8, {2, 0}, {});
  EXPECT_TRUE(all_close(reduce_values("max", i8, {1}), {-128, -128}));
  EXPECT_TRUE(all_close(reduce_values("min", i8, {1}), {127, 127}));
  EXPECT_TRUE(all_close(reduce_values("amin", i8, {1}), {127, 127}));
  EXPECT_TRUE(all_close(reduce_values("prod", i8, {1}), {1, 1}));
  NDArray u16 = make(DataType::kUInt16, {0}, {});
  EXPECT_TRUE(all_close(reduce_values("max", u16, {}), {0}));
  EXPECT_TRUE(all_close(reduce_values("min", u16, {}), {65535}));
  NDArray u32 = make(DataType::kUInt32, {0}, {});
  EXPECT_TRUE(all_close(reduce_values("min", u32, {}), {4294967295.0}));
  NDArray i64 = make(DataType::kInt64, {0}, {});
  NDArray z64 = make_z(DataType::kInt64, {});
  ASSERT_OK(run_reduce(OPS_REDUCE_SAME, op_num(OPS_REDUCE_SAME, "max"), i64, nullptr, z64, {}));
  EXPECT_EQ(z64.get_int64(0), std::numeric_limits<int64_t>::lowest());
  NDArray b = make(DataType::kBool, {0}, {});
  EXPECT_TRUE(all_close(reduce_values("max", b, {}), {0}));
  EXPECT_TRUE(all_close(reduce_values("min", b, {}), {1}));
  // A middle 0 extent: x [2, 0, 3] over axis 1 gives a [2, 3] of identities.
  NDArray mid = make(DataType::kFloat64, {2, 0, 3}, {});
  EXPECT_TRUE(all_close(reduce_values("sum", mid, {1}), {0, 0, 0, 0, 0, 0}));
  // Reduced extent 3 but a 0 kept extent: z has no elements; nothing to do, no error.
  NDArray x = make(DataType::kFloat32, {3, 0}, {});
  for (bool keep : {false, true}) {
    NDArray z = make_z(DataType::kFloat32, keep ? Dims{1, 0} : Dims{0});
    EXPECT_OK(run_reduce(OPS_REDUCE_SAME, op_num(OPS_REDUCE_SAME, "max"), x, nullptr, z, {0}));
  }
}

TEST(ReduceSame, IntegerTypesReduceExactly) {
  NDArray i64 = make(DataType::kInt64, {2, 2}, {0, 0, 0, 0});
  i64.data_as<int64_t>()[0] = (int64_t{1} << 60) + 1;
  i64.data_as<int64_t>()[1] = 3;
  i64.data_as<int64_t>()[2] = -(int64_t{1} << 60);
  i64.data_as<int64_t>()[3] = 5;
  NDArray z = make_z(DataType::kInt64, {2});
  ASSERT_OK(run_reduce(OPS_REDUCE_SAME, op_num(OPS_REDUCE_SAME, "sum"), i64, nullptr, z, {0}));
  EXPECT_EQ(z.data_as<int64_t>()[0], 1);
  EXPECT_EQ(z.data_as<int64_t>()[1], 8);
  NDArray u = make(DataType::kUInt64, {3}, {0, 2, 7});
  u.data_as<uint64_t>()[0] = ~uint64_t{0} - 1;
  NDArray zu = make_z(DataType::kUInt64, {});
  ASSERT_OK(run_reduce(OPS_REDUCE_SAME, op_num(OPS_REDUCE_SAME, "max"), u, nullptr, zu, {}));
  EXPECT_EQ(zu.data_as<uint64_t>()[0], ~uint64_t{0} - 1);
  EXPECT_TRUE(all_close(reduce_values("asum", make(DataType::kInt16, {3}, {-300, 200, -100}), {}), {600}));
  EXPECT_TRUE(all_close(reduce_values("amin", make(DataType::kInt32, {3}, {-300, 200, -100}), {}), {100}));
}
