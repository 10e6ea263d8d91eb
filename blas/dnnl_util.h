// What the oneDNN helpers of blas/ share (conv_dnnl.cpp, matmul_dnnl.cpp):
// one CPU engine, and running under libops' thread count. Included only
// where LIBOPS_HAVE_DNNL is defined.
#pragma once

#include <omp.h>

#include <cstdlib>
#include <new>

#include <oneapi/dnnl/dnnl.hpp>

namespace libops::blas::dnnl_util {

inline dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Runs with `threads` OpenMP threads on the calling thread, then restores
// its setting: oneDNN shares libops' OpenMP runtime, so one pool serves
// both and nothing is oversubscribed.
class OmpThreads {
 public:
  explicit OmpThreads(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads < 1 ? 1 : threads); }
  ~OmpThreads() { omp_set_num_threads(saved_); }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  int saved_;
};

// Note [oneDNN scratchpads]
// A primitive's library-managed scratchpad is allocated and freed around
// each execution: a large one (Winograd's transformed tiles) came back as
// freshly mapped pages every time, which the kernel zeroes (ResNet-18 at
// batch 8: 28 page faults of 2 MB a run). The primitives made here ask for
// a user scratchpad instead (with_user_scratchpad), and each thread keeps
// one buffer for all of them, grown to the largest one needs: primitives
// on one thread run one after the other.
inline dnnl::primitive_attr with_user_scratchpad(dnnl::primitive_attr attr) {
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

// The calling thread's scratch buffer of at least `bytes`, 64-byte aligned.
inline void* thread_scratchpad(size_t bytes) {
  struct Buffer {
    void* data = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffer;
  if (bytes > buffer.size) {
    std::free(buffer.data);
    const size_t rounded = (bytes + 4095) & ~size_t{4095};
    buffer.data = std::aligned_alloc(64, rounded);
    buffer.size = buffer.data != nullptr ? rounded : 0;
    if (buffer.data == nullptr) throw std::bad_alloc();
  }
  return buffer.data;
}

// `m` (over the primitive's scratchpad_desc()) pointed at the thread's
// buffer, for DNNL_ARG_SCRATCHPAD.
inline dnnl::memory& scratchpad_for_this_thread(dnnl::memory& m) {
  const size_t bytes = m.get_desc().get_size();
  if (bytes > 0) m.set_data_handle(thread_scratchpad(bytes));
  return m;
}

}  // namespace libops::blas::dnnl_util
