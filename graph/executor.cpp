// Executor: runs a Graph's bodies (see executor.h for the run lifecycle,
// Note [Memory planning] and Note [Control flow]).
#include "graph/executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <list>
#include <map>
#include <new>

#include "graph/planner.h"
#include "libops/core/log.h"
#include "libops/core/parallel.h"
#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"

namespace libops::graph {

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Bytes of a dense array of `shape`, or -1 when that overflows or the
// dtype is invalid.
int64_t bytes_of(const TensorShape& shape) {
  int64_t length = 0;
  const size_t item = dtype_size(shape.dtype);
  if (item == 0 || !checked_length(shape.dims, length) || length > INT64_MAX / static_cast<int64_t>(item)) return -1;
  return length * static_cast<int64_t>(item);
}

// Buffers released by a run, kept for the next output of the same byte
// size (Note [Memory planning]). Only arrays whose buffer nobody else holds
// are kept, so reuse can never write into a live value.
class ArrayPool {
 public:
  // An array of `shape`, whose size is `bytes` (see bytes_of).
  Status take(const TensorShape& shape, int64_t bytes, NDArray& out) {
    if (bytes > 0 && shape.order == 'c') {
      std::vector<NDArray>* found = find(static_cast<size_t>(bytes));
      if (found != nullptr && !found->empty()) {
        std::vector<NDArray>& kept = *found;
        NDArray& a = kept.back();
        bool reused = true;
        if (a.dtype() == shape.dtype && a.shape() == shape.dims) {
          out = std::move(a);
        } else if (a.dtype() == shape.dtype) {
          reused = a.reshape(shape.dims, out).is_ok();
        } else if (!a.buffer()->owned()) {
          // A view made by the branch below. Wrapping it again would chain
          // one more buffer per run, each with its own device copy once an
          // op runs on a device, until destroying the chain overflows the
          // stack: drop it and allocate afresh instead.
          reused = false;
        } else {
          // Same bytes, another dtype: a new view that keeps the block alive.
          std::shared_ptr<DataBuffer> block = a.buffer();
          void* data = block->host();
          reused = NDArray::wrap(data, static_cast<size_t>(bytes), shape.dtype, shape.dims, nullptr, out,
                                 [block = std::move(block)](void*) {})
                       .is_ok();
        }
        kept.pop_back();
        pooled_ -= bytes;
        if (reused) return Status::ok();
      }
    }
    return NDArray::create(shape.dtype, shape.dims, shape.order, out);
  }

  // Keeps `a` for reuse when this is the only reference to a dense buffer
  // the executor allocated; otherwise just drops the reference.
  void give(NDArray& a) {
    if (a.has_data()) {
      const std::shared_ptr<DataBuffer>& buf = a.buffer();
      const size_t bytes = buf->bytes();
      if (buf.use_count() == 1 && bytes > 0 && a.offset() == 0 && a.is_c_contiguous() &&
          static_cast<size_t>(a.length()) * a.element_size() == bytes &&
          pooled_ + static_cast<int64_t>(bytes) <= limit_) {
        kept_for(bytes).push_back(std::move(a));
        pooled_ += static_cast<int64_t>(bytes);
      }
    }
    a = NDArray();
  }

  void raise_limit(int64_t bytes) { limit_ = std::max(limit_, bytes); }
  int64_t pooled_bytes() const { return pooled_; }

 private:
  // Kept arrays by byte size, sorted by size. A graph has few distinct
  // sizes, and a binary search costs less per node than hashing (whose
  // bucket index is an integer division).
  struct Kept {
    size_t bytes;
    std::vector<NDArray> arrays;
  };
  std::vector<Kept> free_;

  std::vector<Kept>::iterator lower(size_t bytes) {
    return std::lower_bound(free_.begin(), free_.end(), bytes, [](const Kept& k, size_t b) { return k.bytes < b; });
  }
  std::vector<NDArray>* find(size_t bytes) {
    auto it = lower(bytes);
    return it != free_.end() && it->bytes == bytes ? &it->arrays : nullptr;
  }
  std::vector<NDArray>& kept_for(size_t bytes) {
    auto it = lower(bytes);
    if (it == free_.end() || it->bytes != bytes) it = free_.insert(it, Kept{bytes, {}});
    return it->arrays;
  }
  int64_t pooled_ = 0;
  // Grows to the largest live set seen and to the footprint of each plan
  // run: a run with a known plan keeps every buffer it will take again.
  int64_t limit_ = int64_t{1} << 20;
};

// The shapes a body's outputs are allocated from, for one set of input
// shapes: per slot (dtype kInvalid when unknown), and per node position
// whether all its outputs are known. Built once per set of input shapes.
struct Plan {
  std::vector<TensorShape> shapes;
  std::vector<int64_t> bytes;  // bytes_of(shapes[s])
  std::vector<uint8_t> node_known;
  // Note [Shape values] (planner.cpp): the values inference computed, per
  // slot (empty where none), and the nodes whose outputs all have one and
  // none is a graph output: a run binds those values instead of running
  // the node. They depend on the input shapes alone, as the plan does.
  std::vector<NDArray> values;
  std::vector<uint8_t> node_computed;
  // The bytes of buffers a run with this plan holds at once at most, per
  // size, summed: what the pool keeps so that later runs allocate nothing
  // (Note [Memory planning]).
  int64_t footprint = 0;

  void build(const Body& body, const std::vector<ValueShape>& slots, std::vector<NDArray> computed = {}) {
    values = std::move(computed);
    values.resize(slots.size());
    node_computed.assign(body.nodes.size(), 0);
    std::vector<uint8_t> is_output(slots.size(), 0);
    for (const GraphOutput& o : body.outputs) is_output[static_cast<size_t>(o.slot)] = 1;
    for (size_t p = 0; p < body.nodes.size(); ++p) {
      const Node& node = body.nodes[p];
      bool all = node.num_outputs > 0;
      for (int32_t k = 0; k < node.num_outputs; ++k) {
        const size_t slot = static_cast<size_t>(node.first_output + k);
        all = all && values[slot].has_data() && !is_output[slot];
      }
      node_computed[p] = all;
    }
    shapes.assign(slots.size(), TensorShape{});
    bytes.assign(slots.size(), -1);
    for (size_t s = 0; s < slots.size(); ++s) {
      if (!slots[s].fully_known()) continue;
      shapes[s] = TensorShape{slots[s].dtype, slots[s].dims, slots[s].order};
      bytes[s] = bytes_of(shapes[s]);
    }
    node_known.assign(body.nodes.size(), 0);
    for (size_t p = 0; p < body.nodes.size(); ++p) {
      const Node& node = body.nodes[p];
      bool known = true;
      for (int32_t k = 0; k < node.num_outputs; ++k)
        known = known && shapes[static_cast<size_t>(node.first_output + k)].dtype != DataType::kInvalid;
      node_known[p] = known;
    }
    // The run's allocations, replayed: per size, the most buffers live.
    std::map<int64_t, std::pair<int64_t, int64_t>> by_size;  // bytes -> (live, most)
    std::vector<uint8_t> held(slots.size(), 0);
    for (size_t p = 0; p < body.nodes.size(); ++p) {
      const Node& node = body.nodes[p];
      for (int32_t k = 0; node_known[p] && k < node.num_outputs; ++k) {
        const size_t s = static_cast<size_t>(node.first_output + k);
        if (bytes[s] <= 0) continue;
        auto& [live, most] = by_size[bytes[s]];
        most = std::max(most, ++live);
        held[s] = 1;
      }
      for (int32_t r = body.release_begin[p]; r < body.release_begin[p + 1]; ++r) {
        const size_t s = static_cast<size_t>(body.release[static_cast<size_t>(r)]);
        if (held[s]) --by_size[bytes[s]].first, held[s] = 0;
      }
    }
    footprint = 0;
    for (const auto& [size, counts] : by_size) footprint += size * counts.second;
  }
  const TensorShape& shape(int32_t slot) const { return shapes[static_cast<size_t>(slot)]; }
};

// A value handed between bodies (subgraph arguments and results, loop
// values, the run's outputs) with the bytes it owns (Note [Memory planning]).
struct Carried {
  NDArray array;
  int64_t owned = 0;
  std::shared_ptr<const TensorList> list;  // a list slot's value (Note [Sequence values]); null: none
};

// Per-body run state. A body is never active twice at once (the loader
// refuses recursive subgraphs), so one Frame per body is enough. A Frame
// never moves: its contexts point into its own `arrays`.
struct Frame {
  std::vector<NDArray> arrays;  // one per slot
  // A list slot's value (Note [Sequence values]); sized only when the body
  // has list slots.
  std::vector<std::shared_ptr<const TensorList>> lists;
  std::vector<int64_t> owned;   // bytes the executor allocated for the slot
  std::vector<uint8_t> constant;
  Plan static_plan;  // from the load-time shapes, when the body has them in full
  // Note [Plans per input shapes]: this Session's plans, most recently used
  // first, each for the input shapes of its key.
  struct KeyedPlan {
    std::vector<TensorShape> key;
    Plan plan;
  };
  std::list<KeyedPlan> plans;
  std::vector<ValueShape> inferred;  // scratch for re-inference
  // Per node position, the call of a custom node: its op name, args and
  // pointers to its input and output slots in `arrays`, set up once by
  // set_up_calls (`arrays` is never resized) and reused by every run.
  std::vector<Context> calls;
  ShapeList shapes;
  std::vector<const DataBuffer*> buffers;
  std::vector<Carried> args;     // of an If's branch
  std::vector<Carried> results;  // of an If's branch

