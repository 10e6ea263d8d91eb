// Decompositions on CUDA devices through cuSOLVER (compiled in CUDA builds
// only; registers itself with register_device_decompositions when the
// library loads). Same contracts as the CPU's (blas/decompositions.h), with
// the same column-major memory.
//
//   qr        geqrf, then orgqr on Q's columns; R copied out by a kernel
//   svd       gesvdj (Jacobi, any m x n, V itself rather than V^T, values
//             sorted descending); LAPACK's gesdd on the CPU, so singular
//             vectors may differ in sign between the devices
//   eigh      syevd
//   eig       Xgeev with real types: eigenvalues as 2n reals (real parts,
//             then imaginary ones) and LAPACK's packed real eigenvectors,
//             unpacked to interleaved complex by a kernel
//   lu        getrf (1-based int32 pivots, as the contract)
//   lu_solve  getrs; one A for every B is one call with all the B's side
//             by side
//
// Each matrix of a batch is one cuSOLVER call, queued on the launch
// context's stream; the info codes of all of them land in one device array
// read back once at the end (one wait per op call, the price of naming the
// matrix that failed). Batches of many small matrices would be better
// served by cuBLAS's batched LU and the batched Jacobi solvers; not done yet.
// Workspaces are sized once per call, from the routine's own query.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "blas/cuda_batch_util.h"
#include "blas/decomposition_kernels.h"
#include "blas/decompositions.h"
#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"

namespace libops::blas {

namespace {

using cuda_util::dtype_supported;
using cuda_util::extents_supported;
using cuda_util::WorkspaceLayout;

constexpr int kThreads = 256;

unsigned blocks_for(int64_t count) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((count + kThreads - 1) / kThreads, 65535)));
}

#define LIBOPS_GRID_STRIDE(i, count) \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (count); i += gridDim.x * static_cast<int64_t>(blockDim.x))

// ---- small kernels ----

// R (r_rows x n, column-major) from geqrf's factored m x n matrix f.
template <typename T>
__global__ void extract_r_kernel(const T* f, int64_t m, int64_t n, int64_t r_rows, int64_t k, T* r) {
  LIBOPS_GRID_STRIDE(e, r_rows * n) {
    const int64_t i = e % r_rows, j = e / r_rows;
    r[e] = i <= j && i < k ? f[j * m + i] : T(0);
  }
}

// `count` column-major rows x cols identities.
template <typename T>
__global__ void identity_kernel(T* m, int64_t rows, int64_t cols, int64_t count) {
  LIBOPS_GRID_STRIDE(e, rows * cols * count) {
    const int64_t in_matrix = e % (rows * cols);
    m[e] = in_matrix % rows == in_matrix / rows ? T(1) : T(0);
  }
}

template <typename T>
__global__ void unpack_eigen_kernel(int64_t n, const T* wr_wi, const T* vr, T* w, T* v) {
  const T* wi = wr_wi + n;
  LIBOPS_GRID_STRIDE(e, n) {
    w[2 * e] = wr_wi[e];
    w[2 * e + 1] = wi[e];
  }
  if (v == nullptr) return;
  LIBOPS_GRID_STRIDE(e, n * n) { kernels::unpack_eigenvector_element<T>(n, wi, vr, e % n, e / n, v); }
}

template <typename I>
__global__ void permutation_kernel(int64_t n, int64_t batch, const int32_t* pivots, I* perm) {
  LIBOPS_GRID_STRIDE(b, batch) { kernels::pivots_to_permutation(n, pivots + b * n, perm + b * n); }
}

template <typename T>
__global__ void determinant_kernel(int64_t n, int64_t batch, const T* lu, const int32_t* pivots, T* det, T* log_abs) {
  LIBOPS_GRID_STRIDE(b, batch) {
    kernels::lu_determinant<T>(n, lu + b * n * n, pivots + b * n, det + b, log_abs ? log_abs + b : nullptr);
  }
}

