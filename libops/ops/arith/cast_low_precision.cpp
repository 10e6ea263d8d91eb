// cast_low_precision: converts to, from and between the types narrower
// than libops' dtypes (low_precision.h: float8, float4, int4, int2), held
// one element a byte, with ONNX's rounding (Note [Low-precision rounding]).
//
//   input   x: a libops dtype (from_format 0), or the bytes of from_format
//           (uint8; int8 for INT4 and INT2)
//   i args  from_format, to_format (LowPrecision; 0: a libops dtype),
//           round_mode (E8M0 only: 0 up, 1 down, 2 nearest)
//   b arg   saturate (float8 only; default true)
//   d arg   dtype: z's dtype when to_format is 0
//   output  z: to_format's bytes (uint8, or int8 for INT4 and INT2), or
//           dtype
//
// Between two libops dtypes it is cast. x is read as float64 (or int64 when
// it is an integer dtype, so that INT4's wrapping keeps every bit); on a
// device through cast_low_precision.cu, on the same arithmetic.
#include "libops/ops/arith/cast_low_precision.h"

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {

DeviceKernel<LowpCastDeviceFn> lowp_cast_device_kernel;

namespace {

DataType storage_dtype(LowPrecision f) { return lowp_is_signed_int(f) ? DataType::kInt8 : DataType::kUInt8; }

Status describe(const Context& block, LowpCastDesc& d, DataType& out) {
  const NDArray& x = *block.input(0);
  const int64_t from = INT_ARG(0), to = INT_ARG(1), mode = INT_ARG(2);
  d.from = static_cast<LowPrecision>(from);
  d.to = static_cast<LowPrecision>(to);
  d.saturate = B_ARG(0);
  d.round_mode = static_cast<RoundMode>(mode);
  if (d.from != LowPrecision::kNone)
    REQUIRE_TRUE(x.dtype() == storage_dtype(d.from), OPS_ERR_DTYPE,
                 "x holds from_format %lld, whose bytes are %s; x is %s", static_cast<long long>(from),
                 dtype_name(storage_dtype(d.from)), dtype_name(x.dtype()));
  d.integer_source = d.from == LowPrecision::kNone && (dtype_is_integer(x.dtype()) || x.dtype() == DataType::kBool);
  out = d.to != LowPrecision::kNone ? storage_dtype(d.to) : D_ARG(0);
  REQUIRE_TRUE(dtype_is_valid(out), 0, "to_format is 0 and no dtype is given for z");
  return Status::ok();
}

// z[i] from x[i]: x dense float64 (or int64 for integer sources, or the
// stored bytes widened to int32 for a low-precision source).
void cast_cpu(const LowpCastDesc& d, const NDArray& x, NDArray& z) {
  const int64_t n = z.length();
  parallel_for(n, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      double v = 0;
      int64_t iv = 0;
      if (d.from != LowPrecision::kNone) {
        v = lowp_decode(d.from, static_cast<int32_t>(x.get_int64(i)));
      } else if (d.integer_source) {
        iv = x.get_int64(i);
        v = static_cast<double>(iv);
      } else {
        v = x.get_double(i);
      }
      if (d.to != LowPrecision::kNone) z.set_double(i, lowp_encode(d.to, v, d.integer_source, iv, d.saturate, d.round_mode));
      else if (d.integer_source && dtype_is_integer(z.dtype())) z.set_double(i, static_cast<double>(iv));
      else z.set_double(i, v);
    }
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(cast_low_precision, 1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  LowpCastDesc d;
  DataType out_dtype = DataType::kInvalid;
  RETURN_IF_ERROR(describe(block, d, out_dtype));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x_in = *INPUT_VARIABLE(0);
  if (d.from == LowPrecision::kNone && d.to == LowPrecision::kNone)
    return assign_on_device(block, *z, x_in);  // a plain cast
  if (!block.device().is_cpu()) {
    // The device stages x as float64 or int64 (or its bytes as int32) and
    // writes z as float64 (or its bytes as int32); copies convert.
    const DataType in_t = d.from != LowPrecision::kNone ? DataType::kInt32
                          : d.integer_source            ? DataType::kInt64
                                                        : DataType::kFloat64;
    const DataType out_t = d.to != LowPrecision::kNone ? DataType::kInt32 : DataType::kFloat64;
    NDArray x;
    RETURN_IF_ERROR(dense_on_device(block, x_in, in_t, x));
    DeviceOutputStage out;
    RETURN_IF_ERROR(out.begin(block, *z, out_t));
    const LowpCastDeviceFn fn = lowp_cast_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, x, out.target())));
    return out.finish(block, *z);
  }
  cast_cpu(d, x_in, *z);
  return Status::ok();
}

DECLARE_SHAPE_FN(cast_low_precision) {
  using namespace libops;
  ops::LowpCastDesc d;
  DataType out = DataType::kInvalid;
  RETURN_IF_ERROR(ops::describe(block, d, out));
  shapes.push_back(TensorShape{out, INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(cast_low_precision) {
  // On a device through the backend's kernel (cast_low_precision.cu).
  descriptor.allow_inputs(libops::types::kNumeric).runs_on_any_device();
}

DECLARE_ARGS(cast_low_precision) {
#define LIBOPS_LOWP_FORMATS                                                                                   \
  {{0, "none (a libops dtype)"}, {1, "float8 e4m3fn"}, {2, "float8 e4m3fnuz"}, {3, "float8 e5m2"},            \
   {4, "float8 e5m2fnuz"},       {5, "float8 e8m0"},   {6, "float4 e2m1"},     {7, "int4"},                   \
   {8, "uint4"},                 {9, "int2"},          {10, "uint2"}}
  args.describe("Casts to, from and between float8, float4, int4 and int2, held one element a byte (ONNX's rounding).");
  args.input("x", "a libops dtype, or from_format's bytes (uint8; int8 for int4 and int2)");
  args.output("z", "to_format's bytes, or dtype");
  args.i_arg("from_format", 0, "what x holds").one_of(LIBOPS_LOWP_FORMATS);
  args.i_arg("to_format", 0, "what z holds").one_of(LIBOPS_LOWP_FORMATS);
#undef LIBOPS_LOWP_FORMATS
  args.i_arg("round_mode", 0, "to float8 e8m0: how a value between two powers of two rounds")
      .one_of({{0, "up"}, {1, "down"}, {2, "nearest"}});
  args.b_arg("saturate", true, "to float8: a value beyond the largest becomes the largest (else NaN or inf)");
  args.d_arg("dtype", libops::DataType::kFloat32, "z's dtype when to_format is 0");
}
