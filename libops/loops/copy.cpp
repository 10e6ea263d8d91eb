#include "libops/loops/copy.h"

#include <cstring>

#include "libops/loops/elementwise.h"

namespace libops {

namespace {

template <typename T>
void copy_same(const NDArray& src, NDArray& dst) {
  const NDArray* in[1] = {&src};
  NdLoop<2> loop = detail::make_elementwise_loop<2>(dst, in);
  parallel_for(loop.count(), kElementwiseGrain, [&](int64_t b, int64_t e) {
    loop.run(b, e, [](char* const* p, const int64_t* s, int64_t n) {
      if (s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {
        std::memmove(p[0], p[1], static_cast<size_t>(n) * sizeof(T));
        return;
      }
      T* z = reinterpret_cast<T*>(p[0]);
      const T* x = reinterpret_cast<const T*>(p[1]);
      const int64_t sz = s[0] / int64_t(sizeof(T)), sx = s[1] / int64_t(sizeof(T));
      for (int64_t i = 0; i < n; ++i) z[i * sz] = x[i * sx];
    });
  });
}

template <typename C>
struct Identity {
  static C op(C x, const ExtraParams&) { return x; }
};

}  // namespace

void copy_into(const NDArray& src, NDArray& dst) {
  if (dst.length() == 0) return;
  if (src.dtype() == dst.dtype()) {
    switch (dst.element_size()) {
      case 1: return copy_same<uint8_t>(src, dst);
      case 2: return copy_same<uint16_t>(src, dst);
      case 4: return copy_same<uint32_t>(src, dst);
      default: return copy_same<uint64_t>(src, dst);
    }
  }
  // Convert in the compute type of the common dtype: exact for every pair
  // whose common type holds both (e.g. float64 -> float16 rounds once).
  ComputeType c = compute_type_of(promote_types(src.dtype(), dst.dtype()));
  ExtraParams e;
  dispatch_compute(c, [&](auto tag) {
    using C = decltype(tag);
    elementwise_unary<Identity<C>, C>(src, dst, e);
    return 0;
  });
}

}  // namespace libops
