// Shared by the 2-D window ops (conv2d, maxpool2d, avgpool2d): the window
// arguments they all take, output-size arithmetic for explicit and SAME
// padding, the pooling kernel, and the helpers that give kernels dense
// compute-type buffers.
//
// Note [Window arguments]
// The first 9 i args of every 2-D window op, in libnd4j's order:
//   0 kH, 1 kW   kernel extent, >= 1 (conv2d also takes 0: from the weights)
//   2 sH, 3 sW   stride, >= 1
//   4 pH, 5 pW   explicit padding on each side, >= 0 (read when same_mode = 0)
//   6 dH, 7 dW   dilation, >= 1: taps are dH rows apart, so the kernel spans
//                eff_kH = (kH - 1) * dH + 1 rows
//   8 same_mode  0: explicit padding; oH = floor((H + 2*pH - eff_kH) / sH) + 1,
//                   and H + 2*pH >= eff_kH is required
//                1: TF "SAME" padding; oH = ceil(H / sH), the total padding
//                   max((oH - 1) * sH + eff_kH - H, 0) is split with the
//                   smaller half on top (left) and the rest at the bottom
//                   (right); pH and pW are ignored
// Each value must fit in 31 bits, which keeps all index arithmetic in int64.
// Output row oh reads input rows oh * sH - pad_top + kh * dH, kh = 0..kH-1;
// rows outside [0, H) are padding.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "libops/core/fast_math.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/loops/copy.h"
#include "libops/ops/declarable_op.h"