template <typename T>
__global__ void pinv_scale_kernel(int64_t batch, int64_t k, int64_t cols, const T* s, double rcond, double l2, T* t) {
  LIBOPS_GRID_STRIDE(e, batch * k * cols) {
    const int64_t row = e / cols, b = row / k;
    t[e] *= kernels::pinv_factor<T>(s[row], s[b * k], rcond, l2);
  }
}

// ---- cuSOLVER by element type ----

template <typename T> struct Solver;
template <> struct Solver<float> {
  static constexpr auto geqrf_size = cusolverDnSgeqrf_bufferSize;
  static constexpr auto geqrf = cusolverDnSgeqrf;
  static constexpr auto orgqr_size = cusolverDnSorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnSorgqr;
  static constexpr auto gesvdj_size = cusolverDnSgesvdj_bufferSize;
  static constexpr auto gesvdj = cusolverDnSgesvdj;
  static constexpr auto syevd_size = cusolverDnSsyevd_bufferSize;
  static constexpr auto syevd = cusolverDnSsyevd;
  static constexpr auto getrf_size = cusolverDnSgetrf_bufferSize;
  static constexpr auto getrf = cusolverDnSgetrf;
  static constexpr auto getrs = cusolverDnSgetrs;
  static constexpr cudaDataType kType = CUDA_R_32F;
};
template <> struct Solver<double> {
  static constexpr auto geqrf_size = cusolverDnDgeqrf_bufferSize;
  static constexpr auto geqrf = cusolverDnDgeqrf;
  static constexpr auto orgqr_size = cusolverDnDorgqr_bufferSize;
  static constexpr auto orgqr = cusolverDnDorgqr;
  static constexpr auto gesvdj_size = cusolverDnDgesvdj_bufferSize;
  static constexpr auto gesvdj = cusolverDnDgesvdj;
  static constexpr auto syevd_size = cusolverDnDsyevd_bufferSize;
  static constexpr auto syevd = cusolverDnDsyevd;
  static constexpr auto getrf_size = cusolverDnDgetrf_bufferSize;
  static constexpr auto getrf = cusolverDnDgetrf;
  static constexpr auto getrs = cusolverDnDgetrs;
  static constexpr cudaDataType kType = CUDA_R_64F;
};

// The context, cuSOLVER handle and stream of one call.
struct Call {
  cuda::LaunchContext* ctx = nullptr;
  cusolverDnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  static Status open(int device_index, Call& c) {
    RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &c.ctx));
    RETURN_IF_ERROR(c.ctx->cusolver(&c.handle));
    c.stream = c.ctx->stream();
    return Status::ok();
  }
};

// Reads `count` info codes back (waiting for the stream): the first
// matrix with a positive one goes to *failed; a negative one is an error.
Status read_infos(const Call& c, const char* what, int device_index, const int* infos, int64_t count,
                  int64_t* failed) {
  std::vector<int> host(static_cast<size_t>(count));
  LIBOPS_CUDA_CHECK(
      cudaMemcpyAsync(host.data(), infos, host.size() * sizeof(int), cudaMemcpyDeviceToHost, c.stream));
  LIBOPS_CUDA_CHECK(cudaStreamSynchronize(c.stream));
  for (int64_t i = 0; i < count; ++i) {
    const int info = host[static_cast<size_t>(i)];
    if (info < 0)
      return Status::error(StatusCode::kInternal, "%s on cuda:%d: cuSOLVER rejected argument %d", what, device_index,
                           -info);
    if (info > 0 && failed != nullptr && *failed < 0) *failed = i;
  }
  return Status::ok();
}

