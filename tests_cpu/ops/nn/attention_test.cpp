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

// linear_attention by hand: one head, dk = dv = 1, state 0, the linear
// rule: S_t = sum of k v up to t, o_t = scale q_t S_t.
TEST(LinearAttention, OneScalarHeadByHand) {
  NDArray q = make(DataType::kFloat32, {1, 3, 1}, {1, 2, 3});
  NDArray k = make(DataType::kFloat32, {1, 3, 1}, {1, 1, 2});
  NDArray v = make(DataType::kFloat32, {1, 3, 1}, {4, -1, 0.5});
  NDArray s = zeros(DataType::kFloat32, {1, 1, 1, 1});
  Context ctx;
  ASSERT_OK(run_op("linear_attention", {.in = {&q, &k, &v, &s}, .t = {0.5}, .i = {1, 1, 0}}, ctx));
  // S: 4, 3, 4; o: 0.5 * (1 * 4, 2 * 3, 3 * 4)
  EXPECT_TRUE(all_close(*ctx.output(0), {2, 3, 6}));
  EXPECT_TRUE(all_close(*ctx.output(1), {4}));
}

TEST(LinearAttention, InputsTheRuleDoesNotTakeAndBadShapes) {
  NDArray q = zeros(DataType::kFloat32, {2, 3, 8});
  NDArray k = zeros(DataType::kFloat32, {2, 3, 4});
  NDArray v = zeros(DataType::kFloat32, {2, 3, 6});
  NDArray s = zeros(DataType::kFloat32, {2, 1, 4, 6});
  NDArray g = zeros(DataType::kFloat32, {2, 3, 1});
  Context c1;
  EXPECT_EQ(run_op("linear_attention", {.in = {&q, &k, &v, &s}, .i = {2, 1, 3}}, c1).message(),
            "linear_attention: update_rule gated_delta takes 6 inputs (q, k, v, past_state, decay, beta), got 4");
  Context c2;
  EXPECT_EQ(run_op("linear_attention", {.in = {&q, &k, &v, &s, &g}, .i = {3, 1, 1}}, c2).message(),
            "linear_attention: q[2,3,8]'s last dim must divide by q_num_heads 3 and v[2,3,6]'s by kv_num_heads 1");
  NDArray s_bad = zeros(DataType::kFloat32, {2, 1, 6, 4});
  Context c3;
  EXPECT_EQ(run_op("linear_attention", {.in = {&q, &k, &v, &s_bad}, .i = {2, 1, 0}}, c3).message(),
            "linear_attention: past_state[2,1,6,4] must be [2,1,4,6]");
}

}  // namespace

// Float32 on the CPU without the weights output takes the blocked path
// (Note [Blocked attention]); asking for the weights takes the composed
// one. Both must give the same z, here over several query blocks, causal
// with fewer keys than queries (the first rows see nothing: NaN in both),
// and with masks broadcast along each of their dims.
TEST(DotProductAttention, BlockedPathMatchesTheComposition) {
  const int64_t tq = 600, tk = 520, d = 24;
  std::vector<double> qv(2 * tq * d), kv(2 * tk * d), vv(2 * tk * d);
  for (size_t i = 0; i < qv.size(); ++i) qv[i] = std::sin(0.37 * static_cast<double>(i));
  for (size_t i = 0; i < kv.size(); ++i) kv[i] = std::cos(0.11 * static_cast<double>(i));
  for (size_t i = 0; i < vv.size(); ++i) vv[i] = std::sin(0.05 * static_cast<double>(i) + 1);
  NDArray q = make(DataType::kFloat32, {2, tq, d}, qv), k = make(DataType::kFloat32, {2, tk, d}, kv),
          v = make(DataType::kFloat32, {2, tk, d}, vv);
  // Masks: none, per key, per batch entry and query, per query and key, and
  // a bool one per batch entry and key (every 7th key hidden).
  std::vector<NDArray> masks;
  auto float_mask = [](const Dims& shape) {
    std::vector<double> m(static_cast<size_t>(shape.product()));
    for (size_t i = 0; i < m.size(); ++i) m[i] = 3 * std::sin(0.013 * static_cast<double>(i * i % 1009));
    return make(DataType::kFloat32, shape, m);
  };
  masks.push_back(float_mask({tk}));
  masks.push_back(float_mask({2, tq, 1}));
  masks.push_back(float_mask({tq, tk}));
  std::vector<double> keep(2 * tk);
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = i % 7 != 3;
  masks.push_back(make(DataType::kBool, {2, 1, tk}, keep));
  for (size_t m = 0; m <= masks.size(); ++m)  // the last time without a mask
    for (bool causal : {false, true}) {
      std::vector<NDArray*> in = {&q, &k, &v};
      if (m < masks.size()) in.push_back(&masks[m]);
      SCOPED_TRACE(testing::Message() << "mask " << (m < masks.size() ? masks[m].shape().str() : "none") << " causal "
                                      << causal);
      Context blocked, composed;
      ASSERT_OK(run_op("dot_product_attention", {.in = in, .b = {causal, false}}, blocked));
      ASSERT_OK(run_op("dot_product_attention", {.in = in, .b = {causal, true}}, composed));
      const std::vector<double> a = values(*blocked.output(0)), b = values(*composed.output(0));
      ASSERT_EQ(a.size(), b.size());
      int64_t nan_rows = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(b[i])) {
          EXPECT_TRUE(std::isnan(a[i])) << i;
          nan_rows += i % d == 0;
          continue;
        }
        ASSERT_NEAR(a[i], b[i], 2e-5) << " at " << i;
      }
      EXPECT_EQ(nan_rows, causal ? 2 * (tq - tk) : 0);  // query i sees keys j <= i + tk - tq
    }
}

