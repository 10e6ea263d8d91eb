// cumsum, cumprod, cummax, cummin: running sums, products, maxima and
// minima along an axis (numpy.cumsum etc., ONNX's CumSum, libnd4j's
// cumsum/cumprod), with TensorFlow's exclusive and reverse flags.
//
//   i args  exclusive (0/1), reverse (0/1), then the axes (libnd4j's
//           order); no axes scans the whole array in C order, keeping its
//           shape (libnd4j); several axes scan one after another
//   output  x's dtype and shape; integers accumulate in 64 bits and wrap
//
// Kernels (cumulative.h): on the CPU a row of inner == 1 is scanned in
// vector lanes for sums and products (Note [Prefix sums in lanes]); for max
// and min it is cut into 8 interleaved segments scanned together
// (independent compares, not one long dependency chain) and fixed up with
// their offsets. A long row with few rows to share is split between threads
// in two passes (chunk totals, then each chunk seeded with the total before
// it). Rows with inner > 1 advance inner elements at a time, which
// vectorizes. Floats sum in an order that can differ from a plain
// left-to-right loop by rounding.
#include "libops/ops/reduce/cumulative.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/loops/streaming_store.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/reduce/scan_ops.h"

namespace libops::ops {

DeviceKernel<ScanDeviceFn> scan_device_kernel;

namespace {

DataType scan_compute_dtype(DataType t) {
  if (t == DataType::kFloat64) return DataType::kFloat64;
  if (dtype_is_float(t)) return DataType::kFloat32;
  if (t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt32 || t == DataType::kInt64)
    return DataType::kInt64;
  return DataType::kUInt64;
}

constexpr int64_t kSegments = 8;
constexpr int64_t kBlock = 4096;  // elements one ILP pass keeps in L1

// Note [Prefix sums in lanes]: a running sum or product is one long
// dependency chain, a latency-bound add per element. Instead each vector of
// L lanes gets its own prefix in log2(L) shifted adds (lane j: x[0] + ... +
// x[j]), two vectors at a time, and only the carry into the pair waits on
// the pair before: one add and one broadcast per 2L elements, so the scan
// runs at memory speed. Element i is carry + (the sum of its pair up to
// i): a different rounding from a left-to-right loop, within the same
// error bound. Integers add in their unsigned twin, so they wrap exactly
// as the scalar loop.
template <ScanOp kOp, typename C>
struct LanePrefix {
  using W = typename scan::Wrapping<C>::type;
  static constexpr int kLanes = 32 / int(sizeof(W));
  static_assert(kLanes == 4 || kLanes == 8, "scans compute in 32- or 64-bit types (scan_compute_dtype)");
  typedef W V __attribute__((vector_size(32)));

