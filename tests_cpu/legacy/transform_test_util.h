// Helpers shared by the legacy TRANSFORM table tests (transform_*_test.cpp):
// one-call execution, the golden layout written by
// tools/gen_goldens_transform.py, comparison against a reference rounded to
// the output dtype, and the table/case-list consistency check.
#pragma once

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "golden_util.h"
#include "libops/legacy/legacy.h"
#include "test_util.h"

namespace libops::test::transform {

inline Status run(ops_legacy_group_t group, int num, const NDArray& x, NDArray& z,
                  const std::vector<double>& extra = {}) {
  legacy::LegacyCall c;
  c.group = group;
  c.num = num;
  c.x = &x;
  c.z = &z;
  c.extra = ExtraParams::from(extra.data(), static_cast<int>(extra.size()));
  return legacy::exec(c);
}

// The op's number in `group`; fails the test when the name is unknown.
inline int number(ops_legacy_group_t group, const std::string& name) {
  int num = legacy::find_op(group, name.c_str());
  EXPECT_GE(num, 0) << "no op '" << name << "' in " << legacy::group_name(group);
  return num;
}

// One golden file golden/transform/<table>/<op>.npy: the float32-exact
// inputs x and the float64 references at x, float16(x) and bfloat16(x).
struct Golden {
  std::vector<double> x, ref, ref_f16, ref_bf16;
  // The reference for inputs stored as `dtype` (x rounded to it).
  const std::vector<double>& ref_for(DataType dtype) const {
    if (dtype == DataType::kFloat16) return ref_f16;
    if (dtype == DataType::kBFloat16) return ref_bf16;
    return ref;
  }
};

inline Golden load(const std::string& table, const std::string& op) {
  NDArray a = load_golden("transform/" + table + "/" + op + ".npy");
  Golden g;
  if (a.rank() != 2 || a.dim(0) != 4) {
    ADD_FAILURE() << table << "/" << op << ": expected a (4, n) golden";
    return g;
  }
  std::vector<double>* rows[4] = {&g.x, &g.ref, &g.ref_f16, &g.ref_bf16};
  const int64_t n = a.dim(1);
  for (int r = 0; r < 4; ++r)
    for (int64_t i = 0; i < n; ++i) rows[r]->push_back(a.get_double(r * n + i));
  return g;
}

// `values` rounded to `dtype` and read back (float32 overflow gives inf,
// tiny values flush as the dtype does).
inline std::vector<double> rounded_to(DataType dtype, const std::vector<double>& values) {
  return test::values(make(dtype, {static_cast<int64_t>(values.size())}, values));
}

// The rounding error allowed on top of an op's own error when the result is
// stored as `dtype`: one unit in the last place, relative, and the spacing of
// the subnormals.
struct Tolerance {
  double rtol = 0, atol = 0;
};
inline Tolerance storage_rounding(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16: return {1.5 * std::ldexp(1.0, -10), std::ldexp(1.0, -24)};
    case DataType::kBFloat16: return {1.5 * std::ldexp(1.0, -7), 0};
    default: return {0, 0};
  }
}

// got vs. want rounded to `dtype`: NaN matches NaN, infinities must match
// exactly, otherwise |got - want| <= atol + rtol |want|. Names the input of
// the first mismatch.
inline ::testing::AssertionResult close_in(DataType dtype, const std::vector<double>& got,
                                           const std::vector<double>& want, const std::vector<double>& x,
                                           Tolerance tol) {
  std::vector<double> w = rounded_to(dtype, want);
  if (got.size() != w.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " != expected " << w.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], e = w[i];
    const bool ok = (std::isnan(g) && std::isnan(e)) || g == e ||
                    (std::isfinite(g) && std::isfinite(e) && std::fabs(g - e) <= tol.atol + tol.rtol * std::fabs(e));
    if (!ok)
      return ::testing::AssertionFailure() << dtype_name(dtype) << " element " << i << " (x = " << x[i]
                                           << "): got " << g << ", expected " << e << " (exact " << want[i] << ")";
  }
  return ::testing::AssertionSuccess();
}

