// The transform_strict table: every op against the mpmath goldens of
// tools/gen_goldens_transform.py in float32, float64, float16 and bfloat16,
// through a strided transposed view, and the validation errors.
#include <cfloat>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "libops/legacy/ops/transform_strict_ops.h"
#include "transform_test_util.h"

using namespace libops;
using namespace libops::test;
namespace tr = libops::test::transform;

namespace {

// Tolerances of one op against the exact reference (0 = the default).
// Defaults: float32 3e-7 relative (the C library's float functions and our
// compositions stay within ~2 ulp here), float64 8e-16; absolute FLT_MIN /
// DBL_MIN, since results in the subnormal range carry only absolute accuracy.
struct StrictCase {
  const char* name;
  double rtol32 = 0, atol32 = 0, rtol64 = 0, atol64 = 0;
};
// gtest prints a failing case by its name.
void PrintTo(const StrictCase& c, std::ostream* os) { *os << c.name; }

constexpr double kRtol32 = 3e-7, kAtol32 = FLT_MIN, kRtol64 = 8e-16, kAtol64 = DBL_MIN;

// Wider tolerances, and why:
//  * gelu, precise_gelu (and gelu_derivative) in the negative tail: the
//    result is ~exp(-c x^2) or ~exp(-c x^3), so the rounding of the exponent's
//    argument is amplified by |x|^2..|x|^3 (condition number ~20 at x = -5,
//    ~2000 at x = -20): up to ~25 ulp in float32, ~350 ulp in float64, for
//    results below 1e-6.
//  * gelu_derivative, precise_gelu_derivative, mish_derivative cancel near
//    their roots (x ~ -0.75, -0.75, -1.19): two terms of ~0.25 subtract, so
//    the error is absolute, a few ulp of 0.25.
//  * digamma cancels near its positive root x0 = 1.4616...: float64 is good
//    to ~3e-16 absolute there (Note [Digamma]).
const std::vector<StrictCase> kCases = {
    {"exp"}, {"log"}, {"log1p"}, {"expm1"}, {"log2"}, {"log10"}, {"exp2"},
    {"sin"}, {"cos"}, {"tan"}, {"asin"}, {"acos"}, {"atan"},
    {"sinh"}, {"cosh"}, {"tanh"}, {"asinh"}, {"acosh"}, {"atanh"},
    {"sigmoid"}, {"softplus"}, {"softsign"}, {"hard_tanh"}, {"hard_sigmoid"}, {"selu"}, {"swish"},
    {.name = "gelu", .rtol32 = 2e-6, .rtol64 = 5e-14},
    {.name = "precise_gelu", .rtol32 = 2e-6, .rtol64 = 5e-14},
    {"mish"}, {"elu"}, {"log_sigmoid"}, {"rectified_tanh"},
    {"erf"}, {"erfc"}, {"rint"}, {"lgamma"},
    {.name = "digamma", .atol64 = 1e-15},
    {"sigmoid_derivative"}, {"tanh_derivative"}, {"softplus_derivative"}, {"softsign_derivative"},
    {"hard_tanh_derivative"}, {"hard_sigmoid_derivative"}, {"selu_derivative"}, {"swish_derivative"},
    {.name = "gelu_derivative", .rtol32 = 2e-6, .atol32 = 1e-7, .rtol64 = 5e-14, .atol64 = 1e-16},
    {.name = "precise_gelu_derivative", .atol32 = 1e-7, .atol64 = 1e-16},
    {.name = "mish_derivative", .atol32 = 1e-7, .atol64 = 1e-16},
    {"elu_derivative"}, {"rectified_tanh_derivative"}, {"celu"}, {"hard_swish"},
};

tr::Tolerance tol32(const StrictCase& c) {
  return {c.rtol32 > 0 ? c.rtol32 : kRtol32, c.atol32 > 0 ? c.atol32 : kAtol32};
}
tr::Tolerance tol64(const StrictCase& c) {
  return {c.rtol64 > 0 ? c.rtol64 : kRtol64, c.atol64 > 0 ? c.atol64 : kAtol64};
}

class TransformStrictGolden : public ::testing::TestWithParam<StrictCase> {};

TEST_P(TransformStrictGolden, Float32MatchesReference) {
  const StrictCase& c = GetParam();
  EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_STRICT, "strict", c.name, DataType::kFloat32, DataType::kFloat32,
                               tol32(c)));
}

TEST_P(TransformStrictGolden, Float64MatchesReference) {
  const StrictCase& c = GetParam();
  EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_STRICT, "strict", c.name, DataType::kFloat64, DataType::kFloat64,
                               tol64(c)));
}

