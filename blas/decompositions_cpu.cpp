// Decompositions on the CPU through the LAPACK routines of the BLAS library
// we link (OpenBLAS ships reference LAPACK with its own threaded kernels
// underneath), and their dispatch to a device backend.
//
// Matrices of a batch go one after the other: OpenBLAS threads each call
// itself at libops' thread count (blas_threads.h), and calling it from
// several threads at once would stack two thread pools. Each routine's
// workspace is asked for once per call (LAPACK's lwork = -1 query) and
// reused by every matrix.
#include "blas/decompositions.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "blas/blas_threads.h"
#include "blas/decomposition_kernels.h"

// LAPACK's Fortran interface (there is no LAPACKE header here). Trailing
// size_t arguments are the hidden lengths of character arguments.
extern "C" {
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             size_t jobz_len);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t jobz_len);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len, size_t uplo_len);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len, size_t uplo_len);
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr, float* wi,
            float* vl, const int* ldvl, float* vr, const int* ldvr, float* work, const int* lwork, int* info,
            size_t jobvl_len, size_t jobvr_len);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info,
            size_t jobvl_len, size_t jobvr_len);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t trans_len);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t trans_len);
}

namespace libops::blas {

namespace {

std::atomic<const DeviceDecompositions*> g_device_decompositions[kNumDeviceTypes];

// LAPACK's routines by element type, so the templates below read as LAPACK does.
template <typename T> struct Lapack;
template <> struct Lapack<float> {
  static constexpr auto geqrf = sgeqrf_;
  static constexpr auto orgqr = sorgqr_;
  static constexpr auto gesdd = sgesdd_;
  static constexpr auto syevd = ssyevd_;
  static constexpr auto geev = sgeev_;
  static constexpr auto getrf = sgetrf_;
  static constexpr auto getrs = sgetrs_;
};
template <> struct Lapack<double> {
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto orgqr = dorgqr_;
  static constexpr auto gesdd = dgesdd_;
  static constexpr auto syevd = dsyevd_;
  static constexpr auto geev = dgeev_;
  static constexpr auto getrf = dgetrf_;
  static constexpr auto getrs = dgetrs_;
};

Status check_dtype(const char* what, DataType dtype) {
  if (dtype == DataType::kFloat32 || dtype == DataType::kFloat64) return Status::ok();
  return Status::error(StatusCode::kNotImplemented, "%s: dtype %s is not supported (float32, float64 are)", what,
                       dtype_name(dtype));
}

// LAPACK counts in int; its workspaces hold up to a few times m * n.
Status check_extents(const char* what, std::initializer_list<int64_t> extents) {
  for (int64_t v : extents) {
    if (v < 0)
      return Status::error(StatusCode::kInvalidArgument, "%s: negative extent %lld", what, static_cast<long long>(v));
    if (v > INT_MAX / 8)
      return Status::error(StatusCode::kInvalidArgument, "%s: extent %lld is above LAPACK's int limits", what,
                           static_cast<long long>(v));
  }
  return Status::ok();
}

Status check_pointers(const char* what, std::initializer_list<const void*> pointers) {
  for (const void* p : pointers)
    if (p == nullptr) return Status::error(StatusCode::kNullPointer, "%s: null matrix pointer", what);
  return Status::ok();
}

// An array of `count` elements needs a pointer; an empty one may be null.
const void* needed(const void* p, int64_t count) {
  static const char kEmpty = 0;
  return count > 0 ? p : &kEmpty;
}

Status lapack_rejected(const char* what, int info) {
  return Status::error(StatusCode::kInternal, "%s: LAPACK rejected argument %d", what, -info);
}

// The size LAPACK's workspace query wrote into `query`.
template <typename T>
int workspace_size(T query) {
  return std::max(1, static_cast<int>(query));
}

template <typename T>
void identity(T* m, int64_t rows, int64_t cols) {  // column-major rows x cols
  std::fill(m, m + rows * cols, T(0));
  for (int64_t i = 0; i < std::min(rows, cols); ++i) m[i * rows + i] = T(1);
}

// ---- QR: geqrf, then orgqr on Q's columns (Note [Column-major decompositions]) ----

template <typename T>
Status qr_cpu(const QrArgs& p) {
  const int64_t m = p.m, n = p.n, k = std::min(m, n);
  const int64_t q_cols = p.complete ? m : k, r_rows = p.complete ? m : k;
  const T* a = static_cast<const T*>(p.a);
  T* q = static_cast<T*>(p.q);
  T* r = static_cast<T*>(p.r);
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k),
            iq = static_cast<int>(q_cols), ld = std::max(1, im);
  std::vector<T> f(static_cast<size_t>(m * std::max(n, q_cols))), tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
  int info = 0, lwork = -1;
  T query[2] = {};
  if (k > 0) {
    Lapack<T>::geqrf(&im, &in, f.data(), &ld, tau.data(), &query[0], &lwork, &info);
    Lapack<T>::orgqr(&im, &iq, &ik, f.data(), &ld, tau.data(), &query[1], &lwork, &info);
  }
  std::vector<T> work(static_cast<size_t>(std::max(workspace_size(query[0]), workspace_size(query[1]))));
  lwork = static_cast<int>(work.size());
  for (int64_t b = 0; b < p.batch; ++b) {
    const T* ab = a + b * m * n;
    T* qb = q + b * m * q_cols;
    T* rb = r + b * r_rows * n;
    if (k == 0) {
      identity(qb, m, q_cols);
      std::fill(rb, rb + r_rows * n, T(0));
      continue;
    }
    std::copy(ab, ab + m * n, f.data());
    Lapack<T>::geqrf(&im, &in, f.data(), &ld, tau.data(), work.data(), &lwork, &info);
    if (info < 0) return lapack_rejected("qr (geqrf)", info);
    // R: the upper triangle of the factored matrix, rows below k zero.
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < r_rows; ++i) rb[j * r_rows + i] = i <= j && i < k ? f[j * m + i] : T(0);
    // Q from the k reflectors below the diagonal; orgqr overwrites the
    // q_cols columns it is given (the ones past n of a complete Q start as
    // anything: orgqr builds them from the identity).
    Lapack<T>::orgqr(&im, &iq, &ik, f.data(), &ld, tau.data(), work.data(), &lwork, &info);
    if (info < 0) return lapack_rejected("qr (orgqr)", info);
    std::copy(f.data(), f.data() + m * q_cols, qb);
  }
  return Status::ok();
}

