// The CPU kernel of sort, argsort and top_k (sort.h, Note [Sort order]):
// an LSD radix sort of order-preserving keys (Note [Radix passes]). Short
// rows and small top-k take std::sort / nth_element on (key, index) pairs,
// whose lexicographic order is the same stable order.
//
// Note [Radix passes]
// A row of n values is sorted by LSD passes over its keys' digits: 8-bit
// digits for rows up to kWideRow, 11-bit digits above (3 passes for
// 32-bit keys, 6 for 64-bit). One read of the row counts every pass's
// digits; a pass whose digit all keys share orders nothing and is skipped.
//
// What a pass moves (an item) is the key alone for sort, and for argsort
// and top_k the key with the value's position: a 32-bit key and a 32-bit
// position share one uint64 (key in the high half), a wider pair is a
// struct. The first pass reads the values themselves and encodes them on
// the way (no staged key array); the last pass writes the result itself:
// the decoded values, or the positions as int64. The passes between ping-
// pong through scratch arrays, one of which is the output row when its
// element is the item's size (so a 32-bit sort or argsort needs only one
// n-item scratch array).
//
// With 11-bit digits a pass writes to 2048 places at once, more cache
// lines and pages than the caches and TLB hold. So it stages each bucket's
// items in a 64-byte line of its own (software write combining): an item
// goes to its bucket's line, and a full line goes out at once to a line-
// aligned place in the destination, with non-temporal stores where the CPU
// has them (no read of the destination line first; that read would cost
// as much as the rest of the pass). A bucket's first and last lines are
// written in part (only the slots that are the bucket's), since
// neighbouring buckets share those lines. The last pass converts a line's
// items to values or positions as the line goes out, 16 or 8 at a time.
// Measured on 16M float32 (one thread): 11-bit staged passes beat 8-bit
// ones (3 passes of about the same cost instead of 4), while 8-bit direct
// passes are best while the row fits the caches.
//
// One long row (kParallelRow and up) splits each pass between threads:
// thread t moves chunk t of the source, and its items of bucket b go after
// those of bucket b from chunks before t, which keeps the sort stable. Each
// thread needs its chunk's digit counts as the chunk is then: the first
// pass's come from the counting read; a later pass's are counted by the
// pass before as it writes its lines (each line's items by the chunk of the
// destination they land in), so no extra read of the row is needed.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

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

constexpr int64_t kSmallRow = 512;         // std::sort below this
constexpr int64_t kWideRow = 1 << 16;      // 11-bit digits and staged lines from this
constexpr int64_t kParallelRow = 1 << 18;  // split one row's passes between threads from this
constexpr int kLine = 64;                  // bytes a staged line holds
constexpr size_t kHugeScratch = size_t{8} << 20;  // scratch this large asks for huge pages

// Scratch memory reused across a thread's rows: 64-byte aligned and not
// initialized (every byte is written before it is read).
struct Scratch {
  struct Free {
    void operator()(void* p) const { ::operator delete(p, std::align_val_t{kLine}); }
  };
  std::unique_ptr<void, Free> block[4];
  size_t size[4] = {};
  void* get(int which, size_t bytes) {
    if (size[which] < bytes) {
      block[which].reset();
      block[which].reset(::operator new(bytes, std::align_val_t{kLine}));
      size[which] = bytes;
#if defined(__linux__)
      // Fresh memory costs a page fault per page on first touch, a large
      // part of a pass with 4 KiB pages: ask for huge ones (only a hint).
      if (bytes >= kHugeScratch) {
        const uintptr_t at = reinterpret_cast<uintptr_t>(block[which].get());
        const uintptr_t page = (at + 4095) & ~uintptr_t{4095};
        madvise(reinterpret_cast<void*>(page), at + bytes - page, MADV_HUGEPAGE);
      }
#endif
    }
    return block[which].get();
  }
};

// Loads and stores through memcpy: an output row holds items of another
// type between passes.
template <typename V>
inline V load(const void* base, int64_t i) {
  V v;
  std::memcpy(&v, static_cast<const unsigned char*>(base) + i * static_cast<int64_t>(sizeof(V)), sizeof(V));
  return v;
}
template <typename V>
inline void store(void* base, int64_t i, const V& v) {
  std::memcpy(static_cast<unsigned char*>(base) + i * static_cast<int64_t>(sizeof(V)), &v, sizeof(V));
}

