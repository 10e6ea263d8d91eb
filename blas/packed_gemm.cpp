// Packed-weights GEMM (Note [Packed GEMM]): libops' panel kernels or oneDNN's matmul.
#include "blas/packed_gemm.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "blas/conv_dnnl.h"
#include "blas/panel_gemm.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"

#if LIBOPS_ISA_DISPATCH
#include <immintrin.h>
#endif

#ifdef LIBOPS_HAVE_DNNL
#include "blas/dnnl_util.h"
#endif

namespace libops::blas {

// Note [Packed GEMV]
// A single row (a batch-1 dense layer) reads all of B once and is bound by
// how fast B streams from L3: oneDNN's matmul planned for m = 1 ran an MLP
// 784-512-512-10's layers at 2 threads in about 22 us, with some 1 us of
// memory objects and stream per call. Where cpu_isa() is avx512, B is
// instead packed into panels of 64 columns, each panel's k rows
// contiguous (the last panel zero-padded), so a panel is one sequential
// stream; c's panel is 8 accumulators (two rows of B at a time for 64-wide
// panels, eight for 16-wide ones) and the panels split between threads.
// B narrower than 64 columns uses 16-wide panels, so a 10-column layer
// reads 16 columns per row rather than 64. A dense layer's bias and
// activation (GemmEpilogue) are applied to the sums in registers before
// the store: in a batch-1 MLP the separate add and relu steps were five
// more dispatches per run over vectors of 512 floats.
#if LIBOPS_ISA_DISPATCH
namespace {

// v + bias (its first `lanes` entries), then the activation as the relu
// ops compute it: v < 0 gives 0, and relu6's v > 6 gives 6 (ordered
// compares: NaN and -0 stay).
LIBOPS_TARGET_AVX512 inline __m512 apply_epilogue(__m512 v, const float* bias, int64_t lanes, int activation) {
  if (bias != nullptr) {
    const auto mask = static_cast<__mmask16>(lanes >= 16 ? 0xFFFF : (1u << lanes) - 1);
    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask, bias));
  }
  const __m512 zero = _mm512_setzero_ps(), six = _mm512_set1_ps(6.0f);
  if (activation >= 1) v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, zero);
  if (activation == 2) v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, six, _CMP_GT_OQ), v, six);
  return v;
}

// out[0, kLanes) = act(a * panel + bias): `cols` of the lanes are real
// columns (bias has that many entries from here); the rest are padding.
template <int kLanes>  // panel width in floats: 16 or 64
LIBOPS_TARGET_AVX512 void gemv_panel(const float* a, const float* panel, int64_t k, int64_t cols,
                                     const GemmEpilogue& ep, float* out) {
  constexpr int kVecs = kLanes / 16, kRows = 8 / kVecs;  // 8 accumulators
  constexpr int kAhead = 1024 / kLanes;                  // prefetch 4 KB ahead
  __m512 acc[8];
  for (auto& v : acc) v = _mm512_setzero_ps();
  int64_t r = 0;
  for (; r + kRows <= k; r += kRows) {
    const float* w = panel + r * kLanes;
    for (int i = 0; i < kRows * kVecs; i += 4)
      _mm_prefetch(reinterpret_cast<const char*>(w + kAhead * kLanes + i * 16), _MM_HINT_T0);
    for (int u = 0; u < kRows; ++u) {
      const __m512 x = _mm512_set1_ps(a[r + u]);
      for (int v = 0; v < kVecs; ++v)
        acc[u * kVecs + v] = _mm512_fmadd_ps(x, _mm512_loadu_ps(w + u * kLanes + v * 16), acc[u * kVecs + v]);
    }
  }
  for (; r < k; ++r) {
    const __m512 x = _mm512_set1_ps(a[r]);
    for (int v = 0; v < kVecs; ++v) acc[v] = _mm512_fmadd_ps(x, _mm512_loadu_ps(panel + r * kLanes + v * 16), acc[v]);
  }
  for (int v = 0; v < kVecs; ++v) {
    __m512 sum = acc[v];
    for (int u = 1; u < kRows; ++u) sum = _mm512_add_ps(sum, acc[u * kVecs + v]);
    const int64_t lanes = cols - v * 16;
    if (lanes > 0) sum = apply_epilogue(sum, ep.bias != nullptr ? ep.bias + v * 16 : nullptr, lanes, ep.activation);
    _mm512_storeu_ps(out + v * 16, sum);
  }
}

}  // namespace

