// The row-normalization engine (Note [Row normalization] in row_norm.h):
// the staging and the CPU rows.
#include "libops/ops/nn/row_norm.h"

#include <algorithm>
#include <cmath>

#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/loops/streaming_store.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nn/conv_utils.h"

namespace libops::ops::nn {

DeviceKernel<RowNormDeviceFn> row_norm_device_kernel;

namespace {

// Note [Row statistics]
// Independent partial sums the compiler keeps in vector registers (one
// running sum would be a dependency chain): 32 of them, two or four vector
// registers' worth. float rows sum in float, double rows in double.
// Everything is taken relative to the row's first value x0: the mean m of
// x - x0, the variance as the mean of (x - x0 - m)^2 (the two-pass form,
// small positive terms), the output from (x - x0 - m). A large offset
// common to the row would otherwise take the float mantissa's low bits:
// x - x0 is exact for values within a factor of 2 of each other, and m,
// of the order of the spread, rounds at that scale rather than at the
// offset's (the mean itself as a float can be off by half a float spacing
// of the offset: 5e-4 at 1e4). Summing float rows in double lanes, as
// before, cost a conversion per element and half the lanes: layer_norm
// [8192, 1024] ran at 4.5 ms a thread, bound by arithmetic; 3.7 ms in
// float lanes.
constexpr int64_t kLanes = 32;

// The lanes' sum in double, as a tree: 8 running sums of 4, then halves.
// One running sum was a chain of 32 dependent adds per statistic, twice a
// row: most of the time of rows of 64 (layer_norm over [262144, 64]).
template <typename C>
double sum_lanes(const C (&lane)[kLanes]) {
  static_assert(kLanes == 32, "sum_lanes folds 32 lanes");
  double t[8];
  for (int k = 0; k < 8; ++k)
    t[k] = (static_cast<double>(lane[k]) + static_cast<double>(lane[k + 8])) +
           (static_cast<double>(lane[k + 16]) + static_cast<double>(lane[k + 24]));
  return ((t[0] + t[4]) + (t[2] + t[6])) + ((t[1] + t[5]) + (t[3] + t[7]));
}

// sum(x - shift) of one row.
template <typename C>
double row_sum(const C* x, int64_t n, C shift) {
  C lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) lane[k] += x[i + k] - shift;
  double s = sum_lanes(lane);
  for (; i < n; ++i) s += static_cast<double>(x[i] - shift);
  return s;
}

// sum((x - shift - m)^2) of one row.
template <typename C>
double row_sum_squares(const C* x, int64_t n, C shift, C m) {
  C lane[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) {
      const C d = x[i + k] - shift - m;
      lane[k] += d * d;
    }
  double s = sum_lanes(lane);
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i] - shift - m);
    s += d * d;
  }
  return s;
}

// Rows [begin, end). With `stream`, z is written with streaming stores
// (Note [Streaming stores]).
template <typename C>
void norm_rows(const RowNormDesc& d, const C* x, const C* scale, const C* bias, C* z, int64_t begin, int64_t end,
               bool stream) {
  const int64_t n = d.n, per_param = d.spatial, params_per_row = n / d.spatial;
  for (int64_t r = begin; r < end; ++r) {
    const C* xr = x + r * n;
    C* zr = z + r * n;
    // Note [Row statistics]: everything relative to the row's first value.
    const C shift = d.kind == RowNormKind::kStandardize ? xr[0] : C(0);
    double mean = 0;  // of x - shift
    if (d.kind == RowNormKind::kStandardize) mean = row_sum(xr, n, shift) / static_cast<double>(n);
    const C m = static_cast<C>(mean);
    const double var = row_sum_squares(xr, n, shift, m) / static_cast<double>(n);
    const C inv = static_cast<C>(1.0 / std::sqrt(var + d.epsilon));
    const int64_t p0 = (r % d.groups) * params_per_row;  // this row's first parameter
    if (!d.has_scale && !d.has_bias) {
      stream_out(zr, n, stream, [&](int64_t i) { return (xr[i] - shift - m) * inv; });
    } else if (per_param == 1) {  // a parameter per position (layer_norm, rms_norm)
      const C* s = d.has_scale ? scale + p0 : nullptr;
      const C* b = d.has_bias ? bias + p0 : nullptr;
      if (s != nullptr && b != nullptr)
        stream_out(zr, n, stream, [&](int64_t i) { return (xr[i] - shift - m) * inv * s[i] + b[i]; });
      else if (s != nullptr)
        stream_out(zr, n, stream, [&](int64_t i) { return (xr[i] - shift - m) * inv * s[i]; });
      else
        stream_out(zr, n, stream, [&](int64_t i) { return (xr[i] - shift - m) * inv + b[i]; });
    } else {  // a parameter per channel of `spatial` positions (group_norm)
      for (int64_t c = 0; c < params_per_row; ++c) {
        const C a = inv * (d.has_scale ? scale[p0 + c] : C(1));
        const C b = (d.has_bias ? bias[p0 + c] : C(0)) - m * a;
        const C* xc = xr + c * per_param;
        C* zc = zr + c * per_param;
        for (int64_t i = 0; i < per_param; ++i) zc[i] = (xc[i] - shift) * a + b;
      }
    }
  }
}

template <typename C>
void row_norm_rows(const RowNormDesc& d, const C* x, const C* scale, const C* bias, C* z) {
  // The rows run compiled for cpu_isa() (Note [Runtime ISA dispatch]).
  // An output larger than the last-level cache is streamed out: written
  // once, not read first (layer_norm [8192, 1024]: 3.7 -> 2.4 ms a thread).
  const bool stream = d.rows * d.n * int64_t{sizeof(C)} >= streaming_store_threshold();
  parallel_for(d.rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, d.n)), [&](int64_t begin, int64_t end) {
    isa_dispatch([&] { norm_rows(d, x, scale, bias, z, begin, end, stream); });
    stream_fence();  // Note [Streaming stores]: once per thread's part, not per row
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
