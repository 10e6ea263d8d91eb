/* Loads a model (.lops or .onnx), runs it on one input and prints its top
 * outputs: the C API as a program outside libops' tree uses it.
 *
 *   run_model_c MODEL [K]
 *
 * The model's first input is fed ops-run's example values (element i =
 * ((7i + 3) mod 17 - 8) / 8, unknown extents 1), so that the result can be
 * checked against `ops-run MODEL --example-inputs`; a real program fills
 * it with its own data. Prints the K (default 3) largest values of the
 * first output with their positions, one a line: "position value". */
#include <stdio.h>
#include <stdlib.h>

#include <libops/c_api.h>
#include <libops/c_graph.h>

static int fail(const char* what) {
  fprintf(stderr, "run_model_c: %s: %s\n", what, ops_last_error());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: run_model_c MODEL [K]\n");
    return 2;
  }
  const int k = argc > 2 ? atoi(argv[2]) : 3;
  ops_graph_t* graph = NULL;
  if (ops_graph_load_file(argv[1], &graph) != OPS_OK) return fail("load");

  /* The first input, float32, its unknown extents 1. */
  ops_value_info_t info;
  if (ops_graph_input_info(graph, 0, &info) != OPS_OK) return fail("input 0");
  int64_t shape[8], n = 1;
  for (int d = 0; d < info.rank; ++d) {
    shape[d] = info.shape[d] < 0 ? 1 : info.shape[d];
    n *= shape[d];
  }
  ops_array_t* x = NULL;
  void* x_data = NULL;
  if (ops_array_create(OPS_DTYPE_FLOAT32, info.rank, shape, 'c', &x) != OPS_OK) return fail("input array");
  if (ops_array_data(x, &x_data) != OPS_OK) return fail("input data");
  float* xs = (float*)x_data;
  for (int64_t i = 0; i < n; ++i) xs[i] = (float)(((i * 7 + 3) % 17) - 8) / 8.0f;

  ops_graph_session_t* session = NULL;
  if (ops_graph_session_create(graph, &session) != OPS_OK) return fail("session");
  const char* names[1] = {info.name};
  const ops_array_t* inputs[1] = {x};
  if (ops_graph_run(session, names, inputs, 1) != OPS_OK) return fail("run");

  ops_array_t* y = NULL;
  int64_t m = 0;
  void* y_data = NULL;
  if (ops_graph_session_output_at(session, 0, &y) != OPS_OK) return fail("output 0");
  if (ops_array_length(y, &m) != OPS_OK || ops_array_data(y, &y_data) != OPS_OK) return fail("output data");
  const float* ys = (const float*)y_data;
  /* The k largest, by repeated selection (k is small). */
  char* taken = calloc((size_t)m, 1);
  for (int r = 0; r < k && r < m; ++r) {
    int64_t best = -1;
    for (int64_t i = 0; i < m; ++i)
      if (!taken[i] && (best < 0 || ys[i] > ys[best])) best = i;
    taken[best] = 1;
    printf("%lld %.6f\n", (long long)best, ys[best]);
  }
  free(taken);
  ops_array_free(y);
  ops_array_free(x);
  ops_graph_session_free(session);
  ops_graph_free(graph);
  return 0;
}
