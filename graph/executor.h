// Session: runs a loaded Graph. All per-run state lives here (value slots,
// the shape plan for the current input shapes, reusable buffers, the last
// outputs and profile), so one immutable Graph can be run by many Sessions
// on many threads at once. One Session is used by one thread at a time.
//
// Lifecycle of a run (Session::run):
//   1. bind: each fed array is checked against its placeholder (dtype
//      exactly, every declared extent) and bound without a copy;
//   2. shape: the plan for these input shapes is found (the load-time plan,
//      or one of this Session's plans for its last input shapes) or made
//      (planner.h: shapes, and the values of the shape arithmetic, Note
//      [Shape values]) for a new signature (Note [Plans per input shapes]
//      in executor.cpp);
//   3. run: nodes in topological order; each output is allocated (or taken
//      from the buffer pool) from its planned shape and the op writes into
//      it. A custom node whose inputs have the dtypes and shapes its plan
//      was inferred from runs DeclarableOp::execute_prepared: the planner
//      already ran the op's call checks and shape function on them, so
//      only the compute step runs. Any other custom node runs the whole
//      DeclarableOp::execute; legacy ops run through legacy::exec, If/While
//      through their subgraphs.
//      Errors are wrapped once per level:
//      "node <id> '<name>' (op <op>): <kernel message>";
//   4. release: after each node, the values whose last use it was are
//      released (Note [Memory planning]); the outputs stay for the caller.
//
// Note [Memory planning]
//  The planner records, per node position, the values whose last reader it
//  is (liveness); the executor releases them right after that node. A
//  released buffer that nobody else holds goes to the Session's pool, keyed
//  by byte size, and the next output of that size reuses it; later runs with
//  the same shapes allocate nothing. The pool keeps up to the largest live
//  set seen and, for a run with a known plan (static shapes, or this
//  Session's shapes), the plan's footprint: per buffer size, the most
//  buffers of that size a run holds at once. Held to the live peak only,
//  it let go of buffers the next run took again: MobileNetV2 at batch 8
//  then faulted in (and the kernel zeroed) about 160 MB of pages on every
//  run, a fifth of its time. Live bytes (buffers the executor
//  allocated and still holds, outputs of the run included) are tracked as
//  they change, and the peak is reported per run (Session::peak_bytes,
//  Profile::peak_bytes): a chain of element-wise nodes peaks at two
//  intermediates, whatever its length. Values that alias another value's
//  buffer (an op returning a view, a subgraph passing an input through) are
//  counted with the value that allocated the buffer.
//
// Note [Control flow]
//  If runs one branch subgraph on its arguments. While runs
//  `vars = inputs; while (cond(vars)) vars = body(vars)`: it stops when its
//  condition is false, a node fails, the session's loop limit is reached
//  (set_loop_limit: an error naming the node) or the run is cancelled. A
//  condition is any one-element array; non-zero is true. Subgraphs see only
//  their inputs, bound by position and checked against their placeholders;
//  loop values may change shape between iterations.
//  A While's scan outputs (WhileOp.scan_outputs) are kept per iteration and
//  stacked once, after the loop: O(total size), where growing the stack
//  inside the graph would copy it every iteration. Every iteration must give
//  the same dtype and shape. After zero iterations the body never ran, so
//  the empty result's shape comes from inferring the body's shapes on the
//  initial loop values; when that cannot tell it, the run fails naming the
//  output.
//
// Note [Sequence values]
//  A slot holds what its kind says (ValueKind in graph.h and the schema):
//  a tensor slot an array; a sequence slot a TensorList, the arrays it
//  holds in order; an optional slot either, or nothing (a null array, a
//  null list). The loader gives every slot its kind, from the placeholders'
//  declarations through each node, and refuses a node given a kind it
//  cannot take (an op reading a sequence, a branch giving a tensor where
//  the other gives a sequence). Sequence nodes (NodeKind::kSequence) run
//  here, as If and While do, not as ops: a list is immutable and shared, so
//  inserting, erasing, reading an element or passing a list into a subgraph
//  or around a loop moves array handles, never element data; SequenceAt
//  gives the element itself, SplitToSequence views of its input.
//  ConcatFromSequence runs the concat or stack op on the elements. A list
//  has the elements' dtype (insert and construct check it); their shapes
//  may differ, so shapes read from a list are inferred when the reading
//  node runs. Elements held by lists are not counted in a run's live bytes
//  (Note [Memory planning]), and their buffers go back to the pool only
//  once no list holds them.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "graph/profiler.h"

namespace libops::graph {

// A sequence's value (Note [Sequence values]): its element dtype (kInvalid
// for an empty sequence of unknown type) and elements, in order.
struct TensorList {
  DataType dtype = DataType::kInvalid;
  std::vector<NDArray> items;
};

class Session {
 public:
  explicit Session(std::shared_ptr<const Graph> graph);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Graph& graph() const;
  // Per-node times for the next runs; the default is the graph's
  // configuration. Memory figures are kept either way.
  void set_profiling(bool on);
  bool profiling() const;
  // Seed for random nodes that carry none; default 0.
  void set_seed(uint64_t seed);
  // Kernel threads for this session's runs (ScopedThreads); 0, the
  // default: the process's count (set_num_threads).
  void set_threads(int n);
  int threads() const;
  // Where nodes without a placement of their own run; default: the graph's
  // configured device, else the CPU. A run on a device that is not usable
  // fails at once with the reason (no CUDA backend, no such device).
  void set_device(Device d);
  Device device() const;

  // The most iterations one While node may run (0: no limit, the default).
  void set_loop_limit(int64_t max_iterations);
  // Note [Cancelling a run]: stops the run in progress at its next node
  // boundary or While iteration with kCancelled; with none in progress, the
  // next run stops before its first node. Safe to call from any thread
  // while another runs the session (the only such call).
  void cancel();

  // inputs[i] feeds graph input i (Graph::main().inputs order); every input
  // must be fed. The arrays are not copied and must stay alive during the run.
  Status run(const NDArray* const* inputs, int n_inputs);

  // A tensor input takes `array`; a sequence input `list`; an optional one
  // either, or neither for none.
  struct Feed {
    std::string_view name;
    const NDArray* array = nullptr;
    const TensorList* list = nullptr;
  };
  // Feeds by name; every input must be fed exactly once. Arrays and the
  // lists' elements are not copied and must stay alive during the run.
  Status run(const std::vector<Feed>& feeds);

  // Outputs of the last successful run, in Graph::main().outputs order.
  // They stay valid until the next run; copy the NDArray (it shares the
  // data) to keep one longer.
  int num_outputs() const;
  const NDArray& output(int index) const;
  const NDArray* output(std::string_view name) const;  // nullptr: no such output
  // Sequence and optional outputs (Note [Sequence values]): an output's
  // kind (Graph::main().outputs[i].kind), and a list output's value
  // (nullptr: an empty optional, or not a list). An empty optional tensor
  // is an array without data.
  ValueKind output_kind(int index) const;
  const TensorList* output_list(int index) const;

  const Profile& profile() const;  // the last run
  int64_t peak_bytes() const;      // the last run's peak (Note [Memory planning])
  int64_t pooled_bytes() const;    // buffers kept for reuse

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace libops::graph
