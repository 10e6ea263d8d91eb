// searchsorted: for each value, where it would go in a sorted sequence to
// keep it sorted (numpy.searchsorted, TF's searchsorted): the first
// position whose element is >= the value (side left) or > it (side right).
// The sequence is [N], shared by values of any shape, or [..., N] with
// values [..., M] of the same leading dims (one sequence per row). Values
// are compared as Note [Sort order] orders them (NaN after every number),
// in the promoted dtype of both; positions are int64.
#include "libops/ops/sort/searchsorted.h"

#include <algorithm>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/sort/sort.h"
#include "libops/ops/sort/sort_keys.h"

namespace libops::ops {

DeviceKernel<SearchSortedDeviceFn> searchsorted_device_kernel;

namespace {

template <typename T>
void search_cpu(const SearchSortedDesc& d, const T* seq, const T* values, int64_t* out) {
  parallel_for(d.rows * d.m, 4096, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      const int64_t r = d.shared ? 0 : t / d.m;
      const T* s = seq + r * d.n;
      const auto key = sort_keys::encode(values[t], false, true);
      const auto* lo = s;
      int64_t first = 0, count = d.n;  // lower or upper bound over keys
      while (count > 0) {
        const int64_t step = count / 2;
        const auto k = sort_keys::encode(lo[first + step], false, true);
        if (d.right ? !(key < k) : k < key) {
          first += step + 1;
          count -= step + 1;
        } else {
          count = step;
        }
      }
      out[t] = first;
    }
  });
}

Status plan(Context& block, SearchSortedDesc& d) {
  const NDArray& seq = *block.input(0);
  const NDArray& v = *block.input(1);
  REQUIRE_TRUE(seq.rank() >= 1, OPS_ERR_SHAPE, "sorted%s needs rank >= 1", seq.shape().str().c_str());
  d.n = seq.dim(seq.rank() - 1);
  d.right = block.b_arg(0);
  d.shared = seq.rank() == 1;
  if (d.shared) {
    d.rows = 1;
    d.m = v.length();
    return Status::ok();
  }
  bool ok = v.rank() == seq.rank();
  for (int k = 0; ok && k + 1 < seq.rank(); ++k) ok = v.dim(k) == seq.dim(k);
  REQUIRE_TRUE(ok, OPS_ERR_SHAPE, "values%s must share the leading dims of sorted%s ([..., M] for [..., N])",
               v.shape().str().c_str(), seq.shape().str().c_str());
  d.m = v.dim(v.rank() - 1);
  d.rows = d.n == 0 && d.m == 0 ? 0 : (seq.length() / std::max<int64_t>(1, d.n));
  if (d.n == 0) d.rows = v.length() / std::max<int64_t>(1, d.m);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(searchsorted, 2, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  SearchSortedDesc d;
  RETURN_IF_ERROR(plan(block, d));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const DataType kt = sort_key_dtype(promote_types(INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(1)->dtype()));
  NDArray seq, vals;
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(0), kt, seq));
  RETURN_IF_ERROR(dense_on_device(block, *INPUT_VARIABLE(1), kt, vals));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, DataType::kInt64));
  int64_t* o = out.target().data_as<int64_t>();
  if (!block.device().is_cpu()) {
    const SearchSortedDeviceFn fn = searchsorted_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, seq, vals, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, with_sort_key_type(kt, [&](auto tag) {
    using T = decltype(tag);
    search_cpu(d, seq.data_as<T>(), vals.data_as<T>(), o);
    return Status::ok();
  })));
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(searchsorted) {
  using namespace libops;
  ops::SearchSortedDesc d;
  RETURN_IF_ERROR(ops::plan(block, d));
  shapes.push_back(TensorShape{DataType::kInt64, INPUT_VARIABLE(1)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(searchsorted) {
  // On a device through the backend's kernel (searchsorted.cu).
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(searchsorted) {
  args.describe("Where each value would be inserted into a sorted sequence.");
  args.input("sorted", "[N], or [..., N] (one sorted sequence per row)");
  args.input("values", "any shape with [N]; [..., M] with [..., N]");
  args.output("z", "int64 positions in [0, N], values' shape");
  args.b_arg("right", false, "after equal elements (numpy's side='right'); else before them");
}
