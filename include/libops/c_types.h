/* libops: enums shared by the C API, the C++ core and the graph format.
 *
 * Numbers here are part of the ABI and of the serialized graph format: never
 * renumber or reuse a value; retire it instead. Plain C.
 *
 * The enums a caller passes in (ops_dtype_t, ops_legacy_group_t) end in two
 * sentinels that are never valid values: they make every 32-bit int a value
 * the enum can hold, so a C++ library that receives 99 or -1 can read it and
 * reject it with an error, where C++ would otherwise call loading it
 * undefined behaviour. They also fix the enums' size at 32 bits. */
#ifndef LIBOPS_C_TYPES_H
#define LIBOPS_C_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Element types. */
typedef enum ops_dtype {
  OPS_DTYPE_INVALID = 0,
  OPS_DTYPE_BOOL = 1,
  OPS_DTYPE_INT8 = 2,
  OPS_DTYPE_INT16 = 3,
  OPS_DTYPE_INT32 = 4,
  OPS_DTYPE_INT64 = 5,
  OPS_DTYPE_UINT8 = 6,
  OPS_DTYPE_UINT16 = 7,
  OPS_DTYPE_UINT32 = 8,
  OPS_DTYPE_UINT64 = 9,
  OPS_DTYPE_FLOAT16 = 10,
  OPS_DTYPE_BFLOAT16 = 11,
  OPS_DTYPE_FLOAT32 = 12,
  OPS_DTYPE_FLOAT64 = 13,
  OPS_DTYPE_MIN_ENUM_ = -0x7fffffff - 1, /* not a dtype: see the top of this file */
  OPS_DTYPE_MAX_ENUM_ = 0x7fffffff       /* not a dtype */
} ops_dtype_t;

/* Every C function returns one of these; ops_last_error() says more. */
typedef enum ops_status {
  OPS_OK = 0,
  OPS_ERR_INVALID_ARGUMENT = 1, /* bad argument value or count */
  OPS_ERR_NULL_POINTER = 2,
  OPS_ERR_UNKNOWN_OP = 3,
  OPS_ERR_SHAPE = 4,            /* shapes do not agree */
  OPS_ERR_DTYPE = 5,            /* unsupported or mismatched dtype */
  OPS_ERR_OUT_OF_MEMORY = 6,
  OPS_ERR_NOT_IMPLEMENTED = 7,
  OPS_ERR_IO = 8,
  OPS_ERR_INVALID_GRAPH = 9,
  OPS_ERR_DEVICE = 10,
  OPS_ERR_INTERNAL = 11,
  OPS_ERR_CANCELLED = 12,       /* a graph run stopped by ops_graph_session_cancel */
  OPS_ERR_LIMIT = 13            /* a graph run went past a limit it was given (loop iterations) */
} ops_status_t;

/* Legacy (XYZ) op groups. An op is named by (group, number). Scalar,
 * pairwise and broadcast groups of one flavour share one op table, so
 * e.g. PAIRWISE 0 and SCALAR 0 are both "add". */
typedef enum ops_legacy_group {
  OPS_TRANSFORM_FLOAT = 0,  /* any numeric in, float out */
  OPS_TRANSFORM_SAME = 1,   /* out dtype = in dtype */
  OPS_TRANSFORM_STRICT = 2, /* float in, same float out */
  OPS_TRANSFORM_BOOL = 3,   /* bool out */
  OPS_TRANSFORM_ANY = 4,    /* any in, any out (assign/cast) */
  OPS_SCALAR = 5,
  OPS_SCALAR_BOOL = 6,
  OPS_SCALAR_INT = 7,
  OPS_PAIRWISE = 8,
  OPS_PAIRWISE_BOOL = 9,
  OPS_PAIRWISE_INT = 10,
  OPS_BROADCAST = 11,
  OPS_BROADCAST_BOOL = 12,
  OPS_BROADCAST_INT = 13,
  OPS_REDUCE_FLOAT = 14,
  OPS_REDUCE_SAME = 15,
  OPS_REDUCE_BOOL = 16,
  OPS_REDUCE_LONG = 17,
  OPS_REDUCE3 = 18,
  OPS_INDEX_REDUCE = 19,
  OPS_SUMMARY_STATS = 20,
  OPS_RANDOM = 21,
  OPS_LEGACY_GROUP_MIN_ENUM_ = -0x7fffffff - 1, /* not a group: see the top of this file */
  OPS_LEGACY_GROUP_MAX_ENUM_ = 0x7fffffff       /* not a group */
} ops_legacy_group_t;

#define OPS_LEGACY_GROUP_COUNT 22
#define OPS_MAX_RANK 10

#ifdef __cplusplus
}
#endif
#endif /* LIBOPS_C_TYPES_H */
