// ops-run: load a libops graph, run it on .npy inputs, print or save the
// outputs, and optionally profile it. Also lists every op this build knows.
//
//   ops-run model.lops [--input name=file.npy]... [--example-inputs]
//           (a sequence input: name=a.npy,b.npy or name=[] when empty;
//            an optional one: name=none when it holds nothing)
//           [--output-dir DIR] [--device cpu|cuda] [--profile]
//           [--trace out.json] [--rewrites] [--repeat N] [--threads N]
//           [--op-library lib.so]...
//   ops-run --version
//   ops-run --list-ops [--format text|markdown|json]
//   ops-run --list-onnx                    (docs/onnx.md)
//   ops-run --list-unsupported model.onnx
//   ops-run model.onnx|model.lops --info
//   ops-run model.onnx --convert model.lops
//
// ONNX models (.onnx) run like .lops files: ops_graph_load_file converts
// them (graph/onnx/).
//
// Every failure prints one message on stderr and exits non-zero (2 for a
// usage error, 1 for anything else); it never crashes on bad input.
//
// Example inputs: with --example-inputs, an input not given with --input is
// fed a deterministic array, so that `ops-run model.lops --example-inputs`
// shows a graph working (without it, a missing input is an error). Its
// shape is
// the placeholder's, with 1 for each unknown extent (and a scalar when even
// the rank is unknown); element i (C order) is
//   floats:        ((i * 7 + 3) mod 17 - 8) / 8     (in [-1, 1])
//   signed ints:    (i * 7 + 3) mod 17 - 8
//   unsigned ints:  (i * 7 + 3) mod 17
//   bool:           i mod 3 == 0
// (tools/build_examples.py computes its reference outputs from the same
// inputs.)
//
// This tool uses only the C API (libops/c_api.h, libops/c_graph.h) to run
// graphs, plus the .npy reader/writer of graph/npy.h.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "graph/npy.h"
#include "libops/c_api.h"
#include "libops/c_graph.h"
#include "libops/core/half.h"

