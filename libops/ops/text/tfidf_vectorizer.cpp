// tfidf_vectorizer: per row of token ids, the counts of the n-grams of a
// pool, weighted (ONNX's TfIdfVectorizer over integer tokens).
//
//   inputs  x [C] or [B, C] integer token ids;
//           pool [P] int64: the n-grams, all 1-grams first, then the 2-grams, ...;
//           ngram_counts [K] int64: where the (k + 1)-grams start in pool
//             (non-decreasing; the last size runs to the end of pool);
//           ngram_indexes [G] int64: each n-gram's output column, in pool order;
//           weights [G] float32, optional: each n-gram's weight (default 1)
//   i args  min_gram_length >= 1, max_gram_length >= min_gram_length,
//           max_skip_count >= 0, mode (0 TF: counts, 1 IDF: the weight where
//           the count is above 0, 2 TFIDF: count * weight)
//   output  float32 [max(ngram_indexes) + 1], or [B, ...] for a [B, C] x
//
// An n-gram of x is n tokens at positions s, s + d, ..., s + (n - 1) d of
// one row, for every start s and every distance d from 1 to max_skip_count
// + 1; a 1-gram is counted once whatever the distance. Only sizes from
// min_gram_length to max_gram_length count; tokens outside the pool are
// ignored. Weights belong to the pool's n-grams, as ONNX's specification
// and ONNX Runtime have it (onnx.reference indexes them by output column
// instead). A pool holding one n-gram twice is refused, as ONNX Runtime
// refuses it.
//
// The pool becomes a hash table (tfidf_vectorizer.h) that every start
// position looks its n-grams up in: on the CPU a thread per block of rows, on
// CUDA a thread per start position (tfidf_vectorizer.cu). The table is
// built on the host from the pool, counts, indexes and weights inputs; in a
// graph, where those are constants, once per session (Note [Op state]),
// and on a device it stays there between runs.
#include "libops/ops/text/tfidf_vectorizer.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {

DeviceKernel<TfIdfDeviceFn> tfidf_vectorizer_device_kernel;

