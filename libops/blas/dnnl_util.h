// What the oneDNN helpers of blas/ share (conv_dnnl.cpp, matmul_dnnl.cpp):
// one CPU engine, and running under libops' thread count. Included only
// where LIBOPS_HAVE_DNNL is defined.
#pragma once

#include <omp.h>

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

}  // namespace libops::blas::dnnl_util
