// Validation of legacy reductions (legacy.cpp exec_reduce): every bad call
// returns a Status whose code and message name the op and the problem.
#include "legacy/reduce_test_util.h"
#include "libops/legacy/ops/reduce_ops.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

const int kSum = static_cast<int>(legacy::ReduceSameOp::sum);

Status sum_into(const NDArray& x, NDArray& z, const std::vector<int64_t>& axes) {
  return run_reduce(OPS_REDUCE_SAME, kSum, x, nullptr, z, axes);
}

}  // namespace

TEST(ReduceErrors, BadAxis) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  NDArray z = make_z(DataType::kFloat32, {2, 3});
  Status s = sum_into(x, z, {3});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "sum: axis 3 is out of range for rank 3 (allowed -3..2)");
  s = sum_into(x, z, {-4});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "sum: axis -4 is out of range for rank 3 (allowed -3..2)");
}

TEST(ReduceErrors, RepeatedAxis) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  NDArray z = make_z(DataType::kFloat32, {2});
  Status s = sum_into(x, z, {1, -1, 2});  // -1 is 2
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "sum: axis 2 is repeated");
}

TEST(ReduceErrors, WrongOutputShape) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  NDArray z = make_z(DataType::kFloat32, {3, 2});
  Status s = sum_into(x, z, {2});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "sum: reducing x[2,3,4] over axes [2] gives [2,3] (or [2,3,1] with kept dims), but z is [3,2]");
  NDArray all = make_z(DataType::kFloat32, {1});  // full reduction: [] or [1,1,1]
  EXPECT_EQ(sum_into(x, all, {}).code(), StatusCode::kShape);
}

TEST(ReduceErrors, WrongOutputDtypePerGroup) {
  NDArray x = make(DataType::kInt32, {2, 3}, iota(6));
  struct Case {
    ops_legacy_group_t group;
    DataType z;
    const char* message;
  };
  const Case cases[] = {
      {OPS_REDUCE_SAME, DataType::kInt64, "sum: output z has dtype int64; expected int32"},
      {OPS_REDUCE_FLOAT, DataType::kInt32, "mean: output z has dtype int32; expected a float dtype"},
      {OPS_REDUCE_BOOL, DataType::kInt32, "any: output z has dtype int32; expected bool"},
      {OPS_REDUCE_LONG, DataType::kInt32, "count_nonzero: output z has dtype int32; expected int64"},
      {OPS_INDEX_REDUCE, DataType::kFloat32, "index_max: output z has dtype float32; expected int64"},
      {OPS_SUMMARY_STATS, DataType::kInt64, "variance: output z has dtype int64; expected a float dtype"},
      {OPS_REDUCE3, DataType::kBool, "dot: output z has dtype bool; expected a float dtype"},
  };
  for (const Case& c : cases) {
    NDArray z = make_z(c.z, {2});
    Status s = run_reduce(c.group, 0, x, c.group == OPS_REDUCE3 ? &x : nullptr, z, {1});
    EXPECT_EQ(s.code(), StatusCode::kDtype) << c.message;
    EXPECT_EQ(s.message(), c.message);
  }
}

TEST(ReduceErrors, UnknownOpNumberAndOverlappingOutput) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray z = make_z(DataType::kFloat32, {2});
  Status s = run_reduce(OPS_REDUCE_SAME, 9999, x, nullptr, z, {1});
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy reduce_same: no op number 9999");
  NDArray row;
  ASSERT_OK(x.slice(1, 0, 1, 1, row));  // column 0 of x, shape [2, 1]
  NDArray col;
  ASSERT_OK(row.reshape({2}, col));
  s = sum_into(x, col, {1});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "sum: output z overlaps an input");
}

TEST(ReduceErrors, EveryOpNumberHasAName) {
  // Tables are appended, never renumbered: the first rows keep their numbers.
  EXPECT_STREQ(legacy::op_name(OPS_REDUCE_FLOAT, 0), "mean");
  EXPECT_STREQ(legacy::op_name(OPS_REDUCE_SAME, 0), "sum");
  EXPECT_STREQ(legacy::op_name(OPS_REDUCE_BOOL, 0), "any");
  EXPECT_STREQ(legacy::op_name(OPS_REDUCE_LONG, 0), "count_nonzero");
  EXPECT_STREQ(legacy::op_name(OPS_REDUCE3, 0), "dot");
  EXPECT_STREQ(legacy::op_name(OPS_INDEX_REDUCE, 0), "index_max");
  EXPECT_STREQ(legacy::op_name(OPS_SUMMARY_STATS, 1), "standard_deviation");
  EXPECT_EQ(legacy::find_op(OPS_REDUCE_FLOAT, "shannon_entropy"), 10);
  EXPECT_EQ(legacy::find_op(OPS_INDEX_REDUCE, "last_index"), 5);
}