namespace {

constexpr int kX = 0, kPool = 1, kCounts = 2, kIndexes = 3, kWeights = 4;

// The table of tfidf_vectorizer.h as host vectors, and the per-column
// weights (empty: all ones).
struct GramTable {
  std::vector<int64_t> keys, grams, slots;
  std::vector<int64_t> pool_ids;  // per counted gram, its place in the pool (for messages)
  std::vector<float> column_weights;
};

// Puts counted gram g (its tokens already in keys) into the table; an
// error where the pool holds it already.
Status insert_gram(const Context& block, GramTable& t, int64_t g) {
  const int64_t* e = &t.grams[static_cast<size_t>(3 * g)];
  const int64_t n = e[0], capacity = static_cast<int64_t>(t.slots.size() / 2);
  const int64_t* tokens = &t.keys[static_cast<size_t>(e[1])];
  const uint64_t mask = static_cast<uint64_t>(capacity - 1);
  const uint64_t h = gram_hash(tokens, 0, 1, n);
  for (uint64_t i = h & mask;; i = (i + 1) & mask) {
    int64_t& slot = t.slots[2 * i];
    if (slot < 0) {
      slot = g;
      t.slots[2 * i + 1] = static_cast<int64_t>(h);
      return Status::ok();
    }
    const int64_t* o = &t.grams[static_cast<size_t>(3 * slot)];
    if (o[0] != n || !std::equal(tokens, tokens + n, &t.keys[static_cast<size_t>(o[1])])) continue;
    // The same tokens again: a prefix of a gram already in (as a gram or a
    // prefix) needs no entry; a gram the pool holds twice is an error.
    // Grams go in before prefixes, so a prefix never shadows a gram.
    if (e[2] == kPrefixOnly) return Status::ok();
    return block.error(StatusCode::kInvalidArgument, "the pool holds one %lld-gram twice (n-grams %lld and %lld)",
                         static_cast<long long>(n), static_cast<long long>(t.pool_ids[static_cast<size_t>(slot)]),
                         static_cast<long long>(t.pool_ids[static_cast<size_t>(g)]));
  }
}

// x's extents and the args.
Status read_desc(const Context& block, TfIdfDesc& d) {
  const NDArray& x = *block.input(kX);
  if (x.rank() != 1 && x.rank() != 2)
    return block.error(StatusCode::kShape, "x must be [C] or [B, C] token ids, got %s%s", dtype_name(x.dtype()),
                       x.shape().str().c_str());
  d.rows = x.rank() == 2 ? x.dim(0) : 1;
  d.length = x.dim(x.rank() - 1);
  d.min_n = block.i_arg(0);
  d.max_n = block.i_arg(1);
  d.max_skip = block.i_arg(2);
  d.mode = static_cast<TfIdfMode>(block.i_arg(3));
  if (d.max_n < d.min_n)
    return block.error(StatusCode::kInvalidArgument, "max_gram_length %lld is below min_gram_length %lld",
                       static_cast<long long>(d.max_n), static_cast<long long>(d.min_n));
  return Status::ok();
}

// The output columns (d.out) from ngram_indexes, read into `indexes`.
Status read_columns(const Context& block, TfIdfDesc& d, std::vector<int64_t>& indexes) {
  RETURN_IF_ERROR(block.int_values(kIndexes, "ngram_indexes", indexes));
  if (indexes.empty()) return block.error(StatusCode::kInvalidArgument, "ngram_indexes is empty: no output column");
  for (size_t g = 0; g < indexes.size(); ++g)
    if (indexes[g] < 0)
      return block.error(StatusCode::kInvalidArgument, "ngram_indexes[%zu] = %lld: columns are >= 0", g,
                         static_cast<long long>(indexes[g]));
  d.out = *std::max_element(indexes.begin(), indexes.end()) + 1;
  return Status::ok();
}

// Checks the pool against the counts and indexes and puts the counted
// sizes' grams into a hash table.
Status build_table(const Context& block, TfIdfDesc& d, const std::vector<int64_t>& indexes, GramTable& t) {
  std::vector<int64_t> pool, counts;
  RETURN_IF_ERROR(block.int_values(kPool, "pool", pool));
  RETURN_IF_ERROR(block.int_values(kCounts, "ngram_counts", counts));
  const auto p_len = static_cast<int64_t>(pool.size());
  if (counts.empty()) return block.error(StatusCode::kInvalidArgument, "ngram_counts is empty");
  std::vector<float> weights;
  if (block.num_inputs() > kWeights) {
    const NDArray& w = *block.input(kWeights);
    if (w.rank() != 1 || w.length() != static_cast<int64_t>(indexes.size()))
      return block.error(StatusCode::kShape, "weights%s must hold one weight per n-gram (%zu)", w.shape().str().c_str(),
                         indexes.size());
    if (!w.has_data()) return block.error(StatusCode::kInvalidArgument, "weights: its values are not known yet");
    if (w.buffer()->host_stale()) RETURN_IF_ERROR(w.buffer()->sync_to_host());
    for (int64_t k = 0; k < w.length(); ++k) weights.push_back(static_cast<float>(w.get_double(k)));
  }
  d.sizes = static_cast<int64_t>(counts.size());
  int64_t gram = 0;  // pool order id of the next gram
  for (int64_t k = 0; k < d.sizes; ++k) {
    const int64_t n = k + 1, begin = counts[static_cast<size_t>(k)];
    const int64_t end = k + 1 < d.sizes ? counts[static_cast<size_t>(k + 1)] : p_len;
    if (begin < 0 || end < begin || end > p_len)
      return block.error(StatusCode::kInvalidArgument,
                         "ngram_counts[%lld] = %lld: the starts must be non-decreasing and within the pool's %lld "
                         "entries",
                         static_cast<long long>(k), static_cast<long long>(begin), static_cast<long long>(p_len));
    if ((end - begin) % n != 0)
      return block.error(StatusCode::kInvalidArgument, "the pool's %lld-grams (entries %lld to %lld) are not whole",
                         static_cast<long long>(n), static_cast<long long>(begin), static_cast<long long>(end));
    const int64_t grams = (end - begin) / n;
    if (gram + grams > static_cast<int64_t>(indexes.size()))
      return block.error(StatusCode::kInvalidArgument, "the pool holds more n-grams than ngram_indexes' %zu columns",
                         indexes.size());
    if (n >= d.min_n && n <= d.max_n)
      for (int64_t g = 0; g < grams; ++g) {
        t.grams.insert(t.grams.end(), {n, static_cast<int64_t>(t.keys.size()),
                                       indexes[static_cast<size_t>(gram + g)]});
        t.pool_ids.push_back(gram + g);
        t.keys.insert(t.keys.end(), pool.begin() + begin + g * n, pool.begin() + begin + (g + 1) * n);
      }
    gram += grams;
  }
  if (gram != static_cast<int64_t>(indexes.size()))
    return block.error(StatusCode::kInvalidArgument, "ngram_indexes has %zu columns for the pool's %lld n-grams",
                       indexes.size(), static_cast<long long>(gram));
  if (!weights.empty()) {
    t.column_weights.assign(static_cast<size_t>(d.out), 1.f);
    for (size_t g = 0; g < weights.size(); ++g) t.column_weights[static_cast<size_t>(indexes[g])] = weights[g];
  }
  // Then each counted gram's proper prefixes (the same tokens, fewer),
  // where they are not grams themselves.
  const auto counted = static_cast<int64_t>(t.pool_ids.size());
  for (int64_t g = 0; g < counted; ++g) {
    const int64_t n = t.grams[static_cast<size_t>(3 * g)], at = t.grams[static_cast<size_t>(3 * g + 1)];
    for (int64_t p = 1; p < n; ++p) t.grams.insert(t.grams.end(), {p, at, kPrefixOnly});
  }
  const int64_t entries = static_cast<int64_t>(t.grams.size() / 3);
  int64_t capacity = 2;
  while (capacity < 2 * entries) capacity *= 2;
  t.slots.assign(static_cast<size_t>(2 * capacity), -1);
  for (int64_t g = 0; g < entries; ++g) RETURN_IF_ERROR(insert_gram(block, t, g));
  d.capacity = capacity;
  // Never empty, so every device gets a buffer.
  if (t.keys.empty()) t.keys.push_back(0);
  if (t.grams.empty()) t.grams.push_back(0);
  return Status::ok();
}

template <typename T>
Status host_array(const Context& block, DataType dt, const std::vector<T>& v, NDArray& out) {
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(dt, Dims{static_cast<int64_t>(v.size())}, 'c', out)));
  std::memcpy(out.data(), v.data(), v.size() * sizeof(T));
  return Status::ok();
}

