// The transform_same table: every op against the goldens of
// tools/gen_goldens_transform.py for each float dtype, hand-checked integer
// results (wrapping, integer reciprocal, clipping), and validation errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "libops/legacy/ops/transform_same_ops.h"
#include "transform_test_util.h"

using namespace libops;
using namespace libops::test;
namespace tr = libops::test::transform;
using legacy::TransformSameOp;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Every op of the table, its extra params (the goldens of clip_by_value use
// min -2, max 3), and whether integer dtypes are supported.
struct SameCase {
  const char* name;
  bool ints = true;
  std::vector<double> extra = {};
};
void PrintTo(const SameCase& c, std::ostream* os) { *os << c.name; }

const std::vector<SameCase> kCases = {
    {"abs"},      {"neg"},        {"sign"},   {"square"}, {"cube"},  {"floor"},
    {"ceil"},     {"round"},      {"identity"}, {"reciprocal"}, {"relu"}, {"relu6"},
    {"ones_as"},  {"zeros_as"},   {"clip_by_value", true, {-2, 3}}, {"step"}, {"trunc"},
    {"frac", false},
};

// Float results are exact except cube (two roundings: 1 ulp).
constexpr tr::Tolerance kFloat32Tol{2.5e-7, 0}, kFloat64Tol{4.5e-16, 0};

class TransformSameGolden : public ::testing::TestWithParam<SameCase> {};

TEST_P(TransformSameGolden, EveryFloatDtypeMatchesReference) {
  const SameCase& c = GetParam();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}) {
    const tr::Tolerance tol = t == DataType::kFloat64 ? kFloat64Tol : kFloat32Tol;
    EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_SAME, "same", c.name, t, t, tol, c.extra));
  }
}

TEST_P(TransformSameGolden, StridedTransposedInputIntoFortranOutput) {
  const SameCase& c = GetParam();
  for (DataType t : {DataType::kFloat32, DataType::kFloat16})
    EXPECT_TRUE(tr::check_strided_golden(OPS_TRANSFORM_SAME, "same", c.name, t, t, kFloat32Tol, c.extra));
}

TEST_P(TransformSameGolden, IntegersAreSupportedOrRejectedWithTheTypeList) {
  const SameCase& c = GetParam();
  NDArray x = make(DataType::kInt32, {3}, {-2, 0, 5}), z = zeros(DataType::kInt32, {3});
  Status s = tr::run(OPS_TRANSFORM_SAME, tr::number(OPS_TRANSFORM_SAME, c.name), x, z, c.extra);
  if (c.ints) {
    EXPECT_OK(s);
    return;
  }
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), std::string(c.name) +
                             ": unsupported dtype int32 (computes in int32); supported: float16, bfloat16, "
                             "float32, float64");
}

INSTANTIATE_TEST_SUITE_P(AllOps, TransformSameGolden, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<SameCase>& info) { return std::string(info.param.name); });

TEST(TransformSameTable, CasesCoverEveryOpAndNamesAreUnique) {
  std::vector<std::string> names;
  for (const SameCase& c : kCases) names.push_back(c.name);
  // Integer-only ops, tested by hand below.
  for (const char* n : {"bitwise_not", "population_count"}) names.push_back(n);
  tr::expect_cases_match_table(OPS_TRANSFORM_SAME, LIBOPS_TRANSFORM_SAME_COUNT, names);
  EXPECT_EQ(static_cast<int>(TransformSameOp::abs), 0);
  EXPECT_EQ(static_cast<int>(TransformSameOp::neg), 1);
  EXPECT_EQ(static_cast<int>(TransformSameOp::frac), legacy::find_op(OPS_TRANSFORM_SAME, "frac"));
}

// ---- integers (hand values) ----

// An integer array of `dtype` from exact int64 values (set_double would
// round the ends of the int64 range).
template <typename T>
NDArray ints(const std::vector<T>& v) {
  NDArray a = zeros(dtype_of_v<T>, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) a.data_as<T>()[i] = v[i];
  return a;
}
template <typename T>
std::vector<T> read(const NDArray& a) {
  return std::vector<T>(a.data_as<T>(), a.data_as<T>() + a.length());
}
template <typename T>
std::vector<T> apply(TransformSameOp op, const std::vector<T>& in, const std::vector<double>& extra = {}) {
  NDArray x = ints(in), z = zeros(dtype_of_v<T>, x.shape());
  Status s = tr::run(OPS_TRANSFORM_SAME, static_cast<int>(op), x, z, extra);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return read<T>(z);
}

