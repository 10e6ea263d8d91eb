// The binary_int table (SCALAR_INT / PAIRWISE_INT / BROADCAST_INT): goldens,
// Note [Shift counts], Note [Rotation width] and the integer-only dtype rule.
#include <cstdint>
#include <set>
#include <string>

#include "binary_test_util.h"
#include "libops/legacy/ops/binary_int_ops.h"

using namespace libops;
using namespace libops::test;
using legacy::BinaryIntOp;

namespace {

constexpr const char* kOps[] = {"bitwise_and", "bitwise_or",        "bitwise_xor",       "shift_left",
                                "shift_right", "cyclic_shift_left", "cyclic_shift_right"};

class BinaryIntGoldenTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BinaryIntGoldenTest, Int32) {
  const std::string name = GetParam();
  EXPECT_TRUE(check_binary_golden(OPS_PAIRWISE_INT, GetParam(), "int_" + name + "_i32", DataType::kInt32,
                                  DataType::kInt32, 0, 0));
}

TEST_P(BinaryIntGoldenTest, RejectsFloatInput) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  NDArray y = make(DataType::kInt32, {2}, {1, 2});
  NDArray z = zeros(DataType::kInt32, {2});
  Status s = run_legacy(OPS_PAIRWISE_INT, op_number(OPS_PAIRWISE_INT, GetParam()), x, y, z);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), std::string(GetParam()) + ": input x has dtype float32; expected an integer or bool dtype");
}

INSTANTIATE_TEST_SUITE_P(AllOps, BinaryIntGoldenTest, ::testing::ValuesIn(kOps),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

TEST(BinaryIntTable, EveryOpHasAGoldenCase) {
  const legacy::LegacyOpInfo* ops = nullptr;
  const int n = legacy::list_ops(OPS_BROADCAST_INT, &ops);
  std::set<std::string> table, cases(std::begin(kOps), std::end(kOps));
  for (int i = 0; i < n; ++i) table.insert(ops[i].name);
  EXPECT_EQ(table, cases);
  EXPECT_EQ(n, LIBOPS_BINARY_INT_COUNT);
  EXPECT_EQ(static_cast<int>(BinaryIntOp::bitwise_and), 0);
  EXPECT_EQ(static_cast<int>(BinaryIntOp::cyclic_shift_right), 6);
}

std::vector<double> run_n(BinaryIntOp op, DataType t, const std::vector<double>& xs, const std::vector<double>& ys,
                          const std::vector<double>& extra = {}) {
  const Dims shape{static_cast<int64_t>(xs.size())};
  NDArray x = make(t, shape, xs), y = make(t, shape, ys), z = zeros(t, shape);
  Status s = run_legacy(OPS_PAIRWISE_INT, static_cast<int>(op), x, y, z, extra);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return values(z);
}

TEST(BinaryIntShifts, CountsOutsideTheWidthAreDefined) {
  // Left: everything shifted out -> 0. Right: sign fill.
  const std::vector<double> x{1, -1, 5, -5, -8, 3};
  const std::vector<double> n{32, 40, -1, -1, 100, 2};
  EXPECT_EQ(run_n(BinaryIntOp::shift_left, DataType::kInt32, x, n), (std::vector<double>{0, 0, 0, 0, 0, 12}));
  EXPECT_EQ(run_n(BinaryIntOp::shift_right, DataType::kInt32, x, n), (std::vector<double>{0, -1, 0, -1, -1, 0}));
  EXPECT_EQ(run_n(BinaryIntOp::shift_right, DataType::kInt64, {-9, 1024}, {1, 63}), (std::vector<double>{-5, 0}));
  EXPECT_EQ(run_n(BinaryIntOp::shift_left, DataType::kInt64, {1, 1}, {62, 64}), (std::vector<double>{4611686018427387904.0, 0}));
}

TEST(BinaryIntShifts, NarrowDtypesGiveTheirOwnResult) {
  // int8 is computed in int32; stores wrap, so the int8 answer comes back.
  EXPECT_EQ(run_n(BinaryIntOp::shift_left, DataType::kInt8, {1, 3, 1}, {7, 6, 8}), (std::vector<double>{-128, -64, 0}));
  EXPECT_EQ(run_n(BinaryIntOp::shift_right, DataType::kInt8, {-128, -128, 64}, {1, 9, 3}), (std::vector<double>{-64, -1, 8}));
  EXPECT_EQ(run_n(BinaryIntOp::shift_right, DataType::kUInt8, {200, 255}, {1, 7}), (std::vector<double>{100, 1}));
  EXPECT_EQ(run_n(BinaryIntOp::shift_right, DataType::kUInt32, {4294967295.0}, {31}), (std::vector<double>{1}));
}

TEST(BinaryIntRotate, DefaultWidthIsTheComputeWidth) {
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_left, DataType::kInt32, {-2147483648.0, 1, 1}, {1, 31, -1}),
            (std::vector<double>{1, -2147483648.0, -2147483648.0}));
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_right, DataType::kInt32, {1, 6}, {1, 33}),
            (std::vector<double>{-2147483648.0, 3}));
  // uint64 rotates in 64 bits.
  NDArray x = make(DataType::kUInt64, {1}, {1});
  NDArray y = make(DataType::kUInt64, {1}, {65});
  NDArray z = zeros(DataType::kUInt64, {1});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_INT, static_cast<int>(BinaryIntOp::cyclic_shift_right), x, y, z));
  EXPECT_EQ(z.data_as<uint64_t>()[0], uint64_t(1) << 63);
}

