// threefry2x32 (alias threefry): the Threefry-2x32 block function of Note
// [Threefry random numbers], 20 rounds, as Nx's threefry: key and counter
// hold (word 0, word 1) pairs along a last dim of 2, their other dims
// broadcast, and each counter pair is hashed under its key pair. Words are
// int32 or uint32, taken as their bits; the result has the counter's dtype.
// JAX's split and fold_in are this op over the counters (0, j) and
// (0, data).
#include "libops/ops/random/threefry2x32.h"

#include <cstring>
#include <string>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/random/threefry.h"

namespace libops::ops {

DeviceKernel<ThreefryDeviceFn> threefry_device_kernel;

namespace {

void threefry_cpu(const ThreefryLoop& l) {
  parallel_for(l.loop.count(), 2048, [&](int64_t begin, int64_t end) {
    l.loop.run(begin, end, [&](char* const* p, const int64_t* s, int64_t n) {
      char *o = p[0], *k = p[1], *c = p[2];
      for (int64_t i = 0; i < n; ++i) {
        uint32_t k0, k1, c0, c1, o0, o1;
        std::memcpy(&k0, k, 4);
        std::memcpy(&k1, k + l.last_stride[1], 4);
        std::memcpy(&c0, c, 4);
        std::memcpy(&c1, c + l.last_stride[2], 4);
        rng::threefry2x32(k0, k1, c0, c1, &o0, &o1);
        std::memcpy(o, &o0, 4);
        std::memcpy(o + l.last_stride[0], &o1, 4);
        o += s[0], k += s[1], c += s[2];
      }
    });
  });
}

// The shape without its last dim (the pairs' shape).
Dims pairs_of(const Dims& shape) {
  Dims p = shape;
  p.resize(shape.size() - 1);
  return p;
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(threefry2x32, 2, 1, false, 0, 0) {
  using namespace libops;
  const NDArray &key = *INPUT_VARIABLE(0), &ctr = *INPUT_VARIABLE(1);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  // z may share memory with an input (in place): then read from copies.
  NDArray ks = key, cs = ctr;
  if (z->may_overlap(key)) RETURN_IF_ERROR(ops::dense_on_device(block, key, key.dtype(), ks));
  if (z->may_overlap(ctr)) RETURN_IF_ERROR(ops::dense_on_device(block, ctr, ctr.dtype(), cs));
  const Device d = block.device();
  RETURN_IF_ERROR(ops::with_op_name(block, sync_for_kernel(d, {&ks, &cs}, *z)));
  const Dims out = ops::pairs_of(z->shape());
  const int last = z->rank() - 1;
  const bool host = d.is_cpu();
  auto ptr = [&](const NDArray& a) { return host ? a.data() : a.device_data(); };
  ops::ThreefryLoop l;
  l.loop.init(out);
  l.loop.set_operand(0, ptr(*z), ops::pairs_of(z->strides()), 4);
  l.loop.set_operand(1, ptr(ks), broadcast_strides(ops::pairs_of(ks.shape()), ops::pairs_of(ks.strides()), out), 4);
  l.loop.set_operand(2, ptr(cs), broadcast_strides(ops::pairs_of(cs.shape()), ops::pairs_of(cs.strides()), out), 4);
  l.last_stride[0] = z->strides()[last] * 4;
  l.last_stride[1] = ks.strides()[ks.rank() - 1] * 4;
  l.last_stride[2] = cs.strides()[cs.rank() - 1] * 4;
  l.loop.coalesce();
  if (host) {
    ops::threefry_cpu(l);
    return Status::ok();
  }
  const ops::ThreefryDeviceFn fn = ops::threefry_device_kernel.get(d.type);
  if (fn == nullptr) return ops::no_device_implementation(block);
  RETURN_IF_ERROR(ops::with_op_name(block, fn(d, l)));
  z->buffer()->mark_device_written();
  return Status::ok();
}

DECLARE_SHAPE_FN(threefry2x32) {
  using namespace libops;
  const NDArray *key = INPUT_VARIABLE(0), *ctr = INPUT_VARIABLE(1);
  for (const NDArray* a : {key, ctr}) {
    const char* what = a == key ? "key" : "counter";
    REQUIRE_TRUE(a->rank() >= 1 && a->dim(a->rank() - 1) == 2, OPS_ERR_SHAPE,
                 "%s%s: key and counter need a last dim of 2 (their (word 0, word 1) pairs)", what,
                 a->shape().str().c_str());
  }
  Dims pairs;
  const std::string what = str_format("%s: the pairs of key%s and counter%s", block.op_name(),
                                      key->shape().str().c_str(), ctr->shape().str().c_str());
  RETURN_IF_ERROR(broadcast_shapes(what.c_str(), ops::pairs_of(key->shape()), ops::pairs_of(ctr->shape()), pairs));
  pairs.push_back(2);
  shapes.push_back(TensorShape{ctr->dtype(), pairs, 'c'});
  return Status::ok();
}

DECLARE_TYPES(threefry2x32) {
  // On a device through the backend's kernel (threefry2x32.cu).
  descriptor.allow_inputs({libops::DataType::kInt32, libops::DataType::kUInt32}).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kInt32, libops::DataType::kUInt32});
}

DECLARE_ARGS(threefry2x32) {
  args.describe("The Threefry-2x32 hash (20 rounds) of counter pairs under key pairs, as Nx's threefry.");
  args.input("key", "[..., 2] int32 or uint32: (k0, k1) pairs, broadcast against counter's");
  args.input("counter", "[..., 2] int32 or uint32: (c0, c1) pairs");
  args.output("z", "[..., 2] in counter's dtype: the two output words of each pair");
}

DECLARE_SYN(threefry, threefry2x32)