namespace libops::ops::nn {

// Note [Window arguments].
struct Window2d {
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool same = false;
  bool ceil = false;  // pooling's ceil_mode (Note [Ceil mode])
};

// Note [Channel-blocked layout]
//  data_format 2, NCHWc: x is [N, ceil(C / b), H, W, b], channel c at
//  block c / b, lane c % b (oneDNN's nChw16c for b = 16, MLAS's NCHWc). A
//  pixel's b channels of one block are adjacent, which is the layout
//  oneDNN's direct, depthwise and Winograd kernels work in: a graph whose
//  convolutions keep it from one to the next (Note [Graph rewrites]) runs
//  no reorder between them. The lanes past C in the last block hold zeros:
//  the convolutions' weights are zero there, so a finite value would do,
//  but zeros also keep pooling and global reductions exact. The ops that
//  take the layout (conv2d, maxpool2d, avgpool2d) write those zeros; the
//  block_channels and unblock_channels ops convert to and from NCHW. The
//  rank-5 array carries only the padded channel count: conv2d reads the
//  real one from its weights.
struct Geometry2d {
  bool nchw = true;
  int64_t block = 0;                   // lanes b of the NCHWc layout; 0 for NCHW and NHWC
  int64_t n = 0, c = 0, h = 0, w = 0;  // input extents (NCHWc: c is x's padded ceil(C / b) * b, which conv2d
                                       // replaces by the real C of its weights)
  int64_t oh = 0, ow = 0;              // output extents
  int64_t pad_top = 0, pad_left = 0;   // padding before; the rest is implicit
};

inline const char* format_name(bool nchw) { return nchw ? "NCHW" : "NHWC"; }
inline const char* format_name(const Geometry2d& g) { return g.block > 0 ? "NCHWc" : format_name(g.nchw); }

// Declares i args 0..8 (Note [Window arguments]). kH and kW may be 0 only
// when `kernel_from_weights` is set.
inline void window_signature(OpSignature& args, bool kernel_from_weights) {
  const double lo_k = kernel_from_weights ? 0 : 1, hi = std::numeric_limits<int32_t>::max();
  args.i_arg("kH", kernel_from_weights ? "kernel height; 0 = from the weights" : "kernel height").range(lo_k, hi);
  args.i_arg("kW", kernel_from_weights ? "kernel width; 0 = from the weights" : "kernel width").range(lo_k, hi);
  args.i_arg("sH", "stride along the height").range(1, hi);
  args.i_arg("sW", "stride along the width").range(1, hi);
  args.i_arg("pH", "padding on the top and bottom (when same_mode is 0)").range(0, hi);
  args.i_arg("pW", "padding on the left and right (when same_mode is 0)").range(0, hi);
  args.i_arg("dH", "dilation along the height").range(1, hi);
  args.i_arg("dW", "dilation along the width").range(1, hi);
  args.i_arg("same_mode", "padding mode").one_of({{0, "explicit"}, {1, "SAME"}});
}

// The data_format arg of the window ops (0 = NCHW, 1 = NHWC; 2 = NCHWc
// for the ops that take it: Note [Channel-blocked layout]).
inline ArgSpec& data_format_arg(OpSignature& args, bool nchwc = false) {
  if (nchwc)
    return args.i_arg("data_format", 0, "layout of x and z; NCHWc is [N, C / b, H, W, b], zeros past C")
        .one_of({{0, "NCHW"}, {1, "NHWC"}, {2, "NCHWc"}});
  return args.i_arg("data_format", 0, "layout of x and z").one_of({{0, "NCHW"}, {1, "NHWC"}});
}

// Reads i args 0..8, which the signature checked (window_signature).
inline void window_args(const Context& block, Window2d& win) {
  win.kh = INT_ARG(0);
  win.kw = INT_ARG(1);
  win.sh = INT_ARG(2);
  win.sw = INT_ARG(3);
  win.ph = INT_ARG(4);
  win.pw = INT_ARG(5);
  win.dh = INT_ARG(6);
  win.dw = INT_ARG(7);
  win.same = INT_ARG(8) == 1;
}

// Fills g.n/c/h/w from a rank-4 x in the given layout.
inline Status window_input(Context& block, const NDArray& x, bool nchw, Geometry2d& g) {
  REQUIRE_TRUE(x.rank() == 4, OPS_ERR_SHAPE, "x%s has rank %d: it must be rank 4 (%s)",
               x.shape().str().c_str(), x.rank(), nchw ? "[N, C, H, W]" : "[N, H, W, C]");
  g.nchw = nchw;
  g.block = 0;
  g.n = x.dim(0);
  g.c = nchw ? x.dim(1) : x.dim(3);
  g.h = nchw ? x.dim(2) : x.dim(1);
  g.w = nchw ? x.dim(3) : x.dim(2);
  return Status::ok();
}

// The same for a data_format arg: 0 NCHW, 1 NHWC, 2 NCHWc (rank 5; g.c is
// then the padded channel count).
inline Status window_input(Context& block, const NDArray& x, int64_t data_format, Geometry2d& g) {
  if (data_format != 2) return window_input(block, x, data_format == 0, g);
  REQUIRE_TRUE(x.rank() == 5 && x.dim(4) >= 1, OPS_ERR_SHAPE,
               "x%s has rank %d: it must be rank 5, [N, C / b, H, W, b] (NCHWc)", x.shape().str().c_str(), x.rank());
  g.nchw = false;
  g.block = x.dim(4);
  g.n = x.dim(0);
  g.c = x.dim(1) * g.block;
  g.h = x.dim(2);
  g.w = x.dim(3);
  return Status::ok();
}

// Output extent and padding before, along one spatial dim.
inline Status window_extent(Context& block, const char* dim_name, const NDArray& x, const Geometry2d& g, int64_t in,
                            int64_t k, int64_t s, int64_t p, int64_t d, bool same, int64_t& out, int64_t& pad_before) {
  const int64_t eff = (k - 1) * d + 1;
  if (same) {
    out = (in + s - 1) / s;
    const int64_t total = std::max<int64_t>((out - 1) * s + eff - in, 0);
    pad_before = total / 2;
    return Status::ok();
  }
  REQUIRE_TRUE(in + 2 * p >= eff, OPS_ERR_SHAPE,
               "kernel larger than the padded input with x%s (%s): padded %s %lld + 2*%lld = %lld < dilated kernel "
               "%s (%lld - 1) * %lld + 1 = %lld",
               x.shape().str().c_str(), format_name(g), dim_name, static_cast<long long>(in),
               static_cast<long long>(p), static_cast<long long>(in + 2 * p), dim_name, static_cast<long long>(k),
               static_cast<long long>(d), static_cast<long long>(eff));
  out = (in + 2 * p - eff) / s + 1;
  pad_before = p;
  return Status::ok();
}

// Output extents and padding of `win` over the input in g.
inline Status window_output(Context& block, const NDArray& x, const Window2d& win, Geometry2d& g) {
  RETURN_IF_ERROR(window_extent(block, "height", x, g, g.h, win.kh, win.sh, win.ph, win.dh, win.same, g.oh, g.pad_top));
  return window_extent(block, "width", x, g, g.w, win.kw, win.sw, win.pw, win.dw, win.same, g.ow, g.pad_left);
}

// Resolves kH / kW given as 0 from weights `w` viewed as [.., .., kH, kW]
// and checks that given ones match them. Messages show `given` (the
// weights as passed) and `layout` (their format's order).
inline Status window_kernel_from_weights(Context& block, const NDArray& w, const NDArray& given, const char* layout,
                                         Window2d& win) {
  if (win.kh == 0) win.kh = w.dim(2);
  if (win.kw == 0) win.kw = w.dim(3);
  REQUIRE_TRUE(win.kh == w.dim(2) && win.kw == w.dim(3) && win.kh > 0 && win.kw > 0, OPS_ERR_SHAPE,
               "kernel size mismatch with kH=%lld, kW=%lld and weights%s: weights %s must have a kernel of at least "
               "1x1 that matches the i args",
               static_cast<long long>(INT_ARG(0)), static_cast<long long>(INT_ARG(1)), given.shape().str().c_str(),
               layout);
  return Status::ok();
}

inline Dims window_output_dims(const Geometry2d& g, int64_t out_channels) {
  if (g.block > 0) return Dims{g.n, (out_channels + g.block - 1) / g.block, g.oh, g.ow, g.block};
  return g.nchw ? Dims{g.n, out_channels, g.oh, g.ow} : Dims{g.n, g.oh, g.ow, out_channels};
}

// The taps [lo, hi) of o*stride + offset + t*step (t = 0..taps-1) that fall
// inside [0, len): with step = dilation this gives the kernel taps of one
// output position; with taps = output extent and step = stride, the output
// positions one kernel tap sees.
inline void valid_taps(int64_t offset, int64_t step, int64_t taps, int64_t len, int64_t& lo, int64_t& hi) {
  auto ceil_div = [](int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); };
  lo = offset >= 0 ? 0 : ceil_div(-offset, step);
  hi = ceil_div(len - offset, step);
  lo = std::min(lo, taps);
  hi = std::clamp(hi, lo, taps);
}

