// DeclarableOp: the base of every custom op, and the macros that declare one
// (after libnd4j's DECLARE_CUSTOM_OP family; see libops/ops/README.md).
//
// Lifecycle of one call (DeclarableOp::execute):
//   1. check the inputs and args against the op's signature (DECLARE_ARGS,
//      op_signature.h): counts, ranges, undeclared args; defaults filled in
//      (Note [Argument resolution]);
//   2. check input dtypes against the op's TypeSets (DECLARE_TYPES);
//   3. shape function -> output dtypes and shapes (it validates and never
//      guesses: a shape it cannot produce is an error);
//   4. check supplied outputs against those shapes, or allocate them (or
//      alias input 0 when running in place);
//   5. compute (the *_OP_IMPL body), which trusts 1-4, on the context's
//      device: on the CPU after syncing the arrays' host copies (Note [Host
//      and device copies] in array/data_buffer.h); on another device only if
//      the op runs there (OpDescriptor::any_device).
//
// DeclarableOp::execute_prepared runs step 5 alone, for a caller that has
// established 1-4 itself: the graph executor, whose planner ran
// infer_shapes (steps 1-3) on inputs of exactly the dtypes and shapes the
// node now gets, and which supplies outputs of exactly the planned shapes
// (step 4). Every other call takes the whole pipeline.
//
// Note [Arity numbers]
// nIn / nOut: N >= 0 means exactly N; -1 means one or more; -2 means any
// number, zero included. nT / nI: N >= 0 means at least N (ops may read
// optional trailing args); -1 means one or more; -2 means any. The macro's
// numbers are a summary: the signature (DECLARE_ARGS) is what calls are
// checked against, and the registry refuses an op whose signature falls
// outside its macro's numbers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/core/status.h"
#include "libops/ops/context.h"
#include "libops/ops/op_signature.h"
#include "libops/ops/type_set.h"

#include "libops/core/api.h"

LIBOPS_API_BEGIN

namespace libops {

enum class OpKind { kOp, kConfigurable, kReduction, kCustom, kBoolean };
const char* op_kind_name(OpKind k);

using ShapeList = std::vector<TensorShape>;

uint64_t op_name_hash(std::string_view name);  // FNV-1a 64 of the name's bytes

struct OpDescriptor {
  const char* name = "";
  uint64_t hash = 0;
  OpKind kind = OpKind::kCustom;
  int num_inputs = 0;
  int num_outputs = 1;
  bool inplaceable = false;
  int num_t_args = 0;
  int num_i_args = 0;
  std::vector<TypeSet> input_types;   // per input index; the last entry covers the rest
  std::vector<TypeSet> output_types;  // documentation and --list-ops
  bool same_type = false;             // all inputs must share one dtype
  // The op computes only through primitives that run on the call's device
  // (legacy::exec, blas::gemm with block.device()), so it runs on every
  // device they do. Otherwise the op runs on the CPU only, and asking for
  // another device is an error naming the op.
  bool any_device = false;
  OpSignature signature;  // DECLARE_ARGS

  // Used in DECLARE_TYPES bodies.
  OpDescriptor& allow_inputs(TypeSet t) { input_types.assign(1, t); return *this; }
  OpDescriptor& allow_input(int index, TypeSet t);
  OpDescriptor& allow_outputs(TypeSet t) { output_types.assign(1, t); return *this; }
  OpDescriptor& require_same_type(bool v = true) { same_type = v; return *this; }
  OpDescriptor& runs_on_any_device() { any_device = true; return *this; }
  TypeSet input_type(int index) const;
};

class DeclarableOp {
 public:
  DeclarableOp(const char* name, OpKind kind, int n_in, int n_out, bool inplaceable, int n_t, int n_i);
  virtual ~DeclarableOp() = default;
  DeclarableOp(const DeclarableOp&) = delete;
  DeclarableOp& operator=(const DeclarableOp&) = delete;

  const OpDescriptor& descriptor() const { return descriptor_; }
  const char* name() const { return descriptor_.name; }

  // The whole pipeline (see top of file). Never throws.
  Status execute(Context& block);
  // Steps 1-3 only: for shape inference (inputs may be shape-only).
  Status infer_shapes(Context& block, ShapeList& shapes);
  // Step 5 only (see top of file): the caller guarantees that infer_shapes
  // succeeded on inputs of these dtypes and shapes, that every input holds
  // data and that the outputs are supplied with data, in the shapes
  // infer_shapes gave. Never throws.
  Status execute_prepared(Context& block);

