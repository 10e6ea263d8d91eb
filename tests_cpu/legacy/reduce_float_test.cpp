// REDUCE_FLOAT (float z; integers computed in float): mean, amean, the
// norms, squared_norm and the entropies.
#include <cmath>
#include <limits>

#include "legacy/reduce_test_util.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> reduce_float(const char* op, const NDArray& x, const std::vector<int64_t>& axes,
                                 std::vector<double> extra = {}) {
  DataType zt = x.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  NDArray z = make_z(zt, reduced_dims(x.shape(), axes, false));
  Status s = run_reduce(OPS_REDUCE_FLOAT, op_num(OPS_REDUCE_FLOAT, op), x, nullptr, z, axes,
                        ExtraParams::from(extra.data(), static_cast<int>(extra.size())));
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

}  // namespace

TEST(ReduceFloat, EveryOpMatchesNumpyGoldens) { expect_group_goldens(OPS_REDUCE_FLOAT); }

TEST(ReduceFloat, EntropyTakesZeroLogZeroAsZero) {
  // numpy's -sum(x * log(x)) is NaN here; the limit 0 * log 0 = 0 is used.
  NDArray p = make(DataType::kFloat64, {4}, {0, 0.5, 0, 0.5});
  EXPECT_TRUE(all_close(reduce_float("entropy", p, {}), {std::log(2.0)}));
  EXPECT_TRUE(all_close(reduce_float("shannon_entropy", p, {}), {1.0}));
  EXPECT_TRUE(all_close(reduce_float("log_entropy", p, {}), {std::log(std::log(2.0))}));
  NDArray u = make(DataType::kFloat32, {4}, {0.25, 0.25, 0.25, 0.25});
  EXPECT_TRUE(all_close(reduce_float("shannon_entropy", u, {}), {2.0}));
  // A negative element has no logarithm: NaN.
  EXPECT_TRUE(std::isnan(reduce_float("entropy", make(DataType::kFloat64, {2}, {-0.5, 0.5}), {})[0]));
}

TEST(ReduceFloat, NormPTakesPFromExtraAndChecksIt) {
  NDArray x = make(DataType::kFloat64, {2, 3}, {3, -4, 0, 1, 2, -2});
  EXPECT_TRUE(all_close(reduce_float("norm_p", x, {1}), {5, 3}));  // default p = 2
  EXPECT_TRUE(all_close(reduce_float("norm_p", x, {1}, {1}), {7, 5}));
  EXPECT_TRUE(all_close(reduce_float("norm_p", x, {1}, {0.5}), {std::pow(std::sqrt(3.0) + 2, 2),
                                                                 std::pow(1 + 2 * std::sqrt(2.0), 2)}));
  for (double p : {0.0, -1.0, kInf, std::nan("")}) {
    NDArray z = make_z(DataType::kFloat64, {2});
    ExtraParams e = ExtraParams::from(&p, 1);
    Status s = run_reduce(OPS_REDUCE_FLOAT, op_num(OPS_REDUCE_FLOAT, "norm_p"), x, nullptr, z, {1}, e);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << p;
    EXPECT_NE(s.message().find("norm_p: p (extra[0]) is"), std::string::npos) << s.message();
  }
}

TEST(ReduceFloat, IntegerInputsComputeInFloat) {
  NDArray x = make(DataType::kInt8, {2, 2}, {1, 2, 4, -7});
  EXPECT_TRUE(all_close(reduce_float("mean", x, {1}), {1.5, -1.5}));
  EXPECT_TRUE(all_close(reduce_float("amean", x, {0}), {2.5, 4.5}));
  EXPECT_TRUE(all_close(reduce_float("norm2", x, {}), {std::sqrt(70.0)}));
  NDArray z = make_z(DataType::kFloat16, {2});  // any float z
  ASSERT_OK(run_reduce(OPS_REDUCE_FLOAT, op_num(OPS_REDUCE_FLOAT, "mean"), x, nullptr, z, {1}));
  EXPECT_TRUE(all_close(z, {1.5, -1.5}));
}

TEST(ReduceFloat, NanAndInfinities) {
  NDArray x = make(DataType::kFloat32, {4}, {1, std::nan(""), -kInf, 2});
  EXPECT_TRUE(std::isnan(reduce_float("norm_max", x, {})[0]));
  EXPECT_TRUE(std::isnan(reduce_float("mean", x, {})[0]));
  NDArray y = make(DataType::kFloat32, {3}, {1, -kInf, 2});
  EXPECT_TRUE(all_close(reduce_float("norm_max", y, {}), {kInf}));
  EXPECT_TRUE(all_close(reduce_float("norm1", y, {}), {kInf}));
}

TEST(ReduceFloat, EmptyReductions) {
  // Note [Empty reductions]: x [0, 2] over axis 0.
  NDArray x = make(DataType::kFloat32, {0, 2}, {});
  std::vector<double> m = reduce_float("mean", x, {0});
  EXPECT_TRUE(std::isnan(m[0]) && std::isnan(m[1]));
  EXPECT_TRUE(std::isnan(reduce_float("amean", x, {0})[0]));
  for (const char* op : {"norm1", "norm2", "norm_max", "norm_frobenius", "norm_p", "squared_norm", "entropy",
                         "shannon_entropy"})
    EXPECT_TRUE(all_close(reduce_float(op, x, {0}), {0, 0})) << op;
  EXPECT_TRUE(all_close(reduce_float("log_entropy", x, {0}), {-kInf, -kInf}));
}