namespace {

constexpr int kUsageError = 2;
constexpr int kRunError = 1;

const char* kUsage =
    "usage: ops-run model.lops [--input name=file.npy]... [--example-inputs] [--output-dir DIR]\n"
    "               [--device cpu|cuda] [--profile] [--trace out.json] [--rewrites]\n"
    "               [--repeat N] [--threads N] [--op-library lib.so]...\n"
    "       ops-run --version\n"
    "       ops-run --list-ops [--format text|markdown|json]\n"
    "       ops-run --list-onnx | --list-unsupported model.onnx\n"
    "       ops-run model.onnx --convert model.lops\n"
    "       ops-run model.onnx|model.lops --info\n"
    "\n"
    "Runs a libops graph and prints its outputs (or writes them as DIR/<name>.npy).\n"
    "A sequence input is given as --input name=a.npy,b.npy (name=[] when empty), an\n"
    "empty optional as name=none; a sequence output is written as DIR/<name>/<i>.npy,\n"
    "an empty optional as an empty file DIR/<name>.none.\n"
    "Every input must be given with --input, unless --example-inputs asks for\n"
    "deterministic example values for those that are not: the placeholder's shape\n"
    "(1 for unknown extents), element i = ((7i + 3) mod 17 - 8) / 8 for floats,\n"
    "(7i + 3) mod 17 - 8 for signed and (7i + 3) mod 17 for unsigned integers,\n"
    "i mod 3 == 0 for bool.\n"
    "  --op-library L  load a library of ops built with libops_add_op_library first\n"
    "                  (repeatable); its ops run in graphs and as ONNX custom-domain nodes\n"
    "  --profile       print a per-node profile table of the last run (sorted by time)\n"
    "  --trace FILE    write a Chrome trace (chrome://tracing, Perfetto) of the last run\n"
    "  --rewrites      list the folds and fusions the loader applied, before running\n"
    "  --repeat N      run N times and print run-time statistics (default 1)\n"
    "  --threads N     kernel threads (default: the graph's setting, else all cores)\n"
    "  --device D      cpu (default), cuda or cuda:N (needs a CUDA build and a GPU)\n"
    "  --list-ops      every op with its inputs, outputs, args and defaults; --format\n"
    "                  markdown gives docs/ops.md, json the signatures bindings read\n"
    "Models may be ONNX files (.onnx); they are converted when loaded.\n"
    "  --list-unsupported  every node of an ONNX model that cannot be imported, one a line\n"
    "  --info          the inputs and outputs with their dtypes and dims (symbolic ones by\n"
    "                  name), and for ONNX models the opsets; nothing is run\n"
    "  --convert OUT       write the ONNX model as a libops graph file and stop\n"
    "  --list-onnx     the ONNX operators the importer maps (docs/onnx.md)\n";

struct Options {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;  // name, path
  std::string output_dir;
  std::string device;
  std::string trace;
  std::string format = "text";  // --list-ops
  bool profile = false;
  bool rewrites = false;
  bool list_ops = false;
  bool list_onnx = false;
  bool list_unsupported = false;
  bool info = false;
  bool example_inputs = false;
  bool version = false;
  std::vector<std::string> op_libraries;
  std::string convert;  // --convert OUT.lops
  long repeat = 1;
  long threads = 0;
};

int fail(int code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
int fail(int code, const char* fmt, ...) {
  std::fputs("ops-run: ", stderr);
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
  return code;
}

bool parse_count(const char* text, long lo, long hi, long& out) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return false;
  out = v;
  return true;
}

// Returns -1 to go on, else an exit code.
int parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)flag;
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--list-ops") {
      o.list_ops = true;
    } else if (arg == "--list-onnx") {
      o.list_onnx = true;
    } else if (arg == "--list-unsupported") {
      o.list_unsupported = true;
    } else if (arg == "--info") {
      o.info = true;
    } else if (arg == "--profile") {
      o.profile = true;
    } else if (arg == "--rewrites") {
      o.rewrites = true;
    } else if (arg == "--example-inputs") {
      o.example_inputs = true;
    } else if (arg == "--version") {
      o.version = true;
    } else if (arg == "--input" || arg == "--output-dir" || arg == "--device" || arg == "--trace" ||
               arg == "--repeat" || arg == "--threads" || arg == "--format" || arg == "--convert" ||
               arg == "--op-library") {
      const char* v = value(arg.c_str());
      if (v == nullptr) return fail(kUsageError, "%s needs a value\n%s", arg.c_str(), kUsage);
      if (arg == "--input") {
        const char* eq = std::strchr(v, '=');
        if (eq == nullptr || eq == v || eq[1] == '\0')
          return fail(kUsageError, "--input expects name=file.npy, got '%s'", v);
        o.inputs.emplace_back(std::string(v, eq), std::string(eq + 1));
      } else if (arg == "--output-dir") {
        o.output_dir = v;
      } else if (arg == "--device") {
        o.device = v;
      } else if (arg == "--trace") {
        o.trace = v;
      } else if (arg == "--format") {
        o.format = v;
      } else if (arg == "--convert") {
        o.convert = v;
      } else if (arg == "--op-library") {
        o.op_libraries.emplace_back(v);
      } else if (arg == "--repeat") {
        if (!parse_count(v, 1, 1000000, o.repeat)) return fail(kUsageError, "--repeat expects 1..1000000, got '%s'", v);
      } else if (!parse_count(v, 1, 4096, o.threads)) {
        return fail(kUsageError, "--threads expects 1..4096, got '%s'", v);
      }
    } else if (!arg.empty() && arg[0] == '-') {
      return fail(kUsageError, "unknown option '%s'\n%s", arg.c_str(), kUsage);
    } else if (o.model.empty()) {
      o.model = arg;
    } else {
      return fail(kUsageError, "more than one model given ('%s' and '%s')", o.model.c_str(), arg.c_str());
    }
  }
  if (o.version) return -1;
  if (o.list_onnx) return o.model.empty() ? -1 : fail(kUsageError, "--list-onnx takes no model");
  if (!o.list_ops && o.model.empty()) return fail(kUsageError, "no model given\n%s", kUsage);
  if (o.list_ops && !o.model.empty()) return fail(kUsageError, "--list-ops takes no model");
  if (!o.list_ops && o.format != "text") return fail(kUsageError, "--format goes with --list-ops");
  return -1;
}

// ---- --list-ops ----

int list_ops(const std::string& format) {
  const char* text = nullptr;
  if (ops_registry_reference(format.c_str(), &text) != OPS_OK) return fail(kUsageError, "%s", ops_last_error());
  std::fputs(text, stdout);
  // An op whose declaration was refused is missing from the list: say so,
  // and fail, rather than leave it to a later "unknown op".
  const int problems = ops_registry_error_count();
  for (int i = 0; i < problems; ++i) std::fprintf(stderr, "ops-run: an op was not registered: %s\n", ops_registry_error(i));
  return problems == 0 ? 0 : kRunError;
}

