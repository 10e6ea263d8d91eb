// unique, unique_with_counts, unique_all: the distinct values of x, with
// where each element went, how often each occurs and where each first
// occurs (Note [Unique values] in unique.h).
//   unique(x)              -> values, inverse           (TF's and libnd4j's unique)
//   unique_with_counts(x)  -> values, inverse, counts   (TF's and libnd4j's)
//   unique_all(x)          -> values, first, inverse, counts
//                             (numpy.unique_all, ONNX Unique's outputs)
// b args: sorted (true), equal_nan (true).
//
// The shape function counts the distinct values (unique_count, read back
// from the call's device); the body then runs the kernel: a stable argsort of
// the keys, group heads where the key changes, and per group its first
// position and count (unique_cpu here, unique.cu on CUDA).
#include "libops/ops/sort/unique.h"

#include <cmath>
#include <type_traits>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/sort/sort.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {

DeviceKernel<UniqueCountDeviceFn> unique_count_device_kernel;
DeviceKernel<UniqueDeviceFn> unique_device_kernel;

namespace {

// Whether a and b are one value (Note [Unique values]): == (so -0.0 is
// +0.0), and NaN is NaN only under equal_nan.
template <typename T>
bool same_value(T a, T b, bool equal_nan) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
  }
  return a == b;
}

// The stable order of x's keys: sorted[i] is x's position with the i-th
// smallest value (equal values by position).
Status stable_order(const NDArray& x, int64_t n, NDArray& order) {
  RETURN_IF_ERROR(NDArray::create(DataType::kInt64, Dims{1, n}, 'c', order));
  SortDesc s;
  s.rows = 1;
  s.n = s.k = n;
  s.zeros_equal = true;
  return sort_rows_cpu(s, x, nullptr, &order);
}

template <typename T>
Status count_typed(const UniqueDesc& d, const NDArray& x, int64_t& count) {
  NDArray sorted;
  RETURN_IF_ERROR(NDArray::create(x.dtype(), Dims{1, d.n}, 'c', sorted));
  SortDesc s;
  s.rows = 1;
  s.n = s.k = d.n;
  s.zeros_equal = true;
  RETURN_IF_ERROR(sort_rows_cpu(s, x, &sorted, nullptr));
  const T* v = sorted.data_as<T>();
  count = d.n > 0 ? 1 : 0;
  for (int64_t i = 1; i < d.n; ++i) count += same_value(v[i], v[i - 1], d.equal_nan) ? 0 : 1;
  return Status::ok();
}

template <typename T>
Status unique_typed(const UniqueDesc& d, const NDArray& x, NDArray& values, NDArray& first, NDArray& inverse,
                    NDArray& counts) {
  const int64_t n = d.n, u = values.length();
  NDArray order_array;
  RETURN_IF_ERROR(stable_order(x, n, order_array));
  const int64_t* order = order_array.data_as<int64_t>();
  const T* xs = x.data_as<T>();
  T* val = values.data_as<T>();
  int64_t *fst = first.data_as<int64_t>(), *inv = inverse.data_as<int64_t>(), *cnt = counts.data_as<int64_t>();
  // Groups of equal values in sorted order; a group's first element is its
  // first occurrence (the sort is stable).
  int64_t g = -1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = order[i];
    if (i == 0 || !same_value(xs[at], xs[order[i - 1]], d.equal_nan)) {
      if (++g >= u) break;  // never: the shape function counted u groups
      fst[g] = at;
      val[g] = xs[at];
      cnt[g] = 0;
    }
    ++cnt[g];
    inv[at] = g;
  }
  if (g + 1 != u)
    return Status::error(StatusCode::kInternal, "unique: x has %lld distinct values, the outputs hold %lld",
                         static_cast<long long>(g + 1), static_cast<long long>(u));
  if (d.sorted) return Status::ok();
  // In order of first occurrence: number the groups as x meets them.
  std::vector<int64_t> renumber(static_cast<size_t>(u), -1);
  int64_t next = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t& r = renumber[static_cast<size_t>(inv[i])];
    if (r < 0) r = next++;
    inv[i] = r;
  }
  std::vector<T> v2(static_cast<size_t>(u));
  std::vector<int64_t> f2(static_cast<size_t>(u)), c2(static_cast<size_t>(u));
  for (int64_t j = 0; j < u; ++j) {
    const size_t r = static_cast<size_t>(renumber[static_cast<size_t>(j)]);
    v2[r] = val[j];
    f2[r] = fst[j];
    c2[r] = cnt[j];
  }
  for (int64_t j = 0; j < u; ++j) {
    val[j] = v2[static_cast<size_t>(j)];
    fst[j] = f2[static_cast<size_t>(j)];
    cnt[j] = c2[static_cast<size_t>(j)];
  }
  return Status::ok();
}

