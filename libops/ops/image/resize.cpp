// resize: resample the two spatial axes of images (ONNX's Resize over H and
// W, PyTorch's interpolate, TensorFlow's resize), nearest, linear or cubic.
//
//   input   x: [N, C, H, W] (data_format 0) or [N, H, W, C] (1), float16,
//           bfloat16, float32 or float64, any strides
//   inputs  size (optional): the output's extents as integers, [height,
//           width] or one per dim of x in its order (N and C unchanged);
//           scales (optional): floats, [scale_h, scale_w] or one per dim (N
//           and C 1), the output extents then floor(in * scale). Either may
//           be known only at run time (ONNX's sizes and scales inputs); an
//           empty size stands for none.
//   i args  height, width: the output's spatial extents (>= 0), when no
//           size or scales input gives them
//           mode 0 nearest, 1 linear, 2 cubic
//           coordinate_mode, nearest_mode, exclude_outside (Note [Resize taps])
//           data_format 0 NCHW, 1 NHWC
//   t args  scale_h, scale_w: the scales of the coordinate formulas (ONNX's
//           scales input); 0 (default) takes out / in
//           cubic_coeff_a (default -0.75)
//   output  x's dtype: [N, C, height, width] or [N, height, width, C]
//
// The engine: resize.h. On a device, the kernel its backend registered
// (resize.cu for CUDA) gathers with the host's tap tables.
#include "libops/ops/image/resize.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <vector>

#include "libops/core/cpu_isa.h"
#if LIBOPS_ISA_DISPATCH
#include <immintrin.h>
#endif
#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/host_reads.h"
#include "libops/ops/nested_call.h"