struct PackedGemvF32 {
  int64_t n = 0, k = 0, lanes = 64, panels = 0;
  int threads = 1;
  std::vector<float> packed;  // panels x k x lanes

  void pack(int64_t n_, int64_t k_, const float* b, int64_t ldb, bool trans_b, int threads_) {
    n = n_, k = k_, threads = threads_;
    lanes = n < 64 ? 16 : 64;
    panels = (n + lanes - 1) / lanes;
    packed.assign(static_cast<size_t>(panels * k * lanes), 0.0f);
    // B read in its storage order: rows of B, or its columns when trans_b.
    float* out = packed.data();
    if (!trans_b) {
      for (int64_t r = 0; r < k; ++r)
        for (int64_t p = 0; p < panels; ++p)
          std::memcpy(out + (p * k + r) * lanes, b + r * ldb + p * lanes,
                      static_cast<size_t>(std::min<int64_t>(lanes, n - p * lanes)) * sizeof(float));
      return;
    }
    for (int64_t col = 0; col < n; ++col) {
      float* dst = out + (col / lanes) * k * lanes + col % lanes;
      for (int64_t r = 0; r < k; ++r) dst[r * lanes] = b[col * ldb + r];
    }
  }

  void run(const float* a, float* c, const GemmEpilogue& ep) const {
    // At least 64 KB of B per task: a 10-column layer stays on one thread.
    const int64_t grain = std::max<int64_t>(1, (64 << 10) / std::max<int64_t>(1, k * lanes * 4));
    auto body = [&](int64_t p0, int64_t p1) {
      alignas(64) float out[64];
      for (int64_t p = p0; p < p1; ++p) {
        const float* panel = packed.data() + p * k * lanes;
        const int64_t cols = std::min<int64_t>(lanes, n - p * lanes);
        GemmEpilogue here = ep;
        if (here.bias != nullptr) here.bias += p * lanes;
        if (lanes == 64) gemv_panel<64>(a, panel, k, cols, here, out);
        else gemv_panel<16>(a, panel, k, cols, here, out);
        std::memcpy(c + p * lanes, out, static_cast<size_t>(cols) * sizeof(float));
      }
    };
    if (threads <= 1) body(0, panels);
    else parallel_for(panels, grain, body);
  }
};
#else
struct PackedGemvF32 {};
#endif

struct PackedGemmF32::Impl {
  int threads = 1;
  int64_t m = 0, lda = 0, ldc = 0;
  std::unique_ptr<PanelGemmF32> panels;  // AVX2 machines (Note [Panel GEMM])
  std::unique_ptr<PackedGemvF32> gemv;   // m == 1 on AVX-512 (Note [Packed GEMV])
#ifdef LIBOPS_HAVE_DNNL
  // Otherwise oneDNN's matmul, B in its own layout.
  dnnl::matmul matmul;
  dnnl::memory::desc a_md, c_md;
  dnnl::memory::desc scratchpad_md;  // Note [oneDNN scratchpads]
  dnnl::memory weights;
  // A run's memory objects and argument map, made once: building them on
  // every call allocated, which cost an LSTM step (a 2 x 96 by 96 x 384
  // product) a third of its time. A run that finds them in use builds its
  // own.
  std::mutex run_mutex;
  dnnl::memory a_mem, c_mem, scratch_mem;
  std::unordered_map<int, dnnl::memory> args;
#endif
};

PackedGemmF32::PackedGemmF32() = default;
PackedGemmF32::~PackedGemmF32() = default;

bool PackedGemmF32::applies_epilogue() const {
  return impl_ != nullptr && (impl_->panels != nullptr || impl_->gemv != nullptr);
}

bool PackedGemmF32::any_rows() const { return impl_ != nullptr && impl_->panels != nullptr; }

Status PackedGemmF32::run_rows(int64_t m, const float* a, float* c, const GemmEpilogue& epilogue) {
  if (impl_ == nullptr) return Status::error(StatusCode::kInvalidArgument, "PackedGemmF32::run_rows before pack");
  if (m == impl_->m) return run(a, c, epilogue);
  if (!any_rows())
    return Status::error(StatusCode::kInvalidArgument, "PackedGemmF32::run_rows: this plan is for %lld rows, not %lld",
                         static_cast<long long>(impl_->m), static_cast<long long>(m));
  if (m < 0) return Status::error(StatusCode::kInvalidArgument, "PackedGemmF32::run_rows: %lld rows",
                                  static_cast<long long>(m));
  impl_->panels->run(m, a, impl_->lda, c, impl_->ldc, epilogue, impl_->threads);
  return Status::ok();
}