// ---- arrays ----

struct ArrayHandle {
  ops_array_t* a = nullptr;
  ArrayHandle() = default;
  ArrayHandle(const ArrayHandle&) = delete;
  ArrayHandle& operator=(const ArrayHandle&) = delete;
  ArrayHandle(ArrayHandle&& o) noexcept : a(o.a) { o.a = nullptr; }
  ArrayHandle& operator=(ArrayHandle&& o) noexcept {
    std::swap(a, o.a);
    return *this;
  }
  ~ArrayHandle() { ops_array_free(a); }
};

bool is_signed(ops_dtype_t t) { return t >= OPS_DTYPE_INT8 && t <= OPS_DTYPE_INT64; }
bool is_unsigned(ops_dtype_t t) { return t >= OPS_DTYPE_UINT8 && t <= OPS_DTYPE_UINT64; }
bool is_float(ops_dtype_t t) { return t >= OPS_DTYPE_FLOAT16 && t <= OPS_DTYPE_FLOAT64; }

// Element i of the example input (see the top of the file).
double example_value(ops_dtype_t t, int64_t i) {
  const int64_t k = (i * 7 + 3) % 17;
  if (t == OPS_DTYPE_BOOL) return i % 3 == 0 ? 1.0 : 0.0;
  if (is_unsigned(t)) return static_cast<double>(k);
  if (is_signed(t)) return static_cast<double>(k - 8);
  return static_cast<double>(k - 8) / 8.0;
}

template <typename T>
void put(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

template <typename T>
double get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<double>(v);
}

void store(ops_dtype_t t, double v, uint8_t* p) {
  switch (t) {
    case OPS_DTYPE_BOOL: put<uint8_t>(p, v != 0.0); break;
    case OPS_DTYPE_INT8: put(p, static_cast<int8_t>(v)); break;
    case OPS_DTYPE_INT16: put(p, static_cast<int16_t>(v)); break;
    case OPS_DTYPE_INT32: put(p, static_cast<int32_t>(v)); break;
    case OPS_DTYPE_INT64: put(p, static_cast<int64_t>(v)); break;
    case OPS_DTYPE_UINT8: put(p, static_cast<uint8_t>(v)); break;
    case OPS_DTYPE_UINT16: put(p, static_cast<uint16_t>(v)); break;
    case OPS_DTYPE_UINT32: put(p, static_cast<uint32_t>(v)); break;
    case OPS_DTYPE_UINT64: put(p, static_cast<uint64_t>(v)); break;
    case OPS_DTYPE_FLOAT16: put(p, libops::float_to_half_bits(v)); break;
    case OPS_DTYPE_BFLOAT16: put(p, libops::float_to_bf16_bits(v)); break;
    case OPS_DTYPE_FLOAT32: put(p, static_cast<float>(v)); break;
    case OPS_DTYPE_FLOAT64: put(p, v); break;
    default: break;
  }
}

double load(ops_dtype_t t, const uint8_t* p) {
  switch (t) {
    case OPS_DTYPE_BOOL: return *p ? 1.0 : 0.0;
    case OPS_DTYPE_INT8: return get<int8_t>(p);
    case OPS_DTYPE_INT16: return get<int16_t>(p);
    case OPS_DTYPE_INT32: return get<int32_t>(p);
    case OPS_DTYPE_INT64: return get<int64_t>(p);
    case OPS_DTYPE_UINT8: return get<uint8_t>(p);
    case OPS_DTYPE_UINT16: return get<uint16_t>(p);
    case OPS_DTYPE_UINT32: return get<uint32_t>(p);
    case OPS_DTYPE_UINT64: return get<uint64_t>(p);
    case OPS_DTYPE_FLOAT16: return libops::half_bits_to_float(static_cast<uint16_t>(get<uint16_t>(p)));
    case OPS_DTYPE_BFLOAT16: return libops::bf16_bits_to_float(static_cast<uint16_t>(get<uint16_t>(p)));
    case OPS_DTYPE_FLOAT32: return get<float>(p);
    case OPS_DTYPE_FLOAT64: return get<double>(p);
    default: return 0.0;
  }
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  s += ']';
  return s;
}