// The table as arrays the kernels read, and what it was built from.
struct TfIdfTable final : OpState {
  const void* sources[4] = {};  // the pool, counts, indexes and weights inputs' data
  int64_t min_n = 0, max_n = 0, out = 0, sizes = 0, capacity = 0;
  NDArray keys, grams, slots, weights;  // weights: null for all ones
};

const void* source_of(const Context& block, int k) {
  return k < block.num_inputs() ? block.input(k)->data() : nullptr;
}

Status make_table(const Context& block, TfIdfDesc& d, TfIdfTable& t) {
  std::vector<int64_t> indexes;
  RETURN_IF_ERROR(read_columns(block, d, indexes));
  GramTable g;
  RETURN_IF_ERROR(build_table(block, d, indexes, g));
  RETURN_IF_ERROR(host_array(block, DataType::kInt64, g.keys, t.keys));
  RETURN_IF_ERROR(host_array(block, DataType::kInt64, g.grams, t.grams));
  RETURN_IF_ERROR(host_array(block, DataType::kInt64, g.slots, t.slots));
  if (!g.column_weights.empty()) RETURN_IF_ERROR(host_array(block, DataType::kFloat32, g.column_weights, t.weights));
  for (int k = kPool; k <= kWeights; ++k) t.sources[k - kPool] = source_of(block, k);
  t.min_n = d.min_n, t.max_n = d.max_n, t.out = d.out, t.sizes = d.sizes, t.capacity = d.capacity;
  return Status::ok();
}

// The call's table (and d's out, sizes and capacity): the one kept in the
// Context where the pool, counts, indexes and weights are constants it was
// built from, else a new one (kept when they are constants). A kept table
// reads none of them again.
Status table_for(Context& block, TfIdfDesc& d, std::unique_ptr<TfIdfTable>& own, const TfIdfTable*& table) {
  bool constant = true;
  for (int k = kPool; k < block.num_inputs(); ++k) constant = constant && block.input_is_constant(k);
  auto* kept = constant ? dynamic_cast<TfIdfTable*>(block.op_state()) : nullptr;
  bool fits = kept != nullptr && kept->min_n == d.min_n && kept->max_n == d.max_n;
  for (int k = kPool; fits && k <= kWeights; ++k) fits = kept->sources[k - kPool] == source_of(block, k);
  if (fits) {
    d.out = kept->out;
    d.sizes = kept->sizes;
    d.capacity = kept->capacity;
    table = kept;
    return Status::ok();
  }
  own = std::make_unique<TfIdfTable>();
  RETURN_IF_ERROR(make_table(block, d, *own));
  table = own.get();
  if (constant) block.set_op_state(std::move(own));
  return Status::ok();
}