// The dtype kernels compute in for a float dtype (Note [Compute types]).
inline DataType float_compute_dtype(DataType t) {
  return t == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
}

// `a` as a dense C-order array of dtype `dt`: `a` itself when it is one,
// else a converted copy.
inline Status dense_as(const NDArray& a, DataType dt, NDArray& out) {
  if (a.dtype() == dt && a.is_c_contiguous()) {
    out = a;
    return Status::ok();
  }
  RETURN_IF_ERROR(NDArray::create(dt, a.shape(), 'c', out));
  copy_into(a, out);
  return Status::ok();
}

// Where a kernel writes its result: z itself when z is dense C-order in the
// compute dtype and shares no memory with the inputs (or, for element-wise
// kernels, is exactly input 0's view), else a dense scratch array that
// finish() copies into z.
class OutputStage {
 public:
  Status begin(Context& block, NDArray& z, DataType dt, bool elementwise) {
    bool direct = z.dtype() == dt && z.is_c_contiguous();
    for (int i = 0; direct && i < block.num_inputs(); ++i) {
      const NDArray& in = *block.input(i);
      if (z.may_overlap(in) && !(elementwise && i == 0 && z.same_view(in))) direct = false;
    }
    direct_ = direct;
    if (direct) {
      target_ = z;
      return Status::ok();
    }
    return NDArray::create(dt, z.shape(), 'c', target_);
  }
  NDArray& target() { return target_; }
  Status finish(NDArray& z) {
    if (!direct_) copy_into(target_, z);
    return Status::ok();
  }

 private:
  NDArray target_;
  bool direct_ = false;
};

// ---- pooling --------------------------------------------------------------

// Max pooling. NaN propagates: a window holding NaN gives NaN (once acc is
// NaN, v > acc is false and only another NaN replaces it). For float the
// choice is a bit-mask select, so the loops over it vectorize.
template <typename C>
struct MaxPoolReducer {
  C init() const { return -std::numeric_limits<C>::infinity(); }
  // x86's max instruction (v > acc ? v : acc) keeps acc on ties and where
  // either is NaN; the select then takes a NaN v, as max_nan does. One
  // compare fewer than testing v > acc and v != v: maxpool 3x3/2 went from
  // 17.5 to 20.6 GB/s.
  static C combine(C acc, C v) {
    const C larger = v > acc ? v : acc;
    if constexpr (std::is_same_v<C, float>) return detail::select_f32(v != v, v, larger);
    else return v != v ? v : larger;
  }
  C finish(C acc, int64_t valid, int64_t, int64_t) const { return valid == 0 ? C(0) : acc; }
};

// Average pooling: divides by the taps inside the input, or, when padding
// counts, by the taps inside the padded input: kH * kW except for the
// windows ceil mode adds (row_padded[oh] * col_padded[ow]).
template <typename C>
struct AvgPoolReducer {
  bool include_pad = false;
  const int64_t* row_padded = nullptr;  // per output row / column: taps inside the padded input
  const int64_t* col_padded = nullptr;
  C init() const { return C(0); }
  static C combine(C acc, C v) { return acc + v; }
  C finish(C acc, int64_t valid, int64_t oh, int64_t ow) const {
    if (valid == 0) return C(0);
    return acc / static_cast<C>(include_pad ? row_padded[oh] * col_padded[ow] : valid);
  }
};

// Taps of each output position inside the padded input [-pad_before,
// in + pad_after) along one dim.
inline std::vector<int64_t> padded_taps(int64_t out, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pad_before,
                                        int64_t pad_after) {
  std::vector<int64_t> taps(static_cast<size_t>(std::max<int64_t>(out, 0)));
  for (int64_t o = 0; o < out; ++o) {
    int64_t lo, hi;
    valid_taps(o * s, d, k, in + pad_before + pad_after, lo, hi);
    taps[static_cast<size_t>(o)] = hi - lo;
  }
  return taps;
}

// Note [Pooling in lanes of 16]
// NHWC pooling accumulates each output pixel's channels in z, tap by tap:
// the compiler cannot keep them in registers (z might alias x), so every
// tap reloads and stores them. Where the channels come in whole runs of 16
// (NCHWc's blocks, viewed as NHWC), an AVX-512 copy keeps a run's 16
// results in one register across the taps; the max keeps NaN as max_nan
// does (a NaN tap wins, and stays).
//
// Keeping NaN costs the max two compares and a blend a tap, where x86's
// max instruction alone would do (it returns its second operand when
// either is NaN). So the max first checks the input rows an output row
// reads for NaN, each row once as the windows move down (one compare per
// two vectors, contiguous in NHWC), and rows without NaN take one max
// instruction a tap: the same value as the NaN-keeping combine wherever
// no tap is NaN. With that and pixels in groups of four (below), 3x3/2
// over [1, 112, 112, 64] at 1 thread, in cache, went from 167 to 96 us;
// oneDNN's pooling takes 67 us, but does not keep NaN.
inline constexpr int64_t kPoolLanes = 16;