// ---- SVD: gesdd (divide and conquer, numpy's choice) ----

template <typename T>
Status svd_cpu(const SvdArgs& p, int64_t* not_converged) {
  const int64_t m = p.m, n = p.n, k = std::min(m, n);
  const int64_t u_cols = p.full ? m : k, v_cols = p.full ? n : k;
  T* a = static_cast<T*>(p.a);
  T* s = static_cast<T*>(p.s);
  T* u = static_cast<T*>(p.u);
  T* v = static_cast<T*>(p.v);
  if (k == 0) {  // no singular values; a full U and V are identities
    if (p.compute_uv)
      for (int64_t b = 0; b < p.batch; ++b) {
        identity(u + b * m * u_cols, m, u_cols);
        identity(v + b * n * v_cols, n, v_cols);
      }
    return Status::ok();
  }
  const char jobz = !p.compute_uv ? 'N' : p.full ? 'A' : 'S';
  const int im = static_cast<int>(m), in = static_cast<int>(n), ldu = static_cast<int>(m),
            ldvt = static_cast<int>(std::max<int64_t>(v_cols, 1));
  std::vector<T> vt(p.compute_uv ? static_cast<size_t>(v_cols * n) : 1), u_scratch(1);
  std::vector<int> iwork(static_cast<size_t>(8 * k));
  int info = 0, lwork = -1;
  T query = 0;
  Lapack<T>::gesdd(&jobz, &im, &in, a, &im, s, p.compute_uv ? u : u_scratch.data(), &ldu, vt.data(), &ldvt, &query,
                   &lwork, iwork.data(), &info, 1);
  std::vector<T> work(static_cast<size_t>(workspace_size(query)));
  lwork = static_cast<int>(work.size());
  for (int64_t b = 0; b < p.batch; ++b) {
    T* ub = p.compute_uv ? u + b * m * u_cols : u_scratch.data();
    Lapack<T>::gesdd(&jobz, &im, &in, a + b * m * n, &im, s + b * k, ub, &ldu, vt.data(), &ldvt, work.data(), &lwork,
                     iwork.data(), &info, 1);
    if (info < 0) return lapack_rejected("svd (gesdd)", info);
    if (info > 0) {
      *not_converged = b;
      return Status::ok();
    }
    if (!p.compute_uv) continue;
    T* vb = v + b * n * v_cols;  // V = (V^T)^T, both column-major
    for (int64_t j = 0; j < v_cols; ++j)
      for (int64_t i = 0; i < n; ++i) vb[j * n + i] = vt[i * v_cols + j];
  }
  return Status::ok();
}