template <typename T>
Status cuda_qr_typed(int device_index, const QrArgs& p) {
  const int64_t m = p.m, n = p.n, k = std::min(m, n);
  const int64_t q_cols = p.complete ? m : k, r_rows = p.complete ? m : k;
  Call c;
  RETURN_IF_ERROR(Call::open(device_index, c));
  T* q = static_cast<T*>(p.q);
  T* r = static_cast<T*>(p.r);
  if (k == 0) {
    identity_kernel<T><<<blocks_for(m * q_cols * p.batch), kThreads, 0, c.stream>>>(q, m, q_cols, p.batch);
    LIBOPS_CUDA_CHECK_LAUNCH("qr: identity kernel launch");
    if (r_rows * n > 0)
      LIBOPS_CUDA_CHECK(cudaMemsetAsync(r, 0, static_cast<size_t>(r_rows * n * p.batch) * sizeof(T), c.stream));
    return Status::ok();
  }
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k),
            iq = static_cast<int>(q_cols);
  WorkspaceLayout layout;
  const size_t f_at = layout.add(static_cast<size_t>(m * std::max(n, q_cols)) * sizeof(T));
  const size_t tau_at = layout.add(static_cast<size_t>(k) * sizeof(T));
  const size_t info_at = layout.add(static_cast<size_t>(p.batch) * sizeof(int));
  void* base = nullptr;
  // The queries only read the extents; any device pointer serves.
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  T* f = reinterpret_cast<T*>(static_cast<char*>(base) + f_at);
  T* tau = reinterpret_cast<T*>(static_cast<char*>(base) + tau_at);
  int lwork_qr = 0, lwork_q = 0;
  LIBOPS_CUSOLVER_CHECK(Solver<T>::geqrf_size(c.handle, im, in, f, im, &lwork_qr));
  LIBOPS_CUSOLVER_CHECK(Solver<T>::orgqr_size(c.handle, im, iq, ik, f, im, tau, &lwork_q));
  const int lwork = std::max({lwork_qr, lwork_q, 1});
  const size_t work_at = layout.add(static_cast<size_t>(lwork) * sizeof(T));
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  f = reinterpret_cast<T*>(static_cast<char*>(base) + f_at);
  tau = reinterpret_cast<T*>(static_cast<char*>(base) + tau_at);
  int* infos = reinterpret_cast<int*>(static_cast<char*>(base) + info_at);
  T* work = reinterpret_cast<T*>(static_cast<char*>(base) + work_at);
  const T* a = static_cast<const T*>(p.a);
  for (int64_t b = 0; b < p.batch; ++b) {
    LIBOPS_CUDA_CHECK(cudaMemcpyAsync(f, a + b * m * n, static_cast<size_t>(m * n) * sizeof(T),
                                      cudaMemcpyDeviceToDevice, c.stream));
    LIBOPS_CUSOLVER_CHECK(Solver<T>::geqrf(c.handle, im, in, f, im, tau, work, lwork, infos + b));
    extract_r_kernel<T><<<blocks_for(r_rows * n), kThreads, 0, c.stream>>>(f, m, n, r_rows, k, r + b * r_rows * n);
    LIBOPS_CUDA_CHECK_LAUNCH("qr: R kernel launch");
    LIBOPS_CUSOLVER_CHECK(Solver<T>::orgqr(c.handle, im, iq, ik, f, im, tau, work, lwork, infos + b));
    LIBOPS_CUDA_CHECK(cudaMemcpyAsync(q + b * m * q_cols, f, static_cast<size_t>(m * q_cols) * sizeof(T),
                                      cudaMemcpyDeviceToDevice, c.stream));
  }
  return read_infos(c, "qr", device_index, infos, p.batch, nullptr);
}

// Owns a gesvdj parameter object for one call.
struct GesvdjParams {
  gesvdjInfo_t info = nullptr;
  ~GesvdjParams() {
    if (info) cusolverDnDestroyGesvdjInfo(info);
  }
};

