// The reduction engine (loops/reduce.h): both paths of Note [Reduction
// order], their agreement, thread-count independence, and that each
// reduced element is visited once with its C-order index.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "legacy/reduce_test_util.h"
#include "libops/core/parallel.h"
#include "libops/loops/reduce.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

// Counts positions and how many carry a value different from their index
// (inputs are built with x = reduced C-order position).
struct Visit {
  int64_t n, bad, index_sum;
};
template <typename C> struct PositionCheck {
  static constexpr bool kIndexed = true;
  using Acc = Visit;
  static Acc identity(const ExtraParams&) { return {0, 0, 0}; }
  static Acc map(C x, int64_t i, const ExtraParams&) { return {1, x == C(i) ? 0 : 1, i}; }
  static Acc merge(Acc a, Acc b) { return {a.n + b.n, a.bad + b.bad, a.index_sum + b.index_sum}; }
  // n, unless an element was missed, repeated or carried the wrong index.
  static int64_t finish(Acc a, int64_t n, const ExtraParams&) {
    return a.bad == 0 && a.index_sum == n * (n - 1) / 2 ? a.n : -1 - a.bad;
  }
};

template <typename C> struct PlainSum {
  using Acc = C;
  static Acc identity(const ExtraParams&) { return C(0); }
  static Acc map(C x, const ExtraParams&) { return x; }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static C finish(Acc a, int64_t, const ExtraParams&) { return a; }
};

// Deterministic pseudo-random values in [lo, hi).
std::vector<double> noise(int64_t n, double lo, double hi, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& a : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    a = lo + (hi - lo) * double(s >> 11) / double(uint64_t{1} << 53);
  }
  return v;
}

template <typename Op, typename C>
bool uses_kept_inner(const NDArray& x, NDArray& z, const Dims& axes) {
  return detail::Reducer<Op, C>(x, nullptr, z, axes, ExtraParams{}).kept_inner_applies();
}

NDArray dense_transpose(const NDArray& a) {
  NDArray t, out;
  EXPECT_OK(a.permute({1, 0}, t));
  EXPECT_OK(t.dup('c', out));
  return out;
}

}  // namespace

TEST(ReduceEngine, PathChoiceFollowsTheLayout) {
  NDArray x = make(DataType::kFloat32, {8, 16}, iota(128));
  NDArray z16 = make_z(DataType::kFloat32, {16}), z8 = make_z(DataType::kFloat32, {8}), z1 = make_z(DataType::kFloat32, {});
  EXPECT_TRUE((uses_kept_inner<PlainSum<float>, float>(x, z16, {0})));   // column sums: kept dim innermost
  EXPECT_FALSE((uses_kept_inner<PlainSum<float>, float>(x, z8, {1})));   // row sums: reduced dim innermost
  EXPECT_FALSE((uses_kept_inner<PlainSum<float>, float>(x, z1, {0, 1})));  // nothing kept
  NDArray xt = transposed_view(x);  // F-order memory: now row sums keep the innermost dim
  EXPECT_TRUE((uses_kept_inner<PlainSum<float>, float>(xt, z8, {1})));
}

TEST(ReduceEngine, EveryPositionIsVisitedOnceWithItsIndex) {
  // x[a, b, c] = the C-order position of (a, c) within the reduced dims {0, 2}
  // (and of b alone for axes {1}); all layouts and both paths.
  const int64_t A = 5, B = 7, C = 300;
  for (std::vector<int64_t> axes : {std::vector<int64_t>{0, 2}, std::vector<int64_t>{1}}) {
    std::vector<double> v(static_cast<size_t>(A * B * C));
    for (int64_t a = 0; a < A; ++a)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < C; ++c) v[size_t((a * B + b) * C + c)] = axes.size() == 2 ? double(a * C + c) : double(b);
    const int64_t n_red = axes.size() == 2 ? A * C : B;
    NDArray dense = make(DataType::kFloat32, {A, B, C}, v);
    for (const NDArray& x : {dense, transposed_view(dense), strided_view(dense)}) {
      Dims ax(axes.data(), int(axes.size()));
      NDArray z = make_z(DataType::kInt64, reduced_dims(x.shape(), axes, false));
      reduce_run<PositionCheck<float>, float>(x, nullptr, z, ax, ExtraParams{});
      for (double got : values(z)) ASSERT_EQ(got, double(n_red)) << ax.str();
      // Non-direct input (float32 converted to double blocks) and 2 threads.
      set_num_threads(2);
      NDArray z2 = make_z(DataType::kInt64, reduced_dims(x.shape(), axes, true));
      reduce_run<PositionCheck<double>, double>(x, nullptr, z2, ax, ExtraParams{});
      set_num_threads(0);
      for (double got : values(z2)) ASSERT_EQ(got, double(n_red)) << ax.str();
    }
  }
  // Long reductions: chunked on both paths.
  const int64_t n = 3 * kReduceChunk + 17;
  NDArray line = make(DataType::kFloat32, {n}, iota(n));
  NDArray z = make_z(DataType::kInt64, {});
  reduce_run<PositionCheck<float>, float>(line, nullptr, z, Dims{0}, ExtraParams{});
  EXPECT_EQ(z.get_int64(0), n);
  std::vector<double> twice(static_cast<size_t>(2 * 80000));
  for (size_t i = 0; i < twice.size(); ++i) twice[i] = double(i / 2);
  NDArray cols = make(DataType::kFloat32, {80000, 2}, twice);
  NDArray zc = make_z(DataType::kInt64, {2});
  ASSERT_TRUE((uses_kept_inner<PositionCheck<float>, float>(cols, zc, {0})));
  reduce_run<PositionCheck<float>, float>(cols, nullptr, zc, Dims{0}, ExtraParams{});
  EXPECT_TRUE(all_close(zc, {80000, 80000}, 0, 0));
}