const char* PackedGemmF32::kind() const {
  if (impl_ == nullptr) return "none";
  if (impl_->panels != nullptr) return "panels";
  return impl_->gemv != nullptr ? "gemv" : "onednn";
}

// The plans that need no oneDNN: libops' panel GEMM on AVX2 machines, the
// single-row GEMV on AVX-512. false: neither applies here.
static bool pack_own(std::unique_ptr<PackedGemmF32::Impl>& impl, int64_t m, int64_t n, int64_t k, const float* b,
                     int64_t ldb, bool trans_b, int64_t lda, int64_t ldc, int threads, Status& status) {
#if LIBOPS_ISA_DISPATCH
  if (cpu_isa() == CpuIsa::kAvx2) {
    auto fresh = std::make_unique<PackedGemmF32::Impl>();
    fresh->threads = threads, fresh->m = m, fresh->lda = lda, fresh->ldc = ldc;
    fresh->panels = std::make_unique<PanelGemmF32>();
    status = fresh->panels->pack(n, k, b, ldb, trans_b)
                 ? Status::ok()
                 : Status::error(StatusCode::kOutOfMemory, "PackedGemmF32: out of memory packing a %lld x %lld B",
                                 static_cast<long long>(k), static_cast<long long>(n));
    if (status.is_ok()) impl = std::move(fresh);
    return true;
  }
  if (m == 1 && cpu_isa() == CpuIsa::kAvx512 && dnnl_enabled()) {
    auto fresh = std::make_unique<PackedGemmF32::Impl>();
    fresh->threads = threads, fresh->m = m, fresh->lda = lda, fresh->ldc = ldc;
    fresh->gemv = std::make_unique<PackedGemvF32>();
    fresh->gemv->pack(n, k, b, ldb, trans_b, threads);
    impl = std::move(fresh);
    status = Status::ok();
    return true;
  }
#else
  (void)impl, (void)m, (void)n, (void)k, (void)b, (void)ldb, (void)trans_b, (void)lda, (void)ldc, (void)threads;
  (void)status;
#endif
  return false;
}

// The plans of libops' own kernels; false when neither ran.
static bool run_own(const PackedGemmF32::Impl& impl, const float* a, float* c, const GemmEpilogue& epilogue) {
#if LIBOPS_ISA_DISPATCH
  if (impl.panels != nullptr) {
    impl.panels->run(impl.m, a, impl.lda, c, impl.ldc, epilogue, impl.threads);
    return true;
  }
  if (impl.gemv != nullptr) {
    impl.gemv->run(a, c, epilogue);
    return true;
  }
#else
  (void)impl, (void)a, (void)c, (void)epilogue;
#endif
  return false;
}

#ifdef LIBOPS_HAVE_DNNL