// ---- symmetric eigen-decomposition: syevd ----

template <typename T>
Status eigh_cpu(const EighArgs& p, int64_t* not_converged) {
  const int64_t n = p.n;
  if (n == 0) return Status::ok();
  const char jobz = p.compute_v ? 'V' : 'N', uplo = p.lower ? 'L' : 'U';
  const int in = static_cast<int>(n);
  T* a = static_cast<T*>(p.a);
  T* w = static_cast<T*>(p.w);
  int info = 0, lwork = -1, liwork = -1, iquery = 0;
  T query = 0;
  Lapack<T>::syevd(&jobz, &uplo, &in, a, &in, w, &query, &lwork, &iquery, &liwork, &info, 1, 1);
  std::vector<T> work(static_cast<size_t>(workspace_size(query)));
  std::vector<int> iwork(static_cast<size_t>(std::max(1, iquery)));
  lwork = static_cast<int>(work.size());
  liwork = static_cast<int>(iwork.size());
  for (int64_t b = 0; b < p.batch; ++b) {
    Lapack<T>::syevd(&jobz, &uplo, &in, a + b * n * n, &in, w + b * n, work.data(), &lwork, iwork.data(), &liwork,
                     &info, 1, 1);
    if (info < 0) return lapack_rejected("eigh (syevd)", info);
    if (info > 0) {
      *not_converged = b;
      return Status::ok();
    }
  }
  return Status::ok();
}

// ---- general eigen-decomposition: geev, then unpacked to complex ----

template <typename T>
Status eig_cpu(const EigArgs& p, int64_t* not_converged) {
  const int64_t n = p.n;
  if (n == 0) return Status::ok();
  const char jobvl = 'N', jobvr = p.compute_v ? 'V' : 'N';
  const int in = static_cast<int>(n), one = 1, ldvr = p.compute_v ? in : 1;
  T* a = static_cast<T*>(p.a);
  std::vector<T> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n)),
      vr(p.compute_v ? static_cast<size_t>(n * n) : 1);
  T unused = 0, query = 0;
  int info = 0, lwork = -1;
  Lapack<T>::geev(&jobvl, &jobvr, &in, a, &in, wr.data(), wi.data(), &unused, &one, vr.data(), &ldvr, &query, &lwork,
                  &info, 1, 1);
  std::vector<T> work(static_cast<size_t>(workspace_size(query)));
  lwork = static_cast<int>(work.size());
  for (int64_t b = 0; b < p.batch; ++b) {
    Lapack<T>::geev(&jobvl, &jobvr, &in, a + b * n * n, &in, wr.data(), wi.data(), &unused, &one, vr.data(), &ldvr,
                    work.data(), &lwork, &info, 1, 1);
    if (info < 0) return lapack_rejected("eig (geev)", info);
    if (info > 0) {
      *not_converged = b;
      return Status::ok();
    }
    T* w = static_cast<T*>(p.w) + b * 2 * n;
    for (int64_t j = 0; j < n; ++j) w[2 * j] = wr[j], w[2 * j + 1] = wi[j];
    if (!p.compute_v) continue;
    T* v = static_cast<T*>(p.v) + b * 2 * n * n;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) kernels::unpack_eigenvector_element<T>(n, wi.data(), vr.data(), i, j, v);
  }
  return Status::ok();
}

