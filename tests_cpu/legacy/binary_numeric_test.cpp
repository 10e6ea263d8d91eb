// The binary table (SCALAR / PAIRWISE / BROADCAST): every op against the
// numpy goldens of tools/gen_goldens_binary.py, then hand-checked edge cases
// (integer division and overflow, float floor division, incomplete gamma,
// half-precision and mixed dtypes).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "binary_test_util.h"
#include "libops/legacy/block_kernels.h"
#include "libops/legacy/ops/binary_ops.h"

using namespace libops;
using namespace libops::test;
using legacy::BinaryOp;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One row per op of the table: whether integer inputs are supported, and the
// relative tolerance of the float32 result against the float64 reference.
struct OpCase {
  const char* name;
  bool ints;
  double rtol32;
};
constexpr OpCase kCases[] = {
    {"add", true, 1e-6},          {"subtract", true, 1e-6},        {"multiply", true, 1e-6},
    {"divide", true, 1e-6},       {"reverse_subtract", true, 1e-6}, {"reverse_divide", true, 1e-6},
    {"max", true, 0},             {"min", true, 0},                {"amax", true, 0},
    {"amin", true, 0},            {"pow", true, 2e-6},             {"mod", true, 0},
    {"fmod", true, 0},            {"remainder", false, 0},         {"floor_div", true, 0},
    {"floor_mod", true, 1e-6},    {"truncate_div", true, 0},       {"truncate_mod", true, 0},
    {"atan2", false, 1e-6},       {"squared_subtract", true, 1e-6}, {"safe_divide", true, 1e-6},
    {"divide_no_nan", true, 1e-6}, {"copy", true, 0},              {"reverse_mod", true, 0},
    {"relu", true, 0},            {"relu6", true, 0},              {"leaky_relu", true, 1e-6},
    {"elu", false, 2e-6},         {"step", true, 0},               {"replace_nans", true, 0},
    {"igamma", false, 2e-6},      {"igammac", false, 2e-6},        {"log_x", false, 2e-6},
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

class BinaryGoldenTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(BinaryGoldenTest, Float32MatchesFloat64Reference) {
  const OpCase& c = GetParam();
  EXPECT_TRUE(check_binary_golden(OPS_PAIRWISE, c.name, std::string(c.name) + "_f32", DataType::kFloat32,
                                  DataType::kFloat32, c.rtol32, 1e-7));
}

TEST_P(BinaryGoldenTest, Float64MatchesReference) {
  const OpCase& c = GetParam();
  EXPECT_TRUE(check_binary_golden(OPS_PAIRWISE, c.name, std::string(c.name) + "_f32", DataType::kFloat64,
                                  DataType::kFloat64, 1e-13, 1e-15));
}

TEST_P(BinaryGoldenTest, Int32MatchesNumpyOrIsRejected) {
  const OpCase& c = GetParam();
  if (c.ints) {
    EXPECT_TRUE(check_binary_golden(OPS_PAIRWISE, c.name, std::string(c.name) + "_i32", DataType::kInt32,
                                    DataType::kInt32, 0, 0));
    return;
  }
  NDArray x = make(DataType::kInt32, {2}, {1, 2}), z = zeros(DataType::kFloat32, {2});
  Status s = run_legacy(OPS_PAIRWISE, op_number(OPS_PAIRWISE, c.name), x, x, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), std::string(c.name) +
                             ": unsupported dtype int32 (computes in int32); supported: float16, bfloat16, "
                             "float32, float64");
}

INSTANTIATE_TEST_SUITE_P(AllOps, BinaryGoldenTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return std::string(info.param.name); });

