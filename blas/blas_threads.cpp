#include "blas/blas_threads.h"

#include <cblas.h>

#include <atomic>
#include <mutex>

#include "libops/core/parallel.h"

namespace libops::blas {

void follow_libops_threads() {
  static std::atomic<int> handed{0};  // 0: nothing handed over yet
  const int want = get_num_threads();
  if (handed.load(std::memory_order_acquire) == want) return;
  // Under a lock, so that what `handed` says is what OpenBLAS was last told
  // even when threads change the count at once.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (handed.load(std::memory_order_relaxed) == want) return;
  openblas_set_num_threads(want);
  handed.store(want, std::memory_order_release);
}

}  // namespace libops::blas
