/* libops graph C API: load a serialized graph (schemas/graph.fbs), list its
 * inputs and outputs, run it, read outputs and the last run's profile.
 *
 * Same rules as c_api.h: every function returns an ops_status_t (OPS_OK on
 * success) and on failure ops_last_error() gives this thread's message;
 * nothing throws or aborts. Errors from a node read
 * "node <id> '<name>' (op <op>): <message>".
 *
 * Two handles:
 *  - ops_graph_t: a loaded graph. Immutable: any number of threads may use
 *    one graph at once (each through its own session).
 *  - ops_graph_session_t: the state of runs on one thread (reusable
 *    buffers, the last outputs and profile). Use one session from one
 *    thread at a time; create one per thread to run a graph concurrently.
 *    A session keeps its graph alive, so the graph handle may be freed
 *    first.
 *
 * Typical use:
 *   ops_graph_t* g;  ops_graph_load_file("model.lops", &g);
 *   ops_graph_session_t* s;  ops_graph_session_create(g, &s);
 *   const char* names[] = {"x"};  ops_array_t* inputs[] = {x};
 *   ops_graph_run(s, names, inputs, 1);
 *   ops_array_t* y;  ops_graph_session_output(s, "y", &y);  ... ops_array_free(y);
 *   ops_graph_session_free(s);  ops_graph_free(g);
 * Plain C11. */
#ifndef LIBOPS_C_GRAPH_H
#define LIBOPS_C_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libops/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libops.so (built with hidden visibility). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef struct ops_graph ops_graph_t;
typedef struct ops_graph_session ops_graph_session_t;

/* ---- loading ---- */

/* ops_graph_load_buffer flag: the caller keeps `data` alive and unchanged
 * for as long as the graph (and every session of it) lives, so constants
 * whose data is 64-byte aligned in it are used in place, without a copy.
 * Without it (or when `data` is not 8-byte aligned) the buffer is copied
 * once. */
#define OPS_GRAPH_BORROW_BUFFER 1u

/* The file is read into a 64-byte aligned block owned by the graph; its
 * constants are used in place. */
ops_status_t ops_graph_load_file(const char* path, ops_graph_t** out);
ops_status_t ops_graph_load_buffer(const void* data, size_t size, unsigned flags, ops_graph_t** out);
void ops_graph_free(ops_graph_t* graph); /* NULL is ignored */

/* ---- ONNX import ----
 *
 * ops_graph_load_file also takes .onnx files (by name, or by content when
 * the file lacks the libops identifier): they are converted and loaded as
 * below. The importer maps each node through one table (docs/onnx.md); a
 * node it cannot map exactly fails the conversion with OPS_ERR_NOT_IMPLEMENTED
 * and a message naming the node, its op type, the opset and the attribute.
 *
 * ops_onnx_convert_file / _buffer: the libops graph file (.lops bytes) of an
 * ONNX model, in a block the caller frees with ops_onnx_free. External
 * tensor data is read relative to the model's folder (file) or `base_dir`
 * (buffer; NULL refuses external data). */
ops_status_t ops_onnx_convert_file(const char* path, void** out_data, size_t* out_size);
ops_status_t ops_onnx_convert_buffer(const void* data, size_t size, const char* base_dir, void** out_data,
                                     size_t* out_size);
void ops_onnx_free(void* data); /* NULL is ignored */
/* Every problem that stops a model from converting, one per line ("" when
 * it converts). OPS_OK whenever the list could be made; the text stays valid
 * until this thread's next call of it. */
ops_status_t ops_onnx_list_unsupported(const char* path, const char** out_text);
/* docs/onnx.md: every ONNX operator, supported or not, as markdown. */
ops_status_t ops_onnx_coverage(const char** out_markdown);
/* What an ONNX model declares, read without converting or running it: its
 * IR version, producer, opsets (the default domain's and others'), and
 * each graph input and output with its dtype and dims (symbolic ones by
 * name, "?" where unnamed), one per line. The text stays valid until this
 * thread's next call of it. */
