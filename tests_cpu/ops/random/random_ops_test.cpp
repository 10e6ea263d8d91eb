// The random ops (Note [Threefry random numbers], libops/ops/random/
// threefry.h) beyond their goldens, which golden_ops_test.cpp runs
// (tools/gen_goldens_random.py): Random123's known answers for the block
// function; the property the scheme is built for (element i depends on the
// seed and i alone, not on the shape, the layout of z or the thread count);
// bfloat16 draws against goldens stored as float32; statistics of large
// draws; and the errors, word for word.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "golden_util.h"
#include "libops/core/parallel.h"
#include "libops/ops/random/threefry.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// Random123's known-answer vectors for threefry2x32_20: key, counter, result.
constexpr uint32_t kKnownAnswers[3][6] = {
    {0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x6b200159, 0x99ba4efe},
    {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x1cb996fc, 0xbb002be7},
    {0x13198a2e, 0x03707344, 0x243f6a88, 0x85a308d3, 0xc4923a9c, 0x483df7a0},
};

std::vector<double> draw(const char* op, const OpCall& call) {
  Context ctx;
  EXPECT_OK(run_op(op, call, ctx));
  return ctx.num_outputs() == 1 ? values(*ctx.output(0)) : std::vector<double>{};
}

std::string error_of(const char* op, const OpCall& call) {
  Context ctx;
  const Status s = run_op(op, call, ctx);
  EXPECT_FALSE(s.is_ok()) << op;
  return s.message();
}

}  // namespace

TEST(Threefry2x32, Random123KnownAnswers) {
  for (const auto& k : kKnownAnswers) {
    uint32_t o0 = 0, o1 = 0;
    ops::rng::threefry2x32(k[0], k[1], k[2], k[3], &o0, &o1);
    EXPECT_EQ(o0, k[4]);
    EXPECT_EQ(o1, k[5]);
  }
  // Through the op and its Nx name, as [3, 2] batches of uint32 and int32.
  std::vector<double> key, ctr, want;
  for (const auto& k : kKnownAnswers) {
    key.insert(key.end(), {double(k[0]), double(k[1])});
    ctr.insert(ctr.end(), {double(k[2]), double(k[3])});
    want.insert(want.end(), {double(k[4]), double(k[5])});
  }
  NDArray ku = make(DataType::kUInt32, {3, 2}, key), cu = make(DataType::kUInt32, {3, 2}, ctr);
  EXPECT_EQ(draw("threefry2x32", {.in = {&ku, &cu}}), want);
  EXPECT_EQ(draw("threefry", {.in = {&ku, &cu}}), want);
  auto as_int32 = [](std::vector<double> v) {  // the same bits read as int32
    for (double& w : v) w = static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(w)));
    return v;
  };
  NDArray ki = make(DataType::kInt32, {3, 2}, as_int32(key)), ci = make(DataType::kInt32, {3, 2}, as_int32(ctr));
  EXPECT_EQ(draw("threefry2x32", {.in = {&ki, &ci}}), as_int32(want));
}

TEST(Threefry2x32, StridedPairsAndBroadcastKey) {
  // Counter pairs as columns of a [2, 3] array (word stride 3), one key for all.
  NDArray base = make(DataType::kUInt32, {2, 3}, {0, 0xffffffff, 0x243f6a88, 0, 0xffffffff, 0x85a308d3}), ctr;
  ASSERT_OK(base.permute({1, 0}, ctr));  // [3, 2]
  NDArray key = make(DataType::kUInt32, {2}, {0, 0});
  const std::vector<double> got = draw("threefry2x32", {.in = {&key, &ctr}});
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], double(0x6b200159));
  EXPECT_EQ(got[1], double(0x99ba4efe));
}

TEST(RandomOps, ElementIDependsOnlyOnTheSeedAndI) {
  // The same flat values whatever the shape, and a prefix for a longer draw.
  for (const char* op : {"random_uniform", "random_normal"}) {
    SCOPED_TRACE(op);
    const std::vector<double> flat = draw(op, {.i = {77, 24}});
    EXPECT_EQ(draw(op, {.i = {77, 2, 3, 4}}), flat);
    std::vector<double> longer = draw(op, {.i = {77, 30}});
    longer.resize(24);
    EXPECT_EQ(longer, flat);
    EXPECT_NE(draw(op, {.i = {78, 24}}), flat);
  }
  const std::vector<double> bits = draw("random_bernoulli", {.t = {0.5}, .i = {5, 40}});
  std::vector<double> longer = draw("random_bernoulli", {.t = {0.5}, .i = {5, 8, 10}});
  longer.resize(40);
  EXPECT_EQ(longer, bits);
}

