// Discrete Fourier transforms on CUDA devices through cuFFT (compiled in
// CUDA builds only; registers itself with register_device_fft when the
// library loads). Conventions as in Note [DFT conventions] (fft.h).
//
// A cuFFT plan is costly to make (it picks kernels and allocates its work
// area), so each thread keeps the plans it made, keyed by everything a plan
// fixes, and binds a plan to its launch context's stream before each use.
// [outer, n, inner] data is a cuFFT "advanced layout": with inner == 1 one
// launch does every signal (distance n); otherwise the signals are strided
// (stride inner) and one launch covers a row of them, repeated along the
// shorter of outer and inner. Real data that a launch would start at an
// address cuFFT refuses is staged first (Note [Aligned real signals]). cuFFT leaves transforms unnormalised: the
// scale is cuBLAS's scal over a complex result. The complex-to-real transform
// overwrites its input, so its bins are first staged in the launch context's
// workspace by a small kernel (stage_bins_kernel), which also makes them
// what cuFFT assumes they are and applies the scale (Note [Staging
// complex-to-real bins]).
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "blas/fft.h"
#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"

namespace libops::blas {

namespace {

// Where the signals of a [outer, len, inner] array are for cuFFT: `batch`
// signals per launch `dist` elements apart, each with elements `stride`
// apart; `launches` launches `step` elements apart.
struct Layout {
  long long stride, dist, batch, launches, step;
};

Layout layout_of(int64_t outer, int64_t len, int64_t inner) {
  if (inner == 1) return {1, len, outer, 1, 0};
  if (outer <= inner) return {inner, 1, inner, outer, len * inner};  // a launch per outer index
  return {inner, len * inner, outer, inner, 1};                       // a launch per inner index
}

// Note [Aligned real signals]
// cuFFT refuses (CUFFT_INVALID_VALUE) a real-to-complex input or a
// complex-to-real output that does not start on a complex element's
// alignment, 2 reals. With a launch per inner index the real side's launches
// start 1 real apart, and with a launch per outer index n * inner reals
// apart, so half of them can be misaligned (seen on an H200: rfft of
// [5, 12, 3] along axis 1). Such real data goes through a scratch copy laid
// out [inner, pitch] with signal (o, i) at i * pitch + o * n and the pitch
// (outer * n) rounded up to even: a launch per inner index, each starting
// aligned, and the complex side read or written in place as before.
bool launches_aligned(const Layout& l, const void* base, size_t item) {
  const size_t align = 2 * item;
  if (reinterpret_cast<uintptr_t>(base) % align != 0) return false;
  return l.launches == 1 || (static_cast<size_t>(l.step) * item) % align == 0;
}

struct StagedReal {
  Layout real, complex;
  int64_t pitch;  // reals between two inner indexes' runs of signals
};

StagedReal staged_real_layouts(int64_t outer, int64_t n, int64_t h, int64_t inner) {
  const int64_t pitch = outer * n + (outer * n) % 2;
  return {Layout{1, n, outer, inner, pitch}, Layout{inner, h * inner, outer, inner, 1}, pitch};
}

// Between [outer, n, inner] (dense) and the staged [inner, pitch] layout.
template <typename Real>
__global__ void stage_real_kernel(const Real* __restrict__ from, Real* __restrict__ to, int64_t outer, int64_t n,
                                  int64_t inner, int64_t pitch, bool to_staged) {
  const int64_t total = outer * n * inner, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < total; c += step) {
    const int64_t i = c % inner, row = c / inner, k = row % n, o = row / n;  // dense [o, k, i]
    const int64_t staged = i * pitch + o * n + k;
    if (to_staged) to[staged] = from[c];
    else to[c] = from[staged];
  }
}

Status stage_real(cudaStream_t stream, DataType dtype, const void* from, void* to, int64_t outer, int64_t n,
                  int64_t inner, int64_t pitch, bool to_staged) {
  constexpr int kThreads = 256;
  const int64_t total = outer * n * inner;
  const unsigned blocks = static_cast<unsigned>(std::clamp<int64_t>((total + kThreads - 1) / kThreads, 1, 65536));
  if (dtype == DataType::kFloat32)
    stage_real_kernel<float><<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(from), static_cast<float*>(to),
                                                              outer, n, inner, pitch, to_staged);
  else
    stage_real_kernel<double><<<blocks, kThreads, 0, stream>>>(static_cast<const double*>(from),
                                                               static_cast<double*>(to), outer, n, inner, pitch,
                                                               to_staged);
  LIBOPS_CUDA_CHECK_LAUNCH("fft: real staging kernel launch");
  return Status::ok();
}