// Runs `op` on the golden inputs stored as `in`, output `out`, and compares
// with the reference for inputs of dtype `in`. The op's own tolerance is
// widened by the rounding of the output dtype.
inline ::testing::AssertionResult check_golden(ops_legacy_group_t group, const std::string& table,
                                               const std::string& op, DataType in, DataType out, Tolerance tol,
                                               const std::vector<double>& extra = {}) {
  Golden g = load(table, op);
  const Dims shape{static_cast<int64_t>(g.x.size())};
  NDArray x = make(in, shape, g.x), z = zeros(out, shape);
  Status s = run(group, number(group, op), x, z, extra);
  if (!s.is_ok()) return ::testing::AssertionFailure() << op << ": " << s.message();
  const Tolerance r = storage_rounding(out);
  return close_in(out, values(z), g.ref_for(in), test::values(x), {tol.rtol + r.rtol, tol.atol + r.atol});
}

// A strided, transposed view of the first 20 golden inputs: x[i][j] sits
// at base[j][2 i] of a dense [5, 8] base, so x has shape [4, 5], strides
// (2, 8), and shows inputs 0..19 in C order. The skipped base columns hold
// other values, so reading them shows up as a mismatch.
struct StridedInput {
  NDArray base, x;
  std::vector<double> shown;  // inputs 0..19, x's values in C order
};
inline StridedInput strided_transposed(DataType dtype, const std::vector<double>& inputs) {
  StridedInput s;
  s.base = zeros(dtype, {5, 8});
  for (int k = 1; k < 40; k += 2) s.base.set_double(k, 1000.0 + k);
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 4; ++i) s.base.set_double(j * 8 + 2 * i, inputs[static_cast<size_t>(i * 5 + j)]);
  NDArray cols;
  EXPECT_OK(s.base.slice(1, 0, 8, 2, cols));  // [5, 4], strides (8, 2)
  s.x = cols.transpose();                       // [4, 5], strides (2, 8)
  s.shown.assign(inputs.begin(), inputs.begin() + 20);
  return s;
}

// Runs `op` on the strided view of the golden inputs (stored as `dtype`) into
// a Fortran-order z of the same dtype and compares with the reference.
inline ::testing::AssertionResult check_strided_golden(ops_legacy_group_t group, const std::string& table,
                                                       const std::string& op, DataType dtype, DataType out,
                                                       Tolerance tol, const std::vector<double>& extra = {}) {
  Golden g = load(table, op);
  if (g.x.size() < 20) return ::testing::AssertionFailure() << op << ": golden has fewer than 20 inputs";
  StridedInput in = strided_transposed(dtype, g.x);
  NDArray z;
  Status s = NDArray::zeros(out, {4, 5}, 'f', z);
  if (s.is_ok()) s = run(group, number(group, op), in.x, z, extra);
  if (!s.is_ok()) return ::testing::AssertionFailure() << op << ": " << s.message();
  const std::vector<double>& ref = g.ref_for(dtype);
  const Tolerance r = storage_rounding(out);
  return close_in(out, values(z), std::vector<double>(ref.begin(), ref.begin() + 20), in.shown,
                  {tol.rtol + r.rtol, tol.atol + r.atol});
}

// The case list of a test file names every op of the table exactly once,
// and the table's names are unique and round-trip through find_op.
inline void expect_cases_match_table(ops_legacy_group_t group, int expected_count,
                                     const std::vector<std::string>& cases) {
  const legacy::LegacyOpInfo* ops = nullptr;
  const int n = legacy::list_ops(group, &ops);
  EXPECT_EQ(n, expected_count);
  std::set<std::string> table, listed(cases.begin(), cases.end());
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(table.insert(ops[i].name).second) << "duplicate name " << ops[i].name;
    EXPECT_EQ(legacy::find_op(group, ops[i].name), ops[i].num) << ops[i].name;
    EXPECT_STREQ(legacy::op_name(group, ops[i].num), ops[i].name);
    if (i > 0) {
      EXPECT_LT(ops[i - 1].num, ops[i].num) << "numbers ascend";
    }
  }
  EXPECT_EQ(listed.size(), cases.size()) << "a case is listed twice";
  EXPECT_EQ(table, listed) << "the test's case list and the table differ";
}

}  // namespace libops::test::transform