namespace libops::ops::image {

DeviceKernel<ResizeDeviceFn> resize_device_kernel;

namespace {

double source_coordinate(const ResizeSpec& spec, const ResizeAxis& a, int64_t o) {
  const double s = a.scale > 0 ? a.scale : static_cast<double>(a.out) / static_cast<double>(a.in);
  const double x = static_cast<double>(o);
  switch (spec.coordinates) {
    case CoordinateMode::kHalfPixel: return (x + 0.5) / s - 0.5;
    case CoordinateMode::kAsymmetric: return x / s;
    case CoordinateMode::kAlignCorners:
      // (out - 1), not (s * in - 1), also when a scale is given: ONNX
      // Runtime and PyTorch agree on that; ONNX's reference implementation
      // takes the unrounded length, and its align_corners tests with scales
      // differ from both.
      return a.out == 1 ? 0.0 : x * static_cast<double>(a.in - 1) / static_cast<double>(a.out - 1);
    case CoordinateMode::kPytorchHalfPixel: return a.out > 1 ? (x + 0.5) / s - 0.5 : 0.0;
    case CoordinateMode::kTfHalfPixelForNn: return (x + 0.5) / s;
    case CoordinateMode::kHalfPixelSymmetric: {
      const double in = static_cast<double>(a.in);
      const double adjustment = static_cast<double>(a.out) / (s * in);
      return in / 2 * (1 - adjustment) + (x + 0.5) / s - 0.5;
    }
    case CoordinateMode::kTfCropAndResize: {
      // In float, as ONNX Runtime and ONNX's reference compute it: a roi
      // of 0.1f over 6 rows is 0.5 there, the nearest row 0, where double
      // gives 0.50000000745 and row 1.
      const float last = static_cast<float>(a.in - 1), start = static_cast<float>(a.roi_start),
                  end = static_cast<float>(a.roi_end);
      if (a.out == 1) return 0.5f * (start + end) * last;
      return start * last + static_cast<float>(x) * (end - start) * last / static_cast<float>(a.out - 1);
    }
  }
  return x;
}

// Keys' cubic kernel at distance d (ONNX's and PyTorch's with a = -0.75).
double cubic_weight(double d, double a) {
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

// The scale of the coordinate formulas along a: given, or out / in.
double axis_scale(const ResizeAxis& a) {
  return a.scale > 0 ? a.scale : static_cast<double>(a.out) / static_cast<double>(a.in);
}

// Whether antialias widens the kernel along a (Note [Resize taps]).
bool widened(const ResizeSpec& spec, const ResizeAxis& a) {
  return spec.antialias && spec.mode != ResizeMode::kNearest && a.in > 0 && a.out > 0 && axis_scale(a) < 1;
}

// The first tap's offset from the pixel left of the coordinate, for the
// kernel widened by 1 / s.
int64_t widened_start(const ResizeSpec& spec, double s) {
  return static_cast<int64_t>(std::floor((spec.mode == ResizeMode::kLinear ? -1.0 : -2.0) / s)) + 1;
}

// The 2 - 2 start taps of coordinate c along an axis shrunk by s, widened
// (Note [Resize taps]): normalized, then exclude_outside, then clamped.
void widened_taps(const ResizeSpec& spec, double s, int64_t start, double c, int64_t last, int64_t* idx, double* w) {
  const double f = std::ceil(c) - 1;  // c itself, when whole, is the right neighbour
  const double ratio = c - f;
  const int n = static_cast<int>(2 - 2 * start);
  double sum = 0;
  for (int j = 0; j < n; ++j) {
    const double d = s * (static_cast<double>(start + j) - ratio);
    w[j] = spec.mode == ResizeMode::kLinear ? std::max(0.0, 1 - std::fabs(d)) : cubic_weight(d, spec.cubic_a);
    sum += w[j];
  }
  double kept = 0;
  for (int j = 0; j < n; ++j) {
    if (sum != 0) w[j] /= sum;
    const int64_t i = static_cast<int64_t>(f) + start + j;
    if (spec.exclude_outside && (i < 0 || i > last)) w[j] = 0;
    kept += w[j];
    idx[j] = std::min(std::max<int64_t>(i, 0), last);
  }
  if (spec.exclude_outside && kept != 0)
    for (int j = 0; j < n; ++j) w[j] /= kept;
}

// The horizontal taps of NCHW rows (inner 1) tap by tap: index[b * ow +
// ox] = ix[ox * K + b], and the weights alike, so the tap loop over ox
// reads them contiguously and vectorizes with gathers from the blended row.
template <typename C>
struct TapsByTap {
  std::vector<int32_t> index;
  std::vector<C> weight;
  // Note [Resize by permutes]: per tap and block of 16 outputs, the first
  // source pixel the block reads (base) and each output's offset from it.
  bool permute = false;
  std::vector<int32_t> base, offset;
};

// Note [Resize by permutes]
// Where every block of 16 neighbouring outputs reads, for each tap, source
// pixels within 16 of each other (any upsampling), the horizontal pass
// loads those 16 pixels of the blended row once and permutes them into
// place (vpermps) instead of gathering each output's pixel: [1, 64, 112,
// 112] -> 224^2 at one thread: linear 2.6 -> 0.91 ms, nearest 1.05 ->
// 0.33 ms (its output in L3 between calls). float32 on AVX-512;
// the blended row has 16 padding values, so a block near its end loads
// within the buffer; nearest reads the source row with the lanes past its
// end masked off. The sums are the gathering loop's, in the same order.
constexpr int64_t kPermuteLanes = 16;

template <typename C, int K>
void plan_permutes(TapsByTap<C>& by_tap, int64_t ow) {
  if constexpr (!std::is_same_v<C, float> || K == 0) {
    return;
  } else {
    if (cpu_isa() != CpuIsa::kAvx512) return;
    const int64_t blocks = (ow + kPermuteLanes - 1) / kPermuteLanes;
    by_tap.base.assign(static_cast<size_t>(K * blocks), 0);
    by_tap.offset.assign(static_cast<size_t>(K * blocks * kPermuteLanes), 0);
    for (int b = 0; b < K; ++b)
      for (int64_t v = 0; v < blocks; ++v) {
        const int32_t* idx = by_tap.index.data() + b * ow + v * kPermuteLanes;
        const int64_t n = std::min(kPermuteLanes, ow - v * kPermuteLanes);
        const int32_t lo = *std::min_element(idx, idx + n), hi = *std::max_element(idx, idx + n);
        if (hi - lo >= kPermuteLanes) return;  // a block spans more than one load: gathers
        by_tap.base[static_cast<size_t>(b * blocks + v)] = lo;
        for (int64_t j = 0; j < n; ++j)
          by_tap.offset[static_cast<size_t>((b * blocks + v) * kPermuteLanes + j)] = idx[j] - lo;
      }
    by_tap.permute = true;
  }
}

#if LIBOPS_ISA_DISPATCH
// z[ox] = sum over taps b of w_b[ox] t[index_b[ox]], 16 outputs at a time
// by permutes (Note [Resize by permutes]).
// t holds `len` readable values (nearest reads the source row itself,
// whose end may be the end of x).
template <int K>
LIBOPS_TARGET_AVX512 void taps_by_permutes(const TapsByTap<float>& by_tap, int64_t ow, const float* t, int64_t len,
                                           float* z) {
  const int64_t blocks = (ow + kPermuteLanes - 1) / kPermuteLanes;
  auto lanes = [](int64_t n) {
    return n >= kPermuteLanes ? __mmask16(0xffff) : static_cast<__mmask16>((1u << std::max<int64_t>(n, 0)) - 1);
  };
  for (int64_t v = 0; v < blocks; ++v) {
    const int64_t o = v * kPermuteLanes;
    const __mmask16 m = lanes(ow - o);
    __m512 acc = _mm512_setzero_ps();
    for (int b = 0; b < K; ++b) {
      const size_t tap_block = static_cast<size_t>(b * blocks + v);
      const int64_t base = by_tap.base[tap_block];
      const __m512i off = _mm512_loadu_si512(by_tap.offset.data() + tap_block * kPermuteLanes);
      const __m512 src =
          _mm512_maskz_permutexvar_ps(0xffff, off, _mm512_maskz_loadu_ps(lanes(len - base), t + base));
      if constexpr (K == 1) {
        acc = src;  // nearest: the pixel itself
      } else {
        const __m512 w = _mm512_maskz_loadu_ps(m, by_tap.weight.data() + b * ow + o);
        acc = b == 0 ? _mm512_mul_ps(w, src) : _mm512_fmadd_ps(w, src, acc);
      }
    }
    _mm512_mask_storeu_ps(z + o, m, acc);
  }
}
#endif

// Whether output row oy reads the same source rows with the same weights
// as row oy - 1.
template <typename C>
inline bool same_taps(const int64_t* iy, const C* wy, int64_t oy, int k) {
  for (int a = 0; a < k; ++a)
    if (iy[oy * k + a] != iy[(oy - 1) * k + a] || (k > 1 && wy[oy * k + a] != wy[(oy - 1) * k + a])) return false;
  return true;
}

// One output row r of resize_rows; t is the row_len scratch row; by_tap
// the horizontal taps where inner is 1 (empty otherwise).
template <typename C, int K>
inline void resize_row(const ResizeDesc& d, const C* x, const int64_t* iy, const C* wy, const int64_t* ix,
                       const C* wx, const TapsByTap<C>& by_tap, C* z, int64_t r, C* __restrict t) {
  const int k = K > 0 ? K : d.taps;  // K 0: the tap count known at run time (antialias)
  const int64_t row_len = d.w * d.inner;
  const int64_t o = r / d.oh, oy = r % d.oh;
  const C* xo = x + o * d.h * row_len;
  C* __restrict zr = z + r * d.ow * d.inner;
  if constexpr (K == 1) {
    const C* src_row = xo + iy[oy] * row_len;
    if (d.inner == 1) {
#if LIBOPS_ISA_DISPATCH
      if constexpr (std::is_same_v<C, float>)
        if (by_tap.permute) return taps_by_permutes<1>(by_tap, d.ow, src_row, row_len, zr);
#endif
      if (!by_tap.index.empty()) {  // 32-bit indices: 16-lane gathers
        const int32_t* i0 = by_tap.index.data();
        for (int64_t ox = 0; ox < d.ow; ++ox) zr[ox] = src_row[i0[ox]];
        return;
      }
      for (int64_t ox = 0; ox < d.ow; ++ox) zr[ox] = src_row[ix[ox]];
      return;
    }
    for (int64_t ox = 0; ox < d.ow; ++ox) {
      const C* src = src_row + ix[ox] * d.inner;
      C* zp = zr + ox * d.inner;
      for (int64_t c = 0; c < d.inner; ++c) zp[c] = src[c];
    }
    return;
  }
  {
    const C w0 = wy[oy * k];
    const C* __restrict s0 = xo + iy[oy * k] * row_len;
    for (int64_t i = 0; i < row_len; ++i) t[i] = w0 * s0[i];
    for (int a = 1; a < k; ++a) {
      const C wa = wy[oy * k + a];
      const C* __restrict sa = xo + iy[oy * k + a] * row_len;
      for (int64_t i = 0; i < row_len; ++i) t[i] += wa * sa[i];
    }
  }
#if LIBOPS_ISA_DISPATCH
  if constexpr (std::is_same_v<C, float> && K > 0)
    if (by_tap.permute) return taps_by_permutes<K>(by_tap, d.ow, t, row_len, zr);
#endif
  if (!by_tap.index.empty()) {  // inner 1
    const int32_t* i0 = by_tap.index.data();
    const C* w0 = by_tap.weight.data();
    for (int64_t ox = 0; ox < d.ow; ++ox) zr[ox] = w0[ox] * t[i0[ox]];
    for (int b = 1; b < k; ++b) {
      const int32_t* ib = i0 + b * d.ow;
      const C* wb = w0 + b * d.ow;
      for (int64_t ox = 0; ox < d.ow; ++ox) zr[ox] += wb[ox] * t[ib[ox]];
    }
    return;
  }
  for (int64_t ox = 0; ox < d.ow; ++ox) {
    C* zp = zr + ox * d.inner;
    const C* t0 = t + ix[ox * k] * d.inner;
    const C w0 = wx[ox * k];
    for (int64_t c = 0; c < d.inner; ++c) zp[c] = w0 * t0[c];
    for (int b = 1; b < k; ++b) {
      const C wb = wx[ox * k + b];
      const C* tb = t + ix[ox * k + b] * d.inner;
      for (int64_t c = 0; c < d.inner; ++c) zp[c] += wb * tb[c];
    }
  }
}

// Two passes per output row (the kernel of resize.cu computes the same
// sums in the same order): the K source rows blended into one row,
//   t[x, c] = sum_a wy[a] * x[iy[a], x, c]        (contiguous: vectorizes)
// then each output pixel from K pixels of that row,
//   z[ox, c] = sum_b wx[b] * t[ix[b], c]
// Nearest (K = 1) copies the source pixel. The rows run compiled for
// cpu_isa() (Note [Runtime ISA dispatch]), 512-bit where it is avx512:
// [1, 64, 112, 112] -> 224^2 linear at one thread took 6.0 ms as scalar
// code compiled for the baseline, 2.35 ms so.
template <typename C, int K>
void resize_rows(const ResizeDesc& d, const C* x, const int64_t* iy, const C* wy, const int64_t* ix, const C* wx,
                 C* z) {
  const int k = K > 0 ? K : d.taps;
  const int64_t rows = d.outer * d.oh, row_len = d.w * d.inner;
  TapsByTap<C> by_tap;
  if (d.inner == 1 && d.w <= INT32_MAX) {  // else the per-pixel loop below
    by_tap.index.resize(static_cast<size_t>(k * d.ow));
    by_tap.weight.resize(static_cast<size_t>(k * d.ow));
    for (int64_t ox = 0; ox < d.ow; ++ox)
      for (int b = 0; b < k; ++b) {
        by_tap.index[static_cast<size_t>(b * d.ow + ox)] = static_cast<int32_t>(ix[ox * k + b]);
        by_tap.weight[static_cast<size_t>(b * d.ow + ox)] = wx[ox * k + b];
      }
    plan_permutes<C, K>(by_tap, d.ow);
  }
  parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, d.ow * d.inner)), [&](int64_t begin,
                                                                                             int64_t end) {
    // Padded for the loads of Note [Resize by permutes].
    std::vector<C> blended(k == 1 ? 0 : static_cast<size_t>(row_len + kPermuteLanes));
    C* t = blended.data();
    isa_dispatch<true>([&] {
      for (int64_t r = begin; r < end; ++r) {
        // An output row made from the same source rows as the one before
        // it (nearest or linear upsampling repeats them) is that row again.
        const int64_t oy = r % d.oh;
        if (r > begin && oy > 0 && same_taps<C>(iy, wy, oy, k)) {
          C* zr = z + r * d.ow * d.inner;
          std::memcpy(zr, zr - d.ow * d.inner, static_cast<size_t>(d.ow * d.inner) * sizeof(C));
          continue;
        }
        resize_row<C, K>(d, x, iy, wy, ix, wx, by_tap, z, r, t);
      }
    });
  });
}