ops_status_t ops_onnx_describe(const char* path, const char** out_text);

/* ---- inputs and outputs of the graph ---- */

typedef struct ops_value_info {
  const char* name;
  ops_dtype_t dtype;    /* OPS_DTYPE_INVALID when not known before a run */
  int rank;             /* -1 when not known before a run */
  const int64_t* shape; /* rank entries; -1 for an extent known only at run time */
} ops_value_info_t;
/* Strings and shapes stay valid while the graph lives. Inputs are in feed
 * order; output shapes come from shape inference at load. */
int ops_graph_input_count(const ops_graph_t* graph);
ops_status_t ops_graph_input_info(const ops_graph_t* graph, int index, ops_value_info_t* out);
int ops_graph_output_count(const ops_graph_t* graph);
ops_status_t ops_graph_output_info(const ops_graph_t* graph, int index, ops_value_info_t* out);
/* The symbolic name of extent `dim` of input `index` ("batch", "height": an
 * ONNX model's dim_param), "" where the graph gives none. The string stays
 * valid while the graph lives. An accessor rather than a field of
 * ops_value_info_t, whose layout callers compiled against this header
 * rely on. */
ops_status_t ops_graph_input_dim_name(const ops_graph_t* graph, int index, int dim, const char** out);
/* The graph's stored configuration (threads 0 = library default; device
 * "" = default). */
ops_status_t ops_graph_config(const ops_graph_t* graph, const char** device, int* threads, bool* profiling);
/* The rewrites the loader applied to the graph (folds and fusions, none
 * when loaded with rewrites off), one line each in the order applied, e.g.
 * "node 9 'relu1' (relu) fused into node 3 'conv1' (conv2d)". The strings
 * stay valid while the graph lives. */
int ops_graph_rewrite_count(const ops_graph_t* graph);
ops_status_t ops_graph_rewrite(const ops_graph_t* graph, int index, const char** out);

/* ---- running ---- */

ops_status_t ops_graph_session_create(const ops_graph_t* graph, ops_graph_session_t** out);
void ops_graph_session_free(ops_graph_session_t* session); /* NULL is ignored */
/* Per-node times for the next runs (default: the graph's configuration). */
ops_status_t ops_graph_session_set_profiling(ops_graph_session_t* session, bool on);
/* Seed for random nodes that carry none (default 0). */
ops_status_t ops_graph_session_set_seed(ops_graph_session_t* session, uint64_t seed);
/* Kernel threads for this session's runs, whatever ops_set_num_threads says
 * (0, the default: follow it). Sessions of different counts may run at
 * once. Negative is OPS_ERR_INVALID_ARGUMENT. */
ops_status_t ops_graph_session_set_threads(ops_graph_session_t* session, int threads);
/* Where the session's nodes run unless a node names its own device: "cpu",
 * "cuda" or "cuda:N" (default: the graph's configured device, else the CPU).
 * OPS_ERR_DEVICE, saying why, when the device is not usable here. */
ops_status_t ops_graph_session_set_device(ops_graph_session_t* session, const char* device);

/* The most iterations one While node may run in this session's runs
 * (0, the default: no limit). A loop that wants more stops the run with
 * OPS_ERR_LIMIT naming the node; the session stays usable. Negative is
 * OPS_ERR_INVALID_ARGUMENT. */
ops_status_t ops_graph_session_set_loop_limit(ops_graph_session_t* session, int64_t max_iterations);
/* Stops the session's run in progress at its next node boundary (or While
 * iteration): that ops_graph_run returns OPS_ERR_CANCELLED and the session
 * stays usable. The one call that may come from another thread while the
 * session runs. With no run in progress, the next run stops before its
 * first node. A node already computing finishes first. */
ops_status_t ops_graph_session_cancel(ops_graph_session_t* session);

