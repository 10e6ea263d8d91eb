#include "blas/blas_threads.h"

#include <cblas.h>

#include <atomic>
#include <mutex>

#include "libops/core/parallel.h"

namespace libops::blas {

namespace {

// Hands OpenBLAS `want` threads when it differs from the count last handed
// over: an atomic load when nothing changed.
void set_openblas_threads(int want) {
  static std::atomic<int> handed{0};  // 0: nothing handed over yet
  if (handed.load(std::memory_order_acquire) == want) return;
  // Under a lock, so that what `handed` says is what OpenBLAS was last told
  // even when threads change the count at once.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (handed.load(std::memory_order_relaxed) == want) return;
  openblas_set_num_threads(want);
  handed.store(want, std::memory_order_release);
}

}  // namespace

void blas_single_threaded() { set_openblas_threads(1); }

void blas_threads_follow_libops() { set_openblas_threads(get_num_threads()); }

}  // namespace libops::blas