// K as a constant, so the tap loops unroll; antialias's wider kernels
// (Note [Resize taps]) take the count at run time.
template <typename C>
void resize_cpu(const ResizeDesc& d, const C* x, const int64_t* iy, const C* wy, const int64_t* ix, const C* wx,
                C* z) {
  if (d.taps == 1) resize_rows<C, 1>(d, x, iy, wy, ix, wx, z);
  else if (d.taps == 2) resize_rows<C, 2>(d, x, iy, wy, ix, wx, z);
  else if (d.taps == 4) resize_rows<C, 4>(d, x, iy, wy, ix, wx, z);
  else resize_rows<C, 0>(d, x, iy, wy, ix, wx, z);
}

// The tables of one axis as arrays the kernels read: indices int64,
// weights in the compute dtype.
Status axis_tables(const Context& block, const ResizeSpec& spec, const ResizeAxis& a, int k, DataType ct,
                   NDArray& index, NDArray& weight) {
  std::vector<int64_t> idx;
  std::vector<double> w;
  resize_taps(spec, a, k, idx, w);
  const Dims shape{static_cast<int64_t>(idx.size())};
  RETURN_IF_ERROR(step_array(block, DataType::kInt64, shape, index));
  RETURN_IF_ERROR(step_array(block, ct, shape, weight));
  for (size_t k = 0; k < idx.size(); ++k) {
    static_cast<int64_t*>(index.data())[k] = idx[k];
    weight.set_double(static_cast<int64_t>(k), w[k]);
  }
  return Status::ok();
}

