// The pass that starts each all-reduce as soon as its inputs exist: the printed graph before and
// after, and the nodes it leaves where they are.
#include <gtest/gtest.h>

#include "kiln/engine/passes/passes.h"
#include "kiln/framework/distributed/reduce_op.h"
#include "tests/engine/graph_builder.h"

namespace kiln::engine {
namespace {

using testing::GraphBuilder;

const Attrs kStart{{"reduction", static_cast<int64_t>(distributed::ReduceOp::sum)},
                   {"bucket", int64_t{0}}};
const Attrs kWait{{"bucket", int64_t{0}}};

TEST(EarlyCollectives, AStartAndWhatOnlyFeedsItMoveUpBehindTheirInputs) {
  GraphBuilder b;
  const NodeId x = b.input({4});
  const NodeId y = b.input({4});
  const NodeId grad = b.op(OpId::mul, {x, y});
  const NodeId more = b.op(OpId::exp, {x});  // backward work after the gradient is ready
  const NodeId rest = b.op(OpId::add, {more, y});
  const NodeId packed = b.op(OpId::reshape, {grad}, {{"shape", std::vector<int64_t>{4}}});
  const NodeId start = b.op(OpId::all_reduce_start, {packed}, kStart);
  const NodeId summed = b.op(OpId::all_reduce_wait, {start}, kWait);
  const Graph g = b.finish({b.op(OpId::add, {summed, rest})});
  EXPECT_EQ(to_text(issue_collectives_early(g)),
            "%0: float32[4] = placeholder() {index=0}\n"
            "%1: float32[4] = placeholder() {index=1}\n"
            "%2: float32[4] = mul(%0, %1)\n"
            "%3: float32[4] = reshape(%2) {shape=[4]}\n"
            "%4: float32[4] = all_reduce_start(%3) {reduction=0, bucket=0}\n"
            "%5: float32[4] = exp(%0)\n"
            "%6: float32[4] = add(%5, %1)\n"
            "%7: float32[4] = all_reduce_wait(%4) {bucket=0}\n"
            "%8: float32[4] = add(%7, %6)\n"
            "return (%8)\n");
}

TEST(EarlyCollectives, WhatNeedsAReducedGradientWaitsForTheRestOfTheStep) {
  // As a trace may order it: each gradient's reduction and use together, before other work.
  GraphBuilder b;
  const NodeId x = b.input({4});
  const NodeId grad = b.op(OpId::exp, {x});
  const NodeId start = b.op(OpId::all_reduce_start, {grad}, kStart);
  const NodeId summed = b.op(OpId::all_reduce_wait, {start}, kWait);
  const NodeId update = b.op(OpId::sub, {x, summed});
  const NodeId more = b.op(OpId::neg, {x});  // the rest of backward
  const Graph g = b.finish({update, more});
  EXPECT_EQ(to_text(issue_collectives_early(g)),
            "%0: float32[4] = placeholder() {index=0}\n"
            "%1: float32[4] = exp(%0)\n"
            "%2: float32[4] = all_reduce_start(%1) {reduction=0, bucket=0}\n"
            "%3: float32[4] = neg(%0)\n"
            "%4: float32[4] = all_reduce_wait(%2) {bucket=0}\n"
            "%5: float32[4] = sub(%0, %4)\n"
            "return (%5, %3)\n");
}

TEST(EarlyCollectives, AMaskOverTheBucketMovesWithItsStart) {
  GraphBuilder b;
  const NodeId x = b.input({4});
  const NodeId keep = b.input({}, DType::boolean);
  const NodeId zero = b.constant(zeros({4}));
  const NodeId grad = b.op(OpId::exp, {x});  // elementwise, only for the bucket: moves too
  const NodeId more = b.op(OpId::neg, {x});  // the rest of backward
  const NodeId masked = b.op(OpId::where, {keep, grad, zero});
  const NodeId start = b.op(OpId::all_reduce_start, {masked}, kStart);
  const NodeId summed = b.op(OpId::all_reduce_wait, {start}, kWait);
  const Graph g = b.finish({b.op(OpId::sub, {x, summed}), more});
  EXPECT_EQ(to_text(issue_collectives_early(g)),
            "%0: float32[4] = placeholder() {index=0}\n"
            "%1: float32[4] = exp(%0)\n"
            "%2: bool[] = placeholder() {index=1}\n"
            "%3: float32[4] = constant() <0, 0, 0, 0>\n"
            "%4: float32[4] = where(%2, %1, %3)\n"
            "%5: float32[4] = all_reduce_start(%4) {reduction=0, bucket=0}\n"
            "%6: float32[4] = neg(%0)\n"
            "%7: float32[4] = all_reduce_wait(%5) {bucket=0}\n"
            "%8: float32[4] = sub(%0, %7)\n"
            "return (%8, %6)\n");
}

TEST(EarlyCollectives, AForwardReductionIsWaitedForWhereItIs) {
  GraphBuilder b;
  const NodeId x = b.input({4});
  const Attrs forward_start{{"reduction", static_cast<int64_t>(distributed::ReduceOp::sum)},
                            {"bucket", int64_t{-1}}};
  const NodeId start = b.op(OpId::all_reduce_start, {x}, forward_start);
  const NodeId summed = b.op(OpId::all_reduce_wait, {start}, {{"bucket", int64_t{-1}}});
  const NodeId used = b.op(OpId::exp, {summed});
  const Graph g = b.finish({used, b.op(OpId::neg, {x})});
  EXPECT_EQ(to_text(issue_collectives_early(g)), to_text(g));
}

TEST(EarlyCollectives, AValueUsedElsewhereStaysWhereItWas) {
  GraphBuilder b;
  const NodeId x = b.input({2});
  const NodeId more = b.op(OpId::exp, {x});
  const NodeId late = b.op(OpId::cast, {more}, {{"dtype", DType::f64}});  // also a result
  const NodeId start = b.op(OpId::all_reduce_start, {late}, kStart);
  const NodeId summed = b.op(OpId::all_reduce_wait, {start}, kWait);
  const Graph g = b.finish({summed, late});
  EXPECT_EQ(to_text(issue_collectives_early(g)), to_text(g));
}

TEST(EarlyCollectives, AGraphWithoutCollectivesIsUnchanged) {
  GraphBuilder b;
  const NodeId x = b.input({2});
  const Graph g = b.finish({b.op(OpId::exp, {x}), b.op(OpId::neg, {x})});
  EXPECT_EQ(to_text(issue_collectives_early(g)), to_text(g));
}

}  // namespace
}  // namespace kiln::engine