// Two batch dims, masks that vary along each, and a bool mask that hides
// every key from some queries (NaN rows, as in the composition).
TEST(DotProductAttention, BlockedPathTakesMasksOverSeveralBatchDims) {
  const int64_t tq = 40, tk = 30, d = 8;
  auto ramp = [](const Dims& shape, double f) {
    std::vector<double> m(static_cast<size_t>(shape.product()));
    for (size_t i = 0; i < m.size(); ++i) m[i] = std::sin(f * static_cast<double>(i) + 0.5);
    return make(DataType::kFloat32, shape, m);
  };
  NDArray q = ramp({2, 3, tq, d}, 0.31), k = ramp({2, 3, tk, d}, 0.17), v = ramp({2, 3, tk, d}, 0.07);
  NDArray by_head = ramp({2, 3, 1, tk}, 1.3), by_query = ramp({3, tq, 1}, 0.9);
  std::vector<double> keep(2 * tq * tk);
  // Rows 5, 16, .. of the 80 (2 x 40) hide every key: 4 of batch entry 0's, 3 of entry 1's.
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = (i / tk) % 11 != 5 && i % 5 != 1;
  NDArray hidden = make(DataType::kBool, {2, 1, tq, tk}, keep);
  for (NDArray* mask : {&by_head, &by_query, &hidden}) {
    SCOPED_TRACE(mask->shape().str());
    Context blocked, composed;
    ASSERT_OK(run_op("dot_product_attention", {.in = {&q, &k, &v, mask}, .b = {false, false}}, blocked));
    ASSERT_OK(run_op("dot_product_attention", {.in = {&q, &k, &v, mask}, .b = {false, true}}, composed));
    const std::vector<double> a = values(*blocked.output(0)), b = values(*composed.output(0));
    ASSERT_EQ(a.size(), b.size());
    int64_t nans = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      nans += std::isnan(b[i]);
      if (std::isnan(b[i])) EXPECT_TRUE(std::isnan(a[i])) << i;
      else ASSERT_NEAR(a[i], b[i], 2e-5) << i;
    }
    EXPECT_EQ(nans, mask == &hidden ? (4 + 3) * 3 * d : 0);  // in each of the 3 heads
  }
}

// A mask that would widen the scores is an error, not a bigger output.
TEST(DotProductAttention, MaskMustNotWidenTheScores) {
  NDArray q = zeros(DataType::kFloat32, {2, 4, 8});
  NDArray k = zeros(DataType::kFloat32, {2, 5, 8});
  NDArray v = zeros(DataType::kFloat32, {2, 5, 3});
  NDArray mask = zeros(DataType::kFloat32, {3, 1, 5});
  Context ctx;
  EXPECT_EQ(run_op("dot_product_attention", {.in = {&q, &k, &v, &mask}}, ctx).message(),
            "dot_product_attention: mask[3,1,5] does not broadcast to the scores [2,4,5]");
}