TEST(ReduceEngine, LongReductionsAreBitIdenticalWithOneAndTwoThreads) {
  // Each case switches thread mode between 1 and 2 threads: one output
  // (chunks across threads), 6 outputs (whole outputs with 1 thread, chunks
  // with 2), and the kept-inner path with few and with 6 slices.
  struct Case {
    Dims shape;
    std::vector<int64_t> axes;
  };
  const Case cases[] = {{{300000}, {0}}, {{6, 70000}, {1}}, {{100000, 3}, {0}}, {{50, 6144}, {0}}};
  for (const Case& c : cases) {
    NDArray x = make(DataType::kFloat32, c.shape, noise(c.shape.product(), -1, 1, 7));
    std::vector<double> got[2];
    for (int t = 0; t < 2; ++t) {
      set_num_threads(t + 1);
      NDArray z = make_z(DataType::kFloat32, reduced_dims(c.shape, c.axes, false));
      ASSERT_OK(run_reduce(OPS_REDUCE_SAME, 0, x, nullptr, z, c.axes));
      got[t] = values(z);
    }
    set_num_threads(0);
    ASSERT_EQ(got[0].size(), got[1].size());
    EXPECT_EQ(std::memcmp(got[0].data(), got[1].data(), got[0].size() * sizeof(double)), 0) << c.shape.str();
    // And close to the sum in double.
    const int64_t outs = int64_t(got[0].size());
    std::vector<double> exact(got[0].size(), 0.0);
    std::vector<double> xv = values(x);
    const bool rows = c.axes[0] == 1 || c.shape.size() == 1;
    for (int64_t i = 0; i < x.length(); ++i) exact[size_t(rows ? i / (x.length() / outs) : i % outs)] += double(float(xv[size_t(i)]));
    EXPECT_TRUE(all_close(got[0], exact, 1e-4, 1e-3)) << c.shape.str();
  }
}

TEST(ReduceEngine, KeptInnerAndGenericPathsAgreeForEveryOp) {
  // The same [37, 70] values reduced over the 37: once as column reductions
  // of a row-major array (kept-inner path) and once as row reductions of its
  // dense transpose (generic path). Float results agree up to rounding;
  // everything else exactly.
  const ops_legacy_group_t groups[] = {OPS_REDUCE_FLOAT, OPS_REDUCE_SAME, OPS_REDUCE_BOOL, OPS_REDUCE_LONG,
                                       OPS_REDUCE3,      OPS_INDEX_REDUCE, OPS_SUMMARY_STATS};
  struct Data {
    const char* what;
    double lo, hi;
    DataType dtype;
  };
  const Data datas[] = {{"signed float32", -2, 2, DataType::kFloat32},
                        {"positive float64", 0, 1, DataType::kFloat64},
                        {"float16 (converted on load)", -2, 2, DataType::kFloat16},
                        {"int32", -9, 9, DataType::kInt32}};
  NDArray probe = make_z(DataType::kFloat32, {70});
  for (const Data& d : datas) {
    std::vector<double> xv = noise(37 * 70, d.lo, d.hi, 1), yv = noise(37 * 70, d.lo, d.hi, 2);
    if (d.dtype == DataType::kInt32)
      for (auto* v : {&xv, &yv})
        for (double& a : *v) a = std::floor(a);
    xv[5 * 70 + 3] = xv[30 * 70 + 3];  // a tie in column 3
    NDArray x = make(d.dtype, {37, 70}, xv), y = make(d.dtype, {37, 70}, yv);
    NDArray xt = dense_transpose(x), yt = dense_transpose(y);
    ASSERT_TRUE((uses_kept_inner<PlainSum<float>, float>(x, probe, {0})));
    ASSERT_FALSE((uses_kept_inner<PlainSum<float>, float>(xt, probe, {1})));
    for (ops_legacy_group_t g : groups) {
      const legacy::LegacyOpInfo* ops = nullptr;
      const int n_ops = legacy::list_ops(g, &ops);
      const DataType zt = result_dtype(g, d.dtype);
      for (int r = 0; r < n_ops; ++r) {
        SCOPED_TRACE(std::string(ops[r].name) + " on " + d.what);
        NDArray z_kept = make_z(zt, {70}), z_generic = make_z(zt, {70});
        const ExtraParams e = extras_for(ops[r].name);
        ASSERT_OK(run_reduce(g, ops[r].num, x, g == OPS_REDUCE3 ? &y : nullptr, z_kept, {0}, e));
        ASSERT_OK(run_reduce(g, ops[r].num, xt, g == OPS_REDUCE3 ? &yt : nullptr, z_generic, {1}, e));
        double rtol = 0, atol = 0;  // integers, bools and indices: exact
        if (zt == DataType::kFloat64) rtol = atol = 1e-12;
        if (zt == DataType::kFloat32) rtol = 1e-5, atol = 1e-4;
        if (zt == DataType::kFloat16) rtol = atol = 2e-3;  // one fp16 rounding step
        EXPECT_TRUE(all_close(z_kept, values(z_generic), rtol, atol));
      }
    }
  }
}