// ---- items (Note [Radix passes]) ----

template <typename U>
struct KeyOnly {
  using Key = U;
  using Item = U;
  static Key key(Item v) { return v; }
  static Item make(Key k, int64_t) { return k; }
  static int64_t index(Item) { return 0; }
};

struct PackedPair {  // a 32-bit key over a 32-bit position
  using Key = uint32_t;
  using Item = uint64_t;
  static Key key(Item v) { return static_cast<Key>(v >> 32); }
  static Item make(Key k, int64_t i) { return (Item{k} << 32) | static_cast<uint32_t>(i); }
  static int64_t index(Item v) { return static_cast<int64_t>(v & 0xFFFFFFFFu); }
};

template <typename U>
struct WidePair {
  using Key = U;
  struct Item {
    U key;
    int64_t index;
  };
  static Key key(const Item& v) { return v.key; }
  static Item make(Key k, int64_t i) { return {k, i}; }
  static int64_t index(const Item& v) { return v.index; }
};

// sort_keys::encode / decode as straight-line integer code for the passes
// (the same keys, bit for bit): the direction and the NaN key are masks.
template <typename T>
struct Coder {
  using U = sort_keys::Key<T>;
  using S = std::make_signed_t<U>;
  static constexpr U kSign = U(1) << (8 * sizeof(U) - 1);
  U flip;       // ~0 when descending
  U nan_key;    // a NaN's key: the largest, or (nan_first) the smallest
  U zero_mask;  // ~0 when -0.0 and +0.0 are equal
  Coder(bool descending, bool zeros_equal, bool nan_first)
      : flip(descending ? ~U(0) : U(0)), nan_key(nan_first ? U(0) : ~U(0)), zero_mask(zeros_equal ? ~U(0) : U(0)) {}
  U encode(T v) const {
    U u;
    std::memcpy(&u, &v, sizeof u);
    if constexpr (std::is_floating_point_v<T>) {
      constexpr U kInf = sizeof(T) == 8 ? U(0x7FF0000000000000ull) : U(0x7F800000u);
      const U magnitude = u & ~kSign;
      u &= ~(zero_mask & (magnitude == 0 ? ~U(0) : U(0)));  // -0.0 as +0.0
      const U key = u ^ (static_cast<U>(static_cast<S>(u) >> (8 * sizeof(U) - 1)) | kSign);
      return magnitude > kInf ? nan_key : key ^ flip;
    } else if constexpr (std::is_signed_v<T>) {
      return u ^ kSign ^ flip;
    } else {
      return u ^ flip;
    }
  }
  // Not for nan_first keys (sort never asks for them).
  T decode(U key) const {
    U u = key ^ flip;
    if constexpr (std::is_floating_point_v<T>) {
      constexpr U kQuietNan = sizeof(T) == 8 ? U(0x7FF8000000000000ull) : U(0x7FC00000u);
      u ^= ~static_cast<U>(static_cast<S>(u) >> (8 * sizeof(U) - 1)) | kSign;
      u = key == ~U(0) ? kQuietNan : u;
    } else if constexpr (std::is_signed_v<T>) {
      u ^= kSign;
    }
    T v;
    std::memcpy(&v, &u, sizeof v);
    return v;
  }
};

// What a pass reads: the row's values, encoded as they are read, or items.
template <typename Kind, typename T>
struct FromValues {
  const T* x;
  Coder<T> coder;
  static constexpr bool kEncodes = true;
  typename Kind::Item operator()(int64_t i) const { return Kind::make(coder.encode(x[i]), i); }
};
template <typename Kind>
struct FromItems {
  const void* items;
  static constexpr bool kEncodes = false;
  typename Kind::Item operator()(int64_t i) const { return load<typename Kind::Item>(items, i); }
};

// What a pass writes: items, or (the last pass) decoded values or positions.
template <typename Kind>
struct ToItems {
  using Out = typename Kind::Item;
  Out operator()(const typename Kind::Item& v) const { return v; }
};
template <typename Kind, typename T>
struct ToValues {
  using Out = T;
  Coder<T> coder;
  T operator()(const typename Kind::Item& v) const { return coder.decode(Kind::key(v)); }
};
template <typename Kind>
struct ToIndices {
  using Out = int64_t;
  int64_t operator()(const typename Kind::Item& v) const { return Kind::index(v); }
};