// tf_crop_and_resize: the outputs whose coordinate is outside the image
// on either axis become the extrapolation value, on z's device, by a where
// over a mask of the output's rows and columns (nothing when none is).
Status extrapolate(Context& block, const ResizeSpec& spec, bool nhwc, const ResizeAxis& ay, const ResizeAxis& ax,
                   NDArray& z) {
  std::vector<int64_t> idx;
  std::vector<double> w;
  std::vector<uint8_t> out_y, out_x;
  resize_taps(spec, ay, spec.taps(ay), idx, w, &out_y);
  resize_taps(spec, ax, spec.taps(ax), idx, w, &out_x);
  const bool any = std::count(out_y.begin(), out_y.end(), 1) + std::count(out_x.begin(), out_x.end(), 1) > 0;
  if (!any) return Status::ok();
  NDArray mask, value, blended;
  const Dims shape = nhwc ? Dims{1, ay.out, ax.out, 1} : Dims{1, 1, ay.out, ax.out};
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(DataType::kBool, shape, 'c', mask)));
  auto* m = static_cast<bool*>(mask.data());
  for (int64_t oy = 0; oy < ay.out; ++oy)
    for (int64_t ox = 0; ox < ax.out; ++ox) m[oy * ax.out + ox] = out_y[oy] != 0 || out_x[ox] != 0;
  RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(z.dtype(), spec.extrapolation_value, value)));
  RETURN_IF_ERROR(run_nested(block, "where", {&mask, &value, &z}, {}, blended));
  return assign_on_device(block, z, blended);
}

}  // namespace

