// The graph C API (include/libops/c_graph.h): a thin shell over Graph and
// Session. Each entry point checks its pointers, calls the C++ side and
// reports a Status through the same thread-local message as c_api.h;
// exceptions never cross it.
#include "libops/c_graph.h"

#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "graph/executor.h"
#include "libops/capi/c_api_internal.h"

using libops::NDArray;
using libops::Status;
using libops::StatusCode;
using libops::graph::Graph;
using libops::graph::Session;
using namespace libops::capi;

struct ops_graph {
  std::shared_ptr<const Graph> graph;
};

struct ops_graph_session {
  explicit ops_graph_session(std::shared_ptr<const Graph> g) : session(std::move(g)) {}
  Session session;
  std::vector<const NDArray*> feeds;
  // ops_graph_session_set_input_list's values for the next run, by input
  // index (Note [Sequence values] in graph/executor.h).
  struct ListFeed {
    bool set = false;
    bool present = false;
    libops::graph::TensorList list;
    NDArray array;  // an optional tensor's
  };
  std::vector<ListFeed> list_feeds;
  // Caches for the profile getters; cleared by each run.
  bool cache_valid = false;
  std::vector<const libops::graph::NodeProfile*> by_time;
  std::vector<std::string> shapes;
  std::string table;
};

#define CHECK_NOT_NULL(ptr, what)                                                            \
  do {                                                                                       \
    if ((ptr) == nullptr) return report_error(StatusCode::kNullPointer, "%s is null", what); \
  } while (0)

namespace {

void fill_info(const libops::graph::ValueShape& v, const std::string& name, ops_value_info_t* out) {
  out->name = name.c_str();
  out->dtype = static_cast<ops_dtype_t>(v.dtype);
  out->rank = v.rank_known ? v.dims.size() : -1;
  out->shape = v.dims.data();
}

void fill_cache(const ops_graph_session* s_const) {
  auto* s = const_cast<ops_graph_session*>(s_const);  // the caches are logically const
  if (s->cache_valid) return;
  const libops::graph::Profile& p = s->session.profile();
  s->by_time = p.enabled ? p.by_time() : std::vector<const libops::graph::NodeProfile*>{};
  s->shapes.clear();
  for (const auto* n : s->by_time) s->shapes.push_back(n->shapes_str());
  s->table = p.table();
  s->cache_valid = true;
}

}  // namespace