 protected:
  // The op's compute step (the *_OP_IMPL body).
  virtual Status validate_and_execute(Context& block) = 0;
  // The op's shape function; the defaults depend on the kind.
  virtual Status calculate_output_shape(Context& block, ShapeList& shapes);
  // Fills input/output TypeSets (DECLARE_TYPES); default: any dtype.
  virtual void declare_types(OpDescriptor& descriptor) {}
  // Declares inputs, outputs and args (DECLARE_ARGS); ops made by the
  // macros must have one.
  virtual void declare_args(OpSignature& args) {}

  friend class OpRegistry;

 public:
  // Called once by the registrar, after construction. "" when the
  // declaration is sound; otherwise what is wrong with it (the registry
  // refuses the op and records why).
  std::string finish_declaration();

 private:
  Status check_call(Context& block) const;
  Status prepare_outputs(Context& block, const ShapeList& shapes);
  Status compute(Context& block);  // step 5, with exceptions turned into a Status
  OpDescriptor descriptor_;
};

}  // namespace libops

LIBOPS_API_END

// ---------------------------------------------------------------------------
// Macros: thin sugar over a class, a registrar and a function body.
// An op file is self-contained: the *_IMPL macro declares the op's class,
// registers one instance at load time and opens its compute body; the
// DECLARE_* forms only declare the class (for a header, if one is wanted).