int ResizeSpec::taps(const ResizeAxis& axis) const {
  if (widened(*this, axis)) return static_cast<int>(2 - 2 * widened_start(*this, axis_scale(axis)));
  return mode == ResizeMode::kNearest ? 1 : (mode == ResizeMode::kLinear ? 2 : 4);
}

void resize_taps(const ResizeSpec& spec, const ResizeAxis& axis, int K, std::vector<int64_t>& index,
                 std::vector<double>& weight, std::vector<uint8_t>* outside) {
  index.assign(static_cast<size_t>(axis.out * K), 0);
  weight.assign(static_cast<size_t>(axis.out * K), 0.0);
  if (outside != nullptr) outside->assign(static_cast<size_t>(axis.out), 0);
  if (axis.in <= 0) return;
  const int64_t last = axis.in - 1;
  auto clamp = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), last); };
  const bool wide = widened(spec, axis);
  const double s = wide ? axis_scale(axis) : 1.0;
  const int64_t start = wide ? widened_start(spec, s) : 0;
  for (int64_t o = 0; o < axis.out; ++o) {
    const double c = source_coordinate(spec, axis, o);
    int64_t* idx = index.data() + o * K;
    double* w = weight.data() + o * K;
    if (spec.coordinates == CoordinateMode::kTfCropAndResize && !(c >= 0 && c <= static_cast<double>(last))) {
      if (outside != nullptr) (*outside)[static_cast<size_t>(o)] = 1;
      continue;  // index 0, weight 0: the extrapolation value replaces it
    }
    if (wide) {
      widened_taps(spec, s, start, c, last, idx, w);
      continue;
    }
    if (spec.mode == ResizeMode::kNearest) {
      double r = c;
      switch (spec.nearest) {
        case NearestMode::kRoundPreferFloor: r = std::ceil(c - 0.5); break;
        case NearestMode::kRoundPreferCeil: r = std::floor(c + 0.5); break;
        case NearestMode::kFloor: r = std::floor(c); break;
        case NearestMode::kCeil: r = std::ceil(c); break;
      }
      idx[0] = clamp(static_cast<int64_t>(r));
      w[0] = 1.0;
      continue;
    }
    const double f0 = std::floor(c);
    const double t = c - f0;
    const auto i0 = static_cast<int64_t>(f0);
    if (spec.mode == ResizeMode::kLinear) {
      idx[0] = clamp(i0), idx[1] = clamp(i0 + 1);
      w[0] = 1 - t, w[1] = t;
      continue;
    }
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t i = i0 - 1 + k;
      w[k] = cubic_weight(t - (k - 1), spec.cubic_a);
      if (spec.exclude_outside && (i < 0 || i > last)) w[k] = 0;
      sum += w[k];
      idx[k] = clamp(i);
    }
    if (spec.exclude_outside && sum != 0)
      for (int k = 0; k < 4; ++k) w[k] /= sum;
  }
}

