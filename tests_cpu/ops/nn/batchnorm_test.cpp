// batchnorm against numpy goldens (tools/gen_goldens_nn.py), in place,
// broadcast-shaped parameters, and argument errors.
#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

struct BnCase {
  const char* name;
  bool gamma, beta;
};
void PrintTo(const BnCase& c, std::ostream* os) { *os << c.name; }
// Mirrors gen_batchnorm() in tools/gen_goldens_nn.py.
const BnCase kBnCases[] = {{"nchw", true, true}, {"nhwc_offset_only", false, true}, {"features_scale_only", true, false}};

class BatchnormGolden : public ::testing::TestWithParam<std::tuple<BnCase, DataType>> {};

TEST_P(BatchnormGolden, MatchesNumpy) {
  const auto [c, dtype] = GetParam();
  const std::string prefix = std::string("batchnorm_") + c.name;
  NDArray x = nn_golden(prefix, "x", dtype), mean = nn_golden(prefix, "mean", dtype);
  NDArray var = nn_golden(prefix, "var", dtype);
  NDArray gamma = c.gamma ? nn_golden(prefix, "gamma", dtype) : NDArray();
  NDArray beta = c.beta ? nn_golden(prefix, "beta", dtype) : NDArray();
  std::vector<NDArray*> in = {&x, &mean, &var};
  if (c.gamma) in.push_back(&gamma);
  if (c.beta) in.push_back(&beta);
  NDArray eps = nn_golden(prefix, "targs");
  Context ctx;
  ASSERT_OK(run_op("batchnorm", {.in = in, .t = {eps.get_double(0)}, .i = nn_golden_ints(prefix, "iargs")}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), dtype);
  const double tol = golden_tolerance(dtype);
  EXPECT_TRUE(all_close(*ctx.output(0), values(nn_golden(prefix, "z")), tol, tol));
}

INSTANTIATE_TEST_SUITE_P(Cases, BatchnormGolden,
                         ::testing::Combine(::testing::ValuesIn(kBnCases),
                                            ::testing::Values(DataType::kFloat64, DataType::kFloat32)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).name) + "_" +
                                  dtype_name(std::get<1>(info.param));
                         });

TEST(BatchnormOp, DefaultsByHand) {
  // No i or t args: gamma is present (4 inputs), axis 1, epsilon 1e-5.
  // x [2, 2]: column 0 has mean 1, variance 4 - eps; column 1 mean -1,
  // variance 1 - eps, so each divisor is exact.
  NDArray x = make(DataType::kFloat64, {2, 2}, {3, 0, -1, -3});
  NDArray mean = make(DataType::kFloat64, {2}, {1, -1});
  NDArray var = make(DataType::kFloat64, {2}, {4 - 1e-5, 1 - 1e-5});
  NDArray gamma = make(DataType::kFloat64, {2}, {10, 100});
  Context ctx;
  ASSERT_OK(run_op("batchnorm", {.in = {&x, &mean, &var, &gamma}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {10, 100, -10, -200}, 1e-12, 1e-12));
}

TEST(BatchnormOp, InPlaceWithBroadcastShapedFloat32Parameters) {
  // float64 x with [1, C, 1, 1] float32 parameters, run in place.
  const std::string prefix = "batchnorm_nchw";
  NDArray x = nn_golden(prefix, "x");
  std::vector<NDArray> params;
  for (const char* name : {"mean", "var", "gamma", "beta"}) {
    NDArray p = nn_golden(prefix, name, DataType::kFloat32), r;
    EXPECT_OK(p.reshape({1, 3, 1, 1}, r));
    params.push_back(r);
  }
  Context ctx;
  NDArray eps = nn_golden(prefix, "targs");
  ASSERT_OK(run_op("batchnorm",
                   {.in = {&x, &params[0], &params[1], &params[2], &params[3]},
                    .t = {eps.get_double(0)},
                    .i = nn_golden_ints(prefix, "iargs"),
                    .inplace = true},
                   ctx));
  EXPECT_TRUE(ctx.output(0)->same_view(x));
  EXPECT_TRUE(all_close(x, values(nn_golden(prefix, "z")), 1e-5, 1e-5));
}

TEST(BatchnormOp, EmptyBatch) {
  NDArray x = zeros(DataType::kFloat32, {0, 3, 2, 2});
  NDArray m = make(DataType::kFloat32, {3}, {1, 2, 3}), v = make(DataType::kFloat32, {3}, {1, 2, 3});
  Context ctx;
  ASSERT_OK(run_op("batchnorm", {.in = {&x, &m, &v}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 3, 2, 2}));
}

TEST(BatchnormOp, RejectsBadArguments) {
  NDArray x = make(DataType::kFloat32, {2, 3, 2, 2}, iota(24));
  NDArray c3 = make(DataType::kFloat32, {3}, {1, 2, 3}), c4 = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  Context a;
  Status s = run_op("batchnorm", {.in = {&x, &c3, &c4}}, a);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "batchnorm: variance[4] does not match x[2,3,2,2] at axis 1: it must be [3] (or x's rank with 3 at axis "
            "1 and 1 elsewhere)");
  Context b;
  s = run_op("batchnorm", {.in = {&x, &c3, &c3, &c3}, .i = {1, 1}}, b);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "batchnorm: got 4 inputs but apply_scale=1 and apply_offset=1 call for 5 (x, mean, variance, gamma, "
            "beta)");
  Context c;
  s = run_op("batchnorm", {.in = {&x, &c3, &c3}, .i = {0, 0, 4}}, c);
  EXPECT_EQ(s.message(), "batchnorm: axis (i arg 2) is 4: it must be an axis of input 0 (x) [2,3,2,2], in [-4, 3]");
  Context d;
  s = run_op("batchnorm", {.in = {&x, &c3, &c3}, .t = {-1.0}}, d);
  EXPECT_EQ(s.message(), "batchnorm: t arg 0 (epsilon) is -1: it must be >= 0 and finite");
  Context e;
  s = run_op("batchnorm", {.in = {&x, &c3, &c3}, .i = {0, 0, -1}}, e);  // NHWC axis, but C is 2 there
  EXPECT_TRUE(has_substr(s.message(), "mean[3] does not match x[2,3,2,2] at axis 3: it must be [2]"));
}

}  // namespace
