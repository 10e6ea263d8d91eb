// Indexed gathers and scatters (Note [Indexed rows], Note [Indexed
// elements]) refuse an index outside [-n, n) with an error that names it,
// its position and the dim, and leave the output unwritten on the CPU.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(BadIndex, EveryIndexedOpNamesTheIndex) {
  NDArray x = make(DataType::kFloat32, {3, 2}, iota(6));
  NDArray rows = make(DataType::kInt64, {2, 1}, {1, 3});
  Context c1;
  EXPECT_EQ(run_op("gather_nd", {.in = {&x, &rows}}, c1).message(),
            "gather_nd: index 3 at position 1 of indices[2,1] is out of range: it must be in [-3, 3) for dim 0 of x[3,2]");
  NDArray pos = make(DataType::kInt32, {3}, {0, -4, 1});
  NDArray upd = make(DataType::kFloat32, {3, 2}, iota(6));
  Context c2;
  EXPECT_EQ(run_op("scatter_add", {.in = {&x, &pos, &upd}}, c2).message(),
            "scatter_add: index -4 at position 1 of indices[3] is out of range: it must be in [-3, 3) for dim 0 of "
            "x[3,2]");
  NDArray el = make(DataType::kInt64, {3, 2}, {0, 1, 1, 2, 0, 0});
  Context c3;
  EXPECT_EQ(run_op("gather_elements", {.in = {&x, &el}, .i = {1}}, c3).message(),
            "gather_elements: index 2 at position 3 of indices[3,2] is out of range: it must be in [-2, 2) for dim 1 "
            "of x[3,2]");
  NDArray nd = make(DataType::kInt64, {1, 2}, {2, 5});
  NDArray one = make(DataType::kFloat32, {1}, {9});
  Context c4;
  EXPECT_EQ(run_op("scatter_nd_update", {.in = {&x, &nd, &one}}, c4).message(),
            "scatter_nd_update: index 5 at position 1 of indices[1,2] is out of range: it must be in [-2, 2) for dim 1 "
            "of x[3,2]");
  // The CPU checks every index before it writes: a supplied output is untouched.
  NDArray z = make(DataType::kFloat32, {2, 2}, {7, 7, 7, 7});
  Context c5;
  EXPECT_FALSE(run_op("gather_nd", {.in = {&x, &rows}, .out = {&z}}, c5).is_ok());
  EXPECT_TRUE(all_close(z, {7, 7, 7, 7}));
  // scatter_nd sums into a supplied dense output directly: it too checks
  // first, so z keeps its values rather than the zeros it starts from.
  NDArray shape = make(DataType::kInt64, {2}, {3, 2});
  NDArray two = make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4});
  NDArray zn = make(DataType::kFloat32, {3, 2}, {7, 7, 7, 7, 7, 7});
  Context c7;
  EXPECT_EQ(run_op("scatter_nd", {.in = {&rows, &two, &shape}, .out = {&zn}}, c7).message(),
            "scatter_nd: index 3 at position 1 of indices[2,1] is out of range: it must be in [-3, 3) for dim 0 of "
            "x[3,2]");
  EXPECT_TRUE(all_close(zn, {7, 7, 7, 7, 7, 7}));
  NDArray good = make(DataType::kInt64, {2, 1}, {2, 2});
  Context c8;
  ASSERT_OK(run_op("scatter_nd", {.in = {&good, &two, &shape}, .out = {&zn}}, c8));
  EXPECT_TRUE(all_close(zn, {0, 0, 0, 0, 4, 6}));  // duplicates add up over zeros
  // Shapes that do not fit are errors too.
  NDArray wrong = make(DataType::kFloat32, {3, 3}, iota(9));
  Context c6;
  EXPECT_EQ(run_op("scatter_add", {.in = {&x, &pos, &wrong}}, c6).message(),
            "scatter_add: updates[3,3] do not fit x[3,2] and indices[3]: they must be [3,2]");
}

}  // namespace