// Every op of the table has a golden row above, and nothing else does.
TEST(BinaryTable, EveryOpHasAGoldenCase) {
  const legacy::LegacyOpInfo* ops = nullptr;
  const int n = legacy::list_ops(OPS_PAIRWISE, &ops);
  std::set<std::string> table, cases;
  for (int i = 0; i < n; ++i) table.insert(ops[i].name);
  for (const OpCase& c : kCases) cases.insert(c.name);
  EXPECT_EQ(table, cases);
  EXPECT_EQ(n, LIBOPS_BINARY_COUNT);
  // SCALAR, PAIRWISE and BROADCAST share the table: same numbers, same names.
  const legacy::LegacyOpInfo* scalar_ops = nullptr;
  const legacy::LegacyOpInfo* broadcast_ops = nullptr;
  EXPECT_EQ(legacy::list_ops(OPS_SCALAR, &scalar_ops), n);
  EXPECT_EQ(legacy::list_ops(OPS_BROADCAST, &broadcast_ops), n);
  EXPECT_EQ(scalar_ops, ops);
  EXPECT_EQ(broadcast_ops, ops);
}

TEST(BinaryTable, NumbersAreStable) {
  // Numbers are part of the format: these must never change.
  EXPECT_EQ(static_cast<int>(BinaryOp::add), 0);
  EXPECT_EQ(static_cast<int>(BinaryOp::reverse_divide), 5);
  EXPECT_EQ(static_cast<int>(BinaryOp::max), 6);
  EXPECT_EQ(static_cast<int>(BinaryOp::pow), 10);
  EXPECT_EQ(static_cast<int>(BinaryOp::floor_div), 14);
  EXPECT_EQ(static_cast<int>(BinaryOp::copy), 22);
  EXPECT_EQ(static_cast<int>(BinaryOp::igamma), 30);
  EXPECT_EQ(static_cast<int>(BinaryOp::log_x), 32);
  EXPECT_STREQ(legacy::op_name(OPS_PAIRWISE, 21), "divide_no_nan");
}

// ---- integers: Note [Integer division], Note [Integer overflow] ----

