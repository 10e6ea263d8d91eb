// bincount sizes its output from the largest id. An int64 id of INT64_MAX
// (found by the op-call fuzzer: INT64_MAX + 1 overflowed) asks for more
// bins than the limit allows unless maxlength caps them, and is then
// dropped as any id at or past maxlength is. uint64 ids past int64's range
// are refused, not wrapped into negative ones.
#include <cstdint>
#include <limits>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(BincountLimits, IdsAtTheTopOfTheirTypeNeedMaxlength) {
  NDArray x = zeros(DataType::kInt64, {3});
  x.data_as<int64_t>()[0] = 1;
  x.data_as<int64_t>()[1] = std::numeric_limits<int64_t>::max();
  x.data_as<int64_t>()[2] = 1;
  Context too_many;
  EXPECT_EQ(run_op("bincount", {.in = {&x}, .i = {0, -1}}, too_many).message(),
            "bincount: the largest id in x is 9223372036854775807, which would size z at 9223372036854775807 x 1 "
            "elements; an output sized by its input's values holds at most 2^28 (268435456)");
  Context capped;
  ASSERT_OK(run_op("bincount", {.in = {&x}, .i = {0, 3}}, capped));
  EXPECT_TRUE(all_close(*capped.output(0), {0, 2, 0}));

  NDArray u = zeros(DataType::kUInt64, {2});
  u.data_as<uint64_t>()[0] = std::numeric_limits<uint64_t>::max();
  u.data_as<uint64_t>()[1] = 2;
  Context unsigned_top;
  EXPECT_EQ(run_op("bincount", {.in = {&u}, .i = {0, 4}}, unsigned_top).message(),
            "bincount: x holds an id of 2^63 or more: bincount counts ids up to 2^63 - 1");
}

// Ids of every integer dtype count alike: the row kernels read 32- or
// 64-bit ids, and narrower ones were once read as int64 past the buffer's
// end (wrong counts; a crash or UBSan report).
TEST(BincountLimits, NarrowIdTypesCountLikeInt64) {
  for (DataType t : {DataType::kInt8, DataType::kInt16, DataType::kUInt8, DataType::kUInt16, DataType::kUInt32,
                     DataType::kInt32, DataType::kInt64}) {
    SCOPED_TRACE(dtype_name(t));
    NDArray x = make(t, {5}, {1, 2, 2, 5, 2});
    Context counts;
    ASSERT_OK(run_op("bincount", {.in = {&x}}, counts));
    EXPECT_TRUE(all_close(*counts.output(0), {0, 1, 3, 0, 0, 1}));
    NDArray w = make(DataType::kFloat32, {5}, {0.5, 1, 2, 4, 8});
    Context weighted;
    ASSERT_OK(run_op("bincount", {.in = {&x, &w}}, weighted));
    EXPECT_TRUE(all_close(*weighted.output(0), {0, 0.5, 11, 0, 0, 4}));
  }
}

}  // namespace