Status resize_exec(Context& block, const ResizeSpec& spec, const NDArray& x, bool nhwc, const ResizeAxis& ay,
                   const ResizeAxis& ax, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  const DataType ct = x.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  ResizeDesc d;
  d.outer = nhwc ? x.dim(0) : x.dim(0) * x.dim(1);
  d.inner = nhwc ? x.dim(3) : 1;
  d.h = ay.in, d.w = ax.in, d.oh = ay.out, d.ow = ax.out;
  // One tap count for both axes (the kernels' layout): an axis with fewer
  // taps pads its tables with zero weights.
  d.taps = std::max(spec.taps(ay), spec.taps(ax));
  NDArray xd, iy, wy, ix, wx;
  RETURN_IF_ERROR(dense_on_device(block, x, ct, xd));
  RETURN_IF_ERROR(axis_tables(block, spec, ay, d.taps, ct, iy, wy));
  RETURN_IF_ERROR(axis_tables(block, spec, ax, d.taps, ct, ix, wx));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, ct));
  NDArray& t = out.target();
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(sync_for_kernel(block.device(), {&xd}, t));
    if (ct == DataType::kFloat64)
      resize_cpu<double>(d, static_cast<const double*>(xd.data()), static_cast<const int64_t*>(iy.data()),
                         static_cast<const double*>(wy.data()), static_cast<const int64_t*>(ix.data()),
                         static_cast<const double*>(wx.data()), static_cast<double*>(t.data()));
    else
      resize_cpu<float>(d, static_cast<const float*>(xd.data()), static_cast<const int64_t*>(iy.data()),
                        static_cast<const float*>(wy.data()), static_cast<const int64_t*>(ix.data()),
                        static_cast<const float*>(wx.data()), static_cast<float*>(t.data()));
    t.buffer()->mark_host_written();
  } else {
    const ResizeDeviceFn fn = resize_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), ct, d, xd, iy, wy, ix, wx, t)));
  }
  RETURN_IF_ERROR(out.finish(block, z));
  return spec.coordinates == CoordinateMode::kTfCropAndResize ? extrapolate(block, spec, nhwc, ay, ax, z)
                                                              : Status::ok();
}

}  // namespace libops::ops::image