  Carried value(const Body& body, int32_t slot) const {
    const size_t s = static_cast<size_t>(slot);
    if (kind_is_list(body.kinds[s])) return Carried{NDArray(), 0, lists[s]};
    return Carried{arrays[s], 0, nullptr};
  }

  void set_up_calls(const Body& body) {
    calls.resize(body.nodes.size());
    for (size_t p = 0; p < body.nodes.size(); ++p) {
      const Node& node = body.nodes[p];
      if (node.kind != NodeKind::kCustom) continue;
      Context& ctx = calls[p];
      ctx.set_op_name(node.op->name());
      std::vector<bool> constant_inputs;
      for (int32_t in : node.inputs) {
        ctx.add_input(&arrays[static_cast<size_t>(in)]);
        constant_inputs.push_back(constant[static_cast<size_t>(in)] != 0);
      }
      for (int32_t k = 0; k < node.num_outputs; ++k) ctx.add_output(&arrays[static_cast<size_t>(node.first_output + k)]);
      ctx.args() = node.args;
      ctx.set_constant_inputs(std::move(constant_inputs));  // Note [Op state]
    }
  }

  // Every custom node's call runs on its own placement, else on `device`.
  void set_device(const Body& body, Device device) {
    for (size_t p = 0; p < body.nodes.size(); ++p)
      if (body.nodes[p].kind == NodeKind::kCustom)
        calls[p].set_device(body.nodes[p].placed ? body.nodes[p].placement : device);
  }
};

// True when every input of `node` holds data of exactly the dtype and shape
// that `plan` inferred the node's outputs from: the op's call checks and
// shape function (DeclarableOp::execute steps 1-3) then passed for this
// very call at plan time, and need not run again.
bool inputs_as_planned(const Frame& f, const Node& node, const Plan& plan) {
  for (int32_t in : node.inputs) {
    const NDArray& a = f.arrays[static_cast<size_t>(in)];
    const TensorShape& planned = plan.shape(in);
    if (!a.has_data() || a.dtype() != planned.dtype || a.shape() != planned.dims) return false;
  }
  return true;
}

}  // namespace

struct Session::Impl {
  std::shared_ptr<const Graph> graph;
  std::vector<std::unique_ptr<Frame>> frames;  // a Frame's calls point into it: it cannot move
  ArrayPool pool;
  std::vector<Carried> outputs;
  std::vector<const NDArray*> feed_scratch;
  Profile profile;
  bool profiling = false;
  uint64_t seed = 0;
  int threads = 0;  // Session::set_threads; 0: the process's count
  Device device;  // for nodes without a placement of their own
  int64_t live = 0;
  int64_t peak = 0;
  int64_t run_start = 0;
  int64_t loop_limit = 0;  // 0: none
  // Note [Cancelling a run]: set by cancel() from any thread, taken (reset)
  // by the run that stops on it, so a cancel that arrives between runs
  // stops the next one rather than being lost. Checked before every node
  // and every While iteration: one relaxed load each.
  std::atomic<bool> cancel_requested{false};

  Status take_cancel() {
    if (!cancel_requested.load(std::memory_order_relaxed)) return Status::ok();
    if (!cancel_requested.exchange(false, std::memory_order_acq_rel)) return Status::ok();
    return Status::error(StatusCode::kCancelled, "graph: the run was cancelled");
  }

  explicit Impl(std::shared_ptr<const Graph> g) : graph(std::move(g)) {
    profiling = graph->config().profiling;
    // The loader checked the configured device's name.
    if (!graph->config().device.empty()) static_cast<void>(Device::parse(graph->config().device.c_str(), device));
    for (int b = 0; b < graph->num_bodies(); ++b) {
      const Body& body = graph->body(b);
      frames.push_back(std::make_unique<Frame>());
      Frame& f = *frames.back();
      const size_t n = static_cast<size_t>(body.num_slots);
      f.arrays.resize(n);
      if (body.has_lists) f.lists.resize(n);
      f.owned.assign(n, 0);
      f.constant.assign(n, 0);
      for (size_t i = 0; i < body.constant_slots.size(); ++i) {
        const size_t s = static_cast<size_t>(body.constant_slots[i]);
        f.arrays[s] = body.constants[i];
        f.constant[s] = 1;
      }
      if (body.static_plan) f.static_plan.build(body, body.static_shapes, body.static_values);
      f.set_up_calls(body);
      f.set_device(body, device);
    }
  }

  // ---- memory (Note [Memory planning]) ----
  // `bytes`: bytes_of(shape), when the caller has it.
  Status allocate(Frame& f, int32_t slot, const TensorShape& shape, int64_t bytes = -1) {
    const size_t s = static_cast<size_t>(slot);
    if (bytes < 0) bytes = bytes_of(shape);
    if (bytes < 0) return Status::error(StatusCode::kShape, "cannot allocate an output of %s", shape.str().c_str());
    RETURN_IF_ERROR(pool.take(shape, bytes, f.arrays[s]));
    f.owned[s] = bytes;
    live += bytes;
    if (live > peak) {
      peak = live;
      pool.raise_limit(peak);
    }
    return Status::ok();
  }

  void release(Frame& f, int32_t slot) {
    const size_t s = static_cast<size_t>(slot);
    if (f.owned[s] > 0) {
      live -= f.owned[s];
      f.owned[s] = 0;
      pool.give(f.arrays[s]);
    } else {
      f.arrays[s] = NDArray();
    }
    if (!f.lists.empty()) f.lists[s].reset();
  }

  // A slot takes an array the executor made outside allocate() (a
  // concatenated sequence): it is counted and pooled like one.
  void adopt(Frame& f, int32_t slot, NDArray a) {
    const size_t s = static_cast<size_t>(slot);
    const bool own = a.has_data() && a.buffer().use_count() == 1;
    f.owned[s] = own ? static_cast<int64_t>(a.buffer()->bytes()) : 0;
    f.arrays[s] = std::move(a);
    live += f.owned[s];
    if (live > peak) {
      peak = live;
      pool.raise_limit(peak);
    }
  }

  void release(Carried& c) {
    if (c.owned > 0) {
      live -= c.owned;
      c.owned = 0;
      pool.give(c.array);
    } else {
      c.array = NDArray();
    }
    c.list.reset();
  }

  void release_all(std::vector<Carried>& v) {
    for (Carried& c : v) release(c);
    v.clear();
  }