std::vector<double> run_i(BinaryOp op, DataType t, const std::vector<double>& xs, const std::vector<double>& ys) {
  const Dims shape{static_cast<int64_t>(xs.size())};
  NDArray x = make(t, shape, xs), y = make(t, shape, ys), z = zeros(t, shape);
  Status s = run_legacy(OPS_PAIRWISE, static_cast<int>(op), x, y, z);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

constexpr double kI32Min = -2147483648.0, kI32Max = 2147483647.0;

TEST(BinaryIntegerEdges, DivisionByZeroAndMinusOne) {
  const std::vector<double> x{7, -7, 0, kI32Min, kI32Min, 5};
  const std::vector<double> y{0, 0, 0, -1, 1, -1};
  EXPECT_EQ(run_i(BinaryOp::divide, DataType::kInt32, x, y), (std::vector<double>{0, 0, 0, kI32Min, kI32Min, -5}));
  EXPECT_EQ(run_i(BinaryOp::mod, DataType::kInt32, x, y), (std::vector<double>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(run_i(BinaryOp::floor_div, DataType::kInt32, x, y), (std::vector<double>{0, 0, 0, kI32Min, kI32Min, -5}));
  EXPECT_EQ(run_i(BinaryOp::floor_mod, DataType::kInt32, x, y), (std::vector<double>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(run_i(BinaryOp::safe_divide, DataType::kInt32, x, y), (std::vector<double>{0, 0, 0, kI32Min, kI32Min, -5}));
  EXPECT_EQ(run_i(BinaryOp::reverse_divide, DataType::kInt32, y, x), (std::vector<double>{0, 0, 0, kI32Min, kI32Min, -5}));
}

TEST(BinaryIntegerEdges, FloorAndTruncateWithNegatives) {
  const std::vector<double> x{7, -7, 7, -7, -1, 6, kI32Min, kI32Min};
  const std::vector<double> y{2, 2, -2, -2, 3, -3, 3, kI32Max};
  EXPECT_EQ(run_i(BinaryOp::floor_div, DataType::kInt32, x, y),
            (std::vector<double>{3, -4, -4, 3, -1, -2, -715827883, -2}));
  EXPECT_EQ(run_i(BinaryOp::floor_mod, DataType::kInt32, x, y),
            (std::vector<double>{1, 1, -1, -1, 2, 0, 1, 2147483646}));
  EXPECT_EQ(run_i(BinaryOp::truncate_div, DataType::kInt32, x, y),
            (std::vector<double>{3, -3, -3, 3, 0, -2, -715827882, -1}));
  EXPECT_EQ(run_i(BinaryOp::truncate_mod, DataType::kInt32, x, y),
            (std::vector<double>{1, -1, 1, -1, -1, 0, -2, -1}));
  EXPECT_EQ(run_i(BinaryOp::reverse_mod, DataType::kInt32, y, x),
            (std::vector<double>{1, -1, 1, -1, -1, 0, -2, -1}));
}

TEST(BinaryIntegerEdges, Int64LimitsWrapOrDefined) {
  NDArray x, y, z;
  ASSERT_OK(NDArray::create(DataType::kInt64, {5}, 'c', x));
  ASSERT_OK(NDArray::create(DataType::kInt64, {5}, 'c', y));
  ASSERT_OK(NDArray::zeros(DataType::kInt64, {5}, 'c', z));
  const int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const int64_t xs[] = {kMin, kMax, kMin, kMin, -7};
  const int64_t ys[] = {-1, 1, 3, 0, 2};
  for (int i = 0; i < 5; ++i) x.data_as<int64_t>()[i] = xs[i], y.data_as<int64_t>()[i] = ys[i];
  auto got = [&](BinaryOp op) {
    EXPECT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(op), x, y, z));
    return std::vector<int64_t>(z.data_as<int64_t>(), z.data_as<int64_t>() + 5);
  };
  EXPECT_EQ(got(BinaryOp::add), (std::vector<int64_t>{kMax, kMin, kMin + 3, kMin, -5}));
  EXPECT_EQ(got(BinaryOp::divide), (std::vector<int64_t>{kMin, kMax, kMin / 3, 0, -3}));
  EXPECT_EQ(got(BinaryOp::floor_div), (std::vector<int64_t>{kMin, kMax, kMin / 3 - 1, 0, -4}));
  EXPECT_EQ(got(BinaryOp::floor_mod), (std::vector<int64_t>{0, 0, 1, 0, 1}));
  EXPECT_EQ(got(BinaryOp::multiply), (std::vector<int64_t>{kMin, kMax, kMin, 0, -14}));
  EXPECT_EQ(got(BinaryOp::amax), (std::vector<int64_t>{kMin, kMax, kMin, kMin, -7}));
  // (x - y)^2 modulo 2^64: (kMin + 1)^2 = (2^63 - 1)^2 = 1, (kMax - 1)^2 = 4, ...
  EXPECT_EQ(got(BinaryOp::squared_subtract), (std::vector<int64_t>{1, 4, 9, 0, 81}));
}

TEST(BinaryIntegerEdges, PowNegativeExponentsAndWrap) {
  const std::vector<double> x{2, 1, -1, -1, 0, 2, 2, 3, -2, 0};
  const std::vector<double> y{-1, -5, -3, -4, -1, 31, 32, 2, 3, 0};
  EXPECT_EQ(run_i(BinaryOp::pow, DataType::kInt32, x, y), (std::vector<double>{0, 1, -1, 1, 0, kI32Min, 0, 9, -8, 1}));
  EXPECT_EQ(run_i(BinaryOp::pow, DataType::kInt64, {2, -3}, {62, 3}), (std::vector<double>{std::ldexp(1.0, 62), -27}));
}

TEST(BinaryIntegerEdges, NarrowDtypesWrapLikeTheirOwnArithmetic) {
  // int8 computes in int32 and wraps on store: 100 + 100 = -56, -128 - 1 = 127.
  EXPECT_EQ(run_i(BinaryOp::add, DataType::kInt8, {100, -128, 5}, {100, -1, -3}), (std::vector<double>{-56, 127, 2}));
  EXPECT_EQ(run_i(BinaryOp::subtract, DataType::kInt8, {-128, 0}, {1, -128}), (std::vector<double>{127, -128}));
  EXPECT_EQ(run_i(BinaryOp::multiply, DataType::kUInt8, {16, 3}, {16, 7}), (std::vector<double>{0, 21}));
  EXPECT_EQ(run_i(BinaryOp::divide, DataType::kInt16, {-32768, 9}, {-1, 0}), (std::vector<double>{-32768, 0}));
}

TEST(BinaryIntegerEdges, Uint64UsesUnsignedSemantics) {
  NDArray x, y, z;
  ASSERT_OK(NDArray::create(DataType::kUInt64, {4}, 'c', x));
  ASSERT_OK(NDArray::create(DataType::kUInt64, {4}, 'c', y));
  ASSERT_OK(NDArray::zeros(DataType::kUInt64, {4}, 'c', z));
  const uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const uint64_t xs[] = {kMax, kMax, 10, 3};
  const uint64_t ys[] = {2, 0, kMax, 40};
  for (int i = 0; i < 4; ++i) x.data_as<uint64_t>()[i] = xs[i], y.data_as<uint64_t>()[i] = ys[i];
  auto got = [&](BinaryOp op) {
    EXPECT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(op), x, y, z));
    return std::vector<uint64_t>(z.data_as<uint64_t>(), z.data_as<uint64_t>() + 4);
  };
  EXPECT_EQ(got(BinaryOp::divide), (std::vector<uint64_t>{kMax / 2, 0, 0, 0}));
  EXPECT_EQ(got(BinaryOp::floor_mod), (std::vector<uint64_t>{1, 0, 10, 3}));
  EXPECT_EQ(got(BinaryOp::max), (std::vector<uint64_t>{kMax, kMax, kMax, 40}));
  EXPECT_EQ(got(BinaryOp::add), (std::vector<uint64_t>{1, kMax, 9, 43}));
  EXPECT_EQ(got(BinaryOp::pow), (std::vector<uint64_t>{1, 1, 0, 12157665459056928801ull /* 3^40 */}));
}

TEST(BinaryIntegerEdges, ActivationsOnIntegers) {
  // relu: x > threshold ? x : 0; relu6 caps at 6; leaky: alpha * x below 0.
  EXPECT_EQ(run_i(BinaryOp::relu, DataType::kInt32, {-3, 2, 9, 4}, {0, 2, 0, 3}), (std::vector<double>{0, 0, 9, 4}));
  EXPECT_EQ(run_i(BinaryOp::relu6, DataType::kInt32, {-3, 2, 9, 4}, {0, 2, 0, 3}), (std::vector<double>{0, 0, 6, 4}));
  EXPECT_EQ(run_i(BinaryOp::leaky_relu, DataType::kInt32, {-3, 5}, {2, 2}), (std::vector<double>{-6, 5}));
  EXPECT_EQ(run_i(BinaryOp::step, DataType::kInt32, {-3, 2, 3}, {0, 2, 2}), (std::vector<double>{0, 0, 1}));
}

// ---- floats ----

std::vector<double> run_f(BinaryOp op, DataType t, const std::vector<double>& xs, const std::vector<double>& ys) {
  return run_i(op, t, xs, ys);
}

TEST(BinaryFloatEdges, FloorDivisionUsesTheExactQuotient) {
  // 1 / 0.1 rounds to 10 but the exact quotient is 9.99...: floor is 9 (numpy).
  EXPECT_TRUE(all_close(run_f(BinaryOp::floor_div, DataType::kFloat64, {1, -7, 7, 0, -0.0, 1, 0}, {0.1, 2, -2, 5, 5, 0, 0}),
                        {9, -4, -4, 0, -0.0, kInf, kNaN}, 0, 0));
  EXPECT_TRUE(std::signbit(run_f(BinaryOp::floor_div, DataType::kFloat64, {0}, {-5})[0]));
  EXPECT_TRUE(all_close(run_f(BinaryOp::floor_mod, DataType::kFloat64, {-1, 1, 7.5, 1, 6}, {3, -3, 2, 0, -3}),
                        {2, -2, 1.5, kNaN, -0.0}, 0, 1e-15));
  EXPECT_TRUE(std::signbit(run_f(BinaryOp::floor_mod, DataType::kFloat64, {6}, {-3})[0]));
  EXPECT_TRUE(all_close(run_f(BinaryOp::remainder, DataType::kFloat64, {5, 7, -7, 1}, {2, 2, 2, 0}), {1, -1, 1, kNaN}, 0, 0));
  EXPECT_TRUE(all_close(run_f(BinaryOp::truncate_div, DataType::kFloat32, {-7, 7.5, 1}, {2, -2, 0}), {-3, -3, kInf}, 0, 0));
}

TEST(BinaryFloatEdges, NanPolicy) {
  // max/min/amax/amin/relu propagate NaN from either side; step gives 0.
  for (BinaryOp op : {BinaryOp::max, BinaryOp::min, BinaryOp::amax, BinaryOp::amin}) {
    std::vector<double> z = run_f(op, DataType::kFloat32, {kNaN, 1}, {1, kNaN});
    EXPECT_TRUE(std::isnan(z[0]) && std::isnan(z[1])) << legacy::op_name(OPS_PAIRWISE, static_cast<int>(op));
  }
  EXPECT_TRUE(std::isnan(run_f(BinaryOp::relu, DataType::kFloat32, {kNaN}, {0})[0]));
  EXPECT_TRUE(std::isnan(run_f(BinaryOp::relu6, DataType::kFloat32, {kNaN}, {0})[0]));
  EXPECT_EQ(run_f(BinaryOp::step, DataType::kFloat32, {kNaN, 1}, {0, kNaN}), (std::vector<double>{0, 0}));
  // safe_divide / divide_no_nan: 0 wherever y == 0, whatever x is.
  EXPECT_EQ(run_f(BinaryOp::divide_no_nan, DataType::kFloat32, {kNaN, kInf, 0, 3}, {0, 0, 0, 2}),
            (std::vector<double>{0, 0, 0, 1.5}));
  EXPECT_EQ(run_f(BinaryOp::replace_nans, DataType::kFloat64, {kNaN, 2, kInf}, {-1, -1, -1}),
            (std::vector<double>{-1, 2, kInf}));
}

TEST(BinaryFloatEdges, AmaxAminKeepSignAndPreferXOnTies) {
  EXPECT_EQ(run_f(BinaryOp::amax, DataType::kFloat32, {-5, 2, -3}, {4, -7, 3}), (std::vector<double>{-5, -7, -3}));
  EXPECT_EQ(run_f(BinaryOp::amin, DataType::kFloat32, {-5, 2, -3}, {4, -7, 3}), (std::vector<double>{4, 2, -3}));
}

TEST(BinaryFloatEdges, ActivationsWithParameterInY) {
  EXPECT_TRUE(all_close(run_f(BinaryOp::elu, DataType::kFloat64, {-1, 2, 0}, {0.5, 0.5, 0.5}),
                        {0.5 * std::expm1(-1.0), 2, 0}, 1e-15, 0));
  EXPECT_EQ(run_f(BinaryOp::leaky_relu, DataType::kFloat32, {-2, 3}, {0.25, 0.25}), (std::vector<double>{-0.5, 3}));
  EXPECT_EQ(run_f(BinaryOp::relu6, DataType::kFloat32, {8, 5, 1}, {0, 0, 1}), (std::vector<double>{6, 5, 0}));
  EXPECT_EQ(run_f(BinaryOp::copy, DataType::kFloat32, {8, 5}, {1, -2}), (std::vector<double>{1, -2}));
}

// ---- Note [Incomplete gamma] ----

TEST(BinaryIgamma, SpecialValues) {
  const std::vector<double> a{1, 0, -1, 2, 2, 2, kInf, kInf, kNaN, 1};
  const std::vector<double> x{1, 1, 1, -0.5, 0, kInf, 3, kInf, 1, kNaN};
  std::vector<double> p = run_f(BinaryOp::igamma, DataType::kFloat64, a, x);
  std::vector<double> q = run_f(BinaryOp::igammac, DataType::kFloat64, a, x);
  EXPECT_TRUE(all_close(p, {1 - std::exp(-1.0), kNaN, kNaN, kNaN, 0, 1, 0, kNaN, kNaN, kNaN}, 1e-14, 0));
  EXPECT_TRUE(all_close(q, {std::exp(-1.0), kNaN, kNaN, kNaN, 1, 0, 1, kNaN, kNaN, kNaN}, 1e-14, 0));
}

TEST(BinaryIgamma, ClosedFormsAcrossBothRegions) {
  // a = 1: P = 1 - e^-x. a = 1/2: P = erf(sqrt(x)), Q = erfc(sqrt(x)), so the
  // far tail (Q ~ 1e-14 at x = 30) checks that Q is not computed as 1 - P.
  const std::vector<double> a{1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5};
  const std::vector<double> x{1e-8, 0.7, 40, 1e-10, 0.3, 2, 30, 600};
  std::vector<double> wp, wq;
  for (size_t i = 0; i < a.size(); ++i) {
    const double s = std::sqrt(x[i]);
    wp.push_back(a[i] == 1 ? -std::expm1(-x[i]) : std::erf(s));
    wq.push_back(a[i] == 1 ? std::exp(-x[i]) : std::erfc(s));
  }
  EXPECT_TRUE(all_close(run_f(BinaryOp::igamma, DataType::kFloat64, a, x), wp, 1e-13, 0));
  EXPECT_TRUE(all_close(run_f(BinaryOp::igammac, DataType::kFloat64, a, x), wq, 1e-13, 0));
}

TEST(BinaryIgamma, FarRangesMatchReference) {
  BinaryGolden p = load_binary_golden("igamma_wide_f64");
  BinaryGolden q = load_binary_golden("igammac_wide_f64");
  EXPECT_TRUE(all_close(run_f(BinaryOp::igamma, DataType::kFloat64, p.x, p.y), p.z, 1e-12, 0));
  EXPECT_TRUE(all_close(run_f(BinaryOp::igammac, DataType::kFloat64, q.x, q.y), q.z, 1e-12, 0));
}

// Note [pow of 2]: one exponent of 2 runs as x * x, which must give pow's
// own results bit for bit: squares that overflow, underflow to subnormals
// and to zero, NaN, infinities and signed zeros, in float32 and float64,
// from the scalar, pairwise and broadcast groups, in place too. Exponents
// near 2, and a y whose rank widens z, stay with pow.
TEST(BinaryPow, SquareGivesPowsResults) {
  const std::vector<double> xs = {0.1, -3.7, 1.5e-20, -2e-23, 1e-200, 2e19, -3e20, 1.3e155, 0.0, -0.0,
                                  kInf, -kInf, kNaN, 1.0000001, 7.25, -123456.78};
  const int64_t n = static_cast<int64_t>(xs.size());
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    NDArray x = make(dt, {n}, xs);
    std::vector<double> want;
    for (int64_t i = 0; i < n; ++i) {
      const double v = x.get_double(i);  // as stored (float32 rounds, 1e-200 flushes to 0)
      want.push_back(dt == DataType::kFloat32 ? static_cast<double>(std::pow(static_cast<float>(v), 2.0f))
                                              : std::pow(v, 2.0));
    }
    auto same = [&](const NDArray& z, const std::vector<double>& w) {
      for (int64_t i = 0; i < n; ++i) {
        const double got = z.get_double(i);
        if (std::isnan(w[i])) {
          EXPECT_TRUE(std::isnan(got)) << i;
        } else {
          EXPECT_EQ(got, w[i]) << i;
          EXPECT_EQ(std::signbit(got), std::signbit(w[i])) << i;
        }
      }
    };
    for (ops_legacy_group_t g : {OPS_SCALAR, OPS_PAIRWISE, OPS_BROADCAST}) {
      SCOPED_TRACE(g);
      NDArray z = zeros(dt, {n});
      ASSERT_OK(run_legacy(g, static_cast<int>(BinaryOp::pow), x, make(dt, {}, {2}), z));
      same(z, want);
    }
    NDArray in_place;
    ASSERT_OK(x.dup('c', in_place));
    ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::pow), in_place, make(dt, {1}, {2}), in_place));
    same(in_place, want);
    // Not a square: pow's own results.
    const double near_two = dt == DataType::kFloat32 ? 2.0000002384185791 : 2.0000000000000004;
    NDArray z = zeros(dt, {n});
    ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::pow), x, make(dt, {1}, {near_two}), z));
    for (int64_t i = 0; i < n; ++i) {
      const double v = x.get_double(i);
      const double w = dt == DataType::kFloat32
                           ? static_cast<double>(std::pow(static_cast<float>(v), static_cast<float>(near_two)))
                           : std::pow(v, near_two);
      if (!std::isnan(w)) {
        EXPECT_EQ(z.get_double(i), w) << i;
      }
    }
    NDArray wide = zeros(dt, {1, n});  // y [1, 1] widens z to [1, n]
    ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::pow), x, make(dt, {1, 1}, {2}), wide));
    same(wide, want);
  }
  // A float32 x with a float64 exponent computes in float64: the square is exact there.
  NDArray x = make(DataType::kFloat32, {2}, {3.0000002, -1e-30});
  NDArray z = zeros(DataType::kFloat64, {2});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::pow), x, make(DataType::kFloat64, {}, {2}), z));
  EXPECT_EQ(z.get_double(0), x.get_double(0) * x.get_double(0));
  EXPECT_EQ(z.get_double(1), x.get_double(1) * x.get_double(1));
}

