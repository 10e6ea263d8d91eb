// conv2d, deconv2d, maxpool2d, avgpool2d and batchnorm on CUDA devices through
// cuDNN's legacy descriptor API (compiled in CUDA builds only; registers
// itself as the CUDA NnDeviceOps when the library loads, Note [nn ops on
// devices] in ops/nn/nn_device.h).
//
// Every call runs on the calling thread's LaunchContext stream and cuDNN
// handle; inputs are synced to the device, the output is written whole and
// marked newest there. What each usable function checks, and why:
//   dtype    float32, float64, float16, bfloat16 (cuDNN's FLOAT, DOUBLE,
//            HALF, BFLOAT16); anything else is refused.
//   extents  cuDNN takes int extents and at most 2^31 - 1 elements per
//            tensor; larger calls are refused.
//   padding  cuDNN pads both sides of a dim equally. Explicit padding always
//            is; SAME padding is when its total is even. An odd total (one
//            more row at the bottom or column on the right) is refused.
//   pooling  no dilation in cuDNN's pooling: dH, dW > 1 are refused.
// Semantics kept equal to the CPU:
//   conv2d   cross-correlation; float16/bfloat16 accumulate in float
//            (cuDNN's PSEUDO_HALF / PSEUDO_BFLOAT16 configurations), float32
//            uses FMA kernels only (no TF32 rounding), float64 in double. The
//            bias is added by cudnnAddTensor after the convolution.
//   max      CUDNN_POOLING_MAX with CUDNN_PROPAGATE_NAN: a NaN in a window
//            gives NaN, padding never wins (as the CPU's -inf padding).
//   average  count_include_pad = 0 is CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_
//            PADDING (divide by the taps inside the input); 1 is
//            _INCLUDE_PADDING, which divides by kH * kW because every
//            accepted window lies inside the padded input.
//   batchnorm  cudnnBatchNormalizationForwardInference, SPATIAL mode over x
//            viewed as [outer, C, inner, 1]; parameters in float (double for
//            float64), as cuDNN requires.
// An input with no elements (C = 0, or H or W = 0 with padding) has only
// empty windows: the output is zero (plus the bias for conv2d), as on the CPU.
#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/ops/nn/nn_device.h"

namespace libops::ops::nn {
namespace {

// Workspace above this is not worth it: the next algorithm is tried.
constexpr size_t kMaxConvWorkspace = size_t{512} << 20;

// ---- descriptors, destroyed with their owner ----

class TensorDesc {
 public:
  TensorDesc() = default;
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  ~TensorDesc() {
    if (d_ != nullptr) cudnnDestroyTensorDescriptor(d_);
  }
  // Dense 4-D tensor; n, c, h, w are the logical extents in either format.
  Status set(cudnnTensorFormat_t format, cudnnDataType_t type, int64_t n, int64_t c, int64_t h, int64_t w) {
    if (d_ == nullptr) LIBOPS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_));
    LIBOPS_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d_, format, type, static_cast<int>(n), static_cast<int>(c),
                                                  static_cast<int>(h), static_cast<int>(w)));
    return Status::ok();
  }
  Status create() {
    if (d_ == nullptr) LIBOPS_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_));
    return Status::ok();
  }
  cudnnTensorDescriptor_t get() const { return d_; }

 private:
  cudnnTensorDescriptor_t d_ = nullptr;
};

class FilterDesc {
 public:
  FilterDesc() = default;
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
  ~FilterDesc() {
    if (d_ != nullptr) cudnnDestroyFilterDescriptor(d_);
  }
  // k filters of c x h x w: KCRS for NCHW, KRSC for NHWC.
  Status set(cudnnDataType_t type, cudnnTensorFormat_t format, int64_t k, int64_t c, int64_t h, int64_t w) {
    if (d_ == nullptr) LIBOPS_CUDNN_CHECK(cudnnCreateFilterDescriptor(&d_));
    LIBOPS_CUDNN_CHECK(cudnnSetFilter4dDescriptor(d_, type, format, static_cast<int>(k), static_cast<int>(c),
                                                  static_cast<int>(h), static_cast<int>(w)));
    return Status::ok();
  }
  cudnnFilterDescriptor_t get() const { return d_; }

