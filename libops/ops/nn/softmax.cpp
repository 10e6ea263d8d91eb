// softmax: z = exp(x - max) / sum(exp(x - max)) along one axis, and
// log_softmax (log_softmax.cpp): z = x - max - log(sum(exp(x - max))), from
// the same row loops (softmax.h).
//
//   input   x: float16, bfloat16, float32 or float64, rank >= 1, any strides
//   i arg   axis (optional, default -1; negative counts from the end)
//   output  z: x's dtype and shape; may run in place
//
// Subtracting the row maximum first keeps exp() from overflowing (inputs of
// 1000 are fine) and is exact in value. Each row along the axis is loaded
// into a buffer of the compute type (float, or double for float64), so the
// same code serves every layout and the op can run in place. A row holding
// +inf gives NaN (inf - inf), a row of all -inf gives NaN (0 / 0), as in
// numpy-based references.
//
// On another device the fused kernel its backend registered runs (Note
// [Softmax on CUDA] in softmax.cu), else legacy kernels on that device;
// never the host.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <vector>

#include "libops/core/cpu_isa.h"
#include "libops/core/fast_math.h"
#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/loops/convert.h"
#include "libops/loops/nd_loop.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nn/softmax.h"

namespace libops::ops {

DeviceKernel<SoftmaxDeviceFn> softmax_device_kernel;

namespace {

Status softmax_axis(Context& block, const NDArray& x, int& axis) {
  const int64_t a = block.i_arg(0);  // an axis of x (the signature checked it)
  axis = static_cast<int>(a < 0 ? a + x.rank() : a);
  return Status::ok();
}

// Note [Softmax NaNs]
// exp that vectorizes for float (core/fast_math.h; the C library's for
// double), and the max of reduce_max, NaN if either side is, in the form
// the compiler vectorizes: a NaN in a row makes the row's max NaN, and in
// any case exp(NaN - max) makes the sum NaN, so every output of the row is
// NaN, as numpy's softmax gives. So are rows with +inf (inf - inf) or all
// -inf (-inf - -inf).
using legacy::fn::transform_strict::exp_c;
using legacy::fn::max_nan;

#if LIBOPS_HAVE_EXP_F32_X8
// The exponentials of a float row and their sums in 16 lanes, with the
// hand-vectorized exp of core/fast_math.h (bit for bit exp_c at this
// level): the lanes of softmax_row's generic loop, in registers. Stores
// them to z unless kLog; returns the elements done (whole groups of 16).
template <bool kLog>
LIBOPS_TARGET_AVX2 int64_t exp_sum_f32_avx2(const float* x, float* z, int64_t n, float mx, float* lane) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  const __m256 m = _mm256_set1_ps(mx);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 e0 = exp_f32_x8(_mm256_sub_ps(_mm256_loadu_ps(x + i), m));
    const __m256 e1 = exp_f32_x8(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), m));
    if constexpr (!kLog) {
      _mm256_storeu_ps(z + i, e0);
      _mm256_storeu_ps(z + i + 8, e1);
    }
    s0 = _mm256_add_ps(s0, e0);
    s1 = _mm256_add_ps(s1, e1);
  }
  _mm256_storeu_ps(lane, s0);
  _mm256_storeu_ps(lane + 8, s1);
  return i;
}

// The same with 16-lane exps (exp_f32_x16) where cpu_isa() is avx512; lane
// k sums elements k and 16 + k of each group of 32.
template <bool kLog>
LIBOPS_TARGET_AVX512 int64_t exp_sum_f32_avx512(const float* x, float* z, int64_t n, float mx, float* lane) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  const __m512 m = _mm512_set1_ps(mx);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 e0 = exp_f32_x16(_mm512_sub_ps(_mm512_loadu_ps(x + i), m));
    const __m512 e1 = exp_f32_x16(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), m));
    if constexpr (!kLog) {
      _mm512_storeu_ps(z + i, e0);
      _mm512_storeu_ps(z + i + 16, e1);
    }
    s0 = _mm512_add_ps(s0, e0);
    s1 = _mm512_add_ps(s1, e1);
  }
  _mm512_storeu_ps(lane, _mm512_add_ps(s0, s1));
  return i;
}