struct PlanKey {
  int device;
  cufftType type;
  long long n, in_len, out_len, istride, idist, ostride, odist, batch;
  bool operator==(const PlanKey&) const = default;
};

// The calling thread's plans, destroyed with the thread.
class PlanCache {
 public:
  ~PlanCache() {
    for (auto& [key, plan] : plans_) cufftDestroy(plan);
  }

  Status get(const PlanKey& key, cudaStream_t stream, cufftHandle* out) {
    auto it = std::find_if(plans_.begin(), plans_.end(), [&](const auto& entry) { return entry.first == key; });
    if (it == plans_.end()) {
      if (plans_.size() >= kMaxPlans) {  // the oldest goes; cufftDestroy waits for its work
        cufftDestroy(plans_.front().second);
        plans_.erase(plans_.begin());
      }
      cufftHandle plan = 0;
      LIBOPS_CUFFT_CHECK(cufftCreate(&plan));
      long long n = key.n, in_embed = key.in_len, out_embed = key.out_len;
      size_t work = 0;
      const cufftResult made = cufftMakePlanMany64(plan, 1, &n, &in_embed, key.istride, key.idist, &out_embed,
                                                   key.ostride, key.odist, key.type, key.batch, &work);
      if (made != CUFFT_SUCCESS) {
        cufftDestroy(plan);
        return cuda::cufft_error(made, "cufftMakePlanMany64");
      }
      plans_.emplace_back(key, plan);
      it = plans_.end() - 1;
    }
    LIBOPS_CUFFT_CHECK(cufftSetStream(it->second, stream));
    *out = it->second;
    return Status::ok();
  }

 private:
  static constexpr size_t kMaxPlans = 32;
  std::vector<std::pair<PlanKey, cufftHandle>> plans_;
};

Status check_dtype(const char* what, int device_index, DataType dtype) {
  if (dtype == DataType::kFloat32 || dtype == DataType::kFloat64) return Status::ok();
  return Status::error(StatusCode::kNotImplemented, "%s on cuda:%d: dtype %s is not supported (float32, float64 are)",
                       what, device_index, dtype_name(dtype));
}

// cuFFT reads complex data as float2 / double2.
Status check_aligned(const char* what, int device_index, const void* p, size_t bytes) {
  if (reinterpret_cast<uintptr_t>(p) % bytes == 0) return Status::ok();
  return Status::error(StatusCode::kNotImplemented, "%s on cuda:%d: cuFFT needs complex data aligned to %zu bytes",
                       what, device_index, bytes);
}

// The plan for `type` over [outer, n, inner] read as `in` and written as
// `out` layouts (lengths in_len and out_len along the axis).
Status plan_for(cuda::LaunchContext* ctx, cufftType type, int64_t n, const Layout& in, int64_t in_len,
                const Layout& out, int64_t out_len, cufftHandle* plan) {
  thread_local PlanCache cache;
  const PlanKey key{ctx->device(), type, n, in_len, out_len, in.stride, in.dist, out.stride, out.dist, in.batch};
  return cache.get(key, ctx->stream(), plan);
}

Status scale_result(cuda::LaunchContext* ctx, DataType dtype, void* data, int64_t reals, double scale) {
  if (scale == 1.0) return Status::ok();
  cublasHandle_t handle = nullptr;
  RETURN_IF_ERROR(ctx->cublas(&handle));
  if (dtype == DataType::kFloat32) {
    const float s = static_cast<float>(scale);
    LIBOPS_CUBLAS_CHECK(cublasSscal_64(handle, reals, &s, static_cast<float*>(data), 1));
  } else {
    LIBOPS_CUBLAS_CHECK(cublasDscal_64(handle, reals, &scale, static_cast<double*>(data), 1));
  }
  return Status::ok();
}