// Float cubes (Pow's cube_f32): float32 pow(x, 3) is x^3 computed in double
// and rounded once more to float, which is pow(x, 3) in double rounded to
// float: exact cubes, overflow to +-inf, subnormal and zero results, NaN,
// infinities and signed zeros, from one exponent and from an exponent array
// mixing 3 with other values (the per-element branch), and the same bits
// as the fused program's block kernel. float64 stays with pow.
TEST(BinaryPow, Float32CubeIsPowInDoubleRounded) {
  std::vector<double> xs = {0.1, -3.7, 1.5e-20, -2e-13, 3e-15, 7e12, -6.98e12, 6.9e12, 0.0, -0.0,
                            kInf, -kInf, kNaN, 1.0000001, 7.25, -123456.78, 3.0, -1.0 / 3.0};
  for (int k = 0; k < 2000; ++k) xs.push_back(std::ldexp(1.0 + 0.000731 * k, k % 90 - 45) * (k % 3 ? 1 : -1));
  const int64_t n = static_cast<int64_t>(xs.size());
  NDArray x = make(DataType::kFloat32, {n}, xs);
  std::vector<double> want;
  for (int64_t i = 0; i < n; ++i)
    want.push_back(static_cast<double>(static_cast<float>(std::pow(x.get_double(i), 3.0))));
  auto same = [&](const NDArray& z, int64_t i, double w) {
    const double got = z.get_double(i);
    if (std::isnan(w)) return std::isnan(got);
    return got == w && std::signbit(got) == std::signbit(w);
  };
  NDArray z = zeros(DataType::kFloat32, {n});
  ASSERT_OK(run_legacy(OPS_SCALAR, static_cast<int>(BinaryOp::pow), x, make(DataType::kFloat32, {}, {3}), z));
  for (int64_t i = 0; i < n; ++i) ASSERT_TRUE(same(z, i, want[static_cast<size_t>(i)])) << "x = " << xs[i];
  // An exponent per element: 3 where i is even, 2.5 elsewhere (powf's own).
  std::vector<double> ys;
  for (int64_t i = 0; i < n; ++i) ys.push_back(i % 2 ? 2.5 : 3.0);
  NDArray mixed = zeros(DataType::kFloat32, {n});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::pow), x, make(DataType::kFloat32, {n}, ys), mixed));
  for (int64_t i = 0; i < n; ++i) {
    const double w = i % 2 ? static_cast<double>(std::pow(static_cast<float>(x.get_double(i)), 2.5f))
                           : want[static_cast<size_t>(i)];
    ASSERT_TRUE(same(mixed, i, w)) << "x = " << xs[i] << " y = " << ys[static_cast<size_t>(i)];
  }
  // The fused program's block kernel (one value for y), the same bits.
  const legacy::BlockBinaryFn block = legacy::block_binary_f32(static_cast<int>(BinaryOp::pow));
  ASSERT_NE(block, nullptr);
  std::vector<float> xf(static_cast<size_t>(n)), zf(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) xf[static_cast<size_t>(i)] = static_cast<float>(x.get_double(i));
  const float three = 3.0f;
  block(xf.data(), 1, &three, 0, zf.data(), n, ExtraParams{});
  for (int64_t i = 0; i < n; ++i) {
    const float got = zf[static_cast<size_t>(i)], w = static_cast<float>(want[static_cast<size_t>(i)]);
    ASSERT_TRUE(std::isnan(w) ? std::isnan(got) : std::bit_cast<uint32_t>(got) == std::bit_cast<uint32_t>(w)) << i;
  }
  // float64 keeps pow.
  NDArray xd = make(DataType::kFloat64, {3}, {1.0000000000000002, -3.3, 1e100});
  NDArray zd = zeros(DataType::kFloat64, {3});
  ASSERT_OK(run_legacy(OPS_SCALAR, static_cast<int>(BinaryOp::pow), xd, make(DataType::kFloat64, {}, {3}), zd));
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(zd.get_double(i), std::pow(xd.get_double(i), 3.0)) << i;
}

