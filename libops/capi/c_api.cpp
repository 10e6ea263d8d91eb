// The C API: a thin shell over the C++ core. Each entry point checks its
// pointers, calls the core, and turns a Status into a code plus the
// thread-local message; exceptions never cross it.
#include "libops/c_api.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdarg>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/capi/c_api_internal.h"
#include "libops/core/log.h"
#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/op_reference.h"

using libops::Context;
using libops::DataType;
using libops::DeclarableOp;
using libops::Dims;
using libops::NDArray;
using libops::OpRegistry;
using libops::Status;
using libops::StatusCode;

namespace libops::capi {

namespace {
thread_local std::string g_last_error;
// Where even the message could not be stored (out of memory), this fixed
// text stands for it: reporting an error must not throw across the C API.
thread_local const char* g_fixed_error = nullptr;

void keep_message(const char* fmt, va_list args) noexcept {
  try {
    g_last_error = str_vformat(fmt, args);
    g_fixed_error = nullptr;
  } catch (...) {
    g_last_error.clear();
    g_fixed_error = "out of memory (while recording an error message)";
  }
}
}  // namespace

const char* last_error_cstr() { return g_fixed_error != nullptr ? g_fixed_error : g_last_error.c_str(); }

ops_status_t report(const Status& s) noexcept {
  if (s.is_ok()) {
    g_last_error.clear();
    g_fixed_error = nullptr;
    return OPS_OK;
  }
  return report_error(s.code(), "%s", s.message().c_str());
}

ops_status_t report_error(StatusCode code, const char* fmt, ...) noexcept {
  va_list args;
  va_start(args, fmt);
  keep_message(fmt, args);
  va_end(args);
  return static_cast<ops_status_t>(code);
}

ops_status_t report_exception() noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return report_error(StatusCode::kOutOfMemory, "out of memory");
  } catch (const std::exception& e) {
    return report_error(StatusCode::kInternal, "internal error: %s", e.what());
  } catch (...) {
    return report_error(StatusCode::kInternal, "internal error: unknown exception");
  }
}

Status dims_from(const char* what, int rank, const int64_t* values, Dims& out) {
  if (rank < 0 || rank > kMaxRank)
    return Status::error(StatusCode::kInvalidArgument, "%s: rank %d is out of range 0..%d", what, rank, kMaxRank);
  if (rank > 0 && values == nullptr)
    return Status::error(StatusCode::kNullPointer, "%s: shape pointer is null for rank %d", what, rank);
  out = Dims(values, rank);
  return Status::ok();
}

}  // namespace libops::capi

using namespace libops::capi;

#define CHECK_NOT_NULL(ptr, what)                                                      \
  do {                                                                                 \
    if ((ptr) == nullptr) return report_error(StatusCode::kNullPointer, "%s is null", what); \
  } while (0)

// ---------------------------------------------------------------- library

extern "C" const char* ops_version(void) { return LIBOPS_VERSION_STRING; }
extern "C" const char* ops_last_error(void) { return libops::capi::last_error_cstr(); }
extern "C" const char* ops_status_name(ops_status_t s) {
  return libops::status_code_name(static_cast<StatusCode>(s));
}
extern "C" const char* ops_dtype_name(ops_dtype_t t) { return libops::dtype_name(static_cast<DataType>(t)); }
extern "C" size_t ops_dtype_size(ops_dtype_t t) { return libops::dtype_size(static_cast<DataType>(t)); }
extern "C" void ops_set_num_threads(int n) { libops::set_num_threads(n); }

namespace {
libops::Device& thread_device() {
  thread_local libops::Device device;
  return device;
}
}  // namespace

extern "C" ops_status_t ops_set_device(const char* device) try {
  CHECK_NOT_NULL(device, "ops_set_device: device");
  libops::Device d;
  Status s = libops::Device::parse(device, d);
  if (s.is_ok()) s = libops::check_device(d);
  if (!s.is_ok()) return report(s.with_prefix("ops_set_device: "));
  thread_device() = d;
  return report(Status::ok());
} catch (...) {
  return report_exception();
}
extern "C" int ops_get_num_threads(void) { return libops::get_num_threads(); }

