// fused_elementwise: the node fuse_elementwise() (passes/fuse_elementwise.cpp) makes of a tree of float32
// elementwise ops. Like cond and while_loop it is a structured op: the node holds its members as a sub-graph of
// ordinary nodes (its body: one input per fused input, the member ops in graph order, the tree's root as the one
// output), printed, saved to JSON and drawn like any other graph. Its kernel runs the body in one pass over the
// data: the members' own registered kernels over cache-sized chunks of the output when every input has the
// output's shape or one element, otherwise over whole tensors. Its gradient applies the members' gradient rules
// in reverse.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "graph/detail/structured.h"
#include "tracelab/eager/execute.h"
#include "tracelab/graph/passes.h"
#include "tracelab/ops/math.h"

namespace tl::graph {
namespace {

/// An operand of a body step: fused input `index`, or the result of step `index`.
struct Operand {
  bool is_result = false;
  std::size_t index = 0;
};

/// One member op of the body, with where its operands come from.
struct Step {
  const OpDef* op = nullptr;
  std::vector<Operand> operands;
  std::size_t node = 0;  ///< its node in the body, for messages
};

/// "%3 = add", for messages.
std::string label(const Step& step) { return tl::detail::cat('%', step.node, " = ", step.op->name()); }

using Program = std::vector<Step>;

const Attrs& no_attrs() {
  static const Attrs empty;
  return empty;
}

/// "fused_elementwise: body node %3 (add): ", for messages.
std::string where(const Node& node, std::size_t i) {
  return tl::detail::cat("fused_elementwise: body node %", i, " (", node.label(), "): ");
}

/// The body's steps, checked: inputs first, then pure one-output elementwise registry ops without attributes,
/// the last one the body's only output. Throws InvalidArgument naming the body node.
Program compile(const Graph& body) {
  Program program;
  std::vector<Operand> value_of(body.num_nodes());
  std::size_t num_inputs = 0;
  for (std::size_t i = 0; i < body.num_nodes(); ++i) {
    const Node& node = body.node(i);
    if (node.kind == NodeKind::input) {
      TL_CHECK(program.empty(), InvalidArgument, where(node, i), "inputs must come before the member ops");
      value_of[i] = {false, num_inputs++};
      continue;
    }
    TL_CHECK(node.kind == NodeKind::op && node.op != nullptr && node.subgraphs.empty() &&
                 OpRegistry::global().find(node.op->name()) == node.op,
             InvalidArgument, where(node, i), "a fused body holds only inputs and registry ops");
    const OpDef& op = *node.op;
    TL_CHECK(op.has(trait::elementwise) && !op.has(trait::side_effects) && !op.has(trait::stateful) &&
                 op.num_outputs() == 1 && node.attrs.empty(),
             InvalidArgument, where(node, i), "'", op.name(),
             "' is not a pure one-output elementwise op without attributes");
    Step step{&op, {}, i};
    for (const ValueRef& v : node.inputs) step.operands.push_back(value_of[v.node]);
    value_of[i] = {true, program.size()};
    program.push_back(std::move(step));
  }
  TL_CHECK(!program.empty(), InvalidArgument, "fused_elementwise: the body has no member ops");
  TL_CHECK(body.outputs().size() == 1 && body.outputs()[0].node + 1 == body.num_nodes(), InvalidArgument,
           "fused_elementwise: the body must return the result of its last node, and only that");
  return program;
}

/// The program of `body`, compiled once per body for the shape rule, the kernel (its state keeps it) and the
/// gradient: a per-thread cache of the last 64 bodies, each held by a weak_ptr, so a body that is gone is never
/// taken for a new one at its address. A body that does not compile is not cached.
std::shared_ptr<const Program> program_of(const std::shared_ptr<const Graph>& body) {
  constexpr std::size_t kCached = 64;
  struct Entry {
    const Graph* address;
    std::weak_ptr<const Graph> body;
    std::shared_ptr<const Program> program;
  };
  thread_local std::vector<Entry> cache;
  for (const Entry& e : cache)
    if (e.address == body.get() && !e.body.expired()) return e.program;
  auto program = std::make_shared<const Program>(compile(*body));
  std::erase_if(cache, [](const Entry& e) { return e.body.expired(); });
  if (cache.size() == kCached) cache.erase(cache.begin());
  cache.push_back({body.get(), body, program});
  return program;
}

std::size_t byte_size(const Tensor& t) { return static_cast<std::size_t>(t.num_elements()) * dtype_size(t.dtype()); }

/// A scratch tensor of `meta` that nobody else holds, from a per-thread pool: steady-state calls of a fused
/// kernel allocate no intermediate buffers. The pool keeps at most 64 tensors and 64 MiB, oldest dropped first;
/// an intermediate above 16 MiB is allocated per call instead of pinning its memory for the life of the thread.
Tensor scratch_tensor(const TensorMeta& meta) {
  constexpr std::size_t kMaxTensors = 64, kMaxBytes = std::size_t{64} << 20, kMaxTensorBytes = std::size_t{16} << 20;
  thread_local std::vector<Tensor> pool;
  thread_local std::size_t pooled_bytes = 0;
  for (Tensor& t : pool)
    if (t.meta() == meta && t.impl_ptr().use_count() == 1) return t;
  Tensor fresh = Tensor::empty(meta.dtype, meta.shape);
  const std::size_t bytes = byte_size(fresh);
  if (bytes > kMaxTensorBytes) return fresh;
  while (!pool.empty() && (pool.size() >= kMaxTensors || pooled_bytes + bytes > kMaxBytes)) {
    pooled_bytes -= byte_size(pool.front());
    pool.erase(pool.begin());
  }
  pool.push_back(fresh);
  pooled_bytes += bytes;
  return fresh;
}

/// The tensors step `step` reads, from the fused inputs and the results so far.
template <class Inputs>
std::vector<Tensor> operands_of(const Step& step, const Inputs& inputs, const std::vector<Tensor>& results) {
  std::vector<Tensor> values;
  values.reserve(step.operands.size());
  for (const Operand& o : step.operands) values.push_back(o.is_result ? results[o.index] : inputs[o.index]);
  return values;
}

/// Each member's result meta for body inputs of `inputs` (`input(i)` gives input i's meta): the members' own shape
/// rules in order, errors naming the member; every result must be float32.
template <class Input>
std::vector<TensorMeta> member_metas(const Program& program, Input&& input) {
  std::vector<TensorMeta> results(program.size());
  for (std::size_t j = 0; j < program.size(); ++j) {
    const Step& step = program[j];
    std::vector<const TensorMeta*> metas;
    for (const Operand& o : step.operands) metas.push_back(o.is_result ? &results[o.index] : &input(o.index));
    try {
      step.op->infer(metas, no_attrs(), std::span<TensorMeta>(&results[j], 1));
    } catch (const Error&) {
      tl::detail::rethrow_prefixed(tl::detail::cat("fused_elementwise: body ", label(step), ": "));
    }
    TL_CHECK(results[j].dtype == DType::float32, DTypeError, "fused_elementwise: body ", label(step), " gives ",
             meta_str(results[j]), "; only float32 results can be fused");
  }
  return results;
}

/// Shape rule: one float32 input per body input; each member's own shape rule on the metas so far; the last result.
void infer(const Program& program, std::size_t num_inputs, ShapeContext& ctx) {
  TL_CHECK(ctx.inputs.size() == num_inputs, InvalidArgument, "fused_elementwise: expected ", num_inputs,
           " input(s) (one per body input), got ", ctx.inputs.size());
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i)
    TL_CHECK(ctx.input(i).dtype == DType::float32, DTypeError, "fused_elementwise: input ", i,
             " must be float32, got ", meta_str(ctx.input(i)));
  ctx.output() = member_metas(program, [&](std::size_t i) -> const TensorMeta& { return ctx.input(i); }).back();
}

/// The program of a node's body and what running it on whole tensors last needed (the kernel's state): a plan's node runs on inputs of the same metas call after call, so the members' shape rules
/// run once per input metas, and small intermediate results keep their buffers between calls.
struct FusedState final : KernelState {
  std::shared_ptr<const Graph> body;
  std::shared_ptr<const Program> program;
  std::vector<std::size_t> last_use;     ///< per step: the last step that reads its result
  std::vector<TensorMeta> input_metas;   ///< the inputs step_metas were inferred for
  std::vector<TensorMeta> step_metas;    ///< each step's result meta (the last one's is the output's)
  std::vector<Tensor> held;              ///< per step: its small result buffer, kept (undefined: from the pool)
  std::vector<Tensor> results;           ///< per step, during a run
  std::vector<const Tensor*> operands;   ///< one step's operands, during a run
};

/// Intermediate results up to this size keep their buffers in the node's state; larger ones come from the
/// per-thread scratch pool each call.
constexpr std::int64_t kHeldBytes = std::int64_t{64} << 10;

/// Runs the program on whole tensors; the last step writes straight into `out`.
void run_whole(FusedState& s, TensorRefs inputs, Tensor& out) {
  const Program& program = *s.program;
  bool same = s.input_metas.size() == inputs.size();
  for (std::size_t i = 0; i < inputs.size() && same; ++i) same = s.input_metas[i] == inputs[i].meta();
  if (!same) {  // kept only once every step's meta is inferred
    s.step_metas = member_metas(program, [&](std::size_t i) -> const TensorMeta& { return inputs[i].meta(); });
    s.input_metas.clear();
    for (const Tensor& x : inputs) s.input_metas.push_back(x.meta());
    s.held.assign(program.size(), Tensor());
  }
  s.results.assign(program.size(), Tensor());
  for (std::size_t j = 0; j < program.size(); ++j) {
    if (j > 0)  // results are dropped after their last reader, so the scratch pool cycles through a few tensors
      for (const Operand& o : program[j - 1].operands)
        if (o.is_result && s.last_use[o.index] == j - 1) s.results[o.index] = Tensor();
    s.operands.clear();
    for (const Operand& o : program[j].operands)
      s.operands.push_back(o.is_result ? &s.results[o.index] : &inputs[o.index]);
    const TensorRefs operands(s.operands.data(), s.operands.size());
    if (j + 1 == program.size()) {
      program[j].op->run(operands, no_attrs(), std::span<Tensor>(&out, 1));
      break;
    }
    // A held buffer is this node's alone: the pool hands out only tensors nobody else holds, and results are
    // released at the end of every run.
    const TensorMeta& meta = s.step_metas[j];
    Tensor& held = s.held[j];
    if (!held.defined()) {
      s.results[j] = scratch_tensor(meta);
      const std::int64_t bytes = meta.shape.num_elements() * static_cast<std::int64_t>(dtype_size(meta.dtype));
      if (bytes <= kHeldBytes) held = s.results[j];
    } else {
      s.results[j] = held;
    }
    program[j].op->run(operands, no_attrs(), std::span<Tensor>(&s.results[j], 1));
  }
  std::fill(s.results.begin(), s.results.end(), Tensor());
}

constexpr std::int64_t kChunk = 4096;  // elements per chunk: a few 16 KiB arrays stay in L1/L2

/// Scratch for chunks of `length` elements: one tensor per full-size input and per step result.
struct ChunkScratch {
  std::vector<Tensor> inputs;
  std::vector<Tensor> results;
};

ChunkScratch make_scratch(const Program& program, TensorRefs inputs, std::int64_t length) {
  ChunkScratch s;
  std::vector<bool> input_full, result_full;  // a chunk of a full-size value, or one broadcast scalar
  for (const Tensor& x : inputs) {
    input_full.push_back(x.num_elements() != 1);
    s.inputs.push_back(Tensor::empty(DType::float32, input_full.back() ? Shape{length} : Shape{}));
    if (!input_full.back()) *s.inputs.back().mutable_data<float>() = *x.data<float>();
  }
  for (const Step& step : program) {
    bool full = false;
    for (const Operand& o : step.operands) full = full || (o.is_result ? result_full[o.index] : input_full[o.index]);
    result_full.push_back(full);
    s.results.push_back(Tensor::empty(DType::float32, full ? Shape{length} : Shape{}));
  }
  return s;
}

/// Runs the program chunk by chunk: copy each full input's slice in, run every member kernel on the scratch
/// tensors, copy the last result out.
void run_chunked(const Program& program, TensorRefs inputs, const Tensor& out) {
  const std::int64_t n = out.num_elements();
  ChunkScratch full = make_scratch(program, inputs, kChunk);
  ChunkScratch tail;
  float* po = out.mutable_data<float>();
  for (std::int64_t at = 0; at < n; at += kChunk) {
    const std::int64_t length = std::min(kChunk, n - at);
    if (length < kChunk && tail.results.empty()) tail = make_scratch(program, inputs, length);
    ChunkScratch& s = length == kChunk ? full : tail;
    const auto bytes = static_cast<std::size_t>(length) * sizeof(float);
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].num_elements() != 1)
        std::memcpy(s.inputs[i].mutable_data<float>(), inputs[i].data<float>() + at, bytes);
    for (std::size_t j = 0; j < program.size(); ++j) {
      std::vector<Tensor> operands = operands_of(program[j], s.inputs, s.results);
      program[j].op->run(operands, no_attrs(), std::span<Tensor>(&s.results[j], 1));
    }
    std::memcpy(po + at, s.results.back().data<float>(), bytes);
  }
}

