// The row-normalization engine (Note [Row normalization] in row_norm.h):
// the staging and the CPU rows.
#include "libops/ops/nn/row_norm.h"

#include <algorithm>
#include <cmath>

#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops::nn {

DeviceKernel<RowNormDeviceFn> row_norm_device_kernel;

namespace {

// Independent partial sums the compiler keeps in vector registers (one
// running double sum would be a dependency chain).
constexpr int64_t kLanes = 8;

// sum(x) and sum((x - shift)^2) of one row, in double.
template <typename C>
double row_sum(const C* x, int64_t n) {
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) lane[k] += static_cast<double>(x[i + k]);
  double s = 0;
  for (int64_t k = 0; k < kLanes; ++k) s += lane[k];
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  return s;
}

template <typename C>
double row_sum_squares(const C* x, int64_t n, double shift) {
  double lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) {
      const double d = static_cast<double>(x[i + k]) - shift;
      lane[k] += d * d;
    }
  double s = 0;
  for (int64_t k = 0; k < kLanes; ++k) s += lane[k];
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - shift;
    s += d * d;
  }
  return s;
}

// Rows [begin, end).
template <typename C>
void norm_rows(const RowNormDesc& d, const C* x, const C* scale, const C* bias, C* z, int64_t begin, int64_t end) {
  const int64_t n = d.n, per_param = d.spatial, params_per_row = n / d.spatial;
  for (int64_t r = begin; r < end; ++r) {
    const C* xr = x + r * n;
    C* zr = z + r * n;
    double mean = 0;
    if (d.kind == RowNormKind::kStandardize) mean = row_sum(xr, n) / static_cast<double>(n);
    const double var = row_sum_squares(xr, n, mean) / static_cast<double>(n);
    const C m = static_cast<C>(mean), inv = static_cast<C>(1.0 / std::sqrt(var + d.epsilon));
    const int64_t p0 = (r % d.groups) * params_per_row;  // this row's first parameter
    if (!d.has_scale && !d.has_bias) {
      for (int64_t i = 0; i < n; ++i) zr[i] = (xr[i] - m) * inv;
    } else if (per_param == 1) {  // a parameter per position (layer_norm, rms_norm)
      const C* s = d.has_scale ? scale + p0 : nullptr;
      const C* b = d.has_bias ? bias + p0 : nullptr;
      if (s != nullptr && b != nullptr)
        for (int64_t i = 0; i < n; ++i) zr[i] = (xr[i] - m) * inv * s[i] + b[i];
      else if (s != nullptr)
        for (int64_t i = 0; i < n; ++i) zr[i] = (xr[i] - m) * inv * s[i];
      else
        for (int64_t i = 0; i < n; ++i) zr[i] = (xr[i] - m) * inv + b[i];
    } else {  // a parameter per channel of `spatial` positions (group_norm)
      for (int64_t c = 0; c < params_per_row; ++c) {
        const C a = inv * (d.has_scale ? scale[p0 + c] : C(1));
        const C b = (d.has_bias ? bias[p0 + c] : C(0)) - m * a;
        const C* xc = xr + c * per_param;
        C* zc = zr + c * per_param;
        for (int64_t i = 0; i < per_param; ++i) zc[i] = xc[i] * a + b;
      }
    }
  }
}

template <typename C>
void row_norm_rows(const RowNormDesc& d, const C* x, const C* scale, const C* bias, C* z) {
  // The rows run compiled for cpu_isa() (Note [Runtime ISA dispatch]).
  parallel_for(d.rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, d.n)), [&](int64_t begin, int64_t end) {
    isa_dispatch([&] { norm_rows(d, x, scale, bias, z, begin, end); });
  });
}

// A parameter as a dense [count] array of `dt` on block.device().
Status param_on_device(const Context& block, const NDArray& p, int64_t count, DataType dt, NDArray& out) {
  NDArray dense;
  RETURN_IF_ERROR(dense_on_device(block, p, dt, dense));
  return dense.reshape(Dims{count}, out);
}

}  // namespace

void row_norm_cpu(const RowNormDesc& desc, DataType ct, const void* x, const void* scale, const void* bias, void* z) {
  if (ct == DataType::kFloat64)
    row_norm_rows<double>(desc, static_cast<const double*>(x), static_cast<const double*>(scale),
                          static_cast<const double*>(bias), static_cast<double*>(z));
  else
    row_norm_rows<float>(desc, static_cast<const float*>(x), static_cast<const float*>(scale),
                         static_cast<const float*>(bias), static_cast<float*>(z));
}

Status row_norm_exec(Context& block, const RowNormDesc& desc, const NDArray& x, const NDArray* scale,
                     const NDArray* bias, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  const DataType ct = float_compute_dtype(x.dtype());
  NDArray xd, sd, bd;
  RETURN_IF_ERROR(dense_on_device(block, x, ct, xd));
  if (scale != nullptr) RETURN_IF_ERROR(param_on_device(block, *scale, desc.param_count(), ct, sd));
  if (bias != nullptr) RETURN_IF_ERROR(param_on_device(block, *bias, desc.param_count(), ct, bd));
  RowNormDesc d = desc;
  d.has_scale = scale != nullptr;
  d.has_bias = bias != nullptr;
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, ct));
  NDArray& t = out.target();
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(sync_for_kernel(block.device(), {&xd, scale ? &sd : nullptr, bias ? &bd : nullptr}, t));
    row_norm_cpu(d, ct, xd.data(), scale ? sd.data() : nullptr, bias ? bd.data() : nullptr, t.data());
    t.buffer()->mark_host_written();
  } else {
    const RowNormDeviceFn fn = row_norm_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, xd, scale ? &sd : nullptr, bias ? &bd : nullptr, t)));
  }
  return out.finish(block, z);
}

}  // namespace libops::ops::nn