struct NoCount {
  template <typename Out>
  void operator()(uint32_t, int64_t, int64_t, const Out*) const {}
};

// Counts a later pass's digits of the items a thread writes, by the chunk
// of the destination they land in: counts[chunk * radix + digit].
template <typename Kind, int kBits>
struct NextCounts {
  int64_t* counts;
  int32_t* chunk_of;  // per bucket: the chunk its last line landed in (only grows)
  int64_t chunk;
  int shift;
  uint32_t digit(const typename Kind::Item& v) const {
    return static_cast<uint32_t>(Kind::key(v) >> shift) & ((1u << kBits) - 1);
  }
  void operator()(uint32_t b, int64_t from, int64_t to, const typename Kind::Item* v) const {
    int64_t c = chunk_of[b];
    while (from >= (c + 1) * chunk) ++c;
    int64_t end = (c + 1) * chunk;
    if (to <= end) {
      int64_t* h = counts + (c << kBits);
      for (int64_t q = 0; q < to - from; ++q) ++h[digit(v[q])];
    } else {
      for (int64_t q = 0; q < to - from; ++q) {
        while (from + q >= end) ++c, end += chunk;
        ++counts[(c << kBits) + digit(v[q])];
      }
    }
    chunk_of[b] = static_cast<int32_t>(c);
  }
};

// Writes a staged 64-byte line to its 64-byte aligned place. Where the CPU
// has them, non-temporal stores: the line goes to memory whole, without the
// read of the destination line an ordinary store would first make (which
// costs as much as the rest of a pass). SSE2 is in every x86-64 CPU.
inline void write_line(unsigned char* to, const void* line) {
#if defined(__SSE2__)
  const __m128i* from = static_cast<const __m128i*>(line);
  __m128i* dst = reinterpret_cast<__m128i*>(to);
  _mm_stream_si128(dst, _mm_load_si128(from));
  _mm_stream_si128(dst + 1, _mm_load_si128(from + 1));
  _mm_stream_si128(dst + 2, _mm_load_si128(from + 2));
  _mm_stream_si128(dst + 3, _mm_load_si128(from + 3));
#else
  std::memcpy(to, line, kLine);
#endif
}

// Orders the non-temporal stores before what follows (another thread's reads).
inline void lines_written() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

constexpr int64_t kBlock = 256;  // values encoded at a time (a loop the compiler vectorizes)

// Calls step(item) for items [begin, end) of src; values are encoded a
// block at a time first.
template <typename Src, typename Step>
inline void for_items(const Src& src, int64_t begin, int64_t end, Step&& step) {
  if constexpr (Src::kEncodes) {
    alignas(kLine) decltype(src(0)) block[kBlock];
    for (int64_t i = begin; i < end; i += kBlock) {
      const int64_t c = std::min(kBlock, end - i);
      for (int64_t q = 0; q < c; ++q) block[q] = src(i + q);
      for (int64_t q = 0; q < c; ++q) step(block[q]);
    }
  } else {
    for (int64_t i = begin; i < end; ++i) step(src(i));
  }
}

