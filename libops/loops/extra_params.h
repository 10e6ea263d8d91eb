// ExtraParams: the few scalar parameters a legacy functor may read (leaky
// relu's alpha, norm_p's p, match_condition's mode and epsilon, ...).
#pragma once

#include "libops/core/host_device.h"

namespace libops {

struct ExtraParams {
  static constexpr int kMax = 8;
  double v[kMax] = {};
  int n = 0;

  LIBOPS_HOST_DEVICE double get(int i, double fallback) const { return i < n ? v[i] : fallback; }
  static ExtraParams from(const double* p, int count) {
    ExtraParams e;
    for (int i = 0; i < count && i < kMax; ++i) e.v[e.n++] = p[i];
    return e;
  }
};

}  // namespace libops
