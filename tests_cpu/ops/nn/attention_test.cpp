// dot_product_attention beyond its goldens (tests_cpu/golden/attention,
// tools/gen_goldens_attention.py): one key by hand, and the errors.
#include <cmath>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// A single key: every query's weight on it is 1, so z is v's row.
TEST(DotProductAttention, OneKeyGivesItsValue) {
  NDArray q = make(DataType::kFloat32, {3, 2}, {1, 2, -3, 0.5, 100, -100});
  NDArray k = make(DataType::kFloat32, {1, 2}, {0.25, -1});
  NDArray v = make(DataType::kFloat32, {1, 3}, {7, -8, 9});
  Context ctx;
  ASSERT_OK(run_op("dot_product_attention", {.in = {&q, &k, &v}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {7, -8, 9, 7, -8, 9, 7, -8, 9}));
}

TEST(DotProductAttention, BadShapesAndMaskDtype) {
  NDArray q = zeros(DataType::kFloat32, {2, 4, 8});
  NDArray k = zeros(DataType::kFloat32, {2, 5, 6});
  NDArray v = zeros(DataType::kFloat32, {2, 5, 3});
  Context c1;
  EXPECT_EQ(run_op("dot_product_attention", {.in = {&q, &k, &v}}, c1).message(),
            "dot_product_attention: q[2,4,8], k[2,5,6] and v[2,5,3] do not fit [..., Tq, d], [..., Tk, d], [..., Tk, dv]");
  NDArray k8 = zeros(DataType::kFloat32, {2, 5, 8});
  NDArray mask = zeros(DataType::kInt32, {5});
  Context c2;
  EXPECT_FALSE(run_op("dot_product_attention", {.in = {&q, &k8, &v, &mask}}, c2).is_ok());
}

}  // namespace

// Float32 on the CPU without a mask or the weights output takes the blocked
// path (Note [Blocked attention]); asking for the weights takes the composed
// one. Both must give the same z, here over several query blocks, causal
// with fewer keys than queries (the first rows see nothing: NaN in both).
TEST(DotProductAttention, BlockedPathMatchesTheComposition) {
  const int64_t tq = 600, tk = 520, d = 24;
  std::vector<double> qv(2 * tq * d), kv(2 * tk * d), vv(2 * tk * d);
  for (size_t i = 0; i < qv.size(); ++i) qv[i] = std::sin(0.37 * static_cast<double>(i));
  for (size_t i = 0; i < kv.size(); ++i) kv[i] = std::cos(0.11 * static_cast<double>(i));
  for (size_t i = 0; i < vv.size(); ++i) vv[i] = std::sin(0.05 * static_cast<double>(i) + 1);
  NDArray q = make(DataType::kFloat32, {2, tq, d}, qv), k = make(DataType::kFloat32, {2, tk, d}, kv),
          v = make(DataType::kFloat32, {2, tk, d}, vv);
  for (bool causal : {false, true}) {
    Context blocked, composed;
    ASSERT_OK(run_op("dot_product_attention", {.in = {&q, &k, &v}, .b = {causal, false}}, blocked));
    ASSERT_OK(run_op("dot_product_attention", {.in = {&q, &k, &v}, .b = {causal, true}}, composed));
    const std::vector<double> a = values(*blocked.output(0)), b = values(*composed.output(0));
    ASSERT_EQ(a.size(), b.size());
    int64_t nan_rows = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(b[i])) {
        EXPECT_TRUE(std::isnan(a[i])) << i;
        nan_rows += i % d == 0;
        continue;
      }
      EXPECT_NEAR(a[i], b[i], 2e-5) << "causal " << causal << " at " << i;
    }
    EXPECT_EQ(nan_rows, causal ? 2 * (tq - tk) : 0);  // query i sees keys j <= i + tk - tq
  }
}