// bitwise_not and population_count work on the bits of x's own dtype.
TEST(TransformSameInt, BitwiseNotAndPopulationCountUseTheDtypesWidth) {
  EXPECT_EQ(apply<int8_t>(TransformSameOp::bitwise_not, {0, -1, 5, -128}), (std::vector<int8_t>{-1, 0, -6, 127}));
  EXPECT_EQ(apply<uint8_t>(TransformSameOp::bitwise_not, {0, 255, 5}), (std::vector<uint8_t>{255, 0, 250}));
  EXPECT_EQ(apply<uint32_t>(TransformSameOp::bitwise_not, {0, 1}), (std::vector<uint32_t>{0xFFFFFFFFu, 0xFFFFFFFEu}));
  EXPECT_EQ(apply<int64_t>(TransformSameOp::bitwise_not, {0, std::numeric_limits<int64_t>::min()}),
            (std::vector<int64_t>{-1, std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(apply<int8_t>(TransformSameOp::population_count, {0, -1, 7, -128}), (std::vector<int8_t>{0, 8, 3, 1}));
  EXPECT_EQ(apply<int16_t>(TransformSameOp::population_count, {-1, 0x0F0F}), (std::vector<int16_t>{16, 8}));
  EXPECT_EQ(apply<int32_t>(TransformSameOp::population_count, {-1, 1 << 30}), (std::vector<int32_t>{32, 1}));
  EXPECT_EQ(apply<uint64_t>(TransformSameOp::population_count, {~uint64_t{0}, uint64_t{1} << 63}),
            (std::vector<uint64_t>{64, 1}));
  // bool: bitwise_not is logical not.
  NDArray b = make(DataType::kBool, {2}, {1, 0}), z = zeros(DataType::kBool, {2});
  ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::bitwise_not), b, z));
  EXPECT_TRUE(all_close(z, {0, 1}));
  NDArray f = make(DataType::kFloat32, {1}, {1}), zf = zeros(DataType::kFloat32, {1});
  EXPECT_EQ(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::population_count), f, zf).code(),
            StatusCode::kDtype);
}

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min(), kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min(), kI64Max = std::numeric_limits<int64_t>::max();

TEST(TransformSameInt, AbsAndNegWrapAtTheMinimumLikeNumpy) {
  EXPECT_EQ(apply<int32_t>(TransformSameOp::abs, {-7, 0, 7, kI32Min, kI32Max}),
            (std::vector<int32_t>{7, 0, 7, kI32Min, kI32Max}));
  EXPECT_EQ(apply<int64_t>(TransformSameOp::neg, {-7, 0, 7, kI64Min, kI64Max}),
            (std::vector<int64_t>{7, 0, -7, kI64Min, -kI64Max}));
  // int8 computes in int32 and wraps on store: |-128| = 128 -> -128.
  EXPECT_EQ(apply<int8_t>(TransformSameOp::abs, {-128, -5, 127}), (std::vector<int8_t>{-128, 5, 127}));
  EXPECT_EQ(apply<int8_t>(TransformSameOp::neg, {-128, -5, 127}), (std::vector<int8_t>{-128, 5, -127}));
  // Unsigned: abs is the identity, neg wraps modulo 2^n.
  EXPECT_EQ(apply<uint8_t>(TransformSameOp::neg, {0, 1, 200}), (std::vector<uint8_t>{0, 255, 56}));
  EXPECT_EQ(apply<uint64_t>(TransformSameOp::abs, {0, 1, ~uint64_t{0}}), (std::vector<uint64_t>{0, 1, ~uint64_t{0}}));
  EXPECT_EQ(apply<uint64_t>(TransformSameOp::neg, {0, 1, 5}), (std::vector<uint64_t>{0, ~uint64_t{0}, ~uint64_t{0} - 4}));
}

TEST(TransformSameInt, SquareAndCubeWrapModuloTwoToTheN) {
  EXPECT_EQ(apply<int32_t>(TransformSameOp::square, {-3, 46340, 65536, kI32Min}),
            (std::vector<int32_t>{9, 2147395600, 0, 0}));
  EXPECT_EQ(apply<int32_t>(TransformSameOp::cube, {-3, 1290, 2000}),
            (std::vector<int32_t>{-27, 2146689000, static_cast<int32_t>(8000000000LL - 2 * 4294967296LL)}));
  EXPECT_EQ(apply<int64_t>(TransformSameOp::square, {-3037000499LL, int64_t{1} << 32}),
            (std::vector<int64_t>{9223372030926249001LL, 0}));
  // int16 computes in int32: 300^2 = 90000 wraps to 90000 - 65536 on store.
  EXPECT_EQ(apply<int16_t>(TransformSameOp::square, {-300, 7}), (std::vector<int16_t>{90000 - 65536, 49}));
}

