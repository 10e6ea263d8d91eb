// where: z = cond ? x : y with the three broadcast together (numpy.where,
// ONNX Where, libnd4j's Where and select). cond may be any dtype (nonzero =
// true); x and y are converted to their promoted dtype (Note [Type
// promotion]), which z has. A NaN in cond counts as true.
// With cond alone, where gives the coordinates of cond's nonzero elements,
// [count, rank] int64, as TF's where(cond) and libnd4j's Where with one input
// do: that is argwhere (Note [Nonzero coordinates] in nonzero.h).
//
// The kernel (where.h) copies elements by size over one NdLoop; on a device
// the backend's kernel runs the same loop (where.cu).
#include "libops/ops/select/where.h"

#include <cstring>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/select/nonzero.h"
#include "libops/ops/host_reads.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {

DeviceKernel<SelectDeviceFn> select_device_kernel;

namespace {

template <typename T>
void select_run(const NdLoop<4>& loop, int64_t begin, int64_t end) {
  loop.run(begin, end, [](char* const* p, const int64_t* s, int64_t n) {
    char *z = p[0], *c = p[1], *x = p[2], *y = p[3];
    for (int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, *c ? x : y, sizeof(T));
      std::memcpy(z, &v, sizeof(T));
      z += s[0], c += s[1], x += s[2], y += s[3];
    }
  });
}

void select_cpu(const SelectLoop& l) {
  const int64_t n = l.loop.count();
  parallel_for(n, 32768, [&](int64_t begin, int64_t end) {
    switch (l.elem_size) {
      case 1: select_run<uint8_t>(l.loop, begin, end); break;
      case 2: select_run<uint16_t>(l.loop, begin, end); break;
      case 4: select_run<uint32_t>(l.loop, begin, end); break;
      default: select_run<uint64_t>(l.loop, begin, end); break;
    }
  });
}

// `a` as a bool array (nonzero = true), converted on the call's device.
Status as_bool(const Context& block, const NDArray& a, NDArray& out) {
  if (a.dtype() == DataType::kBool) {
    out = a;
    return Status::ok();
  }
  RETURN_IF_ERROR(NDArray::create(DataType::kBool, a.shape(), 'c', out));
  return assign_on_device(block, out, a);
}

}  // namespace

Status select_into(const Context& block, const NDArray& cond_in, const NDArray& x, const NDArray& y, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  NDArray cond;
  RETURN_IF_ERROR(as_bool(block, cond_in, cond));
  // z may share memory with an input (in place): then read from copies.
  NDArray xs = x, ys = y;
  if (z.may_overlap(x) && !z.same_view(x)) RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), xs));
  if (z.may_overlap(y) && !z.same_view(y)) RETURN_IF_ERROR(dense_on_device(block, y, y.dtype(), ys));
  const Device d = block.device();
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(d, {&cond, &xs, &ys}, z)));
  SelectLoop l;
  l.elem_size = static_cast<int64_t>(z.element_size());
  l.loop.init(z.shape());
  const bool host = d.is_cpu();
  auto ptr = [&](const NDArray& a) { return host ? a.data() : a.device_data(); };
  l.loop.set_operand(0, ptr(z), z.strides(), l.elem_size);
  l.loop.set_operand(1, ptr(cond), broadcast_strides(cond.shape(), cond.strides(), z.shape()), 1);
  l.loop.set_operand(2, ptr(xs), broadcast_strides(xs.shape(), xs.strides(), z.shape()), l.elem_size);
  l.loop.set_operand(3, ptr(ys), broadcast_strides(ys.shape(), ys.strides(), z.shape()), l.elem_size);
  l.loop.coalesce();
  if (host) {
    select_cpu(l);
    return Status::ok();
  }
  const SelectDeviceFn fn = select_device_kernel.get(d.type);
  if (fn == nullptr) return no_device_implementation(block);
  RETURN_IF_ERROR(with_op_name(block, fn(d, l)));
  z.buffer()->mark_device_written();
  return Status::ok();
}

}  // namespace libops::ops

CUSTOM_OP_IMPL(where, -1, 1, false, 0, 0) {
  using namespace libops;
  if (block.num_inputs() == 1) return ops::nonzero_into(block, *INPUT_VARIABLE(0), false, *OUTPUT_VARIABLE(0));
  NDArray x = *INPUT_VARIABLE(1), y = *INPUT_VARIABLE(2);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  // x and y in z's (promoted) dtype.
  for (NDArray* a : {&x, &y})
    if (a->dtype() != z->dtype()) {
      NDArray c;
      RETURN_IF_ERROR(NDArray::create(z->dtype(), a->shape(), 'c', c));
      RETURN_IF_ERROR(ops::assign_on_device(block, c, *a));
      *a = c;
    }
  return ops::select_into(block, *INPUT_VARIABLE(0), x, y, *z);
}

DECLARE_SHAPE_FN(where) {
  using namespace libops;
  if (block.num_inputs() == 1) {
    TensorShape s;
    RETURN_IF_ERROR(ops::nonzero_shape(block, *INPUT_VARIABLE(0), false, s));
    shapes.push_back(s);
    return Status::ok();
  }
  REQUIRE_TRUE(block.num_inputs() == 3, 0,
               "2 inputs (cond %s%s, x %s%s): give cond alone (its nonzero coordinates) or cond, x and y",
               dtype_name(INPUT_VARIABLE(0)->dtype()), INPUT_VARIABLE(0)->shape().str().c_str(),
               dtype_name(INPUT_VARIABLE(1)->dtype()), INPUT_VARIABLE(1)->shape().str().c_str());
  const NDArray *c = INPUT_VARIABLE(0), *x = INPUT_VARIABLE(1), *y = INPUT_VARIABLE(2);
  Dims xy, out;
  RETURN_IF_ERROR(broadcast_shapes(block.op_name(), x->shape(), y->shape(), xy));
  RETURN_IF_ERROR(broadcast_shapes(block.op_name(), c->shape(), xy, out));
  shapes.push_back(TensorShape{promote_types(x->dtype(), y->dtype()), out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(where) {
  // On a device through the backend's select kernel (where.cu).
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_PATTERN(where, kBroadcast)

DECLARE_ARGS(where) {
  args.describe("Picks x where cond is true and y elsewhere; with cond alone, the indices of its nonzeros.");
  reads_on_host(args, "with cond alone, the count of nonzero elements (z's extent)");
  args.input("cond", "any dtype; nonzero (NaN too) is true");
  args.optional_input("x", "values where cond is true (with y)");
  args.optional_input("y", "values where cond is false (with x)");
  args.output("z", "cond ? x : y in the promoted dtype of x and y, broadcast; cond alone: [count, rank] int64");
}

DECLARE_SYN(select, where)
DECLARE_SYN(Where, where)     // libnd4j's name
DECLARE_SYN(where_np, where)  // libnd4j's numpy-style where: the same three-input form
