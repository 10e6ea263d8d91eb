#include "libops/loops/copy.h"

#include <algorithm>
#include <cstring>

#include "libops/core/half.h"
#include "libops/loops/elementwise.h"

namespace libops {

namespace {

// Note [Tiled transposes]: when dst is dense along its innermost dim but
// src is dense along another one (a transpose, or a permute that moves the
// innermost dim), a row-by-row copy reads one element of each source cache
// line and moves on: every line is fetched again for each of its elements
// once a row is longer than L1 holds. The copy instead goes through tiles
// of kTileRows x kTileCols (dst rows x dst columns): the kTileCols source
// lines of a tile row are each used for 64 bytes' worth of rows before
// they leave L1. kTileCols is 8 because source rows a power of two apart
// (the common case) fall in one L1 set, which has 8 ways: 16 or 32
// columns measured 2x slower on a 4096^2 float32 transpose than 8 columns;
// 128 rows measured best among 32..512.
constexpr int64_t kTileRows = 128, kTileCols = 8;

// The tiled copy when the loop has that layout; false otherwise.
template <typename T>
bool copy_tiled(const NdLoop<2>& loop) {
  constexpr int64_t es = sizeof(T);
  const int last = loop.rank - 1;
  if (loop.rank < 2 || loop.strides[0][last] != es) return false;
  const int64_t sb = loop.strides[1][last];  // src step along dst's rows
  if (sb >= -64 && sb <= 64) return false;   // rows share source lines already
  int a = -1;  // the dim src is dense along
  for (int d = 0; d < last; ++d)
    if (loop.strides[1][d] == es) a = d;
  if (a < 0) return false;
  // The other dims, outermost first: one (a, last) plane each.
  int64_t outer_shape[kMaxRank], outer_stride[2][kMaxRank];
  int outer_rank = 0;
  int64_t planes = 1;
  for (int d = 0; d < last; ++d) {
    if (d == a) continue;
    outer_shape[outer_rank] = loop.shape[d];
    outer_stride[0][outer_rank] = loop.strides[0][d];
    outer_stride[1][outer_rank] = loop.strides[1][d];
    planes *= loop.shape[d];
    ++outer_rank;
  }
  const int64_t rows = loop.shape[a], cols = loop.shape[last], za = loop.strides[0][a];
  const int64_t row_tiles = (rows + kTileRows - 1) / kTileRows;
  // A task: kTileRows rows of one plane, all their column tiles.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / (kTileRows * cols));
  parallel_for(planes * row_tiles, grain, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      int64_t o = task / row_tiles;
      const int64_t r0 = (task % row_tiles) * kTileRows, r1 = std::min(rows, r0 + kTileRows);
      char* zp = loop.base[0];
      const char* xp = loop.base[1];
      for (int d = outer_rank - 1; d >= 0; --d) {
        const int64_t i = o % outer_shape[d];
        o /= outer_shape[d];
        zp += i * outer_stride[0][d];
        xp += i * outer_stride[1][d];
      }
      for (int64_t c0 = 0; c0 < cols; c0 += kTileCols) {
        const int64_t c1 = std::min(cols, c0 + kTileCols);
        for (int64_t r = r0; r < r1; ++r) {
          T* z = reinterpret_cast<T*>(zp + r * za);
          const char* x = xp + r * es;
          for (int64_t c = c0; c < c1; ++c) std::memcpy(z + c, x + c * sb, es);
        }
      }
    }
  });
  return true;
}

template <typename T>
void copy_same(const NDArray& src, NDArray& dst) {
  const NDArray* in[1] = {&src};
  NdLoop<2> loop = detail::make_elementwise_loop<2>(dst, in);
  if (copy_tiled<T>(loop)) return;
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

// Dense float32 <-> float16 / bfloat16 copies (casts, and every 16-bit
// float array staged for a float kernel) go through the bulk converters of
// core/half.h, 8 values per F16C instruction, instead of one value per
// call of the element-wise engine; false for any other pair or layout.
bool convert_dense_16bit(const NDArray& src, NDArray& dst) {
  if (!src.is_contiguous() || !dst.is_contiguous() || src.shape() != dst.shape() || src.strides() != dst.strides())
    return false;
  using Convert = void (*)(const void*, void*, int64_t);
  Convert convert = nullptr;
  const DataType from = src.dtype(), to = dst.dtype();
  if (from == DataType::kFloat32 && to == DataType::kFloat16) {
    convert = [](const void* s, void* d, int64_t n) {
      float_to_half_n(static_cast<const float*>(s), static_cast<uint16_t*>(d), n);
    };
  } else if (from == DataType::kFloat16 && to == DataType::kFloat32) {
    convert = [](const void* s, void* d, int64_t n) {
      half_to_float_n(static_cast<const uint16_t*>(s), static_cast<float*>(d), n);
    };
  } else if (from == DataType::kFloat32 && to == DataType::kBFloat16) {
    convert = [](const void* s, void* d, int64_t n) {
      float_to_bf16_n(static_cast<const float*>(s), static_cast<uint16_t*>(d), n);
    };
  } else if (from == DataType::kBFloat16 && to == DataType::kFloat32) {
    convert = [](const void* s, void* d, int64_t n) {
      bf16_to_float_n(static_cast<const uint16_t*>(s), static_cast<float*>(d), n);
    };
  }
  if (convert == nullptr) return false;
  const char* sp = static_cast<const char*>(src.data());
  char* dp = static_cast<char*>(dst.data());
  const int64_t ss = static_cast<int64_t>(src.element_size()), ds = static_cast<int64_t>(dst.element_size());
  parallel_for(dst.length(), kElementwiseGrain,
               [&](int64_t b, int64_t e) { convert(sp + b * ss, dp + b * ds, e - b); });
  return true;
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
  if (convert_dense_16bit(src, dst)) return;
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
