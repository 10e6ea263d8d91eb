#include "libops/loops/convert.h"

#include <cstring>
#include <type_traits>

namespace libops {

namespace {

template <typename S, typename C>
void load_impl(const char* src, int64_t stride, int64_t n, C* dst) {
  // Dense runs (the common case) get a loop with a constant stride, which
  // the compiler vectorizes; a plain copy when nothing converts.
  constexpr int64_t kDense = sizeof(S);
  if constexpr (std::is_same_v<S, C>) {
    if (stride == kDense) return void(std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(S)));
  }
  // 16-bit floats to float: the bulk converters (F16C where the CPU has it,
  // the same bits), not one portable conversion per value: a float16 add
  // over 16M values took 130 ms so.
  if constexpr (std::is_same_v<C, float> && std::is_same_v<S, float16>) {
    if (stride == kDense) return half_to_float_n(reinterpret_cast<const uint16_t*>(src), dst, n);
  }
  if constexpr (std::is_same_v<C, float> && std::is_same_v<S, bfloat16>) {
    if (stride == kDense) return bf16_to_float_n(reinterpret_cast<const uint16_t*>(src), dst, n);
  }
  auto run = [&](auto step) {
    for (int64_t i = 0; i < n; ++i) {
      S v;
      std::memcpy(&v, src + i * step, sizeof(S));
      dst[i] = convert_value<C>(v);
    }
  };
  if (stride == kDense) run(std::integral_constant<int64_t, kDense>{});
  else run(stride);
}

template <typename R, typename S>
void store_impl(const R* src, char* dst, int64_t stride, int64_t n) {
  constexpr int64_t kDense = sizeof(S);  // as in load_impl
  if constexpr (std::is_same_v<S, R>) {
    if (stride == kDense) return void(std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(S)));
  }
  if constexpr (std::is_same_v<R, float> && std::is_same_v<S, float16>) {
    if (stride == kDense) return float_to_half_n(src, reinterpret_cast<uint16_t*>(dst), n);
  }
  if constexpr (std::is_same_v<R, float> && std::is_same_v<S, bfloat16>) {
    if (stride == kDense) return float_to_bf16_n(src, reinterpret_cast<uint16_t*>(dst), n);
  }
  auto run = [&](auto step) {
    for (int64_t i = 0; i < n; ++i) {
      S v = convert_value<S>(src[i]);
      std::memcpy(dst + i * step, &v, sizeof(S));
    }
  };
  if (stride == kDense) run(std::integral_constant<int64_t, kDense>{});
  else run(stride);
}

// Calls f(S{}) for the storage type S of `t`. Only used here, for the
// converters: kernels dispatch on compute types (core/dtype.h).
template <typename F>
decltype(auto) dispatch_storage(DataType t, F&& f) {
  switch (t) {
    case DataType::kBool: return f(bool{});
    case DataType::kInt8: return f(int8_t{});
    case DataType::kInt16: return f(int16_t{});
    case DataType::kInt32: return f(int32_t{});
    case DataType::kInt64: return f(int64_t{});
    case DataType::kUInt8: return f(uint8_t{});
    case DataType::kUInt16: return f(uint16_t{});
    case DataType::kUInt32: return f(uint32_t{});
    case DataType::kUInt64: return f(uint64_t{});
    case DataType::kFloat16: return f(float16{});
    case DataType::kBFloat16: return f(bfloat16{});
    case DataType::kFloat32: return f(float{});
    case DataType::kFloat64: break;
    case DataType::kInvalid: break;
  }
  return f(double{});
}

}  // namespace

// Exported (Note [Exported symbols]): a function template's instances take
// the visibility of its definition, not of the header's declaration.
LIBOPS_API_BEGIN
template <typename C>
LoadFn<C> load_fn(DataType src) {
  return dispatch_storage(src, [](auto s) -> LoadFn<C> { return &load_impl<decltype(s), C>; });
}

template <typename R>
StoreFn<R> store_fn(DataType dst) {
  return dispatch_storage(dst, [](auto s) -> StoreFn<R> { return &store_impl<R, decltype(s)>; });
}

#define LIBOPS_INSTANTIATE_CONVERTERS(C)          \
  template LoadFn<C> load_fn<C>(DataType);        \
  template StoreFn<C> store_fn<C>(DataType);
LIBOPS_INSTANTIATE_CONVERTERS(bool)
LIBOPS_INSTANTIATE_CONVERTERS(int32_t)
LIBOPS_INSTANTIATE_CONVERTERS(int64_t)
LIBOPS_INSTANTIATE_CONVERTERS(uint64_t)
LIBOPS_INSTANTIATE_CONVERTERS(float)
LIBOPS_INSTANTIATE_CONVERTERS(double)
#undef LIBOPS_INSTANTIATE_CONVERTERS
LIBOPS_API_END

double load_double(const void* p, DataType t) {
  return dispatch_storage(t, [p](auto s) {
    decltype(s) v;
    std::memcpy(&v, p, sizeof(v));
    return convert_value<double>(v);
  });
}

int64_t load_int64(const void* p, DataType t) {
  return dispatch_storage(t, [p](auto s) {
    decltype(s) v;
    std::memcpy(&v, p, sizeof(v));
    return convert_value<int64_t>(v);
  });
}

void store_double(void* p, DataType t, double v) {
  dispatch_storage(t, [p, v](auto s) {
    auto c = convert_value<decltype(s)>(v);
    std::memcpy(p, &c, sizeof(c));
    return 0;
  });
}

void convert_element(const void* src, DataType src_t, void* dst, DataType dst_t) {
  dispatch_storage(src_t, [&](auto s) {
    decltype(s) v;
    std::memcpy(&v, src, sizeof(v));
    return dispatch_storage(dst_t, [&](auto d) {
      auto c = convert_value<decltype(d)>(v);
      std::memcpy(dst, &c, sizeof(c));
      return 0;
    });
  });
}

}  // namespace libops