  // After an error: drop everything a frame holds except constants.
  void clear_frame(Frame& f) {
    for (size_t s = 0; s < f.arrays.size(); ++s)
      if (!f.constant[s]) release(f, static_cast<int32_t>(s));
  }

  // ---- bodies ----
  const Plan* select_plan(int b, Frame& f, const Carried* args, int n);
  const Plan* select_plan_for(int b, Frame& f, const Carried* args, int n);
  // take_lists: the arguments' lists move into the body's slots (a While's
  // loop values, which the loop replaces with the body's results): a list
  // the body then edits is its slot's alone (Note [Sequence values]).
  Status bind_inputs(int b, Frame& f, Carried* args, int n, bool take_lists);
  Status run_body(int b, Carried* args, int n, std::vector<Carried>& results, bool take_lists = false);
  // `planned`: the plan knows the node's output shapes (then `plan` has them).
  Status run_node(const Body& body, Frame& f, size_t position, const Plan* plan, bool planned);
  Status run_node_traced(const Body& body, Frame& f, size_t position, const Plan* plan, bool planned);
  Status run_node_profiled(int b, Frame& f, size_t position, const Plan* plan, bool planned);
  Status run_node_kind(const Body& body, Frame& f, size_t position, const Node& node, const Plan* plan,
                       bool planned);
  Status run_sequence(const Body& body, Frame& f, size_t position, const Node& node);
  Status run_custom(Frame& f, size_t position, const Node& node, const Plan* plan, bool planned);
  Status run_legacy(Frame& f, const Node& node, const Plan* plan, bool planned);
  Status run_if(const Body& body, Frame& f, const Node& node);
  Status run_while(const Body& body, Frame& f, const Node& node);
  Status stack_scan(Frame& f, const Node& node, size_t k, int64_t iterations, const std::vector<Carried>& vars,
                    const std::vector<Carried>& kept, int32_t slot);
  Status run_main(Carried* inputs, int n);
  std::vector<Carried> feeds;  // run_main's inputs
};

Status Session::Impl::bind_inputs(int b, Frame& f, Carried* args, int n, bool take_lists) {
  const Body& body = graph->body(b);
  const char* where = body.where.empty() ? "graph: " : body.where.c_str();
  if (n != static_cast<int>(body.inputs.size()))
    return Status::error(StatusCode::kInvalidArgument, "%s%d inputs given; %zu expected", where, n, body.inputs.size());
  // `element` >= 0: element `element` of a list input. The message is made
  // only on failure: this runs for every subgraph call and loop iteration.
  auto admitted = [&](const GraphInput& in, const NDArray& a, int64_t element) {
    const bool has = !a.is_null() && a.has_data();
    if (has && in.shape.admits(a.dtype(), a.shape())) return Status::ok();
    const std::string what = element < 0 ? str_format("input '%s'", in.name.c_str())
                                         : str_format("element %lld of input '%s'", static_cast<long long>(element),
                                                      in.name.c_str());
    if (!has) return Status::error(StatusCode::kInvalidArgument, "%s%s has no data", where, what.c_str());
    return Status::error(a.dtype() != in.shape.dtype ? StatusCode::kDtype : StatusCode::kShape,
                         "%s%s was given %s%s but the placeholder is %s", where, what.c_str(), dtype_name(a.dtype()),
                         a.shape().str().c_str(), in.shape.str().c_str());
  };
  for (int i = 0; i < n; ++i) {
    const GraphInput& in = body.inputs[static_cast<size_t>(i)];
    const Carried& a = args[i];
    if (!kind_is_list(in.kind)) {
      if (in.kind == ValueKind::kOptionalTensor && a.array.is_null()) continue;  // none
      RETURN_IF_ERROR(admitted(in, a.array, -1));
    } else if (a.list == nullptr) {
      if (in.kind == ValueKind::kSequence)
        return Status::error(StatusCode::kInvalidArgument, "%sinput '%s' is a sequence and was given none", where,
                             in.name.c_str());
    } else if (!a.list->items.empty()) {
      // Note [Sequence values]: the placeholder declares each element. A
      // list's elements all have its dtype, so a declared dtype alone is
      // checked once; declared extents are checked per element (a loop's
      // list, declared with neither, costs nothing per iteration).
      const std::vector<NDArray>& items = a.list->items;
      if (!in.shape.rank_known) RETURN_IF_ERROR(admitted(in, items[0], 0));
      for (size_t e = 0; in.shape.rank_known && e < items.size(); ++e)
        RETURN_IF_ERROR(admitted(in, items[e], static_cast<int64_t>(e)));
    }
  }
  for (int i = 0; i < n; ++i) {
    const GraphInput& in = body.inputs[static_cast<size_t>(i)];
    if (!in.used) continue;
    const size_t s = static_cast<size_t>(in.slot);
    if (kind_is_list(in.kind))
      f.lists[s] = take_lists ? std::move(args[i].list) : args[i].list;
    else
      f.arrays[s] = args[i].array;
    f.owned[s] = 0;
  }
  return Status::ok();
}

// The shapes to allocate outputs from: the load-time plan when the body's
// inputs are declared in full (bind_inputs proved the fed ones equal), else
// this Session's plan for the same input shapes, else a new one.
const Plan* Session::Impl::select_plan(int b, Frame& f, const Carried* args, int n) {
  const Plan* plan = select_plan_for(b, f, args, n);
  if (plan != nullptr) pool.raise_limit(plan->footprint);
  return plan;
}

// Note [Plans per input shapes]
//  A graph whose input shapes are not all fixed is planned per signature
//  (the dtypes and shapes fed): the first run with a signature infers every
//  shape it can, computes the shape values (Note [Shape values]) and builds
//  the plan (shapes, the memory footprint, the nodes bound to computed
//  values); later runs with that signature reuse it as a static graph uses
//  its load-time plan. A Session keeps its last kMaxPlans signatures, so an
//  OCR recogniser fed lines of a few widths, or a server mixing batch
//  sizes, plans each once.
constexpr size_t kMaxPlans = 8;

const Plan* Session::Impl::select_plan_for(int b, Frame& f, const Carried* args, int n) {
  const Body& body = graph->body(b);
  if (body.static_plan) return &f.static_plan;
  // A list's or an empty optional's key is the invalid dtype: what reads
  // them is planned when it runs (Note [Sequence values]).
  auto key_of = [](const Carried& a) {
    return a.array.has_data() ? TensorShape{a.array.dtype(), a.array.shape(), 'c'} : TensorShape{};
  };
  for (auto it = f.plans.begin(); it != f.plans.end(); ++it) {
    bool same = static_cast<int>(it->key.size()) == n;
    for (int i = 0; same && i < n; ++i) {
      const TensorShape& k = it->key[static_cast<size_t>(i)];
      const TensorShape a = key_of(args[i]);
      same = k.dtype == a.dtype && k.dims == a.dims;
    }
    if (!same) continue;
    if (it != f.plans.begin()) f.plans.splice(f.plans.begin(), f.plans, it);
    return &f.plans.front().plan;
  }
  Frame::KeyedPlan entry;
  std::vector<ValueShape> key;
  for (int i = 0; i < n; ++i) {
    entry.key.push_back(key_of(args[i]));
    key.push_back(entry.key.back().dtype == DataType::kInvalid ? ValueShape{} : ValueShape::of(entry.key.back()));
  }
  // Failures only leave shapes unknown here; the node reports its own error
  // with the real arrays when it runs.
  std::vector<NDArray> values;
  if (!infer_shapes(*graph, b, key, false, f.inferred, &values).is_ok()) return nullptr;
  entry.plan.build(body, f.inferred, std::move(values));
  if (log_enabled(LogLevel::kDebug)) {
    std::string shapes, unknown;
    for (const TensorShape& k : entry.key) shapes += (shapes.empty() ? "" : ", ") + k.str();
    int known = 0, computed = 0;
    for (size_t p = 0; p < body.nodes.size(); ++p) {
      known += entry.plan.node_known[p];
      computed += entry.plan.node_computed[p];
      if (!entry.plan.node_known[p] && unknown.size() < 400) {
        unknown += ' ';
        unknown += body.node_prefix(body.nodes[p]);
      }
    }
    log_debug("session: planned %s for inputs %s: %d of %zu nodes' shapes known, %d computed when planned%s%s",
              body.name.c_str(), shapes.c_str(), known, body.nodes.size(), computed,
              unknown.empty() ? "" : "; not known:", unknown.c_str());
  }
  f.plans.push_front(std::move(entry));
  if (f.plans.size() > kMaxPlans) f.plans.pop_back();
  return &f.plans.front().plan;
}