extern "C" ops_status_t ops_graph_load_file(const char* path, ops_graph_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_graph_load_file: out");
    *out = nullptr;
    CHECK_NOT_NULL(path, "ops_graph_load_file: path");
    std::shared_ptr<const Graph> g;
    Status s = Graph::load_file(path, g);
    if (!s.is_ok()) return report(s);
    *out = new ops_graph{std::move(g)};
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_graph_load_buffer(const void* data, size_t size, unsigned flags, ops_graph_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_graph_load_buffer: out");
    *out = nullptr;
    if (data == nullptr && size > 0)
      return report_error(StatusCode::kNullPointer, "ops_graph_load_buffer: data is null");
    if (flags & ~OPS_GRAPH_BORROW_BUFFER)
      return report_error(StatusCode::kInvalidArgument, "ops_graph_load_buffer: unknown flags 0x%x",
                          flags & ~OPS_GRAPH_BORROW_BUFFER);
    libops::graph::LoadOptions options;
    options.borrow_buffer = (flags & OPS_GRAPH_BORROW_BUFFER) != 0;
    std::shared_ptr<const Graph> g;
    Status s = Graph::load_buffer(data, size, options, g);
    if (!s.is_ok()) return report(s);
    *out = new ops_graph{std::move(g)};
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" void ops_graph_free(ops_graph_t* graph) { delete graph; }

extern "C" int ops_graph_input_count(const ops_graph_t* graph) {
  return graph ? static_cast<int>(graph->graph->main().inputs.size()) : 0;
}

extern "C" int ops_graph_output_count(const ops_graph_t* graph) {
  return graph ? static_cast<int>(graph->graph->main().outputs.size()) : 0;
}

extern "C" ops_status_t ops_graph_input_info(const ops_graph_t* graph, int index, ops_value_info_t* out) try {
  CHECK_NOT_NULL(graph, "ops_graph_input_info: graph");
  CHECK_NOT_NULL(out, "ops_graph_input_info: out");
  const auto& inputs = graph->graph->main().inputs;
  if (index < 0 || static_cast<size_t>(index) >= inputs.size())
    return report_error(StatusCode::kInvalidArgument, "ops_graph_input_info: index %d is out of range 0..%zu", index,
                        inputs.size());
  fill_info(inputs[static_cast<size_t>(index)].shape, inputs[static_cast<size_t>(index)].name, out);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_input_dim_name(const ops_graph_t* graph, int index, int dim, const char** out) try {
  CHECK_NOT_NULL(graph, "ops_graph_input_dim_name: graph");
  CHECK_NOT_NULL(out, "ops_graph_input_dim_name: out");
  *out = nullptr;
  const auto& inputs = graph->graph->main().inputs;
  if (index < 0 || static_cast<size_t>(index) >= inputs.size())
    return report_error(StatusCode::kInvalidArgument, "ops_graph_input_dim_name: index %d is out of range 0..%zu",
                        index, inputs.size());
  const libops::graph::GraphInput& in = inputs[static_cast<size_t>(index)];
  const int rank = in.shape.rank_known ? in.shape.dims.size() : -1;
  if (dim < 0 || dim >= rank)
    return report_error(StatusCode::kInvalidArgument, "ops_graph_input_dim_name: dim %d is out of range for input "
                                                      "'%s' of rank %d", dim, in.name.c_str(), rank);
  static const std::string kNone;
  *out = static_cast<size_t>(dim) < in.dim_names.size() ? in.dim_names[static_cast<size_t>(dim)].c_str() : kNone.c_str();
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_output_info(const ops_graph_t* graph, int index, ops_value_info_t* out) try {
  CHECK_NOT_NULL(graph, "ops_graph_output_info: graph");
  CHECK_NOT_NULL(out, "ops_graph_output_info: out");
  const auto& outputs = graph->graph->main().outputs;
  if (index < 0 || static_cast<size_t>(index) >= outputs.size())
    return report_error(StatusCode::kInvalidArgument, "ops_graph_output_info: index %d is out of range 0..%zu", index,
                        outputs.size());
  fill_info(outputs[static_cast<size_t>(index)].shape, outputs[static_cast<size_t>(index)].name, out);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

namespace {

ops_status_t kind_of(const std::vector<libops::graph::GraphInput>* inputs,
                     const std::vector<libops::graph::GraphOutput>* outputs, int index, const char* what,
                     ops_value_kind_t* out) {
  const size_t n = inputs ? inputs->size() : outputs->size();
  if (index < 0 || static_cast<size_t>(index) >= n)
    return report_error(StatusCode::kInvalidArgument, "%s: index %d is out of range 0..%zu", what, index, n);
  const auto k = inputs ? (*inputs)[static_cast<size_t>(index)].kind : (*outputs)[static_cast<size_t>(index)].kind;
  *out = static_cast<ops_value_kind_t>(k);
  return report(Status::ok());
}

}  // namespace

extern "C" ops_status_t ops_graph_input_kind(const ops_graph_t* graph, int index, ops_value_kind_t* out) try {
  CHECK_NOT_NULL(graph, "ops_graph_input_kind: graph");
  CHECK_NOT_NULL(out, "ops_graph_input_kind: out");
  return kind_of(&graph->graph->main().inputs, nullptr, index, "ops_graph_input_kind", out);
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_output_kind(const ops_graph_t* graph, int index, ops_value_kind_t* out) try {
  CHECK_NOT_NULL(graph, "ops_graph_output_kind: graph");
  CHECK_NOT_NULL(out, "ops_graph_output_kind: out");
  return kind_of(nullptr, &graph->graph->main().outputs, index, "ops_graph_output_kind", out);
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_config(const ops_graph_t* graph, const char** device, int* threads, bool* profiling) try {
  CHECK_NOT_NULL(graph, "ops_graph_config: graph");
  const auto& c = graph->graph->config();
  if (device) *device = c.device.c_str();
  if (threads) *threads = c.threads;
  if (profiling) *profiling = c.profiling;
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" int ops_graph_rewrite_count(const ops_graph_t* graph) {
  return graph ? static_cast<int>(graph->graph->rewrites().size()) : 0;
}

extern "C" ops_status_t ops_graph_rewrite(const ops_graph_t* graph, int index, const char** out) try {
  CHECK_NOT_NULL(graph, "ops_graph_rewrite: graph");
  CHECK_NOT_NULL(out, "ops_graph_rewrite: out");
  const auto& lines = graph->graph->rewrites();
  if (index < 0 || static_cast<size_t>(index) >= lines.size())
    return report_error(StatusCode::kInvalidArgument, "ops_graph_rewrite: index %d is out of range 0..%zu", index,
                        lines.size());
  *out = lines[static_cast<size_t>(index)].c_str();
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_create(const ops_graph_t* graph, ops_graph_session_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_graph_session_create: out");
    *out = nullptr;
    CHECK_NOT_NULL(graph, "ops_graph_session_create: graph");
    *out = new ops_graph_session(graph->graph);
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" void ops_graph_session_free(ops_graph_session_t* session) { delete session; }

extern "C" ops_status_t ops_graph_session_set_profiling(ops_graph_session_t* session, bool on) try {
  CHECK_NOT_NULL(session, "ops_graph_session_set_profiling: session");
  session->session.set_profiling(on);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_set_threads(ops_graph_session_t* session, int threads) try {
  CHECK_NOT_NULL(session, "ops_graph_session_set_threads: session");
  if (threads < 0)
    return report_error(StatusCode::kInvalidArgument, "ops_graph_session_set_threads: threads is %d; 0 or more",
                        threads);
  session->session.set_threads(threads);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_set_seed(ops_graph_session_t* session, uint64_t seed) try {
  CHECK_NOT_NULL(session, "ops_graph_session_set_seed: session");
  session->session.set_seed(seed);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_set_loop_limit(ops_graph_session_t* session, int64_t max_iterations) try {
  CHECK_NOT_NULL(session, "ops_graph_session_set_loop_limit: session");
  if (max_iterations < 0)
    return report(Status::error(StatusCode::kInvalidArgument,
                                "ops_graph_session_set_loop_limit: max_iterations %lld is negative (0: no limit)",
                                static_cast<long long>(max_iterations)));
  session->session.set_loop_limit(max_iterations);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_cancel(ops_graph_session_t* session) try {
  CHECK_NOT_NULL(session, "ops_graph_session_cancel: session");
  session->session.cancel();
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_set_device(ops_graph_session_t* session, const char* device) try {
  CHECK_NOT_NULL(session, "ops_graph_session_set_device: session");
  CHECK_NOT_NULL(device, "ops_graph_session_set_device: device");
  libops::Device d;
  Status s = libops::Device::parse(device, d);
  if (s.is_ok()) s = libops::check_device(d);
  if (!s.is_ok()) return report(s.with_prefix("ops_graph_session_set_device: "));
  session->session.set_device(d);
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_run(ops_graph_session_t* session, const char* const* names,
                                      const ops_array_t* const* inputs, int n_inputs) {
  try {
    CHECK_NOT_NULL(session, "ops_graph_run: session");
    session->cache_valid = false;
    if (n_inputs < 0) return report_error(StatusCode::kInvalidArgument, "ops_graph_run: n_inputs is %d", n_inputs);
    if (n_inputs > 0) {
      CHECK_NOT_NULL(names, "ops_graph_run: names");
      CHECK_NOT_NULL(inputs, "ops_graph_run: inputs");
    }
    const Graph& g = session->session.graph();
    const auto& declared = g.main().inputs;
    std::vector<const NDArray*>& feeds = session->feeds;
    feeds.assign(declared.size(), nullptr);
    // The list feeds last for this run only, whatever it returns.
    std::vector<ops_graph_session::ListFeed> lists;
    lists.swap(session->list_feeds);
    lists.resize(declared.size());
    for (int i = 0; i < n_inputs; ++i) {
      if (names[i] == nullptr) return report_error(StatusCode::kNullPointer, "ops_graph_run: names[%d] is null", i);
      if (inputs[i] == nullptr)
        return report_error(StatusCode::kNullPointer, "ops_graph_run: input '%s' (inputs[%d]) is null", names[i], i);
      const int k = g.find_input(names[i]);
      if (k < 0) {
        std::string list;
        for (const auto& in : declared) list += (list.empty() ? "" : ", ") + in.name;
        return report_error(StatusCode::kInvalidArgument, "ops_graph_run: the graph has no input '%s' (inputs: %s)",
                            names[i], list.empty() ? "none" : list.c_str());
      }
      if (feeds[static_cast<size_t>(k)] != nullptr || lists[static_cast<size_t>(k)].set)
        return report_error(StatusCode::kInvalidArgument, "ops_graph_run: input '%s' is fed twice", names[i]);
      feeds[static_cast<size_t>(k)] = &inputs[i]->array;
    }
    bool any_list = false;
    for (size_t k = 0; k < feeds.size(); ++k) {
      any_list = any_list || lists[k].set;
      if (feeds[k] == nullptr && !lists[k].set)
        return report_error(StatusCode::kInvalidArgument, "ops_graph_run: placeholder '%s' (%s) was not fed",
                            declared[k].name.c_str(), declared[k].shape.str().c_str());
    }
    if (!any_list) return report(session->session.run(feeds.data(), static_cast<int>(feeds.size())));
    std::vector<Session::Feed> named;
    for (size_t k = 0; k < feeds.size(); ++k) {
      Session::Feed f{declared[k].name, feeds[k], nullptr};
      const ops_graph_session::ListFeed& l = lists[k];
      if (l.set && l.present) {
        if (libops::graph::kind_is_list(declared[k].kind)) f.list = &l.list;
        else f.array = &l.array;
      }
      named.push_back(f);
    }
    return report(session->session.run(named));
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_graph_session_set_input_list(ops_graph_session_t* session, const char* name,
                                                        const ops_array_t* const* elements, int n, bool present) try {
  CHECK_NOT_NULL(session, "ops_graph_session_set_input_list: session");
  CHECK_NOT_NULL(name, "ops_graph_session_set_input_list: name");
  const Graph& g = session->session.graph();
  const int k = g.find_input(name);
  if (k < 0)
    return report_error(StatusCode::kInvalidArgument, "ops_graph_session_set_input_list: the graph has no input '%s'",
                        name);
  const libops::graph::GraphInput& in = g.main().inputs[static_cast<size_t>(k)];
  const auto kind = in.kind;
  if (kind == libops::graph::ValueKind::kTensor)
    return report_error(StatusCode::kInvalidArgument,
                        "ops_graph_session_set_input_list: input '%s' is a tensor; feed it with ops_graph_run", name);
  if (!present && !libops::graph::kind_is_optional(kind))
    return report_error(StatusCode::kInvalidArgument,
                        "ops_graph_session_set_input_list: input '%s' is a sequence, not an optional: it cannot be none",
                        name);
  if (present) {
    if (n < 0) return report_error(StatusCode::kInvalidArgument, "ops_graph_session_set_input_list: n is %d", n);
    if (n > 0) CHECK_NOT_NULL(elements, "ops_graph_session_set_input_list: elements");
    if (kind == libops::graph::ValueKind::kOptionalTensor && n != 1)
      return report_error(StatusCode::kInvalidArgument,
                          "ops_graph_session_set_input_list: input '%s' is an optional tensor: give one array, not %d",
                          name, n);
    for (int i = 0; i < n; ++i)
      if (elements[i] == nullptr)
        return report_error(StatusCode::kNullPointer, "ops_graph_session_set_input_list: elements[%d] is null", i);
  }
  session->list_feeds.resize(g.main().inputs.size());
  ops_graph_session::ListFeed& f = session->list_feeds[static_cast<size_t>(k)];
  f = ops_graph_session::ListFeed{};
  f.set = true;
  f.present = present;
  if (present && kind == libops::graph::ValueKind::kOptionalTensor) {
    f.array = elements[0]->array;
  } else if (present) {
    for (int i = 0; i < n; ++i) f.list.items.push_back(elements[i]->array);
  }
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

namespace {

// Output `index` of the last run, or an error naming `what`.
Status last_output(const ops_graph_session_t* session, int index, const char* what) {
  const int n = session->session.num_outputs();
  if (index < 0 || index >= n)
    return Status::error(StatusCode::kInvalidArgument, "%s: index %d is out of range (the last run gave %d outputs)",
                         what, index, n);
  return Status::ok();
}

// Output `index` (in range) holds an array: not a sequence, nor an empty optional.
Status tensor_output(const ops_graph_session_t* session, int index, const char* what) {
  const std::string& name = session->session.graph().main().outputs[static_cast<size_t>(index)].name;
  if (libops::graph::kind_is_list(session->session.output_kind(index)))
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: output '%s' is a sequence: read it with ops_graph_session_output_list_item", what,
                         name.c_str());
  if (session->session.output(index).is_null())
    return Status::error(StatusCode::kInvalidArgument, "%s: output '%s' is an empty optional", what, name.c_str());
  return Status::ok();
}

#define RETURN_IF_ERROR_REPORTED(expr)      \
  do {                                      \
    Status s_ = (expr);                     \
    if (!s_.is_ok()) return report(s_);     \
  } while (0)

}  // namespace

extern "C" ops_status_t ops_graph_session_output_present(const ops_graph_session_t* session, int index,
                                                        bool* out) try {
  CHECK_NOT_NULL(out, "ops_graph_session_output_present: out");
  CHECK_NOT_NULL(session, "ops_graph_session_output_present: session");
  Status s = last_output(session, index, "ops_graph_session_output_present");
  if (!s.is_ok()) return report(s);
  *out = libops::graph::kind_is_list(session->session.output_kind(index))
             ? session->session.output_list(index) != nullptr
             : !session->session.output(index).is_null();
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_output_list_size(const ops_graph_session_t* session, int index,
                                                          int64_t* out) try {
  CHECK_NOT_NULL(out, "ops_graph_session_output_list_size: out");
  CHECK_NOT_NULL(session, "ops_graph_session_output_list_size: session");
  Status s = last_output(session, index, "ops_graph_session_output_list_size");
  if (!s.is_ok()) return report(s);
  const libops::graph::TensorList* l = session->session.output_list(index);
  if (l == nullptr)
    return report_error(StatusCode::kInvalidArgument, "ops_graph_session_output_list_size: output %d is %s", index,
                        libops::graph::kind_is_list(session->session.output_kind(index)) ? "an empty optional"
                                                                                          : "not a sequence");
  *out = static_cast<int64_t>(l->items.size());
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_output_list_item(const ops_graph_session_t* session, int index, int64_t item,
                                                          ops_array_t** out) try {
  CHECK_NOT_NULL(out, "ops_graph_session_output_list_item: out");
  *out = nullptr;
  CHECK_NOT_NULL(session, "ops_graph_session_output_list_item: session");
  Status s = last_output(session, index, "ops_graph_session_output_list_item");
  if (!s.is_ok()) return report(s);
  const libops::graph::TensorList* l = session->session.output_list(index);
  if (l == nullptr)
    return report_error(StatusCode::kInvalidArgument, "ops_graph_session_output_list_item: output %d is %s", index,
                        libops::graph::kind_is_list(session->session.output_kind(index)) ? "an empty optional"
                                                                                          : "not a sequence");
  if (item < 0 || item >= static_cast<int64_t>(l->items.size()))
    return report_error(StatusCode::kInvalidArgument,
                        "ops_graph_session_output_list_item: item %lld is out of range (the sequence holds %zu)",
                        static_cast<long long>(item), l->items.size());
  *out = new ops_array_t{l->items[static_cast<size_t>(item)]};
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" ops_status_t ops_graph_session_output_at(const ops_graph_session_t* session, int index, ops_array_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_graph_session_output_at: out");
    *out = nullptr;
    CHECK_NOT_NULL(session, "ops_graph_session_output_at: session");
    const int n = session->session.num_outputs();
    if (index < 0 || index >= n)
      return report_error(StatusCode::kInvalidArgument,
                          "ops_graph_session_output_at: index %d is out of range (the last run gave %d outputs)", index,
                          n);
    RETURN_IF_ERROR_REPORTED(tensor_output(session, index, "ops_graph_session_output_at"));
    *out = new ops_array_t{session->session.output(index)};
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_graph_session_output(const ops_graph_session_t* session, const char* name,
                                                 ops_array_t** out) {
  try {
    CHECK_NOT_NULL(out, "ops_graph_session_output: out");
    *out = nullptr;
    CHECK_NOT_NULL(session, "ops_graph_session_output: session");
    CHECK_NOT_NULL(name, "ops_graph_session_output: name");
    const int k = session->session.graph().find_output(name);
    if (k < 0)
      return report_error(StatusCode::kInvalidArgument, "ops_graph_session_output: the graph has no output '%s'", name);
    if (k >= session->session.num_outputs())
      return report_error(StatusCode::kInvalidArgument,
                          "ops_graph_session_output: no outputs yet (the session has no successful run)");
    RETURN_IF_ERROR_REPORTED(tensor_output(session, k, "ops_graph_session_output"));
    *out = new ops_array_t{session->session.output(k)};
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_graph_session_last_run(const ops_graph_session_t* session, int64_t* run_ns,
                                                   int64_t* peak_bytes) try {
  CHECK_NOT_NULL(session, "ops_graph_session_last_run: session");
  if (run_ns) *run_ns = session->session.profile().run_ns;
  if (peak_bytes) *peak_bytes = session->session.profile().peak_bytes;
  return report(Status::ok());
} catch (...) {
  return report_exception();
}

extern "C" int ops_graph_session_profile_count(const ops_graph_session_t* session) {
  if (session == nullptr) return 0;
  try {
    fill_cache(session);
    return static_cast<int>(session->by_time.size());
  } catch (...) {
    report_exception();
    return 0;
  }
}

extern "C" ops_status_t ops_graph_session_profile_node(const ops_graph_session_t* session, int index,
                                                       ops_node_profile_t* out) {
  try {
    CHECK_NOT_NULL(session, "ops_graph_session_profile_node: session");
    CHECK_NOT_NULL(out, "ops_graph_session_profile_node: out");
    fill_cache(session);
    if (index < 0 || static_cast<size_t>(index) >= session->by_time.size())
      return report_error(StatusCode::kInvalidArgument,
                          "ops_graph_session_profile_node: index %d is out of range 0..%zu", index,
                          session->by_time.size());
    const auto* n = session->by_time[static_cast<size_t>(index)];
    out->node_id = n->id;
    out->node_name = n->name.c_str();
    out->op = n->op.c_str();
    out->graph_name = n->graph_name.c_str();
    out->calls = n->calls;
    out->total_ns = n->total_ns;
    out->bytes_allocated = n->bytes;
    out->output_shapes = session->shapes[static_cast<size_t>(index)].c_str();
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_graph_session_profile_table(const ops_graph_session_t* session, const char** out) {
  try {
    CHECK_NOT_NULL(session, "ops_graph_session_profile_table: session");
    CHECK_NOT_NULL(out, "ops_graph_session_profile_table: out");
    fill_cache(session);
    *out = session->table.c_str();
    return report(Status::ok());
  } catch (...) {
    return report_exception();
  }
}

extern "C" ops_status_t ops_graph_session_write_trace(const ops_graph_session_t* session, const char* path) {
  try {
    CHECK_NOT_NULL(session, "ops_graph_session_write_trace: session");
    CHECK_NOT_NULL(path, "ops_graph_session_write_trace: path");
    return report(session->session.profile().write_chrome_trace(path));
  } catch (...) {
    return report_exception();
  }
}
