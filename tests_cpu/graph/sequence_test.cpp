// Sequence and optional values in graphs (Note [Sequence values] in
// graph/executor.h): fed and returned lists, the sequence ops, lists passed
// through If and While, and the load- and run-time errors.
#include <gtest/gtest.h>

#include "graph/executor.h"
#include "graph_builder.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::all_close;
using libops::test::make;
using test::BodyBuilder;
using test::GraphBuilder;
using test::must_load;
using test::NodeArgs;
using test::Ref;

Status load_status(GraphBuilder& g) {
  std::shared_ptr<const Graph> graph;
  return test::load(g.finish(), graph);
}

Ref int_const(BodyBuilder& b, const std::string& name, double v) {
  return b.constant(name, make(DataType::kInt64, {}, {v}));
}

NodeArgs ints(std::vector<int64_t> i) {
  NodeArgs a;
  a.i = std::move(i);
  return a;
}

// s: a sequence of float32 vectors of any length; t: one more vector.
// out: s with t inserted at 1 and its last element erased; first: element 0
// of that; n: its length.
std::shared_ptr<const Graph> edit_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref s = m.placeholder_of(fb::ValueKind::SEQUENCE, "s", DataType::kFloat32, std::vector<int64_t>{-1});
  Ref t = m.placeholder("t", DataType::kFloat32, std::vector<int64_t>{-1});
  Ref inserted = m.seq(fb::SequenceOpKind::INSERT, {s, t, int_const(m, "one", 1)});
  Ref erased = m.seq(fb::SequenceOpKind::ERASE, {inserted});
  m.output("out", erased);
  m.output("first", m.seq(fb::SequenceOpKind::AT, {erased, int_const(m, "zero", 0)}));
  m.output("n", m.seq(fb::SequenceOpKind::LENGTH, {erased}));
  return must_load(g);
}

TEST(SequenceGraph, InsertEraseAtAndLengthOnAFedList) {
  Session session(edit_graph());
  ASSERT_EQ(session.graph().main().inputs[0].kind, ValueKind::kSequence);
  TensorList s;
  s.items = {make(DataType::kFloat32, {2}, {1, 2}), make(DataType::kFloat32, {3}, {3, 4, 5}),
             make(DataType::kFloat32, {1}, {6})};
  NDArray t = make(DataType::kFloat32, {4}, {7, 8, 9, 10});
  ASSERT_OK(session.run({{"s", nullptr, &s}, {"t", &t}}));
  ASSERT_EQ(session.output_kind(0), ValueKind::kSequence);
  const TensorList* out = session.output_list(0);
  ASSERT_NE(out, nullptr);
  // [1 2], [7 8 9 10], [3 4 5] (the [6] at the end erased).
  ASSERT_EQ(out->items.size(), 3u);
  EXPECT_EQ(out->dtype, DataType::kFloat32);
  EXPECT_TRUE(all_close(out->items[0], {1, 2}));
  EXPECT_TRUE(all_close(out->items[1], {7, 8, 9, 10}));
  EXPECT_TRUE(all_close(out->items[2], {3, 4, 5}));
  EXPECT_TRUE(all_close(session.output(1), {1, 2}));
  EXPECT_EQ(session.output(2).dtype(), DataType::kInt64);
  EXPECT_TRUE(all_close(session.output(2), {3}));
  // Elements are shared, not copied: the list holds the fed arrays.
  EXPECT_EQ(out->items[1].buffer(), t.buffer());

  // Another length runs on the same session.
  TensorList one;
  one.items = {make(DataType::kFloat32, {1}, {5})};
  ASSERT_OK(session.run({{"s", nullptr, &one}, {"t", &t}}));
  ASSERT_EQ(session.output_list(0)->items.size(), 1u);
  EXPECT_TRUE(all_close(session.output_list(0)->items[0], {5}));
}

