// REDUCE_LONG (int64 z): count_nonzero, count_zero, match_condition.
#include <limits>

#include "legacy/reduce_test_util.h"

using namespace libops;
using namespace libops::test;
using namespace libops::test::reduce;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Status count(const char* op, const NDArray& x, std::vector<double> extra, int64_t& out) {
  NDArray z = make_z(DataType::kInt64, {});
  Status s = run_reduce(OPS_REDUCE_LONG, op_num(OPS_REDUCE_LONG, op), x, nullptr, z, {},
                        ExtraParams::from(extra.data(), static_cast<int>(extra.size())));
  out = s.is_ok() ? z.get_int64(0) : -99;
  return s;
}

int64_t count_matching(const NDArray& x, int mode, double value, double eps = 0) {
  int64_t n = 0;
  EXPECT_OK(count("match_condition", x, {double(mode), value, eps}, n));
  return n;
}

}  // namespace

TEST(ReduceLong, EveryOpMatchesNumpyGoldens) { expect_group_goldens(OPS_REDUCE_LONG); }

TEST(ReduceLong, MatchConditionModes) {
  // Note [Match conditions], one mode at a time.
  NDArray x = make(DataType::kFloat64, {10}, {-2, -0.5, 0, 0.5, 1, 2, kNan, kInf, -kInf, 1.0000001});
  EXPECT_EQ(count_matching(x, 0, 1.0), 1);             // equals, exact
  EXPECT_EQ(count_matching(x, 0, 1.0, 1e-3), 2);       // equals within eps
  EXPECT_EQ(count_matching(x, 0, kInf), 1);            // an infinity equals itself
  EXPECT_EQ(count_matching(x, 1, 1.0, 1e-3), 8);       // not_equals (NaN included)
  EXPECT_EQ(count_matching(x, 2, 0.5), 4);             // less: -2, -0.5, 0, -inf
  EXPECT_EQ(count_matching(x, 3, 0.5), 5);             // less_or_equal
  EXPECT_EQ(count_matching(x, 4, 0.5), 4);             // greater: 1, 2, inf, 1.0000001
  EXPECT_EQ(count_matching(x, 5, 0.5), 5);             // greater_or_equal
  EXPECT_EQ(count_matching(x, 6, 1.0), 3);             // abs_less: -0.5, 0, 0.5
  EXPECT_EQ(count_matching(x, 7, 1.0), 5);             // abs_greater: -2, 2, inf, -inf, 1.0000001
  EXPECT_EQ(count_matching(x, 8, 0), 1);               // is_nan
  EXPECT_EQ(count_matching(x, 9, 0), 2);               // is_inf
  EXPECT_EQ(count_matching(x, 10, 0), 7);              // is_finite
  EXPECT_EQ(count_matching(x, 11, 1.0), 4);            // abs_less_or_equal
  EXPECT_EQ(count_matching(x, 12, 1.0), 6);            // abs_greater_or_equal
  NDArray i = make(DataType::kInt32, {5}, {-3, -1, 0, 4, 7});
  EXPECT_EQ(count_matching(i, 2, 0.5), 3);
  EXPECT_EQ(count_matching(i, 7, 3.5), 2);
  EXPECT_EQ(count_matching(i, 10, 0), 5);
}

TEST(ReduceLong, MatchConditionRejectsBadModeAndEps) {
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  int64_t n = 0;
  for (double mode : {-1.0, 13.0, 2.5, kNan}) {
    Status s = count("match_condition", x, {mode, 0}, n);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << mode;
    EXPECT_NE(s.message().find("match_condition: condition mode (extra[0])"), std::string::npos) << s.message();
  }
  Status s = count("match_condition", x, {0, 1, -0.1}, n);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "match_condition: eps (extra[2]) is -0.1; expected a number >= 0");
}

TEST(ReduceLong, CountsNanAsNonZeroAndEmptyAsZero) {
  NDArray x = make(DataType::kFloat32, {4}, {kNan, 0, -0.0, 3});
  int64_t n = 0;
  ASSERT_OK(count("count_nonzero", x, {}, n));
  EXPECT_EQ(n, 2);
  ASSERT_OK(count("count_zero", x, {}, n));
  EXPECT_EQ(n, 2);
  NDArray e = make(DataType::kInt16, {0, 4}, {});
  ASSERT_OK(count("count_zero", e, {}, n));
  EXPECT_EQ(n, 0);
  EXPECT_EQ(count_matching(e, 3, 1), 0);
}