namespace {

using namespace libops;
using namespace libops::ops::image;

// The values of input `index` as doubles: a scalar or vector, integer or
// float, read on the host.
Status values_of(const Context& block, int index, const char* what, std::vector<double>& out) {
  out.clear();
  const NDArray& v = *block.input(index);
  if (v.rank() > 1)
    return block.error(StatusCode::kShape, "%s given as input %d must be a vector, got %s", what, index,
                       v.shape().str().c_str());
  if (!v.has_data())
    return block.error(StatusCode::kInvalidArgument, "%s given as input %d: its values are not known yet", what,
                       index);
  if (v.buffer()->host_stale()) RETURN_IF_ERROR(v.buffer()->sync_to_host());
  for (int64_t k = 0; k < v.length(); ++k) out.push_back(v.get_double(k));
  return Status::ok();
}

// The output extents and scales from the size and scales inputs: 2 values
// (H, W) or one per dim of x (the others must keep their extent).
Status resize_from_inputs(const Context& block, const NDArray& x, bool nhwc, ResizeAxis& ay, ResizeAxis& ax) {
  const int h_dim = nhwc ? 1 : 2, w_dim = nhwc ? 2 : 3;
  std::vector<double> size, scales;
  if (block.num_inputs() > 1 && block.input(1)->length() > 0) RETURN_IF_ERROR(values_of(block, 1, "size", size));
  if (block.num_inputs() > 2 && block.input(2)->length() > 0) RETURN_IF_ERROR(values_of(block, 2, "scales", scales));
  auto pick = [&](const std::vector<double>& v, const char* what, double keep, double& h, double& w) -> Status {
    if (v.size() == 2) {
      h = v[0], w = v[1];
      return Status::ok();
    }
    if (static_cast<int>(v.size()) != x.rank())
      return block.error(StatusCode::kShape, "%s has %zu values for x%s: it needs 2 (height, width) or %d", what,
                         v.size(), x.shape().str().c_str(), x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      if (d == h_dim || d == w_dim) continue;
      const double want = keep < 0 ? static_cast<double>(x.dim(d)) : keep;
      if (v[static_cast<size_t>(d)] != want)
        return block.error(StatusCode::kInvalidArgument,
                           "%s[%d] = %g would resize dim %d of x%s; only the height and width resize", what, d,
                           v[static_cast<size_t>(d)], d, x.shape().str().c_str());
    }
    h = v[static_cast<size_t>(h_dim)], w = v[static_cast<size_t>(w_dim)];
    return Status::ok();
  };
  if (!scales.empty()) {
    double sh = 0, sw = 0;
    RETURN_IF_ERROR(pick(scales, "scales", 1.0, sh, sw));
    if (!(sh > 0) || !(sw > 0) || !std::isfinite(sh) || !std::isfinite(sw))
      return block.error(StatusCode::kInvalidArgument, "scales %g and %g must be finite and > 0", sh, sw);
    ay.scale = sh, ax.scale = sw;
    // floor(in * scale) in float, as ONNX Runtime computes it (5 * 1.8f is
    // 9 there, 8.99999976 in double).
    ay.out = static_cast<int64_t>(std::floor(static_cast<float>(ay.in) * static_cast<float>(sh)));
    ax.out = static_cast<int64_t>(std::floor(static_cast<float>(ax.in) * static_cast<float>(sw)));
  }
  if (!size.empty()) {
    double oh = 0, ow = 0;
    RETURN_IF_ERROR(pick(size, "size", -1.0, oh, ow));
    if (!(oh >= 0) || !(ow >= 0) || oh > static_cast<double>(INT32_MAX) || ow > static_cast<double>(INT32_MAX))
      return block.error(StatusCode::kInvalidArgument, "size %g x %g is out of range", oh, ow);
    ay.out = static_cast<int64_t>(oh), ax.out = static_cast<int64_t>(ow);
  }
  return Status::ok();
}

// tf_crop_and_resize's box from input 3: [h_start, w_start, h_end, w_end],
// or a start per dim of x then an end per dim (ONNX's roi); none: the
// whole image.
Status roi_from_input(const Context& block, const NDArray& x, bool nhwc, ResizeAxis& ay, ResizeAxis& ax) {
  if (block.num_inputs() <= 3 || block.input(3)->length() == 0) return Status::ok();
  std::vector<double> roi;
  RETURN_IF_ERROR(values_of(block, 3, "roi", roi));
  const int h_dim = nhwc ? 1 : 2, w_dim = nhwc ? 2 : 3;
  if (roi.size() == 4) {
    ay.roi_start = roi[0], ax.roi_start = roi[1], ay.roi_end = roi[2], ax.roi_end = roi[3];
  } else if (static_cast<int>(roi.size()) == 2 * x.rank()) {
    ay.roi_start = roi[h_dim], ax.roi_start = roi[w_dim];
    ay.roi_end = roi[x.rank() + h_dim], ax.roi_end = roi[x.rank() + w_dim];
  } else {
    return block.error(StatusCode::kShape, "roi has %zu values for x%s: it needs 4 (h_start, w_start, h_end, "
                                           "w_end) or %d (a start, then an end, per dim)",
                       roi.size(), x.shape().str().c_str(), 2 * x.rank());
  }
  for (double v : {ay.roi_start, ay.roi_end, ax.roi_start, ax.roi_end})
    if (!std::isfinite(v)) return block.error(StatusCode::kInvalidArgument, "roi holds %g: it must be finite", v);
  return Status::ok();
}

// The call's spec and axes; errors name the op.
Status resize_call(const Context& block, ResizeSpec& spec, ResizeAxis& ay, ResizeAxis& ax, bool& nhwc) {
  const NDArray& x = *block.input(0);
  nhwc = block.i_arg(5) == 1;
  if (x.rank() != 4)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, H, W] or [N, H, W, C] (rank 4)",
                       x.shape().str().c_str());
  spec.mode = static_cast<ResizeMode>(block.i_arg(2));
  spec.coordinates = static_cast<CoordinateMode>(block.i_arg(3));
  spec.nearest = static_cast<NearestMode>(block.i_arg(4));
  spec.exclude_outside = block.i_arg(6) != 0;
  spec.antialias = block.i_arg(7) != 0;
  spec.cubic_a = block.t_arg(2);
  ay = ResizeAxis{x.dim(nhwc ? 1 : 2), block.i_arg(0), block.t_arg(0)};
  ax = ResizeAxis{x.dim(nhwc ? 2 : 3), block.i_arg(1), block.t_arg(1)};
  RETURN_IF_ERROR(resize_from_inputs(block, x, nhwc, ay, ax));
  spec.extrapolation_value = block.t_arg(3);
  if (spec.coordinates == CoordinateMode::kTfCropAndResize)
    RETURN_IF_ERROR(roi_from_input(block, x, nhwc, ay, ax));
  if (ay.out < 0 || ax.out < 0)
    return block.error(StatusCode::kInvalidArgument, "the output's height and width are not given (i args height "
                                                     "and width, or a size or scales input)");
  for (const ResizeAxis* a : {&ay, &ax})
    if (a->in == 0 && a->out > 0)
      return block.error(StatusCode::kInvalidArgument, "x%s has an empty spatial axis: nothing to resample from",
                         x.shape().str().c_str());
  return Status::ok();
}

}  // namespace