template <typename T>
Status cuda_svd_typed(int device_index, const SvdArgs& p, int64_t* not_converged) {
  const int64_t m = p.m, n = p.n, k = std::min(m, n);
  const int64_t u_cols = p.full ? m : k, v_cols = p.full ? n : k;
  Call c;
  RETURN_IF_ERROR(Call::open(device_index, c));
  T* u = static_cast<T*>(p.u);
  T* v = static_cast<T*>(p.v);
  if (k == 0) {
    if (p.compute_uv) {
      identity_kernel<T><<<blocks_for(m * u_cols * p.batch), kThreads, 0, c.stream>>>(u, m, u_cols, p.batch);
      identity_kernel<T><<<blocks_for(n * v_cols * p.batch), kThreads, 0, c.stream>>>(v, n, v_cols, p.batch);
      LIBOPS_CUDA_CHECK_LAUNCH("svd: identity kernel launch");
    }
    return Status::ok();
  }
  const int im = static_cast<int>(m), in = static_cast<int>(n);
  const cusolverEigMode_t jobz = p.compute_uv ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const int econ = p.full ? 0 : 1;
  GesvdjParams params;
  LIBOPS_CUSOLVER_CHECK(cusolverDnCreateGesvdjInfo(&params.info));
  // gesvdj wants U and V even for values alone: scratch ones then.
  WorkspaceLayout layout;
  const size_t info_at = layout.add(static_cast<size_t>(p.batch) * sizeof(int));
  const size_t u_at = p.compute_uv ? 0 : layout.add(static_cast<size_t>(m * u_cols) * sizeof(T));
  const size_t v_at = p.compute_uv ? 0 : layout.add(static_cast<size_t>(n * v_cols) * sizeof(T));
  void* base = nullptr;
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  T* a = static_cast<T*>(p.a);
  T* s = static_cast<T*>(p.s);
  T* u0 = p.compute_uv ? u : reinterpret_cast<T*>(static_cast<char*>(base) + u_at);
  T* v0 = p.compute_uv ? v : reinterpret_cast<T*>(static_cast<char*>(base) + v_at);
  int lwork = 0;
  LIBOPS_CUSOLVER_CHECK(Solver<T>::gesvdj_size(c.handle, jobz, econ, im, in, a, im, s, u0, im, v0, in, &lwork,
                                              params.info));
  const size_t work_at = layout.add(static_cast<size_t>(std::max(lwork, 1)) * sizeof(T));
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  int* infos = reinterpret_cast<int*>(static_cast<char*>(base) + info_at);
  T* work = reinterpret_cast<T*>(static_cast<char*>(base) + work_at);
  if (!p.compute_uv) {
    u0 = reinterpret_cast<T*>(static_cast<char*>(base) + u_at);
    v0 = reinterpret_cast<T*>(static_cast<char*>(base) + v_at);
  }
  for (int64_t b = 0; b < p.batch; ++b) {
    T* ub = p.compute_uv ? u + b * m * u_cols : u0;
    T* vb = p.compute_uv ? v + b * n * v_cols : v0;
    LIBOPS_CUSOLVER_CHECK(Solver<T>::gesvdj(c.handle, jobz, econ, im, in, a + b * m * n, im, s + b * k, ub, im, vb,
                                            in, work, lwork, infos + b, params.info));
  }
  return read_infos(c, "svd", device_index, infos, p.batch, not_converged);
}

template <typename T>
Status cuda_eigh_typed(int device_index, const EighArgs& p, int64_t* not_converged) {
  const int in = static_cast<int>(p.n);
  Call c;
  RETURN_IF_ERROR(Call::open(device_index, c));
  const cusolverEigMode_t jobz = p.compute_v ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = p.lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  T* a = static_cast<T*>(p.a);
  T* w = static_cast<T*>(p.w);
  int lwork = 0;
  LIBOPS_CUSOLVER_CHECK(Solver<T>::syevd_size(c.handle, jobz, uplo, in, a, in, w, &lwork));
  WorkspaceLayout layout;
  const size_t info_at = layout.add(static_cast<size_t>(p.batch) * sizeof(int));
  const size_t work_at = layout.add(static_cast<size_t>(std::max(lwork, 1)) * sizeof(T));
  void* base = nullptr;
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  int* infos = reinterpret_cast<int*>(static_cast<char*>(base) + info_at);
  T* work = reinterpret_cast<T*>(static_cast<char*>(base) + work_at);
  for (int64_t b = 0; b < p.batch; ++b)
    LIBOPS_CUSOLVER_CHECK(
        Solver<T>::syevd(c.handle, jobz, uplo, in, a + b * p.n * p.n, in, w + b * p.n, work, lwork, infos + b));
  return read_infos(c, "eigh", device_index, infos, p.batch, not_converged);
}