extern "C" ops_status_t ops_load_op_library(const char* path) {
  try {
    CHECK_NOT_NULL(path, "ops_load_op_library: path");
    libops::OpRegistry& registry = libops::OpRegistry::instance();
    const int before = registry.size();
    const size_t errors_before = registry.load_errors().size();
    // RTLD_LOCAL: the library's own symbols stay its own; it finds libops'
    // through its link to libops.so, the copy already loaded here.
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      return report_error(StatusCode::kIo, "ops_load_op_library: cannot load '%s': %s", path, why ? why : "unknown error");
    }
    // A library loaded before: its ops are registered already.
    static std::mutex loaded_mutex;
    static std::vector<void*> loaded;
    std::lock_guard<std::mutex> lock(loaded_mutex);
    if (std::find(loaded.begin(), loaded.end(), handle) != loaded.end()) {
      dlclose(handle);  // the reference this call took
      return report(Status::ok());
    }
    const std::vector<std::string>& errors = registry.load_errors();
    if (errors.size() > errors_before) {
      std::string all;
      for (size_t k = errors_before; k < errors.size(); ++k) all += (all.empty() ? "" : "; ") + errors[k];
      return report_error(StatusCode::kInvalidArgument, "ops_load_op_library: '%s': %s", path, all.c_str());
    }
    if (registry.size() == before)
      return report_error(StatusCode::kInvalidArgument,
                          "ops_load_op_library: '%s' registered no op (is it built with libops' op macros, linked to "
                          "this libops?)",
                          path);
    loaded.push_back(handle);  // never closed: its ops' code lives in it
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

// ---------------------------------------------------------------- arrays

namespace {

ops_status_t new_handle(NDArray&& a, ops_array_t** out) {
  ops_array_t* h = new (std::nothrow) ops_array_t{std::move(a)};
  if (h == nullptr) return report_error(StatusCode::kOutOfMemory, "out of memory allocating an array handle");
  *out = h;
  return report(Status::ok());
}

}  // namespace

extern "C" ops_status_t ops_array_create(ops_dtype_t dtype, int rank, const int64_t* shape, char order,
                                         ops_array_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_array_create: out");
    *out = nullptr;
    Dims dims;
    Status s = dims_from("ops_array_create", rank, shape, dims);
    if (!s.is_ok()) return report(s);
    NDArray a;
    s = NDArray::zeros(static_cast<DataType>(dtype), dims, order, a);
    if (!s.is_ok()) return report(s.with_prefix("ops_array_create: "));
    return new_handle(std::move(a), out);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_array_create_from(ops_dtype_t dtype, int rank, const int64_t* shape, const void* data,
                                              size_t bytes, ops_array_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_array_create_from: out");
    *out = nullptr;
    Dims dims;
    Status s = dims_from("ops_array_create_from", rank, shape, dims);
    if (!s.is_ok()) return report(s);
    NDArray a;
    s = NDArray::create(static_cast<DataType>(dtype), dims, 'c', a);
    if (!s.is_ok()) return report(s.with_prefix("ops_array_create_from: "));
    size_t need = static_cast<size_t>(a.length()) * a.element_size();
    if (need > 0) CHECK_NOT_NULL(data, "ops_array_create_from: data");
    if (bytes != need)
      return report_error(StatusCode::kInvalidArgument,
                          "ops_array_create_from: %s%s needs %zu bytes of data, got %zu", libops::dtype_name(a.dtype()),
                          dims.str().c_str(), need, bytes);
    if (need > 0) std::memcpy(a.data(), data, need);
    return new_handle(std::move(a), out);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_array_wrap(void* data, size_t bytes, ops_dtype_t dtype, int rank, const int64_t* shape,
                                       const int64_t* strides, ops_array_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_array_wrap: out");
    *out = nullptr;
    Dims dims, st;
    Status s = dims_from("ops_array_wrap", rank, shape, dims);
    if (s.is_ok() && strides) s = dims_from("ops_array_wrap", rank, strides, st);
    if (!s.is_ok()) return report(s);
    NDArray a;
    s = NDArray::wrap(data, bytes, static_cast<DataType>(dtype), dims, strides ? &st : nullptr, a);
    if (!s.is_ok()) return report(s.with_prefix("ops_array_wrap: "));
    return new_handle(std::move(a), out);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_array_scalar(ops_dtype_t dtype, double value, ops_array_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_array_scalar: out");
    *out = nullptr;
    NDArray a;
    Status s = NDArray::scalar(static_cast<DataType>(dtype), value, a);
    if (!s.is_ok()) return report(s.with_prefix("ops_array_scalar: "));
    return new_handle(std::move(a), out);
  } catch (...) {
    return report_exception();
  }
}

extern "C" void ops_array_free(ops_array_t* a) { delete a; }

extern "C" void ops_array_list_free(ops_array_t** arrays, int count) {
  if (arrays == nullptr) return;
  for (int i = 0; i < count; ++i) delete arrays[i];
  std::free(arrays);
}

extern "C" ops_status_t ops_array_dtype(const ops_array_t* a, ops_dtype_t* out) try {
  CHECK_NOT_NULL(a, "ops_array_dtype: array");
  CHECK_NOT_NULL(out, "ops_array_dtype: out");
  *out = static_cast<ops_dtype_t>(a->array.dtype());
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_array_rank(const ops_array_t* a, int* out) try {
  CHECK_NOT_NULL(a, "ops_array_rank: array");
  CHECK_NOT_NULL(out, "ops_array_rank: out");
  *out = a->array.rank();
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_array_shape(const ops_array_t* a, int64_t* out) try {
  CHECK_NOT_NULL(a, "ops_array_shape: array");
  if (a->array.rank() > 0) CHECK_NOT_NULL(out, "ops_array_shape: out");
  for (int i = 0; i < a->array.rank(); ++i) out[i] = a->array.dim(i);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_array_strides(const ops_array_t* a, int64_t* out) try {
  CHECK_NOT_NULL(a, "ops_array_strides: array");
  if (a->array.rank() > 0) CHECK_NOT_NULL(out, "ops_array_strides: out");
  for (int i = 0; i < a->array.rank(); ++i) out[i] = a->array.strides()[i];
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_array_length(const ops_array_t* a, int64_t* out) try {
  CHECK_NOT_NULL(a, "ops_array_length: array");
  CHECK_NOT_NULL(out, "ops_array_length: out");
  *out = a->array.length();
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_array_data(const ops_array_t* a, void** out) try {
  CHECK_NOT_NULL(a, "ops_array_data: array");
  CHECK_NOT_NULL(out, "ops_array_data: out");
  // The caller reads or writes through the pointer: the host copy must be
  // current, and is treated as written (Note [Host and device copies]).
  if (a->array.has_data()) {
    Status s = a->array.buffer()->sync_to_host();
    if (!s.is_ok()) return report(s.with_prefix("ops_array_data: "));
    a->array.buffer()->mark_host_written();
  }
  *out = a->array.data();
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_array_copy_to(const ops_array_t* a, void* dst, size_t bytes) {
  try {
    CHECK_NOT_NULL(a, "ops_array_copy_to: array");
    const NDArray& src = a->array;
    size_t need = static_cast<size_t>(src.length()) * src.element_size();
    if (bytes < need)
      return report_error(StatusCode::kInvalidArgument, "ops_array_copy_to: %s%s needs %zu bytes, buffer has %zu",
                          libops::dtype_name(src.dtype()), src.shape().str().c_str(), need, bytes);
    if (need == 0) return report(Status::ok());
    CHECK_NOT_NULL(dst, "ops_array_copy_to: dst");
    NDArray view;
    Status s = src.buffer()->sync_to_host();
    if (s.is_ok()) s = NDArray::wrap(dst, bytes, src.dtype(), src.shape(), nullptr, view);
    if (s.is_ok()) s = view.assign(src);
    return report(s.with_prefix("ops_array_copy_to: "));
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_array_reshape(const ops_array_t* a, int rank, const int64_t* shape, ops_array_t** out) {
  try {
    CHECK_NOT_NULL(a, "ops_array_reshape: array");
    CHECK_NOT_NULL(out, "ops_array_reshape: out");
    *out = nullptr;
    Dims dims;
    Status s = dims_from("ops_array_reshape", rank, shape, dims);
    NDArray v;
    if (s.is_ok()) s = a->array.reshape(dims, v);
    if (!s.is_ok()) return report(s);
    return new_handle(std::move(v), out);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_array_permute(const ops_array_t* a, const int64_t* axes, int n, ops_array_t** out) {
  try {
    CHECK_NOT_NULL(a, "ops_array_permute: array");
    CHECK_NOT_NULL(out, "ops_array_permute: out");
    *out = nullptr;
    Dims dims;
    Status s = dims_from("ops_array_permute", n, axes, dims);
    NDArray v;
    if (s.is_ok()) s = a->array.permute(dims, v);
    if (!s.is_ok()) return report(s);
    return new_handle(std::move(v), out);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_array_slice(const ops_array_t* a, int axis, int64_t start, int64_t stop, int64_t step,
                                        ops_array_t** out) {
  try {
    CHECK_NOT_NULL(a, "ops_array_slice: array");
    CHECK_NOT_NULL(out, "ops_array_slice: out");
    *out = nullptr;
    NDArray v;
    Status s = a->array.slice(axis, start, stop, step, v);
    if (!s.is_ok()) return report(s);
    return new_handle(std::move(v), out);
  } catch (...) {
    return report_exception();
  }
}

// ---------------------------------------------------------------- custom ops

namespace {

DeclarableOp* as_op(ops_op_t* op) { return reinterpret_cast<DeclarableOp*>(op); }
const DeclarableOp* as_op(const ops_op_t* op) { return reinterpret_cast<const DeclarableOp*>(op); }

// Fills a (reused) context from the C arguments.
Status fill_context(Context& ctx, DeclarableOp* op, ops_array_t* const* inputs, int n_inputs,
                    ops_array_t* const* outputs, int n_outputs, const ops_args_t* args) {
  ctx.clear();
  ctx.set_op_name(op->name());
  ctx.set_device(thread_device());
  if (n_inputs < 0 || n_outputs < 0)
    return ctx.error(StatusCode::kInvalidArgument, "negative array count (%d inputs, %d outputs)", n_inputs, n_outputs);
  if (n_inputs > 0 && inputs == nullptr) return ctx.error(StatusCode::kNullPointer, "inputs list is null");
  if (n_outputs > 0 && outputs == nullptr) return ctx.error(StatusCode::kNullPointer, "outputs list is null");
  for (int i = 0; i < n_inputs; ++i) {
    if (inputs[i] == nullptr) return ctx.error(StatusCode::kNullPointer, "input %d is null", i);
    ctx.add_input(&inputs[i]->array);
  }
  for (int i = 0; i < n_outputs; ++i) {
    if (outputs[i] == nullptr) return ctx.error(StatusCode::kNullPointer, "output %d is null", i);
    ctx.add_output(&outputs[i]->array);
  }
  if (args) {
    struct Check { const void* p; int n; const char* what; };
    for (Check c : {Check{args->t_args, args->n_t_args, "t_args"}, Check{args->i_args, args->n_i_args, "i_args"},
                    Check{args->b_args, args->n_b_args, "b_args"}, Check{args->d_args, args->n_d_args, "d_args"}}) {
      if (c.n < 0) return ctx.error(StatusCode::kInvalidArgument, "%s count is negative (%d)", c.what, c.n);
      if (c.n > 0 && c.p == nullptr) return ctx.error(StatusCode::kNullPointer, "%s is null but its count is %d", c.what, c.n);
    }
    if (args->n_t_args) ctx.set_t_args(args->t_args, args->n_t_args);
    if (args->n_i_args) ctx.set_i_args(args->i_args, args->n_i_args);
    if (args->n_b_args) ctx.set_b_args(args->b_args, args->n_b_args);
    for (int i = 0; i < args->n_d_args; ++i) {
      // Read as an int: a value outside the enum must not be loaded as one.
      static_assert(sizeof(ops_dtype_t) == sizeof(int32_t), "ops_dtype_t is read as a 32-bit int");
      int32_t raw = 0;
      std::memcpy(&raw, &args->d_args[i], sizeof raw);
      if (raw < 0 || raw >= libops::kNumDataTypes || !libops::dtype_is_valid(static_cast<DataType>(raw)))
        return ctx.error(StatusCode::kDtype, "d arg %d is %d, which is not a dtype (ops_dtype_t 1..%d)", i, raw,
                         libops::kNumDataTypes - 1);
      ctx.d_args().push_back(static_cast<DataType>(raw));
    }
    ctx.set_inplace(args->inplace);
  }
  return Status::ok();
}

// One line per op call through the C API at LIBOPS_LOG_LEVEL=trace: the
// op, its inputs and outputs (or its error).
void trace_call(const Context& ctx, const Status& s) {
  if (!libops::log_enabled(libops::LogLevel::kTrace)) return;
  std::string in, out;
  for (int i = 0; i < ctx.num_inputs(); ++i)
    in += (i ? ", " : "") + (ctx.input(i) != nullptr ? ctx.input(i)->desc().str() : std::string("null"));
  for (int i = 0; s.is_ok() && i < ctx.num_outputs(); ++i)
    out += (i ? ", " : "") + (ctx.output(i) != nullptr ? ctx.output(i)->desc().str() : std::string("null"));
  log_trace("op call: %s(%s) -> %s", ctx.op_name(), in.c_str(), s.is_ok() ? out.c_str() : s.message().c_str());
}

Context& thread_context() {
  thread_local Context ctx;
  return ctx;
}

ops_status_t find_op(const char* name, DeclarableOp** out) {
  CHECK_NOT_NULL(name, "op name");
  DeclarableOp* op = OpRegistry::instance().find(name);
  if (op == nullptr)
    return report_error(StatusCode::kUnknownOp, "unknown op '%s' (ops_registry_op_info lists the %d registered ops)",
                        name, OpRegistry::instance().size());
  *out = op;
  return OPS_OK;
}

ops_status_t exec_op(DeclarableOp* op, ops_array_t* const* inputs, int n_inputs, ops_array_t* const* outputs,
                     int n_outputs, const ops_args_t* args) {
  Context& ctx = thread_context();
  Status s = fill_context(ctx, op, inputs, n_inputs, outputs, n_outputs, args);
  // The caller would never see outputs the op allocated for itself.
  if (s.is_ok() && n_outputs == 0 && !ctx.inplace())
    s = ctx.error(StatusCode::kInvalidArgument,
                  "no outputs given: pass arrays of the shapes the op gives, set inplace, or call ops_op_exec_alloc");
  if (s.is_ok()) s = op->execute(ctx);
  trace_call(ctx, s);
  return report(s);
}

ops_status_t exec_op_alloc(DeclarableOp* op, ops_array_t* const* inputs, int n_inputs, const ops_args_t* args,
                           ops_array_t*** outputs, int* n_outputs) {
  // Every message names the op, as fill_context's and the op's own do.
  if (outputs == nullptr)
    return report_error(StatusCode::kNullPointer, "%s: outputs is null (the allocated outputs are returned there)",
                        op->name());
  if (n_outputs == nullptr)
    return report_error(StatusCode::kNullPointer, "%s: n_outputs is null (the output count is returned there)",
                        op->name());
  *outputs = nullptr;
  *n_outputs = 0;
  Context& ctx = thread_context();
  Status s = fill_context(ctx, op, inputs, n_inputs, nullptr, 0, args);
  if (s.is_ok()) s = op->execute(ctx);
  trace_call(ctx, s);
  if (!s.is_ok()) return report(s);
  const int n = ctx.num_outputs();
  auto** list = static_cast<ops_array_t**>(std::calloc(static_cast<size_t>(n > 0 ? n : 1), sizeof(ops_array_t*)));
  if (list == nullptr) return report_error(StatusCode::kOutOfMemory, "%s: out of memory for the output list", op->name());
  for (int i = 0; i < n; ++i) {
    list[i] = new (std::nothrow) ops_array_t{*ctx.output(i)};
    if (list[i] == nullptr) {
      ops_array_list_free(list, i);
      return report_error(StatusCode::kOutOfMemory, "%s: out of memory for output %d's handle", op->name(), i);
    }
  }
  ctx.clear();  // drop the context's references to the outputs
  *outputs = list;
  *n_outputs = n;
  return report(Status::ok());
}

}  // namespace

extern "C" ops_status_t ops_op_find(const char* name, ops_op_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_op_find: out");
    *out = nullptr;
    DeclarableOp* op = nullptr;
    ops_status_t st = find_op(name, &op);
    if (st != OPS_OK) return st;
    *out = reinterpret_cast<ops_op_t*>(op);
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_op_find_hash(uint64_t hash, ops_op_t** out) {
  CHECK_NOT_NULL(out, "ops_op_find_hash: out");
  *out = reinterpret_cast<ops_op_t*>(OpRegistry::instance().find_hash(hash));
  if (*out == nullptr)
    return report_error(StatusCode::kUnknownOp, "no op has name hash 0x%016llx", static_cast<unsigned long long>(hash));
  return report(Status::ok());
}

extern "C" ops_status_t ops_op_exec(ops_op_t* op, ops_array_t* const* inputs, int n_inputs,
                                    ops_array_t* const* outputs, int n_outputs, const ops_args_t* args) {
  try {
    CHECK_NOT_NULL(op, "ops_op_exec: op");
    return exec_op(as_op(op), inputs, n_inputs, outputs, n_outputs, args);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_op_exec_alloc(ops_op_t* op, ops_array_t* const* inputs, int n_inputs,
                                          const ops_args_t* args, ops_array_t*** outputs, int* n_outputs) {
  try {
    CHECK_NOT_NULL(op, "ops_op_exec_alloc: op");
    return exec_op_alloc(as_op(op), inputs, n_inputs, args, outputs, n_outputs);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_exec(const char* name, ops_array_t* const* inputs, int n_inputs,
                                 ops_array_t* const* outputs, int n_outputs, const ops_args_t* args) {
  try {
    DeclarableOp* op = nullptr;
    ops_status_t st = find_op(name, &op);
    if (st != OPS_OK) return st;
    return exec_op(op, inputs, n_inputs, outputs, n_outputs, args);
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_exec_alloc(const char* name, ops_array_t* const* inputs, int n_inputs,
                                       const ops_args_t* args, ops_array_t*** outputs, int* n_outputs) {
  try {
    DeclarableOp* op = nullptr;
    ops_status_t st = find_op(name, &op);
    if (st != OPS_OK) return st;
    return exec_op_alloc(op, inputs, n_inputs, args, outputs, n_outputs);
  } catch (...) {
    return report_exception();
  }
}

// ---------------------------------------------------------------- legacy ops

extern "C" ops_status_t ops_exec_legacy(ops_legacy_group_t group, int op_num, const ops_array_t* x,
                                        const ops_array_t* y, ops_array_t* z, const int64_t* axes, int n_axes,
                                        const double* extra, int n_extra) {
  try {
    if (group == OPS_RANDOM)
      return report_error(StatusCode::kInvalidArgument, "ops_exec_legacy: use ops_exec_random for the random group");
    // Errors name the op, as legacy::exec's do; an unknown (group, number)
    // gets legacy::exec's own message.
    const char* op = libops::legacy::group_is_valid(group) ? libops::legacy::op_name(group, op_num) : nullptr;
    if (op != nullptr) {
      if (n_axes < 0 || n_extra < 0)
        return report_error(StatusCode::kInvalidArgument, "%s: negative count (axes %d, extra %d)", op, n_axes,
                            n_extra);
      if (n_extra > libops::ExtraParams::kMax)
        return report_error(StatusCode::kInvalidArgument, "%s: %d extra params, at most %d", op, n_extra,
                            libops::ExtraParams::kMax);
      if (n_extra > 0 && extra == nullptr)
        return report_error(StatusCode::kNullPointer, "%s: extra is null but n_extra is %d", op, n_extra);
      if (n_axes > 0 && axes == nullptr)
        return report_error(StatusCode::kNullPointer, "%s: axes is null but n_axes is %d", op, n_axes);
    }
    libops::legacy::LegacyCall call;
    call.group = group;
    call.num = op_num;
    call.x = x ? &x->array : nullptr;
    call.y = y ? &y->array : nullptr;
    call.z = z ? &z->array : nullptr;
    // An unknown op reads neither list: exec says what is unknown.
    call.axes = op ? axes : nullptr;
    call.n_axes = op ? n_axes : 0;
    call.extra = op ? libops::ExtraParams::from(extra, n_extra) : libops::ExtraParams{};
    call.device = thread_device();
    return report(libops::legacy::exec(call));
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_exec_random(int op_num, uint64_t seed, const ops_array_t* x, const ops_array_t* y,
                                        ops_array_t* z, const double* extra, int n_extra) {
  try {
    const char* op = libops::legacy::op_name(OPS_RANDOM, op_num);
    if (op != nullptr) {
      if (n_extra < 0 || n_extra > libops::ExtraParams::kMax)
        return report_error(StatusCode::kInvalidArgument, "%s: %d extra params (0..%d allowed)", op, n_extra,
                            libops::ExtraParams::kMax);
      if (n_extra > 0 && extra == nullptr)
        return report_error(StatusCode::kNullPointer, "%s: extra is null but n_extra is %d", op, n_extra);
    }
    libops::legacy::LegacyCall call;
    call.group = OPS_RANDOM;
    call.num = op_num;
    call.x = x ? &x->array : nullptr;
    call.y = y ? &y->array : nullptr;
    call.z = z ? &z->array : nullptr;
    call.seed = seed;
    call.extra = op ? libops::ExtraParams::from(extra, n_extra) : libops::ExtraParams{};
    call.device = thread_device();
    return report(libops::legacy::exec(call));
  } catch (...) {
    return report_exception();
  }
}

extern "C" int ops_legacy_op_count(ops_legacy_group_t group) { return libops::legacy::list_ops(group, nullptr); }

extern "C" ops_status_t ops_legacy_op_info(ops_legacy_group_t group, int index, int* op_num, const char** name) try {
  const libops::legacy::LegacyOpInfo* ops = nullptr;
  int n = libops::legacy::list_ops(group, &ops);
  if (!libops::legacy::group_is_valid(group))
    return report_error(StatusCode::kInvalidArgument, "invalid legacy group %d", static_cast<int>(group));
  if (index < 0 || index >= n)
    return report_error(StatusCode::kInvalidArgument, "legacy %s: index %d out of range 0..%d",
                        libops::legacy::group_name(group), index, n - 1);
  if (op_num) *op_num = ops[index].num;
  if (name) *name = ops[index].name;
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_legacy_find(ops_legacy_group_t group, const char* name, int* op_num) try {
  CHECK_NOT_NULL(name, "ops_legacy_find: name");
  CHECK_NOT_NULL(op_num, "ops_legacy_find: op_num");
  int n = libops::legacy::find_op(group, name);
  if (n < 0)
    return report_error(StatusCode::kUnknownOp, "legacy %s has no op named '%s'", libops::legacy::group_name(group),
                        name);
  *op_num = n;
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" const char* ops_legacy_group_name(ops_legacy_group_t group) { return libops::legacy::group_name(group); }

// ---------------------------------------------------------------- registry

namespace {

// Type strings for ops_op_info, built once.
const std::string& input_types_text(const DeclarableOp* op) {
  static std::mutex mu;
  static std::vector<std::pair<const DeclarableOp*, std::unique_ptr<std::string>>> cache;
  std::lock_guard<std::mutex> lock(mu);
  for (auto& [o, s] : cache)
    if (o == op) return *s;
  cache.emplace_back(op, std::make_unique<std::string>(op->descriptor().input_type(0).str()));
  return *cache.back().second;
}

void fill_info(const DeclarableOp* op, ops_op_info_t* out) {
  const libops::OpDescriptor& d = op->descriptor();
  out->name = d.name;
  out->hash = d.hash;
  out->kind = libops::op_kind_name(d.kind);
  out->num_inputs = d.num_inputs;
  out->num_outputs = d.num_outputs;
  out->num_t_args = d.num_t_args;
  out->num_i_args = d.num_i_args;
  out->inplaceable = d.inplaceable;
  out->input_types = input_types_text(op).c_str();
  out->summary = d.signature.summary.c_str();
  out->num_declared_inputs = static_cast<int>(d.signature.inputs.size());
  out->num_declared_outputs = static_cast<int>(d.signature.outputs.size());
  out->num_args = static_cast<int>(d.signature.args.size());
  out->any_device = d.any_device;
}

template <typename Spec>
const Spec* spec_at(const std::vector<Spec>& specs, int index) {
  return index >= 0 && index < static_cast<int>(specs.size()) ? &specs[static_cast<size_t>(index)] : nullptr;
}

}  // namespace

extern "C" int ops_registry_size(void) { return OpRegistry::instance().size(); }

extern "C" ops_status_t ops_registry_op_info(int index, ops_op_info_t* out) {
  try {
    CHECK_NOT_NULL(out, "ops_registry_op_info: out");
    static const std::vector<const DeclarableOp*> ops = OpRegistry::instance().list();
    if (index < 0 || index >= static_cast<int>(ops.size()))
      return report_error(StatusCode::kInvalidArgument, "ops_registry_op_info: index %d out of range 0..%d", index,
                          static_cast<int>(ops.size()) - 1);
    fill_info(ops[static_cast<size_t>(index)], out);
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_op_info(const ops_op_t* op, ops_op_info_t* out) {
  try {
    CHECK_NOT_NULL(op, "ops_op_info: op");
    CHECK_NOT_NULL(out, "ops_op_info: out");
    fill_info(as_op(op), out);
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" int ops_registry_error_count(void) {
  return static_cast<int>(OpRegistry::instance().load_errors().size());
}

extern "C" const char* ops_registry_error(int index) {
  const auto& e = OpRegistry::instance().load_errors();
  return (index >= 0 && index < static_cast<int>(e.size())) ? e[static_cast<size_t>(index)].c_str() : "";
}

extern "C" ops_status_t ops_op_input_info(const ops_op_t* op, int index, ops_io_info_t* out) {
  try {
    CHECK_NOT_NULL(op, "ops_op_input_info: op");
    CHECK_NOT_NULL(out, "ops_op_input_info: out");
    const libops::OpSignature& sig = as_op(op)->descriptor().signature;
    const libops::InputSpec* in = spec_at(sig.inputs, index);
    if (in == nullptr)
      return report_error(StatusCode::kInvalidArgument, "ops_op_input_info: %s declares %zu inputs; index %d is out of range",
                          as_op(op)->name(), sig.inputs.size(), index);
    *out = ops_io_info_t{in->name.c_str(), in->doc.c_str(), in->dtypes_shown.c_str(), in->optional, in->variadic};
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_op_output_info(const ops_op_t* op, int index, ops_io_info_t* out) {
  try {
    CHECK_NOT_NULL(op, "ops_op_output_info: op");
    CHECK_NOT_NULL(out, "ops_op_output_info: out");
    const libops::OpSignature& sig = as_op(op)->descriptor().signature;
    const libops::OutputSpec* o = spec_at(sig.outputs, index);
    if (o == nullptr)
      return report_error(StatusCode::kInvalidArgument,
                          "ops_op_output_info: %s declares %zu outputs; index %d is out of range", as_op(op)->name(),
                          sig.outputs.size(), index);
    *out = ops_io_info_t{o->name.c_str(), o->doc.c_str(), o->dtypes_shown.c_str(), false, o->variadic};
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_op_arg_info(const ops_op_t* op, int index, ops_arg_info_t* out) {
  try {
    CHECK_NOT_NULL(op, "ops_op_arg_info: op");
    CHECK_NOT_NULL(out, "ops_op_arg_info: out");
    const libops::OpSignature& sig = as_op(op)->descriptor().signature;
    const libops::ArgSpec* a = spec_at(sig.args, index);
    if (a == nullptr)
      return report_error(StatusCode::kInvalidArgument, "ops_op_arg_info: %s declares %zu args; index %d is out of range",
                          as_op(op)->name(), sig.args.size(), index);
    *out = ops_arg_info_t{a->name.c_str(),          a->doc.c_str(),           libops::arg_kind_name(a->kind)[0],
                          a->position,              a->list,                  a->required,
                          a->default_shown.c_str(), a->allowed_shown.c_str(), a->from_input};
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_registry_reference(const char* format, const char** out) {
  try {
    CHECK_NOT_NULL(format, "ops_registry_reference: format");
    CHECK_NOT_NULL(out, "ops_registry_reference: out");
    static const struct { const char* name; libops::ReferenceFormat format; } kFormats[] = {
        {"text", libops::ReferenceFormat::kText},
        {"markdown", libops::ReferenceFormat::kMarkdown},
        {"json", libops::ReferenceFormat::kJson}};
    for (const auto& f : kFormats) {
      if (std::strcmp(format, f.name) != 0) continue;
      // Made once per format and registry size: the registry changes only
      // when an op library loads. Texts handed out earlier stay valid.
      static std::mutex mu;
      static std::deque<std::string> texts[3];
      static int sizes[3] = {-1, -1, -1};
      std::lock_guard<std::mutex> lock(mu);
      const int k = static_cast<int>(f.format), size = libops::OpRegistry::instance().size();
      if (sizes[k] != size) {
        texts[k].push_back(libops::op_reference(f.format));
        sizes[k] = size;
      }
      *out = texts[k].back().c_str();
      return report(Status::ok());
    }
    return report_error(StatusCode::kInvalidArgument,
                        "ops_registry_reference: unknown format '%s' (text, markdown or json)", format);
  } catch (...) {
    return report_exception();
  }
}