// The max of x[0, n) for float rows at avx2 and above, in four chains of
// plain max instructions. A NaN may be dropped from the max here (the
// instruction returns its second operand when either is NaN), but it
// still makes exp(x - max), the sum and so every output of the row NaN,
// as Note [Softmax NaNs] wants. max_nan's compare and two blends in one
// chain of 16 lanes bound the whole softmax: [1024, 1000] at one thread
// ran at 13 GB/s, 18.6 with this.
LIBOPS_TARGET_AVX2 float row_max_f32_avx2(const float* x, int64_t n) {
  float mx = x[0];
  int64_t i = 0;
  if (n >= 32) {
    __m256 m0 = _mm256_loadu_ps(x), m1 = _mm256_loadu_ps(x + 8), m2 = _mm256_loadu_ps(x + 16),
           m3 = _mm256_loadu_ps(x + 24);
    for (i = 32; i + 32 <= n; i += 32) {
      m0 = _mm256_max_ps(_mm256_loadu_ps(x + i), m0);
      m1 = _mm256_max_ps(_mm256_loadu_ps(x + i + 8), m1);
      m2 = _mm256_max_ps(_mm256_loadu_ps(x + i + 16), m2);
      m3 = _mm256_max_ps(_mm256_loadu_ps(x + i + 24), m3);
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3)));
    for (float v : lanes) mx = max_nan(mx, v);
  }
  for (; i < n; ++i) mx = max_nan(mx, x[i]);
  return mx;
}
#endif

// Softmax of one row of n values, x into z (which may be x). The max and
// the sum run in kLanes independent lanes, which the compiler keeps in
// vector registers (a single running max or float sum would be a scalar
// dependency chain).
constexpr int64_t kLanes = 16;

// The row's max: NaN if any element is, except in row_max_f32_avx2 (its
// note says why that is enough).
template <typename C>
C row_max(const C* x, int64_t n) {
#if LIBOPS_HAVE_EXP_F32_X8
  if constexpr (std::is_same_v<C, float>)
    if (cpu_isa() != CpuIsa::kBaseline) return row_max_f32_avx2(x, n);
#endif
  C lane[kLanes];
  for (int64_t k = 0; k < kLanes; ++k) lane[k] = x[0];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) lane[k] = max_nan(lane[k], x[i + k]);
  C mx = lane[0];
  for (int64_t k = 1; k < kLanes; ++k) mx = max_nan(mx, lane[k]);
  for (; i < n; ++i) mx = max_nan(mx, x[i]);
  return mx;
}

// z = exp(x - max(x)) (with kLog only summed: x stays readable when z is
// x); returns the sum of the exponentials and sets mx to the max.
template <typename C, bool kLog>
C exp_row(const C* x, C* z, int64_t n, C& mx_out) {
  const C mx = row_max(x, n);
  mx_out = mx;
  C lane[kLanes];
  int64_t i = 0;

  for (int64_t k = 0; k < kLanes; ++k) lane[k] = 0;
  i = 0;
#if LIBOPS_HAVE_EXP_F32_X8
  if constexpr (std::is_same_v<C, float>) {
    if (cpu_isa() == CpuIsa::kAvx512) i = exp_sum_f32_avx512<kLog>(x, z, n, mx, lane);
    else if (cpu_isa() != CpuIsa::kBaseline) i = exp_sum_f32_avx2<kLog>(x, z, n, mx, lane);
  }
#endif
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t k = 0; k < kLanes; ++k) {
      const C e = exp_c(x[i + k] - mx);
      if constexpr (!kLog) z[i + k] = e;
      lane[k] += e;
    }
  C sum = 0;
  for (int64_t k = 0; k < kLanes; ++k) sum += lane[k];
  for (; i < n; ++i) {
    const C e = exp_c(x[i] - mx);
    if constexpr (!kLog) z[i] = e;
    sum += e;
  }
  return sum;
}

// With kLog, log_softmax: z = x - (max + log(sum)).
template <typename C, bool kLog>
void softmax_row(const C* x, C* z, int64_t n) {
  C mx;
  const C sum = exp_row<C, kLog>(x, z, n, mx);
  int64_t i;
  if constexpr (kLog) {
    const C off = mx + std::log(sum);
    for (i = 0; i < n; ++i) z[i] = x[i] - off;
  } else {
    const C inv = C(1) / sum;
    for (i = 0; i < n; ++i) z[i] *= inv;
  }
}

// Softmax of g interleaved rows in place: v[i * g + r] is element i of row
// r. Same arithmetic per row as softmax_row, vectorized across the rows.
template <typename C, bool kLog>
void softmax_rows_interleaved(C* v, int64_t n, int64_t g, C* mx, C* sum) {
  for (int64_t r = 0; r < g; ++r) mx[r] = v[r];
  for (int64_t i = 1; i < n; ++i)
    for (int64_t r = 0; r < g; ++r) mx[r] = max_nan(mx[r], v[i * g + r]);
  for (int64_t r = 0; r < g; ++r) sum[r] = 0;
  if constexpr (kLog) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t r = 0; r < g; ++r) sum[r] += exp_c(v[i * g + r] - mx[r]);
    for (int64_t r = 0; r < g; ++r) sum[r] = mx[r] + std::log(sum[r]);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t r = 0; r < g; ++r) v[i * g + r] -= sum[r];
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t r = 0; r < g; ++r) {
      v[i * g + r] = exp_c(v[i * g + r] - mx[r]);
      sum[r] += v[i * g + r];
    }
  for (int64_t r = 0; r < g; ++r) sum[r] = C(1) / sum[r];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t r = 0; r < g; ++r) v[i * g + r] *= sum[r];
}

