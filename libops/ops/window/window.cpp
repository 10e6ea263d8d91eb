// The window geometry of unfold and fold and their CPU kernels (Note
// [Sliding windows] in window.h).
#include "libops/ops/window/window.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"

namespace libops::ops {

DeviceKernel<UnfoldDeviceFn> unfold_device_kernel;
DeviceKernel<FoldDeviceFn> fold_device_kernel;

namespace {

// "[2,0,3]": lists of up to 2 * kMaxRank values (paddings), beyond Dims.
std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) {
    if (k > 0) s += ',';
    s += std::to_string(v[k]);
  }
  return s + "]";
}

// Every entry of `v` in [lo, INT32_MAX]: the bound keeps all index
// arithmetic (dilation * kernel, window * stride) inside int64.
Status check_entries(const Context& block, const char* what, const std::vector<int64_t>& v, int64_t lo) {
  for (int64_t e : v)
    REQUIRE_TRUE(e >= lo && e <= INT32_MAX, 0, "%s with %s: every entry must be in [%lld, %d]", what,
                 list_text(v).c_str(), static_cast<long long>(lo), INT32_MAX);
  return Status::ok();
}

// K values of `all` from position `from`.
std::vector<int64_t> part(const std::vector<int64_t>& all, size_t from, size_t count) {
  return std::vector<int64_t>(all.begin() + static_cast<std::ptrdiff_t>(from),
                              all.begin() + static_cast<std::ptrdiff_t>(from + count));
}

}  // namespace

Status window_geometry(const Context& block, bool fold, WindowGeometry& g, Dims& out_shape) {
  const NDArray& x = *block.input(0);
  std::vector<int64_t> args;
  if (fold) {
    RETURN_IF_ERROR(block.int_list("output_size_and_window", args));  // i args or input 1
    REQUIRE_TRUE(!args.empty(), 0, "output_size_and_window is not given: 6 values per spatial dim, as i args or input 1");
  } else {
    args = block.i_args();
  }
  const size_t per_dim = fold ? 6 : 5;
  REQUIRE_TRUE(args.size() % per_dim == 0, 0,
               fold ? "output_size_and_window with %zu values: it needs %zu per spatial dim (K output sizes, K "
                      "kernel sizes, K strides, K dilations, then a (before, after) padding pair per dim)"
                    : "window with %zu values: it needs %zu per spatial dim (K kernel sizes, K strides, K dilations, "
                      "then a (before, after) padding pair per dim)",
               args.size(), per_dim);
  const size_t k = args.size() / per_dim, first = fold ? k : 0;
  const std::vector<int64_t> kernel = part(args, first, k), stride = part(args, first + k, k),
                             dilation = part(args, first + 2 * k, k), padding = part(args, first + 3 * k, 2 * k);
  const std::vector<int64_t> output_size = fold ? part(args, 0, k) : std::vector<int64_t>{};
  if (fold) RETURN_IF_ERROR(check_entries(block, "output_size", output_size, 0));
  RETURN_IF_ERROR(check_entries(block, "kernel_size", kernel, 1));
  RETURN_IF_ERROR(check_entries(block, "stride", stride, 1));
  RETURN_IF_ERROR(check_entries(block, "dilation", dilation, 1));
  RETURN_IF_ERROR(check_entries(block, "padding", padding, 0));

  const int K = static_cast<int>(k), rank = x.rank();
  // unfold: x is (leading..., spatial...); fold: (leading..., taps, windows).
  const int lead = fold ? rank - 2 : rank - K;
  if (fold)
    REQUIRE_TRUE(rank >= 2, OPS_ERR_SHAPE, "x%s with kernel_size %s: x needs at least 2 dims (taps, windows)",
                 x.shape().str().c_str(), list_text(kernel).c_str());
  else
    REQUIRE_TRUE(rank >= K, OPS_ERR_SHAPE, "x%s with kernel_size %s: x needs at least %d dims, one per kernel dim",
                 x.shape().str().c_str(), list_text(kernel).c_str(), K);
  const int out_rank = fold ? lead + K : lead + 2;
  REQUIRE_TRUE(out_rank <= kMaxRank, OPS_ERR_SHAPE,
               "x%s with kernel_size %s: the result would have %d dims: at most %d",
               x.shape().str().c_str(), list_text(kernel).c_str(), out_rank, kMaxRank);

  g = WindowGeometry{};
  g.k = K;
  out_shape.clear();
  for (int d = 0; d < lead; ++d) {
    out_shape.push_back(x.dim(d));
    g.batch *= x.dim(d);
  }
  for (int d = 0; d < K; ++d) {
    const size_t s = static_cast<size_t>(d);
    const int64_t extent = fold ? output_size[s] : x.dim(lead + d);
    const int64_t before = padding[2 * s], after = padding[2 * s + 1];
    const int64_t span = dilation[s] * (kernel[s] - 1) + 1;  // the dilated kernel: below 2^62
    int64_t padded = 0;
    REQUIRE_TRUE(!__builtin_add_overflow(extent, before + after, &padded), OPS_ERR_SHAPE,
                 "x%s with padding %s: the padded extent of spatial dim %d overflows int64", x.shape().str().c_str(),
                 list_text(padding).c_str(), d);
    const bool fits = padded >= span;
    if (fold)
      REQUIRE_TRUE(fits, OPS_ERR_SHAPE,
                   "spatial dim %d with output_size %lld, padding (%lld, %lld), kernel_size %lld and dilation %lld: "
                   "the dilated kernel spans %lld, more than the padded extent %lld",
                   d, static_cast<long long>(extent), static_cast<long long>(before), static_cast<long long>(after),
                   static_cast<long long>(kernel[s]), static_cast<long long>(dilation[s]),
                   static_cast<long long>(span), static_cast<long long>(padded));
    else
      REQUIRE_TRUE(fits, OPS_ERR_SHAPE,
                   "spatial dim %d (dim %d of x%s) with padding (%lld, %lld), kernel_size %lld and dilation %lld: "
                   "the dilated kernel spans %lld, more than the padded extent %lld",
                   d, lead + d, x.shape().str().c_str(), static_cast<long long>(before),
                   static_cast<long long>(after), static_cast<long long>(kernel[s]),
                   static_cast<long long>(dilation[s]), static_cast<long long>(span),
                   static_cast<long long>(padded));
    g.spatial[d] = extent;
    g.kernel[d] = kernel[s];
    g.stride[d] = stride[s];
    g.dilation[d] = dilation[s];
    g.pad_before[d] = before;
    g.counts[d] = (padded - span) / stride[s] + 1;
    const bool overflow = __builtin_mul_overflow(g.taps, kernel[s], &g.taps) ||
                          __builtin_mul_overflow(g.windows, g.counts[d], &g.windows) ||
                          __builtin_mul_overflow(g.volume, extent, &g.volume);
    REQUIRE_TRUE(!overflow, OPS_ERR_SHAPE,
                 "x%s with kernel_size %s: the counts of taps, windows or image elements overflow int64",
                 x.shape().str().c_str(), list_text(kernel).c_str());
  }
  if (fold) {
    const std::vector<int64_t> counts(g.counts, g.counts + K);
    REQUIRE_TRUE(x.dim(rank - 2) == g.taps, OPS_ERR_SHAPE,
                 "x%s with kernel_size %s: dim %d (taps) is %lld: it must be prod(kernel_size) = %lld",
                 x.shape().str().c_str(), list_text(kernel).c_str(), rank - 2, static_cast<long long>(x.dim(rank - 2)),
                 static_cast<long long>(g.taps));
    REQUIRE_TRUE(x.dim(rank - 1) == g.windows, OPS_ERR_SHAPE,
                 "x%s with output_size %s, kernel_size %s, stride %s, dilation %s and padding %s: dim %d (windows) "
                 "is %lld: it must be the %lld windows those give (%s per dim)",
                 x.shape().str().c_str(), list_text(output_size).c_str(), list_text(kernel).c_str(),
                 list_text(stride).c_str(), list_text(dilation).c_str(), list_text(padding).c_str(), rank - 1,
                 static_cast<long long>(x.dim(rank - 1)), static_cast<long long>(g.windows),
                 list_text(counts).c_str());
    for (int d = 0; d < K; ++d) out_shape.push_back(g.spatial[d]);
  } else {
    out_shape.push_back(g.taps);
    out_shape.push_back(g.windows);
  }
  int64_t length = 0;
  REQUIRE_TRUE(checked_length(out_shape, length), OPS_ERR_SHAPE,
               "x%s with kernel_size %s: the result %s overflows int64",
               x.shape().str().c_str(), list_text(kernel).c_str(), out_shape.str().c_str());
  return Status::ok();
}