TEST(RandomOps, SameNumbersAtAnyThreadCount) {
  NDArray logits = make(DataType::kFloat32, {4, 6}, {0.1, 0.5, -1, 2, 0, 0.3, 1, 1, 1, 1, 1, 1, -2, 0, 2, 0, -2, 1,
                                                     0, 0, 0, 0, 0, 5});
  std::vector<double> rows(3000);
  std::iota(rows.begin(), rows.end(), 0.0);
  NDArray x = make(DataType::kInt32, {3000}, rows);
  auto all = [&] {
    return std::vector<std::vector<double>>{
        draw("random_uniform", {.i = {1, 100000}}),
        draw("random_normal", {.i = {2, 50000}, .d = {DataType::kFloat64}}),
        draw("random_bernoulli", {.t = {0.25}, .i = {3, 70000}}),
        draw("random_multinomial", {.in = {&logits}, .i = {4, 500}}),
        draw("random_shuffle", {.in = {&x}, .i = {5}}),
    };
  };
  set_num_threads(1);
  const auto one = all();
  set_num_threads(4);
  const auto four = all();
  set_num_threads(0);
  EXPECT_EQ(one, four);
}

TEST(RandomOps, SuppliedOutputOfAnyLayoutGetsTheCOrderValues) {
  const std::vector<double> want = draw("random_normal", {.i = {9, 3, 4}, .d = {DataType::kFloat64}});
  NDArray f = zeros(DataType::kFloat64, {4, 3}), z;
  ASSERT_OK(f.permute({1, 0}, z));  // [3, 4], F order
  Context ctx;
  ASSERT_OK(run_op("random_normal", {.out = {&z}, .i = {9, 3, 4}, .d = {DataType::kFloat64}}, ctx));
  EXPECT_EQ(values(z), want);
  // A float32 z of a float64 draw's shape holds the float32 draw, not a cast.
  NDArray z32 = zeros(DataType::kFloat32, {3, 4});
  Context c32;
  ASSERT_OK(run_op("random_normal", {.out = {&z32}, .i = {9, 3, 4}, .d = {DataType::kFloat32}}, c32));
  EXPECT_EQ(values(z32), draw("random_normal", {.i = {9, 3, 4}}));
}

TEST(RandomOps, Bfloat16AgainstGoldens) {
  // bfloat16 has no .npy dtype: the generator stores these draws as float32.
  NDArray u = load_golden("random/extra_uniform_bf16.npy"), n = load_golden("random/extra_normal_bf16.npy");
  EXPECT_EQ(draw("random_uniform", {.t = {-2.0, 3.0}, .i = {31, 40}, .d = {DataType::kBFloat16}}), values(u));
  EXPECT_EQ(draw("random_normal", {.t = {1.0, 0.5}, .i = {32, 40}, .d = {DataType::kBFloat16}}), values(n));
}

// Statistics of large draws: each bound is at least 5 standard errors wide.
TEST(RandomOps, UniformStatistics) {
  const int n = 200000;
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
    SCOPED_TRACE(dtype_name(t));
    const std::vector<double> v = draw("random_uniform", {.t = {-1.0, 3.0}, .i = {11, n}, .d = {t}});
    EXPECT_GE(*std::min_element(v.begin(), v.end()), -1.0);
    EXPECT_LT(*std::max_element(v.begin(), v.end()), 3.0);
    EXPECT_NEAR(mean_of(v), 1.0, 5 * std::sqrt(16.0 / 12 / n));
    EXPECT_NEAR(variance_of(v), 16.0 / 12, 0.02);
  }
}

TEST(RandomOps, NormalStatistics) {
  const int n = 200000;
  for (DataType t : {DataType::kFloat32, DataType::kFloat64}) {
    SCOPED_TRACE(dtype_name(t));
    const std::vector<double> v = draw("random_normal", {.t = {2.0, 3.0}, .i = {12, n}, .d = {t}});
    EXPECT_NEAR(mean_of(v), 2.0, 5 * 3.0 / std::sqrt(n));
    EXPECT_NEAR(std::sqrt(variance_of(v)), 3.0, 0.03);
    // Tails: P(|z| > 2) = 0.0455, P(|z| > 3) = 0.0027.
    const double beyond2 = std::count_if(v.begin(), v.end(), [](double x) { return std::fabs(x - 2) > 6; }) / double(n);
    const double beyond3 = std::count_if(v.begin(), v.end(), [](double x) { return std::fabs(x - 2) > 9; }) / double(n);
    EXPECT_NEAR(beyond2, 0.0455, 0.0025);
    EXPECT_NEAR(beyond3, 0.0027, 0.0006);
  }
}