void run(FusedState& state, KernelContext& ctx) {
  Tensor out = ctx.output();
  bool chunkable = out.num_elements() > kChunk;
  for (const Tensor& x : ctx.inputs) chunkable &= x.shape() == out.shape() || x.num_elements() == 1;
  if (chunkable) run_chunked(*state.program, ctx.inputs, out);
  else run_whole(state, ctx.inputs, out);
}

/// Replays the members with public execution (recorded by any outer tape or tracer), then applies their
/// gradient rules in reverse, summing the gradients of inputs and results used more than once.
void gradient(const Program& program, const GradContext& c, std::span<Tensor> d) {
  std::fill(d.begin(), d.end(), Tensor());  // accumulated below; an input no member reads gets none
  const std::size_t k = program.size();
  std::vector<Tensor> results(k);
  for (std::size_t j = 0; j + 1 < k; ++j)
    results[j] = execute(*program[j].op, operands_of(program[j], c.inputs, results), no_attrs());
  results[k - 1] = c.output();
  std::vector<Tensor> upstream(k);
  upstream[k - 1] = c.grad();
  for (std::size_t j = k; j-- > 0;) {
    if (!upstream[j].defined()) continue;  // a result nothing reads
    const Step& step = program[j];
    std::vector<Tensor> operands = operands_of(step, c.inputs, results);
    std::vector<Tensor> grads(operands.size());
    GradContext member{*step.op, operands, std::span<const Tensor>(&results[j], 1), no_attrs(),
                       std::span<const Tensor>(&upstream[j], 1)};
    step.op->backward(member, grads);
    for (std::size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) continue;
      Tensor& sum = step.operands[i].is_result ? upstream[step.operands[i].index] : d[step.operands[i].index];
      sum = sum.defined() ? add(sum, grads[i]) : grads[i];
    }
  }
}