TEST(SequenceGraph, FedListsAreChecked) {
  Session session(edit_graph());
  NDArray t = make(DataType::kFloat32, {1}, {1});
  TensorList ints;
  ints.items = {make(DataType::kInt32, {1}, {1})};
  Status s = session.run({{"s", nullptr, &ints}, {"t", &t}});
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_NE(s.message().find("element 0 of input 's'"), std::string::npos) << s.message();
  TensorList matrix;
  matrix.items = {make(DataType::kFloat32, {1, 1}, {1})};
  s = session.run({{"s", nullptr, &matrix}, {"t", &t}});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  s = session.run({{"s", &t}, {"t", &t}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is a sequence and was fed an array"), std::string::npos) << s.message();
  s = session.run({{"s", nullptr, nullptr}, {"t", &t}});
  EXPECT_NE(s.message().find("is a sequence and was given none"), std::string::npos) << s.message();
  const NDArray* positional[] = {&t, &t};
  s = session.run(positional, 2);
  EXPECT_NE(s.message().find("feed it by name"), std::string::npos) << s.message();
  // A position outside the list names the node.
  TensorList empty;
  empty.dtype = DataType::kFloat32;
  s = session.run({{"s", nullptr, &empty}, {"t", &t}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("sequence_insert"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("position 1 is outside 0 .. 0 for a sequence of 0"), std::string::npos) << s.message();
}

TEST(SequenceGraph, SplitAndConcatenate) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{3, 4});
  Ref lengths = m.constant("lengths", make(DataType::kInt64, {2}, {1, 3}));
  Ref cols = m.seq(fb::SequenceOpKind::SPLIT, {x, lengths}, ints({1, 1}));
  m.output("cols", cols);
  m.output("joined", m.seq(fb::SequenceOpKind::CONCAT, {cols}, ints({-1, 0})));
  Ref rows = m.seq(fb::SequenceOpKind::SPLIT, {x}, ints({0, 0}));
  m.output("rows", rows);
  m.output("stacked", m.seq(fb::SequenceOpKind::CONCAT, {rows}, ints({1, 1})));
  m.output("threes", m.seq(fb::SequenceOpKind::SPLIT, {x, int_const(m, "three", 3)}, ints({1, 0})));
  Session session(must_load(g));
  NDArray xv = make(DataType::kFloat32, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  ASSERT_OK(session.run({{"x", &xv}}));
  const TensorList* c = session.output_list(0);
  ASSERT_EQ(c->items.size(), 2u);
  EXPECT_EQ(c->items[0].shape(), Dims({3, 1}));
  EXPECT_TRUE(all_close(c->items[0], {0, 4, 8}));
  EXPECT_TRUE(all_close(c->items[1], {1, 2, 3, 5, 6, 7, 9, 10, 11}));
  EXPECT_EQ(session.output(1).shape(), Dims({3, 4}));
  EXPECT_TRUE(all_close(session.output(1), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  const TensorList* r = session.output_list(2);
  ASSERT_EQ(r->items.size(), 3u);
  EXPECT_EQ(r->items[1].shape(), Dims({4}));  // squeezed: no split, keepdims 0
  EXPECT_TRUE(all_close(r->items[1], {4, 5, 6, 7}));
  // Stacked along a new axis 1: the transpose.
  EXPECT_EQ(session.output(3).shape(), Dims({4, 3}));
  EXPECT_TRUE(all_close(session.output(3), {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  // Pieces of 3 along an extent of 4: the last is shorter.
  const TensorList* t = session.output_list(4);
  ASSERT_EQ(t->items.size(), 2u);
  EXPECT_EQ(t->items[0].shape(), Dims({3, 3}));
  EXPECT_EQ(t->items[1].shape(), Dims({3, 1}));
  EXPECT_TRUE(all_close(t->items[1], {3, 7, 11}));
}

TEST(SequenceGraph, SplitLengthsMustCoverTheAxis) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 5});
  Ref lengths = m.placeholder("lengths", DataType::kInt64, std::vector<int64_t>{2});
  m.output("parts", m.seq(fb::SequenceOpKind::SPLIT, {x, lengths}, ints({1, 1}), "split"));
  Session session(must_load(g));
  NDArray xv = make(DataType::kFloat32, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  NDArray bad = make(DataType::kInt64, {2}, {1, 3});
  Status s = session.run({{"x", &xv}, {"lengths", &bad}});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_NE(s.message().find("node 2 'split' (op split_to_sequence): split (input 1) sums to 4, but axis 1"),
            std::string::npos)
      << s.message();
  NDArray past = make(DataType::kInt64, {2}, {4, 3});
  s = session.run({{"x", &xv}, {"lengths", &past}});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_NE(s.message().find("split (input 1) holds the length 3 at 1, which is negative or runs past axis 1"),
            std::string::npos)
      << s.message();
  NDArray good = make(DataType::kInt64, {2}, {2, 3});
  ASSERT_OK(session.run({{"x", &xv}, {"lengths", &good}}));
  EXPECT_TRUE(all_close(session.output_list(0)->items[1], {2, 3, 4, 7, 8, 9}));
}

TEST(SequenceGraph, OptionalsMayBeEmpty) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref o = m.placeholder_of(fb::ValueKind::OPTIONAL_TENSOR, "o", DataType::kFloat32, std::vector<int64_t>{-1});
  m.output("has", m.seq(fb::SequenceOpKind::HAS_ELEMENT, {o}));
  m.output("value", m.seq(fb::SequenceOpKind::GET_ELEMENT, {o}, {}, "get"));
  Ref none = m.seq(fb::SequenceOpKind::OPTIONAL, {}, ints({1}));
  m.output("none_has", m.seq(fb::SequenceOpKind::HAS_ELEMENT, {none}));
  m.output("none", none);
  Session session(must_load(g));
  EXPECT_EQ(session.output_kind(3), ValueKind::kOptionalSequence);
  NDArray v = make(DataType::kFloat32, {2}, {3, 4});
  ASSERT_OK(session.run({{"o", &v}}));
  EXPECT_TRUE(all_close(session.output(0), {1}));
  EXPECT_EQ(session.output(0).dtype(), DataType::kBool);
  EXPECT_TRUE(all_close(session.output(1), {3, 4}));
  EXPECT_TRUE(all_close(session.output(2), {0}));
  EXPECT_EQ(session.output_list(3), nullptr);
  // Fed none, getting the element fails naming the node.
  Status s = session.run({{"o", nullptr}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'get' (op optional_get_element): input 0 is an empty optional"), std::string::npos)
      << s.message();
}

// (i, seq) = (0, []); while i < n: seq gains i (ragged: a vector of i + 1
// copies of i), i + 1. Returns the loop's final list.
Ref appending_loop(GraphBuilder& g, int64_t n, bool ragged) {
  BodyBuilder& cond = g.subgraph("cond");
  Ref ci = cond.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  cond.placeholder_of(fb::ValueKind::SEQUENCE, "seq", DataType::kInt64);
  cond.output("go", cond.legacy(OPS_SCALAR_BOOL, 1, {ci, int_const(cond, "n", static_cast<double>(n))}, {}, "less"));
  BodyBuilder& body = g.subgraph("body");
  Ref bi = body.placeholder("i", DataType::kInt64, std::vector<int64_t>{});
  Ref seq = body.placeholder_of(fb::ValueKind::SEQUENCE, "seq", DataType::kInt64);
  Ref next = body.op("add", {bi, int_const(body, "one", 1)});
  Ref piece = bi;
  if (ragged) {
    Ref shape = body.op("reshape", {next, body.constant("to1", make(DataType::kInt64, {1}, {1}))});
    piece = body.op("broadcast_to", {bi, shape});  // [i + 1] copies of i
  }
  body.output("i", next);
  body.output("seq", body.seq(fb::SequenceOpKind::INSERT, {seq, piece}));
  BodyBuilder& m = g.main();
  NodeArgs empty;
  empty.d = {static_cast<int32_t>(DataType::kInt64)};
  Ref start = m.seq(fb::SequenceOpKind::EMPTY, {}, empty);
  return m.while_(0, 1, {int_const(m, "zero", 0), start}, "loop")[1];
}

// A list built in a loop whose elements' shapes differ, which a stacked
// scan output could not hold.
TEST(SequenceGraph, WhileGrowsARaggedList) {
  GraphBuilder g;
  Ref list = appending_loop(g, 3, true);
  BodyBuilder& m = g.main();
  m.output("seq", list);
  m.output("joined", m.seq(fb::SequenceOpKind::CONCAT, {list}, ints({0, 0})));
  Session session(must_load(g));
  ASSERT_OK(session.run(static_cast<const NDArray* const*>(nullptr), 0));
  const TensorList* l = session.output_list(0);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->items.size(), 3u);
  EXPECT_TRUE(all_close(l->items[0], {0}));
  EXPECT_TRUE(all_close(l->items[2], {2, 2, 2}));
  EXPECT_TRUE(all_close(session.output(1), {0, 1, 1, 2, 2, 2}));
}

// A list grown in a While is edited in place once the loop owns it (Note
// [Sequence values]): 1,000 appends give every element in order.
TEST(SequenceGraph, WhileAppendsAThousandElements) {
  GraphBuilder g;
  Ref list = appending_loop(g, 1000, false);
  g.main().output("all", g.main().seq(fb::SequenceOpKind::CONCAT, {list}, ints({0, 1})));
  Session session(must_load(g));
  for (int run = 0; run < 2; ++run) {
    ASSERT_OK(session.run(static_cast<const NDArray* const*>(nullptr), 0));
    std::vector<double> want(1000);
    for (int i = 0; i < 1000; ++i) want[static_cast<size_t>(i)] = i;
    EXPECT_TRUE(all_close(session.output(0), want)) << "run " << run;
  }
}

// A list read again after an insert is copied, not edited: s keeps its one
// element while two inserts each give their own list.
TEST(SequenceGraph, AListReadAgainIsNotEditedInPlace) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref a = m.placeholder("a", DataType::kFloat32, std::vector<int64_t>{1});
  Ref b = m.placeholder("b", DataType::kFloat32, std::vector<int64_t>{1});
  Ref s = m.seq(fb::SequenceOpKind::CONSTRUCT, {a});
  Ref with_a = m.seq(fb::SequenceOpKind::INSERT, {s, a});
  Ref with_b = m.seq(fb::SequenceOpKind::INSERT, {s, b});
  m.output("with_a", with_a);
  m.output("with_b", with_b);
  m.output("n", m.seq(fb::SequenceOpKind::LENGTH, {s}));
  Session session(must_load(g));
  NDArray av = make(DataType::kFloat32, {1}, {1});
  NDArray bv = make(DataType::kFloat32, {1}, {2});
  ASSERT_OK(session.run({{"a", &av}, {"b", &bv}}));
  ASSERT_EQ(session.output_list(0)->items.size(), 2u);
  ASSERT_EQ(session.output_list(1)->items.size(), 2u);
  EXPECT_TRUE(all_close(session.output_list(0)->items[1], {1}));
  EXPECT_TRUE(all_close(session.output_list(1)->items[1], {2}));
  EXPECT_TRUE(all_close(session.output(2), {1}));
}

// then: (a, b) -> [a, b]; else: (a, b) -> [a]: an If gives lists of
// different lengths.
TEST(SequenceGraph, IfBranchesGiveLists) {
  GraphBuilder g;
  BodyBuilder& then_b = g.subgraph("then");
  Ref ta = then_b.placeholder("a", DataType::kFloat32, std::nullopt);
  Ref tb = then_b.placeholder("b", DataType::kFloat32, std::nullopt);
  then_b.output("seq", then_b.seq(fb::SequenceOpKind::CONSTRUCT, {ta, tb}));
  BodyBuilder& else_b = g.subgraph("else");
  Ref ea = else_b.placeholder("a", DataType::kFloat32, std::nullopt);
  else_b.placeholder("b", DataType::kFloat32, std::nullopt);
  else_b.output("seq", else_b.seq(fb::SequenceOpKind::CONSTRUCT, {ea}));
  BodyBuilder& m = g.main();
  Ref c = m.placeholder("c", DataType::kBool, std::vector<int64_t>{});
  Ref a = m.placeholder("a", DataType::kFloat32, std::vector<int64_t>{2});
  Ref b = m.placeholder("b", DataType::kFloat32, std::vector<int64_t>{3});
  Ref seq = m.if_(c, 0, 1, {a, b}, 1)[0];
  m.output("seq", seq);
  m.output("n", m.seq(fb::SequenceOpKind::LENGTH, {seq}));
  Session session(must_load(g));
  NDArray av = make(DataType::kFloat32, {2}, {1, 2});
  NDArray bv = make(DataType::kFloat32, {3}, {3, 4, 5});
  NDArray yes = make(DataType::kBool, {}, {1});
  NDArray no = make(DataType::kBool, {}, {0});
  ASSERT_OK(session.run({{"c", &yes}, {"a", &av}, {"b", &bv}}));
  ASSERT_EQ(session.output_list(0)->items.size(), 2u);
  EXPECT_TRUE(all_close(session.output_list(0)->items[1], {3, 4, 5}));
  EXPECT_TRUE(all_close(session.output(1), {2}));
  ASSERT_OK(session.run({{"c", &no}, {"a", &av}, {"b", &bv}}));
  ASSERT_EQ(session.output_list(0)->items.size(), 1u);
  EXPECT_TRUE(all_close(session.output(1), {1}));
}

TEST(SequenceGraph, KindsAreCheckedAtLoad) {
  {  // an op given a sequence
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref s = m.placeholder_of(fb::ValueKind::SEQUENCE, "s", DataType::kFloat32);
    m.output("y", m.op("neg", {s}, {}, "negate"));
    Status st = load_status(g);
    EXPECT_EQ(st.code(), StatusCode::kInvalidGraph);
    EXPECT_NE(st.message().find("'negate' (op neg): input 0 is a sequence; the op takes tensors"), std::string::npos)
        << st.message();
  }
  {  // a sequence op given a tensor where it reads a sequence
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    m.output("n", m.seq(fb::SequenceOpKind::LENGTH, {x}));
    Status st = load_status(g);
    EXPECT_NE(st.message().find("(op sequence_length): input 0 is a tensor; this op reads a sequence there"),
              std::string::npos)
        << st.message();
  }
  {  // branches of different kinds
    GraphBuilder g;
    BodyBuilder& then_b = g.subgraph("then");
    Ref ta = then_b.placeholder("a", DataType::kFloat32, std::nullopt);
    then_b.output("out", then_b.seq(fb::SequenceOpKind::CONSTRUCT, {ta}));
    BodyBuilder& else_b = g.subgraph("else");
    Ref ea = else_b.placeholder("a", DataType::kFloat32, std::nullopt);
    else_b.output("out", ea);
    BodyBuilder& m = g.main();
    Ref c = m.placeholder("c", DataType::kBool, std::vector<int64_t>{});
    Ref a = m.placeholder("a", DataType::kFloat32, std::vector<int64_t>{2});
    m.output("out", m.if_(c, 0, 1, {a}, 1)[0]);
    Status st = load_status(g);
    EXPECT_NE(st.message().find("its branches give output 0 as a sequence ('then') and a tensor ('else')"),
              std::string::npos)
        << st.message();
  }
  {  // wrong arity and args
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref s = m.placeholder_of(fb::ValueKind::SEQUENCE, "s", DataType::kFloat32);
    m.output("y", m.seq(fb::SequenceOpKind::CONCAT, {s}, ints({0, 2})));
    Status st = load_status(g);
    EXPECT_NE(st.message().find("new_axis (int arg 1) is 2"), std::string::npos) << st.message();
  }
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref s = m.placeholder_of(fb::ValueKind::SEQUENCE, "s", DataType::kFloat32);
    m.output("y", m.seq(fb::SequenceOpKind::AT, {s}));
    Status st = load_status(g);
    EXPECT_NE(st.message().find("takes 2 inputs, the node gives 1"), std::string::npos) << st.message();
  }
}

TEST(SequenceGraph, InsertChecksTheElementDtype) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref a = m.placeholder("a", DataType::kFloat32, std::vector<int64_t>{1});
  Ref b = m.placeholder("b", DataType::kInt32, std::vector<int64_t>{1});
  Ref s = m.seq(fb::SequenceOpKind::CONSTRUCT, {a});
  m.output("s", m.seq(fb::SequenceOpKind::INSERT, {s, b}, {}, "add_b"));
  Session session(must_load(g));
  NDArray av = make(DataType::kFloat32, {1}, {1});
  NDArray bv = make(DataType::kInt32, {1}, {2});
  Status st = session.run({{"a", &av}, {"b", &bv}});
  EXPECT_EQ(st.code(), StatusCode::kDtype);
  EXPECT_NE(st.message().find("'add_b' (op sequence_insert): a sequence of float32 cannot take an element of int32"),
            std::string::npos)
      << st.message();
}

}  // namespace
}  // namespace libops::graph