// Whether rows [first, last] of NHWC image n (row_floats floats each) hold
// a NaN. Rows are checked once per image, in order: calls ask for bands
// that move down the image. RowScan::has_nan(row, row_floats) checks one
// row (in the lanes' own instructions).
template <typename RowScan>
class NanRowScan {
 public:
  NanRowScan(const float* x, int64_t h, int64_t row_floats) : x_(x), h_(h), row_floats_(row_floats) {}
  LIBOPS_FORCE_INLINE bool any(int64_t n, int64_t first, int64_t last) {
    if (n != image_ || first < checked_begin_) restart(n, first);
    if (checked_end_ < first) checked_end_ = first;  // rows skipped are never asked for again
    for (; checked_end_ <= last; ++checked_end_)
      if (RowScan::has_nan(x_ + (n * h_ + checked_end_) * row_floats_, row_floats_)) last_nan_ = checked_end_;
    // The last NaN row checked lies at or below `last` (bands only move
    // down); were it below, the answer is a harmless true.
    return last_nan_ >= first;
  }

 private:
  void restart(int64_t n, int64_t first) {
    image_ = n;
    checked_begin_ = checked_end_ = first;
    last_nan_ = -1;
  }
  const float* x_;
  int64_t h_, row_floats_;
  int64_t image_ = -1, checked_begin_ = 0, checked_end_ = 0, last_nan_ = -1;
};

#if LIBOPS_ISA_DISPATCH
// One row of c floats (c a multiple of 16), with AVX-512.
struct NanScan16 {
  LIBOPS_TARGET_AVX512_WIDE static bool has_nan(const float* row, int64_t row_floats) {
    __mmask16 nan = 0;
    int64_t i = 0;
    for (; i + 32 <= row_floats; i += 32)  // unordered: either of the two is NaN
      nan |= _mm512_cmp_ps_mask(_mm512_loadu_ps(row + i), _mm512_loadu_ps(row + i + 16), _CMP_UNORD_Q);
    if (i < row_floats) {
      const __m512 v = _mm512_loadu_ps(row + i);
      nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    }
    return nan != 0;
  }
};

// One 16-channel run of P output pixels side by side: acc[p] combines
// rows x cols taps, the first at x0 + p * pixel_step, rows row_step
// apart and columns col_step apart (floats). kKeepNan: the NaN-keeping max.
template <int P, bool kMax, bool kKeepNan>
LIBOPS_TARGET_AVX512_WIDE LIBOPS_FORCE_INLINE void pool_taps_lanes16(const float* x0, int64_t rows, int64_t row_step,
                                                                    int64_t cols, int64_t col_step, int64_t pixel_step,
                                                                    float init, __m512* acc) {
  for (int p = 0; p < P; ++p) acc[p] = _mm512_set1_ps(init);
  for (int64_t kh = 0; kh < rows; ++kh, x0 += row_step) {
    const float* xr = x0;
    for (int64_t kw = 0; kw < cols; ++kw, xr += col_step) {
      for (int p = 0; p < P; ++p) {
        const __m512 v = _mm512_loadu_ps(xr + p * pixel_step);
        if constexpr (!kMax) {
          acc[p] = _mm512_add_ps(acc[p], v);
        } else if constexpr (kKeepNan) {
          const __mmask16 take = _mm512_cmp_ps_mask(v, acc[p], _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
          acc[p] = _mm512_mask_blend_ps(take, acc[p], v);
        } else {
          acc[p] = _mm512_mask_max_ps(acc[p], 0xFFFF, v, acc[p]);  // v > acc ? v : acc
        }
      }
    }
  }
}

// Output rows [begin, end) (of g.n * g.oh) of an NHWC float pool whose
// channels are a multiple of kPoolLanes. Pixels whose windows lie wholly
// inside a row go kPoolPixels at a time, so each tap's loop step serves
// several loads (NCHWc viewed as NHWC has one run a pixel).
inline constexpr int kPoolPixels = 4;
template <typename Reducer>
LIBOPS_TARGET_AVX512_WIDE void pool_rows_lanes16(const Geometry2d& g, const Window2d& win, const Reducer& r,
                                                 const float* x, float* z, const int64_t* row_lo,
                                                 const int64_t* row_hi, const int64_t* col_lo, const int64_t* col_hi,
                                                 int64_t begin, int64_t end) {
  constexpr bool kMax = std::is_same_v<Reducer, MaxPoolReducer<float>>;
  int64_t inner_begin = 0, inner_end = g.ow;  // outputs with every column tap inside the row
  while (inner_begin < g.ow && (col_lo[inner_begin] != 0 || col_hi[inner_begin] != win.kw)) ++inner_begin;
  while (inner_end > inner_begin && (col_lo[inner_end - 1] != 0 || col_hi[inner_end - 1] != win.kw)) --inner_end;
  const int64_t row_step = win.dh * g.w * g.c, col_step = win.dw * g.c, pixel_step = win.sw * g.c;
  NanRowScan<NanScan16> nan_rows(x, g.h, g.w * g.c);
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / g.oh, oh = t % g.oh;
    const int64_t rows = row_hi[oh] - row_lo[oh];
    const int64_t ih = oh * win.sh - g.pad_top + row_lo[oh] * win.dh;  // the first row inside the input
    const bool keep_nan = kMax && rows > 0 && nan_rows.any(n, ih, ih + (rows - 1) * win.dh);
    const float* xrow = rows > 0 ? x + (n * g.h + ih) * g.w * g.c : x;
    for (int64_t ow = 0; ow < g.ow;) {
      const bool group = ow >= inner_begin && ow + kPoolPixels <= inner_end;
      const int pixels = group ? kPoolPixels : 1;
      const int64_t cols = col_hi[ow] - col_lo[ow];
      const float* x0 = rows > 0 && cols > 0 ? xrow + (ow * win.sw - g.pad_left + col_lo[ow] * win.dw) * g.c : x;
      float* zp = z + (t * g.ow + ow) * g.c;
      for (int64_t c0 = 0; c0 < g.c; c0 += kPoolLanes) {
        __m512 acc[kPoolPixels];
        if (rows > 0 && cols > 0) {
          const float init = r.init();
          if (group) {
            if (keep_nan)
              pool_taps_lanes16<kPoolPixels, kMax, true>(x0 + c0, rows, row_step, cols, col_step, pixel_step, init, acc);
            else
              pool_taps_lanes16<kPoolPixels, kMax, false>(x0 + c0, rows, row_step, cols, col_step, pixel_step, init, acc);
          } else {
            if (keep_nan) pool_taps_lanes16<1, kMax, true>(x0 + c0, rows, row_step, cols, col_step, 0, init, acc);
            else pool_taps_lanes16<1, kMax, false>(x0 + c0, rows, row_step, cols, col_step, 0, init, acc);
          }
        } else {
          acc[0] = _mm512_setzero_ps();  // no tap inside the input: 0 (finish gives 0 for both reducers)
        }
        for (int p = 0; p < pixels; ++p) {
          float* zr = zp + p * g.c + c0;
          if constexpr (kMax) {
            _mm512_storeu_ps(zr, acc[p]);
          } else {
            const int64_t valid = rows * (col_hi[ow + p] - col_lo[ow + p]);
            alignas(64) float sums[kPoolLanes];
            _mm512_store_ps(sums, acc[p]);
            for (int64_t l = 0; l < kPoolLanes; ++l) zr[l] = r.finish(sums[l], valid, oh, ow + p);
          }
        }
      }
      ow += pixels;
    }
  }
}
#endif