// Owns a cuSOLVER 64-bit-API parameter object for one call.
struct DnParams {
  cusolverDnParams_t params = nullptr;
  ~DnParams() {
    if (params) cusolverDnDestroyParams(params);
  }
};

template <typename T>
Status cuda_eig_typed(int device_index, const EigArgs& p, int64_t* not_converged) {
  const int64_t n = p.n;
  Call c;
  RETURN_IF_ERROR(Call::open(device_index, c));
  DnParams params;
  LIBOPS_CUSOLVER_CHECK(cusolverDnCreateParams(&params.params));
  const cusolverEigMode_t jobvr = p.compute_v ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cudaDataType type = Solver<T>::kType;
  WorkspaceLayout layout;
  const size_t info_at = layout.add(static_cast<size_t>(p.batch) * sizeof(int));
  const size_t w_at = layout.add(static_cast<size_t>(2 * n) * sizeof(T));  // real parts, then imaginary ones
  const size_t vr_at = layout.add(static_cast<size_t>(n * n) * sizeof(T));
  void* base = nullptr;
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  T* a = static_cast<T*>(p.a);
  size_t device_bytes = 0, host_bytes = 0;
  LIBOPS_CUSOLVER_CHECK(cusolverDnXgeev_bufferSize(
      c.handle, params.params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, type, a, n, type,
      static_cast<char*>(base) + w_at, type, nullptr, 1, type, static_cast<char*>(base) + vr_at, n, type,
      &device_bytes, &host_bytes));
  const size_t work_at = layout.add(std::max<size_t>(device_bytes, 1));
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  int* infos = reinterpret_cast<int*>(static_cast<char*>(base) + info_at);
  T* wr_wi = reinterpret_cast<T*>(static_cast<char*>(base) + w_at);
  T* vr = reinterpret_cast<T*>(static_cast<char*>(base) + vr_at);
  void* work = static_cast<char*>(base) + work_at;
  std::vector<char> host_work(std::max<size_t>(host_bytes, 1));
  for (int64_t b = 0; b < p.batch; ++b) {
    LIBOPS_CUSOLVER_CHECK(cusolverDnXgeev(c.handle, params.params, CUSOLVER_EIG_MODE_NOVECTOR, jobvr, n, type,
                                          a + b * n * n, n, type, wr_wi, type, nullptr, 1, type, vr, n, type, work,
                                          device_bytes, host_work.data(), host_bytes, infos + b));
    T* v = p.compute_v ? static_cast<T*>(p.v) + b * 2 * n * n : nullptr;
    unpack_eigen_kernel<T><<<blocks_for(n * n), kThreads, 0, c.stream>>>(n, wr_wi, vr,
                                                                           static_cast<T*>(p.w) + b * 2 * n, v);
    LIBOPS_CUDA_CHECK_LAUNCH("eig: unpack kernel launch");
  }
  return read_infos(c, "eig", device_index, infos, p.batch, not_converged);
}

