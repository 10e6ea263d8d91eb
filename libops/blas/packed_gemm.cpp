// Packed-weights GEMM through oneDNN's matmul (Note [Packed GEMM]).
#include "libops/blas/packed_gemm.h"

#include <new>

#include "libops/blas/conv_dnnl.h"

#ifdef LIBOPS_HAVE_DNNL
#include "libops/blas/dnnl_util.h"
#endif

namespace libops::blas {

#ifdef LIBOPS_HAVE_DNNL

struct PackedGemmF32::Impl {
  int threads = 1;
  dnnl::matmul matmul;
  dnnl::memory::desc a_md, c_md;
  dnnl::memory::desc scratchpad_md;  // Note [oneDNN scratchpads]
  dnnl::memory weights;  // B in the matmul's own layout
};

PackedGemmF32::PackedGemmF32() = default;
PackedGemmF32::~PackedGemmF32() = default;

Status PackedGemmF32::pack(int64_t m, int64_t n, int64_t k, const float* b, int64_t ldb, bool trans_b, int64_t lda,
                           int64_t ldc, int threads) {
  impl_.reset();
  if (!dnnl_enabled()) return Status::error(StatusCode::kNotImplemented, "oneDNN is turned off");
  using dnnl::memory;
  constexpr auto kF32 = memory::data_type::f32;
  try {
    dnnl_util::OmpThreads scope(threads);
    dnnl::engine& eng = dnnl_util::cpu_engine();
    auto impl = std::make_unique<Impl>();
    impl->threads = threads;
    impl->a_md = memory::desc({m, k}, kF32, memory::dims{lda, 1});
    impl->c_md = memory::desc({m, n}, kF32, memory::dims{ldc, 1});
    const memory::desc any_w({k, n}, kF32, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(impl->a_md, any_w, impl->c_md),
                                          dnnl_util::with_user_scratchpad({}), eng);
    impl->matmul = dnnl::matmul(pd);
    impl->scratchpad_md = pd.scratchpad_desc();
    const memory::desc user_w({k, n}, kF32, trans_b ? memory::dims{1, ldb} : memory::dims{ldb, 1});
    memory user(user_w, eng, const_cast<float*>(b));
    impl->weights = memory(pd.weights_desc(), eng);
    dnnl::stream stream(eng);
    dnnl::reorder(user, impl->weights).execute(stream, user, impl->weights);
    stream.wait();
    impl_ = std::move(impl);
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(StatusCode::kNotImplemented, "oneDNN matmul: %s (status %d)", e.what(),
                         static_cast<int>(e.status));
  } catch (const std::bad_alloc&) {
    return Status::error(StatusCode::kOutOfMemory, "oneDNN matmul: out of memory");
  }
}

Status PackedGemmF32::run(const float* a, float* c) {
  if (impl_ == nullptr) return Status::error(StatusCode::kInvalidArgument, "PackedGemmF32::run before pack");
  try {
    dnnl_util::OmpThreads scope(impl_->threads);
    dnnl::engine& eng = dnnl_util::cpu_engine();
    dnnl::memory am(impl_->a_md, eng, const_cast<float*>(a)), cm(impl_->c_md, eng, c);
    thread_local dnnl::stream stream(eng);
    const size_t scratch = impl_->scratchpad_md.get_size();
    dnnl::memory sm(impl_->scratchpad_md, eng, scratch > 0 ? dnnl_util::thread_scratchpad(scratch) : nullptr);
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

struct PackedGemmF32::Impl {};
PackedGemmF32::PackedGemmF32() = default;
PackedGemmF32::~PackedGemmF32() = default;

Status PackedGemmF32::pack(int64_t, int64_t, int64_t, const float*, int64_t, bool, int64_t, int64_t, int) {
  return Status::error(StatusCode::kNotImplemented, "libops was built without oneDNN");
}

Status PackedGemmF32::run(const float*, float*) {
  return Status::error(StatusCode::kNotImplemented, "libops was built without oneDNN");
}

#endif

}  // namespace libops::blas