// Note [Pooling in lanes of 8]
// NCHWc with blocks of 8 (the layout AVX2 machines' convolutions keep) pools
// as NHWC with 8 channels a pixel: the general NHWC loop then builds each
// pixel's 8 results in z, reloading and storing them at every tap (z might
// alias x). Here they build up in local arrays, 8 lanes for each of
// kPixels pixels side by side within a row's inner windows, which the
// compiler keeps in vector registers across the taps (one AVX2 register a
// pixel for float), each tap's loop step serving those loads. As in Note
// [Pooling in lanes of 16], a float max checks the input rows for NaN (each
// once) and rows without take one max instruction a tap (v > acc ? v :
// acc), others MaxPoolReducer::combine's NaN-keeping three. The same
// combines in the same order otherwise, so the same values.
// ResNet-18's 3x3/2 max pool over [1, 64, 112, 112] on the AVX2 EPYC, one
// thread, ops-run's profile, three interleaved rounds of eight runs: best
// runs 0.54-0.71 ms against 1.02-1.51 with the general loop (ONNX
// Runtime's MaxPool 0.53 in bench/compare_models.py's profile).
inline constexpr int64_t kPoolLanes8 = 8;
struct NanScanPlain {  // one row, in whatever the compiler makes of it
  LIBOPS_FORCE_INLINE static bool has_nan(const float* row, int64_t row_floats) {
    int nan = 0;
    for (int64_t i = 0; i < row_floats; ++i) nan |= row[i] != row[i];
    return nan != 0;
  }
};

template <int P, bool kPlainMax, typename C, typename Reducer>
LIBOPS_FORCE_INLINE void pool_taps_lanes8(const C* x0, int64_t rows, int64_t row_step, int64_t cols,
                                          int64_t col_step, int64_t pixel_step, C init, C (*acc)[kPoolLanes8]) {
  for (int p = 0; p < P; ++p)
    for (int l = 0; l < kPoolLanes8; ++l) acc[p][l] = init;
  for (int64_t kh = 0; kh < rows; ++kh, x0 += row_step) {
    const C* xr = x0;
    for (int64_t kw = 0; kw < cols; ++kw, xr += col_step)
      for (int p = 0; p < P; ++p)
        for (int l = 0; l < kPoolLanes8; ++l) {
          const C v = xr[p * pixel_step + l];
          if constexpr (kPlainMax) acc[p][l] = detail::select_f32(v > acc[p][l], v, acc[p][l]);  // float only
          else acc[p][l] = Reducer::combine(acc[p][l], v);
        }
  }
}