  static V combine(V a, V b) {
    if constexpr (kOp == ScanOp::kSum) return a + b;
    else return a * b;
  }
  static V splat(W w) { return V{} + w; }
  // v moved up k lanes, the identity shifted in.
  template <int k, int... I>
  static V shift_up(V v, V id, std::integer_sequence<int, I...>) {
    return __builtin_shufflevector(v, id, (I < k ? kLanes + I : I - k)...);
  }
  static V prefix(V v, V id) {
    constexpr auto lanes = std::make_integer_sequence<int, kLanes>{};
    v = combine(v, shift_up<1>(v, id, lanes));
    v = combine(v, shift_up<2>(v, id, lanes));
    if constexpr (kLanes == 8) v = combine(v, shift_up<4>(v, id, lanes));
    return v;
  }
  static V load(const C* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(C* p, V v) { std::memcpy(p, &v, sizeof v); }

  // The scan of one pair from carry c (updated): z[0, 2 * kLanes).
  static void pair(const C* x, C* z, V& c, V id) {
    const V a = prefix(load(x), id);
    const V b = combine(prefix(load(x + kLanes), id), splat(a[kLanes - 1]));
    const V za = combine(c, a), zb = combine(c, b);
    store(z, za);
    store(z + kLanes, zb);
    c = splat(zb[kLanes - 1]);
  }

  // Scans the whole pairs of x[0, n); returns how many elements it did.
  static int64_t run(const C* x, C* z, int64_t n, C& carry, C identity) {
    const V id = splat(static_cast<W>(identity));
    V c = splat(static_cast<W>(carry));
    int64_t i = 0;
    for (; i + 2 * kLanes <= n; i += 2 * kLanes) pair(x + i, z + i, c, id);
    carry = static_cast<C>(c[0]);
    return i;
  }

#if LIBOPS_HAVE_STREAMING_STORES
  // run() for a 64-byte aligned z, whose whole 128-byte tiles go out as
  // streaming stores (Note [Streaming stores]); ends with a store fence.
  static int64_t run_streamed(const C* x, C* z, int64_t n, C& carry, C identity) {
    constexpr int64_t kTile = detail::kStreamTileBytes / int64_t(sizeof(C));
    static_assert(kTile == 4 * kLanes, "a tile is two pairs");
    const V id = splat(static_cast<W>(identity));
    V c = splat(static_cast<W>(carry));
    const bool wide = detail::stream_wide_tiles();
    int64_t i = 0;
    for (; i + kTile <= n; i += kTile) {
      alignas(64) C tile[kTile];
      pair(x + i, tile, c, id);
      pair(x + i + 2 * kLanes, tile + 2 * kLanes, c, id);
      detail::stream_tile(z + i, tile, wide);
    }
    _mm_sfence();
    carry = static_cast<C>(c[0]);
    return i;
  }
#endif
};

// Inclusive scan of x[0, n) into z, seeded with `carry` (updated). With
// `stream`, sums and products write z with streaming stores, from its
// first 64-byte boundary on.
template <ScanOp kOp, typename C>
void scan_row(const C* x, C* z, int64_t n, C& carry, C id, bool stream = false) {
  (void)stream;  // max and min store normally
  if constexpr (kOp == ScanOp::kSum || kOp == ScanOp::kProd) {
    int64_t done = 0;
#if LIBOPS_HAVE_STREAMING_STORES
    const auto address = reinterpret_cast<uintptr_t>(z);
    if (stream && address % sizeof(C) == 0) {
      const int64_t head = std::min<int64_t>(n, int64_t((64 - address % 64) % 64) / int64_t(sizeof(C)));
      for (; done < head; ++done) z[done] = carry = scan::combine<kOp>(carry, x[done]);
      done += LanePrefix<kOp, C>::run_streamed(x + done, z + done, n - done, carry, id);
    }
#endif
    done += LanePrefix<kOp, C>::run(x + done, z + done, n - done, carry, id);
    for (int64_t j = done; j < n; ++j) z[j] = carry = scan::combine<kOp>(carry, x[j]);
    return;
  }
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const int64_t len = std::min(kBlock, n - b0), seg = len / kSegments;
    const C* xb = x + b0;
    C* zb = z + b0;
    if (seg < 16) {  // short: one chain
      for (int64_t j = 0; j < len; ++j) zb[j] = carry = scan::combine<kOp>(carry, xb[j]);
      continue;
    }
    C acc[kSegments];
    for (int64_t s = 0; s < kSegments; ++s) acc[s] = s == 0 ? carry : id;
    for (int64_t j = 0; j < seg; ++j)
      for (int64_t s = 0; s < kSegments; ++s) zb[s * seg + j] = acc[s] = scan::combine<kOp>(acc[s], xb[s * seg + j]);
    // Segment s (> 0) still lacks the total of the segments before it.
    C before = acc[0];
    for (int64_t s = 1; s < kSegments; ++s) {
      C* zs = zb + s * seg;
      for (int64_t j = 0; j < seg; ++j) zs[j] = scan::combine<kOp>(before, zs[j]);
      before = zs[seg - 1];
    }
    for (int64_t j = kSegments * seg; j < len; ++j) zb[j] = before = scan::combine<kOp>(before, xb[j]);
    carry = before;
  }
}

// x[0] combined with every element up to x[n - 1]; sums and products in
// vector lanes.
template <ScanOp kOp, typename C>
C row_total(const C* x, int64_t n, C id) {
  C acc = id;
  int64_t j = 0;
  if constexpr (kOp == ScanOp::kSum || kOp == ScanOp::kProd) {
    using P = LanePrefix<kOp, C>;
    typename P::V lanes = P::splat(static_cast<typename P::W>(id));
    for (; j + P::kLanes <= n; j += P::kLanes) lanes = P::combine(lanes, P::load(x + j));
    for (int k = 0; k < P::kLanes; ++k) acc = scan::combine<kOp>(acc, static_cast<C>(lanes[k]));
  }
  for (; j < n; ++j) acc = scan::combine<kOp>(acc, x[j]);
  return acc;
}

// The row loops run compiled per instruction set (Note [Runtime ISA
// dispatch]): LanePrefix's 32-byte lanes are two SSE registers at the
// baseline, and cumsum ran at half speed there.
template <ScanOp kOp, typename C>
void scan_cpu_typed(const ScanDesc& d, const C* x, C* z) {
  const C id = scan::identity<C>(d);
  if (d.inner == 1) {
    const int64_t threads = std::max(1, get_num_threads());
    // An output larger than the last-level cache is streamed out: one
    // write per element where write-allocate made it a read and a write
    // (16M float32 at one thread: 4.3 -> 3.6 ms).
    const bool stream = d.outer * d.n * int64_t{sizeof(C)} >= streaming_store_threshold();
    if (d.outer < threads && d.n >= 65536 * threads) {
      // A long row, in spans small enough to stay in cache: per span, the
      // totals of its chunks (one read from memory), then each chunk
      // scanned from the total before it (the second read hits the cache).
      // Two whole-row passes would read the row from memory twice. One
      // team runs every span (Note [Thread teams]), one barrier each: the
      // totals alternate between two buffers, so a span's totals are not
      // overwritten before every thread has read them. Each thread folds
      // the totals itself, in the same order, so all agree on the carries.
      constexpr int64_t kSpan = int64_t{1} << 18;
      std::vector<C> totals(2 * static_cast<size_t>(threads), id);
      parallel_team(static_cast<int>(threads), [&](int t, int team) {
        int64_t span = 0;
        for (int64_t o = 0; o < d.outer; ++o) {
          const C* xr = x + o * d.n;
          C* zr = z + o * d.n;
          C carry_in = id;
          for (int64_t s0 = 0; s0 < d.n; s0 += kSpan, ++span) {
            C* total = totals.data() + (span % 2) * threads;
            const int64_t len = std::min(kSpan, d.n - s0), chunk = (len + team - 1) / team;
            const int64_t lo = std::min(len, t * chunk), hi = std::min(len, (t + 1) * chunk);
            total[t] = isa_dispatch([&] { return row_total<kOp>(xr + s0 + lo, hi - lo, id); });
            team_barrier();
            C carry = carry_in;
            for (int u = 0; u < t; ++u) carry = scan::combine<kOp>(carry, total[u]);
            if (lo < hi) isa_dispatch([&] { scan_row<kOp>(xr + s0 + lo, zr + s0 + lo, hi - lo, carry, id, stream); });
            for (int u = 0; u < team; ++u) carry_in = scan::combine<kOp>(carry_in, total[u]);
          }
        }
      });
      return;
    }
    parallel_for(d.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, d.n)), [&](int64_t b, int64_t e) {
      isa_dispatch([&] {
        for (int64_t o = b; o < e; ++o) {
          C carry = id;
          scan_row<kOp>(x + o * d.n, z + o * d.n, d.n, carry, id, stream);
        }
      });
    });
    return;
  }
  // inner > 1: rows of inner elements advance together.
  parallel_for(d.outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, d.n * d.inner)), [&](int64_t b, int64_t e) {
    isa_dispatch([&] {
      for (int64_t o = b; o < e; ++o) {
        const C* xo = x + o * d.n * d.inner;
        C* zo = z + o * d.n * d.inner;
        for (int64_t i = 0; i < d.inner; ++i) zo[i] = scan::combine<kOp>(id, xo[i]);
        for (int64_t j = 1; j < d.n; ++j) {
          const C* prev = zo + (j - 1) * d.inner;
          const C* xj = xo + j * d.inner;
          C* zj = zo + j * d.inner;
          for (int64_t i = 0; i < d.inner; ++i) zj[i] = scan::combine<kOp>(prev[i], xj[i]);
        }
      }
    });
  });
}