 private:
  cudnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
 public:
  ConvDesc() = default;
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
  ~ConvDesc() {
    if (d_ != nullptr) cudnnDestroyConvolutionDescriptor(d_);
  }
  Status set(const Geometry2d& g, const Window2d& win, int64_t groups, cudnnDataType_t compute) {
    if (d_ == nullptr) LIBOPS_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d_));
    LIBOPS_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
        d_, static_cast<int>(g.pad_top), static_cast<int>(g.pad_left), static_cast<int>(win.sh),
        static_cast<int>(win.sw), static_cast<int>(win.dh), static_cast<int>(win.dw), CUDNN_CROSS_CORRELATION,
        compute));
    LIBOPS_CUDNN_CHECK(cudnnSetConvolutionGroupCount(d_, static_cast<int>(groups)));
    return Status::ok();
  }
  Status set_math(cudnnMathType_t math) {
    LIBOPS_CUDNN_CHECK(cudnnSetConvolutionMathType(d_, math));
    return Status::ok();
  }
  cudnnConvolutionDescriptor_t get() const { return d_; }

 private:
  cudnnConvolutionDescriptor_t d_ = nullptr;
};

class PoolDesc {
 public:
  PoolDesc() = default;
  PoolDesc(const PoolDesc&) = delete;
  PoolDesc& operator=(const PoolDesc&) = delete;
  ~PoolDesc() {
    if (d_ != nullptr) cudnnDestroyPoolingDescriptor(d_);
  }
  Status set(cudnnPoolingMode_t mode, const Geometry2d& g, const Window2d& win) {
    if (d_ == nullptr) LIBOPS_CUDNN_CHECK(cudnnCreatePoolingDescriptor(&d_));
    LIBOPS_CUDNN_CHECK(cudnnSetPooling2dDescriptor(d_, mode, CUDNN_PROPAGATE_NAN, static_cast<int>(win.kh),
                                                   static_cast<int>(win.kw), static_cast<int>(g.pad_top),
                                                   static_cast<int>(g.pad_left), static_cast<int>(win.sh),
                                                   static_cast<int>(win.sw)));
    return Status::ok();
  }
  cudnnPoolingDescriptor_t get() const { return d_; }

 private:
  cudnnPoolingDescriptor_t d_ = nullptr;
};

// ---- usability checks ----

// cuDNN's type for `dtype`, or false.
bool cudnn_type(DataType dtype, cudnnDataType_t* out) {
  switch (dtype) {
    case DataType::kFloat32: *out = CUDNN_DATA_FLOAT; return true;
    case DataType::kFloat64: *out = CUDNN_DATA_DOUBLE; return true;
    case DataType::kFloat16: *out = CUDNN_DATA_HALF; return true;
    case DataType::kBFloat16: *out = CUDNN_DATA_BFLOAT16; return true;
    default: return false;
  }
}

Status dtype_usable(Device device, DataType dtype) {
  cudnnDataType_t t;
  if (cudnn_type(dtype, &t)) return Status::ok();
  return Status::error(StatusCode::kNotImplemented,
                       "cuDNN on %s does not take dtype %s (float16, bfloat16, float32, float64 are supported)",
                       device.str().c_str(), dtype_name(dtype));
}

// Ok when every extent fits cuDNN's int and `elements` its tensor size limit.
Status extents_usable(Device device, const char* what, const std::string& call, std::initializer_list<int64_t> dims) {
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d > INT_MAX)
      return Status::error(StatusCode::kNotImplemented, "cuDNN on %s cannot run %s: %s has an extent of %lld, above %d",
                           device.str().c_str(), call.c_str(), what, static_cast<long long>(d), INT_MAX);
    elements = d == 0 || elements <= INT64_MAX / d ? elements * d : INT64_MAX;
  }
  if (elements > INT_MAX)
    return Status::error(StatusCode::kNotImplemented,
                         "cuDNN on %s cannot run %s: %s has %lld elements, above cuDNN's limit of %d per tensor",
                         device.str().c_str(), call.c_str(), what, static_cast<long long>(elements), INT_MAX);
  return Status::ok();
}