TEST(RandomOps, BernoulliStatistics) {
  const int n = 200000;
  for (double p : {0.05, 0.3, 0.5, 0.99}) {
    const std::vector<double> v = draw("random_bernoulli", {.t = {p}, .i = {13, n}});
    EXPECT_NEAR(mean_of(v), p, 5 * std::sqrt(p * (1 - p) / n) + 1e-9) << p;
  }
  EXPECT_EQ(mean_of(draw("random_bernoulli", {.t = {0.0}, .i = {13, 1000}})), 0.0);
  EXPECT_EQ(mean_of(draw("random_bernoulli", {.t = {1.0}, .i = {13, 1000}})), 1.0);
}

TEST(RandomOps, MultinomialFrequenciesFollowTheProbabilities) {
  const int n = 100000;
  const std::vector<double> p = {0.1, 0.2, 0.3, 0.4};
  std::vector<double> logp;
  for (double q : p) logp.push_back(std::log(q));
  NDArray logits = make(DataType::kFloat32, {1, 4}, logp);
  NDArray probs = make(DataType::kFloat64, {4}, {1, 2, 3, 4});  // unnormalized
  const std::vector<double> from_logits = draw("random_multinomial", {.in = {&logits}, .i = {14, n}});
  const std::vector<double> from_probs = draw("random_multinomial", {.in = {&probs}, .i = {15, n}, .b = {true}});
  for (const auto* v : {&from_logits, &from_probs})
    for (int k = 0; k < 4; ++k) {
      const double f = std::count(v->begin(), v->end(), double(k)) / double(n);
      EXPECT_NEAR(f, p[k], 5 * std::sqrt(p[k] * (1 - p[k]) / n)) << "class " << k;
    }
}

TEST(RandomOps, ShuffleIsAUniformPermutation) {
  // Two sorting rounds from 1626 rows on: still a permutation.
  std::vector<double> rows(5000);
  std::iota(rows.begin(), rows.end(), 0.0);
  NDArray x = make(DataType::kInt64, {5000}, rows);
  std::vector<double> got = draw("random_shuffle", {.in = {&x}, .i = {16}});
  EXPECT_NE(got, rows);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, rows);
  // The 24 orders of 4 rows over 2400 seeds: about 100 each.
  NDArray four = make(DataType::kInt32, {4}, {0, 1, 2, 3});
  std::map<std::vector<double>, int> seen;
  for (int seed = 0; seed < 2400; ++seed) ++seen[draw("random_shuffle", {.in = {&four}, .i = {seed}})];
  EXPECT_EQ(seen.size(), 24u);
  for (const auto& [order, count] : seen) EXPECT_NEAR(count, 100, 50);
}

TEST(RandomOps, EmptyAndScalarShapes) {
  EXPECT_EQ(draw("random_uniform", {.i = {1, 0, 3}}).size(), 0u);
  EXPECT_EQ(draw("random_normal", {.i = {1}}).size(), 1u);  // no shape: a scalar
  NDArray empty = zeros(DataType::kFloat32, {0, 3});
  EXPECT_EQ(draw("random_shuffle", {.in = {&empty}, .i = {1}}).size(), 0u);
  NDArray logits = zeros(DataType::kFloat32, {2, 3});
  EXPECT_EQ(draw("random_multinomial", {.in = {&logits}, .i = {1, 0}}).size(), 0u);
}

