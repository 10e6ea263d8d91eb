// One row long enough that the radix sort splits its passes between threads
// (kParallelRow in sort_rows.cpp), at several thread counts: the result must
// be ordered, a permutation, and stable, the same at every thread count.
// The keys differ in more than one byte so several passes run, each after
// an earlier pass has reordered the keys (each thread must count its chunk
// as it is then: the bug this guards against wrote out of bounds).
#include <cstdint>
#include <vector>

#include "libops/core/parallel.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(LongRowSort, ThreadedPassesGiveAStableOrderAtAnyThreadCount) {
  constexpr int64_t n = (int64_t{1} << 18) + 4099;
  NDArray x = zeros(DataType::kFloat32, {n});
  float* p = x.data_as<float>();
  uint32_t state = 12345;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;  // a fixed LCG: many distinct values, some repeated
    p[i] = static_cast<float>(static_cast<int32_t>(state >> 12) % 50000) * 0.25f;
  }
  std::vector<double> first;
  for (int threads : {1, 2, 3, 4}) {
    SCOPED_TRACE(threads);
    set_num_threads(threads);
    Context ctx;
    ASSERT_OK(run_op("argsort", {.in = {&x}}, ctx));
    set_num_threads(0);
    const std::vector<double> idx = values(*ctx.output(0));
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = static_cast<int64_t>(idx[static_cast<size_t>(i)]);
      ASSERT_TRUE(k >= 0 && k < n && !seen[static_cast<size_t>(k)]) << "not a permutation at " << i;
      seen[static_cast<size_t>(k)] = true;
      if (i == 0) continue;
      const int64_t prev = static_cast<int64_t>(idx[static_cast<size_t>(i - 1)]);
      ASSERT_LE(p[prev], p[k]) << "out of order at " << i;
      if (p[prev] == p[k]) {
        ASSERT_LT(prev, k) << "not stable at " << i;
      }
    }
    if (first.empty()) first = idx;
    else EXPECT_EQ(idx, first);
  }
}

}  // namespace