// Softmax on a device, from legacy kernels that run there: m = max(x) along
// the axis (kept dims), z = exp(x - m), s = sum(z), z = z / s. The same
// values as the CPU loop up to rounding (it multiplies by 1 / s), and the
// same NaN behaviour (max propagates NaN; inf - inf is NaN). log_softmax:
// z = x - m, e = exp(z) in a scratch array, s = log(sum(e)), z = z - s.
Status softmax_on_device(const NDArray& x, NDArray& z, int axis, Device device, bool log) {
  const int64_t ax = axis;
  Dims kept = x.shape();
  kept[axis] = 1;
  NDArray m, s;
  RETURN_IF_ERROR(NDArray::create(x.dtype(), kept, 'c', m));
  RETURN_IF_ERROR(NDArray::create(x.dtype(), kept, 'c', s));
  auto call = [&](int group, int num, const NDArray* a, const NDArray* b, NDArray* out, bool reduce) {
    legacy::LegacyCall c;
    c.group = group;
    c.num = num;
    c.x = a;
    c.y = b;
    c.z = out;
    c.device = device;
    if (reduce) {
      c.axes = &ax;
      c.n_axes = 1;
    }
    return legacy::exec(c);
  };
  RETURN_IF_ERROR(call(OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::max), &x, nullptr, &m, true));
  RETURN_IF_ERROR(call(OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::subtract), &x, &m, &z, false));
  if (log) {
    NDArray e;
    RETURN_IF_ERROR(NDArray::create(x.dtype(), x.shape(), 'c', e));
    RETURN_IF_ERROR(call(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::exp), &z, nullptr, &e, false));
    RETURN_IF_ERROR(call(OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::sum), &e, nullptr, &s, true));
    RETURN_IF_ERROR(call(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::log), &s, nullptr, &s, false));
    return call(OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::subtract), &z, &s, &z, false);
  }
  RETURN_IF_ERROR(call(OPS_TRANSFORM_STRICT, static_cast<int>(legacy::TransformStrictOp::exp), &z, nullptr, &z, false));
  RETURN_IF_ERROR(call(OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::sum), &z, nullptr, &s, true));
  return call(OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::divide), &z, &s, &z, false);
}

// softmax (or log_softmax) on block.device(): the device's fused kernel
// when its backend registered one, else the legacy kernels above.
Status softmax_device_exec(Context& block, const NDArray& x, NDArray& z, int axis, bool log) {
  const SoftmaxDeviceFn kernel = softmax_device_kernel.get(block.device().type);
  if (kernel == nullptr) return with_op_name(block, softmax_on_device(x, z, axis, block.device(), log));
  SoftmaxDesc desc;
  desc.n = x.dim(axis);
  for (int d = 0; d < axis; ++d) desc.outer *= x.dim(d);
  for (int d = axis + 1; d < x.rank(); ++d) desc.inner *= x.dim(d);
  desc.dtype = x.dtype();
  desc.log = log;
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, desc.dtype, xd));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, desc.dtype));
  RETURN_IF_ERROR(with_op_name(block, kernel(block.device(), desc, xd, out.target())));
  return out.finish(block, z);
}

// Rows handled together when they interleave in memory (the axis is not the
// innermost one): one cache line of neighbouring rows per load.
constexpr int64_t kRowGroup = 16;