// cuDNN pads `pad_before` on both sides and yields floor((in + 2 * pad -
// eff) / stride) + 1 positions: ok when that is the op's `out`, the same
// windows. Only SAME padding with an odd total differs.
Status padding_usable(Device device, const std::string& call, const char* dim, const char* before_word,
                      const char* after_word, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pad_before,
                      int64_t out) {
  const int64_t eff = (k - 1) * d + 1;
  const int64_t span = in + 2 * pad_before - eff;
  if (span >= 0 && span / s + 1 == out) return Status::ok();
  const int64_t pad_after = (out - 1) * s + eff - in - pad_before;
  return Status::error(StatusCode::kNotImplemented,
                       "cuDNN on %s cannot run %s: it pads %lld %s(s) %s and %lld %s, and cuDNN pads both sides of a "
                       "dim equally (SAME padding on cuDNN needs an even total; run this call on the CPU)",
                       device.str().c_str(), call.c_str(), static_cast<long long>(pad_before), dim, before_word,
                       static_cast<long long>(pad_after), after_word);
}

Status window_padding_usable(Device device, const Geometry2d& g, const Window2d& win, const std::string& call) {
  RETURN_IF_ERROR(
      padding_usable(device, call, "row", "on top", "at the bottom", g.h, win.kh, win.sh, win.dh, g.pad_top, g.oh));
  return padding_usable(device, call, "column", "on the left", "on the right", g.w, win.kw, win.sw, win.dw,
                        g.pad_left, g.ow);
}

Status cudnn_conv2d_usable(Device device, const Conv2dDesc& desc) {
  RETURN_IF_ERROR(dtype_usable(device, desc.dtype));
  const Geometry2d& g = desc.g;
  std::string call = window_call_str(g, desc.win) + str_format(", %lld filters", static_cast<long long>(desc.cout));
  if (desc.groups > 1) call += str_format(" in %lld groups", static_cast<long long>(desc.groups));
  RETURN_IF_ERROR(extents_usable(device, "x", call, {g.n, g.c, g.h, g.w}));
  RETURN_IF_ERROR(extents_usable(device, "the weights", call, {desc.cout, g.c / desc.groups, desc.win.kh, desc.win.kw}));
  RETURN_IF_ERROR(extents_usable(device, "the output", call, {g.n, desc.cout, g.oh, g.ow}));
  return window_padding_usable(device, g, desc.win, call);
}

Status cudnn_pool2d_usable(Device device, const Pool2dDesc& desc) {
  RETURN_IF_ERROR(dtype_usable(device, desc.dtype));
  const Geometry2d& g = desc.g;
  const std::string call = window_call_str(g, desc.win) + ", " + pool_mode_name(desc.mode) + " pooling";
  if (desc.win.dh != 1 || desc.win.dw != 1)
    return Status::error(StatusCode::kNotImplemented,
                         "cuDNN on %s cannot run %s: cuDNN's pooling has no dilation (it must be 1x1)",
                         device.str().c_str(), call.c_str());
  RETURN_IF_ERROR(extents_usable(device, "x", call, {g.n, g.c, g.h, g.w}));
  RETURN_IF_ERROR(extents_usable(device, "the output", call, {g.n, g.c, g.oh, g.ow}));
  if (desc.win.ceil) {
    // cuDNN rounds the output extent down; ceil mode is fine where that
    // gives the same extents (Note [Ceil mode]).
    auto floor_extent = [](int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
      return (in + 2 * p - ((k - 1) * d + 1)) / s + 1;
    };
    if (floor_extent(g.h, desc.win.kh, desc.win.sh, g.pad_top, desc.win.dh) != g.oh ||
        floor_extent(g.w, desc.win.kw, desc.win.sw, g.pad_left, desc.win.dw) != g.ow)
      return Status::error(StatusCode::kNotImplemented,
                           "cuDNN on %s cannot run %s: cuDNN's pooling rounds the output extent down, and ceil mode "
                           "adds a window here",
                           device.str().c_str(), call.c_str());
  }
  return window_padding_usable(device, g, desc.win, call);
}

Status cudnn_batchnorm_usable(Device device, const BatchnormDesc& desc) {
  RETURN_IF_ERROR(dtype_usable(device, desc.dtype));
  const std::string call = str_format("x viewed as [%lld, %lld, %lld] around the channel axis",
                                      static_cast<long long>(desc.outer), static_cast<long long>(desc.channels),
                                      static_cast<long long>(desc.inner));
  RETURN_IF_ERROR(extents_usable(device, "x", call, {desc.outer, desc.channels, desc.inner}));
  if (!(desc.epsilon >= CUDNN_BN_MIN_EPSILON))
    return Status::error(StatusCode::kNotImplemented, "cuDNN on %s cannot run %s: epsilon %g is below cuDNN's minimum %g",
                         device.str().c_str(), call.c_str(), desc.epsilon, static_cast<double>(CUDNN_BN_MIN_EPSILON));
  return Status::ok();
}

