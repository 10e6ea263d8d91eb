// Helpers shared by the binary legacy table tests (binary_*_test.cpp):
// one-call execution of a legacy op and the (x, y, z) golden layout written
// by tools/gen_goldens_binary.py.
#pragma once

#include <string>
#include <vector>

#include "golden_util.h"
#include "libops/legacy/legacy.h"
#include "test_util.h"

namespace libops::test {

inline Status run_legacy(ops_legacy_group_t group, int num, const NDArray& x, const NDArray& y, NDArray& z,
                         const std::vector<double>& extra = {}, const std::vector<int64_t>& axes = {}) {
  legacy::LegacyCall c;
  c.group = group;
  c.num = num;
  c.x = &x;
  c.y = &y;
  c.z = &z;
  c.extra = ExtraParams::from(extra.data(), static_cast<int>(extra.size()));
  c.axes = axes.empty() ? nullptr : axes.data();
  c.n_axes = static_cast<int>(axes.size());
  return legacy::exec(c);
}

// The op's number in `group`; fails the test when the name is unknown.
inline int op_number(ops_legacy_group_t group, const char* name) {
  int num = legacy::find_op(group, name);
  EXPECT_GE(num, 0) << "no op '" << name << "' in " << legacy::group_name(group);
  return num;
}

// One golden file: rows x, y and the expected z, each of length n.
struct BinaryGolden {
  std::vector<double> x, y, z;
};

inline BinaryGolden load_binary_golden(const std::string& file) {
  NDArray a = load_golden("binary/" + file + ".npy");
  BinaryGolden g;
  if (a.rank() != 2 || a.dim(0) != 3) {
    ADD_FAILURE() << file << ": expected a (3, n) array";
    return g;
  }
  const int64_t n = a.dim(1);
  for (int64_t i = 0; i < n; ++i) {
    g.x.push_back(a.get_double(i));
    g.y.push_back(a.get_double(n + i));
    g.z.push_back(a.get_double(2 * n + i));
  }
  return g;
}

// Runs the golden through PAIRWISE-flavour `group` with x, y of `in` and z of
// `out`, and compares z with the expected row.
inline ::testing::AssertionResult check_binary_golden(ops_legacy_group_t group, const char* op,
                                                      const std::string& file, DataType in, DataType out,
                                                      double rtol, double atol) {
  BinaryGolden g = load_binary_golden(file);
  const Dims shape{static_cast<int64_t>(g.x.size())};
  NDArray x = make(in, shape, g.x), y = make(in, shape, g.y), z = zeros(out, shape);
  Status s = run_legacy(group, legacy::find_op(group, op), x, y, z);
  if (!s.is_ok()) return ::testing::AssertionFailure() << file << ": " << s.message();
  ::testing::AssertionResult r = all_close(z, g.z, rtol, atol);
  if (!r) r << " (" << file << ", z " << dtype_name(out) << ")";
  return r;
}

}  // namespace libops::test
