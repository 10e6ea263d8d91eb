// The CPU side of the element-wise draws (draw.h) and what the random ops
// share: bounds, the output shape, staging the output on the call's device.
#include "libops/ops/random/draw.h"

#include <cmath>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {

DeviceKernel<DrawDeviceFn> draw_device_kernel;

namespace {

template <rng::Precision P>
void draw_values_cpu(const DrawDesc& d, rng::compute_t<P>* out) {
  parallel_for(d.n, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = draw_value<P>(d, i);
  });
}

void draw_cpu(const DrawDesc& d, NDArray& out) {
  if (d.kind == DrawKind::kBits32) {
    uint32_t* o = out.data_as<uint32_t>();
    parallel_for(d.n, 8192, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = rng::element_bits32(d.key, i);
    });
    return;
  }
  const rng::Precision p = d.kind == DrawKind::kBernoulli ? rng::Precision::kFloat32 : d.precision;
  switch (p) {
    case rng::Precision::kFloat16: draw_values_cpu<rng::Precision::kFloat16>(d, out.data_as<float>()); break;
    case rng::Precision::kBFloat16: draw_values_cpu<rng::Precision::kBFloat16>(d, out.data_as<float>()); break;
    case rng::Precision::kFloat32: draw_values_cpu<rng::Precision::kFloat32>(d, out.data_as<float>()); break;
    case rng::Precision::kFloat64: draw_values_cpu<rng::Precision::kFloat64>(d, out.data_as<double>()); break;
  }
}

// v rounded once to dtype t (a float dtype), as a double.
double round_to_dtype(DataType t, double v) {
  switch (t) {
    case DataType::kFloat16: return half_bits_to_float(float_to_half_bits(v));
    case DataType::kBFloat16: return bf16_bits_to_float(float_to_bf16_bits(v));
    case DataType::kFloat32: return static_cast<float>(v);
    default: return v;
  }
}

// a - b in t's compute type, rounded to t.
double difference_in(DataType t, double a, double b) {
  if (t == DataType::kFloat64) return a - b;
  return round_to_dtype(t, static_cast<double>(static_cast<float>(a) - static_cast<float>(b)));
}

}  // namespace

DataType draw_storage_dtype(const DrawDesc& d) {
  if (d.kind == DrawKind::kBits32) return DataType::kUInt32;
  if (d.kind != DrawKind::kBernoulli && d.precision == rng::Precision::kFloat64) return DataType::kFloat64;
  return DataType::kFloat32;
}

rng::Precision draw_precision(DataType t) {
  switch (t) {
    case DataType::kFloat16: return rng::Precision::kFloat16;
    case DataType::kBFloat16: return rng::Precision::kBFloat16;
    case DataType::kFloat64: return rng::Precision::kFloat64;
    default: return rng::Precision::kFloat32;
  }
}

Status uniform_bounds(const Context& block, DataType t, double min, double max, DrawDesc& d) {
  REQUIRE_TRUE(min <= max, 0, "bounds with min = %g, max = %g: min must not exceed max", min, max);
  const double lo = round_to_dtype(t, min), hi = round_to_dtype(t, max);
  REQUIRE_TRUE(std::isfinite(lo) && std::isfinite(hi), 0,
               "bounds with min = %g, max = %g: both must be finite in %s (they round to %g and %g)", min, max,
               dtype_name(t), lo, hi);
  const double span = difference_in(t, hi, lo);
  REQUIRE_TRUE(std::isfinite(span), 0, "bounds with min = %g, max = %g: max - min overflows %s", min, max,
               dtype_name(t));
  d.precision = draw_precision(t);
  d.lo = lo;
  d.span = span;
  return Status::ok();
}

void normal_bounds(DataType t, double mean, double stddev, DrawDesc& d) {
  // The uniform over (-1, 1): lo = nextafter(-1, 0) in t, max = 1.
  const int mantissa = t == DataType::kFloat16 ? 10 : t == DataType::kBFloat16 ? 7 : t == DataType::kFloat64 ? 52 : 23;
  d.precision = draw_precision(t);
  d.lo = -(1.0 - std::ldexp(1.0, -(mantissa + 1)));
  d.span = difference_in(t, 1.0, d.lo);
  const bool wide = t == DataType::kFloat64;
  d.mean = wide ? mean : static_cast<float>(mean);
  d.stddev = wide ? stddev : static_cast<float>(stddev);
}

Status draw_into(const Context& block, const DrawDesc& d, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, draw_storage_dtype(d)));
  if (block.device().is_cpu()) {
    draw_cpu(d, out.target());
    out.target().buffer()->mark_host_written();
  } else {
    const DrawDeviceFn fn = draw_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, out.target())));
  }
  return out.finish(block, z);
}

Status draw_shape(const Context& block, Dims& shape) {
  thread_local std::vector<int64_t> given;
  RETURN_IF_ERROR(block.int_list("shape", given));
  REQUIRE_TRUE(given.size() <= static_cast<size_t>(kMaxRank), OPS_ERR_SHAPE, "shape has %zu dims; at most %d",
               given.size(), kMaxRank);
  shape = Dims(given.data(), static_cast<int>(given.size()));
  for (int k = 0; k < shape.size(); ++k)
    REQUIRE_TRUE(shape[k] >= 0, OPS_ERR_SHAPE, "shape %s has a negative extent", shape.str().c_str());
  return Status::ok();
}

}  // namespace libops::ops