// Exclusive from inclusive: every row shifted one position, the identity first.
template <typename C>
void shift_exclusive(const ScanDesc& d, C* z, C id) {
  parallel_for(d.outer, 1, [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      C* zo = z + o * d.n * d.inner;
      if (d.n == 0) continue;
      std::copy_backward(zo, zo + (d.n - 1) * d.inner, zo + d.n * d.inner);
      std::fill(zo, zo + d.inner, id);
    }
  });
}

template <typename C>
void scan_cpu(const ScanDesc& d, const C* x, C* z) {
  switch (d.op) {
    case ScanOp::kSum: scan_cpu_typed<ScanOp::kSum>(d, x, z); break;
    case ScanOp::kProd: scan_cpu_typed<ScanOp::kProd>(d, x, z); break;
    case ScanOp::kMax: scan_cpu_typed<ScanOp::kMax>(d, x, z); break;
    case ScanOp::kMin: scan_cpu_typed<ScanOp::kMin>(d, x, z); break;
  }
  if (d.exclusive) shift_exclusive(d, z, scan::identity<C>(d));
}

// One scan along `axis` of x into z (both of x's shape).
Status scan_axis(const Context& block, ScanOp op, const NDArray& x_in, int axis, NDArray& z) {
  const bool reverse = block.i_arg(1) == 1;
  const DataType ct = scan_compute_dtype(x_in.dtype());
  NDArray x = x_in, zv = z;
  if (reverse) {
    RETURN_IF_ERROR(x.flip(axis, x));
    RETURN_IF_ERROR(zv.flip(axis, zv));
  }
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, ct, xd));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, zv, ct));
  ScanDesc d;
  d.op = op;
  d.exclusive = block.i_arg(0) == 1;
  d.n = x.dim(axis);
  switch (x.dtype()) {  // the identities of max and min in x's own range
    case DataType::kInt8: d.int_lowest = INT8_MIN, d.int_highest = INT8_MAX; break;
    case DataType::kInt16: d.int_lowest = INT16_MIN, d.int_highest = INT16_MAX; break;
    case DataType::kInt32: d.int_lowest = INT32_MIN, d.int_highest = INT32_MAX; break;
    case DataType::kInt64: d.int_highest = INT64_MAX; break;
    case DataType::kUInt8: d.int_highest = UINT8_MAX; break;
    case DataType::kUInt16: d.int_highest = UINT16_MAX; break;
    case DataType::kUInt32: d.int_highest = UINT32_MAX; break;
    default: break;
  }
  for (int k = 0; k < axis; ++k) d.outer *= x.dim(k);
  for (int k = axis + 1; k < x.rank(); ++k) d.inner *= x.dim(k);
  NDArray& t = out.target();
  if (block.device().is_cpu()) {
    switch (ct) {
      case DataType::kFloat32: scan_cpu(d, xd.data_as<float>(), t.data_as<float>()); break;
      case DataType::kFloat64: scan_cpu(d, xd.data_as<double>(), t.data_as<double>()); break;
      case DataType::kInt64: scan_cpu(d, xd.data_as<int64_t>(), t.data_as<int64_t>()); break;
      default: scan_cpu(d, xd.data_as<uint64_t>(), t.data_as<uint64_t>()); break;
    }
    t.buffer()->mark_host_written();
  } else {
    const ScanDeviceFn fn = scan_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, xd, t)));
  }
  return out.finish(block, zv);
}