template <typename T>
Status cuda_lu_typed(int device_index, const LuArgs& p, int64_t* singular) {
  const int in = static_cast<int>(p.n);
  Call c;
  RETURN_IF_ERROR(Call::open(device_index, c));
  T* a = static_cast<T*>(p.a);
  int lwork = 0;
  LIBOPS_CUSOLVER_CHECK(Solver<T>::getrf_size(c.handle, in, in, a, in, &lwork));
  WorkspaceLayout layout;
  const size_t info_at = layout.add(static_cast<size_t>(p.batch) * sizeof(int));
  const size_t work_at = layout.add(static_cast<size_t>(std::max(lwork, 1)) * sizeof(T));
  void* base = nullptr;
  RETURN_IF_ERROR(c.ctx->workspace(layout.total(), &base));
  int* infos = reinterpret_cast<int*>(static_cast<char*>(base) + info_at);
  T* work = reinterpret_cast<T*>(static_cast<char*>(base) + work_at);
  for (int64_t b = 0; b < p.batch; ++b)
    LIBOPS_CUSOLVER_CHECK(Solver<T>::getrf(c.handle, in, in, a + b * p.n * p.n, in, work, p.pivots + b * p.n,
                                           infos + b));
  return read_infos(c, "lu", device_index, infos, p.batch, singular);
}

template <typename T>
Status cuda_lu_solve_typed(int device_index, const LuSolveArgs& p) {
  const int64_t calls = p.shared_a ? 1 : p.batch, rhs = p.shared_a ? p.k * p.batch : p.k;
  RETURN_IF_ERROR(extents_supported("lu_solve", device_index, {rhs}));
  const int in = static_cast<int>(p.n), irhs = static_cast<int>(rhs);
  Call c;
  RETURN_IF_ERROR(Call::open(device_index, c));
  void* base = nullptr;
  RETURN_IF_ERROR(c.ctx->workspace(static_cast<size_t>(calls) * sizeof(int), &base));
  int* infos = static_cast<int*>(base);
  const cublasOperation_t trans = p.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  for (int64_t b = 0; b < calls; ++b)
    LIBOPS_CUSOLVER_CHECK(Solver<T>::getrs(c.handle, trans, in, irhs, static_cast<const T*>(p.lu) + b * p.n * p.n, in,
                                           p.pivots + b * p.n, static_cast<T*>(p.b) + b * p.n * p.k, in,
                                           infos + b));
  return read_infos(c, "lu_solve", device_index, infos, calls, nullptr);
}

// ---- the entries: checks, then the typed work ----

#define LIBOPS_BY_DTYPE(dtype, call_float, call_double) \
  ((dtype) == DataType::kFloat32 ? (call_float) : (call_double))

Status cuda_qr(int device_index, DataType dtype, const QrArgs& args) {
  RETURN_IF_ERROR(dtype_supported("qr", device_index, dtype));
  RETURN_IF_ERROR(extents_supported("qr", device_index, {args.m, args.n}));
  return LIBOPS_BY_DTYPE(dtype, cuda_qr_typed<float>(device_index, args), cuda_qr_typed<double>(device_index, args));
}

Status cuda_svd(int device_index, DataType dtype, const SvdArgs& args, int64_t* not_converged) {
  RETURN_IF_ERROR(dtype_supported("svd", device_index, dtype));
  RETURN_IF_ERROR(extents_supported("svd", device_index, {args.m, args.n}));
  return LIBOPS_BY_DTYPE(dtype, cuda_svd_typed<float>(device_index, args, not_converged),
                         cuda_svd_typed<double>(device_index, args, not_converged));
}

Status cuda_eigh(int device_index, DataType dtype, const EighArgs& args, int64_t* not_converged) {
  RETURN_IF_ERROR(dtype_supported("eigh", device_index, dtype));
  RETURN_IF_ERROR(extents_supported("eigh", device_index, {args.n}));
  return LIBOPS_BY_DTYPE(dtype, cuda_eigh_typed<float>(device_index, args, not_converged),
                         cuda_eigh_typed<double>(device_index, args, not_converged));
}

Status cuda_eig(int device_index, DataType dtype, const EigArgs& args, int64_t* not_converged) {
  RETURN_IF_ERROR(dtype_supported("eig", device_index, dtype));
  return LIBOPS_BY_DTYPE(dtype, cuda_eig_typed<float>(device_index, args, not_converged),
                         cuda_eig_typed<double>(device_index, args, not_converged));
}

