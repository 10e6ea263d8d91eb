/* libops C API.
 *
 * Every function returns an ops_status_t (OPS_OK on success); on failure
 * ops_last_error() gives a message for the calling thread naming the op,
 * shapes and dtypes involved. No function throws or aborts, and a failed call
 * leaves the caller's arrays untouched (it may have written to outputs only
 * when the failure came from the op's compute step).
 *
 * Arrays are opaque handles; free each one you receive with ops_array_free.
 * Plain C11.
 *
 * Note [ABI]
 *  The shared library's SONAME carries the major version (libops.so.0). Within
 *  a major version, functions and enum values are only added, never removed,
 *  renamed or renumbered, and handles stay opaque, so a program built against
 *  an older 0.x header runs with a newer 0.y library. OPS_VERSION_* are the
 *  header's version; ops_version() is the loaded library's. Until 1.0 the
 *  minor version may also retire a function, said in the release notes.
 *  The structs below (ops_args_t, ops_op_info_t, ops_io_info_t,
 *  ops_arg_info_t; ops_value_info_t and ops_node_profile_t in c_graph.h)
 *  keep their 0.1 layout for the whole major version: a caller's struct
 *  is filled or read exactly as its header declared it. New facts come as
 *  new accessor functions (ops_graph_input_dim_name is one), never as new
 *  fields; tests_cpu/capi/abi_layout_test.cpp fails the build otherwise. */
#ifndef LIBOPS_C_API_H
#define LIBOPS_C_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libops/c_types.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libops.so (built with hidden visibility). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* The version of this header (CMakeLists.txt checks that they agree). */
#define OPS_VERSION_MAJOR 0
#define OPS_VERSION_MINOR 1
#define OPS_VERSION_PATCH 0

/* ---- library ---- */
const char* ops_version(void);      /* the library's "major.minor.patch" */
const char* ops_last_error(void);   /* message of this thread's last failure, "" after a success */
const char* ops_status_name(ops_status_t status);
const char* ops_dtype_name(ops_dtype_t dtype);
size_t ops_dtype_size(ops_dtype_t dtype); /* 0 for an invalid dtype */
void ops_set_num_threads(int n);    /* n <= 0: default (LIBOPS_NUM_THREADS or all cores) */
/* The device the calling thread's op calls (ops_exec*, ops_op_exec*,
 * ops_exec_legacy, ops_exec_random) run on: "cpu" (the default), "cuda" or
 * "cuda:N". Fails with OPS_ERR_DEVICE, saying why, when the device is not
 * usable (libops built without CUDA, no such GPU); the setting is then
 * unchanged. Arrays move to and from the device by themselves. */
ops_status_t ops_set_device(const char* device);
int ops_get_num_threads(void);

/* Loads a shared library of ops written with libops' op macros (built with
 * the installed CMake helper libops_add_op_library) and registers its ops,
 * which are then found by name like libops' own: by ops_op_find, in graphs,
 * and for ONNX nodes of a custom domain whose op type names them. Fails, naming
 * the library, when it cannot be loaded, registers no op, or declares an op
 * whose name is taken (ops it registered before that stay registered). Load
 * op libraries before running ops from other threads; a loaded library stays
 * loaded until the process ends. */
ops_status_t ops_load_op_library(const char* path);

/* ---- arrays ---- */
typedef struct ops_array ops_array_t;

/* Zero-filled array; order 'c' (row-major) or 'f'. */
ops_status_t ops_array_create(ops_dtype_t dtype, int rank, const int64_t* shape, char order, ops_array_t** out);
/* Array holding a copy of `bytes` bytes of dense row-major data. */
ops_status_t ops_array_create_from(ops_dtype_t dtype, int rank, const int64_t* shape, const void* data,
                                   size_t bytes, ops_array_t** out);
/* View of caller memory (no copy); the memory must outlive the handle.
 * strides are in elements, or NULL for dense row-major. */
ops_status_t ops_array_wrap(void* data, size_t bytes, ops_dtype_t dtype, int rank, const int64_t* shape,
                            const int64_t* strides, ops_array_t** out);
ops_status_t ops_array_scalar(ops_dtype_t dtype, double value, ops_array_t** out);
void ops_array_free(ops_array_t* array); /* NULL is ignored */
void ops_array_list_free(ops_array_t** arrays, int count); /* frees each handle and the list */

ops_status_t ops_array_dtype(const ops_array_t* array, ops_dtype_t* out);
ops_status_t ops_array_rank(const ops_array_t* array, int* out);
ops_status_t ops_array_shape(const ops_array_t* array, int64_t* out); /* rank entries */
ops_status_t ops_array_strides(const ops_array_t* array, int64_t* out); /* rank entries, in elements */
ops_status_t ops_array_length(const ops_array_t* array, int64_t* out);
/* Address of the first element (may be a strided view: see strides). */
ops_status_t ops_array_data(const ops_array_t* array, void** out);
/* Dense row-major copy of the elements into dst (bytes >= length * dtype size). */
ops_status_t ops_array_copy_to(const ops_array_t* array, void* dst, size_t bytes);

/* Zero-copy views (new handles sharing the data). */
ops_status_t ops_array_reshape(const ops_array_t* array, int rank, const int64_t* shape, ops_array_t** out);
ops_status_t ops_array_permute(const ops_array_t* array, const int64_t* axes, int n_axes, ops_array_t** out);
ops_status_t ops_array_slice(const ops_array_t* array, int axis, int64_t start, int64_t stop, int64_t step,
                             ops_array_t** out);

/* ---- declarable (custom) ops ---- */
typedef struct ops_op ops_op_t; /* an op in the registry; never freed */

/* Arguments of one call; any pointer may be NULL when its count is 0.
 * Pass NULL for "no arguments". */
