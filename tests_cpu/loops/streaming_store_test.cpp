// Streaming stores (Note [Streaming stores]): stream_out writes exactly
// z[i] = f(i) whatever the alignment and length, and element-wise ops that
// take the streaming path give the same values as the normal path.
#include "libops/loops/streaming_store.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "test_util.h"

namespace libops {
namespace {

// Every start offset within a cache line and lengths around the 128-byte
// tile: the head, whole tiles and the tail must all land, and nothing
// outside [0, n) may be touched.
template <typename T>
void check_stream_out() {
  constexpr int64_t kTile = 128 / int64_t(sizeof(T));
  alignas(64) T storage[4 * kTile + 64 / sizeof(T) + 2];
  const int64_t cap = static_cast<int64_t>(sizeof(storage) / sizeof(T));
  for (int64_t offset = 0; offset < 64 / int64_t(sizeof(T)); ++offset) {
    for (int64_t n : {int64_t{0}, int64_t{1}, kTile - 1, kTile, kTile + 1, 3 * kTile + 5}) {
      if (offset + n + 1 > cap) continue;
      for (int64_t i = 0; i < cap; ++i) storage[i] = T(7);
      T* z = storage + offset;
      stream_out(z, n, true, [](int64_t i) { return T(i * 3 + 1); });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(z[i], T(i * 3 + 1)) << "offset " << offset << " n " << n << " i " << i;
      for (int64_t i = 0; i < offset; ++i) ASSERT_EQ(storage[i], T(7)) << "before the run, offset " << offset;
      for (int64_t i = offset + n; i < cap; ++i) ASSERT_EQ(storage[i], T(7)) << "after the run, n " << n;
    }
  }
}

// stream_copy copies exactly src[0, n) at every offset within a
// cache line and lengths around the tile, touching nothing else.
TEST(StreamingStore, CopiesEveryElementForEveryAlignmentAndLength) {
  constexpr int64_t kTile = 32;
  alignas(64) float storage[4 * kTile + 18];
  std::vector<float> src(4 * kTile + 18);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) * 0.5f - 3.f;
  const int64_t cap = static_cast<int64_t>(sizeof(storage) / sizeof(float));
  for (int64_t offset = 0; offset < 16; ++offset) {
    for (int64_t n : {int64_t{0}, int64_t{1}, kTile - 1, kTile, kTile + 1, 3 * kTile + 5}) {
      if (offset + n + 1 > cap) continue;
      for (int64_t i = 0; i < cap; ++i) storage[i] = 7.f;
      stream_copy(storage + offset, src.data(), n);
      stream_fence();
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(storage[offset + i], src[i]) << "offset " << offset << " n " << n;
      for (int64_t i = 0; i < offset; ++i) ASSERT_EQ(storage[i], 7.f) << "before the run, offset " << offset;
      for (int64_t i = offset + n; i < cap; ++i) ASSERT_EQ(storage[i], 7.f) << "after the run, n " << n;
    }
  }
}

TEST(StreamingStore, WritesEveryElementForEveryAlignmentAndLength) {
  check_stream_out<uint8_t>();
  check_stream_out<int16_t>();
  check_stream_out<float>();
  check_stream_out<double>();
}

// Restores the default threshold when a test ends.
struct ScopedThreshold {
  explicit ScopedThreshold(int64_t bytes) { set_streaming_store_threshold(bytes); }
  ~ScopedThreshold() { set_streaming_store_threshold(0); }
};

TEST(StreamingStore, ThresholdCanBeOverriddenAndRestored) {
  const int64_t standard = streaming_store_threshold();
  EXPECT_GT(standard, 0);
  {
    ScopedThreshold t(4096);
    if (LIBOPS_HAVE_STREAMING_STORES) {
      EXPECT_EQ(streaming_store_threshold(), 4096);
    }
  }
  EXPECT_EQ(streaming_store_threshold(), standard);
}

// add, add with a scalar operand, and exp over odd-sized arrays, once with
// normal stores and once streamed: the values must be identical, and equal
// to a hand-computed reference for add.
TEST(StreamingStore, ElementwiseOpsGiveTheSameValuesStreamed) {
  using test::make;
  const int64_t n = 4099;  // whole tiles, a tail, and 2 threads' parts
  NDArray x = make(DataType::kFloat32, {n}, test::iota(n, 0.25, -500.0));
  NDArray y = make(DataType::kFloat32, {n}, test::iota(n, -0.5, 3.0));
  NDArray c = make(DataType::kFloat32, {1}, {2.5});
  auto run = [](int group, int num, const NDArray& a, const NDArray* b, NDArray& out) {
    legacy::LegacyCall call;
    call.group = group;
    call.num = num;
    call.x = &a;
    call.y = b;
    call.z = &out;
    ASSERT_OK(legacy::exec(call));
  };
  const int add = static_cast<int>(legacy::BinaryOp::add);
  const int exp = static_cast<int>(legacy::TransformStrictOp::exp);
  NDArray plain_sum = test::zeros(DataType::kFloat32, {n}), plain_bc = test::zeros(DataType::kFloat32, {n}),
          plain_exp = test::zeros(DataType::kFloat32, {n});
  run(OPS_PAIRWISE, add, x, &y, plain_sum);
  run(OPS_PAIRWISE, add, c, &x, plain_bc);
  run(OPS_TRANSFORM_STRICT, exp, y, nullptr, plain_exp);

  ScopedThreshold streamed(64);
  NDArray sum = test::zeros(DataType::kFloat32, {n}), bc = test::zeros(DataType::kFloat32, {n}),
          ex = test::zeros(DataType::kFloat32, {n});
  run(OPS_PAIRWISE, add, x, &y, sum);
  run(OPS_PAIRWISE, add, c, &x, bc);
  run(OPS_TRANSFORM_STRICT, exp, y, nullptr, ex);
  for (int64_t i = 0; i < n; ++i) {
    const double xi = -500.0 + 0.25 * double(i), yi = 3.0 - 0.5 * double(i);
    ASSERT_EQ(sum.get_double(i), xi + yi) << i;  // exact in float: quarter steps below 2^13
    ASSERT_EQ(bc.get_double(i), 2.5 + xi) << i;
    ASSERT_EQ(sum.get_double(i), plain_sum.get_double(i)) << i;
    ASSERT_EQ(bc.get_double(i), plain_bc.get_double(i)) << i;
    ASSERT_EQ(ex.get_double(i), plain_exp.get_double(i)) << i;
  }
}

}  // namespace
}  // namespace libops