// x flattened in C order, dense, in its sort key dtype, on the call's device.
Status staged_keys(const Context& block, const NDArray& x, NDArray& flat) {
  NDArray dense;
  RETURN_IF_ERROR(dense_on_device(block, x, sort_key_dtype(x.dtype()), dense));
  return dense.reshape(Dims{x.length()}, flat);
}

UniqueDesc desc_of(const Context& block) {
  UniqueDesc d;
  d.n = block.input(0)->length();
  d.sorted = block.b_arg(0);
  d.equal_nan = block.b_arg(1);
  return d;
}

// The number of distinct values of x: the one value read back from the
// device. Needs x's data, except when x is empty.
Status unique_count(const Context& block, int64_t& count) {
  const NDArray& x = *block.input(0);
  count = 0;
  if (x.length() == 0) return Status::ok();
  REQUIRE_TRUE(x.has_data(), 0, "x %s%s: its values are not known yet (the output size depends on them)",
               dtype_name(x.dtype()), x.shape().str().c_str());
  const UniqueDesc d = desc_of(block);
  NDArray keys, c;
  RETURN_IF_ERROR(staged_keys(block, x, keys));
  RETURN_IF_ERROR(NDArray::create(DataType::kInt64, Dims{}, 'c', c));
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(with_op_name(block, unique_count_cpu(d, keys, c)));
  } else {
    const UniqueCountDeviceFn fn = unique_count_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, keys, c)));
    RETURN_IF_ERROR(c.buffer()->sync_to_host());
  }
  count = c.get_int64(0);
  return Status::ok();
}

enum Outputs { kValuesInverse, kWithCounts, kAll };

Status unique_shape(Context& block, Outputs which, ShapeList& shapes) {
  int64_t u = 0;
  RETURN_IF_ERROR(unique_count(block, u));
  const NDArray& x = *block.input(0);
  shapes.push_back(TensorShape{x.dtype(), Dims{u}, 'c'});
  if (which == kAll) shapes.push_back(TensorShape{DataType::kInt64, Dims{u}, 'c'});
  shapes.push_back(TensorShape{DataType::kInt64, x.shape(), 'c'});
  if (which != kValuesInverse) shapes.push_back(TensorShape{DataType::kInt64, Dims{u}, 'c'});
  return Status::ok();
}

Status unique_exec(Context& block, Outputs which) {
  const NDArray& x = *block.input(0);
  if (x.length() == 0) return Status::ok();  // every output is empty
  const UniqueDesc d = desc_of(block);
  const int64_t u = block.output(0)->length();
  NDArray* values_out = block.output(0);
  NDArray* first_out = which == kAll ? block.output(1) : nullptr;
  NDArray* inverse_out = block.output(which == kAll ? 2 : 1);
  NDArray* counts_out = which == kAll ? block.output(3) : which == kWithCounts ? block.output(2) : nullptr;
  NDArray keys;
  RETURN_IF_ERROR(staged_keys(block, x, keys));
  // Outputs the kernel writes: the op's own where they are dense in the
  // kernel's dtype, else scratch copied in after.
  DeviceOutputStage values, inverse;
  RETURN_IF_ERROR(values.begin(block, *values_out, keys.dtype()));
  RETURN_IF_ERROR(inverse.begin(block, *inverse_out, DataType::kInt64));
  DeviceOutputStage first, counts;
  NDArray first_scratch, counts_scratch;
  if (first_out == nullptr) RETURN_IF_ERROR(NDArray::create(DataType::kInt64, Dims{u}, 'c', first_scratch));
  if (counts_out == nullptr) RETURN_IF_ERROR(NDArray::create(DataType::kInt64, Dims{u}, 'c', counts_scratch));
  RETURN_IF_ERROR(first.begin(block, first_out ? *first_out : first_scratch, DataType::kInt64));
  RETURN_IF_ERROR(counts.begin(block, counts_out ? *counts_out : counts_scratch, DataType::kInt64));
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(with_op_name(
        block, unique_cpu(d, keys, values.target(), first.target(), inverse.target(), counts.target())));
    for (NDArray* a : {&values.target(), &first.target(), &inverse.target(), &counts.target()})
      a->buffer()->mark_host_written();
  } else {
    const UniqueDeviceFn fn = unique_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(
        block, fn(block.device(), d, keys, values.target(), first.target(), inverse.target(), counts.target())));
  }
  RETURN_IF_ERROR(values.finish(block, *values_out));
  RETURN_IF_ERROR(inverse.finish(block, *inverse_out));
  if (first_out) RETURN_IF_ERROR(first.finish(block, *first_out));
  if (counts_out) RETURN_IF_ERROR(counts.finish(block, *counts_out));
  return Status::ok();
}