DataType fold_compute_dtype(DataType t) {
  switch (compute_type_of(t)) {
    case ComputeType::kF32: return DataType::kFloat32;
    case ComputeType::kF64: return DataType::kFloat64;
    case ComputeType::kI32: return DataType::kInt32;
    case ComputeType::kI64: return DataType::kInt64;
    case ComputeType::kU64: break;
  }
  return DataType::kUInt64;
}

namespace {

// Elements move as unsigned integers of their size: no conversion, and a
// zero of any dtype is all zero bits.
template <typename T>
void unfold_typed(const WindowGeometry& g, const T* x, T* z) {
  parallel_for(g.batch * g.taps, std::max<int64_t>(1, 16384 / g.windows), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t n = r / g.taps, t = r - n * g.taps;
      const T* xn = x + n * g.volume;
      T* zr = z + r * g.windows;
      for (int64_t w = 0; w < g.windows; ++w) {
        const int64_t offset = window_tap_offset(g, t, w);
        zr[w] = offset < 0 ? T(0) : xn[offset];
      }
    }
  });
}

template <typename C>
void fold_typed(const WindowGeometry& g, const C* x, C* z) {
  parallel_for(g.batch * g.volume, std::max<int64_t>(1, 16384 / g.taps), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) z[i] = fold_element(g, x, i);
  });
}

}  // namespace

void unfold_cpu(const WindowGeometry& g, size_t elem_size, const void* x, void* z) {
  switch (elem_size) {
    case 1: unfold_typed(g, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(z)); break;
    case 2: unfold_typed(g, static_cast<const uint16_t*>(x), static_cast<uint16_t*>(z)); break;
    case 4: unfold_typed(g, static_cast<const uint32_t*>(x), static_cast<uint32_t*>(z)); break;
    default: unfold_typed(g, static_cast<const uint64_t*>(x), static_cast<uint64_t*>(z)); break;
  }
}

void fold_cpu(const WindowGeometry& g, DataType dt, const void* x, void* z) {
  switch (dt) {
    case DataType::kFloat32: fold_typed(g, static_cast<const float*>(x), static_cast<float*>(z)); break;
    case DataType::kFloat64: fold_typed(g, static_cast<const double*>(x), static_cast<double*>(z)); break;
    case DataType::kInt32: fold_typed(g, static_cast<const int32_t*>(x), static_cast<int32_t*>(z)); break;
    case DataType::kInt64: fold_typed(g, static_cast<const int64_t*>(x), static_cast<int64_t*>(z)); break;
    default: fold_typed(g, static_cast<const uint64_t*>(x), static_cast<uint64_t*>(z)); break;
  }
}

}  // namespace libops::ops
