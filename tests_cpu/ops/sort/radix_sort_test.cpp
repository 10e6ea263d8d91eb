// sort, argsort and top_k against std::stable_sort references, at row
// lengths around each of sort_rows.cpp's thresholds (kSmallRow 512: std::sort
// below; kWideRow 65536: 11-bit digits and staged lines from there;
// kParallelRow 262144: one row's passes split between threads from there),
// for every key dtype, ascending and descending, with NaN, -0.0, +0.0 and
// infinities mixed in, many ties (stability), digits every key shares
// (skipped passes), and at 1 and 3 threads where threads can split the
// work (both must give the reference).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "libops/core/parallel.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

template <typename T>
constexpr DataType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DataType::kFloat32;
  else if constexpr (std::is_same_v<T, double>) return DataType::kFloat64;
  else if constexpr (std::is_same_v<T, int32_t>) return DataType::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>) return DataType::kInt64;
  else if constexpr (std::is_same_v<T, uint32_t>) return DataType::kUInt32;
  else return DataType::kUInt64;
}

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// Bits of v, for exact comparison (NaN payloads and the sign of zero).
template <typename T>
uint64_t bits(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}

constexpr int64_t kSmall = 512, kWide = 65536, kParallel = 262144;

// Kinds of rows: how the values are drawn.
enum class Fill { kSpecials, kFewDistinct, kOneExponent, kAllEqual, kFullRange };

template <typename T>
std::vector<T> make_row(int64_t n, Fill fill, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& e : v) {
    const uint64_t r = rng();
    switch (fill) {
      case Fill::kFewDistinct:  // many ties: stability
        e = static_cast<T>(static_cast<int>(r % 37) - 18);
        break;
      case Fill::kOneExponent:  // high digits every key shares: skipped passes
        if constexpr (std::is_floating_point_v<T>) e = static_cast<T>(1.0 + static_cast<double>(r % 4096) / 4096.0);
        else e = static_cast<T>(1000 + r % 3000);
        break;
      case Fill::kAllEqual:
        e = static_cast<T>(7);
        break;
      case Fill::kFullRange:
        std::memcpy(&e, &r, sizeof e);
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(e)) e = static_cast<T>(r % 1000);
        break;
      case Fill::kSpecials:
        if constexpr (std::is_floating_point_v<T>) {
          const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
          switch (r % 11) {
            case 0: e = nan; break;
            case 1: e = -nan; break;
            case 2: e = T(-0.0); break;
            case 3: e = T(0.0); break;
            case 4: e = inf; break;
            case 5: e = -inf; break;
            case 6: e = std::numeric_limits<T>::denorm_min() * static_cast<T>(r % 5); break;
            default: e = static_cast<T>(static_cast<double>(static_cast<int64_t>(r >> 20) % 200001) / 64.0 - 1500.0);
          }
        } else {
          switch (r % 5) {
            case 0: e = std::numeric_limits<T>::min(); break;
            case 1: e = std::numeric_limits<T>::max(); break;
            case 2: e = T(0); break;
            default: e = static_cast<T>(r >> 3);
          }
        }
        break;
    }
  }
  return v;
}

// a before b in Note [Sort order] (sort.h), ties to be broken by position.
// zeros_equal: argsort and top_k; else sort, -0.0 before +0.0 ascending.
template <typename T>
bool before(T a, T b, bool descending, bool zeros_equal, bool nan_first) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) != is_nan(b) && (is_nan(a) == nan_first);
  if (a == b) {
    if constexpr (std::is_floating_point_v<T>) {
      if (!zeros_equal && a == T(0)) return descending ? (!std::signbit(a) && std::signbit(b))
                                                      : (std::signbit(a) && !std::signbit(b));
    }
    return false;
  }
  return descending ? b < a : a < b;
}

template <typename T>
std::vector<int64_t> reference_order(const T* row, int64_t n, bool descending, bool zeros_equal, bool nan_first) {
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  std::stable_sort(idx.begin(), idx.end(),
                   [&](int64_t a, int64_t b) { return before(row[a], row[b], descending, zeros_equal, nan_first); });
  return idx;
}