// ---- dtypes ----

TEST(BinaryDtypes, HalfPrecisionInputsComputeInFloat) {
  NDArray x = make(DataType::kFloat16, {4}, {1.5, -2, 0.25, 65504});
  NDArray y = make(DataType::kFloat16, {4}, {0.5, 4, 8, 65504});
  NDArray z = zeros(DataType::kFloat16, {4});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::add), x, y, z));
  EXPECT_TRUE(all_close(z, {2, 2, 8.25, kInf}, 0, 0));  // 131008 overflows float16
  NDArray zf = zeros(DataType::kFloat32, {4});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::add), x, y, zf));
  EXPECT_TRUE(all_close(zf, {2, 2, 8.25, 131008}, 0, 0));  // computed in float, stored as float32

  NDArray b = make(DataType::kBFloat16, {3}, {2, -3, 0.5});
  NDArray e = make(DataType::kBFloat16, {3}, {3, 2, -1});
  NDArray zb = zeros(DataType::kBFloat16, {3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::pow), b, e, zb));
  EXPECT_TRUE(all_close(zb, {8, 9, 2}, 0, 0));
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::igamma), b, make(DataType::kBFloat16, {3}, {1, 1, 1}), zb));
  EXPECT_TRUE(all_close(zb, {0.2642411, kNaN, 0.8427008}, 4e-3, 0));  // bfloat16 keeps 8 bits
}