typedef struct ops_args {
  const double* t_args;
  int n_t_args;
  const int64_t* i_args;
  int n_i_args;
  const bool* b_args;
  int n_b_args;
  const ops_dtype_t* d_args;
  int n_d_args;
  bool inplace; /* run in place: output 0 is input 0 (outputs must then be NULL/0) */
} ops_args_t;

ops_status_t ops_op_find(const char* name, ops_op_t** out); /* by name or alias */
ops_status_t ops_op_find_hash(uint64_t hash, ops_op_t** out);
/* Runs an op with caller-allocated outputs of the right shapes and dtypes. */
ops_status_t ops_op_exec(ops_op_t* op, ops_array_t* const* inputs, int n_inputs, ops_array_t* const* outputs,
                         int n_outputs, const ops_args_t* args);
/* Runs an op and allocates its outputs from its shape function; on success
 * *outputs is a new list of *n_outputs handles (free with ops_array_list_free). */
ops_status_t ops_op_exec_alloc(ops_op_t* op, ops_array_t* const* inputs, int n_inputs, const ops_args_t* args,
                               ops_array_t*** outputs, int* n_outputs);
/* The same, looking the op up by name. */
ops_status_t ops_exec(const char* name, ops_array_t* const* inputs, int n_inputs, ops_array_t* const* outputs,
                      int n_outputs, const ops_args_t* args);
ops_status_t ops_exec_alloc(const char* name, ops_array_t* const* inputs, int n_inputs, const ops_args_t* args,
                            ops_array_t*** outputs, int* n_outputs);

/* ---- legacy (XYZ) ops, by group and number ---- */
/* y: NULL unless the group takes it (scalar/pairwise/broadcast/reduce3).
 * axes: reduction axes (none = all), or for broadcast groups the dims of x
 * that y spans (none = numpy broadcasting). z is allocated by the caller;
 * for reductions its rank selects keep-dims. extra: op parameters. */
ops_status_t ops_exec_legacy(ops_legacy_group_t group, int op_num, const ops_array_t* x, const ops_array_t* y,
                             ops_array_t* z, const int64_t* axes, int n_axes, const double* extra, int n_extra);
/* Random ops: z[i] depends only on (seed, i, params); x and y are optional inputs. */
ops_status_t ops_exec_random(int op_num, uint64_t seed, const ops_array_t* x, const ops_array_t* y,
                             ops_array_t* z, const double* extra, int n_extra);
int ops_legacy_op_count(ops_legacy_group_t group);
ops_status_t ops_legacy_op_info(ops_legacy_group_t group, int index, int* op_num, const char** name);
ops_status_t ops_legacy_find(ops_legacy_group_t group, const char* name, int* op_num);
const char* ops_legacy_group_name(ops_legacy_group_t group);

/* ---- registry ---- */
typedef struct ops_op_info {
  const char* name;
  uint64_t hash;
  const char* kind;        /* "op", "configurable", "reduction", "custom", "boolean" */
  int num_inputs;          /* N exact; -1 one or more; -2 any */
  int num_outputs;
  int num_t_args;          /* N at least; -1 one or more; -2 any */
  int num_i_args;
  bool inplaceable;
  const char* input_types; /* e.g. "float16, bfloat16, float32, float64" for input 0 */
  const char* summary;     /* one line: what the op computes */
  int num_declared_inputs; /* entries for ops_op_input_info (the last may be variadic) */
  int num_declared_outputs;
  int num_args;            /* entries for ops_op_arg_info */
  bool any_device;         /* runs on every device (else the CPU only) */
} ops_op_info_t;

/* An input or output of an op, as its signature declares it. */
typedef struct ops_io_info {
  const char* name;
  const char* doc;
  const char* dtypes; /* "float32, float64", "any"; "" when the op does not say (outputs) */
  bool optional;      /* inputs: may be left out (with every later input) */
  bool variadic;      /* this and all later inputs/outputs */
} ops_io_info_t;

/* An argument of an op, as its signature declares it (docs/ops.md explains
 * the four positional lists). */
typedef struct ops_arg_info {
  const char* name;
  const char* doc;
  char kind;                 /* 't', 'i', 'b' or 'd' */
  int position;              /* among the args of its kind */
  bool is_list;              /* takes every arg of its kind from position on */
  bool required;
  const char* default_value; /* as text: "0", "1e-05", "true", "float32", "[]"; "" when required */
  const char* allowed;       /* "0 (NCHW) or 1 (NHWC)", ">= 1", ...; "" for any value */
  int from_input;            /* the input that may carry the values instead, or -1 */
} ops_arg_info_t;

int ops_registry_size(void);
/* Strings stay valid while the library is loaded. Index in name order. */
ops_status_t ops_registry_op_info(int index, ops_op_info_t* out);
ops_status_t ops_op_info(const ops_op_t* op, ops_op_info_t* out);
/* The signature of an op, entry `index` (0 .. count - 1 from ops_op_info). */
ops_status_t ops_op_input_info(const ops_op_t* op, int index, ops_io_info_t* out);
ops_status_t ops_op_output_info(const ops_op_t* op, int index, ops_io_info_t* out);
ops_status_t ops_op_arg_info(const ops_op_t* op, int index, ops_arg_info_t* out);
/* The whole op reference as one string: format "text" (what ops-run
 * --list-ops prints), "markdown" (docs/ops.md) or "json" (op signatures for
 * bindings), of the ops registered now (op libraries loaded since are in
 * the next call's text). Valid while the library is loaded. */
ops_status_t ops_registry_reference(const char* format, const char** out);
/* Problems found while ops registered (duplicates); count, then messages. */
int ops_registry_error_count(void);
const char* ops_registry_error(int index);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif
#endif /* LIBOPS_C_API_H */