// Output rows [begin, end) (of g.n * g.oh) of an NHWC pool of 8 channels.
template <typename C, typename Reducer>
LIBOPS_FORCE_INLINE void pool_rows_lanes8(const Geometry2d& g, const Window2d& win, const Reducer& r, const C* x,
                                          C* z, const int64_t* row_lo, const int64_t* row_hi, const int64_t* col_lo,
                                          const int64_t* col_hi, int64_t begin, int64_t end) {
  constexpr bool kFloatMax = std::is_same_v<Reducer, MaxPoolReducer<float>>;
  constexpr int kPixels = 4;
  constexpr int64_t c = kPoolLanes8;
  int64_t inner_begin = 0, inner_end = g.ow;  // outputs with every column tap inside the row
  while (inner_begin < g.ow && (col_lo[inner_begin] != 0 || col_hi[inner_begin] != win.kw)) ++inner_begin;
  while (inner_end > inner_begin && (col_lo[inner_end - 1] != 0 || col_hi[inner_end - 1] != win.kw)) --inner_end;
  const int64_t row_step = win.dh * g.w * c, col_step = win.dw * c, pixel_step = win.sw * c;
  NanRowScan<NanScanPlain> nan_rows(reinterpret_cast<const float*>(x), g.h, g.w * c);  // read for float only
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / g.oh, oh = t % g.oh;
    const int64_t rows = row_hi[oh] - row_lo[oh];
    const int64_t ih = oh * win.sh - g.pad_top + row_lo[oh] * win.dh;  // the first row inside the input
    const bool plain_max = kFloatMax && rows > 0 && !nan_rows.any(n, ih, ih + (rows - 1) * win.dh);
    const C* xrow = rows > 0 ? x + (n * g.h + ih) * g.w * c : x;
    for (int64_t ow = 0; ow < g.ow;) {
      const bool group = ow >= inner_begin && ow + kPixels <= inner_end;
      const int pixels = group ? kPixels : 1;
      const int64_t cols = col_hi[ow] - col_lo[ow];
      C acc[kPixels][kPoolLanes8];
      if (rows > 0 && cols > 0) {
        const C* x0 = xrow + (ow * win.sw - g.pad_left + col_lo[ow] * win.dw) * c;
        const C init = r.init();
        const int64_t step = group ? pixel_step : 0;
        if (group && plain_max)
          pool_taps_lanes8<kPixels, kFloatMax, C, Reducer>(x0, rows, row_step, cols, col_step, step, init, acc);
        else if (group)
          pool_taps_lanes8<kPixels, false, C, Reducer>(x0, rows, row_step, cols, col_step, step, init, acc);
        else if (plain_max)
          pool_taps_lanes8<1, kFloatMax, C, Reducer>(x0, rows, row_step, cols, col_step, step, init, acc);
        else
          pool_taps_lanes8<1, false, C, Reducer>(x0, rows, row_step, cols, col_step, step, init, acc);
      } else {
        for (int p = 0; p < kPixels; ++p)  // no tap inside the input: finish gives 0
          for (int l = 0; l < kPoolLanes8; ++l) acc[p][l] = C(0);
      }
      for (int p = 0; p < pixels; ++p) {
        C* zr = z + (t * g.ow + ow + p) * c;
        const int64_t valid = rows * (col_hi[ow + p] - col_lo[ow + p]);
        for (int l = 0; l < kPoolLanes8; ++l) zr[l] = r.finish(acc[p][l], valid, oh, ow + p);
      }
      ow += pixels;
    }
  }
}