// ---- LU: getrf and getrs ----

template <typename T>
Status lu_cpu(const LuArgs& p, int64_t* singular) {
  const int in = static_cast<int>(p.n);
  if (p.n == 0) return Status::ok();
  T* a = static_cast<T*>(p.a);
  for (int64_t b = 0; b < p.batch; ++b) {
    int info = 0;
    Lapack<T>::getrf(&in, &in, a + b * p.n * p.n, &in, p.pivots + b * p.n, &info);
    if (info < 0) return lapack_rejected("lu (getrf)", info);
    if (info > 0 && *singular < 0) *singular = b;  // the others are still factored
  }
  return Status::ok();
}

template <typename T>
Status lu_solve_cpu(const LuSolveArgs& p) {
  if (p.n == 0 || p.k == 0) return Status::ok();
  const char trans = p.transpose ? 'T' : 'N';
  const int in = static_cast<int>(p.n);
  // One A for every B: the B's side by side are one n x (k * batch)
  // column-major matrix, solved in one call.
  const int64_t calls = p.shared_a ? 1 : p.batch, rhs = p.shared_a ? p.k * p.batch : p.k;
  RETURN_IF_ERROR(check_extents("lu_solve", {rhs}));
  const int irhs = static_cast<int>(rhs);
  for (int64_t b = 0; b < calls; ++b) {
    int info = 0;
    Lapack<T>::getrs(&trans, &in, &irhs, static_cast<const T*>(p.lu) + b * p.n * p.n, &in, p.pivots + b * p.n,
                     static_cast<T*>(p.b) + b * p.n * p.k, &in, &info, 1);
    if (info < 0) return lapack_rejected("lu_solve (getrs)", info);
  }
  return Status::ok();
}

template <typename T>
void lu_determinant_cpu(int64_t n, int64_t batch, const void* lu, const int32_t* pivots, void* det, void* log_abs) {
  for (int64_t b = 0; b < batch; ++b)
    kernels::lu_determinant<T>(n, static_cast<const T*>(lu) + b * n * n, pivots + b * n, static_cast<T*>(det) + b,
                               log_abs ? static_cast<T*>(log_abs) + b : nullptr);
}

template <typename T>
void pinv_scale_rows_cpu(int64_t batch, int64_t k, int64_t cols, const void* s_in, double rcond, double l2,
                         void* t_in) {
  const T* s = static_cast<const T*>(s_in);
  T* t = static_cast<T*>(t_in);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < k; ++i) {
      const T f = kernels::pinv_factor<T>(s[b * k + i], s[b * k], rcond, l2);
      T* row = t + (b * k + i) * cols;
      for (int64_t j = 0; j < cols; ++j) row[j] *= f;
    }
}

Status no_device(const char* what, Device device) {
  return Status::error(StatusCode::kNotImplemented, "%s: no %s implementation (device %s)", what,
                       device_type_name(device.type), device.str().c_str());
}

// Runs fn<float> or fn<double> on the CPU, or the backend's entry `member`.
#define LIBOPS_DECOMPOSITION_DISPATCH(what, member, cpu_call, device_call)           \
  if (device.is_cpu()) {                                                             \
    blas_threads_follow_libops();                                                    \
    if (dtype == DataType::kFloat32) {                                               \
      using T = float;                                                               \
      return cpu_call;                                                               \
    }                                                                                \
    using T = double;                                                                \
    return cpu_call;                                                                 \
  }                                                                                  \
  RETURN_IF_ERROR(check_device(device));                                             \
  const DeviceDecompositions* fns = device_decompositions(device.type);                         \
  if (fns == nullptr || fns->member == nullptr) return no_device(what, device);      \
  return device_call;

}  // namespace

void register_device_decompositions(DeviceType type, const DeviceDecompositions* fns) {
  g_device_decompositions[static_cast<int>(type)].store(fns, std::memory_order_release);
}

