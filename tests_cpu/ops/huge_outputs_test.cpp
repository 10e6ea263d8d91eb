// Outputs whose size a caller's data or arguments set (Note [Outputs sized
// by data] in libops/ops/data_sized.h): an id of 1e12 or a size argument of
// 2^50 is an error naming the op and the value, returned at once, never an
// attempt to allocate and fill (under ASan: an abort; otherwise minutes).
#include <cstdint>
#include <string>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(HugeOutputs, ASortedSegmentIdOfATrillionIsRefused) {
  NDArray x = make(DataType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  NDArray ids = make(DataType::kInt64, {3}, {0, 1, 1e12});
  Context ctx;
  EXPECT_EQ(run_op("segment_sum", {.in = {&x, &ids}}, ctx).message(),
            "segment_sum: the largest segment id is 1000000000000, which would size z at 1000000000001 x 2 elements; "
            "an output sized by its input's values holds at most 2^28 (268435456)");
  // Below the limit the same call runs: ids 0, 1, 1.
  NDArray small = make(DataType::kInt64, {3}, {0, 1, 1});
  Context ok;
  ASSERT_OK(run_op("segment_sum", {.in = {&x, &small}}, ok));
  EXPECT_TRUE(all_close(*ok.output(0), {1, 2, 8, 10}));
}

TEST(HugeOutputs, ABincountIdPastTheLimitIsRefusedUnlessMaxlengthCapsIt) {
  NDArray x = make(DataType::kInt32, {2}, {3, 1 << 30});
  Context refused;
  EXPECT_EQ(run_op("bincount", {.in = {&x}}, refused).message(),
            "bincount: the largest id in x is 1073741824, which would size z at 1073741825 x 1 elements; an output "
            "sized by its input's values holds at most 2^28 (268435456)");
  Context capped;
  ASSERT_OK(run_op("bincount", {.in = {&x}, .i = {0, 5}}, capped));
  EXPECT_TRUE(all_close(*capped.output(0), {0, 0, 0, 1, 0}));
}

// A size argument past the machine's memory is refused by the allocator,
// which the op reports as out of memory for its output.
TEST(HugeOutputs, SizeArgumentsPastTheMachinesMemoryAreOutOfMemory) {
  NDArray logits = make(DataType::kFloat32, {1, 2}, {0, 0});
  Context multinomial;
  Status s = run_op("random_multinomial", {.in = {&logits}, .i = {7, int64_t{1} << 50}}, multinomial);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.message();
  EXPECT_NE(s.message().find("random_multinomial: output 0: create: cannot allocate"), std::string::npos)
      << s.message();

  NDArray spectrum = zeros(DataType::kFloat32, {3, 2});
  Context irfft;
  s = run_op("irfft", {.in = {&spectrum}, .i = {int64_t{1} << 50}}, irfft);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.message();
  EXPECT_NE(s.message().find("irfft: output 0: create: cannot allocate"), std::string::npos) << s.message();

  NDArray v = make(DataType::kFloat32, {2}, {1, 2});
  Context repeat;
  s = run_op("repeat", {.in = {&v}, .i = {0, int64_t{1} << 50}}, repeat);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.message();
  Context overflow;
  EXPECT_EQ(run_op("repeat", {.in = {&v}, .i = {0, INT64_MAX / 2, INT64_MAX / 2 + 2}}, overflow).message(),
            "repeat: repeats would make axis 0 of x[2] longer than 2^63 - 1");
}

}  // namespace