// `exec(in + l * in.step, out + l * out.step)` for each launch l (offsets in
// elements of the given sizes).
template <typename Exec>
Status each_launch(const Layout& in, size_t in_item, const void* in_data, const Layout& out, size_t out_item,
                   void* out_data, Exec exec) {
  for (long long l = 0; l < in.launches; ++l) {
    const cufftResult r = exec(const_cast<char*>(static_cast<const char*>(in_data)) + l * in.step * in_item,
                               static_cast<char*>(out_data) + l * out.step * out_item);
    if (r != CUFFT_SUCCESS) return cuda::cufft_error(r, "cufftExec");
  }
  return Status::ok();
}

Status cuda_c2c(int device_index, DataType dtype, bool inverse, int64_t outer, int64_t n, int64_t inner,
                const void* in, void* out, double scale) {
  RETURN_IF_ERROR(check_dtype("fft c2c", device_index, dtype));
  const bool f32 = dtype == DataType::kFloat32;
  const size_t complex_item = 2 * dtype_size(dtype);
  RETURN_IF_ERROR(check_aligned("fft c2c", device_index, in, complex_item));
  RETURN_IF_ERROR(check_aligned("fft c2c", device_index, out, complex_item));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  const Layout layout = layout_of(outer, n, inner);
  cufftHandle plan = 0;
  RETURN_IF_ERROR(plan_for(ctx, f32 ? CUFFT_C2C : CUFFT_Z2Z, n, layout, n, layout, n, &plan));
  const int direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  // Out of place, cuFFT's C2C leaves its input as it was.
  RETURN_IF_ERROR(each_launch(layout, complex_item, in, layout, complex_item, out, [&](void* x, void* z) {
    return f32 ? cufftExecC2C(plan, static_cast<cufftComplex*>(x), static_cast<cufftComplex*>(z), direction)
               : cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(x), static_cast<cufftDoubleComplex*>(z),
                              direction);
  }));
  return scale_result(ctx, dtype, out, 2 * outer * n * inner, scale);
}

Status cuda_r2c(int device_index, DataType dtype, int64_t outer, int64_t n, int64_t inner, const void* in,
                void* out) {
  RETURN_IF_ERROR(check_dtype("fft r2c", device_index, dtype));
  const bool f32 = dtype == DataType::kFloat32;
  const size_t real_item = dtype_size(dtype);
  RETURN_IF_ERROR(check_aligned("fft r2c", device_index, out, 2 * real_item));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  const int64_t h = real_fft_bins(n);
  Layout in_layout = layout_of(outer, n, inner), out_layout = layout_of(outer, h, inner);
  if (!launches_aligned(in_layout, in, real_item)) {  // Note [Aligned real signals]
    const StagedReal staged = staged_real_layouts(outer, n, h, inner);
    void* scratch = nullptr;
    RETURN_IF_ERROR(ctx->workspace(static_cast<size_t>(inner * staged.pitch) * real_item, &scratch));
    RETURN_IF_ERROR(stage_real(ctx->stream(), dtype, in, scratch, outer, n, inner, staged.pitch, true));
    in = scratch;
    in_layout = staged.real;
    out_layout = staged.complex;
  }
  cufftHandle plan = 0;
  RETURN_IF_ERROR(plan_for(ctx, f32 ? CUFFT_R2C : CUFFT_D2Z, n, in_layout, n, out_layout, h, &plan));
  return each_launch(in_layout, real_item, in, out_layout, 2 * real_item, out, [&](void* x, void* z) {
    return f32 ? cufftExecR2C(plan, static_cast<cufftReal*>(x), static_cast<cufftComplex*>(z))
               : cufftExecD2Z(plan, static_cast<cufftDoubleReal*>(x), static_cast<cufftDoubleComplex*>(z));
  });
}