const DeviceDecompositions* device_decompositions(DeviceType type) {
  return g_device_decompositions[static_cast<int>(type)].load(std::memory_order_acquire);
}

Status qr_batched_on(Device device, DataType dtype, const QrArgs& args) {
  RETURN_IF_ERROR(check_dtype("qr", dtype));
  RETURN_IF_ERROR(check_extents("qr", {args.m, args.n, args.batch}));
  if (args.batch == 0 || args.m == 0) return Status::ok();  // nothing to write
  const int64_t k = std::min(args.m, args.n), q_cols = args.complete ? args.m : k, r_rows = args.complete ? args.m : k;
  RETURN_IF_ERROR(check_pointers("qr", {needed(args.a, args.m * args.n), needed(args.q, args.m * q_cols),
                                        needed(args.r, r_rows * args.n)}));
  LIBOPS_DECOMPOSITION_DISPATCH("qr", qr, qr_cpu<T>(args), fns->qr(device.index, dtype, args));
}

Status svd_batched_on(Device device, DataType dtype, const SvdArgs& args, int64_t* not_converged) {
  if (not_converged == nullptr) return Status::error(StatusCode::kNullPointer, "svd: null not_converged pointer");
  *not_converged = -1;
  RETURN_IF_ERROR(check_dtype("svd", dtype));
  RETURN_IF_ERROR(check_extents("svd", {args.m, args.n, args.batch}));
  if (args.batch == 0) return Status::ok();
  const int64_t k = std::min(args.m, args.n);
  RETURN_IF_ERROR(check_pointers("svd", {needed(args.a, args.m * args.n), needed(args.s, k)}));
  if (args.compute_uv)
    RETURN_IF_ERROR(check_pointers("svd", {needed(args.u, args.m * (args.full ? args.m : k)),
                                           needed(args.v, args.n * (args.full ? args.n : k))}));
  LIBOPS_DECOMPOSITION_DISPATCH("svd", svd, svd_cpu<T>(args, not_converged),
                                fns->svd(device.index, dtype, args, not_converged));
}

Status eigh_batched_on(Device device, DataType dtype, const EighArgs& args, int64_t* not_converged) {
  if (not_converged == nullptr) return Status::error(StatusCode::kNullPointer, "eigh: null not_converged pointer");
  *not_converged = -1;
  RETURN_IF_ERROR(check_dtype("eigh", dtype));
  RETURN_IF_ERROR(check_extents("eigh", {args.n, args.batch}));
  if (args.batch == 0 || args.n == 0) return Status::ok();
  RETURN_IF_ERROR(check_pointers("eigh", {args.a, args.w}));
  LIBOPS_DECOMPOSITION_DISPATCH("eigh", eigh, eigh_cpu<T>(args, not_converged),
                                fns->eigh(device.index, dtype, args, not_converged));
}

Status eig_batched_on(Device device, DataType dtype, const EigArgs& args, int64_t* not_converged) {
  if (not_converged == nullptr) return Status::error(StatusCode::kNullPointer, "eig: null not_converged pointer");
  *not_converged = -1;
  RETURN_IF_ERROR(check_dtype("eig", dtype));
  RETURN_IF_ERROR(check_extents("eig", {args.n, args.batch}));
  if (args.batch == 0 || args.n == 0) return Status::ok();
  RETURN_IF_ERROR(check_pointers("eig", {args.a, args.w}));
  if (args.compute_v) RETURN_IF_ERROR(check_pointers("eig", {args.v}));
  LIBOPS_DECOMPOSITION_DISPATCH("eig", eig, eig_cpu<T>(args, not_converged),
                                fns->eig(device.index, dtype, args, not_converged));
}

Status lu_batched_on(Device device, DataType dtype, const LuArgs& args, int64_t* singular) {
  if (singular == nullptr) return Status::error(StatusCode::kNullPointer, "lu: null singular pointer");
  *singular = -1;
  RETURN_IF_ERROR(check_dtype("lu", dtype));
  RETURN_IF_ERROR(check_extents("lu", {args.n, args.batch}));
  if (args.batch == 0 || args.n == 0) return Status::ok();
  RETURN_IF_ERROR(check_pointers("lu", {args.a, args.pivots}));
  LIBOPS_DECOMPOSITION_DISPATCH("lu", lu, lu_cpu<T>(args, singular), fns->lu(device.index, dtype, args, singular));
}