void unique_signature(OpSignature& args, Outputs which) {
  args.input("x", "any dtype, any shape; flattened in C order");
  args.output("values", "[u], x's dtype: the distinct values");
  if (which == kAll) args.output("first", "[u] int64: the flat position of each value's first occurrence");
  args.output("inverse", "x's shape, int64: each element's position in values (values[inverse] == x)");
  if (which != kValuesInverse) args.output("counts", "[u] int64: how often each value occurs");
  args.b_arg("sorted", true, "values ascending; false: in order of first occurrence (TF, libnd4j)");
  args.b_arg("equal_nan", true, "every NaN is one value (numpy's default); false: each NaN is its own");
}

}  // namespace

Status unique_count_cpu(const UniqueDesc& d, const NDArray& x, NDArray& count) {
  int64_t c = 0;
  RETURN_IF_ERROR(with_sort_key_type(x.dtype(), [&](auto tag) { return count_typed<decltype(tag)>(d, x, c); }));
  *count.data_as<int64_t>() = c;
  return Status::ok();
}

Status unique_cpu(const UniqueDesc& d, const NDArray& x, NDArray& values, NDArray& first, NDArray& inverse,
                  NDArray& counts) {
  return with_sort_key_type(x.dtype(), [&](auto tag) {
    return unique_typed<decltype(tag)>(d, x, values, first, inverse, counts);
  });
}

}  // namespace libops::ops

CUSTOM_OP_IMPL(unique, 1, 2, false, 0, 0) { return libops::ops::unique_exec(block, libops::ops::kValuesInverse); }

DECLARE_SHAPE_FN(unique) { return libops::ops::unique_shape(block, libops::ops::kValuesInverse, shapes); }

DECLARE_TYPES(unique) {
  // On a device through the backend's unique kernels (unique.cu).
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(unique) {
  args.describe("The distinct values of x and, per element, its value's position among them.");
  reads_on_host(args, "the count of distinct values (the outputs' extent)");
  libops::ops::unique_signature(args, libops::ops::kValuesInverse);
}

CUSTOM_OP_IMPL(unique_with_counts, 1, 3, false, 0, 0) {
  return libops::ops::unique_exec(block, libops::ops::kWithCounts);
}

DECLARE_SHAPE_FN(unique_with_counts) { return libops::ops::unique_shape(block, libops::ops::kWithCounts, shapes); }

DECLARE_TYPES(unique_with_counts) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(unique_with_counts) {
  args.describe("unique, with how often each distinct value occurs.");
  reads_on_host(args, "the count of distinct values (the outputs' extent)");
  libops::ops::unique_signature(args, libops::ops::kWithCounts);
}

CUSTOM_OP_IMPL(unique_all, 1, 4, false, 0, 0) { return libops::ops::unique_exec(block, libops::ops::kAll); }

DECLARE_SHAPE_FN(unique_all) { return libops::ops::unique_shape(block, libops::ops::kAll, shapes); }

DECLARE_TYPES(unique_all) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(unique_all) {
  args.describe("unique_with_counts, with where each distinct value first occurs (numpy.unique_all).");
  reads_on_host(args, "the count of distinct values (the outputs' extent)");
  libops::ops::unique_signature(args, libops::ops::kAll);
}