// float16/bfloat16 compute in float: the result is the float32 result
// rounded once more, so it lies within one unit of the half-precision
// rounding of the exact value at the (rounded) input.
TEST_P(TransformStrictGolden, Float16WithinHalfRounding) {
  const StrictCase& c = GetParam();
  EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_STRICT, "strict", c.name, DataType::kFloat16, DataType::kFloat16,
                               tol32(c)));
}

TEST_P(TransformStrictGolden, BFloat16WithinBFloat16Rounding) {
  const StrictCase& c = GetParam();
  EXPECT_TRUE(tr::check_golden(OPS_TRANSFORM_STRICT, "strict", c.name, DataType::kBFloat16, DataType::kBFloat16,
                               tol32(c)));
}

// A strided transposed input and a Fortran-order output: the direct strided
// loop (float32) and the converting loop (float16).
TEST_P(TransformStrictGolden, StridedTransposedInputIntoFortranOutput) {
  const StrictCase& c = GetParam();
  EXPECT_TRUE(tr::check_strided_golden(OPS_TRANSFORM_STRICT, "strict", c.name, DataType::kFloat32,
                                       DataType::kFloat32, tol32(c)));
  EXPECT_TRUE(tr::check_strided_golden(OPS_TRANSFORM_STRICT, "strict", c.name, DataType::kFloat16,
                                       DataType::kFloat16, tol32(c)));
}

INSTANTIATE_TEST_SUITE_P(AllOps, TransformStrictGolden, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<StrictCase>& info) { return std::string(info.param.name); });

TEST(TransformStrictTable, CasesCoverEveryOpAndNamesAreUnique) {
  std::vector<std::string> names;
  for (const StrictCase& c : kCases) names.push_back(c.name);
  tr::expect_cases_match_table(OPS_TRANSFORM_STRICT, LIBOPS_TRANSFORM_STRICT_COUNT, names);
  // The generated enum agrees with the name list.
  EXPECT_EQ(static_cast<int>(legacy::TransformStrictOp::exp), 0);
  EXPECT_EQ(static_cast<int>(legacy::TransformStrictOp::gelu), legacy::find_op(OPS_TRANSFORM_STRICT, "gelu"));
  EXPECT_EQ(static_cast<int>(legacy::TransformStrictOp::rectified_tanh_derivative),
            legacy::find_op(OPS_TRANSFORM_STRICT, "rectified_tanh_derivative"));
}

// ---- parameters, layouts, in-place ----

TEST(TransformStrict, EluReadsAlphaFromExtraParams) {
  NDArray x = make(DataType::kFloat64, {4}, {-2, -0.5, 0, 1.5});
  NDArray z = zeros(DataType::kFloat64, {4});
  ASSERT_OK(tr::run(OPS_TRANSFORM_STRICT, tr::number(OPS_TRANSFORM_STRICT, "elu"), x, z, {0.5}));
  EXPECT_TRUE(all_close(z, {0.5 * std::expm1(-2.0), 0.5 * std::expm1(-0.5), 0, 1.5}, 1e-15, 0));
  ASSERT_OK(tr::run(OPS_TRANSFORM_STRICT, tr::number(OPS_TRANSFORM_STRICT, "elu_derivative"), x, z, {0.5}));
  // x = 0 takes the alpha branch: alpha * exp(0).
  EXPECT_TRUE(all_close(z, {0.5 * std::exp(-2.0), 0.5 * std::exp(-0.5), 0.5, 1}, 1e-15, 0));
}

TEST(TransformStrict, BroadcastsARowInputAcrossTheOutput) {
  NDArray x = make(DataType::kFloat32, {3}, {-1, 0, 2});
  NDArray z = zeros(DataType::kFloat32, {2, 3});
  ASSERT_OK(tr::run(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::sigmoid), x, z));
  const double a = 1 / (1 + std::exp(1.0)), b = 1 / (1 + std::exp(-2.0));
  EXPECT_TRUE(all_close(z, {a, 0.5, b, a, 0.5, b}, 1e-7, 0));
}

TEST(TransformStrict, RunsInPlaceOnTheSameView) {
  NDArray x = make(DataType::kFloat32, {2, 2}, {0, 1, -1, 2});
  ASSERT_OK(tr::run(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::exp), x, x));
  EXPECT_TRUE(all_close(x, {1, std::exp(1.0), std::exp(-1.0), std::exp(2.0)}, 1e-7, 0));
}