Status Session::Impl::run_body(int b, Carried* args, int n, std::vector<Carried>& results, bool take_lists) {
  const Body& body = graph->body(b);
  Frame& f = *frames[static_cast<size_t>(b)];
  Status bound = bind_inputs(b, f, args, n, take_lists);
  if (!bound.is_ok()) {
    clear_frame(f);
    return bound;
  }
  const Plan* plan = select_plan(b, f, args, n);
  const size_t n_nodes = body.nodes.size();
  for (size_t p = 0; p < n_nodes; ++p) {
    if (plan && plan->node_computed[p]) {  // Note [Shape values]: computed when planned
      const Node& node = body.nodes[p];
      for (int32_t k = 0; k < node.num_outputs; ++k) {
        const size_t slot = static_cast<size_t>(node.first_output + k);
        f.arrays[slot] = plan->values[slot];
        f.owned[slot] = 0;
      }
    } else {
      const bool planned = plan && plan->node_known[p];
      Status s = take_cancel();
      if (s.is_ok()) s = profiling ? run_node_profiled(b, f, p, plan, planned) : run_node(body, f, p, plan, planned);
      if (!s.is_ok()) {
        clear_frame(f);
        return s;
      }
    }
    for (int32_t r = body.release_begin[p]; r < body.release_begin[p + 1]; ++r)
      release(f, body.release[static_cast<size_t>(r)]);
  }
  results.clear();
  for (const GraphOutput& o : body.outputs) {
    const size_t s_out = static_cast<size_t>(o.slot);
    results.push_back(Carried{f.arrays[s_out], f.owned[s_out], f.lists.empty() ? nullptr : f.lists[s_out]});
    f.owned[s_out] = 0;  // a slot listed twice is owned by its first output
  }
  for (const GraphOutput& o : body.outputs) {
    const size_t s_out = static_cast<size_t>(o.slot);
    if (!f.constant[s_out]) f.arrays[s_out] = NDArray();
    if (!f.lists.empty()) f.lists[s_out].reset();
  }
  return Status::ok();
}

// run_node, timed, with the node's output shapes and bytes recorded.
Status Session::Impl::run_node_profiled(int b, Frame& f, size_t position, const Plan* plan, bool planned) {
  const Body& body = graph->body(b);
  const Node& node = body.nodes[position];
  const int index = profile.index_of(b, static_cast<int>(position));
  // On a device, a profiled node's time is its device time: the device's
  // queue is drained before and after it (unprofiled runs never wait), and
  // the node runs inside a named range (NVTX on CUDA) for GPU profilers.
  const Device d = node.placed ? node.placement : device;
  const DeviceRuntime* rt = d.is_cpu() ? nullptr : device_runtime(d.type);
  if (rt != nullptr) {
    const Status drained = rt->synchronize(d.index);
    if (!drained.is_ok()) return drained.with_prefix(body.node_prefix(node));
    if (rt->range_push != nullptr) rt->range_push(str_format("%s (%s)", node.name.c_str(), node.op_label.c_str()).c_str());
  }
  const int64_t t0 = now_ns();
  const int64_t live0 = live;
  Status s = run_node(body, f, position, plan, planned);
  if (rt != nullptr) {
    const Status drained = rt->synchronize(d.index);
    if (s.is_ok() && !drained.is_ok()) s = drained.with_prefix(body.node_prefix(node));
    if (rt->range_pop != nullptr) rt->range_pop();
  }
  const int64_t t1 = now_ns();
  NodeProfile& np = profile.nodes[static_cast<size_t>(index)];
  ++np.calls;
  np.total_ns += t1 - t0;
  if (s.is_ok()) {
    np.output_shapes.clear();
    for (int32_t k = 0; k < node.num_outputs; ++k) {
      const NDArray& out = f.arrays[static_cast<size_t>(node.first_output + k)];
      np.output_shapes.push_back(out.desc());
    }
    np.bytes += std::max<int64_t>(0, live - live0);
  }
  if (profile.events.size() < Profile::kMaxEvents)
    profile.events.push_back({index, t0 - run_start, t1 - t0});
  else
    ++profile.dropped_events;
  return s;
}

Status Session::Impl::run_node(const Body& body, Frame& f, size_t position, const Plan* plan, bool planned) {
  const Node& node = body.nodes[position];
  if (log_enabled(LogLevel::kTrace)) [[unlikely]]
    return run_node_traced(body, f, position, plan, planned);
  Status s = run_node_kind(body, f, position, node, plan, planned);
  if (s.is_ok()) return Status::ok();  // not `s`: a fresh ok Status is cheaper than a move
  return s.with_prefix(body.node_prefix(node));
}

// run_node with a trace line (LIBOPS_LOG_LEVEL=trace): the node, what it
// read, what it gave and how long it took.
Status Session::Impl::run_node_traced(const Body& body, Frame& f, size_t position, const Plan* plan, bool planned) {
  const Node& node = body.nodes[position];
  std::string in;
  for (int32_t slot : node.inputs)
    in += (in.empty() ? "" : ", ") +
          (slot >= 0 && f.arrays[static_cast<size_t>(slot)].has_data() ? f.arrays[static_cast<size_t>(slot)].desc().str()
                                                                       : std::string("-"));
  const int64_t t0 = now_ns();
  Status s = run_node_kind(body, f, position, node, plan, planned);
  const int64_t t1 = now_ns();
  if (!s.is_ok()) {
    s = s.with_prefix(body.node_prefix(node));
    log_trace("run: %s (%s) failed after %.1f us: %s", node.name.c_str(), node.op_label.c_str(), (t1 - t0) / 1e3,
              s.message().c_str());
    return s;
  }
  std::string out;
  for (int32_t k = 0; k < node.num_outputs; ++k)
    out += (out.empty() ? "" : ", ") + f.arrays[static_cast<size_t>(node.first_output + k)].desc().str();
  log_trace("run: %snode %u '%s' (%s%s) %s -> %s in %.1f us", body.name == "main" ? "" : (body.name + ": ").c_str(),
            node.id, node.name.c_str(), node.op_label.c_str(), planned ? "" : ", shapes at run time", in.c_str(),
            out.c_str(), (t1 - t0) / 1e3);
  return s;
}

Status Session::Impl::run_node_kind(const Body& body, Frame& f, size_t position, const Node& node, const Plan* plan,
                                    bool planned) {
  switch (node.kind) {
    case NodeKind::kCustom: return run_custom(f, position, node, plan, planned);
    case NodeKind::kLegacy: return run_legacy(f, node, plan, planned);
    case NodeKind::kIf: return run_if(body, f, node);
    case NodeKind::kWhile: return run_while(body, f, node);
    case NodeKind::kSequence: return run_sequence(body, f, position, node);
  }
  return Status::error(StatusCode::kInternal, "unknown node kind %d", static_cast<int>(node.kind));
}