// sort's value at a position: the value itself, NaN as the quiet NaN.
template <typename T>
uint64_t sorted_bits(T v) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(v)) return bits(std::numeric_limits<T>::quiet_NaN());
  return bits(v);
}

// Runs sort, argsort and top_k on x [rows, n] (or [n, rows] along axis 0)
// at each thread count and checks every row against the reference.
template <typename T>
void check(const std::vector<T>& data, int64_t rows, int64_t n, bool axis0, bool descending) {
  const Dims shape = axis0 ? Dims{n, rows} : Dims{rows, n};
  NDArray x = zeros(dtype_of<T>(), shape);
  T* xp = x.data_as<T>();
  auto at = [&](int64_t r, int64_t i) { return axis0 ? i * rows + r : r * n + i; };
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < n; ++i) xp[at(r, i)] = data[static_cast<size_t>(r * n + i)];
  const int64_t axis = axis0 ? 0 : 1;
  const int64_t k = n - n / 3;  // top_k's k: more than n / 8, so it takes the full sort
  // Per row: sort's order, argsort's, and top_k's (which counts NaN as the
  // largest when it takes the largest).
  std::vector<std::vector<int64_t>> refs;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = data.data() + r * n;
    refs.push_back(reference_order(row, n, descending, false, false));
    refs.push_back(reference_order(row, n, descending, true, false));
    refs.push_back(reference_order(row, n, descending, true, descending));
  }
  // One row shorter than kParallelRow runs on one thread: one count will do.
  // Three threads give chunks of a row uneven bucket shares (two are also
  // in long_row_sort_test.cpp).
  const std::vector<int> thread_counts = rows == 1 && n < kParallel ? std::vector<int>{2} : std::vector<int>{1, 3};
  for (int threads : thread_counts) {
    SCOPED_TRACE(::testing::Message() << "threads " << threads << " n " << n << " rows " << rows
                                      << (axis0 ? " axis 0" : "") << (descending ? " descending" : ""));
    set_num_threads(threads);
    Context sorted, order, top;
    ASSERT_OK(run_op("sort", {.in = {&x}, .i = {axis}, .b = {descending}}, sorted));
    ASSERT_OK(run_op("argsort", {.in = {&x}, .i = {axis}, .b = {descending}}, order));
    ASSERT_OK(run_op("topk", {.in = {&x}, .i = {k, axis}, .b = {descending}}, top));
    set_num_threads(0);
    const T* sv = sorted.output(0)->template data_as<T>();
    const int64_t* ov = order.output(0)->template data_as<int64_t>();
    const T* tv = top.output(0)->template data_as<T>();
    const int64_t* ti = top.output(1)->template data_as<int64_t>();
    auto kat = [&](int64_t r, int64_t i) { return axis0 ? i * rows + r : r * k + i; };
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = data.data() + r * n;
      const std::vector<int64_t>& by_value = refs[static_cast<size_t>(3 * r)];
      const std::vector<int64_t>& by_index = refs[static_cast<size_t>(3 * r + 1)];
      const std::vector<int64_t>& top_ref = refs[static_cast<size_t>(3 * r + 2)];
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(bits(sv[at(r, i)]), sorted_bits(row[by_value[static_cast<size_t>(i)]])) << "sort, row " << r << " at " << i;
        ASSERT_EQ(ov[at(r, i)], by_index[static_cast<size_t>(i)]) << "argsort, row " << r << " at " << i;
      }
      for (int64_t i = 0; i < k; ++i) {
        const int64_t want = top_ref[static_cast<size_t>(i)];
        ASSERT_EQ(ti[kat(r, i)], want) << "top_k index, row " << r << " at " << i;
        ASSERT_EQ(bits(tv[kat(r, i)]), bits(row[want])) << "top_k value, row " << r << " at " << i;
      }
    }
  }
}

