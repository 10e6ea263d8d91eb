// argwhere and nonzero: the coordinates of x's nonzero elements (Note
// [Nonzero coordinates] in nonzero.h); where with one input is argwhere
// (where.cpp). The CPU kernel counts the flags of fixed chunks, then each
// chunk writes its coordinates from its offset, walking the index in C order.
#include "libops/ops/select/nonzero.h"

#include <algorithm>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {

DeviceKernel<NonzeroDeviceFn> nonzero_device_kernel;

namespace {

constexpr int64_t kChunk = 1 << 16;

// The number of x's nonzero elements, counted on block.device() and read
// back: the one value the output shape needs.
Status count_nonzero(const Context& block, const NDArray& x, int64_t& count) {
  count = 0;
  if (x.length() == 0) return Status::ok();
  // x is where's cond.
  const char* name = block.signature() != nullptr ? block.signature()->input_name(0) : "x";
  REQUIRE_TRUE(x.has_data(), 0, "%s %s%s: its values are not known yet (the output size depends on them)", name,
               dtype_name(x.dtype()), x.shape().str().c_str());
  NDArray c;
  RETURN_IF_ERROR(NDArray::create(DataType::kInt64, Dims{}, 'c', c));
  RETURN_IF_ERROR(reduce_into(block, OPS_REDUCE_LONG, static_cast<int>(legacy::ReduceLongOp::count_nonzero), x,
                              Dims{}, c));
  if (c.buffer()->host_stale()) RETURN_IF_ERROR(c.buffer()->sync_to_host());
  count = c.get_int64(0);
  return Status::ok();
}

}  // namespace

Status nonzero_cpu(const NonzeroDesc& d, const NDArray& flags, NDArray& z) {
  const uint8_t* f = flags.data_as<uint8_t>();  // bool: one byte, 0 or 1
  int64_t* out = z.data_as<int64_t>();
  const int64_t chunks = (d.n + kChunk - 1) / kChunk;
  std::vector<int64_t> start(static_cast<size_t>(chunks) + 1, 0);
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      int64_t k = 0;
      for (int64_t i = c * kChunk; i < std::min(d.n, (c + 1) * kChunk); ++i) k += f[i] != 0;
      start[static_cast<size_t>(c) + 1] = k;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) start[static_cast<size_t>(c) + 1] += start[static_cast<size_t>(c)];
  if (start.back() != d.count)
    return Status::error(StatusCode::kInternal, "nonzero: x has %lld nonzero elements, the output holds %lld",
                         static_cast<long long>(start.back()), static_cast<long long>(d.count));
  parallel_for(chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      // The C-order index of the chunk's first element, then one step a time.
      int64_t idx[kMaxRank] = {};
      for (int64_t a = d.rank - 1, rest = c * kChunk; a >= 0; --a) {
        idx[a] = rest % d.dims[a];
        rest /= d.dims[a];
      }
      int64_t k = start[static_cast<size_t>(c)];
      for (int64_t i = c * kChunk; i < std::min(d.n, (c + 1) * kChunk); ++i) {
        if (f[i]) {
          for (int a = 0; a < d.rank; ++a) out[d.rank_major ? a * d.count + k : k * d.rank + a] = idx[a];
          ++k;
        }
        for (int a = d.rank - 1; a >= 0 && ++idx[a] == d.dims[a]; --a) idx[a] = 0;
      }
    }
  });
  return Status::ok();
}

Status nonzero_shape(const Context& block, const NDArray& x, bool rank_major, TensorShape& out) {
  int64_t count = 0;
  RETURN_IF_ERROR(count_nonzero(block, x, count));
  const int64_t r = x.rank();
  out = TensorShape{DataType::kInt64, rank_major ? Dims{r, count} : Dims{count, r}, 'c'};
  return Status::ok();
}

Status nonzero_into(const Context& block, const NDArray& x, bool rank_major, NDArray& z) {
  if (z.length() == 0) return Status::ok();  // no nonzeros, or a rank-0 x
  NonzeroDesc d;
  d.rank = x.rank();
  for (int a = 0; a < d.rank; ++a) d.dims[a] = x.dim(a);
  d.n = x.length();
  d.count = rank_major ? z.dim(1) : z.dim(0);
  d.rank_major = rank_major;
  NDArray flags;
  RETURN_IF_ERROR(dense_on_device(block, x, DataType::kBool, flags));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, DataType::kInt64));
  if (block.device().is_cpu()) {
    RETURN_IF_ERROR(with_op_name(block, nonzero_cpu(d, flags, out.target())));
    out.target().buffer()->mark_host_written();
  } else {
    const NonzeroDeviceFn fn = nonzero_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, flags, out.target())));
  }
  return out.finish(block, z);
}

}  // namespace libops::ops

CUSTOM_OP_IMPL(argwhere, 1, 1, false, 0, 0) {
  return libops::ops::nonzero_into(block, *INPUT_VARIABLE(0), false, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(argwhere) {
  libops::TensorShape s;
  RETURN_IF_ERROR(libops::ops::nonzero_shape(block, *INPUT_VARIABLE(0), false, s));
  shapes.push_back(s);
  return libops::Status::ok();
}

DECLARE_TYPES(argwhere) {
  // On a device through the backend's kernel (nonzero.cu).
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(argwhere) {
  args.describe("The indices of x's nonzero elements, one row each (numpy.argwhere, TF's where(cond)).");
  reads_on_host(args, "the count of nonzero elements (z's extent)");
  args.input("x", "any dtype, any shape; nonzero (NaN too) counts");
  args.output("z", "[count, rank] int64: row k is the index of the k-th nonzero element in C order");
}

CUSTOM_OP_IMPL(nonzero, 1, 1, false, 0, 0) {
  return libops::ops::nonzero_into(block, *INPUT_VARIABLE(0), true, *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(nonzero) {
  libops::TensorShape s;
  RETURN_IF_ERROR(libops::ops::nonzero_shape(block, *INPUT_VARIABLE(0), true, s));
  shapes.push_back(s);
  return libops::Status::ok();
}

DECLARE_TYPES(nonzero) { descriptor.allow_inputs(libops::types::kAny).runs_on_any_device(); }

DECLARE_ARGS(nonzero) {
  args.describe("The indices of x's nonzero elements, one row per dim (numpy.nonzero stacked, ONNX NonZero).");
  reads_on_host(args, "the count of nonzero elements (z's extent)");
  args.input("x", "any dtype, any shape; nonzero (NaN too) counts");
  args.output("z", "[rank, count] int64: row d holds dim d of each nonzero element's index, in C order");
}