// Moves items [begin, end) of src to dst by their digit at `shift`. pos[b]:
// where bucket b's next item goes (advanced); first[b]: where this chunk's
// share of bucket b starts. Staged: wc holds a line of items per bucket
// (as many as 64 bytes of Outs), converted as the line is written out, and
// on_line sees every run of items written.
template <typename Kind, int kBits, bool kStaged, typename Src, typename Conv, typename OnLine>
void scatter(const Src src, const Conv conv, void* dst, int64_t begin, int64_t end, int shift, int64_t* pos,
             const int64_t* first, typename Kind::Item* wc, const OnLine on_line) {
  using Item = typename Kind::Item;
  using Out = typename Conv::Out;
  constexpr uint32_t kMask = (1u << kBits) - 1;
  if constexpr (!kStaged) {
    for_items(src, begin, end, [&](const Item& v) {
      const uint32_t b = static_cast<uint32_t>(Kind::key(v) >> shift) & kMask;
      store(dst, pos[b]++, conv(v));
    });
  } else {
    constexpr int64_t L = kLine / static_cast<int64_t>(sizeof(Out));
    static_assert(L * static_cast<int64_t>(sizeof(Out)) == kLine);
    constexpr int64_t kOut = sizeof(Out);
    unsigned char* out = static_cast<unsigned char*>(dst);
    // Slot s of a bucket's line is destination index p with (p + phase) % L == s,
    // so a full line lands on a 64-byte boundary.
    const int64_t phase = static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst) / sizeof(Out)) & (L - 1);
    // (Only an output row could be misaligned for its type; its lines are then copied.)
    const bool aligned = reinterpret_cast<uintptr_t>(dst) % sizeof(Out) == 0;
    // Writes slots [from, L) of bucket b's line to destination index at.
    auto write = [&](uint32_t b, int64_t from, int64_t to, int64_t at) {
      const Item* line = wc + static_cast<int64_t>(b) * L;
      alignas(kLine) Out converted[L];
      if (from == 0 && to == L) {
        for (int64_t q = 0; q < L; ++q) converted[q] = conv(line[q]);  // a whole line: vectorized
        if (aligned) write_line(out + at * kOut, converted);
        else std::memcpy(out + at * kOut, converted, kLine);
      } else {
        for (int64_t q = from; q < to; ++q) converted[q] = conv(line[q]);
        std::memcpy(out + at * kOut, converted + from, static_cast<size_t>(to - from) * sizeof(Out));
      }
      on_line(b, at, at + (to - from), line + from);
    };
    for_items(src, begin, end, [&](const Item& v) {
      const uint32_t b = static_cast<uint32_t>(Kind::key(v) >> shift) & kMask;
      const int64_t p = pos[b]++;
      const int64_t slot = (p + phase) & (L - 1);
      wc[static_cast<int64_t>(b) * L + slot] = v;
      if (slot == L - 1) {
        const int64_t at = p + 1 - L;  // the line's first destination index
        if (at >= first[b]) write(b, 0, L, at);
        else write(b, first[b] - at, L, first[b]);  // the bucket's first line: only its own slots
      }
    });
    for (uint32_t b = 0; b <= kMask; ++b) {  // the lines still partly filled
      const int64_t filled = (pos[b] + phase) & (L - 1);
      const int64_t at = std::max(pos[b] - filled, first[b]);
      if (at < pos[b]) write(b, at - (pos[b] - filled), filled, at);
    }
    lines_written();
  }
}