// Note [Staging complex-to-real bins]
// cuFFT's C2R assumes a Hermitian spectrum: bin 0 and, for even n, bin n / 2
// real. Given imaginary parts there its result is undefined and has changed
// between cuFFT versions, while numpy (and our CPU code) ignore them. So the
// staging copy writes those imaginary parts as zeros, along with cropping or
// zero-padding the m bins to h and multiplying them by the inverse's scale
// (the transform is linear, so that is the scaled result up to rounding, and
// no pass over the output is needed): one pass over [outer, h, inner] that
// reads `in` once and writes the workspace once.
template <typename Real>
__global__ void stage_bins_kernel(const Real* __restrict__ in, Real* __restrict__ bins, int64_t m, int64_t h,
                                  int64_t inner, int64_t total, bool last_bin_real, Real scale) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < total; c += step) {
    const int64_t i = c % inner, row = c / inner, k = row % h, o = row / h;  // bins[o, k, i]
    Real re = 0, im = 0;
    if (k < m) {
      const Real* src = in + 2 * ((o * m + k) * inner + i);
      re = src[0];
      im = src[1];
    }
    if (k == 0 || (last_bin_real && k == h - 1)) im = 0;
    bins[2 * c] = re * scale;
    bins[2 * c + 1] = im * scale;
  }
}

template <typename Real>
Status stage_bins(cudaStream_t stream, int64_t outer, int64_t m, int64_t n, int64_t inner, const void* in,
                  void* bins, double scale) {
  constexpr int kThreads = 256;
  const int64_t h = real_fft_bins(n), total = outer * h * inner;
  const int64_t blocks = std::clamp<int64_t>((total + kThreads - 1) / kThreads, 1, 65536);
  stage_bins_kernel<Real><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const Real*>(in), static_cast<Real*>(bins), m, h, inner, total, n % 2 == 0,
      static_cast<Real>(scale));
  LIBOPS_CUDA_CHECK_LAUNCH("fft c2r: staging kernel launch");
  return Status::ok();
}

Status cuda_c2r(int device_index, DataType dtype, int64_t outer, int64_t m, int64_t n, int64_t inner, const void* in,
                void* out, double scale) {
  RETURN_IF_ERROR(check_dtype("fft c2r", device_index, dtype));
  const bool f32 = dtype == DataType::kFloat32;
  const size_t real_item = dtype_size(dtype), complex_item = 2 * real_item;
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  // The bins cuFFT may overwrite, [outer, h, inner]
  // (Note [Staging complex-to-real bins]).
  const int64_t h = real_fft_bins(n);
  Layout in_layout = layout_of(outer, h, inner), out_layout = layout_of(outer, n, inner);
  const bool staged_out = !launches_aligned(out_layout, out, real_item);  // Note [Aligned real signals]
  const StagedReal staged = staged_real_layouts(outer, n, h, inner);
  if (staged_out) {
    in_layout = staged.complex;
    out_layout = staged.real;
  }
  // One workspace: the bins, then (staged) the real results.
  const size_t bins_bytes = (static_cast<size_t>(outer * h * inner) * complex_item + 255) / 256 * 256;
  const size_t real_bytes = staged_out ? static_cast<size_t>(inner * staged.pitch) * real_item : 0;
  void* bins = nullptr;
  RETURN_IF_ERROR(ctx->workspace(bins_bytes + real_bytes, &bins));
  void* results = staged_out ? static_cast<char*>(bins) + bins_bytes : out;
  RETURN_IF_ERROR(f32 ? stage_bins<float>(ctx->stream(), outer, m, n, inner, in, bins, scale)
                      : stage_bins<double>(ctx->stream(), outer, m, n, inner, in, bins, scale));
  cufftHandle plan = 0;
  RETURN_IF_ERROR(plan_for(ctx, f32 ? CUFFT_C2R : CUFFT_Z2D, n, in_layout, h, out_layout, n, &plan));
  RETURN_IF_ERROR(each_launch(in_layout, complex_item, bins, out_layout, real_item, results, [&](void* x, void* z) {
    return f32 ? cufftExecC2R(plan, static_cast<cufftComplex*>(x), static_cast<cufftReal*>(z))
               : cufftExecZ2D(plan, static_cast<cufftDoubleComplex*>(x), static_cast<cufftDoubleReal*>(z));
  }));
  if (!staged_out) return Status::ok();
  return stage_real(ctx->stream(), dtype, results, out, outer, n, inner, staged.pitch, false);
}

const DeviceFft kCudaFft{cuda_c2c, cuda_r2c, cuda_c2r};

[[maybe_unused]] const bool kRegistered = [] {
  register_device_fft(DeviceType::kCuda, &kCudaFft);
  return true;
}();

}  // namespace

}  // namespace libops::blas