// ---- running ----

// alpha = 1 and beta = 0 as cuDNN reads them: double for DOUBLE tensors,
// float for every other type.
struct Blend {
  float f_one = 1.0f, f_zero = 0.0f;
  double d_one = 1.0, d_zero = 0.0;
  bool is_double = false;
  explicit Blend(DataType t) : is_double(t == DataType::kFloat64) {}
  const void* one() const { return is_double ? static_cast<const void*>(&d_one) : &f_one; }
  const void* zero() const { return is_double ? static_cast<const void*>(&d_zero) : &f_zero; }
};

// A cuDNN failure of `what`; "not supported" becomes kNotImplemented.
Status cudnn_call_error(cudnnStatus_t s, const char* what) {
  Status e = cuda::cudnn_error(s, what);
  if (CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_NOT_SUPPORTED) return Status(StatusCode::kNotImplemented, e.message());
  return e;
}

// Note [cuDNN algorithm cache]
// Ranking the algorithms (cudnnGet*Algorithm_v7) is host work on every
// call, which a graph would pay per convolution node per run. Each thread
// keeps, per device, the algorithm that ran for a call's whole geometry,
// dtype and direction (conv2d forward, deconv2d backward data), with its
// math type and workspace size (the last 64 keys, most recent first); a
// later call with the same key runs it directly, and goes back to the
// ranking only if it fails.
struct ConvAlgoKey {
  int device = 0;
  DataType dtype = DataType::kFloat32;
  bool nchw = true;
  bool transposed = false;  // deconv2d: the algorithm is a cudnnConvolutionBwdDataAlgo_t
  std::array<int64_t, 20> extents{};
  bool operator==(const ConvAlgoKey&) const = default;
};

ConvAlgoKey conv_algo_key(Device device, const Conv2dDesc& d, bool transposed) {
  ConvAlgoKey k;
  k.device = device.index, k.dtype = d.dtype, k.nchw = d.g.nchw, k.transposed = transposed;
  const Geometry2d& g = d.g;
  const Window2d& w = d.win;
  k.extents = {g.block, g.n,  g.c,  g.h,  g.w,  g.oh, g.ow, g.pad_top, g.pad_left, w.kh,
               w.kw,    w.sh, w.sw, w.ph, w.pw, w.dh, w.dw, w.same,    d.cout,     d.groups};
  return k;
}

struct ConvAlgo {
  int algo;  // cudnnConvolutionFwdAlgo_t, or cudnnConvolutionBwdDataAlgo_t for a transposed key
  cudnnMathType_t math;
  size_t workspace;
};

// The calling thread's remembered algorithms, most recently used first.
std::vector<std::pair<ConvAlgoKey, ConvAlgo>>& conv_algos() {
  thread_local std::vector<std::pair<ConvAlgoKey, ConvAlgo>> cache;
  return cache;
}

const ConvAlgo* find_conv_algo(const ConvAlgoKey& key) {
  auto& cache = conv_algos();
  for (size_t i = 0; i < cache.size(); ++i) {
    if (!(cache[i].first == key)) continue;
    std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return &cache.front().second;
  }
  return nullptr;
}

void remember_conv_algo(const ConvAlgoKey& key, const ConvAlgo& algo) {
  constexpr size_t kMaxEntries = 64;
  auto& cache = conv_algos();
  cache.erase(std::remove_if(cache.begin(), cache.end(), [&](const auto& e) { return e.first == key; }),
              cache.end());
  cache.insert(cache.begin(), {key, algo});
  if (cache.size() > kMaxEntries) cache.pop_back();
}

// Runs the algorithm remembered for `key`, if any, with its math type set
// on cd: run_algo(algo, workspace, bytes) gives cuDNN's status. True when it
// ran; otherwise cd is back at `math`, for the ranking.
template <typename RunAlgo>
Status run_known_algo(cuda::LaunchContext* ctx, ConvDesc& cd, const ConvAlgoKey& key, cudnnMathType_t math,
                      RunAlgo run_algo, bool& ran) {
  ran = false;
  const ConvAlgo* known = find_conv_algo(key);
  if (known == nullptr) return Status::ok();
  const ConvAlgo a = *known;
  RETURN_IF_ERROR(cd.set_math(a.math));
  void* workspace = nullptr;
  if (a.workspace == 0 || ctx->workspace(a.workspace, &workspace).is_ok())
    ran = run_algo(a.algo, workspace, a.workspace) == CUDNN_STATUS_SUCCESS;
  if (!ran) RETURN_IF_ERROR(cd.set_math(math));
  return Status::ok();
}