TEST(BinaryIntRotate, WidthFromExtraParamsForNarrowDtypes) {
  // int8 0b1000'0001 (-127) rotated left by 1 in 8 bits: 0b0000'0011 = 3.
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_left, DataType::kInt8, {-127, 64, 1}, {1, 1, -1}, {8}),
            (std::vector<double>{3, -128, -128}));
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_right, DataType::kUInt8, {1, 0x81, 0xF0}, {1, 4, 12}, {8}),
            (std::vector<double>{0x80, 0x18, 0x0F}));
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_left, DataType::kUInt16, {0x8001}, {4}, {16}), (std::vector<double>{0x0018}));
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_left, DataType::kUInt32, {0x80000001u}, {1}, {32}), (std::vector<double>{3}));
  // Without a width, x's own dtype sets it: int8 64 = 0b0100'0000 rotated
  // left by 2 in 8 bits is 0b0000'0001 = 1 (not 256 truncated to 0).
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_left, DataType::kInt8, {64}, {2}), (std::vector<double>{1}));
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_left, DataType::kInt8, {64}, {2}, {8}), (std::vector<double>{1}));
  EXPECT_EQ(run_n(BinaryIntOp::cyclic_shift_right, DataType::kUInt16, {1}, {1}), (std::vector<double>{0x8000}));
}

TEST(BinaryIntRotate, WidthOutsideTheComputeWidthIsAnError) {
  for (double w : {40.0, 0.0, -8.0, 7.5}) {
    NDArray x = make(DataType::kInt32, {1}, {1});
    NDArray y = make(DataType::kInt32, {1}, {31});
    NDArray z = zeros(DataType::kInt32, {1});
    legacy::LegacyCall c;
    c.group = OPS_PAIRWISE_INT;
    c.num = static_cast<int>(BinaryIntOp::cyclic_shift_left);
    c.x = &x;
    c.y = &y;
    c.z = &z;
    c.extra = ExtraParams::from(&w, 1);
    Status s = legacy::exec(c);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << w;
    EXPECT_NE(s.message().find("cyclic_shift_left: rotation width (extra param 0) must be a whole number from 1 to 32"),
              std::string::npos)
        << s.message();
  }
}

TEST(BinaryIntDtypes, BoolAndMixedIntegerInputs) {
  NDArray a = make(DataType::kBool, {3}, {1, 0, 1});
  NDArray b = make(DataType::kInt16, {3}, {3, 6, -2});
  NDArray z = zeros(DataType::kInt16, {3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_INT, static_cast<int>(BinaryIntOp::bitwise_or), a, b, z));
  EXPECT_EQ(values(z), (std::vector<double>{3, 6, -1}));
  NDArray zb = zeros(DataType::kBool, {3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_INT, static_cast<int>(BinaryIntOp::bitwise_and), a, b, zb));
  EXPECT_EQ(values(zb), (std::vector<double>{1, 0, 0}));
  NDArray zf = zeros(DataType::kFloat32, {3});
  Status s = run_legacy(OPS_PAIRWISE_INT, static_cast<int>(BinaryIntOp::bitwise_and), a, b, zf);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "bitwise_and: output z has dtype float32; expected an integer or bool dtype");
}

}  // namespace