/// The node's state, with the program of its current body.
FusedState& state_of(const KernelContext& c) {
  auto& state = c.state<FusedState>();
  if (state.body != c.subgraphs[0]) {
    state = FusedState{};
    state.program = program_of(c.subgraphs[0]);
    const Program& program = *state.program;
    state.last_use.assign(program.size(), 0);
    for (std::size_t j = 0; j < program.size(); ++j)
      for (const Operand& o : program[j].operands)
        if (o.is_result) state.last_use[o.index] = j;
    state.body = c.subgraphs[0];
  }
  return state;
}

}  // namespace

const OpDef& fused_elementwise_op() {
  detail::register_graph_structured_ops();
  return OpRegistry::global().get("fused_elementwise");
}

namespace detail {

void register_graph_structured_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    OpRegistry::global()
        .op("fused_elementwise")
        .doc("float32 elementwise ops run as one node in one pass over the data; the members are the body "
             "sub-graph; made by the graph optimizer")
        .variadic_inputs(1)
        .subgraphs(1)
        .traits(trait::elementwise | trait::subgraphs_as_is)
        .shape_fn([](ShapeContext& c) { infer(*program_of(c.subgraphs[0]), c.subgraphs[0]->inputs().size(), c); })
        .kernel([](KernelContext& c) { run(state_of(c), c); })
        .gradient([](const GradContext& c, std::span<Tensor> d) { gradient(*program_of(c.subgraphs[0]), c, d); });
  });
}

}  // namespace detail
}  // namespace tl::graph