// What every run starts with: cuDNN's type for `dtype`, the arrays synced
// to the device, and the calling thread's context and cuDNN handle there.
struct Run {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  cuda::LaunchContext* ctx = nullptr;
  cudnnHandle_t handle = nullptr;
};

Status begin_run(Device device, DataType dtype, std::initializer_list<const NDArray*> inputs, NDArray& z, Run& run) {
  if (!cudnn_type(dtype, &run.type)) return dtype_usable(device, dtype);
  RETURN_IF_ERROR(sync_for_kernel(device, inputs, z));
  RETURN_IF_ERROR(cuda::LaunchContext::get(device.index, &run.ctx));
  return run.ctx->cudnn(&run.handle);
}

// y = conv(x, w) with the algorithm that ran last time for this call's key
// (Note [cuDNN algorithm cache]), else the first in the order cuDNN's
// heuristics rank them that runs within kMaxConvWorkspace (float32: FMA
// kernels only).
Status convolve(cuda::LaunchContext* ctx, cudnnHandle_t handle, const Conv2dDesc& desc, const TensorDesc& xd,
                const void* x, const FilterDesc& wd, const void* w, const TensorDesc& yd, void* y, Device device) {
  const bool fp32 = desc.dtype == DataType::kFloat32;
  const cudnnDataType_t compute = desc.dtype == DataType::kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  const cudnnMathType_t math = fp32                                ? CUDNN_FMA_MATH
                               : desc.dtype == DataType::kFloat64 ? CUDNN_DEFAULT_MATH
                                                                  : CUDNN_TENSOR_OP_MATH;
  ConvDesc cd;
  RETURN_IF_ERROR(cd.set(desc.g, desc.win, desc.groups, compute));
  RETURN_IF_ERROR(cd.set_math(math));
  const Blend blend(desc.dtype);
  const ConvAlgoKey key = conv_algo_key(device, desc, false);
  bool ran = false;
  RETURN_IF_ERROR(run_known_algo(
      ctx, cd, key, math,
      [&](int algo, void* workspace, size_t bytes) {
        return cudnnConvolutionForward(handle, blend.one(), xd.get(), x, wd.get(), w, cd.get(),
                                       static_cast<cudnnConvolutionFwdAlgo_t>(algo), workspace, bytes, blend.zero(),
                                       yd.get(), y);
      },
      ran));
  if (ran) return Status::ok();
  int max_algos = 0;
  LIBOPS_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_algos));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_algos, 1)));
  int returned = 0;
  LIBOPS_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(handle, xd.get(), wd.get(), cd.get(), yd.get(),
                                                            static_cast<int>(perf.size()), &returned, perf.data()));
  Status last = Status::error(StatusCode::kNotImplemented, "cuDNN offers no algorithm for it");
  for (int i = 0; i < returned; ++i) {
    const cudnnConvolutionFwdAlgoPerf_t& p = perf[static_cast<size_t>(i)];
    if (p.status != CUDNN_STATUS_SUCCESS) continue;
    // The algorithm's math type decides which kernels it runs, except for
    // float32: that stays FMA whatever the ranking assumed (TF32 would round
    // the inputs to 10 bits), and an algorithm with no FMA kernel for the
    // call answers "not supported", so the next one is tried.
    if (!fp32) RETURN_IF_ERROR(cd.set_math(p.mathType));
    size_t bytes = 0;
    cudnnStatus_t s =
        cudnnGetConvolutionForwardWorkspaceSize(handle, xd.get(), wd.get(), cd.get(), yd.get(), p.algo, &bytes);
    if (s != CUDNN_STATUS_SUCCESS) {
      last = cudnn_call_error(s, "cudnnGetConvolutionForwardWorkspaceSize");
      continue;
    }
    if (bytes > kMaxConvWorkspace) {
      last = Status::error(StatusCode::kNotImplemented, "its algorithms need more than %zu bytes of workspace",
                           kMaxConvWorkspace);
      continue;
    }
    void* workspace = nullptr;
    if (bytes > 0) {
      last = ctx->workspace(bytes, &workspace);
      if (!last.is_ok()) continue;
    }
    s = cudnnConvolutionForward(handle, blend.one(), xd.get(), x, wd.get(), w, cd.get(), p.algo, workspace, bytes,
                                blend.zero(), yd.get(), y);
    if (s == CUDNN_STATUS_SUCCESS) {
      remember_conv_algo(key, {static_cast<int>(p.algo), fp32 ? CUDNN_FMA_MATH : p.mathType, bytes});
      return Status::ok();
    }
    last = cudnn_call_error(s, "cudnnConvolutionForward");
    if (last.code() != StatusCode::kNotImplemented) return last;
  }
  return Status(last.code(), str_format("cuDNN on %s found no way to run %s, %lld filters: %s", device.str().c_str(),
                                        window_call_str(desc.g, desc.win).c_str(),
                                        static_cast<long long>(desc.cout), last.message().c_str()));
}