Status cuda_lu(int device_index, DataType dtype, const LuArgs& args, int64_t* singular) {
  RETURN_IF_ERROR(dtype_supported("lu", device_index, dtype));
  RETURN_IF_ERROR(extents_supported("lu", device_index, {args.n}));
  return LIBOPS_BY_DTYPE(dtype, cuda_lu_typed<float>(device_index, args, singular),
                         cuda_lu_typed<double>(device_index, args, singular));
}

Status cuda_lu_solve(int device_index, DataType dtype, const LuSolveArgs& args) {
  RETURN_IF_ERROR(dtype_supported("lu_solve", device_index, dtype));
  RETURN_IF_ERROR(extents_supported("lu_solve", device_index, {args.n, args.k}));
  return LIBOPS_BY_DTYPE(dtype, cuda_lu_solve_typed<float>(device_index, args),
                         cuda_lu_solve_typed<double>(device_index, args));
}

Status cuda_lu_permutation(int device_index, int64_t n, int64_t batch, const int32_t* pivots, DataType index_dtype,
                           void* perm) {
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  if (index_dtype == DataType::kInt32)
    permutation_kernel<int32_t><<<blocks_for(batch), kThreads, 0, ctx->stream()>>>(n, batch, pivots,
                                                                                    static_cast<int32_t*>(perm));
  else
    permutation_kernel<int64_t><<<blocks_for(batch), kThreads, 0, ctx->stream()>>>(n, batch, pivots,
                                                                                    static_cast<int64_t*>(perm));
  LIBOPS_CUDA_CHECK_LAUNCH("lu: permutation kernel launch");
  return Status::ok();
}

Status cuda_lu_determinant(int device_index, DataType dtype, int64_t n, int64_t batch, const void* lu,
                           const int32_t* pivots, void* det, void* log_abs) {
  RETURN_IF_ERROR(dtype_supported("determinant", device_index, dtype));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  if (dtype == DataType::kFloat32)
    determinant_kernel<float><<<blocks_for(batch), kThreads, 0, ctx->stream()>>>(
        n, batch, static_cast<const float*>(lu), pivots, static_cast<float*>(det), static_cast<float*>(log_abs));
  else
    determinant_kernel<double><<<blocks_for(batch), kThreads, 0, ctx->stream()>>>(
        n, batch, static_cast<const double*>(lu), pivots, static_cast<double*>(det), static_cast<double*>(log_abs));
  LIBOPS_CUDA_CHECK_LAUNCH("determinant kernel launch");
  return Status::ok();
}

Status cuda_pinv_scale_rows(int device_index, DataType dtype, int64_t batch, int64_t k, int64_t cols, const void* s,
                            double rcond, double l2, void* t) {
  RETURN_IF_ERROR(dtype_supported("pinv_scale_rows", device_index, dtype));
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(device_index, &ctx));
  if (dtype == DataType::kFloat32)
    pinv_scale_kernel<float><<<blocks_for(batch * k * cols), kThreads, 0, ctx->stream()>>>(
        batch, k, cols, static_cast<const float*>(s), rcond, l2, static_cast<float*>(t));
  else
    pinv_scale_kernel<double><<<blocks_for(batch * k * cols), kThreads, 0, ctx->stream()>>>(
        batch, k, cols, static_cast<const double*>(s), rcond, l2, static_cast<double*>(t));
  LIBOPS_CUDA_CHECK_LAUNCH("pinv_scale_rows kernel launch");
  return Status::ok();
}

const DeviceDecompositions kCudaDecompositions{cuda_qr,        cuda_svd,           cuda_eigh,
                                               cuda_eig,       cuda_lu,            cuda_lu_solve,
                                               cuda_lu_permutation, cuda_lu_determinant, cuda_pinv_scale_rows};

[[maybe_unused]] const bool kRegistered = [] {
  register_device_decompositions(DeviceType::kCuda, &kCudaDecompositions);
  return true;
}();

}  // namespace

}  // namespace libops::blas
