// float32 GEMM through oneDNN (sgemm_dnnl.h).
#include "blas/sgemm_dnnl.h"

#include "blas/conv_dnnl.h"

#ifdef LIBOPS_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

#include <cstring>
#include <vector>

#include "blas/dnnl_util.h"
#endif

namespace libops::blas {

#ifdef LIBOPS_HAVE_DNNL
namespace {

// Note [GEMM by matmul primitives]
// oneDNN's sgemm (dnnl_sgemm) plans every call anew and runs its older
// JIT GEMM kernels; its matmul primitive runs the brgemm kernels, which
// measured 5-10% faster on one thread of a Zen 4 core on the shapes of
// attention and of im2col convolutions (256x512x64 with k^T: 163 -> 152
// us, 256x64x512: 158 -> 143 us, 512x64x512: 316 -> 287 us). A primitive
// is planned for one set of extents, leading dimensions, transposes,
// alpha and beta (alpha as its output scale, beta as a sum post-op) and
// thread count, so each thread keeps the last kCachedMatmuls it made, with
// their memory objects, and repoints those at the call's data: a repeated
// shape (a layer in a loop, every run of a graph) plans once. dnnl_sgemm
// stays the fallback where a primitive cannot be made.
constexpr size_t kCachedMatmuls = 16;

struct MatmulKey {
  bool trans_a, trans_b;
  int64_t m, n, k, lda, ldb, ldc;
  float alpha, beta;
  int threads;

  bool operator==(const MatmulKey& o) const {
    // Bitwise for alpha and beta: a primitive computes with the very value.
    return trans_a == o.trans_a && trans_b == o.trans_b && m == o.m && n == o.n && k == o.k && lda == o.lda &&
           ldb == o.ldb && ldc == o.ldc && std::memcmp(&alpha, &o.alpha, sizeof alpha) == 0 &&
           std::memcmp(&beta, &o.beta, sizeof beta) == 0 && threads == o.threads;
  }
};

struct CachedMatmul {
  MatmulKey key;
  dnnl::matmul matmul;
  dnnl::memory a, b, c, scratchpad;
  uint64_t last_use = 0;
};

// The calling thread's primitive for `key`, made (evicting the least
// recently used) when it has none; null when oneDNN cannot make it.
CachedMatmul* cached_matmul(const MatmulKey& key) {
  thread_local std::vector<CachedMatmul> cache;
  thread_local uint64_t clock = 0;
  ++clock;
  for (CachedMatmul& e : cache)
    if (e.key == key) {
      e.last_use = clock;
      return &e;
    }
  using dnnl::memory;
  constexpr auto kF32 = memory::data_type::f32;
  try {
    dnnl::engine& eng = dnnl_util::cpu_engine();
    const memory::desc a({key.m, key.k}, kF32, key.trans_a ? memory::dims{1, key.lda} : memory::dims{key.lda, 1});
    const memory::desc b({key.k, key.n}, kF32, key.trans_b ? memory::dims{1, key.ldb} : memory::dims{key.ldb, 1});
    const memory::desc c({key.m, key.n}, kF32, memory::dims{key.ldc, 1});
    dnnl::primitive_attr attr = dnnl_util::with_user_scratchpad({});
    if (key.alpha != 1.0f) attr.set_output_scales(0, {key.alpha});
    if (key.beta != 0.0f) {
      dnnl::post_ops sum;
      sum.append_sum(key.beta);
      attr.set_post_ops(sum);
    }
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, eng);
    CachedMatmul made;
    made.key = key;
    made.matmul = dnnl::matmul(pd);
    made.a = memory(a, eng, DNNL_MEMORY_NONE);
    made.b = memory(b, eng, DNNL_MEMORY_NONE);
    made.c = memory(c, eng, DNNL_MEMORY_NONE);
    made.scratchpad = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    made.last_use = clock;
    if (cache.size() < kCachedMatmuls) {
      cache.push_back(std::move(made));
      return &cache.back();
    }
    CachedMatmul* oldest = &cache[0];
    for (CachedMatmul& e : cache)
      if (e.last_use < oldest->last_use) oldest = &e;
    *oldest = std::move(made);
    return oldest;
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace
#endif

bool sgemm_dnnl(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                const float* b, int64_t ldb, float beta, float* c, int64_t ldc, int threads) {
#ifdef LIBOPS_HAVE_DNNL
  if (!dnnl_enabled()) return false;
  dnnl_util::OmpThreads scope(threads);
  if (m > 0 && n > 0 && k > 0) {
    const MatmulKey key{trans_a, trans_b, m, n, k, lda, ldb, ldc, alpha, beta, threads};
    if (CachedMatmul* mm = cached_matmul(key)) {
      try {
        mm->a.set_data_handle(const_cast<float*>(a));
        mm->b.set_data_handle(const_cast<float*>(b));
        mm->c.set_data_handle(c);
        dnnl_util::scratchpad_for_this_thread(mm->scratchpad);
        thread_local dnnl::stream stream(dnnl_util::cpu_engine());
        mm->matmul.execute(stream, {{DNNL_ARG_SRC, mm->a},
                                    {DNNL_ARG_WEIGHTS, mm->b},
                                    {DNNL_ARG_DST, mm->c},
                                    {DNNL_ARG_SCRATCHPAD, mm->scratchpad}});
        stream.wait();
        return true;
      } catch (const dnnl::error&) {
        // dnnl_sgemm below
      }
    }
  }
  return dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
         dnnl_success;
#else
  (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb;
  (void)beta, (void)c, (void)ldc, (void)threads;
  return false;
#endif
}

}  // namespace libops::blas
