// Loads a model (.lops or .onnx), runs it on one input and prints its top
// outputs: the C API from C++, with its handles owned by unique_ptr.
//
//   run_model_cpp MODEL [K]
//
// Same input and output as run_model.c (ops-run's example values into the
// first input; the K largest values of the first output, "position value").
#include <libops/c_api.h>
#include <libops/c_graph.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void check(ops_status_t s, const char* what) {
  if (s != OPS_OK) throw std::runtime_error(std::string(what) + ": " + ops_last_error());
}

struct GraphFree {
  void operator()(ops_graph_t* g) const { ops_graph_free(g); }
};
struct SessionFree {
  void operator()(ops_graph_session_t* s) const { ops_graph_session_free(s); }
};
struct ArrayFree {
  void operator()(ops_array_t* a) const { ops_array_free(a); }
};
using Graph = std::unique_ptr<ops_graph_t, GraphFree>;
using Session = std::unique_ptr<ops_graph_session_t, SessionFree>;
using Array = std::unique_ptr<ops_array_t, ArrayFree>;

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_model_cpp MODEL [K]\n");
    return 2;
  }
  const int k = argc > 2 ? std::atoi(argv[2]) : 3;
  ops_graph_t* g = nullptr;
  check(ops_graph_load_file(argv[1], &g), "load");
  Graph graph(g);

  ops_value_info_t info{};
  check(ops_graph_input_info(graph.get(), 0, &info), "input 0");
  std::vector<int64_t> shape(info.shape, info.shape + info.rank);
  for (int64_t& d : shape) d = d < 0 ? 1 : d;
  ops_array_t* x_raw = nullptr;
  check(ops_array_create(OPS_DTYPE_FLOAT32, info.rank, shape.data(), 'c', &x_raw), "input array");
  Array x(x_raw);
  void* x_data = nullptr;
  check(ops_array_data(x.get(), &x_data), "input data");
  const int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
  float* xs = static_cast<float*>(x_data);
  for (int64_t i = 0; i < n; ++i) xs[i] = static_cast<float>((i * 7 + 3) % 17 - 8) / 8.0f;

  ops_graph_session_t* s = nullptr;
  check(ops_graph_session_create(graph.get(), &s), "session");
  Session session(s);
  const char* names[] = {info.name};
  const ops_array_t* inputs[] = {x.get()};
  check(ops_graph_run(session.get(), names, inputs, 1), "run");

  ops_array_t* y_raw = nullptr;
  check(ops_graph_session_output_at(session.get(), 0, &y_raw), "output 0");
  Array y(y_raw);
  int64_t m = 0;
  void* y_data = nullptr;
  check(ops_array_length(y.get(), &m), "output length");
  check(ops_array_data(y.get(), &y_data), "output data");
  const float* ys = static_cast<const float*>(y_data);
  std::vector<int64_t> order(static_cast<size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  const int64_t top = std::min<int64_t>(k, m);
  std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](int64_t a, int64_t b) {
    return ys[a] > ys[b] || (ys[a] == ys[b] && a < b);
  });
  for (int64_t r = 0; r < top; ++r)
    std::printf("%lld %.6f\n", static_cast<long long>(order[static_cast<size_t>(r)]), ys[order[static_cast<size_t>(r)]]);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "run_model_cpp: %s\n", e.what());
  return 1;
}
