// The CPU kernel of sort, argsort and top_k (sort.h, Note [Sort order]):
// an LSD radix sort of order-preserving keys, 8 bits a pass, skipping the
// passes whose digit every key shares; rows in parallel, or one long row's
// passes split between threads (each thread counts its chunk's digits,
// then scatters its chunk, which keeps the sort stable). Short rows and
// small top-k take std::sort / nth_element on (key, index) pairs, whose
// lexicographic order is the same stable order.
#include <algorithm>
#include <cstring>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/sort/sort.h"
#include "libops/ops/sort/sort_keys.h"

namespace libops::ops {

DeviceKernel<SortDeviceFn> sort_device_kernel;

DataType sort_key_dtype(DataType t) {
  switch (t) {
    case DataType::kFloat16: case DataType::kBFloat16: case DataType::kFloat32: return DataType::kFloat32;
    case DataType::kFloat64: return DataType::kFloat64;
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: return DataType::kInt32;
    case DataType::kInt64: return DataType::kInt64;
    case DataType::kUInt64: return DataType::kUInt64;
    default: return DataType::kUInt32;  // bool, uint8..uint32
  }
}

namespace {

constexpr int kRadix = 256;
constexpr int64_t kSmallRow = 512;           // std::sort below this
constexpr int64_t kParallelRow = 1 << 18;    // split one row's passes between threads above this

// Stable LSD radix sort of keys[0, n) (and idx alongside, when given), using
// the scratch arrays of the same size; the result ends in keys/idx.
template <typename U>
void radix_sort(U* keys, int64_t* idx, int64_t n, U* keys_tmp, int64_t* idx_tmp, int threads) {
  constexpr int kPasses = static_cast<int>(sizeof(U));
  const int t_count = n >= kParallelRow ? std::max(1, threads) : 1;
  const int64_t chunk = (n + t_count - 1) / t_count;
  // hist[t][pass][digit]: every pass's counts in one read of the keys.
  std::vector<int64_t> hist(static_cast<size_t>(t_count) * kPasses * kRadix, 0);
  auto h = [&](int t, int p, int b) -> int64_t& {
    return hist[(static_cast<size_t>(t) * kPasses + static_cast<size_t>(p)) * kRadix + static_cast<size_t>(b)];
  };
  parallel_for(t_count, 1, [&](int64_t tb, int64_t te) {
    for (int64_t t = tb; t < te; ++t)
      for (int64_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i)
        for (int p = 0; p < kPasses; ++p) ++h(static_cast<int>(t), p, static_cast<int>((keys[i] >> (8 * p)) & 0xFF));
  });
  U *src = keys, *dst = keys_tmp;
  int64_t *isrc = idx, *idst = idx_tmp;
  bool moved = false;  // a pass has reordered the keys
  for (int p = 0; p < kPasses; ++p) {
    // A digit all keys share orders nothing: skip the pass.
    bool constant = false;
    for (int b = 0; b < kRadix && !constant; ++b) {
      int64_t total = 0;
      for (int t = 0; t < t_count; ++t) total += h(t, p, b);
      constant = total == n;
    }
    if (constant) continue;
    // Each thread's counts must be of its chunk of the keys as they are
    // now: the first histogram saw them before any pass moved them, which
    // only still holds for the totals (and for one thread).
    if (t_count > 1 && moved)
      parallel_for(t_count, 1, [&](int64_t tb, int64_t te) {
        for (int64_t t = tb; t < te; ++t) {
          int64_t* counts = &h(static_cast<int>(t), p, 0);
          std::fill(counts, counts + kRadix, int64_t{0});
          for (int64_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) ++counts[(src[i] >> (8 * p)) & 0xFF];
        }
      });
    // offsets: bucket by bucket, and within a bucket thread by thread.
    std::vector<int64_t> offset(static_cast<size_t>(t_count) * kRadix);
    int64_t at = 0;
    for (int b = 0; b < kRadix; ++b)
      for (int t = 0; t < t_count; ++t) {
        offset[static_cast<size_t>(t) * kRadix + static_cast<size_t>(b)] = at;
        at += h(t, p, b);
      }
    parallel_for(t_count, 1, [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; ++t) {
        int64_t* off = offset.data() + t * kRadix;
        for (int64_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) {
          const int64_t o = off[(src[i] >> (8 * p)) & 0xFF]++;
          dst[o] = src[i];
          if (isrc) idst[o] = isrc[i];
        }
      }
    });
    std::swap(src, dst);
    std::swap(isrc, idst);
    moved = true;
  }
  if (src != keys) {
    std::memcpy(keys, src, static_cast<size_t>(n) * sizeof(U));
    if (idx) std::memcpy(idx, isrc, static_cast<size_t>(n) * sizeof(int64_t));
  }
}

template <typename T>
Status sort_typed(const SortDesc& d, const T* x, T* values, int64_t* indices) {
  using U = sort_keys::Key<T>;
  const bool want_idx = indices != nullptr;
  const bool single = d.rows == 1;
  auto row = [&](int64_t r, int threads) {
    const T* xr = x + r * d.n;
    std::vector<U> keys(static_cast<size_t>(d.n)), keys_tmp;
    std::vector<int64_t> idx, idx_tmp;
    for (int64_t i = 0; i < d.n; ++i) keys[static_cast<size_t>(i)] = sort_keys::encode(xr[i], d.descending, d.zeros_equal, d.nan_first);
    if (want_idx) {
      idx.resize(static_cast<size_t>(d.n));
      for (int64_t i = 0; i < d.n; ++i) idx[static_cast<size_t>(i)] = i;
    }
    if (want_idx && d.k * 8 < d.n) {
      // A few of many: select, then order those (by key, then index).
      std::vector<std::pair<U, int64_t>> p(static_cast<size_t>(d.n));
      for (int64_t i = 0; i < d.n; ++i) p[static_cast<size_t>(i)] = {keys[static_cast<size_t>(i)], i};
      std::nth_element(p.begin(), p.begin() + d.k, p.end());
      std::sort(p.begin(), p.begin() + d.k);
      for (int64_t i = 0; i < d.k; ++i) {
        keys[static_cast<size_t>(i)] = p[static_cast<size_t>(i)].first;
        idx[static_cast<size_t>(i)] = p[static_cast<size_t>(i)].second;
      }
    } else if (d.n < kSmallRow) {
      if (want_idx) {
        std::vector<std::pair<U, int64_t>> p(static_cast<size_t>(d.n));
        for (int64_t i = 0; i < d.n; ++i) p[static_cast<size_t>(i)] = {keys[static_cast<size_t>(i)], i};
        std::sort(p.begin(), p.end());
        for (int64_t i = 0; i < d.n; ++i) {
          keys[static_cast<size_t>(i)] = p[static_cast<size_t>(i)].first;
          idx[static_cast<size_t>(i)] = p[static_cast<size_t>(i)].second;
        }
      } else {
        std::sort(keys.begin(), keys.end());
      }
    } else {
      keys_tmp.resize(keys.size());
      if (want_idx) idx_tmp.resize(idx.size());
      radix_sort(keys.data(), want_idx ? idx.data() : nullptr, d.n, keys_tmp.data(),
                 want_idx ? idx_tmp.data() : nullptr, threads);
    }
    for (int64_t i = 0; i < d.k; ++i) {
      if (want_idx) {
        const int64_t from = idx[static_cast<size_t>(i)];
        indices[r * d.k + i] = from;
        if (values) values[r * d.k + i] = xr[from];  // the value itself: -0.0 and NaN payloads kept
      } else {
        values[r * d.k + i] = sort_keys::decode<T>(keys[static_cast<size_t>(i)], d.descending);
      }
    }
  };
  if (single) {
    row(0, get_num_threads());
  } else {
    parallel_for(d.rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, d.n)), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) row(r, 1);
    });
  }
  return Status::ok();
}

}  // namespace

Status sort_rows_cpu(const SortDesc& d, const NDArray& x, NDArray* values, NDArray* indices) {
  int64_t* idx = indices ? indices->data_as<int64_t>() : nullptr;
  return with_sort_key_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return sort_typed(d, x.data_as<T>(), values ? values->data_as<T>() : nullptr, idx);
  });
}

}  // namespace libops::ops
