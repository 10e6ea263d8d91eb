// The summation order of a long dense full reduction is the one Note
// [Reduction order] in loops/reduce.h documents (chunks of kReduceChunk,
// blocks of kBlock, kLanes interleaved lanes folded pairwise), independent
// of the thread count: the legacy sum agrees bit for bit with a plain
// re-implementation of that order, with 1, 2 and 3 threads.
#include <cmath>
#include <cstring>
#include <vector>

#include "legacy/reduce_test_util.h"
#include "libops/core/parallel.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/loops/reduce.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

// The documented order for one output over a dense run of n values.
template <typename C>
C documented_sum(const std::vector<C>& x) {
  using Reducer = detail::Reducer<legacy::fn::Sum<C>, C>;
  constexpr int kLanes = Reducer::kLanes;
  constexpr int64_t kBlock = Reducer::kBlock;
  const int64_t n = int64_t(x.size());
  C total = 0;
  for (int64_t c = 0; c < n; c += kReduceChunk) {
    const int64_t chunk_end = std::min(n, c + kReduceChunk);
    C chunk = 0;
    for (int64_t b = c; b < chunk_end; b += kBlock) {
      const int64_t m = std::min(kBlock, chunk_end - b);
      C lane[kLanes] = {};
      int64_t i = 0;
      for (; i + kLanes <= m; i += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] += x[size_t(b + i + k)];
      for (; i < m; ++i) lane[0] += x[size_t(b + i)];
      for (int w = kLanes / 2; w >= 1; w /= 2)
        for (int k = 0; k < w; ++k) lane[k] += lane[k + w];
      chunk += lane[0];
    }
    total += chunk;
  }
  return total;
}

template <typename C>
void expect_documented_order(DataType dtype) {
  // Several chunks, a partial last chunk and block, and a tail shorter than
  // kLanes; values of mixed sign and magnitude, so any other order rounds
  // differently.
  const int64_t n = 3 * kReduceChunk + 5 * 4096 + 77;
  std::vector<C> v(static_cast<size_t>(n));
  uint64_t s = 12345;
  auto uniform = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return double(s >> 11) / double(uint64_t{1} << 53);
  };
  for (auto& a : v) {
    const double u = uniform();
    a = C((u - 0.5) * std::ldexp(1.0, int(40 * uniform()) - 20));  // zero mean, magnitudes 2^-21 .. 2^19
  }
  NDArray x;
  ASSERT_OK(NDArray::create(dtype, {n}, 'c', x));
  std::memcpy(x.data(), v.data(), v.size() * sizeof(C));
  const C want = documented_sum(v);
  for (int threads = 1; threads <= 3; ++threads) {
    set_num_threads(threads);
    NDArray z = make_z(dtype, {});
    ASSERT_OK(run_reduce(OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::sum), x, nullptr, z, {0}));
    const C got = z.data_as<C>()[0];
    EXPECT_EQ(std::memcmp(&got, &want, sizeof(C)), 0) << threads << " threads: " << got << " vs " << want;
  }
  set_num_threads(0);
}

TEST(ReduceOrder, Float32SumFollowsTheDocumentedOrderWithAnyThreadCount) {
  expect_documented_order<float>(DataType::kFloat32);
}

TEST(ReduceOrder, Float64SumFollowsTheDocumentedOrderWithAnyThreadCount) {
  expect_documented_order<double>(DataType::kFloat64);
}

// Many lanes per vector register: 64 float accumulators (8 AVX registers)
// keep a dense float sum bound by memory, not by add latency.
TEST(ReduceOrder, LaneCountsFollowTheAccumulatorSize) {
  EXPECT_EQ((detail::Reducer<legacy::fn::Sum<float>, float>::kLanes), 64);
  EXPECT_EQ((detail::Reducer<legacy::fn::Sum<double>, double>::kLanes), 32);
}

}  // namespace