// Sorts one row of n values x by Note [Radix passes]; the last pass writes
// Last::Out [n] to out (which may hold items between passes when
// out_holds_items).
template <typename Kind, int kBits, bool kStaged, typename T, typename Last>
void radix_row(const FromValues<Kind, T>& values, int64_t n, const Last& last, void* out, bool out_holds_items,
               Scratch& scratch, int threads) {
  using Item = typename Kind::Item;
  using U = typename Kind::Key;
  constexpr int kRadix = 1 << kBits;
  constexpr int kPasses = (8 * static_cast<int>(sizeof(U)) + kBits - 1) / kBits;
  const int t_count = kStaged && n >= kParallelRow ? std::max(1, threads) : 1;
  const int64_t chunk = (n + t_count - 1) / t_count;
  auto chunk_begin = [&](int64_t t) { return std::min(n, t * chunk); };

  // Every pass's digit counts per chunk, in one read: hist[t][pass][digit].
  // uint32 counters (half the cache) over blocks short enough for them.
  std::vector<int64_t> hist(static_cast<size_t>(t_count) * kPasses * kRadix, 0);
  parallel_for(t_count, 1, [&](int64_t tb, int64_t te) {
    std::vector<uint32_t> local(static_cast<size_t>(kPasses) * kRadix);
    const auto src = values;  // a local copy: the counters' stores cannot alias it
    for (int64_t t = tb; t < te; ++t) {
      for (int64_t b = chunk_begin(t); b < chunk_begin(t + 1); b += int64_t{1} << 31) {
        std::fill(local.begin(), local.end(), 0u);
        const int64_t e = std::min(chunk_begin(t + 1), b + (int64_t{1} << 31));
        uint32_t* c = local.data();
        for_items(src, b, e, [&](const Item& v) {
          const U k = Kind::key(v);
          for (int p = 0; p < kPasses; ++p) ++c[p * kRadix + ((k >> (p * kBits)) & (kRadix - 1))];
        });
        int64_t* h = hist.data() + t * kPasses * kRadix;
        for (size_t j = 0; j < local.size(); ++j) h[j] += local[j];
      }
    }
  });
  auto h = [&](int64_t t, int p) { return hist.data() + (t * kPasses + p) * kRadix; };
  int active[kPasses];
  int m = 0;
  for (int p = 0; p < kPasses; ++p) {
    bool constant = false;
    for (int b = 0; b < kRadix && !constant; ++b) {
      int64_t total = 0;
      for (int t = 0; t < t_count; ++t) total += h(t, p)[b];
      constant = total == n;
    }
    if (!constant) active[m++] = p;
  }
  if (m == 0) {  // every key the same: the row is in order
    for (int64_t i = 0; i < n; ++i) store(out, i, last(values(i)));
    return;
  }

  // Destinations, last first: the last pass writes out, the one before it
  // scratch A, then out (or scratch B) and A by turns.
  std::vector<void*> dst(static_cast<size_t>(m));
  dst[static_cast<size_t>(m - 1)] = out;
  for (int j = m - 2; j >= 0; --j) {
    const bool a = (m - 2 - j) % 2 == 0;
    dst[static_cast<size_t>(j)] =
        a ? scratch.get(0, static_cast<size_t>(n) * sizeof(Item))
          : (out_holds_items ? out : scratch.get(1, static_cast<size_t>(n) * sizeof(Item)));
  }

  // Per thread: counts, start and next position of each bucket, staged
  // lines, and (with threads) the next pass's counts by chunk.
  const size_t R = kRadix;
  std::vector<int64_t> count(t_count * R), first(t_count * R), pos(t_count * R);
  std::vector<int64_t> next(t_count > 1 ? static_cast<size_t>(t_count) * t_count * R : 0);
  std::vector<int32_t> chunk_of(t_count > 1 ? t_count * R : 0);
  // A staged line holds 64 bytes of the pass's output, as items.
  constexpr size_t kWcBytes = kStaged ? R * kLine / sizeof(typename Last::Out) * sizeof(Item) : 0;
  unsigned char* wc = kStaged ? static_cast<unsigned char*>(scratch.get(2, t_count * kWcBytes)) : nullptr;
  for (int t = 0; t < t_count; ++t) std::copy(h(t, active[0]), h(t, active[0]) + R, count.begin() + t * R);

  for (int j = 0; j < m; ++j) {
    const int shift = active[j] * kBits;
    int64_t at = 0;
    for (size_t b = 0; b < R; ++b)
      for (int t = 0; t < t_count; ++t) {
        first[t * R + b] = pos[t * R + b] = at;
        at += count[t * R + b];
      }
    const bool counting = t_count > 1 && j + 1 < m;
    if (counting) {
      std::fill(next.begin(), next.end(), int64_t{0});
      for (int t = 0; t < t_count; ++t)
        for (size_t b = 0; b < R; ++b) chunk_of[t * R + b] = static_cast<int32_t>(first[t * R + b] / chunk);
    }
    void* to = dst[static_cast<size_t>(j)];
    const void* from = j == 0 ? nullptr : dst[static_cast<size_t>(j - 1)];
    parallel_for(t_count, 1, [&](int64_t tb, int64_t te) {
      for (int64_t t = tb; t < te; ++t) {
        const int64_t b = chunk_begin(t), e = chunk_begin(t + 1);
        int64_t* p = pos.data() + t * R;
        const int64_t* f = first.data() + t * R;
        auto move = [&](const auto& src, const auto& conv, const auto& on_line) {
          scatter<Kind, kBits, kStaged>(src, conv, to, b, e, shift, p, f, reinterpret_cast<Item*>(wc + t * kWcBytes),
                                        on_line);
        };
        auto pass = [&](const auto& src) {
          if (j + 1 == m) {
            move(src, last, NoCount{});
          } else if (counting) {
            move(src, ToItems<Kind>{},
                 NextCounts<Kind, kBits>{next.data() + t * t_count * R, chunk_of.data() + t * R, chunk,
                                         active[j + 1] * kBits});
          } else {
            move(src, ToItems<Kind>{}, NoCount{});
          }
        };
        if (j == 0) pass(values);
        else pass(FromItems<Kind>{from});
      }
    });
    if (j + 1 < m) {
      if (t_count > 1) {
        std::fill(count.begin(), count.end(), int64_t{0});
        for (int w = 0; w < t_count; ++w)
          for (size_t q = 0; q < count.size(); ++q) count[q] += next[w * t_count * R + q];
      } else {
        std::copy(h(0, active[j + 1]), h(0, active[j + 1]) + R, count.begin());
      }
    }
  }
}

