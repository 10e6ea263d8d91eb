// gather against numpy.take goldens (axis 0 and 1, negative indices), a
// negative axis, strided x, and out-of-range indices found at compute time.
#include "golden_util.h"
#include "libops/core/parallel.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

TEST(GatherOp, MatchesNumpyTake) {
  NDArray x = load_golden("custom_ops/gather_x.npy");  // float32 [3,4,2]
  for (const char* tag : {"axis0", "axis1"}) {
    NDArray idx = load_golden(std::string("custom_ops/gather_") + tag + "_indices.npy");
    NDArray want = load_golden(std::string("custom_ops/gather_") + tag + "_z.npy");
    Context ctx;
    ASSERT_OK(run_op("gather", {.in = {&x, &idx}, .i = {tag[4] == '0' ? 0 : 1}}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), want.shape()) << tag;
    EXPECT_TRUE(all_close(*ctx.output(0), values(want), 0, 0)) << tag;
  }
}

TEST(GatherOp, NegativeAxisAndStridedInput) {
  NDArray base = make(DataType::kInt32, {3, 2}, {1, 2, 3, 4, 5, 6}), x;
  ASSERT_OK(base.permute({1, 0}, x));  // [[1,3,5],[2,4,6]]
  NDArray idx = make(DataType::kInt32, {2}, {2, -3});
  Context ctx;
  ASSERT_OK(run_op("gather", {.in = {&x, &idx}, .i = {-1}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 2}));
  EXPECT_TRUE(all_close(*ctx.output(0), {5, 1, 6, 2}));
  NDArray none = zeros(DataType::kInt64, {0});
  Context ctx2;
  ASSERT_OK(run_op("gather", {.in = {&x, &none}, .i = {1}}, ctx2));
  EXPECT_EQ(ctx2.output(0)->shape(), (Dims{2, 0}));
}

TEST(GatherOp, OutOfRangeIndexIsAnError) {
  NDArray x = make(DataType::kFloat32, {3, 2}, iota(6));
  NDArray idx = make(DataType::kInt64, {3}, {0, 3, 1});
  Context ctx;
  Status s = run_op("gather", {.in = {&x, &idx}, .i = {0}}, ctx);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "gather: index 3 (at position 1 of indices[3]) is out of range for axis 0 with size 3 (allowed -3..2)");
  NDArray neg = make(DataType::kInt32, {1}, {-4});
  Context ctx2;
  s = run_op("gather", {.in = {&x, &neg}, .i = {0}}, ctx2);
  EXPECT_NE(s.message().find("index -4"), std::string::npos) << s.message();
}

TEST(GatherOp, RejectsBadDtypesAndAxes) {
  NDArray x = make(DataType::kFloat32, {3, 2}, iota(6));
  NDArray fidx = make(DataType::kFloat32, {1}, {1});
  Context c1;
  Status s = run_op("gather", {.in = {&x, &fidx}, .i = {0}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "gather: unsupported dtype float32 for input 1 [1]; supported: int32, int64");
  NDArray idx = make(DataType::kInt32, {1}, {0});
  Context c2;
  s = run_op("gather", {.in = {&x, &idx}, .i = {2}}, c2);
  EXPECT_EQ(s.message(), "gather: axis (i arg 0) is 2: it must be an axis of input 0 (x) [3,2], in [-2, 1]");
  Context c3;
  s = run_op("gather", {.in = {&x}, .i = {0}}, c3);
  EXPECT_EQ(s.message(), "gather: takes 2 inputs (x, indices), got 1");
}

TEST(GatherOp, ThreadChunksStartingInsideAnOuterSlice) {
  // Gather along axis 1 of [5, 5000, 3] float32: 20005 rows of 12 bytes,
  // split between threads at rows that are not multiples of the index
  // count, so each chunk starts part way through an outer slice.
  const int64_t outer = 5, n = 5000, inner = 3, count = 4001;
  NDArray x = zeros(DataType::kFloat32, {outer, n, inner});
  float* xp = x.data_as<float>();
  for (int64_t i = 0; i < outer * n * inner; ++i) xp[i] = static_cast<float>(i);
  NDArray idx = zeros(DataType::kInt64, {count});
  for (int64_t j = 0; j < count; ++j) idx.data_as<int64_t>()[j] = (j * 7919) % n;
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE(threads);
    set_num_threads(threads);
    Context ctx;
    const Status s = run_op("gather", {.in = {&x, &idx}, .i = {1}}, ctx);
    set_num_threads(0);
    ASSERT_OK(s);
    const float* z = ctx.output(0)->data_as<float>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < count; ++j)
        for (int64_t k = 0; k < inner; ++k)
          ASSERT_EQ(z[(o * count + j) * inner + k], xp[(o * n + (j * 7919) % n) * inner + k])
              << "o=" << o << " j=" << j << " k=" << k;
  }
}