TEST(RandomOps, ErrorsWordForWord) {
  NDArray k3 = zeros(DataType::kUInt32, {3}), k22 = zeros(DataType::kUInt32, {2, 2}),
          c32 = zeros(DataType::kUInt32, {3, 2}), cs = zeros(DataType::kInt32, {}), kf = zeros(DataType::kFloat32, {2});
  EXPECT_EQ(error_of("threefry2x32", {.in = {&k3, &c32}}),
            "threefry2x32: key[3]: key and counter need a last dim of 2 (their (word 0, word 1) pairs)");
  EXPECT_EQ(error_of("threefry2x32", {.in = {&k22, &cs}}),
            "threefry2x32: counter[]: key and counter need a last dim of 2 (their (word 0, word 1) pairs)");
  EXPECT_EQ(error_of("threefry2x32", {.in = {&k22, &c32}}),
            "threefry2x32: the pairs of key[2,2] and counter[3,2]: cannot broadcast shapes [2] and [3]: dim 0 must be "
            "equal or 1");
  EXPECT_EQ(error_of("threefry2x32", {.in = {&kf, &c32}}),
            "threefry2x32: unsupported dtype float32 for input 0 [2]; supported: int32, uint32");

  EXPECT_EQ(error_of("random_uniform", {.t = {3.0, 1.0}, .i = {1, 2}}),
            "random_uniform: bounds with min = 3, max = 1: min must not exceed max");
  EXPECT_EQ(error_of("random_uniform", {.t = {0.0, 1e5}, .i = {1, 2}, .d = {DataType::kFloat16}}),
            "random_uniform: bounds with min = 0, max = 100000: both must be finite in float16 (they round to 0 and "
            "inf)");
  EXPECT_EQ(error_of("random_uniform", {.t = {-3e38, 3e38}, .i = {1, 2}}),
            "random_uniform: bounds with min = -3e+38, max = 3e+38: max - min overflows float32");
  EXPECT_EQ(error_of("random_uniform", {.i = {1, 2}, .d = {DataType::kInt32}}),
            "random_uniform: dtype int32: must be one of float16, bfloat16, float32, float64");
  EXPECT_EQ(error_of("random_uniform", {.i = {1, 2, -1}}), "random_uniform: shape [2,-1] has a negative extent");
  EXPECT_EQ(error_of("random_uniform", {}),
            "random_uniform: missing i arg 0 (seed: any 64-bit value; the key is (seed >> 32, seed & 0xffffffff), "
            "JAX's PRNGKey(seed)); random_uniform needs 1 integer (i) args (seed, shape...), got 0");
  EXPECT_EQ(error_of("random_normal", {.t = {0.0, -1.0}, .i = {1, 2}}),
            "random_normal: t arg 1 (stddev) is -1: it must be >= 0 and finite");
  EXPECT_EQ(error_of("random_normal", {.i = {1, 2}, .d = {DataType::kBool}}),
            "random_normal: dtype bool: must be one of float16, bfloat16, float32, float64");
  EXPECT_EQ(error_of("random_bernoulli", {.t = {1.5}, .i = {1, 2}}),
            "random_bernoulli: t arg 0 (p) is 1.5: it must be in [0, 1]");
  EXPECT_EQ(error_of("random_bernoulli", {.i = {1, 2}}),
            "random_bernoulli: missing t arg 0 (p: the probability of a 1 (compared in float32)); random_bernoulli "
            "needs 1 float (t) args (p), got 0");

  NDArray scalar = zeros(DataType::kFloat32, {});
  EXPECT_EQ(error_of("random_shuffle", {.in = {&scalar}, .i = {1}}),
            "random_shuffle: x[] has rank 0: it needs rows (dim 0) to shuffle");

  NDArray logits = zeros(DataType::kFloat32, {2, 3}), no_classes = zeros(DataType::kFloat32, {2, 0});
  NDArray minus = make(DataType::kInt64, {}, {-2}), pair = make(DataType::kInt64, {2}, {1, 2});
  NDArray ints = zeros(DataType::kInt32, {2, 3});
  EXPECT_EQ(error_of("random_multinomial", {.in = {&logits}, .i = {1}}),
            "random_multinomial: num_samples with 0 values: give one, as i arg 1 or as input 1");
  EXPECT_EQ(error_of("random_multinomial", {.in = {&logits, &minus}, .i = {1}}),
            "random_multinomial: num_samples -2: must be >= 0");
  EXPECT_EQ(error_of("random_multinomial", {.in = {&logits, &pair}, .i = {1}}),
            "random_multinomial: num_samples with 2 values: give one, as i arg 1 or as input 1");
  EXPECT_EQ(error_of("random_multinomial", {.in = {&logits}, .i = {1, 2, 3}}),
            "random_multinomial: num_samples (i args 1..) has 2 values: >= 0; 0 to 1 values; or as input 1");
  EXPECT_EQ(error_of("random_multinomial", {.in = {&no_classes}, .i = {1, 2}}),
            "random_multinomial: logits[2,0]: needs rank >= 1 and at least one class along the last dim");
  EXPECT_EQ(error_of("random_multinomial", {.in = {&logits}, .i = {1, 2}, .d = {DataType::kFloat32}}),
            "random_multinomial: dtype float32: must be int32 or int64");
  EXPECT_EQ(error_of("random_multinomial", {.in = {&ints}, .i = {1, 2}}),
            "random_multinomial: unsupported dtype int32 for input 0 [2,3]; supported: float16, bfloat16, float32, "
            "float64");
}