CUSTOM_OP_IMPL(resize, -1, 1, false, 0, 0) {
  ResizeSpec spec;
  ResizeAxis ay, ax;
  bool nhwc = false;
  RETURN_IF_ERROR(resize_call(block, spec, ay, ax, nhwc));
  return resize_exec(block, spec, *INPUT_VARIABLE(0), nhwc, ay, ax, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(resize) {
  ResizeSpec spec;
  ResizeAxis ay, ax;
  bool nhwc = false;
  RETURN_IF_ERROR(resize_call(block, spec, ay, ax, nhwc));
  const NDArray& x = *INPUT_VARIABLE(0);
  const Dims shape = nhwc ? Dims{x.dim(0), ay.out, ax.out, x.dim(3)} : Dims{x.dim(0), x.dim(1), ay.out, ax.out};
  shapes.push_back(TensorShape{x.dtype(), shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(resize) {
  // On a device through resize_device_kernel (resize.cu for CUDA).
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kInt)
      .allow_input(2, libops::types::kFloat).allow_input(3, libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(resize) {
  args.describe("Resample the spatial axes of images: nearest, linear or cubic, with ONNX's coordinate modes.");
  reads_on_host(args, "the size, scales and roi inputs when given (z's shape, the box)");
  args.input("x", "images, [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC)");
  args.optional_input("size", "the output's extents: [height, width] or one per dim of x (empty: none)");
  args.optional_input("scales", "[scale_h, scale_w] or one per dim of x; the output is floor(in * scale)");
  args.optional_input("roi", "tf_crop_and_resize's box as fractions of (extent - 1): [h_start, w_start, h_end, "
                             "w_end], or a start then an end per dim of x (ONNX's roi); empty or absent: [0, 0, 1, 1]");
  args.output("z", "x's dtype, [N, C, height, width] or [N, height, width, C]");
  args.i_arg("height", -1, "the output's height (-1: from the size or scales input)").at_least(-1);
  args.i_arg("width", -1, "the output's width (-1: from the size or scales input)").at_least(-1);
  args.i_arg("mode", 0, "interpolation").one_of({{0, "nearest"}, {1, "linear"}, {2, "cubic"}});
  args.i_arg("coordinate_mode", 0, "how an output index maps to a source coordinate (ONNX's names)")
      .one_of({{0, "half_pixel"}, {1, "asymmetric"}, {2, "align_corners"}, {3, "pytorch_half_pixel"},
               {4, "tf_half_pixel_for_nn"}, {5, "half_pixel_symmetric"}, {6, "tf_crop_and_resize"}});
  args.i_arg("nearest_mode", 0, "rounding of the source coordinate in nearest mode")
      .one_of({{0, "round_prefer_floor"}, {1, "round_prefer_ceil"}, {2, "floor"}, {3, "ceil"}});
  args.i_arg("data_format", 0, "layout of x and z").one_of({{0, "NCHW"}, {1, "NHWC"}});
  args.i_arg("exclude_outside", 0, "cubic: taps outside the image get weight 0, the rest renormalized").flag();
  args.i_arg("antialias", 0, "linear and cubic: on a shrinking axis the kernel widens by 1 / scale, every source "
                             "pixel under it weighted (PyTorch's antialias=True)").flag();
  args.t_arg("scale_h", 0.0, "the height scale of the coordinate formulas; 0: height / H").at_least(0.0).finite();
  args.t_arg("scale_w", 0.0, "the width scale of the coordinate formulas; 0: width / W").at_least(0.0).finite();
  args.t_arg("cubic_coeff_a", -0.75, "Keys' cubic coefficient (-0.75 ONNX and PyTorch, -0.5 TensorFlow)").finite();
  args.t_arg("extrapolation_value", 0.0, "tf_crop_and_resize: the value of outputs outside the image").finite();
}

DECLARE_SYN(image_resize, resize)