template <typename T>
void check_lengths(std::initializer_list<int64_t> lengths, std::initializer_list<Fill> fills) {
  uint64_t seed = 1;
  for (int64_t n : lengths)
    for (Fill fill : fills)
      for (bool descending : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "fill " << static_cast<int>(fill));
        check<T>(make_row<T>(n, fill, ++seed), 1, n, false, descending);
        if (::testing::Test::HasFatalFailure()) return;
      }
}

template <typename T>
class RadixSort : public ::testing::Test {};
using KeyTypes = ::testing::Types<float, double, int32_t, int64_t, uint32_t, uint64_t>;
TYPED_TEST_SUITE(RadixSort, KeyTypes);

TYPED_TEST(RadixSort, AroundTheShortRowAndWideDigitThresholds) {
  check_lengths<TypeParam>({kSmall - 1, kSmall, kSmall + 1, kWide - 1, kWide, kWide + 1},
                           {Fill::kSpecials, Fill::kFewDistinct, Fill::kOneExponent, Fill::kFullRange});
}

// The long rows, for the signed and float keys (unsigned ones take the same
// passes with another encoding, checked at the shorter lengths above).
template <typename T>
class RadixSortLong : public ::testing::Test {};
using LongKeyTypes = ::testing::Types<float, double, int32_t, int64_t>;
TYPED_TEST_SUITE(RadixSortLong, LongKeyTypes);

TYPED_TEST(RadixSortLong, AroundTheThreadedRowThreshold) {
  check_lengths<TypeParam>({kParallel - 1, kParallel + 17}, {Fill::kSpecials, Fill::kFewDistinct});
}

TYPED_TEST(RadixSortLong, ThreadedRowWithSkippedPassesAndEqualKeys) {
  check_lengths<TypeParam>({kParallel + 1000}, {Fill::kOneExponent, Fill::kAllEqual, Fill::kFullRange});
}

TYPED_TEST(RadixSort, ManyRowsAndTheOtherAxis) {
  using T = TypeParam;
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{37, 700}, {3, kWide + 5}}) {
    const std::vector<T> data = make_row<T>(rows * n, Fill::kSpecials, 99 + static_cast<uint64_t>(n));
    for (bool descending : {false, true}) {
      check<T>(data, rows, n, false, descending);
      check<T>(data, rows, n, true, descending);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// argsort of one repeated key: the positions in order, at any length.
TEST(RadixSortStability, EqualKeysKeepTheirPositions) {
  for (int64_t n : {kSmall + 3, kWide + 3, kParallel + 3}) {
    NDArray x = zeros(DataType::kFloat32, {n});
    float* p = x.data_as<float>();
    for (int64_t i = 0; i < n; ++i) p[i] = (i % 2 == 0) ? -0.0f : 0.0f;  // equal for argsort
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      Context ctx;
      ASSERT_OK(run_op("argsort", {.in = {&x}}, ctx));
      set_num_threads(0);
      const int64_t* idx = ctx.output(0)->data_as<int64_t>();
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(idx[i], i) << "n " << n << " threads " << threads;
    }
  }
}

// A supplied output that is the input itself (sort is not an in-place op,
// but nothing stops a caller from passing it): the kernel must not write it
// while still reading the input.
TEST(RadixSortOutputs, InPlaceSortOfALongRow) {
  constexpr int64_t n = kWide + 77;
  const std::vector<float> data = make_row<float>(n, Fill::kSpecials, 5);
  NDArray x = zeros(DataType::kFloat32, {n});
  std::copy(data.begin(), data.end(), x.data_as<float>());
  Context ctx;
  ASSERT_OK(run_op("sort", {.in = {&x}, .out = {&x}, .i = {0}, .b = {false}}, ctx));
  const std::vector<int64_t> want = reference_order(data.data(), n, false, false, false);
  const float* got = x.data_as<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(bits(got[i]), sorted_bits(data[static_cast<size_t>(want[static_cast<size_t>(i)])])) << i;
}

}  // namespace
