// Shared by tests_cpu/legacy/reduce_*_test.cpp: running legacy reductions
// and checking every op of a group against the numpy goldens written by
// tools/gen_goldens_reduce.py (tests_cpu/golden/reduce/).
#pragma once

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "golden_util.h"
#include "libops/legacy/legacy.h"
#include "test_util.h"

namespace libops::test::reduce {

// The axis lists every golden covers, in column order; AXES in the generator.
inline const std::vector<std::vector<int64_t>>& axis_cases() {
  static const std::vector<std::vector<int64_t>> cases = {{0}, {1}, {2}, {0, 2}, {}, {-1}, {0, -2}};
  return cases;
}

// Extra params the goldens were made with (the generator's NORM_P, MATCH,
// EQUALS_EPS); every other op runs with none.
inline ExtraParams extras_for(const std::string& op) {
  std::vector<double> v;
  if (op == "norm_p") v = {3.0};
  if (op == "match_condition" || op == "first_index" || op == "last_index") v = {4, 0.5};  // x > 0.5
  if (op == "equals_with_eps") v = {0.25};
  return ExtraParams::from(v.data(), static_cast<int>(v.size()));
}

inline Status run_reduce(ops_legacy_group_t group, int num, const NDArray& x, const NDArray* y, NDArray& z,
                         const std::vector<int64_t>& axes, const ExtraParams& e = {}) {
  legacy::LegacyCall c;
  c.group = group;
  c.num = num;
  c.x = &x;
  c.y = y;
  c.z = &z;
  c.axes = axes.data();
  c.n_axes = static_cast<int>(axes.size());
  c.extra = e;
  return legacy::exec(c);
}

inline int op_num(ops_legacy_group_t group, const char* name) {
  const int num = legacy::find_op(group, name);
  EXPECT_GE(num, 0) << "no op " << name;
  return num;
}

// The z dtype a group produces for input dtype `in`.
inline DataType result_dtype(ops_legacy_group_t group, DataType in) {
  switch (group) {
    case OPS_REDUCE_SAME: return in;
    case OPS_REDUCE_BOOL: return DataType::kBool;
    case OPS_REDUCE_LONG:
    case OPS_INDEX_REDUCE: return DataType::kInt64;
    default: return in == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  }
}

// Shape of x reduced over `axes` (empty = all).
inline Dims reduced_dims(const Dims& shape, const std::vector<int64_t>& axes, bool keep_dims) {
  const int rank = shape.size();
  std::vector<bool> red(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) red[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
  Dims out;
  for (int d = 0; d < rank; ++d) {
    if (!red[static_cast<size_t>(d)]) out.push_back(shape[d]);
    else if (keep_dims) out.push_back(1);
  }
  return out;
}

inline NDArray make_z(DataType dtype, const Dims& shape) {
  NDArray z;
  EXPECT_OK(NDArray::zeros(dtype, shape, 'c', z));
  return z;
}

// A dense copy of `a` converted to `dtype`.
inline NDArray cast(const NDArray& a, DataType dtype) {
  NDArray out;
  EXPECT_OK(NDArray::create(dtype, a.shape(), 'c', out));
  EXPECT_OK(out.assign(a));
  return out;
}

// A view with the values of `a` whose memory holds the transpose: strides
// grow from the first dim to the last (F order).
inline NDArray transposed_view(const NDArray& a) {
  Dims rev;
  for (int d = a.rank() - 1; d >= 0; --d) rev.push_back(d);
  NDArray at, dense, view;
  EXPECT_OK(a.permute(rev, at));
  EXPECT_OK(at.dup('c', dense));
  EXPECT_OK(dense.permute(rev, view));
  return view;
}

// A view with the values of `a` that takes every other element of a buffer
// twice as long in the last dim (the skipped elements hold 99).
inline NDArray strided_view(const NDArray& a) {
  Dims wide = a.shape();
  wide[wide.size() - 1] *= 2;
  NDArray buf, view;
  EXPECT_OK(NDArray::create(a.dtype(), wide, 'c', buf));
  EXPECT_OK(buf.assign_scalar(99));
  EXPECT_OK(buf.slice(a.rank() - 1, 0, wide.back(), 2, view));
  EXPECT_OK(view.assign(a));
  return view;
}

// A view with the values of `a` over memory that runs backwards in every
// dim (negative strides).
inline NDArray flip_all(const NDArray& a) {
  NDArray v = a;
  for (int d = 0; d < a.rank(); ++d) {
    NDArray f;
    EXPECT_OK(v.flip(d, f));
    v = f;
  }
  return v;
}
inline NDArray reversed_view(const NDArray& a) {
  NDArray dense;
  EXPECT_OK(flip_all(a).dup('c', dense));
  return flip_all(dense);
}

// The golden value as z of `dtype` holds it: integers wrap (two's complement).
inline double as_stored(double v, DataType dtype) {
  if (!dtype_is_integer(dtype) || std::isnan(v)) return v;
  const int bits = static_cast<int>(dtype_size(dtype)) * 8;
  if (bits == 64) return v;
  const int64_t m = int64_t{1} << bits;
  int64_t w = static_cast<int64_t>(v) % m;
  if (w < 0) w += m;
  if (dtype_is_signed_int(dtype) && w >= m / 2) w -= m;
  return static_cast<double>(w);
}

struct GoldenCheck {
  double rtol = 1e-12, atol = 1e-12;
  bool both_keep_dims = true;
  DataType z_dtype = DataType::kInvalid;  // kInvalid: result_dtype(group, x dtype)
};

// Runs every op of `group` on x (and y for reduce3) over every axis case,
// with and without kept dims, and compares with the rows of
// golden/reduce/<group>_<input>.npy.
inline void expect_group_matches_golden(ops_legacy_group_t group, const std::string& input, const NDArray& x,
                                        const NDArray* y, const GoldenCheck& check = {}) {
  const std::string file = "reduce/" + std::string(legacy::group_name(group)) + "_" + input + ".npy";
  NDArray golden = load_golden(file);
  ASSERT_EQ(golden.rank(), 2) << file;
  const legacy::LegacyOpInfo* ops = nullptr;
  const int n_ops = legacy::list_ops(group, &ops);
  ASSERT_EQ(golden.dim(0), n_ops) << file << ": one golden row per op; regenerate the goldens";
  const DataType zt = check.z_dtype != DataType::kInvalid ? check.z_dtype : result_dtype(group, x.dtype());
  for (int r = 0; r < n_ops; ++r) {
    const std::string name = ops[r].name;
    int64_t col = 0;
    for (const auto& axes : axis_cases()) {
      const Dims drop = reduced_dims(x.shape(), axes, false);
      std::vector<double> want(static_cast<size_t>(drop.product()));
      for (size_t i = 0; i < want.size(); ++i) want[i] = as_stored(golden.get_double(r * golden.dim(1) + col + int64_t(i)), zt);
      col += drop.product();
      for (bool keep : {false, true}) {
        if (keep && !check.both_keep_dims) continue;
        SCOPED_TRACE(name + " on " + input + " " + dtype_name(x.dtype()) + ", axes " + Dims(axes.data(), int(axes.size())).str() +
                     (keep ? ", keep_dims" : ""));
        NDArray z = make_z(zt, reduced_dims(x.shape(), axes, keep));
        ASSERT_OK(run_reduce(group, ops[r].num, x, y, z, axes, extras_for(name)));
        EXPECT_TRUE(all_close(z, want, check.rtol, check.atol));
      }
    }
    ASSERT_EQ(col, golden.dim(1)) << file << ": golden columns do not match the axis cases";
  }
}

// The golden inputs: x (or p) and, for reduce3, y (or q), converted to `dtype`.
struct Inputs {
  NDArray x, y;
};
inline Inputs load_inputs(const std::string& input, DataType dtype) {
  const std::string second = input == "x" ? "y" : "q";
  return {cast(load_golden("reduce/" + input + ".npy"), dtype), cast(load_golden("reduce/" + second + ".npy"), dtype)};
}

// The full golden check of one group: x in float32, float64 and int32; p in
// float32 and float64; float16 inputs; transposed, strided and reversed views.
inline void expect_group_goldens(ops_legacy_group_t group) {
  const bool reduce3 = group == OPS_REDUCE3;
  for (const char* input : {"x", "p"}) {
    for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kInt32}) {
      if (t == DataType::kInt32 && std::strcmp(input, "p") == 0) continue;  // fractions
      Inputs in = load_inputs(input, t);
      GoldenCheck check;
      if (t != DataType::kFloat64) check.rtol = check.atol = 2e-6;
      expect_group_matches_golden(group, input, in.x, reduce3 ? &in.y : nullptr, check);
    }
    // float16 inputs hold the inputs exactly; only z's rounding differs.
    Inputs half = load_inputs(input, DataType::kFloat16);
    GoldenCheck h;
    h.rtol = h.atol = 2e-3;
    h.both_keep_dims = false;
    expect_group_matches_golden(group, input, half.x, reduce3 ? &half.y : nullptr, h);
    // Non-contiguous views reduce to the same values.
    Inputs f64 = load_inputs(input, DataType::kFloat64);
    GoldenCheck v;
    v.both_keep_dims = false;
    NDArray tx = transposed_view(f64.x), ty = transposed_view(f64.y);
    EXPECT_FALSE(tx.is_c_contiguous());
    expect_group_matches_golden(group, input, tx, reduce3 ? &ty : nullptr, v);
    NDArray sx = strided_view(f64.x), sy = strided_view(f64.y);
    EXPECT_FALSE(sx.is_contiguous());
    expect_group_matches_golden(group, input, sx, reduce3 ? &sy : nullptr, v);
    NDArray rx = reversed_view(f64.x), ry = reversed_view(f64.y);
    EXPECT_LT(rx.strides()[0], 0);
    expect_group_matches_golden(group, input, rx, reduce3 ? &ry : nullptr, v);
  }
}

}  // namespace libops::test::reduce