// Pools dense C-order x (compute type C) into dense z, laid out as in g.
// A window with no tap inside the input gives 0.
template <typename C, typename Reducer>
void pool2d_run(const Geometry2d& g, const Window2d& win, const Reducer& r, const C* x, C* z) {
  // Valid kernel taps per output row and column: [lo, hi).
  std::vector<int64_t> row_lo(g.oh), row_hi(g.oh), col_lo(g.ow), col_hi(g.ow);
  for (int64_t o = 0; o < g.oh; ++o) valid_taps(o * win.sh - g.pad_top, win.dh, win.kh, g.h, row_lo[o], row_hi[o]);
  for (int64_t o = 0; o < g.ow; ++o) valid_taps(o * win.sw - g.pad_left, win.dw, win.kw, g.w, col_lo[o], col_hi[o]);
  const int64_t window_work = std::max<int64_t>(1, win.kh * win.kw);

  if (g.nchw) {
    // One (n, c) plane per task. Both reducers are separable: for each
    // output row, the window's valid input rows are first combined down
    // every input column (contiguous rows, so the loop vectorizes), then
    // each window's valid columns of that one row (the strided part, on
    // sH times less data). For avgpool this sums a window column by column
    // rather than row by row: the same terms, another rounding order.
    const int64_t plane = g.h * g.w, out_plane = g.oh * g.ow;
    const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, out_plane * window_work));
    // The outputs whose windows lie wholly inside a row: [inner_begin, inner_end).
    int64_t inner_begin = 0, inner_end = g.ow;
    while (inner_begin < g.ow && (col_lo[inner_begin] != 0 || col_hi[inner_begin] != win.kw)) ++inner_begin;
    while (inner_end > inner_begin && (col_lo[inner_end - 1] != 0 || col_hi[inner_end - 1] != win.kw)) --inner_end;
    parallel_for(g.n * g.c, grain, [&](int64_t begin, int64_t end) {
      std::vector<C> cols(static_cast<size_t>(g.w));
      C* cp = cols.data();
      // The planes, compiled per instruction set (Note [Runtime ISA dispatch]).
      isa_dispatch([&] {
        for (int64_t p = begin; p < end; ++p) {
          const C* xp = x + p * plane;
          C* zp = z + p * out_plane;
          for (int64_t oh = 0; oh < g.oh; ++oh) {
            const int64_t ih0 = oh * win.sh - g.pad_top;
            if (row_lo[oh] == row_hi[oh]) {
              std::fill(cols.begin(), cols.end(), r.init());
            } else {
              // The first row as it is (combine(init, v) == v), or the
              // first two or three combined in one pass: a copy and a pass
              // per further row moved the columns through L1 twice more
              // (maxpool 3x3/2 of [1, 64, 112, 112]: 273 -> 235 us).
              const int64_t rows = row_hi[oh] - row_lo[oh];
              int64_t kh = row_lo[oh];
              auto row = [&](int64_t k) { return xp + (ih0 + k * win.dh) * g.w; };
              if (rows == 1) {
                const C* r0 = row(kh);
                std::copy(r0, r0 + g.w, cp);
                kh += 1;
              } else if (rows == 2) {
                const C *r0 = row(kh), *r1 = row(kh + 1);
                for (int64_t iw = 0; iw < g.w; ++iw) cp[iw] = Reducer::combine(r0[iw], r1[iw]);
                kh += 2;
              } else {
                const C *r0 = row(kh), *r1 = row(kh + 1), *r2 = row(kh + 2);
                for (int64_t iw = 0; iw < g.w; ++iw)
                  cp[iw] = Reducer::combine(Reducer::combine(r0[iw], r1[iw]), r2[iw]);
                kh += 3;
              }
              for (; kh < row_hi[oh]; ++kh) {
                const C* xr = row(kh);
                for (int64_t iw = 0; iw < g.w; ++iw) cp[iw] = Reducer::combine(cp[iw], xr[iw]);
              }
            }
            C* zr = zp + oh * g.ow;
            const int64_t rows = row_hi[oh] - row_lo[oh];
            // Edge outputs, whose windows stick out of the row: tap by tap.
            auto edge = [&](int64_t ow) {
              const int64_t iw0 = ow * win.sw - g.pad_left;
              C acc = r.init();
              for (int64_t kw = col_lo[ow]; kw < col_hi[ow]; ++kw) acc = Reducer::combine(acc, cp[iw0 + kw * win.dw]);
              zr[ow] = r.finish(acc, rows * (col_hi[ow] - col_lo[ow]), oh, ow);
            };
            for (int64_t ow = 0; ow < inner_begin; ++ow) edge(ow);
            for (int64_t ow = inner_end; ow < g.ow; ++ow) edge(ow);
            // Inner outputs: every tap valid, so one tap of every output at
            // a time, independent lanes that vectorize (with strides 1 and 2
            // known to the compiler, which then loads with shuffles).
            const int64_t count = inner_end - inner_begin;
            if (count == 0) continue;
            const C* c0 = cp + inner_begin * win.sw - g.pad_left;  // >= cp: these windows lie inside
            C* z0 = zr + inner_begin;
            auto inner = [&](auto sw) {
              for (int64_t o = 0; o < count; ++o) z0[o] = c0[o * sw];
              for (int64_t kw = 1; kw < win.kw; ++kw) {
                const C* ck = c0 + kw * win.dw;
                for (int64_t o = 0; o < count; ++o) z0[o] = Reducer::combine(z0[o], ck[o * sw]);
              }
            };
            if (win.sw == 1) inner(std::integral_constant<int64_t, 1>{});
            else if (win.sw == 2) inner(std::integral_constant<int64_t, 2>{});
            else inner(win.sw);
            for (int64_t o = 0; o < count; ++o) z0[o] = r.finish(z0[o], rows * win.kw, oh, inner_begin + o);
          }
        }
      });
    });
    return;
  }
  // NHWC: one (n, oh) output row per task; the channel loop is innermost
  // and contiguous.
  const int64_t row_work = std::max<int64_t>(1, g.ow * g.c * window_work);
#if LIBOPS_ISA_DISPATCH
  if constexpr (std::is_same_v<C, float>) {
    if (g.c % kPoolLanes == 0 && cpu_isa() == CpuIsa::kAvx512) {  // Note [Pooling in lanes of 16]
      parallel_for(g.n * g.oh, std::max<int64_t>(1, 32768 / row_work), [&](int64_t begin, int64_t end) {
        pool_rows_lanes16(g, win, r, x, z, row_lo.data(), row_hi.data(), col_lo.data(), col_hi.data(), begin, end);
      });
      return;
    }
  }
#endif
  if (g.c == kPoolLanes8) {  // Note [Pooling in lanes of 8]
    parallel_for(g.n * g.oh, std::max<int64_t>(1, 32768 / row_work), [&](int64_t begin, int64_t end) {
      isa_dispatch([&] {
        pool_rows_lanes8(g, win, r, x, z, row_lo.data(), row_hi.data(), col_lo.data(), col_hi.data(), begin, end);
      });
    });
    return;
  }
  parallel_for(g.n * g.oh, std::max<int64_t>(1, 32768 / row_work), [&](int64_t begin, int64_t end) {
    isa_dispatch([&] {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t n = t / g.oh, oh = t % g.oh;
        const int64_t ih0 = oh * win.sh - g.pad_top;
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          const int64_t iw0 = ow * win.sw - g.pad_left;
          C* zr = z + (t * g.ow + ow) * g.c;
          for (int64_t c = 0; c < g.c; ++c) zr[c] = r.init();
          for (int64_t kh = row_lo[oh]; kh < row_hi[oh]; ++kh) {
            const int64_t ih = ih0 + kh * win.dh;
            for (int64_t kw = col_lo[ow]; kw < col_hi[ow]; ++kw) {
              const C* xr = x + ((n * g.h + ih) * g.w + iw0 + kw * win.dw) * g.c;
              for (int64_t c = 0; c < g.c; ++c) zr[c] = Reducer::combine(zr[c], xr[c]);
            }
          }
          const int64_t valid = (row_hi[oh] - row_lo[oh]) * (col_hi[ow] - col_lo[ow]);
          for (int64_t c = 0; c < g.c; ++c) zr[c] = r.finish(zr[c], valid, oh, ow);
        }
      }
    });
  });
}