Status cudnn_conv2d(Device device, const Conv2dDesc& desc, const NDArray& x, const NDArray& w, const NDArray* bias,
                    NDArray& z) {
  Run run;
  RETURN_IF_ERROR(begin_run(device, desc.dtype, {&x, &w, bias}, z, run));
  const Geometry2d& g = desc.g;
  const cudnnTensorFormat_t format = g.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  TensorDesc yd;
  RETURN_IF_ERROR(yd.set(format, run.type, g.n, desc.cout, g.oh, g.ow));
  if (x.length() == 0) {
    // Every window lies in the padding: empty sums.
    LIBOPS_CUDA_CHECK(
        cudaMemsetAsync(z.device_data(), 0, static_cast<size_t>(z.length()) * z.element_size(), run.ctx->stream()));
  } else {
    TensorDesc xd;
    FilterDesc wd;
    RETURN_IF_ERROR(xd.set(format, run.type, g.n, g.c, g.h, g.w));
    RETURN_IF_ERROR(wd.set(run.type, format, desc.cout, g.c / desc.groups, desc.win.kh, desc.win.kw));
    RETURN_IF_ERROR(
        convolve(run.ctx, run.handle, desc, xd, x.device_data(), wd, w.device_data(), yd, z.device_data(), device));
  }
  if (bias != nullptr) {
    TensorDesc bd;  // [1, Cout, 1, 1], broadcast over the output
    RETURN_IF_ERROR(bd.set(CUDNN_TENSOR_NCHW, run.type, 1, desc.cout, 1, 1));
    const Blend blend(desc.dtype);
    LIBOPS_CUDNN_CHECK(
        cudnnAddTensor(run.handle, blend.one(), bd.get(), bias->device_data(), blend.one(), yd.get(), z.device_data()));
  }
  z.buffer()->mark_device_written();
  return Status::ok();
}

Status cudnn_pool2d(Device device, const Pool2dDesc& desc, const NDArray& x, NDArray& z) {
  Run run;
  RETURN_IF_ERROR(begin_run(device, desc.dtype, {&x}, z, run));
  const Geometry2d& g = desc.g;
  if (x.length() == 0) {
    // Windows with no tap inside the input give 0 (conv_utils.h's pool2d_run).
    LIBOPS_CUDA_CHECK(
        cudaMemsetAsync(z.device_data(), 0, static_cast<size_t>(z.length()) * z.element_size(), run.ctx->stream()));
  } else {
    const cudnnTensorFormat_t format = g.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
    const cudnnPoolingMode_t mode = desc.mode == PoolMode::kMax ? CUDNN_POOLING_MAX
                                    : desc.mode == PoolMode::kAvgIncludePadding
                                        ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                        : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    TensorDesc xd, yd;
    PoolDesc pd;
    RETURN_IF_ERROR(xd.set(format, run.type, g.n, g.c, g.h, g.w));
    RETURN_IF_ERROR(yd.set(format, run.type, g.n, g.c, g.oh, g.ow));
    RETURN_IF_ERROR(pd.set(mode, g, desc.win));
    const Blend blend(desc.dtype);
    const cudnnStatus_t s = cudnnPoolingForward(run.handle, pd.get(), blend.one(), xd.get(), x.device_data(),
                                                blend.zero(), yd.get(), z.device_data());
    if (s != CUDNN_STATUS_SUCCESS) return cudnn_call_error(s, "cudnnPoolingForward");
  }
  z.buffer()->mark_device_written();
  return Status::ok();
}

