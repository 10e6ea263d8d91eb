// cumsum and cumprod of rows scanned in vector lanes (Note [Prefix sums in
// lanes]): lengths around the lane pairs (16 float32, 8 float64/int64
// elements), rows long enough to be split between threads, the exclusive
// and reverse flags, and integers that wrap. Expected values are the plain
// left-to-right loop, in long double for floats and in uint64 for integers.
#include <cmath>
#include <cstdint>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/loops/streaming_store.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// x[i] in (0.5, 1.5) (sums) or (1 - 1e-4, 1 + 1e-4) (products), from a fixed LCG.
std::vector<double> row_values(int64_t n, bool product) {
  std::vector<double> v(static_cast<size_t>(n));
  uint32_t state = 2024;
  for (auto& e : v) {
    state = state * 1664525u + 1013904223u;
    const double u = static_cast<double>(state >> 8) / double(1 << 24);
    e = product ? 1.0 + (u - 0.5) * 2e-4 : 0.5 + u;
  }
  return v;
}

// The scan as a left-to-right loop (exclusive/reverse as TensorFlow's).
std::vector<long double> reference(const std::vector<double>& x, bool product, bool exclusive, bool reverse) {
  const size_t n = x.size();
  std::vector<long double> z(n);
  long double acc = product ? 1.0L : 0.0L;
  for (size_t k = 0; k < n; ++k) {
    const size_t i = reverse ? n - 1 - k : k;
    if (exclusive) z[i] = acc;
    acc = product ? acc * x[i] : acc + x[i];
    if (!exclusive) z[i] = acc;
  }
  return z;
}

// `offset` > 0 writes into a view of a bigger output that starts that many
// elements in, so z is not 64-byte aligned.
void check_float_scan(DataType dtype, const char* op, int64_t n, bool exclusive, bool reverse, int threads,
                      int64_t offset = 0) {
  SCOPED_TRACE(testing::Message() << op << " " << dtype_name(dtype) << " n=" << n << " exclusive=" << exclusive
                                  << " reverse=" << reverse << " threads=" << threads);
  const bool product = std::string(op) == "cumprod";
  const std::vector<double> xv = row_values(n, product);
  NDArray x = make(dtype, {n}, xv);
  // The reference reads the values x holds (float32 rounds them).
  const std::vector<long double> want = reference(values(x), product, exclusive, reverse);
  NDArray whole = zeros(dtype, {n + offset}), z;
  ASSERT_OK(whole.slice(0, offset, n + offset, 1, z));
  set_num_threads(threads);
  Context ctx;
  const Status s = run_op(op, {.in = {&x}, .out = {&z}, .i = {exclusive, reverse, 0}}, ctx);
  set_num_threads(0);
  ASSERT_OK(s);
  const std::vector<double> got = values(z);
  // Rounding of a sum of n positive terms drifts like sqrt(n) * eps of the
  // total (loosely bounded here). Products of factors near 1 round with a
  // bias (a plain float32 loop drifts by ~n/16 eps here), so they get the
  // worst-case n * eps. A lost lane or a wrong carry is off by far more.
  const double eps = dtype == DataType::kFloat32 ? 6e-8 : 1.2e-16;
  for (int64_t i = 0; i < n; ++i) {
    const long double w = want[static_cast<size_t>(i)];
    const double growth = product ? double(n) + 1.0 : 8.0 * std::sqrt(double(n) + 1.0);
    const double tol = eps * static_cast<double>(std::fabs(w)) * growth + eps;
    ASSERT_NEAR(got[static_cast<size_t>(i)], static_cast<double>(w), tol) << "at " << i;
  }
}

TEST(CumulativeLanes, FloatRowsAroundThePairsOfLanes) {
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat64})
    for (const char* op : {"cumsum", "cumprod"})
      for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 1000, 4099})
        for (bool exclusive : {false, true})
          for (bool reverse : {false, true}) check_float_scan(dtype, op, n, exclusive, reverse, 1);
}

TEST(CumulativeLanes, LongRowsSplitBetweenThreads) {
  // At least 65536 elements a thread: the row is cut into chunks whose
  // totals (summed in lanes) seed each chunk's scan.
  for (int threads : {1, 2, 3})
    for (DataType dtype : {DataType::kFloat32, DataType::kFloat64}) {
      check_float_scan(dtype, "cumsum", 65536 * 3 + 37, false, false, threads);
      check_float_scan(dtype, "cumsum", 65536 * 3 + 37, true, true, threads);
    }
  check_float_scan(DataType::kFloat64, "cumprod", 65536 * 3 + 5, false, true, 2);
  // Past 2^18 elements the row is scanned span by span, each span's carry
  // the total of all before it.
  check_float_scan(DataType::kFloat64, "cumsum", (1 << 18) * 2 + 12345, false, false, 3);
  check_float_scan(DataType::kFloat32, "cumsum", (1 << 18) * 2 + 12345, true, true, 2);
}

// Outputs past streaming_store_threshold() go out as streaming stores, in
// 128-byte tiles from z's first 64-byte boundary (Note [Streaming stores]);
// the threshold is lowered so that small rows take that path: rows around
// a tile, unaligned outputs, and rows split between threads.
TEST(CumulativeLanes, StreamedOutputsMatchTheLoopAtEachThreadCount) {
  set_streaming_store_threshold(1);
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat64})
    for (const char* op : {"cumsum", "cumprod"})
      for (int64_t n : {1, 31, 32, 33, 63, 64, 65, 1000})
        for (int64_t offset : {0, 1, 3})
          for (bool exclusive : {false, true}) check_float_scan(dtype, op, n, exclusive, !exclusive, 1, offset);
  for (int threads : {1, 2, 3}) {
    check_float_scan(DataType::kFloat32, "cumsum", 65536 * 3 + 37, false, false, threads, 5);
    check_float_scan(DataType::kFloat64, "cumsum", (1 << 18) * 2 + 12345, true, true, threads, 1);
  }
  set_streaming_store_threshold(0);
}

TEST(CumulativeLanes, IntegersWrapAsTheScalarLoop) {
  // int64 values near 2^62 overflow the running sum several times; the
  // result is the sum modulo 2^64, as numpy's int64 cumsum gives.
  for (int64_t n : {5, 16, 17, 1001, 65536 * 2 + 3})
    for (int threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << "n=" << n << " threads=" << threads);
      NDArray x = zeros(DataType::kInt64, {n});
      int64_t* p = x.data_as<int64_t>();
      uint64_t state = 99;
      for (int64_t i = 0; i < n; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = static_cast<int64_t>(state >> 1) - (int64_t{1} << 61);
      }
      set_num_threads(threads);
      Context sum, prod;
      const Status s1 = run_op("cumsum", {.in = {&x}, .i = {0, 0, 0}}, sum);
      const Status s2 = run_op("cumprod", {.in = {&x}, .i = {0, 0, 0}}, prod);
      set_num_threads(0);
      ASSERT_OK(s1);
      ASSERT_OK(s2);
      const int64_t* zs = sum.output(0)->data_as<int64_t>();
      const int64_t* zp = prod.output(0)->data_as<int64_t>();
      uint64_t acc = 0, mul = 1;
      for (int64_t i = 0; i < n; ++i) {
        acc += static_cast<uint64_t>(p[i]);
        mul *= static_cast<uint64_t>(p[i]);
        ASSERT_EQ(zs[i], static_cast<int64_t>(acc)) << "cumsum at " << i;
        ASSERT_EQ(zp[i], static_cast<int64_t>(mul)) << "cumprod at " << i;
      }
    }
}

}  // namespace