Status Session::Impl::run_custom(Frame& f, size_t position, const Node& node, const Plan* plan, bool planned) {
  Context& ctx = f.calls[position];
  // Planned and fed as planned: only the op's compute runs (see
  // inputs_as_planned). Otherwise the whole pipeline checks the call.
  const bool prepared = planned && inputs_as_planned(f, node, *plan);
  if (planned) {
    for (int32_t k = 0; k < node.num_outputs; ++k)
      RETURN_IF_ERROR(allocate(f, node.first_output + k, plan->shape(node.first_output + k),
                               plan->bytes[static_cast<size_t>(node.first_output + k)]));
  } else {
    // Not planned (shapes depend on values, or on a subgraph's result):
    // infer now, with the real inputs.
    RETURN_IF_ERROR(node.op->infer_shapes(ctx, f.shapes));
    if (static_cast<int32_t>(f.shapes.size()) != node.num_outputs)
      return Status::error(StatusCode::kInvalidGraph, "the op gives %zu outputs but the node declares %d",
                           f.shapes.size(), node.num_outputs);
    for (int32_t k = 0; k < node.num_outputs; ++k)
      RETURN_IF_ERROR(allocate(f, node.first_output + k, f.shapes[static_cast<size_t>(k)]));
  }
  f.buffers.clear();
  for (int32_t k = 0; k < node.num_outputs; ++k)
    f.buffers.push_back(f.arrays[static_cast<size_t>(node.first_output + k)].buffer().get());
  Status s = prepared ? node.op->execute_prepared(ctx) : node.op->execute(ctx);
  ctx.workspace().release_all();  // the op's scratch lives for one call
  if (!s.is_ok()) return s;
  // An op may replace an output array instead of writing into it (a view of
  // an input, say); the buffer allocated for it is then gone.
  for (int32_t k = 0; k < node.num_outputs; ++k) {
    const size_t slot = static_cast<size_t>(node.first_output + k);
    if (f.arrays[slot].buffer().get() != f.buffers[static_cast<size_t>(k)]) {
      live -= f.owned[slot];
      f.owned[slot] = 0;
    }
  }
  return Status::ok();
}

Status Session::Impl::run_legacy(Frame& f, const Node& node, const Plan* plan, bool planned) {
  const size_t n_in = node.inputs.size();
  const NDArray* x = n_in > 0 ? &f.arrays[static_cast<size_t>(node.inputs[0])] : nullptr;
  const NDArray* y = n_in > 1 ? &f.arrays[static_cast<size_t>(node.inputs[1])] : nullptr;
  if (planned) {
    RETURN_IF_ERROR(allocate(f, node.first_output, plan->shape(node.first_output),
                             plan->bytes[static_cast<size_t>(node.first_output)]));
  } else {
    TensorShape in[2];
    if (x) in[0] = x->desc();
    if (y) in[1] = y->desc();
    TensorShape out;
    RETURN_IF_ERROR(legacy_output_shape(node, in, static_cast<int>(n_in), out));
    RETURN_IF_ERROR(allocate(f, node.first_output, out));
  }
  legacy::LegacyCall call;
  call.group = node.group;
  call.num = node.num;
  call.x = x;
  call.y = y;
  call.z = &f.arrays[static_cast<size_t>(node.first_output)];
  call.axes = node.axes.data();
  call.n_axes = static_cast<int>(node.axes.size());
  call.extra = node.extra;
  call.seed = node.has_seed ? node.seed : seed;
  call.device = node.placed ? node.placement : device;
  // A planned pairwise node fed as planned: the loader checked its op
  // number and z has the planned shape, the broadcast shape of x and y
  // (legacy_output_shape), which is what the prechecked entry relies on.
  if (planned && node.group == OPS_PAIRWISE && inputs_as_planned(f, node, *plan))
    return legacy::exec_pairwise_prechecked(call);
  return legacy::exec(call);
}

namespace {

// A sequence position (int scalar) in -n .. hi, negative counting from the
// end: its index.
Status sequence_position(const NDArray& p, int64_t n, int64_t hi, const char* what, int64_t& out) {
  if (p.length() != 1 || !dtype_is_integer(p.dtype()))
    return Status::error(StatusCode::kInvalidArgument, "the %s must be one integer, got %s", what,
                         p.desc().str().c_str());
  RETURN_IF_ERROR(p.buffer()->sync_to_host());  // computed on a device, perhaps
  const int64_t v = p.get_int64(0);
  if (v < -n || v > hi)
    return Status::error(StatusCode::kInvalidArgument, "the %s %lld is outside %lld .. %lld for a sequence of %lld",
                         what, static_cast<long long>(v), static_cast<long long>(-n), static_cast<long long>(hi),
                         static_cast<long long>(n));
  out = v < 0 ? v + n : v;
  return Status::ok();
}

// A split into more pieces than this is refused (each is an array handle;
// a bad split value must not exhaust memory).
constexpr int64_t kMaxSequencePieces = int64_t{1} << 24;

Status scalar_array(DataType dtype, double v, NDArray& out) {
  RETURN_IF_ERROR(NDArray::create(dtype, Dims{}, 'c', out));
  out.set_double(0, v);
  return Status::ok();
}

}  // namespace

// Whether node `position` is the last to read `slot` (liveness releases it
// right after).
bool last_read_here(const Body& body, size_t position, int32_t slot) {
  const auto first = body.release.begin() + body.release_begin[position];
  const auto last = body.release.begin() + body.release_begin[position + 1];
  return std::find(first, last, slot) != last;
}