TEST(TransformSameInt, SignStepAndRelus) {
  const std::vector<int32_t> x{kI32Min, -7, -1, 0, 1, 5, 9, kI32Max};
  EXPECT_EQ(apply<int32_t>(TransformSameOp::sign, x), (std::vector<int32_t>{-1, -1, -1, 0, 1, 1, 1, 1}));
  EXPECT_EQ(apply<int32_t>(TransformSameOp::step, x), (std::vector<int32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(apply<int32_t>(TransformSameOp::relu, x), (std::vector<int32_t>{0, 0, 0, 0, 1, 5, 9, kI32Max}));
  EXPECT_EQ(apply<int32_t>(TransformSameOp::relu6, x), (std::vector<int32_t>{0, 0, 0, 0, 1, 5, 6, 6}));
  EXPECT_EQ(apply<uint64_t>(TransformSameOp::sign, {0, 3}), (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(apply<uint64_t>(TransformSameOp::relu6, {0, 3, 7}), (std::vector<uint64_t>{0, 3, 6}));
}

TEST(TransformSameInt, ReciprocalTruncatesAndDefinesZero) {
  // Note [Integer division]: 1 / 0 = 0; 1 / x truncates toward zero.
  EXPECT_EQ(apply<int32_t>(TransformSameOp::reciprocal, {0, 1, -1, 2, -2, kI32Min}),
            (std::vector<int32_t>{0, 1, -1, 0, 0, 0}));
  EXPECT_EQ(apply<int64_t>(TransformSameOp::reciprocal, {0, 1, -1, kI64Min}), (std::vector<int64_t>{0, 1, -1, 0}));
  EXPECT_EQ(apply<uint64_t>(TransformSameOp::reciprocal, {0, 1, 2}), (std::vector<uint64_t>{0, 1, 0}));
}

TEST(TransformSameInt, RoundingOpsAndIdentityKeepIntegers) {
  const std::vector<int64_t> x{kI64Min, -3, 0, 4, kI64Max};
  for (TransformSameOp op : {TransformSameOp::floor, TransformSameOp::ceil, TransformSameOp::round,
                             TransformSameOp::trunc, TransformSameOp::identity})
    EXPECT_EQ(apply<int64_t>(op, x), x) << legacy::op_name(OPS_TRANSFORM_SAME, static_cast<int>(op));
  EXPECT_EQ(apply<int64_t>(TransformSameOp::ones_as, x), (std::vector<int64_t>(5, 1)));
  EXPECT_EQ(apply<int64_t>(TransformSameOp::zeros_as, x), (std::vector<int64_t>(5, 0)));
}

TEST(TransformSameInt, ClipByValueConvertsBoundsLikeAStore) {
  const std::vector<int32_t> x{-100, -3, 0, 2, 8, 100};
  EXPECT_EQ(apply<int32_t>(TransformSameOp::clip_by_value, x, {-3, 8}), (std::vector<int32_t>{-3, -3, 0, 2, 8, 8}));
  // Bounds truncate toward zero: [-2.7, 7.9] clips to [-2, 7].
  EXPECT_EQ(apply<int32_t>(TransformSameOp::clip_by_value, x, {-2.7, 7.9}),
            (std::vector<int32_t>{-2, -2, 0, 2, 7, 7}));
  // No params: no clipping. Only a min: clipped below.
  EXPECT_EQ(apply<int32_t>(TransformSameOp::clip_by_value, x), x);
  EXPECT_EQ(apply<int32_t>(TransformSameOp::clip_by_value, x, {0}), (std::vector<int32_t>{0, 0, 0, 2, 8, 100}));
  // A negative min saturates to 0 for unsigned; min > max gives max.
  EXPECT_EQ(apply<uint64_t>(TransformSameOp::clip_by_value, {0, 5, 9}, {-4, 6}), (std::vector<uint64_t>{0, 5, 6}));
  EXPECT_EQ(apply<int32_t>(TransformSameOp::clip_by_value, x, {5, 1}), (std::vector<int32_t>(6, 1)));
}

TEST(TransformSameInt, BoolComputesAsInteger) {
  NDArray x = make(DataType::kBool, {3}, {0, 1, 1}), z = zeros(DataType::kBool, {3});
  ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::ones_as), x, z));
  EXPECT_TRUE(all_close(z, {1, 1, 1}, 0, 0));
  ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::zeros_as), x, z));
  EXPECT_TRUE(all_close(z, {0, 0, 0}, 0, 0));
}