/* Runs the graph. names[i] names the input that inputs[i] feeds; every
 * input must be fed exactly once, with its placeholder's dtype and every
 * extent it declares. The arrays are not copied or changed. */
ops_status_t ops_graph_run(ops_graph_session_t* session, const char* const* names, const ops_array_t* const* inputs,
                           int n_inputs);

/* Outputs of the last successful run, as new handles sharing the data (free
 * each with ops_array_free; they stay valid after later runs). */
ops_status_t ops_graph_session_output(const ops_graph_session_t* session, const char* name, ops_array_t** out);
ops_status_t ops_graph_session_output_at(const ops_graph_session_t* session, int index, ops_array_t** out);

/* ---- sequences and optionals ----
 * A graph input or output may hold a sequence (a list of arrays of one
 * dtype, shapes free) or an optional (an array or a sequence, or none), as
 * ONNX models' do. For those, ops_value_info_t's dtype and shape describe
 * each array held. */
typedef enum ops_value_kind {
  OPS_VALUE_TENSOR = 0,
  OPS_VALUE_SEQUENCE = 1,
  OPS_VALUE_OPTIONAL_TENSOR = 2,
  OPS_VALUE_OPTIONAL_SEQUENCE = 3
} ops_value_kind_t;
ops_status_t ops_graph_input_kind(const ops_graph_t* graph, int index, ops_value_kind_t* out);
ops_status_t ops_graph_output_kind(const ops_graph_t* graph, int index, ops_value_kind_t* out);
/* Feeds input `name` of the session's next ops_graph_run (and only that
 * run; ops_graph_run's names then leave it out): a sequence input the n
 * arrays of `elements` (not copied; they must stay alive during the run), an
 * optional one those (one array for an optional tensor) when present is
 * true, or none when it is false (elements and n are then ignored). */
ops_status_t ops_graph_session_set_input_list(ops_graph_session_t* session, const char* name,
                                              const ops_array_t* const* elements, int n, bool present);
/* Output `index` of the last run: whether it holds a value (false only for
 * an empty optional), and for a sequence its length and element `item` as a
 * new handle (free it with ops_array_free). ops_graph_session_output_at
 * gives a tensor or a present optional tensor. */
ops_status_t ops_graph_session_output_present(const ops_graph_session_t* session, int index, bool* out);
ops_status_t ops_graph_session_output_list_size(const ops_graph_session_t* session, int index, int64_t* out);
ops_status_t ops_graph_session_output_list_item(const ops_graph_session_t* session, int index, int64_t item,
                                                ops_array_t** out);

/* ---- profile of the last run ---- */

typedef struct ops_node_profile {
  uint32_t node_id;
  const char* node_name;
  const char* op;            /* "matmul", "pairwise/add", "if", "while" */
  const char* graph_name;    /* "main" or the subgraph's name */
  int64_t calls;             /* > 1 inside loops */
  int64_t total_ns;          /* wall time over all calls */
  int64_t bytes_allocated;   /* for the node's outputs, over all calls */
  const char* output_shapes; /* of the last call, e.g. "float32[1,10]" */
} ops_node_profile_t;

/* Run time and the most bytes the executor held at once (always kept). */
ops_status_t ops_graph_session_last_run(const ops_graph_session_t* session, int64_t* run_ns, int64_t* peak_bytes);
/* Nodes that ran, slowest first; empty unless profiling was on. Strings stay
 * valid until the next run of the session. */
int ops_graph_session_profile_count(const ops_graph_session_t* session);
ops_status_t ops_graph_session_profile_node(const ops_graph_session_t* session, int index, ops_node_profile_t* out);
/* A printable table sorted by time; valid until the next run. */
ops_status_t ops_graph_session_profile_table(const ops_graph_session_t* session, const char** out);
/* Chrome trace JSON (chrome://tracing, Perfetto) of the last run. */
ops_status_t ops_graph_session_write_trace(const ops_graph_session_t* session, const char* path);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* LIBOPS_C_GRAPH_H */