// Note [Sequence values]: the sequence ops (SequenceOp in the schema).
Status Session::Impl::run_sequence(const Body& body, Frame& f, size_t position, const Node& node) {
  const int32_t out = node.first_output;
  const size_t o = static_cast<size_t>(out);
  auto in_array = [&](size_t k) -> const NDArray& { return f.arrays[static_cast<size_t>(node.inputs[k])]; };
  auto in_list = [&](size_t k) -> const TensorList* { return f.lists[static_cast<size_t>(node.inputs[k])].get(); };
  auto in_is_list = [&](size_t k) { return kind_is_list(body.kinds[static_cast<size_t>(node.inputs[k])]); };
  auto element_dtype_ok = [](const TensorList& l, const NDArray& a) {
    if (l.dtype == DataType::kInvalid || a.dtype() == l.dtype) return Status::ok();
    return Status::error(StatusCode::kDtype, "a sequence of %s cannot take an element of %s", dtype_name(l.dtype),
                         dtype_name(a.dtype()));
  };
  switch (node.seq_op) {
    case SequenceOpKind::kEmpty: {
      auto l = std::make_shared<TensorList>();
      if (!node.args.d.empty()) l->dtype = node.args.d[0];
      f.lists[o] = std::move(l);
      return Status::ok();
    }
    case SequenceOpKind::kConstruct: {
      auto l = std::make_shared<TensorList>();
      l->dtype = in_array(0).dtype();
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        Status s = element_dtype_ok(*l, in_array(k));
        if (!s.is_ok()) return s.with_prefix(str_format("input %zu: ", k));
        l->items.push_back(in_array(k));
      }
      f.lists[o] = std::move(l);
      return Status::ok();
    }
    case SequenceOpKind::kInsert:
    case SequenceOpKind::kErase: {
      const TensorList& seq = *in_list(0);
      const int64_t n = static_cast<int64_t>(seq.items.size());
      const bool insert = node.seq_op == SequenceOpKind::kInsert;
      const size_t pos_input = insert ? 2 : 1;
      if (!insert && n == 0) return Status::error(StatusCode::kInvalidArgument, "cannot erase from an empty sequence");
      int64_t at = insert ? n : n - 1;
      if (node.inputs.size() > pos_input)
        RETURN_IF_ERROR(sequence_position(in_array(pos_input), n, insert ? n : n - 1, "position", at));
      if (insert) RETURN_IF_ERROR(element_dtype_ok(seq, in_array(1)));
      // A list this slot alone holds, read last here, is edited in place (a
      // list grown in a loop: O(1) a step, where a copy of its handles would
      // be O(n)); any other is copied, its arrays shared.
      std::shared_ptr<TensorList> l;
      std::shared_ptr<const TensorList>& held = f.lists[static_cast<size_t>(node.inputs[0])];
      if (held.use_count() == 1 && last_read_here(body, position, node.inputs[0]))
        l = std::const_pointer_cast<TensorList>(std::move(held));
      else
        l = std::make_shared<TensorList>(seq);
      if (insert) {
        l->dtype = in_array(1).dtype();
        l->items.insert(l->items.begin() + at, in_array(1));
      } else {
        l->items.erase(l->items.begin() + at);
      }
      f.lists[o] = std::move(l);
      return Status::ok();
    }
    case SequenceOpKind::kAt: {
      const TensorList& seq = *in_list(0);
      const int64_t n = static_cast<int64_t>(seq.items.size());
      int64_t at = 0;
      RETURN_IF_ERROR(sequence_position(in_array(1), n, n - 1, "position", at));
      f.arrays[o] = seq.items[static_cast<size_t>(at)];
      f.owned[o] = 0;
      return Status::ok();
    }
    case SequenceOpKind::kLength: {
      NDArray a;
      RETURN_IF_ERROR(scalar_array(DataType::kInt64, static_cast<double>(in_list(0)->items.size()), a));
      adopt(f, out, std::move(a));
      return Status::ok();
    }
    case SequenceOpKind::kConcat: {
      const TensorList& seq = *in_list(0);
      if (seq.items.empty())
        return Status::error(StatusCode::kInvalidArgument,
                             "cannot concatenate an empty sequence: the result's shape is not known");
      const bool stack = node.args.i[1] != 0;
      DeclarableOp* op = OpRegistry::instance().find(stack ? "stack" : "concat");
      if (op == nullptr) return Status::error(StatusCode::kInternal, "the %s op is not registered", stack ? "stack" : "concat");
      Context ctx;
      ctx.set_op_name(op->name());
      for (const NDArray& a : seq.items) ctx.add_input(const_cast<NDArray*>(&a));  // ops only read their inputs
      ctx.args().i = {node.args.i[0]};
      ctx.set_device(node.placed ? node.placement : device);
      Status s = op->execute(ctx);
      ctx.workspace().release_all();
      if (!s.is_ok()) return s.with_prefix(str_format("%s of %zu elements: ", op->name(), seq.items.size()));
      NDArray joined = *ctx.output(0);
      ctx.clear();  // the slot holds the result alone, so that it is counted and pooled
      adopt(f, out, std::move(joined));
      return Status::ok();
    }
    case SequenceOpKind::kSplit: {
      auto too_many_pieces = [](int64_t n) {
        return Status::error(StatusCode::kLimitExceeded, "the split makes %lld pieces; a sequence holds at most %lld",
                             static_cast<long long>(n), static_cast<long long>(kMaxSequencePieces));
      };
      const NDArray& x = in_array(0);
      const int rank = x.rank();
      int64_t axis = node.args.i[0];
      if (rank == 0 || axis < -rank || axis >= rank)
        return Status::error(StatusCode::kShape, "axis %lld is not an axis of input 0, %s",
                             static_cast<long long>(axis), x.desc().str().c_str());
      if (axis < 0) axis += rank;
      const int64_t extent = x.dim(static_cast<int>(axis));
      std::vector<int64_t> lengths;
      bool squeeze = false;
      if (node.inputs.size() > 1) {
        const NDArray& split = in_array(1);
        if (!dtype_is_integer(split.dtype()) || split.rank() > 1)
          return Status::error(StatusCode::kInvalidArgument, "split (input 1) must be an integer scalar or list, got %s",
                               split.desc().str().c_str());
        RETURN_IF_ERROR(split.buffer()->sync_to_host());
        if (split.rank() == 0) {
          const int64_t piece = split.get_int64(0);
          if (piece <= 0)
            return Status::error(StatusCode::kInvalidArgument, "split (input 1) is %lld; a piece length is positive",
                                 static_cast<long long>(piece));
          const int64_t pieces = extent / piece + (extent % piece != 0);
          if (pieces > kMaxSequencePieces) return too_many_pieces(pieces);
          for (int64_t k = 0; k < pieces; ++k) lengths.push_back(std::min(piece, extent - k * piece));
        } else {
          if (split.length() > kMaxSequencePieces) return too_many_pieces(split.length());
          int64_t sum = 0;
          for (int64_t i = 0; i < split.length(); ++i) {
            lengths.push_back(split.get_int64(i));
            if (lengths.back() < 0 || lengths.back() > extent - sum)
              return Status::error(StatusCode::kShape,
                                   "split (input 1) holds the length %lld at %lld, which is negative or runs past "
                                   "axis %lld of %s",
                                   static_cast<long long>(lengths.back()), static_cast<long long>(i),
                                   static_cast<long long>(axis), x.desc().str().c_str());
            sum += lengths.back();
          }
          if (sum != extent)
            return Status::error(StatusCode::kShape, "split (input 1) sums to %lld, but axis %lld of %s has %lld",
                                 static_cast<long long>(sum), static_cast<long long>(axis), x.desc().str().c_str(),
                                 static_cast<long long>(extent));
        }
      } else {
        if (extent > kMaxSequencePieces) return too_many_pieces(extent);
        lengths.assign(static_cast<size_t>(extent), 1);
        squeeze = node.args.i[1] == 0;
      }
      auto l = std::make_shared<TensorList>();
      l->dtype = x.dtype();
      Dims squeezed;
      for (int d = 0; d < rank; ++d)
        if (d != axis) squeezed.push_back(x.dim(d));
      int64_t start = 0;
      for (int64_t len : lengths) {
        NDArray piece;  // a view of x
        RETURN_IF_ERROR(x.slice(static_cast<int>(axis), start, start + len, 1, piece));
        if (squeeze) {
          NDArray flat;
          RETURN_IF_ERROR(piece.reshape_copy(squeezed, flat));
          piece = std::move(flat);
        }
        l->items.push_back(std::move(piece));
        start += len;
      }
      f.lists[o] = std::move(l);
      return Status::ok();
    }
    case SequenceOpKind::kOptional:
    case SequenceOpKind::kGetElement: {
      if (node.inputs.empty()) {  // an empty optional
        if (kind_is_list(body.kinds[o])) f.lists[o].reset();
        else f.arrays[o] = NDArray();
        return Status::ok();
      }
      const bool present = in_is_list(0) ? in_list(0) != nullptr : !in_array(0).is_null();
      if (!present)  // only GetElement is given an empty optional (the loader checked the kinds)
        return Status::error(StatusCode::kInvalidArgument, "input 0 is an empty optional: it has no element to get");
      if (in_is_list(0)) f.lists[o] = f.lists[static_cast<size_t>(node.inputs[0])];
      else f.arrays[o] = in_array(0);
      f.owned[o] = 0;
      return Status::ok();
    }
    case SequenceOpKind::kHasElement: {
      const bool present =
          !node.inputs.empty() && (in_is_list(0) ? in_list(0) != nullptr : !in_array(0).is_null());
      NDArray a;
      RETURN_IF_ERROR(scalar_array(DataType::kBool, present ? 1.0 : 0.0, a));
      adopt(f, out, std::move(a));
      return Status::ok();
    }
  }
  return Status::error(StatusCode::kInternal, "unknown sequence op %d", static_cast<int>(node.seq_op));
}

Status Session::Impl::run_if(const Body& body, Frame& f, const Node& node) {
  const NDArray& cond = f.arrays[static_cast<size_t>(node.inputs[0])];
  if (cond.length() != 1)
    return Status::error(StatusCode::kShape, "the condition must hold one element, got %s", cond.desc().str().c_str());
  RETURN_IF_ERROR(cond.buffer()->sync_to_host());  // computed on a device, perhaps
  const bool take_then = cond.get_double(0) != 0.0;
  f.args.clear();
  for (size_t i = 1; i < node.inputs.size(); ++i) f.args.push_back(f.value(body, node.inputs[i]));
  Status s =
      run_body(take_then ? node.branch_a : node.branch_b, f.args.data(), static_cast<int>(f.args.size()), f.results);
  f.args.clear();  // holding the arguments would keep their buffers from the pool
  RETURN_IF_ERROR(s);
  for (int32_t k = 0; k < node.num_outputs; ++k) {
    Carried& c = f.results[static_cast<size_t>(k)];
    const size_t slot = static_cast<size_t>(node.first_output + k);
    f.arrays[slot] = std::move(c.array);
    f.owned[slot] = c.owned;
    c.owned = 0;
    if (!f.lists.empty()) f.lists[slot] = std::move(c.list);
  }
  f.results.clear();
  return Status::ok();
}