template <typename C, bool kLog>
void softmax_run(const NDArray& x, NDArray& z, int axis) {
  const int64_t len = x.dim(axis);
  const int64_t xs = x.strides()[axis] * static_cast<int64_t>(x.element_size());
  const int64_t zs = z.strides()[axis] * static_cast<int64_t>(z.element_size());
  const LoadFn<C> load = load_fn<C>(x.dtype());
  const StoreFn<C> store = store_fn<C>(z.dtype());
  constexpr int64_t kItem = sizeof(C);
  const bool direct = x.dtype() == dtype_of<C>::value && z.dtype() == dtype_of<C>::value && xs == kItem && zs == kItem;
  // The loop visits the first element of every row: x's shape with the
  // axis reduced to 1.
  Dims outer = x.shape();
  outer[axis] = 1;
  NdLoop<2> loop;
  loop.init(outer);
  loop.set_operand(0, z.data(), z.strides(), static_cast<int64_t>(z.element_size()));
  loop.set_operand(1, x.data(), x.strides(), static_cast<int64_t>(x.element_size()));
  loop.coalesce();
  const int64_t grain = std::max<int64_t>(1, 16384 / len);
  parallel_for(loop.count(), grain, [&](int64_t begin, int64_t end) {
    std::vector<C> buf;
    C mx[kRowGroup], sum[kRowGroup];
    loop.run(begin, end, [&](char* const* p, const int64_t* s, int64_t count) {
      // Neighbouring rows closer together than the elements of one row:
      // load them side by side, so each load reads contiguous memory.
      const bool interleaved = count > 1 && std::abs(s[1]) < std::abs(xs);
      if (interleaved) {
        buf.resize(static_cast<size_t>(len * kRowGroup));
        for (int64_t r0 = 0; r0 < count; r0 += kRowGroup) {
          const int64_t g = std::min(kRowGroup, count - r0);
          for (int64_t i = 0; i < len; ++i) load(p[1] + r0 * s[1] + i * xs, s[1], g, buf.data() + i * g);
          isa_dispatch([&] { softmax_rows_interleaved<C, kLog>(buf.data(), len, g, mx, sum); });
          for (int64_t i = 0; i < len; ++i) store(buf.data() + i * g, p[0] + r0 * s[0] + i * zs, s[0], g);
        }
        return;
      }
      // Rows that are dense in the compute type on both sides need no
      // staging buffer. The row loops run compiled for cpu_isa() (Note
      // [Runtime ISA dispatch]).
      if (direct) {
        isa_dispatch([&] {
          for (int64_t r = 0; r < count; ++r)
            softmax_row<C, kLog>(reinterpret_cast<const C*>(p[1] + r * s[1]), reinterpret_cast<C*>(p[0] + r * s[0]),
                                 len);
        });
        return;
      }
      buf.resize(static_cast<size_t>(len));
      for (int64_t r = 0; r < count; ++r) {
        load(p[1] + r * s[1], xs, len, buf.data());
        isa_dispatch([&] { softmax_row<C, kLog>(buf.data(), buf.data(), len); });
        store(buf.data(), p[0] + r * s[0], zs, len);
      }
    });
  });
}

}  // namespace

void softmax_row_f32(const float* x, float* z, int64_t n) {
  isa_dispatch([&] { softmax_row<float, false>(x, z, n); });
}

float softmax_exp_row_f32(const float* x, float* z, int64_t n) {
  return isa_dispatch([&] {
    float mx;
    return exp_row<float, false>(x, z, n, mx);
  });
}

Status softmax_exec(Context& block, bool log) {
  const NDArray* x = block.input(0);
  NDArray* z = block.output(0);
  int axis = 0;
  RETURN_IF_ERROR(softmax_axis(block, *x, axis));
  if (x->length() == 0) return Status::ok();
  // A supplied output that shares memory with x in another layout would be
  // read after being written: work from a copy then.
  NDArray src = *x;
  if (z->may_overlap(*x) && !z->same_view(*x)) {
    RETURN_IF_ERROR(x->buffer()->sync_to_host());  // dup copies on the host
    RETURN_IF_ERROR(x->dup('c', src));
  }
  if (!block.device().is_cpu()) return softmax_device_exec(block, src, *z, axis, log);
  const bool f64 = x->dtype() == DataType::kFloat64;
  if (log) f64 ? softmax_run<double, true>(src, *z, axis) : softmax_run<float, true>(src, *z, axis);
  else f64 ? softmax_run<double, false>(src, *z, axis) : softmax_run<float, false>(src, *z, axis);
  return Status::ok();
}

Status softmax_shape(Context& block, ShapeList& shapes) {
  const NDArray* x = block.input(0);
  int axis = 0;
  RETURN_IF_ERROR(softmax_axis(block, *x, axis));
  shapes.push_back(TensorShape{x->dtype(), x->shape(), 'c'});
  return Status::ok();
}

}  // namespace libops::ops

CUSTOM_OP_IMPL(softmax, 1, 1, true, 0, 0) { return libops::ops::softmax_exec(block, false); }

DECLARE_SHAPE_FN(softmax) { return libops::ops::softmax_shape(block, shapes); }

DECLARE_TYPES(softmax) {
  // On a device through its fused kernel or legacy kernels (softmax_device_exec).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(softmax) {
  args.describe("Softmax along an axis.");
  args.input("x", "the logits, rank >= 1");
  args.output("z", "exp(x) / sum(exp(x)) along axis; a row with a NaN is all NaN");
  args.i_arg("axis", -1, "the axis to normalise over").axis(0);
}