bool example_input(const ops_value_info_t& info, ArrayHandle& out, std::string& described) {
  std::vector<int64_t> shape;
  for (int d = 0; d < std::max(info.rank, 0); ++d) shape.push_back(info.shape[d] < 0 ? 1 : info.shape[d]);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const size_t item = ops_dtype_size(info.dtype);
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * item);
  for (int64_t i = 0; i < n; ++i)
    store(info.dtype, example_value(info.dtype, i), bytes.data() + i * static_cast<int64_t>(item));
  described = std::string(ops_dtype_name(info.dtype)) + shape_str(shape);
  return ops_array_create_from(info.dtype, static_cast<int>(shape.size()), shape.data(), bytes.data(), bytes.size(),
                               &out.a) == OPS_OK;
}

bool read_npy(const std::string& path, ArrayHandle& out, std::string& error) {
  libops::npy::NpyArray npy;
  if (!libops::npy::npy_read_file(path, npy, error)) return false;
  if (npy.shape.size() > OPS_MAX_RANK) {
    error = "rank " + std::to_string(npy.shape.size()) + " is over the maximum " + std::to_string(OPS_MAX_RANK);
    return false;
  }
  std::vector<int64_t> shape = npy.shape;
  if (npy.fortran_order) std::reverse(shape.begin(), shape.end());
  ArrayHandle dense;
  if (ops_array_create_from(npy.dtype, static_cast<int>(shape.size()), shape.data(), npy.data.data(), npy.data.size(),
                            &dense.a) != OPS_OK) {
    error = ops_last_error();
    return false;
  }
  if (!npy.fortran_order) {
    out = std::move(dense);
    return true;
  }
  // Column-major data is the transpose of a row-major array of the
  // reversed shape: a view, no copy.
  std::vector<int64_t> axes(shape.size());
  for (size_t d = 0; d < axes.size(); ++d) axes[d] = static_cast<int64_t>(axes.size() - 1 - d);
  if (ops_array_permute(dense.a, axes.data(), static_cast<int>(axes.size()), &out.a) != OPS_OK) {
    error = ops_last_error();
    return false;
  }
  return true;
}