Status Session::Impl::run_while(const Body& body, Frame& f, const Node& node) {
  // The loop values; allocated once per While call, not per iteration.
  std::vector<Carried> vars, next, cond;
  vars.reserve(node.inputs.size());
  for (int32_t in : node.inputs) vars.push_back(f.value(body, in));
  const size_t n_vars = vars.size();
  const size_t n_scan = static_cast<size_t>(node.scan_outputs);
  // Per scan output, the value each iteration gave (Note [Control flow]).
  std::vector<std::vector<Carried>> scans(n_scan);
  Status s;
  int64_t iterations = 0;
  for (int64_t iteration = 0;; ++iteration) {
    s = take_cancel();
    if (!s.is_ok()) break;
    s = run_body(node.branch_a, vars.data(), static_cast<int>(n_vars), cond);
    if (!s.is_ok()) {
      s = s.with_prefix(str_format("condition, iteration %lld: ", static_cast<long long>(iteration)));
      break;
    }
    const NDArray& c = cond[0].array;
    if (c.length() != 1) {
      s = Status::error(StatusCode::kShape, "iteration %lld: the condition must hold one element, got %s",
                        static_cast<long long>(iteration), c.desc().str().c_str());
      break;
    }
    s = c.buffer()->sync_to_host();  // computed on a device, perhaps
    if (!s.is_ok()) break;
    const bool again = c.get_double(0) != 0.0;
    release_all(cond);
    if (!again) break;
    if (loop_limit > 0 && iteration >= loop_limit) {
      s = Status::error(StatusCode::kLimitExceeded,
                        "the loop wants iteration %lld; the session's loop limit is %lld iterations",
                        static_cast<long long>(iteration + 1), static_cast<long long>(loop_limit));
      break;
    }
    s = run_body(node.branch_b, vars.data(), static_cast<int>(n_vars), next, /*take_lists=*/true);
    if (!s.is_ok()) {
      s = s.with_prefix(str_format("body, iteration %lld: ", static_cast<long long>(iteration)));
      break;
    }
    iterations = iteration + 1;
    // The scan values leave `next` first: what remains are the loop values.
    for (size_t k = 0; k < n_scan; ++k) {
      Carried& v = next[n_vars + k];
      std::vector<Carried>& kept = scans[k];
      if (!kept.empty() &&
          (v.array.dtype() != kept[0].array.dtype() || v.array.shape() != kept[0].array.shape()) && s.is_ok())
        s = Status::error(StatusCode::kShape,
                          "body, iteration %lld: scan output %zu is %s%s, but iteration 0 gave %s%s; every iteration "
                          "must give the same dtype and shape to be stacked",
                          static_cast<long long>(iteration), k, dtype_name(v.array.dtype()),
                          v.array.shape().str().c_str(), dtype_name(kept[0].array.dtype()),
                          kept[0].array.shape().str().c_str());
      kept.push_back(std::move(v));
    }
    next.resize(n_vars);
    if (!s.is_ok()) break;
    // A value the body passed through unchanged keeps its owner's count.
    for (Carried& n : next)
      if (n.owned == 0 && n.array.has_data())
        for (Carried& v : vars)
          if (v.owned > 0 && v.array.buffer() == n.array.buffer()) {
            n.owned = v.owned;
            v.owned = 0;
          }
    release_all(vars);
    std::swap(vars, next);
  }
  release_all(cond);
  release_all(next);
  for (size_t k = 0; s.is_ok() && k < n_scan; ++k) {
    const int32_t slot = node.first_output + static_cast<int32_t>(n_vars + k);
    s = stack_scan(f, node, k, iterations, vars, scans[k], slot);
  }
  for (std::vector<Carried>& kept : scans) release_all(kept);
  if (!s.is_ok()) {
    for (size_t k = 0; k < n_scan; ++k) release(f, node.first_output + static_cast<int32_t>(n_vars + k));
    release_all(vars);
    return s;
  }
  for (size_t k = 0; k < n_vars; ++k) {
    const size_t slot = static_cast<size_t>(node.first_output) + k;
    f.arrays[slot] = std::move(vars[k].array);
    f.owned[slot] = vars[k].owned;
    if (!f.lists.empty()) f.lists[slot] = std::move(vars[k].list);
  }
  return Status::ok();
}

// Stacks the values scan output k took over `iterations` iterations into
// `slot`, along a new axis 0. With none, the shape inferred for the body on
// the final loop values (the initial ones, as the body never ran) gives the
// empty result's shape.
Status Session::Impl::stack_scan(Frame& f, const Node& node, size_t k, int64_t iterations,
                                 const std::vector<Carried>& vars, const std::vector<Carried>& kept, int32_t slot) {
  const Body& body = graph->body(node.branch_b);
  TensorShape piece;
  if (!kept.empty()) {
    piece = TensorShape{kept[0].array.dtype(), kept[0].array.shape(), 'c'};
  } else {
    std::vector<ValueShape> shapes, slots;
    for (const Carried& v : vars)
      shapes.push_back(v.array.has_data() ? ValueShape::of(TensorShape{v.array.dtype(), v.array.shape(), 'c'})
                                          : ValueShape{});
    const size_t out = vars.size() + k;
    const GraphOutput& o = body.outputs[out];
    Status inferred = infer_shapes(*graph, node.branch_b, shapes, false, slots);
    const ValueShape* v = inferred.is_ok() ? &slots[static_cast<size_t>(o.slot)] : nullptr;
    if (v == nullptr || !v->fully_known())
      return Status::error(StatusCode::kShape,
                           "the loop ran 0 iterations, and the shape of scan output %zu (body output '%s', %s) cannot "
                           "be inferred without running the body, so its empty result has no shape",
                           k, o.name.c_str(), v != nullptr ? v->str().c_str() : "not inferred");
    piece = TensorShape{v->dtype, v->dims, 'c'};
  }
  if (piece.dims.size() >= kMaxRank)
    return Status::error(StatusCode::kShape, "scan output %zu: stacking values of rank %d goes past the maximum rank %d",
                         k, piece.dims.size(), kMaxRank);
  TensorShape stacked{piece.dtype, Dims{}, 'c'};
  stacked.dims.push_back(iterations);
  for (int d = 0; d < piece.dims.size(); ++d) stacked.dims.push_back(piece.dims[d]);
  if (!strides_fit(stacked.dims))
    return Status::error(StatusCode::kShape, "scan output %zu: %lld iterations of %s are too many elements", k,
                         static_cast<long long>(iterations), piece.str().c_str());
  RETURN_IF_ERROR(allocate(f, slot, stacked));
  NDArray& out = f.arrays[static_cast<size_t>(slot)];
  // Every row is written here, on the host: a pooled buffer's device copy
  // must not be synced back over the rows already copied.
  out.buffer()->mark_host_written();
  const size_t row_bytes = static_cast<size_t>(piece.dims.product()) * dtype_size(piece.dtype);
  char* rows = static_cast<char*>(out.data());
  for (int64_t i = 0; i < iterations; ++i) {
    const NDArray& v = kept[static_cast<size_t>(i)].array;
    if (row_bytes == 0) break;
    if (v.is_c_contiguous() && !v.buffer()->host_stale()) {
      std::memcpy(rows + static_cast<size_t>(i) * row_bytes, v.data(), row_bytes);
      continue;
    }
    NDArray row;  // strided, or computed on a device: assign syncs and walks the strides
    RETURN_IF_ERROR(out.slice(0, i, i + 1, 1, row));
    Status s = row.assign(v);
    if (!s.is_ok()) return s.with_prefix(str_format("scan output %zu, iteration %lld: ", k, static_cast<long long>(i)));
  }
  out.buffer()->mark_host_written();
  return Status::ok();
}