#define LIBOPS_OP_CLASS(NAME, KIND, NIN, NOUT, INPLACE, NT, NI)                              \
  namespace libops::ops {                                                                   \
  class NAME final : public ::libops::DeclarableOp {                                        \
   public:                                                                                  \
    NAME() : ::libops::DeclarableOp(#NAME, KIND, NIN, NOUT, INPLACE, NT, NI) {}             \
                                                                                            \
   protected:                                                                               \
    ::libops::Status validate_and_execute(::libops::Context& block) override;               \
    ::libops::Status calculate_output_shape(::libops::Context& block,                       \
                                            ::libops::ShapeList& shapes) override;          \
    void declare_types(::libops::OpDescriptor& descriptor) override;                        \
    void declare_args(::libops::OpSignature& args) override;                                \
  };                                                                                        \
  }

// Registers one instance of the op when the library loads. A shared object
// keeps every registrar (see CMakeLists.txt).
#define LIBOPS_REGISTER_OP(NAME) \
  static ::libops::OpRegistrar<::libops::ops::NAME> libops_registrar_##NAME;

// Ops whose output shape equals the input shape; no t/i args.
#define DECLARE_OP(NAME, NIN, NOUT, INPLACE) \
  LIBOPS_OP_CLASS(NAME, ::libops::OpKind::kOp, NIN, NOUT, INPLACE, 0, 0)
// Output shape equals the input shape; takes t/i args.
#define DECLARE_CONFIGURABLE_OP(NAME, NIN, NOUT, INPLACE, NT, NI) \
  LIBOPS_OP_CLASS(NAME, ::libops::OpKind::kConfigurable, NIN, NOUT, INPLACE, NT, NI)
// Output shape is a reduction of input 0 over the i args (axes; none = all);
// b arg 0, if given, keeps reduced dims.
#define DECLARE_REDUCTION_OP(NAME, NIN, NOUT, INPLACE, NT, NI) \
  LIBOPS_OP_CLASS(NAME, ::libops::OpKind::kReduction, NIN, NOUT, INPLACE, NT, NI)
// Output shapes come from the op's DECLARE_SHAPE_FN.
#define DECLARE_CUSTOM_OP(NAME, NIN, NOUT, INPLACE, NT, NI) \
  LIBOPS_OP_CLASS(NAME, ::libops::OpKind::kCustom, NIN, NOUT, INPLACE, NT, NI)
// Output is a bool scalar, set with BOOLEAN_RESULT(cond).
#define DECLARE_BOOLEAN_OP(NAME, NIN, SCALAR) \
  LIBOPS_OP_CLASS(NAME, ::libops::OpKind::kBoolean, NIN, 1, false, 0, -2)

// The *_IMPL forms: declare, register, then the compute body follows.
// Ops other than custom ones get their shape function from their kind; a
// DECLARE_SHAPE_FN is only written for custom ops.
#define LIBOPS_DEFAULT_SHAPE_FN(NAME)                                                        \
  ::libops::Status libops::ops::NAME::calculate_output_shape(::libops::Context& block,       \
                                                             ::libops::ShapeList& shapes) {  \
    return DeclarableOp::calculate_output_shape(block, shapes);                             \
  }
#define OP_IMPL(NAME, NIN, NOUT, INPLACE)                 \
  DECLARE_OP(NAME, NIN, NOUT, INPLACE)                    \
  LIBOPS_REGISTER_OP(NAME)                                \
  LIBOPS_DEFAULT_SHAPE_FN(NAME)                           \
  ::libops::Status libops::ops::NAME::validate_and_execute(::libops::Context& block)
#define CONFIGURABLE_OP_IMPL(NAME, NIN, NOUT, INPLACE, NT, NI) \
  DECLARE_CONFIGURABLE_OP(NAME, NIN, NOUT, INPLACE, NT, NI)    \
  LIBOPS_REGISTER_OP(NAME)                                     \
  LIBOPS_DEFAULT_SHAPE_FN(NAME)                                \
  ::libops::Status libops::ops::NAME::validate_and_execute(::libops::Context& block)
#define REDUCTION_OP_IMPL(NAME, NIN, NOUT, INPLACE, NT, NI) \
  DECLARE_REDUCTION_OP(NAME, NIN, NOUT, INPLACE, NT, NI)    \
  LIBOPS_REGISTER_OP(NAME)                                  \
  LIBOPS_DEFAULT_SHAPE_FN(NAME)                             \
  ::libops::Status libops::ops::NAME::validate_and_execute(::libops::Context& block)
#define CUSTOM_OP_IMPL(NAME, NIN, NOUT, INPLACE, NT, NI) \
  DECLARE_CUSTOM_OP(NAME, NIN, NOUT, INPLACE, NT, NI)    \
  LIBOPS_REGISTER_OP(NAME)                               \
  ::libops::Status libops::ops::NAME::validate_and_execute(::libops::Context& block)
#define BOOLEAN_OP_IMPL(NAME, NIN, SCALAR) \
  DECLARE_BOOLEAN_OP(NAME, NIN, SCALAR)    \
  LIBOPS_REGISTER_OP(NAME)                 \
  LIBOPS_DEFAULT_SHAPE_FN(NAME)            \
  ::libops::Status libops::ops::NAME::validate_and_execute(::libops::Context& block)

// The shape function of a custom op: fill `shapes`, one TensorShape per output.
#define DECLARE_SHAPE_FN(NAME)                                                        \
  ::libops::Status libops::ops::NAME::calculate_output_shape(::libops::Context& block, \
                                                             ::libops::ShapeList& shapes)
// Supported dtypes, as data: the body calls descriptor.allow_inputs(...) etc.
// Every op file has one (an op with no restriction writes allow_inputs(types::kAny)).
#define DECLARE_TYPES(NAME) void libops::ops::NAME::declare_types(::libops::OpDescriptor& descriptor)
// Inputs, outputs and args, as data (libops/ops/op_signature.h): the body
// calls args.input(...), args.i_arg(...) etc. Every op file has one.
#define DECLARE_ARGS(NAME) void libops::ops::NAME::declare_args(::libops::OpSignature& args)
// An alias: DECLARE_SYN(mmul, matmul) lets "mmul" find matmul.
#define DECLARE_SYN(ALIAS, NAME) \
  static ::libops::OpAliasRegistrar libops_alias_##ALIAS(#ALIAS, #NAME);

// Accessors used in op bodies and shape functions.
#define INPUT_VARIABLE(i) block.input(i)
#define OUTPUT_VARIABLE(i) block.output(i)
#define T_ARG(i) block.t_arg(i)
#define INT_ARG(i) block.i_arg(i)
#define B_ARG(i) block.b_arg(i)
#define D_ARG(i) block.d_arg(i)
// Returns an error naming the op when `cond` is false. CODE 0 means invalid
// argument; otherwise a ::libops::StatusCode (or its ops_status_t number).
#define REQUIRE_TRUE(cond, CODE, ...)                                                           \
  do {                                                                                          \
    if (!(cond))                                                                                \
      return block.error(static_cast<int>(CODE) == 0 ? ::libops::StatusCode::kInvalidArgument   \
                                                     : static_cast<::libops::StatusCode>(CODE), \
                         __VA_ARGS__);                                                          \
  } while (0)
#define STORE_RESULT(array) RETURN_IF_ERROR(block.store_result(0, (array)))
#define STORE_2_RESULTS(a, b)                   \
  do {                                          \
    RETURN_IF_ERROR(block.store_result(0, (a))); \
    RETURN_IF_ERROR(block.store_result(1, (b))); \
  } while (0)
// Per-call scratch memory: `float* tmp = ALLOCATE(float, n);` (null when out
// of memory); freed by RELEASE(tmp) or when the call ends.
#define ALLOCATE(T, count) block.workspace().allocate<T>(count)
#define RELEASE(ptr) block.workspace().release(ptr)
// Boolean ops: writes the result into output 0 and returns.
#define BOOLEAN_RESULT(cond) return block.set_boolean_result(cond)

#include "libops/ops/registry.h"
