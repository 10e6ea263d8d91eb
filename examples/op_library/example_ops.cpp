// An op library built outside libops' tree (libops_add_op_library in
// examples/CMakeLists.txt): one op, example_scale_shift, y = x * scale +
// shift over a float array, with its shape function, dtypes and args
// declared as libops' own ops declare theirs.
//
// Load it with ops_load_op_library("libexample_ops.so") in C, `ops-run
// --op-library libexample_ops.so`, or libops.load_op_library in Python; then
// call it by name, put it in a graph, or use it from an ONNX model as a node
// of any custom domain with op_type "example_scale_shift" and FLOAT
// attributes scale and shift.
#include <libops/core/parallel.h>
#include <libops/ops/declarable_op.h>

CUSTOM_OP_IMPL(example_scale_shift, 1, 1, false, 0, 0) {
  using namespace libops;
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray& z = *OUTPUT_VARIABLE(0);
  REQUIRE_TRUE(x.is_c_contiguous() && z.is_c_contiguous(), 0, "x%s must be dense", x.shape().str().c_str());
  const double scale = T_ARG(0), shift = T_ARG(1);
  const int64_t n = x.length();
  if (x.dtype() == DataType::kFloat64) {
    const double* xs = x.data_as<const double>();
    double* zs = z.data_as<double>();
    parallel_for(n, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) zs[i] = xs[i] * scale + shift;
    });
  } else {
    const float* xs = x.data_as<const float>();
    float* zs = z.data_as<float>();
    const float s = static_cast<float>(scale), t = static_cast<float>(shift);
    parallel_for(n, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) zs[i] = xs[i] * s + t;
    });
  }
  return Status::ok();
}

DECLARE_SHAPE_FN(example_scale_shift) {
  const libops::NDArray& x = *INPUT_VARIABLE(0);
  shapes.push_back(libops::TensorShape{x.dtype(), x.shape(), 'c'});
  return libops::Status::ok();
}

DECLARE_TYPES(example_scale_shift) {
  descriptor.allow_inputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
  descriptor.allow_outputs({libops::DataType::kFloat32, libops::DataType::kFloat64});
}

DECLARE_ARGS(example_scale_shift) {
  args.describe("x * scale + shift (an op library's example).");
  args.input("x", "float32 or float64");
  args.output("z", "x's dtype and shape");
  args.t_arg("scale", 1.0, "the factor").finite();
  args.t_arg("shift", 0.0, "the offset").finite();
}