Status Session::Impl::run_main(Carried* inputs, int n) {
  // Outputs of the previous run go back to the pool unless the caller kept
  // a reference to them.
  release_all(outputs);
  live = 0;
  peak = 0;
  if (profiling)
    profile.reset(*graph);
  else
    profile.events.clear();
  profile.enabled = profiling;
  run_start = now_ns();
  Status s = check_device(device);
  if (!s.is_ok()) return s.with_prefix("graph: ");
  try {
    s = run_body(0, inputs, n, outputs);
  } catch (const std::bad_alloc&) {
    s = Status::error(StatusCode::kOutOfMemory, "graph: out of memory during the run");
  } catch (const std::exception& e) {
    s = Status::error(StatusCode::kInternal, "graph: unexpected error during the run: %s", e.what());
  }
  profile.run_ns = now_ns() - run_start;
  profile.peak_bytes = peak;
  if (!s.is_ok()) {
    for (auto& f : frames) clear_frame(*f);
    release_all(outputs);
  }
  return s;
}

// ---------------------------------------------------------------- Session

Session::Session(std::shared_ptr<const Graph> graph) : impl_(std::make_unique<Impl>(std::move(graph))) {}
Session::~Session() = default;

const Graph& Session::graph() const { return *impl_->graph; }
void Session::set_profiling(bool on) { impl_->profiling = on; }
bool Session::profiling() const { return impl_->profiling; }
void Session::set_seed(uint64_t seed) { impl_->seed = seed; }
void Session::set_loop_limit(int64_t max_iterations) { impl_->loop_limit = max_iterations < 0 ? 0 : max_iterations; }
void Session::cancel() { impl_->cancel_requested.store(true, std::memory_order_release); }
Device Session::device() const { return impl_->device; }
void Session::set_device(Device d) {
  impl_->device = d;
  for (int b = 0; b < impl_->graph->num_bodies(); ++b) impl_->frames[static_cast<size_t>(b)]->set_device(impl_->graph->body(b), d);
}

Status Session::run(const NDArray* const* inputs, int n_inputs) {
  if (inputs == nullptr && n_inputs > 0)
    return Status::error(StatusCode::kNullPointer, "graph: the input list is null");
  const Body& main = impl_->graph->main();
  std::vector<Carried>& fed = impl_->feeds;
  fed.assign(static_cast<size_t>(std::max(n_inputs, 0)), Carried{});
  for (int i = 0; i < n_inputs; ++i) {
    const GraphInput* in = static_cast<size_t>(i) < main.inputs.size() ? &main.inputs[static_cast<size_t>(i)] : nullptr;
    if (in != nullptr && kind_is_list(in->kind))
      return Status::error(StatusCode::kInvalidArgument,
                           "graph: input '%s' is a %s; feed it by name, as a list (Session::run(feeds))",
                           in->name.c_str(), value_kind_name(in->kind));
    if (inputs[i] == nullptr) {
      if (in != nullptr && in->kind == ValueKind::kOptionalTensor) continue;  // none
      return Status::error(StatusCode::kNullPointer, "graph: input '%s' is null",
                           in != nullptr ? in->name.c_str() : std::to_string(i).c_str());
    }
    fed[static_cast<size_t>(i)].array = *inputs[i];
  }
  ScopedThreads threads(impl_->threads);
  Status s = impl_->run_main(fed.data(), n_inputs);
  fed.clear();  // the caller's arrays are not held past the run
  return s;
}

void Session::set_threads(int n) { impl_->threads = n > 0 ? n : 0; }
int Session::threads() const { return impl_->threads; }

Status Session::run(const std::vector<Feed>& feeds) {
  const Body& main = impl_->graph->main();
  std::vector<Carried>& ordered = impl_->feeds;
  ordered.assign(main.inputs.size(), Carried{});
  std::vector<uint8_t> fed(main.inputs.size(), 0);
  for (const Feed& feed : feeds) {
    const int i = impl_->graph->find_input(feed.name);
    if (i < 0) {
      std::string names;
      for (const GraphInput& in : main.inputs) names += (names.empty() ? "" : ", ") + in.name;
      return Status::error(StatusCode::kInvalidArgument, "graph: no input named '%.*s' (inputs: %s)",
                           static_cast<int>(feed.name.size()), feed.name.data(),
                           names.empty() ? "none" : names.c_str());
    }
    const GraphInput& in = main.inputs[static_cast<size_t>(i)];
    if (fed[static_cast<size_t>(i)])
      return Status::error(StatusCode::kInvalidArgument, "graph: input '%.*s' is fed twice",
                           static_cast<int>(feed.name.size()), feed.name.data());
    fed[static_cast<size_t>(i)] = 1;
    Carried& value = ordered[static_cast<size_t>(i)];
    if (kind_is_list(in.kind)) {
      if (feed.array != nullptr)
        return Status::error(StatusCode::kInvalidArgument, "graph: input '%s' is a %s and was fed an array",
                             in.name.c_str(), value_kind_name(in.kind));
      if (feed.list != nullptr) {
        // Note [Sequence values]: a list of one dtype, taken as the run's own
        // (the element arrays are shared, not copied).
        auto list = std::make_shared<TensorList>(*feed.list);
        for (size_t e = 0; e < list->items.size(); ++e) {
          const NDArray& a = list->items[e];
          if (list->dtype == DataType::kInvalid) list->dtype = a.dtype();
          if (a.dtype() != list->dtype)
            return Status::error(StatusCode::kDtype, "graph: element %zu of input '%s' is %s; the sequence holds %s",
                                 e, in.name.c_str(), dtype_name(a.dtype()), dtype_name(list->dtype));
        }
        value.list = std::move(list);
      }
    } else {
      if (feed.list != nullptr)
        return Status::error(StatusCode::kInvalidArgument, "graph: input '%s' is a %s and was fed a list",
                             in.name.c_str(), value_kind_name(in.kind));
      if (feed.array == nullptr && in.kind == ValueKind::kTensor)
        return Status::error(StatusCode::kNullPointer, "graph: input '%.*s' is null",
                             static_cast<int>(feed.name.size()), feed.name.data());
      if (feed.array != nullptr) value.array = *feed.array;
    }
  }
  for (size_t i = 0; i < ordered.size(); ++i)
    if (!fed[i])
      return Status::error(StatusCode::kInvalidArgument, "graph: placeholder '%s' (%s%s) was not fed",
                           main.inputs[i].name.c_str(),
                           main.inputs[i].kind == ValueKind::kTensor ? "" : value_kind_name(main.inputs[i].kind),
                           main.inputs[i].kind == ValueKind::kTensor ? main.inputs[i].shape.str().c_str()
                                                                      : (" of " + main.inputs[i].shape.str()).c_str());
  ScopedThreads threads(impl_->threads);
  Status s = impl_->run_main(ordered.data(), static_cast<int>(ordered.size()));
  ordered.clear();
  return s;
}

int Session::num_outputs() const { return static_cast<int>(impl_->outputs.size()); }
const NDArray& Session::output(int index) const { return impl_->outputs[static_cast<size_t>(index)].array; }
const NDArray* Session::output(std::string_view name) const {
  const int i = impl_->graph->find_output(name);
  if (i < 0 || static_cast<size_t>(i) >= impl_->outputs.size()) return nullptr;
  return &impl_->outputs[static_cast<size_t>(i)].array;
}
ValueKind Session::output_kind(int index) const {
  const Body& main = impl_->graph->main();
  return index >= 0 && static_cast<size_t>(index) < main.outputs.size() ? main.outputs[static_cast<size_t>(index)].kind
                                                                         : ValueKind::kTensor;
}
const TensorList* Session::output_list(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= impl_->outputs.size()) return nullptr;
  return impl_->outputs[static_cast<size_t>(index)].list.get();
}
const Profile& Session::profile() const { return impl_->profile; }
int64_t Session::peak_bytes() const { return impl_->profile.peak_bytes; }
int64_t Session::pooled_bytes() const { return impl_->pool.pooled_bytes(); }

}  // namespace libops::graph