// The start of maxpool2d's and avgpool2d's signature: x, z and i args
// 0..8 (Note [Window arguments]). Each op then declares its i arg 9 and
// data_format (i arg 10).
inline void pool2d_signature(OpSignature& args, const char* result) {
  args.input("x", "images, [N, C, H, W] (NCHW) or [N, H, W, C] (NHWC)");
  args.output("z", result);
  window_signature(args, false);
}

// Note [Ceil mode]
//  Pooling's ceil_mode (i arg 11; PyTorch's and ONNX's ceil_mode) rounds
//  the output extent up: oH = ceil((H + 2 * pH - eff_kH) / sH) + 1, less one
//  when the last window would start at or past H + pH (in the padding after
//  the image: PyTorch's rule, which ONNX Runtime follows). The windows it
//  adds reach past the padded input; they pool the taps inside the input,
//  and an average counting padding divides by the taps inside the padded
//  input. Explicit padding only (SAME already covers every input row).

// Shape function of maxpool2d / avgpool2d (i args: Note [Window arguments],
// then 9 = the op's flag, 10 = data_format, 11 = ceil_mode).
inline Status pool2d_geometry(Context& block, Window2d& win, Geometry2d& g) {
  window_args(block, win);
  win.ceil = INT_ARG(11) == 1;
  const NDArray* x = block.input(0);
  RETURN_IF_ERROR(window_input(block, *x, INT_ARG(10), g));
  if (!win.same) {
    const int64_t eff_h = (win.kh - 1) * win.dh + 1, eff_w = (win.kw - 1) * win.dw + 1;
    REQUIRE_TRUE(win.ph < eff_h && win.pw < eff_w, 0,
                 "padding too large with x%s, kernel %lldx%lld, dilation %lldx%lld, padding %lldx%lld: padding must "
                 "be smaller than the dilated kernel %lldx%lld",
                 x->shape().str().c_str(), static_cast<long long>(win.kh), static_cast<long long>(win.kw),
                 static_cast<long long>(win.dh), static_cast<long long>(win.dw), static_cast<long long>(win.ph),
                 static_cast<long long>(win.pw), static_cast<long long>(eff_h), static_cast<long long>(eff_w));
  }
  RETURN_IF_ERROR(window_output(block, *x, win, g));
  if (win.ceil && !win.same) {
    auto ceil_extent = [](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
      const int64_t span = in + 2 * p - ((k - 1) * d + 1);
      int64_t out = (span + s - 1) / s + 1;
      if ((out - 1) * s >= in + p) --out;
      return out;
    };
    g.oh = ceil_extent(g.h, win.kh, win.sh, win.ph, win.dh);
    g.ow = ceil_extent(g.w, win.kw, win.sw, win.pw, win.dw);
  }
  return Status::ok();
}

// The output shape of a 2-D pooling op (pool2d_geometry's), x's dtype.
inline Status pool2d_output_shape(Context& block, ShapeList& shapes) {
  Window2d win;
  Geometry2d g;
  RETURN_IF_ERROR(pool2d_geometry(block, win, g));
  shapes.push_back(TensorShape{block.input(0)->dtype(), window_output_dims(g, g.c), 'c'});
  return Status::ok();
}

// Compute step of maxpool2d / avgpool2d.
template <template <typename> class ReducerT>
Status pool2d_exec(Context& block, bool include_pad) {
  Window2d win;
  Geometry2d g;
  RETURN_IF_ERROR(pool2d_geometry(block, win, g));
  const NDArray& x = *block.input(0);
  NDArray& z = *block.output(0);
  if (z.length() == 0) return Status::ok();
  const DataType dt = float_compute_dtype(x.dtype());
  NDArray xd;
  RETURN_IF_ERROR(dense_as(x, dt, xd));
  OutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, dt, false));
  auto run = [&](auto c) {
    using C = decltype(c);
    ReducerT<C> r;
    std::vector<int64_t> row_padded, col_padded;
    if constexpr (std::is_same_v<ReducerT<C>, AvgPoolReducer<C>>) {
      // The padding after the input: explicit ph / pw, or SAME's remainder.
      auto after = [](int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t before, int64_t p,
                      bool same) {
        return same ? std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in - before) : p;
      };
      row_padded = padded_taps(g.oh, g.h, win.kh, win.sh, win.dh, g.pad_top,
                               after(g.h, g.oh, win.kh, win.sh, win.dh, g.pad_top, win.ph, win.same));
      col_padded = padded_taps(g.ow, g.w, win.kw, win.sw, win.dw, g.pad_left,
                               after(g.w, g.ow, win.kw, win.sw, win.dw, g.pad_left, win.pw, win.same));
      r.include_pad = include_pad;
      r.row_padded = row_padded.data();
      r.col_padded = col_padded.data();
    }
    // NCHWc [N, C / b, H, W, b] is NHWC [N * C / b, H, W, b]: its b lanes
    // pool like NHWC channels, and pooled zeros stay zeros.
    Geometry2d gv = g;
    if (g.block > 0) gv.n = g.n * (g.c / g.block), gv.c = g.block, gv.block = 0;
    pool2d_run<C>(gv, win, r, xd.data_as<C>(), out.target().data_as<C>());
  };
  if (dt == DataType::kFloat64) run(double{});
  else run(float{});
  return out.finish(z);
}

}  // namespace libops::ops::nn