template <typename T>
Status sort_typed(const SortDesc& d, const T* x, T* values, int64_t* indices) {
  using U = sort_keys::Key<T>;
  const bool want_idx = indices != nullptr;
  auto row = [&](int64_t r, int threads, Scratch& scratch) {
    const T* xr = x + r * d.n;
    if (want_idx && (d.k * 8 < d.n || d.n < kSmallRow)) {
      // A few of many (select, then order those), or a short row: sort
      // (key, index) pairs.
      std::vector<std::pair<U, int64_t>> p(static_cast<size_t>(d.n));
      for (int64_t i = 0; i < d.n; ++i)
        p[static_cast<size_t>(i)] = {sort_keys::encode(xr[i], d.descending, d.zeros_equal, d.nan_first), i};
      if (d.k * 8 < d.n) std::nth_element(p.begin(), p.begin() + d.k, p.end());
      std::sort(p.begin(), d.k * 8 < d.n ? p.begin() + d.k : p.end());
      for (int64_t i = 0; i < d.k; ++i) {
        const int64_t from = p[static_cast<size_t>(i)].second;
        indices[r * d.k + i] = from;
        if (values) values[r * d.k + i] = xr[from];  // the value itself: -0.0 and NaN payloads kept
      }
      return;
    }
    if (!want_idx && d.n < kSmallRow) {
      std::vector<U> keys(static_cast<size_t>(d.n));
      for (int64_t i = 0; i < d.n; ++i)
        keys[static_cast<size_t>(i)] = sort_keys::encode(xr[i], d.descending, d.zeros_equal, d.nan_first);
      std::sort(keys.begin(), keys.end());
      for (int64_t i = 0; i < d.k; ++i) values[r * d.k + i] = sort_keys::decode<T>(keys[static_cast<size_t>(i)], d.descending);
      return;
    }
    const bool whole = d.k == d.n;  // the last pass can write the output row itself
    auto sort_with = [&](auto kind, auto bits, auto staged, void* out, bool out_holds_items, const auto& last) {
      using Kind = decltype(kind);
      const FromValues<Kind, T> src{xr, Coder<T>(d.descending, d.zeros_equal, d.nan_first)};
      radix_row<Kind, decltype(bits)::value, decltype(staged)::value>(src, d.n, last, out, out_holds_items, scratch,
                                                                      threads);
    };
    auto by_size = [&](auto kind, void* out, bool out_holds_items, const auto& last) {
      if (d.n >= kWideRow)
        sort_with(kind, std::integral_constant<int, 11>{}, std::true_type{}, out, out_holds_items, last);
      else
        sort_with(kind, std::integral_constant<int, 8>{}, std::false_type{}, out, out_holds_items, last);
    };
    if (want_idx) {
      int64_t* idx = whole ? indices + r * d.k
                           : static_cast<int64_t*>(scratch.get(3, static_cast<size_t>(d.n) * sizeof(int64_t)));
      if (sizeof(U) == 4 && d.n <= (int64_t{1} << 32))
        by_size(PackedPair{}, idx, true, ToIndices<PackedPair>{});
      else
        by_size(WidePair<U>{}, idx, false, ToIndices<WidePair<U>>{});
      for (int64_t i = 0; i < d.k; ++i) {
        if (!whole) indices[r * d.k + i] = idx[i];
        if (values) values[r * d.k + i] = xr[idx[i]];  // the value itself: -0.0 and NaN payloads kept
      }
    } else {
      T* v = whole ? values + r * d.k : static_cast<T*>(scratch.get(3, static_cast<size_t>(d.n) * sizeof(T)));
      by_size(KeyOnly<U>{}, v, true, ToValues<KeyOnly<U>, T>{Coder<T>(d.descending, d.zeros_equal, d.nan_first)});
      if (!whole) std::copy(v, v + d.k, values + r * d.k);
    }
  };
  if (d.rows == 1) {
    Scratch scratch;
    row(0, get_num_threads(), scratch);
  } else {
    parallel_for(d.rows, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, d.n)), [&](int64_t b, int64_t e) {
      Scratch scratch;
      for (int64_t r = b; r < e; ++r) row(r, 1, scratch);
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
