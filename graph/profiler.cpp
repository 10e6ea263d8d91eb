#include "graph/profiler.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace libops::graph {

namespace {

std::string human_bytes(int64_t b) {
  if (b < 1024) return str_format("%lld B", static_cast<long long>(b));
  if (b < (int64_t{1} << 20)) return str_format("%.1f KiB", static_cast<double>(b) / 1024.0);
  if (b < (int64_t{1} << 30)) return str_format("%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  return str_format("%.2f GiB", static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0));
}

void json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20)
          out += str_format("\\u%04x", c);
        else
          out += static_cast<char>(c);
    }
  }
  out += '"';
}

std::string node_label(const NodeProfile& n) {
  std::string label;
  if (n.body != 0) {
    label += n.graph_name;
    label += '/';
  }
  if (n.name.empty()) {
    label += '#';
    label += std::to_string(n.id);
  } else {
    label += n.name;
  }
  return label;
}

}  // namespace

std::string NodeProfile::shapes_str() const {
  std::string s;
  for (size_t i = 0; i < output_shapes.size(); ++i) {
    if (i) s += ", ";
    s += output_shapes[i].str();
  }
  return s;
}

void Profile::reset(const Graph& graph) {
  if (body_offset.empty()) {
    body_offset.resize(static_cast<size_t>(graph.num_bodies()));
    for (int b = 0; b < graph.num_bodies(); ++b) {
      const Body& body = graph.body(b);
      body_offset[static_cast<size_t>(b)] = static_cast<int32_t>(nodes.size());
      for (size_t p = 0; p < body.nodes.size(); ++p) {
        const Node& node = body.nodes[p];
        NodeProfile n;
        n.body = b;
        n.node = static_cast<int>(p);
        n.id = node.id;
        n.name = node.name;
        n.op = node.op_label;
        n.graph_name = body.name;
        nodes.push_back(std::move(n));
      }
    }
  }
  for (NodeProfile& n : nodes) {
    n.calls = n.total_ns = n.bytes = 0;
    n.output_shapes.clear();
  }
  events.clear();
  run_ns = peak_bytes = dropped_events = 0;
}

std::vector<const NodeProfile*> Profile::by_time() const {
  std::vector<const NodeProfile*> v;
  for (const NodeProfile& n : nodes)
    if (n.calls > 0) v.push_back(&n);
  std::stable_sort(v.begin(), v.end(),
                   [](const NodeProfile* a, const NodeProfile* b) { return a->total_ns > b->total_ns; });
  return v;
}

std::string Profile::table() const {
  std::vector<const NodeProfile*> rows = by_time();
  int64_t calls = 0;
  for (const NodeProfile* n : rows) calls += n->calls;
  std::string out =
      str_format("run %.3f ms, %zu nodes ran (%lld calls), peak memory %s\n", static_cast<double>(run_ns) / 1e6,
                 rows.size(), static_cast<long long>(calls), human_bytes(peak_bytes).c_str());
  if (!enabled) return out + "(profiling was off for this run: per-node times are not recorded)\n";
  size_t name_w = 4, op_w = 2;
  for (const NodeProfile* n : rows) {
    name_w = std::max(name_w, node_label(*n).size());
    op_w = std::max(op_w, n->op.size());
  }
  name_w = std::min<size_t>(name_w, 40);
  op_w = std::min<size_t>(op_w, 28);
  out += str_format("%10s %6s %7s  %-*s %-*s %10s  %s\n", "time(ms)", "%", "calls", static_cast<int>(name_w), "node",
                    static_cast<int>(op_w), "op", "bytes", "output shapes");
  for (const NodeProfile* n : rows) {
    const double pct = run_ns > 0 ? 100.0 * static_cast<double>(n->total_ns) / static_cast<double>(run_ns) : 0.0;
    out += str_format("%10.3f %6.1f %7lld  %-*s %-*s %10s  %s\n", static_cast<double>(n->total_ns) / 1e6, pct,
                      static_cast<long long>(n->calls), static_cast<int>(name_w), node_label(*n).c_str(),
                      static_cast<int>(op_w), n->op.c_str(), human_bytes(n->bytes).c_str(), n->shapes_str().c_str());
  }
  if (dropped_events > 0)
    out += str_format("(the trace kept the first %zu calls; %lld more are counted above only)\n", kMaxEvents,
                      static_cast<long long>(dropped_events));
  return out;
}

std::string Profile::chrome_trace() const {
  // The Trace Event Format: complete ("X") events, times in microseconds.
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"libops graph run\"}}";
  for (const ProfileEvent& e : events) {
    const NodeProfile& n = nodes[static_cast<size_t>(e.index)];
    out += ",\n{\"name\":";
    json_string(out, node_label(n));
    out += ",\"cat\":";
    json_string(out, n.op);
    out += str_format(",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"node_id\":%u,\"graph\":",
                      static_cast<double>(e.start_ns) / 1e3, static_cast<double>(e.dur_ns) / 1e3, n.id);
    json_string(out, n.graph_name);
    out += ",\"op\":";
    json_string(out, n.op);
    out += ",\"output_shapes\":";
    json_string(out, n.shapes_str());
    out += "}}";
  }
  out += "\n]}\n";
  return out;
}

Status Profile::write_chrome_trace(const std::string& path) const {
  const std::string json = chrome_trace();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr)
    return Status::error(StatusCode::kIo, "trace: cannot open '%s' for writing: %s", path.c_str(),
                         std::strerror(errno));
  const size_t wrote = std::fwrite(json.data(), 1, json.size(), f);
  const int closed = std::fclose(f);
  if (wrote != json.size() || closed != 0)
    return Status::error(StatusCode::kIo, "trace: writing '%s' failed", path.c_str());
  return Status::ok();
}

}  // namespace libops::graph