Status PackedGemmF32::pack(int64_t m, int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b, int64_t lda,
                           int64_t ldc, int threads) {
  impl_.reset();
  Status own;
  if (pack_own(impl_, m, n, k, b, ldb, trans_b, lda, ldc, threads, own)) return own;
  if (!dnnl_enabled()) return Status::error(StatusCode::kNotImplemented, "oneDNN is turned off");
  using dnnl::memory;
  constexpr auto kF32 = memory::data_type::f32;
  try {
    dnnl_util::OmpThreads scope(threads);
    dnnl::engine& eng = dnnl_util::cpu_engine();
    auto impl = std::make_unique<Impl>();
    impl->threads = threads, impl->m = m, impl->lda = lda, impl->ldc = ldc;
    impl->a_md = memory::desc({m, k}, kF32, memory::dims{lda, 1});
    impl->c_md = memory::desc({m, n}, kF32, memory::dims{ldc, 1});
    const memory::desc any_w({k, n}, kF32, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(impl->a_md, any_w, impl->c_md),
                                          dnnl_util::with_user_scratchpad({}), eng);
    // Note [Packed GEMM]: only oneDNN's blocked kernels (brgemm) read a
    // packed B; its "gemm:" matmul is a plain GEMM, slower than blas::gemm.
    if (std::strncmp(pd.impl_info_str(), "gemm:", 5) == 0)
      return Status::error(StatusCode::kNotImplemented, "oneDNN's matmul here is its plain GEMM (%s): nothing to pack",
                           pd.impl_info_str());
    impl->matmul = dnnl::matmul(pd);
    impl->scratchpad_md = pd.scratchpad_desc();
    const memory::desc user_w({k, n}, kF32, trans_b ? memory::dims{1, ldb} : memory::dims{ldb, 1});
    memory user(user_w, eng, const_cast<float*>(b));
    impl->weights = memory(pd.weights_desc(), eng);
    dnnl::stream stream(eng);
    dnnl::reorder(user, impl->weights).execute(stream, user, impl->weights);
    stream.wait();
    impl->a_mem = memory(impl->a_md, eng, nullptr);
    impl->c_mem = memory(impl->c_md, eng, nullptr);
    impl->scratch_mem = memory(impl->scratchpad_md, eng, nullptr);
    impl->args = {{DNNL_ARG_SRC, impl->a_mem},
                  {DNNL_ARG_WEIGHTS, impl->weights},
                  {DNNL_ARG_DST, impl->c_mem},
                  {DNNL_ARG_SCRATCHPAD, impl->scratch_mem}};
    impl_ = std::move(impl);
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(StatusCode::kNotImplemented, "oneDNN matmul: %s (status %d)", e.what(),
                         static_cast<int>(e.status));
  } catch (const std::bad_alloc&) {
    return Status::error(StatusCode::kOutOfMemory, "oneDNN matmul: out of memory");
  }
}

Status PackedGemmF32::run(const float* a, float* c, const GemmEpilogue& epilogue) {
  if (impl_ == nullptr) return Status::error(StatusCode::kInvalidArgument, "PackedGemmF32::run before pack");
  if (run_own(*impl_, a, c, epilogue)) return Status::ok();
  if (!epilogue.empty())
    return Status::error(StatusCode::kInvalidArgument, "PackedGemmF32::run: this plan applies no epilogue");
  try {
    dnnl_util::OmpThreads scope(impl_->threads);
    dnnl::engine& eng = dnnl_util::cpu_engine();
    thread_local dnnl::stream stream(eng);
    const size_t scratch = impl_->scratchpad_md.get_size();
    void* scratch_ptr = scratch > 0 ? dnnl_util::thread_scratchpad(scratch) : nullptr;
    std::unique_lock<std::mutex> lock(impl_->run_mutex, std::try_to_lock);
    if (lock.owns_lock()) {
      impl_->a_mem.set_data_handle(const_cast<float*>(a));
      impl_->c_mem.set_data_handle(c);
      impl_->scratch_mem.set_data_handle(scratch_ptr);
      impl_->matmul.execute(stream, impl_->args);
      stream.wait();
      return Status::ok();
    }
    dnnl::memory am(impl_->a_md, eng, const_cast<float*>(a)), cm(impl_->c_md, eng, c);
    dnnl::memory sm(impl_->scratchpad_md, eng, scratch_ptr);
    impl_->matmul.execute(stream, {{DNNL_ARG_SRC, am},
                                   {DNNL_ARG_WEIGHTS, impl_->weights},
                                   {DNNL_ARG_DST, cm},
                                   {DNNL_ARG_SCRATCHPAD, sm}});
    stream.wait();
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(StatusCode::kNotImplemented, "oneDNN matmul: %s (status %d)", e.what(),
                         static_cast<int>(e.status));
  }
}

#else  // built without oneDNN

Status PackedGemmF32::pack(int64_t m, int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b, int64_t lda,
                           int64_t ldc, int threads) {
  impl_.reset();
  Status own;
  if (pack_own(impl_, m, n, k, b, ldb, trans_b, lda, ldc, threads, own)) return own;
  return Status::error(StatusCode::kNotImplemented, "libops was built without oneDNN");
}

Status PackedGemmF32::run(const float* a, float* c, const GemmEpilogue& epilogue) {
  if (impl_ == nullptr) return Status::error(StatusCode::kInvalidArgument, "PackedGemmF32::run before pack");
  if (run_own(*impl_, a, c, epilogue)) return Status::ok();
  return Status::error(StatusCode::kNotImplemented, "libops was built without oneDNN");
}

#endif

}  // namespace libops::blas