Status scan_exec(Context& block, ScanOp op) {
  const NDArray& x = *block.input(0);
  NDArray* z = block.output(0);
  if (z->length() == 0) return Status::ok();
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("axes", given));
  if (given.empty()) {  // the whole array in C order, as one row
    NDArray flat_x, flat_z, dense_z = *z;
    RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), flat_x));
    RETURN_IF_ERROR(flat_x.reshape(Dims{x.length()}, flat_x));
    if (!z->is_c_contiguous()) RETURN_IF_ERROR(NDArray::create(z->dtype(), z->shape(), 'c', dense_z));
    RETURN_IF_ERROR(dense_z.reshape(Dims{x.length()}, flat_z));
    RETURN_IF_ERROR(scan_axis(block, op, flat_x, 0, flat_z));
    return dense_z.same_view(*z) ? Status::ok() : assign_on_device(block, *z, dense_z);
  }
  NDArray cur = x;
  for (size_t k = 0; k < given.size(); ++k) {
    const int axis = static_cast<int>(given[k] < 0 ? given[k] + x.rank() : given[k]);
    RETURN_IF_ERROR(scan_axis(block, op, cur, axis, *z));
    cur = *z;  // the next axis scans this result (scan_axis stages its input)
  }
  return Status::ok();
}

Status scan_shape(Context& block, ShapeList& shapes) {
  const NDArray* x = block.input(0);
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

void scan_types(OpDescriptor& descriptor) {
  // On a device through the backend's scan kernel (cumulative.cu).
  descriptor.allow_input(0, types::kNumeric).allow_input(1, types::kInt).runs_on_any_device();
}

void scan_signature(OpSignature& args, const char* result) {
  args.input("x", "numeric array");
  args.optional_input("axes", "the axes as an integer array, instead of i args");
  args.output("z", result);
  args.i_arg("exclusive", 0, "leave each element out of its own result (the first is the identity)").flag();
  args.i_arg("reverse", 0, "scan from the end of the axis").flag();
  args.i_list("axes", "the axes, scanned one after another; none = the whole array in C order").axis(0).or_input(1);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(cumsum, -1, 1, false, 0, 0) { return libops::ops::scan_exec(block, libops::ops::ScanOp::kSum); }
DECLARE_SHAPE_FN(cumsum) { return libops::ops::scan_shape(block, shapes); }
DECLARE_TYPES(cumsum) { libops::ops::scan_types(descriptor); }
DECLARE_ARGS(cumsum) {
  args.describe("Running sums along axes.");
  libops::ops::scan_signature(args, "the running sums, x's dtype");
}

CUSTOM_OP_IMPL(cumprod, -1, 1, false, 0, 0) { return libops::ops::scan_exec(block, libops::ops::ScanOp::kProd); }
DECLARE_SHAPE_FN(cumprod) { return libops::ops::scan_shape(block, shapes); }
DECLARE_TYPES(cumprod) { libops::ops::scan_types(descriptor); }
DECLARE_ARGS(cumprod) {
  args.describe("Running products along axes.");
  libops::ops::scan_signature(args, "the running products, x's dtype");
}

CUSTOM_OP_IMPL(cummax, -1, 1, false, 0, 0) { return libops::ops::scan_exec(block, libops::ops::ScanOp::kMax); }
DECLARE_SHAPE_FN(cummax) { return libops::ops::scan_shape(block, shapes); }
DECLARE_TYPES(cummax) { libops::ops::scan_types(descriptor); }
DECLARE_ARGS(cummax) {
  args.describe("Running maxima along axes; NaN propagates.");
  libops::ops::scan_signature(args, "the running maxima, x's dtype");
}

CUSTOM_OP_IMPL(cummin, -1, 1, false, 0, 0) { return libops::ops::scan_exec(block, libops::ops::ScanOp::kMin); }
DECLARE_SHAPE_FN(cummin) { return libops::ops::scan_shape(block, shapes); }
DECLARE_TYPES(cummin) { libops::ops::scan_types(descriptor); }
DECLARE_ARGS(cummin) {
  args.describe("Running minima along axes; NaN propagates.");
  libops::ops::scan_signature(args, "the running minima, x's dtype");
}