TEST(TransformStrict, FlippedInputIsReadBackwards) {
  NDArray base = make(DataType::kFloat64, {5}, {-2, -1, 0, 1, 2}), x;
  ASSERT_OK(base.flip(0, x));
  NDArray z = zeros(DataType::kFloat64, {5});
  ASSERT_OK(tr::run(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::hard_tanh), x, z));
  EXPECT_TRUE(all_close(z, {1, 1, 0, -1, -1}, 0, 0));
}

TEST(TransformStrict, EmptyArraysAreANoOp) {
  for (const Dims& shape : {Dims{0}, Dims{0, 3}, Dims{4, 0, 2}}) {
    NDArray x = zeros(DataType::kFloat32, shape), z = zeros(DataType::kFloat32, shape);
    EXPECT_OK(tr::run(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::log), x, z));
    EXPECT_EQ(z.length(), 0);
  }
}

// ---- validation ----

TEST(TransformStrict, UnknownNumberIsRejected) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2}), z = zeros(DataType::kFloat32, {2});
  for (int num : {-1, LIBOPS_TRANSFORM_STRICT_COUNT, 9999}) {
    Status s = tr::run(OPS_TRANSFORM_STRICT, num, x, z);
    EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
    EXPECT_EQ(s.message(), "legacy transform_strict: no op number " + std::to_string(num));
  }
}

TEST(TransformStrict, IntegerInputIsRejectedNamingTheOp) {
  NDArray x = make(DataType::kInt32, {2}, {1, 2}), z = zeros(DataType::kInt32, {2});
  Status s = tr::run(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::exp), x, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "exp: input x has dtype int32; expected a float dtype");
}

TEST(TransformStrict, OutputDtypeMustEqualInputDtype) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2}), z = zeros(DataType::kFloat64, {2});
  Status s = tr::run(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::sigmoid), x, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "sigmoid: output z has dtype float64; expected float32");
}

TEST(TransformStrict, ShapeMismatchIsRejectedNamingTheOp) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6)), z = zeros(DataType::kFloat32, {3, 2});
  Status s = tr::run(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::tanh), x, z);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "tanh: input x[2,3] does not match output z[3,2]");
}

}  // namespace

// tanh_c for float (one rational function: Note [Tanh as one rational
// function] in core/fast_math.h) against long double on a dense sweep
// across both forms of its quotient and their seam at 1: within 1.41 ulp
// below 1 and an absolute 3.1e-7 (5.1 ulp) above, as over every float,
// exactly odd; and its special values, 1 from the clamp on.
TEST(TransformStrict, Float32TanhAccuracyAndSpecials) {
  namespace fn = libops::legacy::fn::transform_strict;
  double worst_small = 0, worst_big = 0, worst_abs = 0;
  for (double v = -12; v <= 12; v += 1.0 / 4096) {
    const float x = static_cast<float>(v);
    const long double want = std::tanh(static_cast<long double>(x));
    const float got = fn::tanh_c(x);
    ASSERT_EQ(got, -fn::tanh_c(-x)) << x;
    if (want == 0) continue;
    const double ulp = std::nextafter(std::fabs(static_cast<float>(want)), INFINITY) - std::fabs(static_cast<float>(want));
    const double err = static_cast<double>(std::fabs(got - want));
    if (std::fabs(x) < 1) {
      worst_small = std::max(worst_small, err / ulp);
    } else {
      worst_big = std::max(worst_big, err / ulp);
      worst_abs = std::max(worst_abs, err);
    }
  }
  for (float x : {1e-30f, -1e-20f, 1e-5f, -0.6249999f, 0.9999999f, -1.0f, 1.0000001f})
    EXPECT_NEAR(fn::tanh_c(x), static_cast<float>(std::tanh(static_cast<double>(x))),
                1.41 * std::fabs(std::nextafter(static_cast<float>(std::tanh(static_cast<double>(x))), INFINITY) -
                                static_cast<float>(std::tanh(static_cast<double>(x)))))
        << x;
  EXPECT_LE(worst_small, 1.41);
  EXPECT_LE(worst_big, 5.12);
  EXPECT_LE(worst_abs, 3.1e-7);
  EXPECT_EQ(fn::tanh_c(9.02f), 1.0f);
  EXPECT_EQ(fn::tanh_c(-9.5f), -1.0f);
  EXPECT_EQ(fn::tanh_c(INFINITY), 1.0f);
  EXPECT_EQ(fn::tanh_c(-INFINITY), -1.0f);
  EXPECT_EQ(fn::tanh_c(100.0f), 1.0f);
  EXPECT_TRUE(std::isnan(fn::tanh_c(NAN)));
  EXPECT_TRUE(std::signbit(fn::tanh_c(-0.0f)));
  EXPECT_EQ(fn::tanh_c(-0.0f), 0.0f);
}