Status cudnn_batchnorm(Device device, const BatchnormDesc& desc, const NDArray& x, const NDArray& mean,
                       const NDArray& variance, const NDArray& gamma, const NDArray& beta, NDArray& z) {
  Run run;
  RETURN_IF_ERROR(begin_run(device, desc.dtype, {&x, &mean, &variance, &gamma, &beta}, z, run));
  TensorDesc xd, pd;
  RETURN_IF_ERROR(xd.set(CUDNN_TENSOR_NCHW, run.type, desc.outer, desc.channels, desc.inner, 1));
  // [1, C, 1, 1] in the parameter type cuDNN derives from x's (float, or
  // double for DOUBLE x): float_compute_dtype, what the op converted to.
  RETURN_IF_ERROR(pd.create());
  LIBOPS_CUDNN_CHECK(cudnnDeriveBNTensorDescriptor(pd.get(), xd.get(), CUDNN_BATCHNORM_SPATIAL));
  const Blend blend(desc.dtype);
  const cudnnStatus_t s = cudnnBatchNormalizationForwardInference(
      run.handle, CUDNN_BATCHNORM_SPATIAL, blend.one(), blend.zero(), xd.get(), x.device_data(), xd.get(),
      z.device_data(), pd.get(), gamma.device_data(), beta.device_data(), mean.device_data(), variance.device_data(),
      desc.epsilon);
  if (s != CUDNN_STATUS_SUCCESS) return cudnn_call_error(s, "cudnnBatchNormalizationForwardInference");
  z.buffer()->mark_device_written();
  return Status::ok();
}

// deconv2d is the data gradient of the convolution from z-shaped to
// x-shaped arrays: cudnnConvolutionBackwardData with x as dy and z as dx.
Status cudnn_deconv2d_usable(Device device, const Conv2dDesc& desc) {
  RETURN_IF_ERROR(dtype_usable(device, desc.dtype));
  const Geometry2d& g = desc.g;
  const std::string call = window_call_str(g, desc.win) + str_format(", %lld filters, transposed",
                                                                     static_cast<long long>(desc.cout));
  // cuDNN 9 ranks no backward-data algorithm for float64 NHWC data (found
  // on an H200: "offers no algorithm"); say so before any data moves.
  if (desc.dtype == DataType::kFloat64 && !g.nchw)
    return Status::error(StatusCode::kNotImplemented,
                         "cuDNN on %s cannot run %s: it has no float64 NHWC transposed convolution (NCHW or float32 "
                         "runs)",
                         device.str().c_str(), call.c_str());
  RETURN_IF_ERROR(extents_usable(device, "x", call, {g.n, g.c, g.h, g.w}));
  RETURN_IF_ERROR(extents_usable(device, "the weights", call, {g.c, desc.cout, desc.win.kh, desc.win.kw}));
  RETURN_IF_ERROR(extents_usable(device, "the output", call, {g.n, desc.cout, g.oh, g.ow}));
  // The forward convolution over z must give exactly x's extents.
  RETURN_IF_ERROR(padding_usable(device, call, "row", "on top", "at the bottom", g.oh, desc.win.kh, desc.win.sh,
                                 desc.win.dh, g.pad_top, g.h));
  return padding_usable(device, call, "column", "on the left", "on the right", g.ow, desc.win.kw, desc.win.sw,
                        desc.win.dw, g.pad_left, g.w);
}

