// Note [Small matrices] (small_gemm.h): batched GEMMs of matrices with
// every extent <= 8, as Matrix<T, M, K> * Matrix<T, K, N> in registers.
#include "blas/small_gemm.h"

#include <algorithm>
#include <array>
#include <utility>

#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "libops/loops/streaming_store.h"
#include "libops/matrix/matrix.h"

namespace libops::blas {
namespace {

struct SmallGemm {
  bool trans_a, trans_b;
  bool stream;  // C dense and larger than the cache: Note [Streaming stores]
  int64_t m, n, k;
  double alpha, beta;
  const void* a;
  int64_t lda, stride_a;
  const void* b;
  int64_t ldb, stride_b;
  void* c;
  int64_t ldc, stride_c;
};

// Note [Transposed products]
// libops' matrices are row-major, Matrix's storage column-major: a
// row-major R x C matrix is, read column-major, its C x R transpose. So the
// kernels compute C^T = op(B)^T op(A)^T, whose column-major store is C's
// row-major one: the plain case loads and stores without a shuffle, and
// each column of C^T (a row of C) is a sum of rows of B scaled by elements
// of A, which vectorizes along the row. The products and their k order are
// those of C = op(A) op(B).

// op(X)^T, R x C, from a stored matrix whose element (i, j) of op(X)^T is
// at p[i * rs + j * cs]: X's rows read as columns (rs = 1, cs = ld), or,
// when op transposes, X read row by row (rs = ld, cs = 1). Only the
// rows x cols corner is read; the rest stays zero (extents above 4 run the
// 8 x 8 x 8 kernel).
template <typename T, int R, int C>
LIBOPS_FORCE_INLINE Matrix<T, R, C> load_strided(const T* p, int64_t rs, int64_t cs, int64_t rows, int64_t cols) {
  Matrix<T, R, C> m;
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) m(static_cast<int>(i), static_cast<int>(j)) = p[i * rs + j * cs];
  return m;
}

// C_i = alpha * op(A_i) * op(B_i) + beta * C_i for i in [begin, end), as
// C_i^T (Note [Transposed products]).
// kDense: no transposes, alpha 1, beta 0 and the exact extents M, K, N:
//   column-major loads and stores whose columns are contiguous (vector
//   loads), nothing decided inside the loop. GCC if-converts a choice
//   between a transposed and a plain load into both loads and a blend, so
//   the other calls take the general path below instead.
// Otherwise: any transposes, alpha and beta, and (for the 8 x 8 x 8
//   kernel) extents up to M, K, N, read element by element with strides.
template <typename T, int M, int K, int N, bool kDense>
LIBOPS_FORCE_INLINE void small_gemm_range(const SmallGemm& g, int64_t begin, int64_t end) {
  const T* a = static_cast<const T*>(g.a);
  const T* b = static_cast<const T*>(g.b);
  T* c = static_cast<T*>(g.c);
  if constexpr (kDense) {
    auto product = [&](int64_t i, T* dst) {
      const Matrix<T, N, M> ct = column_major_load<T, N, K>(b + i * g.stride_b, g.ldb) *
                                 column_major_load<T, K, M>(a + i * g.stride_a, g.lda);
      column_major_store(ct, dst, g.ldc);
    };
    int64_t i = begin;
#if LIBOPS_HAVE_STREAMING_STORES
    // A C larger than the cache goes out with non-temporal stores, whole
    // 128-byte tiles of matrices from a 64-byte aligned address: without
    // them every line of C is read before it is written, a fourth stream
    // beside A, B and C (Note [Streaming stores]). For matrices whose size
    // divides 128 bytes or is a multiple of it.
    constexpr int64_t kBytes = int64_t(M) * N * int64_t(sizeof(T));
    if constexpr (kBytes % 128 == 0 || 128 % kBytes == 0) {
      if (g.stream) {
        constexpr int64_t kGroup = kBytes >= 128 ? 1 : 128 / kBytes;
        for (; i < end && reinterpret_cast<uintptr_t>(c + i * g.stride_c) % 64 != 0; ++i) product(i, c + i * g.stride_c);
        const bool wide = libops::detail::stream_wide_tiles();
        for (; i + kGroup <= end; i += kGroup) {
          alignas(64) T tile[kGroup * M * N];
          for (int64_t j = 0; j < kGroup; ++j) product(i + j, tile + j * M * N);
          for (int64_t off = 0; off < kGroup * kBytes; off += 128)
            libops::detail::stream_tile(reinterpret_cast<char*>(c + i * g.stride_c) + off,
                                        reinterpret_cast<const char*>(tile) + off, wide);
        }
        _mm_sfence();
      }
    }
#endif
    for (; i < end; ++i) product(i, c + i * g.stride_c);
  } else {
    const int64_t brs = g.trans_b ? g.ldb : 1, bcs = g.trans_b ? 1 : g.ldb;
    const int64_t ars = g.trans_a ? g.lda : 1, acs = g.trans_a ? 1 : g.lda;
    const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
    for (int64_t i = begin; i < end; ++i) {
      T* pc = c + i * g.stride_c;
      Matrix<T, N, M> ct = load_strided<T, N, K>(b + i * g.stride_b, brs, bcs, g.n, g.k) *
                           load_strided<T, K, M>(a + i * g.stride_a, ars, acs, g.k, g.m);
      ct = ct * alpha;
      if (g.beta != 0.0) ct += load_strided<T, N, M>(pc, 1, g.ldc, g.n, g.m) * beta;
      for (int64_t row = 0; row < g.m; ++row)
        for (int64_t col = 0; col < g.n; ++col)
          pc[row * g.ldc + col] = ct(static_cast<int>(col), static_cast<int>(row));
    }
  }
}

// Multiply-adds a thread should get before another one is started.
constexpr int64_t kWorkPerChunk = int64_t{1} << 15;

template <typename T, int M, int K, int N>
void small_gemm_kernel(const SmallGemm& g, int64_t batch) {
  const int64_t grain = std::max<int64_t>(1, kWorkPerChunk / (M * K * N));
  const bool dense = !g.trans_a && !g.trans_b && g.alpha == 1.0 && g.beta == 0.0 && g.m == M && g.k == K && g.n == N;
  SmallGemm gs = g;
  gs.stream = dense && g.ldc == N && g.stride_c == int64_t(M) * N &&
              batch * M * N * int64_t(sizeof(T)) >= streaming_store_threshold();
  parallel_for(batch, grain, [&](int64_t begin, int64_t end) {
    isa_dispatch([&] {
      if (dense)
        small_gemm_range<T, M, K, N, true>(gs, begin, end);
      else
        small_gemm_range<T, M, K, N, false>(gs, begin, end);
    });
  });
}

using Kernel = void (*)(const SmallGemm&, int64_t);

// Exact kernels for extents 1..4: index ((m - 1) * 4 + (k - 1)) * 4 + (n - 1).
template <typename T, size_t... I>
constexpr std::array<Kernel, sizeof...(I)> exact_kernels(std::index_sequence<I...>) {
  return {&small_gemm_kernel<T, int(I / 16) + 1, int(I / 4 % 4) + 1, int(I % 4) + 1>...};
}

template <typename T>
void run_small(const SmallGemm& g, int64_t batch) {
  static constexpr auto kExact = exact_kernels<T>(std::make_index_sequence<64>());
  if (g.m <= 4 && g.k <= 4 && g.n <= 4)
    return kExact[((g.m - 1) * 4 + (g.k - 1)) * 4 + (g.n - 1)](g, batch);
  small_gemm_kernel<T, 8, 8, 8>(g, batch);
}

}  // namespace

bool is_small_gemm(DataType dtype, int64_t m, int64_t n, int64_t k) {
  return (dtype == DataType::kFloat32 || dtype == DataType::kFloat64) && m >= 1 && n >= 1 && k >= 1 &&
         m <= kSmallGemmMaxExtent && n <= kSmallGemmMaxExtent && k <= kSmallGemmMaxExtent;
}

void small_gemm_batched(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                        const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
                        double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch) {
  const SmallGemm g{trans_a, trans_b, false, m, n, k, alpha, beta, a, lda, stride_a, b, ldb, stride_b, c, ldc, stride_c};
  if (dtype == DataType::kFloat32)
    run_small<float>(g, batch);
  else
    run_small<double>(g, batch);
}

}  // namespace libops::blas