TEST(BinaryDtypes, MixedDtypesPromote) {
  // int32 with float32 computes in float32: 7 / 2 = 3.5, not 3.
  NDArray xi = make(DataType::kInt32, {3}, {7, -7, 1});
  NDArray yf = make(DataType::kFloat32, {3}, {2, 2, 0.5});
  NDArray z = zeros(DataType::kFloat32, {3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::divide), xi, yf, z));
  EXPECT_EQ(values(z), (std::vector<double>{3.5, -3.5, 2}));
  // ... and converts to an integer z on store (truncating).
  NDArray zi = zeros(DataType::kInt32, {3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::divide), xi, yf, zi));
  EXPECT_EQ(values(zi), (std::vector<double>{3, -3, 2}));
  // float16 with bfloat16 computes in float32; float-only ops accept it.
  NDArray h = make(DataType::kFloat16, {2}, {1, -1});
  NDArray bf = make(DataType::kBFloat16, {2}, {1, 1});
  NDArray za = zeros(DataType::kFloat64, {2});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::atan2), h, bf, za));
  EXPECT_TRUE(all_close(za, {std::atan2(1.0, 1.0), std::atan2(-1.0, 1.0)}, 1e-7, 0));
  // uint8 with int8 computes in int32 (via int16): 200 - (-100) = 300.
  NDArray u = make(DataType::kUInt8, {2}, {200, 0});
  NDArray s = make(DataType::kInt8, {2}, {-100, 5});
  NDArray z16 = zeros(DataType::kInt16, {2});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::subtract), u, s, z16));
  EXPECT_EQ(values(z16), (std::vector<double>{300, -5}));
  // bool inputs compute as integers.
  NDArray t = make(DataType::kBool, {3}, {1, 0, 1});
  NDArray zb = zeros(DataType::kInt32, {3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::add), t, t, zb));
  EXPECT_EQ(values(zb), (std::vector<double>{2, 0, 2}));
}

}  // namespace
