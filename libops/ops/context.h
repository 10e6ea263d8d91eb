// Context: everything one call of a declarable op sees (libnd4j's "block"):
// input and output arrays, float/int/bool/dtype arguments, the in-place
// flag and a per-call workspace. Shape functions get the same Context; then
// inputs may be shape-only arrays (no data).
#pragma once

#include <cstdlib>
#include <memory>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/status.h"
#include "libops/ops/op_signature.h"

#include "libops/core/api.h"

LIBOPS_API_BEGIN

namespace libops {

// Scratch memory an op allocates with ALLOCATE and frees with RELEASE (or
// leaves to be freed when the call ends).
class Workspace {
 public:
  Workspace() = default;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  Workspace(Workspace&& o) noexcept : blocks_(std::move(o.blocks_)) { o.blocks_.clear(); }
  Workspace& operator=(Workspace&& o) noexcept {
    if (this != &o) {
      release_all();
      blocks_ = std::move(o.blocks_);
      o.blocks_.clear();
    }
    return *this;
  }
  ~Workspace() { release_all(); }

  template <typename T>
  T* allocate(int64_t count) {
    if (count < 0 || static_cast<uint64_t>(count) > SIZE_MAX / sizeof(T)) return nullptr;
    return static_cast<T*>(allocate_bytes(static_cast<size_t>(count) * sizeof(T)));
  }
  void* allocate_bytes(size_t bytes);
  void release(void* p);
  void release_all();

 private:
  std::vector<void*> blocks_;
};

// Note [Op state]
// An op may keep work it derived from inputs that never change (weights
// repacked for a faster GEMM) in its Context, for as long as the Context
// lives. The graph executor keeps one Context per node for the life of a
// Session and marks the inputs that are graph constants
// (input_is_constant), so such work is done once per session; a direct
// call through the C API gets a fresh Context and no constant inputs, so
// nothing is kept. The state must check that it still fits the call
// (shapes, data pointer, thread count) and is rebuilt when it does not.
struct OpState {
  virtual ~OpState() = default;
};

class Context {
 public:
  Context() = default;
  explicit Context(const char* op_name) : op_name_(op_name) {}

  // ---- set up by the caller (C API, graph executor, tests) ----
  void clear();  // empties everything, keeps capacity (contexts are reused)
  void set_op_name(const char* name) { op_name_ = name; }
  void add_input(NDArray* a) { inputs_.push_back(a); }
  void add_output(NDArray* a) { outputs_.push_back(a); }
  void set_t_args(const double* v, int n) { args_.t.assign(v, v + n); }
  void set_i_args(const int64_t* v, int n) { args_.i.assign(v, v + n); }
  void set_b_args(const bool* v, int n) { args_.b.assign(v, v + n); }
  void set_d_args(const DataType* v, int n) { args_.d.assign(v, v + n); }
  std::vector<double>& t_args() { return args_.t; }
  std::vector<int64_t>& i_args() { return args_.i; }
  std::vector<bool>& b_args() { return args_.b; }
  std::vector<DataType>& d_args() { return args_.d; }
  OpArgs& args() { return args_; }
  // The signature of the op being called (set by DeclarableOp).
  void set_signature(const OpSignature* s) { signature_ = s; }
  void set_inplace(bool v) { inplace_ = v; }
  // Where the op computes (default: the CPU). An op runs on a device only if
  // it declares so (OpDescriptor::runs_on_any_device).
  void set_device(Device d) { device_ = d; }

  // ---- used by ops ----
  const char* op_name() const { return op_name_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  NDArray* input(int i) const { return inputs_[static_cast<size_t>(i)]; }
  const NDArray* const* inputs_data() const { return inputs_.data(); }
  NDArray* output(int i) const { return outputs_[static_cast<size_t>(i)]; }
  int num_t_args() const { return static_cast<int>(args_.t.size()); }
  int num_i_args() const { return static_cast<int>(args_.i.size()); }
  int num_b_args() const { return static_cast<int>(args_.b.size()); }
  int num_d_args() const { return static_cast<int>(args_.d.size()); }
  // Positional args. Once the op's signature resolved them (Note [Argument
  // resolution]), every declared position up to a list's start exists.
  double t_arg(int i) const { return args_.t[static_cast<size_t>(i)]; }
  int64_t i_arg(int i) const { return args_.i[static_cast<size_t>(i)]; }
  bool b_arg(int i) const { return args_.b[static_cast<size_t>(i)]; }
  DataType d_arg(int i) const { return args_.d[static_cast<size_t>(i)]; }
  const std::vector<double>& t_args() const { return args_.t; }
  const std::vector<int64_t>& i_args() const { return args_.i; }
  const std::vector<bool>& b_args() const { return args_.b; }
  const std::vector<DataType>& d_args() const { return args_.d; }
  const OpArgs& args() const { return args_; }
  const OpSignature* signature() const { return signature_; }
  // The values of the int list arg `name` of the op's signature: from its
  // input array when the call gives that input (ArgSpec::or_input), else
  // its i args. Reading an input needs its data: for a shape-only input it
  // is an invalid-argument error, and the graph planner then leaves the
  // node to be inferred at run time, when the values exist.
  Status int_list(const char* name, std::vector<int64_t>& out) const;
  // The values of input `index`, an integer scalar or vector (shape
  // arguments given as arrays); `what` names it in errors.
  Status int_values(int index, const char* what, std::vector<int64_t>& out) const;
  bool inplace() const { return inplace_; }
  Device device() const { return device_; }
  Workspace& workspace() { return workspace_; }
  // Note [Op state]: whether input i's contents stay the same for as long
  // as this Context is reused, and the state an op keeps here.
  bool input_is_constant(int i) const {
    return i >= 0 && static_cast<size_t>(i) < constant_inputs_.size() && constant_inputs_[static_cast<size_t>(i)];
  }
  void set_constant_inputs(std::vector<bool> flags) { constant_inputs_ = std::move(flags); }
  OpState* op_state() const { return op_state_.get(); }
  void set_op_state(std::unique_ptr<OpState> state) { op_state_ = std::move(state); }

  // Replaces output i's content with `a`: copied (on the call's device)
  // into a supplied output of the same shape, otherwise the slot takes the
  // array itself.
  Status store_result(int i, const NDArray& a);
  // Boolean ops: writes `value` into the bool scalar output 0.
  Status set_boolean_result(bool value);

  // An error Status whose message starts with "<op name>: ".
  Status error(StatusCode code, const char* fmt, ...) const __attribute__((format(printf, 3, 4)));

  // ---- executor internals ----
  // Arrays allocated by the executor for outputs the caller did not supply.
  std::vector<NDArray>& owned_outputs() { return owned_outputs_; }
  std::vector<NDArray*>& output_slots() { return outputs_; }

 private:
  const char* op_name_ = "";
  std::vector<NDArray*> inputs_;
  std::vector<NDArray*> outputs_;
  std::vector<NDArray> owned_outputs_;
  OpArgs args_;
  const OpSignature* signature_ = nullptr;
  bool inplace_ = false;
  Device device_;
  Workspace workspace_;
  std::vector<bool> constant_inputs_;
  std::unique_ptr<OpState> op_state_;
};

}  // namespace libops

LIBOPS_API_END
