// random_multinomial's kernel interface (random_multinomial.cpp, .cu) and
// the one sample both run.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/device_kernel.h"
#include "libops/ops/random/samplers.h"

namespace libops::ops {

struct MultinomialDesc {
  int64_t rows = 1, classes = 0, samples = 0;
  rng::ThreefryKey key;
  bool probs = false;  // the rows hold probabilities: their logs are the logits
};

// Sample s of row b (Note [Threefry random numbers], categorical): the class
// with the largest logit + Gumbel noise, the first of equal ones, a NaN
// before every number.
template <typename C>
LIBOPS_HOST_DEVICE inline int64_t categorical_sample(const MultinomialDesc& d, const C* row, int64_t b, int64_t s) {
  const int64_t first = (s * d.rows + b) * d.classes;
  int64_t best = 0;
  C best_v = 0;
  for (int64_t k = 0; k < d.classes; ++k) {
    const C logit = d.probs ? rng::portable_log(row[k]) : row[k];
    const C v = logit + rng::gumbel<C>(d.key, first + k);
    if (k == 0 || (best_v == best_v && (v != v || v > best_v))) {
      best = k;
      best_v = v;
    }
  }
  return best;
}

// logits: dense [rows, classes], float32 or float64; z: dense int64
// [rows, samples]; both on the device.
using MultinomialDeviceFn = Status (*)(Device device, const MultinomialDesc& d, const NDArray& logits, NDArray& z);
extern DeviceKernel<MultinomialDeviceFn> multinomial_device_kernel;

}  // namespace libops::ops