Status lu_solve_batched_on(Device device, DataType dtype, const LuSolveArgs& args) {
  RETURN_IF_ERROR(check_dtype("lu_solve", dtype));
  RETURN_IF_ERROR(check_extents("lu_solve", {args.n, args.k, args.batch}));
  if (args.batch == 0 || args.n == 0 || args.k == 0) return Status::ok();
  RETURN_IF_ERROR(check_pointers("lu_solve", {args.lu, args.pivots, args.b}));
  LIBOPS_DECOMPOSITION_DISPATCH("lu_solve", lu_solve, lu_solve_cpu<T>(args), fns->lu_solve(device.index, dtype, args));
}

Status lu_permutation_on(Device device, int64_t n, int64_t batch, const int32_t* pivots, DataType index_dtype,
                         void* perm) {
  if (index_dtype != DataType::kInt32 && index_dtype != DataType::kInt64)
    return Status::error(StatusCode::kNotImplemented, "lu_permutation: index dtype %s (int32, int64 are supported)",
                         dtype_name(index_dtype));
  RETURN_IF_ERROR(check_extents("lu_permutation", {n, batch}));
  if (n == 0 || batch == 0) return Status::ok();
  RETURN_IF_ERROR(check_pointers("lu_permutation", {pivots, perm}));
  if (device.is_cpu()) {
    for (int64_t b = 0; b < batch; ++b) {
      if (index_dtype == DataType::kInt32)
        kernels::pivots_to_permutation(n, pivots + b * n, static_cast<int32_t*>(perm) + b * n);
      else
        kernels::pivots_to_permutation(n, pivots + b * n, static_cast<int64_t*>(perm) + b * n);
    }
    return Status::ok();
  }
  RETURN_IF_ERROR(check_device(device));
  const DeviceDecompositions* fns = device_decompositions(device.type);
  if (fns == nullptr || fns->lu_permutation == nullptr) return no_device("lu_permutation", device);
  return fns->lu_permutation(device.index, n, batch, pivots, index_dtype, perm);
}

Status lu_determinant_on(Device device, DataType dtype, int64_t n, int64_t batch, const void* lu,
                         const int32_t* pivots, void* det, void* log_abs) {
  RETURN_IF_ERROR(check_dtype("determinant", dtype));
  RETURN_IF_ERROR(check_extents("determinant", {n, batch}));
  if (batch == 0) return Status::ok();
  RETURN_IF_ERROR(check_pointers("determinant", {det}));
  if (n > 0) RETURN_IF_ERROR(check_pointers("determinant", {lu, pivots}));
  LIBOPS_DECOMPOSITION_DISPATCH("determinant", lu_determinant,
                                (lu_determinant_cpu<T>(n, batch, lu, pivots, det, log_abs), Status::ok()),
                                fns->lu_determinant(device.index, dtype, n, batch, lu, pivots, det, log_abs));
}

Status pinv_scale_rows_on(Device device, DataType dtype, int64_t batch, int64_t k, int64_t cols, const void* s,
                          double rcond, double l2, void* t) {
  RETURN_IF_ERROR(check_dtype("pinv_scale_rows", dtype));
  if (batch < 0 || k < 0 || cols < 0)
    return Status::error(StatusCode::kInvalidArgument, "pinv_scale_rows: negative extent");
  if (batch == 0 || k == 0 || cols == 0) return Status::ok();
  RETURN_IF_ERROR(check_pointers("pinv_scale_rows", {s, t}));
  LIBOPS_DECOMPOSITION_DISPATCH("pinv_scale_rows", pinv_scale_rows,
                                (pinv_scale_rows_cpu<T>(batch, k, cols, s, rcond, l2, t), Status::ok()),
                                fns->pinv_scale_rows(device.index, dtype, batch, k, cols, s, rcond, l2, t));
}

}  // namespace libops::blas