// ---- float details the goldens pin down, spelled out ----

TEST(TransformSameFloat, RoundIsHalfAwayFromZeroAndFracKeepsTheSign) {
  NDArray x = make(DataType::kFloat64, {7}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.25});
  NDArray z = zeros(DataType::kFloat64, {7});
  ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::round), x, z));
  EXPECT_TRUE(all_close(z, {-3, -2, -1, 1, 2, 3, -1}, 0, 0));
  ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::frac), x, z));
  EXPECT_TRUE(all_close(z, {-0.5, -0.5, -0.5, 0.5, 0.5, 0.5, -0.25}, 0, 0));
}

TEST(TransformSameFloat, NaNPropagatesExceptThroughStepAndFills) {
  NDArray x = make(DataType::kFloat32, {1}, {kNaN}), z = zeros(DataType::kFloat32, {1});
  for (TransformSameOp op : {TransformSameOp::abs, TransformSameOp::sign, TransformSameOp::relu,
                             TransformSameOp::relu6, TransformSameOp::clip_by_value, TransformSameOp::frac}) {
    ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(op), x, z, {-1, 1}));
    EXPECT_TRUE(std::isnan(z.get_double(0))) << legacy::op_name(OPS_TRANSFORM_SAME, static_cast<int>(op));
  }
  ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::step), x, z));
  EXPECT_EQ(z.get_double(0), 0);
  ASSERT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::reciprocal),
                    make(DataType::kFloat32, {1}, {-0.0}), z));
  EXPECT_EQ(z.get_double(0), -kInf);
}

// ---- validation ----

TEST(TransformSame, EmptyArraysAreANoOp) {
  NDArray x = zeros(DataType::kInt32, {0, 5}), z = zeros(DataType::kInt32, {0, 5});
  EXPECT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::abs), x, z));
  NDArray f = zeros(DataType::kFloat16, {3, 0}), g = zeros(DataType::kFloat16, {3, 0});
  EXPECT_OK(tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::frac), f, g));
  EXPECT_EQ(g.length(), 0);
}

TEST(TransformSame, OutputDtypeMustEqualInputDtype) {
  NDArray x = make(DataType::kInt32, {2}, {1, 2}), z = zeros(DataType::kInt64, {2});
  Status s = tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::square), x, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "square: output z has dtype int64; expected int32");
}

TEST(TransformSame, ShapeMismatchAndUnknownNumberAreRejected) {
  NDArray x = make(DataType::kFloat32, {4}, iota(4)), z = zeros(DataType::kFloat32, {5});
  Status s = tr::run(OPS_TRANSFORM_SAME, static_cast<int>(TransformSameOp::ceil), x, z);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "ceil: input x[4] does not match output z[5]");
  s = tr::run(OPS_TRANSFORM_SAME, LIBOPS_TRANSFORM_SAME_COUNT, x, x);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy transform_same: no op number " + std::to_string(LIBOPS_TRANSFORM_SAME_COUNT));
}

// round is half away from zero, as std::round, in both float types,
// through the functor's own trunc-and-select form: halves, values just
// below them, signed zeros, and the values past 2^23 (float) that are
// integers already.
TEST(TransformSameFloat, RoundIsHalfAwayFromZero) {
  const ExtraParams e;
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f, -0.49999997f, 0.4f, -0.4f, -0.0f, 0.0f,
                  8388609.0f, -8388609.0f, 16777216.0f, 1e30f, inf, -inf, 123.456f, -7.77f}) {
    const float got = legacy::fn::transform_same::Round<float>::op(v, e);
    EXPECT_EQ(got, std::round(v)) << v;
    EXPECT_EQ(std::signbit(got), std::signbit(std::round(v))) << v;
    const double d = legacy::fn::transform_same::Round<double>::op(double(v), e);
    EXPECT_EQ(d, std::round(double(v))) << v;
  }
  EXPECT_TRUE(std::isnan(legacy::fn::transform_same::Round<float>::op(std::numeric_limits<float>::quiet_NaN(), e)));
}

}  // namespace