struct Dense {
  ops_dtype_t dtype = OPS_DTYPE_INVALID;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

bool to_dense(const ops_array_t* a, Dense& d) {
  int rank = 0;
  int64_t length = 0;
  if (ops_array_dtype(a, &d.dtype) != OPS_OK || ops_array_rank(a, &rank) != OPS_OK) return false;
  d.shape.resize(static_cast<size_t>(rank));
  if (ops_array_shape(a, d.shape.data()) != OPS_OK || ops_array_length(a, &length) != OPS_OK) return false;
  d.bytes.resize(static_cast<size_t>(length) * ops_dtype_size(d.dtype));
  return ops_array_copy_to(a, d.bytes.data(), d.bytes.size()) == OPS_OK;
}

void print_values(const Dense& d) {
  const size_t item = ops_dtype_size(d.dtype);
  const size_t n = item ? d.bytes.size() / item : 0;
  constexpr size_t kShow = 10;
  std::printf("  [");
  for (size_t i = 0; i < n && i < kShow; ++i) {
    const double v = load(d.dtype, d.bytes.data() + i * item);
    if (is_float(d.dtype))
      std::printf("%s%.6g", i ? ", " : "", v);
    else
      std::printf("%s%.0f", i ? ", " : "", v);
  }
  if (n > kShow) std::printf(", ... (%zu values)", n);
  std::printf("]\n");
}

std::string file_name_for(const std::string& output) {
  std::string s = output;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  if (s.empty() || s[0] == '.') s = "_" + s;
  return s;
}

// ---- running a model ----

// ---- ONNX ----

int list_onnx() {
  const char* text = nullptr;
  if (ops_onnx_coverage(&text) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
  std::fputs(text, stdout);
  return 0;
}

// Prints every problem; exits 0 only when there is none.
int list_unsupported(const std::string& model) {
  const char* text = nullptr;
  if (ops_onnx_list_unsupported(model.c_str(), &text) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
  if (text[0] == '\0') {
    std::printf("%s: every node can be imported\n", model.c_str());
    return 0;
  }
  std::fputs(text, stdout);
  return kRunError;
}

// --info: what the model declares (an ONNX file's own declarations, then
// the loaded graph's inputs and outputs as libops sees them).
std::string dims_text(const ops_graph_t* g, const ops_value_info_t& v, int input_index) {
  std::string s = v.dtype == OPS_DTYPE_INVALID ? "?" : ops_dtype_name(v.dtype);
  if (v.rank < 0) return s + "[...]";
  s += '[';
  for (int d = 0; d < v.rank; ++d) {
    if (d) s += ',';
    const char* name = nullptr;
    if (v.shape[d] >= 0) s += std::to_string(v.shape[d]);
    else if (input_index >= 0 && ops_graph_input_dim_name(g, input_index, d, &name) == OPS_OK && name[0] != '\0')
      s += name;
    else s += '?';
  }
  return s + ']';
}

int print_info(const std::string& model) {
  const char* text = nullptr;
  if (ops_onnx_describe(model.c_str(), &text) == OPS_OK) {
    std::printf("%s (ONNX): %s", model.c_str(), text);
    std::printf("as a libops graph:\n");
  }
  ops_graph_t* g = nullptr;
  if (ops_graph_load_file(model.c_str(), &g) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
  // A sequence or optional: what it holds ("sequence of float32[?]").
  auto kind_text = [](ops_value_kind_t kind) {
    switch (kind) {
      case OPS_VALUE_SEQUENCE: return "sequence of ";
      case OPS_VALUE_OPTIONAL_TENSOR: return "optional ";
      case OPS_VALUE_OPTIONAL_SEQUENCE: return "optional sequence of ";
      default: return "";
    }
  };
  for (int k = 0; k < ops_graph_input_count(g); ++k) {
    ops_value_info_t v{};
    ops_value_kind_t kind = OPS_VALUE_TENSOR;
    ops_graph_input_kind(g, k, &kind);
    if (ops_graph_input_info(g, k, &v) == OPS_OK)
      std::printf("input %s: %s%s\n", v.name, kind_text(kind), dims_text(g, v, k).c_str());
  }
  for (int k = 0; k < ops_graph_output_count(g); ++k) {
    ops_value_info_t v{};
    ops_value_kind_t kind = OPS_VALUE_TENSOR;
    ops_graph_output_kind(g, k, &kind);
    if (ops_graph_output_info(g, k, &v) == OPS_OK)
      std::printf("output %s: %s%s\n", v.name, kind_text(kind), dims_text(g, v, -1).c_str());
  }
  ops_graph_free(g);
  return 0;
}

int convert_model(const std::string& model, const std::string& out) {
  void* data = nullptr;
  size_t size = 0;
  if (ops_onnx_convert_file(model.c_str(), &data, &size) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
  FILE* f = std::fopen(out.c_str(), "wb");
  bool ok = f != nullptr && std::fwrite(data, 1, size, f) == size;
  if (f != nullptr && std::fclose(f) != 0) ok = false;
  ops_onnx_free(data);
  if (!ok) return fail(kRunError, "cannot write '%s': %s", out.c_str(), std::strerror(errno));
  std::printf("wrote %s (%zu bytes)\n", out.c_str(), size);
  return 0;
}

struct GraphHandles {
  ops_graph_t* graph = nullptr;
  ops_graph_session_t* session = nullptr;
  ~GraphHandles() {
    ops_graph_session_free(session);
    ops_graph_free(graph);
  }
};

int run_model(const Options& o) {
  if (!o.device.empty() && o.device != "cpu" && o.device != "cuda" && o.device.rfind("cuda:", 0) != 0)
    return fail(kUsageError, "--device expects cpu, cuda or cuda:N, got '%s'", o.device.c_str());
  GraphHandles h;
  if (ops_graph_load_file(o.model.c_str(), &h.graph) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
  const char* graph_device = "";
  int graph_threads = 0;
  bool graph_profiling = false;
  ops_graph_config(h.graph, &graph_device, &graph_threads, &graph_profiling);
  if (o.rewrites) {
    const int n = ops_graph_rewrite_count(h.graph);
    std::printf("%d rewrite%s:\n", n, n == 1 ? "" : "s");
    for (int i = 0; i < n; ++i) {
      const char* line = nullptr;
      if (ops_graph_rewrite(h.graph, i, &line) == OPS_OK) std::printf("  %s\n", line);
    }
  }
  if (o.threads > 0)
    ops_set_num_threads(static_cast<int>(o.threads));
  else if (graph_threads > 0)
    ops_set_num_threads(graph_threads);

  if (ops_graph_session_create(h.graph, &h.session) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
  ops_graph_session_set_profiling(h.session, o.profile || !o.trace.empty() || graph_profiling);
  // --device wins over the graph's configured device; either must be usable.
  const std::string device = !o.device.empty() ? o.device : graph_device ? graph_device : "";
  if (!device.empty() && ops_graph_session_set_device(h.session, device.c_str()) != OPS_OK)
    return fail(kRunError, "%s%s", o.device.empty() ? (o.model + " asks for its configured device: ").c_str() : "",
                ops_last_error());

  // Inputs: from .npy files, else examples. A sequence or optional input
  // goes in as a list of arrays (`lists`; `present` false: none).
  const int n_in = ops_graph_input_count(h.graph);
  std::vector<ArrayHandle> arrays(static_cast<size_t>(n_in));
  std::vector<std::vector<ArrayHandle>> lists(static_cast<size_t>(n_in));
  std::vector<int> list_given(static_cast<size_t>(n_in), 0), present(static_cast<size_t>(n_in), 1);
  std::vector<ops_value_kind_t> kinds(static_cast<size_t>(n_in), OPS_VALUE_TENSOR);
  for (int k = 0; k < n_in; ++k) ops_graph_input_kind(h.graph, k, &kinds[static_cast<size_t>(k)]);
  std::vector<const char*> names(static_cast<size_t>(n_in));
  for (const auto& [name, path] : o.inputs) {
    int k = 0;
    ops_value_info_t info{};
    for (; k < n_in; ++k) {
      ops_graph_input_info(h.graph, k, &info);
      if (name == info.name) break;
    }
    const ops_value_kind_t kind = k < n_in ? kinds[static_cast<size_t>(k)] : OPS_VALUE_TENSOR;
    if (k < n_in && kind != OPS_VALUE_TENSOR) {
      if (list_given[static_cast<size_t>(k)]) return fail(kUsageError, "--input %s is given twice", name.c_str());
      list_given[static_cast<size_t>(k)] = 1;
      const bool optional = kind == OPS_VALUE_OPTIONAL_TENSOR || kind == OPS_VALUE_OPTIONAL_SEQUENCE;
      if (path == "none") {
        if (!optional) return fail(kUsageError, "--input %s=none: the input is a sequence, not an optional", name.c_str());
        present[static_cast<size_t>(k)] = 0;
        continue;
      }
      size_t start = 0;
      while (path != "[]" && start <= path.size()) {
        size_t comma = path.find(',', start);
        if (comma == std::string::npos) comma = path.size();
        const std::string file = path.substr(start, comma - start);
        ArrayHandle a;
        std::string error;
        if (!read_npy(file, a, error))
          return fail(kRunError, "--input %s: element %zu (%s): %s", name.c_str(), lists[static_cast<size_t>(k)].size(),
                      file.c_str(), error.c_str());
        lists[static_cast<size_t>(k)].push_back(std::move(a));
        start = comma + 1;
      }
      if (kind == OPS_VALUE_OPTIONAL_TENSOR && lists[static_cast<size_t>(k)].size() != 1)
        return fail(kUsageError, "--input %s: an optional tensor takes one file (or none)", name.c_str());
      continue;
    }
    if (k == n_in) {
      std::string list;
      for (int j = 0; j < n_in; ++j) {
        ops_graph_input_info(h.graph, j, &info);
        list += (j ? ", " : "") + std::string(info.name);
      }
      return fail(kUsageError, "--input %s: the graph has no input '%s' (inputs: %s)", name.c_str(), name.c_str(),
                  list.empty() ? "none" : list.c_str());
    }
    if (arrays[static_cast<size_t>(k)].a) return fail(kUsageError, "--input %s is given twice", name.c_str());
    std::string error;
    if (!read_npy(path, arrays[static_cast<size_t>(k)], error))
      return fail(kRunError, "--input %s=%s: %s", name.c_str(), path.c_str(), error.c_str());
  }
  if (!o.example_inputs) {
    std::string missing;
    for (int k = 0; k < n_in; ++k) {
      if (arrays[static_cast<size_t>(k)].a || list_given[static_cast<size_t>(k)]) continue;
      ops_value_info_t info{};
      ops_graph_input_info(h.graph, k, &info);
      missing += std::string(missing.empty() ? "" : ", ") + info.name;
    }
    if (!missing.empty())
      return fail(kUsageError, "%s needs input%s %s: give each with --input NAME=FILE.npy, or --example-inputs to "
                  "run on generated values", o.model.c_str(), missing.find(',') == std::string::npos ? "" : "s",
                  missing.c_str());
  }
  for (int k = 0; k < n_in; ++k) {
    ops_value_info_t info{};
    ops_graph_input_info(h.graph, k, &info);
    names[static_cast<size_t>(k)] = info.name;
    if (arrays[static_cast<size_t>(k)].a || list_given[static_cast<size_t>(k)]) continue;
    std::string described;
    const bool is_list = kinds[static_cast<size_t>(k)] != OPS_VALUE_TENSOR;
    ArrayHandle& target = is_list ? lists[static_cast<size_t>(k)].emplace_back() : arrays[static_cast<size_t>(k)];
    list_given[static_cast<size_t>(k)] = is_list;
    if (!example_input(info, target, described))
      return fail(kRunError, "input '%s': cannot make an example input: %s", info.name, ops_last_error());
    std::fprintf(stderr, "ops-run: input '%s': example values, %s%s\n", info.name, is_list ? "one element " : "",
                 described.c_str());
  }
  // Tensors go to ops_graph_run by name; sequences and optionals are set
  // before each run (ops_graph_session_set_input_list lasts one run).
  std::vector<const ops_array_t*> inputs;
  std::vector<const char*> tensor_names;
  std::vector<std::vector<const ops_array_t*>> elements(static_cast<size_t>(n_in));
  for (int k = 0; k < n_in; ++k) {
    if (list_given[static_cast<size_t>(k)]) {
      for (const ArrayHandle& a : lists[static_cast<size_t>(k)]) elements[static_cast<size_t>(k)].push_back(a.a);
      continue;
    }
    inputs.push_back(arrays[static_cast<size_t>(k)].a);
    tensor_names.push_back(names[static_cast<size_t>(k)]);
  }

  std::vector<double> times_ms;
  for (long r = 0; r < o.repeat; ++r) {
    for (int k = 0; k < n_in; ++k) {
      if (!list_given[static_cast<size_t>(k)]) continue;
      const auto& e = elements[static_cast<size_t>(k)];
      if (ops_graph_session_set_input_list(h.session, names[static_cast<size_t>(k)], e.data(),
                                           static_cast<int>(e.size()), present[static_cast<size_t>(k)] != 0) != OPS_OK)
        return fail(kRunError, "%s", ops_last_error());
    }
    if (ops_graph_run(h.session, tensor_names.data(), inputs.data(), static_cast<int>(inputs.size())) != OPS_OK)
      return fail(kRunError, "%s", ops_last_error());
    int64_t run_ns = 0;
    ops_graph_session_last_run(h.session, &run_ns, nullptr);
    times_ms.push_back(static_cast<double>(run_ns) / 1e6);
  }

  // Outputs.
  if (!o.output_dir.empty()) {
    struct stat st {};
    if (stat(o.output_dir.c_str(), &st) != 0 && mkdir(o.output_dir.c_str(), 0755) != 0)
      return fail(kRunError, "--output-dir %s: cannot create it: %s", o.output_dir.c_str(), std::strerror(errno));
  }
  const int n_out = ops_graph_output_count(h.graph);
  for (int k = 0; k < n_out; ++k) {
    ops_value_info_t info{};
    ops_graph_output_info(h.graph, k, &info);
    ops_value_kind_t kind = OPS_VALUE_TENSOR;
    bool has_value = true;
    ops_graph_output_kind(h.graph, k, &kind);
    if (ops_graph_session_output_present(h.session, k, &has_value) != OPS_OK)
      return fail(kRunError, "output '%s': %s", info.name, ops_last_error());
    if (!has_value) {  // an empty optional
      std::printf("%s: none\n", info.name);
      if (o.output_dir.empty()) continue;
      const std::string path = o.output_dir + "/" + file_name_for(info.name) + ".none";
      FILE* f = std::fopen(path.c_str(), "wb");
      if (f == nullptr) return fail(kRunError, "output '%s': cannot write %s", info.name, path.c_str());
      std::fclose(f);
      std::printf("  wrote %s\n", path.c_str());
      continue;
    }
    if (kind == OPS_VALUE_SEQUENCE || kind == OPS_VALUE_OPTIONAL_SEQUENCE) {
      int64_t n = 0;
      if (ops_graph_session_output_list_size(h.session, k, &n) != OPS_OK)
        return fail(kRunError, "output '%s': %s", info.name, ops_last_error());
      std::printf("%s: a sequence of %lld\n", info.name, static_cast<long long>(n));
      const std::string dir = o.output_dir.empty() ? "" : o.output_dir + "/" + file_name_for(info.name);
      struct stat st {};
      if (!dir.empty() && stat(dir.c_str(), &st) != 0 && mkdir(dir.c_str(), 0755) != 0)
        return fail(kRunError, "output '%s': cannot create %s: %s", info.name, dir.c_str(), std::strerror(errno));
      for (int64_t i = 0; i < n; ++i) {
        ArrayHandle item;
        Dense d;
        if (ops_graph_session_output_list_item(h.session, k, i, &item.a) != OPS_OK || !to_dense(item.a, d))
          return fail(kRunError, "output '%s', element %lld: %s", info.name, static_cast<long long>(i),
                      ops_last_error());
        std::printf("  [%lld]: %s%s\n", static_cast<long long>(i), ops_dtype_name(d.dtype), shape_str(d.shape).c_str());
        if (dir.empty()) {
          print_values(d);
          continue;
        }
        libops::npy::NpyArray npy;
        npy.dtype = d.dtype;
        npy.shape = d.shape;
        npy.data = std::move(d.bytes);
        std::string error;
        const std::string path = dir + "/" + std::to_string(i) + ".npy";
        if (!libops::npy::npy_write_file(path, npy, error))
          return fail(kRunError, "output '%s': %s", info.name, error.c_str());
      }
      if (!dir.empty()) std::printf("  wrote %s/0..%lld.npy\n", dir.c_str(), static_cast<long long>(n) - 1);
      continue;
    }
    ArrayHandle out;
    Dense d;
    if (ops_graph_session_output_at(h.session, k, &out.a) != OPS_OK || !to_dense(out.a, d))
      return fail(kRunError, "output '%s': %s", info.name, ops_last_error());
    std::printf("%s: %s%s\n", info.name, ops_dtype_name(d.dtype), shape_str(d.shape).c_str());
    if (o.output_dir.empty()) {
      print_values(d);
      continue;
    }
    const std::string path = o.output_dir + "/" + file_name_for(info.name) + ".npy";
    libops::npy::NpyArray npy;
    npy.dtype = d.dtype;
    npy.shape = d.shape;
    npy.data = std::move(d.bytes);
    std::string error;
    if (!libops::npy::npy_write_file(path, npy, error))
      return fail(kRunError, "output '%s': %s", info.name, error.c_str());
    std::printf("  wrote %s\n", path.c_str());
  }

  if (o.repeat > 1) {
    std::vector<double> sorted = times_ms;
    std::sort(sorted.begin(), sorted.end());
    double sum = 0;
    for (double t : sorted) sum += t;
    std::printf("ran %ld times: min %.3f ms, median %.3f ms, mean %.3f ms, max %.3f ms\n", o.repeat, sorted.front(),
                sorted[sorted.size() / 2], sum / static_cast<double>(sorted.size()), sorted.back());
  }
  if (o.profile) {
    const char* table = nullptr;
    if (ops_graph_session_profile_table(h.session, &table) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
    std::printf("\nprofile of the last run:\n%s", table);
  }
  if (!o.trace.empty()) {
    if (ops_graph_session_write_trace(h.session, o.trace.c_str()) != OPS_OK)
      return fail(kRunError, "%s", ops_last_error());
    std::printf("wrote trace %s\n", o.trace.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const int parsed = parse_args(argc, argv, o);
  if (parsed >= 0) return parsed;
  if (o.version) {
    std::printf("ops-run (libops %s)\n", ops_version());
    return 0;
  }
  for (const std::string& lib : o.op_libraries)
    if (ops_load_op_library(lib.c_str()) != OPS_OK) return fail(kRunError, "%s", ops_last_error());
  if (o.list_ops) return list_ops(o.format);
  if (o.list_onnx) return list_onnx();
  if (o.list_unsupported) return list_unsupported(o.model);
  if (o.info) return print_info(o.model);
  if (!o.convert.empty()) return convert_model(o.model, o.convert);
  return run_model(o);
}