Status cudnn_deconv2d(Device device, const Conv2dDesc& desc, const NDArray& x, const NDArray& w, const NDArray* bias,
                      NDArray& z) {
  Run run;
  RETURN_IF_ERROR(begin_run(device, desc.dtype, {&x, &w, bias}, z, run));
  const Geometry2d& g = desc.g;
  const cudnnTensorFormat_t format = g.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  TensorDesc zd;
  RETURN_IF_ERROR(zd.set(format, run.type, g.n, desc.cout, g.oh, g.ow));
  if (x.length() == 0) {
    LIBOPS_CUDA_CHECK(
        cudaMemsetAsync(z.device_data(), 0, static_cast<size_t>(z.length()) * z.element_size(), run.ctx->stream()));
  } else {
    TensorDesc xd;
    FilterDesc wd;
    RETURN_IF_ERROR(xd.set(format, run.type, g.n, g.c, g.h, g.w));
    RETURN_IF_ERROR(wd.set(run.type, format, g.c, desc.cout, desc.win.kh, desc.win.kw));
    const bool fp32 = desc.dtype == DataType::kFloat32;
    const cudnnDataType_t compute = desc.dtype == DataType::kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    ConvDesc cd;
    RETURN_IF_ERROR(cd.set(g, desc.win, 1, compute));
    const cudnnMathType_t math = fp32                                ? CUDNN_FMA_MATH
                                 : desc.dtype == DataType::kFloat64 ? CUDNN_DEFAULT_MATH
                                                                    : CUDNN_TENSOR_OP_MATH;
    RETURN_IF_ERROR(cd.set_math(math));
    const Blend blend(desc.dtype);
    bool done = false;
    const ConvAlgoKey key = conv_algo_key(device, desc, true);  // Note [cuDNN algorithm cache]
    RETURN_IF_ERROR(run_known_algo(
        run.ctx, cd, key, math,
        [&](int algo, void* workspace, size_t bytes) {
          const auto bwd = static_cast<cudnnConvolutionBwdDataAlgo_t>(algo);
          return cudnnConvolutionBackwardData(run.handle, blend.one(), wd.get(), w.device_data(), xd.get(),
                                              x.device_data(), cd.get(), bwd, workspace, bytes, blend.zero(), zd.get(),
                                              z.device_data());
        },
        done));
    int max_algos = 0;
    if (!done) LIBOPS_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(run.handle, &max_algos));
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(max_algos, 1)));
    int returned = 0;
    if (!done)
      LIBOPS_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(run.handle, wd.get(), xd.get(), cd.get(),
                                                                     zd.get(), static_cast<int>(perf.size()),
                                                                     &returned, perf.data()));
    Status last = Status::error(StatusCode::kNotImplemented, "cuDNN offers no algorithm for it");
    for (int i = 0; i < returned && !done; ++i) {
      const cudnnConvolutionBwdDataAlgoPerf_t& p = perf[static_cast<size_t>(i)];
      if (p.status != CUDNN_STATUS_SUCCESS) continue;
      if (!fp32) RETURN_IF_ERROR(cd.set_math(p.mathType));
      size_t bytes = 0;
      cudnnStatus_t st = cudnnGetConvolutionBackwardDataWorkspaceSize(run.handle, wd.get(), xd.get(), cd.get(),
                                                                      zd.get(), p.algo, &bytes);
      if (st != CUDNN_STATUS_SUCCESS) {
        last = cudnn_call_error(st, "cudnnGetConvolutionBackwardDataWorkspaceSize");
        continue;
      }
      if (bytes > kMaxConvWorkspace) continue;
      void* workspace = nullptr;
      if (bytes > 0 && !(last = run.ctx->workspace(bytes, &workspace)).is_ok()) continue;
      st = cudnnConvolutionBackwardData(run.handle, blend.one(), wd.get(), w.device_data(), xd.get(), x.device_data(),
                                        cd.get(), p.algo, workspace, bytes, blend.zero(), zd.get(), z.device_data());
      if (st == CUDNN_STATUS_SUCCESS) {
        done = true;
        remember_conv_algo(key, {static_cast<int>(p.algo), fp32 ? CUDNN_FMA_MATH : p.mathType, bytes});
      } else {
        last = cudnn_call_error(st, "cudnnConvolutionBackwardData");
        if (last.code() != StatusCode::kNotImplemented) return last;
      }
    }
    if (!done)
      return Status(last.code(), str_format("cuDNN on %s found no way to run %s transposed: %s", device.str().c_str(),
                                            window_call_str(g, desc.win).c_str(), last.message().c_str()));
  }
  if (bias != nullptr) {
    TensorDesc bd;
    RETURN_IF_ERROR(bd.set(CUDNN_TENSOR_NCHW, run.type, 1, desc.cout, 1, 1));
    const Blend blend(desc.dtype);
    LIBOPS_CUDNN_CHECK(
        cudnnAddTensor(run.handle, blend.one(), bd.get(), bias->device_data(), blend.one(), zd.get(), z.device_data()));
  }
  z.buffer()->mark_device_written();
  return Status::ok();
}

const NnDeviceOps kCudnnNnOps{cudnn_conv2d_usable,    cudnn_conv2d,    cudnn_pool2d_usable,   cudnn_pool2d,
                              cudnn_batchnorm_usable, cudnn_batchnorm, cudnn_deconv2d_usable, cudnn_deconv2d};

[[maybe_unused]] const bool kRegistered = [] {
  register_nn_device_ops(DeviceType::kCuda, &kCudnnNnOps);
  return true;
}();

}  // namespace
}  // namespace libops::ops::nn
