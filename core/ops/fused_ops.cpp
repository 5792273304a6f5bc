// Fused ops, produced by the graph optimizer (core/graph/passes/fuse_*.cpp) rather than called by users:
//
//   fused_matmul(a, b, bias; transpose_a, transpose_b, activation)
//     = act(matmul(a, b) + bias), act in none | relu | sigmoid | tanh, bias f32[] / f32[1] / f32[n]
//     GEMM (matmul's own kernel) then one pass over the output adding the bias and applying act.
//
//   fused_elementwise(x_0, ..., x_m; program)
//     runs a small program of elementwise registry ops, e.g. "mul %0 %1; add %r0 %2; relu %r1":
//     instructions separated by ';', each an op name and its operands, %i = input i, %rj = the result of
//     instruction j < the current one; the last result is the output. The scalar math stays in the member
//     ops: the kernel calls their registered kernels, over cache-sized chunks of the output when every input
//     has the output's shape or one element, otherwise over whole tensors.
#include <Eigen/Core>
#include <algorithm>
#include <map>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "ops/detail/elementwise.h"
#include "ops/detail/grad_utils.h"
#include "ops/detail/register.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/linalg.h"
#include "tracelab/ops/math.h"

namespace tl::detail {
namespace {

// ---------------------------------------------------------------- fused_elementwise: the program ----

struct Operand {
  bool is_result = false;  ///< %rj (a result) or %i (an input)
  std::size_t index = 0;
};

struct Instruction {
  const OpDef* op = nullptr;
  std::vector<Operand> operands;
  std::string text;  ///< "add %r0 %2", for messages
};

using Program = std::vector<Instruction>;

const Attrs& no_attrs() {
  static const Attrs empty;
  return empty;
}

Operand parse_operand(const std::string& token, std::size_t num_inputs, std::size_t at, const std::string& where) {
  const bool is_result = token.size() >= 3 && token[1] == 'r';
  const std::size_t digits = is_result ? 2 : 1;
  bool ok = token.size() > digits && token[0] == '%' &&
            std::all_of(token.begin() + static_cast<std::ptrdiff_t>(digits), token.end(),
                        [](char c) { return c >= '0' && c <= '9'; }) && token.size() - digits <= 9;
  TL_CHECK(ok, InvalidArgument, where, "operand '", token, "' is neither %<input> nor %r<instruction>");
  Operand operand{is_result, std::stoul(token.substr(digits))};
  if (is_result)
    TL_CHECK(operand.index < at, InvalidArgument, where, token, " is not the result of an earlier instruction");
  else
    TL_CHECK(operand.index < num_inputs, InvalidArgument, where, token, " names input ", operand.index,
             ", but the op has ", num_inputs, " input(s)");
  return operand;
}

/// Parses and validates a program for `num_inputs` inputs; throws InvalidArgument naming the instruction.
Program parse_program(const std::string& text, std::size_t num_inputs) {
  Program program;
  std::stringstream instructions(text);
  std::string line;
  while (std::getline(instructions, line, ';')) {
    line.erase(0, line.find_first_not_of(" \t\n"));
    line.erase(line.find_last_not_of(" \t\n") + 1);
    std::istringstream words(line);
    std::string name, token;
    words >> name;
    const std::string where = cat("fused_elementwise: instruction ", program.size(), " ('", line, "'): ");
    TL_CHECK(!name.empty(), InvalidArgument, where, "is empty");
    Instruction instruction{OpRegistry::global().find(name), {}, line};
    TL_CHECK(instruction.op != nullptr, InvalidArgument, where, "unknown op '", name, "'");
    const OpDef& op = *instruction.op;
    TL_CHECK(op.has(trait::elementwise) && !op.has(trait::side_effects) && !op.has(trait::stateful) &&
                 op.num_outputs() == 1 && op.name() != "fused_elementwise",
             InvalidArgument, where, "'", name, "' is not a pure one-output elementwise op");
    while (words >> token) instruction.operands.push_back(parse_operand(token, num_inputs, program.size(), where));
    program.push_back(std::move(instruction));
  }
  TL_CHECK(!program.empty(), InvalidArgument, "fused_elementwise: the program is empty");
  return program;
}

const std::string& program_text(const Attrs& attrs) { return attrs.get<std::string>("program"); }

/// The parsed program of `attrs`, cached per thread by text and input count (a graph runs the same few
/// programs on every call; parsing each time cost more than the fused work on small tensors).
const Program& program_of(const Attrs& attrs, std::size_t num_inputs) {
  thread_local std::map<std::pair<std::string, std::size_t>, Program> cache;
  auto key = std::make_pair(program_text(attrs), num_inputs);
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  Program program = parse_program(key.first, num_inputs);  // throws before anything is cached
  if (cache.size() >= 256) cache.clear();
  return cache.emplace(std::move(key), std::move(program)).first->second;
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

/// The tensors instruction `ins` reads, from the op's inputs and the results so far.
std::vector<Tensor> operands_of(const Instruction& ins, std::span<const Tensor> inputs,
                                const std::vector<Tensor>& results) {
  std::vector<Tensor> values;
  values.reserve(ins.operands.size());
  for (const Operand& o : ins.operands) values.push_back(o.is_result ? results[o.index] : inputs[o.index]);
  return values;
}

/// Re-throws a member's error as the same kind of error, prefixed with where it happened.
[[noreturn]] void rethrow_in(const std::string& where) {
  try {
    throw;
  } catch (const ShapeError& e) {
    throw ShapeError(where + e.what());
  } catch (const DTypeError& e) {
    throw DTypeError(where + e.what());
  } catch (const Error& e) {
    throw InvalidArgument(where + e.what());
  }
}

/// Shape rule: every input float32; each instruction's own shape rule on the metas so far; the last result.
void fused_elementwise_shape(ShapeContext& ctx) {
  const Program& program = program_of(ctx.attrs, ctx.inputs.size());
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i)
    TL_CHECK(ctx.input(i).dtype == DType::float32, DTypeError, "fused_elementwise: input ", i,
             " must be float32, got ", meta_str(ctx.input(i)));
  std::vector<TensorMeta> results(program.size());
  for (std::size_t j = 0; j < program.size(); ++j) {
    const Instruction& ins = program[j];
    std::vector<const TensorMeta*> metas;
    for (const Operand& o : ins.operands) metas.push_back(o.is_result ? &results[o.index] : &ctx.input(o.index));
    try {
      ins.op->infer(metas, no_attrs(), std::span<TensorMeta>(&results[j], 1));
    } catch (const Error&) {
      rethrow_in(cat("fused_elementwise: instruction ", j, " ('", ins.text, "'): "));
    }
    TL_CHECK(results[j].dtype == DType::float32, DTypeError, "fused_elementwise: instruction ", j, " ('", ins.text,
             "') gives ", meta_str(results[j]), "; only float32 results can be fused");
  }
  ctx.output() = results.back();
}

/// Runs the program on whole tensors; the last instruction writes straight into `out`.
void run_whole(const Program& program, std::span<const Tensor> inputs, Tensor& out) {
  std::vector<Tensor> results(program.size());
  std::vector<std::size_t> last_use(program.size(), 0);  // results are dropped after their last reader, so the
  for (std::size_t j = 0; j < program.size(); ++j)       // scratch pool cycles through a few tensors
    for (const Operand& o : program[j].operands)
      if (o.is_result) last_use[o.index] = j;
  for (std::size_t j = 0; j < program.size(); ++j) {
    if (j > 0)
      for (const Operand& o : program[j - 1].operands)
        if (o.is_result && last_use[o.index] == j - 1) results[o.index] = Tensor();
    std::vector<Tensor> operands = operands_of(program[j], inputs, results);
    if (j + 1 == program.size()) {
      program[j].op->run(operands, no_attrs(), std::span<Tensor>(&out, 1));
      return;
    }
    std::vector<const TensorMeta*> metas;
    for (const Tensor& t : operands) metas.push_back(&t.meta());
    TensorMeta meta;
    program[j].op->infer(metas, no_attrs(), std::span<TensorMeta>(&meta, 1));
    results[j] = scratch_tensor(meta);
    program[j].op->run(operands, no_attrs(), std::span<Tensor>(&results[j], 1));
  }
}

constexpr std::int64_t kChunk = 4096;  // elements per chunk: a few 16 KiB arrays stay in L1/L2

/// Scratch for chunks of `length` elements: one tensor per full-size input and per instruction result.
struct ChunkScratch {
  std::vector<Tensor> inputs;
  std::vector<Tensor> results;
};

ChunkScratch make_scratch(const Program& program, std::span<const Tensor> inputs, std::int64_t length) {
  ChunkScratch s;
  std::vector<bool> input_full, result_full;  // a chunk of a full-size value, or one broadcast scalar
  for (const Tensor& x : inputs) {
    input_full.push_back(x.num_elements() != 1);
    s.inputs.push_back(Tensor::empty(DType::float32, input_full.back() ? Shape{length} : Shape{}));
    if (!input_full.back()) *s.inputs.back().mutable_data<float>() = *x.data<float>();
  }
  for (const Instruction& ins : program) {
    bool full = false;
    for (const Operand& o : ins.operands) full = full || (o.is_result ? result_full[o.index] : input_full[o.index]);
    result_full.push_back(full);
    s.results.push_back(Tensor::empty(DType::float32, full ? Shape{length} : Shape{}));
  }
  return s;
}

/// Runs the program chunk by chunk: copy each full input's slice in, run every member kernel on the
/// scratch tensors, copy the last result out.
void run_chunked(const Program& program, std::span<const Tensor> inputs, const Tensor& out) {
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

void fused_elementwise_kernel(KernelContext& ctx) {
  const Program& program = program_of(ctx.attrs, ctx.inputs.size());
  Tensor out = ctx.output();
  bool chunkable = out.num_elements() > kChunk;
  for (const Tensor& x : ctx.inputs) chunkable &= x.shape() == out.shape() || x.num_elements() == 1;
  if (chunkable) run_chunked(program, ctx.inputs, out);
  else run_whole(program, ctx.inputs, out);
}

/// Replays the members with public execution (recorded by any outer tape or tracer), then applies their
/// gradient rules in reverse, summing the gradients of inputs and results used more than once.
void fused_elementwise_gradient(const GradContext& c, std::span<Tensor> d) {
  Program program = parse_program(program_text(c.attrs), c.inputs.size());
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
    const Instruction& ins = program[j];
    std::vector<Tensor> operands = operands_of(ins, c.inputs, results);
    std::vector<Tensor> grads(operands.size());
    GradContext member{*ins.op, operands, std::span<const Tensor>(&results[j], 1), no_attrs(),
                       std::span<const Tensor>(&upstream[j], 1)};
    ins.op->backward(member, grads);
    for (std::size_t i = 0; i < grads.size(); ++i) {
      if (!grads[i].defined()) continue;
      Tensor& sum = ins.operands[i].is_result ? upstream[ins.operands[i].index] : d[ins.operands[i].index];
      sum = sum.defined() ? add(sum, grads[i]) : grads[i];
    }
  }
}

// ---------------------------------------------------------------------- fused_matmul ----

enum class Activation { none, relu, sigmoid, tanh };

Activation activation_of(const Attrs& attrs) {
  const std::string name = attrs.get_or<std::string>("activation", "none");
  if (name == "none") return Activation::none;
  if (name == "relu") return Activation::relu;
  if (name == "sigmoid") return Activation::sigmoid;
  TL_CHECK(name == "tanh", InvalidArgument, "fused_matmul: activation must be none, relu, sigmoid or tanh, got '",
           name, "'");
  return Activation::tanh;
}

/// The attributes matmul itself takes (transpose_a, transpose_b).
Attrs matmul_attrs(const Attrs& attrs) {
  Attrs out;
  for (const char* name : {"transpose_a", "transpose_b"})
    if (attrs.has(name)) out.set(name, attrs.get<bool>(name));
  return out;
}

const OpDef& matmul_op() {
  static const OpDef& op = OpRegistry::global().get("matmul");
  return op;
}

/// Shape rule: matmul's rule on (a, b); bias float32 of rank <= 1 whose size is 1 or the last dim n.
void fused_matmul_shape(ShapeContext& ctx) {
  activation_of(ctx.attrs);
  try {
    matmul_op().infer(ctx.inputs.subspan(0, 2), matmul_attrs(ctx.attrs), ctx.outputs);
  } catch (const Error&) {
    rethrow_in("fused_matmul: ");
  }
  const TensorMeta& bias = ctx.input(2);
  TL_CHECK(bias.dtype == DType::float32, DTypeError, "fused_matmul: bias must be float32, got ", meta_str(bias));
  const std::int64_t n = ctx.output().shape.dim(-1), size = bias.shape.rank() == 1 ? bias.shape[0] : 1;
  TL_CHECK(bias.shape.rank() <= 1 && (size < 0 || n < 0 || size == 1 || size == n), ShapeError,
           "fused_matmul: bias ", meta_str(bias), " must be a scalar or a vector of size 1 or ", n,
           " to broadcast along the last dim of ", meta_str(ctx.output()));
}

/// y = act(y + bias) over each row of the output, in one pass (Act maps an Eigen array expression).
template <class Act>
void add_bias_activate(const Tensor& out, const Tensor& bias, Act act) {
  const std::int64_t n = out.shape().dim(-1), total = out.num_elements();
  if (n == 0 || total == 0) return;
  TL_CHECK(bias.num_elements() == 1 || bias.num_elements() == n, ShapeError, "fused_matmul: bias of shape ",
           bias.shape().str(), " does not broadcast to the last dim ", n, " of ", out.shape().str());
  float* po = out.mutable_data<float>();
  const float* pb = bias.data<float>();
  for (std::int64_t at = 0; at < total; at += n) {
    ArrayMap<float> row(po + at, n);
    if (bias.num_elements() == n) row = act(row + ConstArrayMap<float>(pb, n));
    else row = act(row + pb[0]);
  }
}

// The activations, written as in math_ops.cpp (relu propagates NaN, sigmoid = 1 / (1 + e^-x)).
constexpr auto kIdentity = [](const auto& x) { return x; };
constexpr auto kRelu = [](const auto& x) {
  return x.binaryExpr(Eigen::Array<float, Eigen::Dynamic, 1>::Zero(x.size()),
                      Eigen::internal::scalar_max_op<float, float, Eigen::PropagateNaN>());
};
constexpr auto kSigmoid = [](const auto& x) { return (1.f + (-x).exp()).inverse(); };
constexpr auto kTanh = [](const auto& x) { return x.tanh(); };

void fused_matmul_kernel(KernelContext& ctx) {
  const Activation act = activation_of(ctx.attrs);
  matmul_op().run(ctx.inputs.subspan(0, 2), ctx.attrs, ctx.outputs);  // matmul's kernel reads only the transposes
  const Tensor& out = ctx.output();
  const Shape& a = ctx.input(0).shape();
  if (a.dim(ctx.attrs.get_or("transpose_a", false) ? -2 : -1) == 0)  // an empty sum: matmul wrote nothing
    std::fill_n(out.mutable_data<float>(), out.num_elements(), 0.f);
  const Tensor& bias = ctx.input(2);
  switch (act) {
    case Activation::none: return add_bias_activate(out, bias, kIdentity);
    case Activation::relu: return add_bias_activate(out, bias, kRelu);
    case Activation::sigmoid: return add_bias_activate(out, bias, kSigmoid);
    case Activation::tanh: return add_bias_activate(out, bias, kTanh);
  }
}

/// With z = op(a) op(b) + bias and y = act(z): dz from y (relu: g where y > 0; sigmoid: g y (1 - y);
/// tanh: g (1 - y^2)), then matmul's rule (TensorFlow's _MatMulGrad) and dbias = dz summed to bias's shape.
void fused_matmul_gradient(const GradContext& c, std::span<Tensor> d) {
  const Tensor &a = c.input(0), &b = c.input(1), &y = c.output(), &g = c.grad();
  Tensor dz = g;
  switch (activation_of(c.attrs)) {
    case Activation::none: break;
    case Activation::relu: dz = relu_grad(g, y); break;
    case Activation::sigmoid: dz = g * y * (1.f - y); break;
    case Activation::tanh: dz = g * (1.f - square(y)); break;
  }
  const bool ta = c.attrs.get_or("transpose_a", false), tb = c.attrs.get_or("transpose_b", false);
  Tensor da = !ta ? matmul(dz, b, false, !tb) : matmul(b, dz, tb, true);
  Tensor db = !tb ? matmul(a, dz, !ta, false) : matmul(dz, a, true, ta);
  d[0] = unbroadcast(da, a.shape());
  d[1] = unbroadcast(db, b.shape());
  d[2] = unbroadcast(dz, c.input(2).shape());
}

}  // namespace

void register_fused_ops(OpRegistry& r) {
  r.op("fused_matmul")
      .doc("act(matmul(a, b) + bias), act = none | relu | sigmoid | tanh; bias f32[], f32[1] or f32[n] along the "
           "last dim; made by the graph optimizer")
      .inputs(3).attr<bool>("transpose_a").attr<bool>("transpose_b").attr<std::string>("activation")
      .shape_fn(fused_matmul_shape)
      .kernel(fused_matmul_kernel)
      .gradient(fused_matmul_gradient);

  r.op("fused_elementwise")
      .doc("a program of float32 elementwise ops run in one node, e.g. \"mul %0 %1; add %r0 %2; relu %r1\" "
           "(%i: input i, %rj: result of instruction j, last result returned); made by the graph optimizer")
      .variadic_inputs(1).traits(trait::elementwise).attr<std::string>("program", true)
      .shape_fn(fused_elementwise_shape)
      .kernel(fused_elementwise_kernel)
      .gradient(fused_elementwise_gradient);
}

}  // namespace tl::detail