void tfidf_cpu(const TfIdfDesc& t, const int64_t* x, const int64_t* keys, const int64_t* grams, const int64_t* slots,
               const float* w, float* z) {
  parallel_for(t.rows, 1, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      float* zr = z + r * t.out;
      std::fill(zr, zr + t.out, 0.f);
      const int64_t* row = x + r * t.length;
      auto add = [zr](int64_t c) { zr[c] += 1.f; };
      for (int64_t s = 0; s < t.length; ++s) count_grams_at(t, keys, grams, slots, row, s, t.length, add);
      if (t.mode == TfIdfMode::kIdf) {  // each loop one the compiler vectorizes
        if (w != nullptr)
          for (int64_t c = 0; c < t.out; ++c) zr[c] = zr[c] > 0.f ? w[c] : 0.f;
        else
          for (int64_t c = 0; c < t.out; ++c) zr[c] = zr[c] > 0.f ? 1.f : 0.f;
      } else if (t.mode == TfIdfMode::kTfIdf && w != nullptr) {
        for (int64_t c = 0; c < t.out; ++c) zr[c] *= w[c];
      }
    }
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(tfidf_vectorizer, -1, 1, false, 0, 3) {
  using namespace libops;
  using namespace libops::ops;
  TfIdfDesc d;
  RETURN_IF_ERROR(read_desc(block, d));
  std::unique_ptr<TfIdfTable> own;
  const TfIdfTable* t = nullptr;
  RETURN_IF_ERROR(table_for(block, d, own, t));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  NDArray x;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(kX), DataType::kInt64, x));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, DataType::kFloat32));
  if (!block.device().is_cpu()) {
    const TfIdfDeviceFn fn = tfidf_vectorizer_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(
        with_op_name(block, fn(block.device(), d, x, t->keys, t->grams, t->slots, t->weights, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x}, out.target())));
  tfidf_cpu(d, x.data_as<int64_t>(), t->keys.data_as<int64_t>(), t->grams.data_as<int64_t>(),
            t->slots.data_as<int64_t>(), t->weights.is_null() ? nullptr : t->weights.data_as<float>(),
            out.target().data_as<float>());
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(tfidf_vectorizer) {
  using namespace libops;
  ops::TfIdfDesc d;
  std::vector<int64_t> indexes;
  RETURN_IF_ERROR(ops::read_desc(block, d));
  RETURN_IF_ERROR(ops::read_columns(block, d, indexes));
  Dims out = block.input(0)->rank() == 2 ? Dims{d.rows, d.out} : Dims{d.out};
  shapes.push_back(TensorShape{DataType::kFloat32, out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(tfidf_vectorizer) {
  // On a device through the backend's kernel (tfidf_vectorizer.cu).
  descriptor.allow_input(0, libops::types::kInt).allow_input(1, libops::types::kInt)
      .allow_input(2, libops::types::kInt).allow_input(3, libops::types::kInt)
      .allow_input(4, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kFloat32});
}

DECLARE_ARGS(tfidf_vectorizer) {
  args.describe("Per row of token ids, the weighted counts of a pool's n-grams, skips allowed (ONNX's TfIdfVectorizer).");
  reads_on_host(args, "pool, ngram_counts, ngram_indexes and weights (the n-gram table and z's extent)");
  args.input("x", "[C] or [B, C] integer token ids");
  args.input("pool", "[P] the n-grams' tokens: the 1-grams, then the 2-grams, ...");
  args.input("ngram_counts", "[K] where the (k + 1)-grams start in pool, non-decreasing");
  args.input("ngram_indexes", "[G] each n-gram's output column, in pool order");
  args.optional_input("weights", "[G] each n-gram's weight (IDF, TFIDF); default 1");
  args.output("z", "float32 [max(ngram_indexes) + 1], or [B, ...] for a [B, C] x");
  args.i_arg("min_gram_length", "the shortest n-gram counted").at_least(1);
  args.i_arg("max_gram_length", "the longest n-gram counted").at_least(1);
  args.i_arg("max_skip_count", "the most tokens skipped between an n-gram's tokens").at_least(0);
  args.i_arg("mode", 0, "the weighting").one_of({{0, "TF: counts"}, {1, "IDF: weight where counted"},
                                                 {2, "TFIDF: count * weight"}});
}
