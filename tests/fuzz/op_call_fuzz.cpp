// fuzz_op_call: every registry op, called through the one funnel (tl::execute) with decoded dtypes, shapes
// (rank <= 5, <= 4096 elements in all), values (NaN, infinities, int32 limits, ...) and attributes of each
// attribute's declared type — sometimes missing, of the wrong type or unknown (op_call_format.h).
//
// Must hold: a bad call throws a tl::Error (any other exception, a crash, a sanitizer report or a hang is a
// finding); a good call returns defined, concrete outputs of fully known shapes; the op's shape rule, run on
// the same metas with some dims unknown (-1, as while tracing), either rejects them or gives outputs the
// concrete ones are compatible with; a one-node graph run by the executor gives bit-identical outputs; and the
// op's gradient rule (through a GradientTape) succeeds and gives each float32 input a gradient of its meta.
//
// No op is skipped. `print` runs with a log sink that drops the text; `record_timestamp` writes to a host-side
// TimestampLog by id and no log exists here, so only its "no such log" error path runs (a live log would grow
// with every call). The structured ops (cond, while_loop, dataset_loop) are not in the registry: fuzz_graph_json
// reaches them.
#include <cstdio>
#include <cstring>

#include "fuzz_check.h"
#include "op_call_format.h"

namespace {

using namespace tl;

/// The metas of `inputs` with the dims `mask` selects made unknown.
std::vector<TensorMeta> partial_metas(const std::vector<Tensor>& inputs, std::uint8_t mask) {
  std::vector<TensorMeta> metas;
  for (const Tensor& t : inputs) {
    TensorMeta meta = t.meta();
    for (int d = 0; d < meta.shape.rank(); ++d)
      if (mask >> d & 1) meta.shape.dims()[static_cast<std::size_t>(d)] = -1;
    metas.push_back(std::move(meta));
  }
  return metas;
}

/// The shape rule on partly unknown dims may reject the call (it cannot see enough), but what it gives must
/// describe the concrete outputs.
void check_partial_shape_rule(const fuzz::OpCall& call, const std::vector<Tensor>& outputs) {
  std::vector<TensorMeta> metas = partial_metas(call.inputs, call.unknown_dims);
  std::vector<const TensorMeta*> pointers;
  for (const auto& m : metas) pointers.push_back(&m);
  std::vector<TensorMeta> inferred(outputs.size());
  try {
    call.op->infer(pointers, call.attrs, inferred);
  } catch (const Error&) {
    return;
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    FUZZ_CHECK(inferred[i].dtype == outputs[i].dtype() && inferred[i].shape.is_compatible_with(outputs[i].shape()),
               call.op->name(), ": with unknown dims the shape rule gives ", meta_str(inferred[i]), " for output ", i,
               " but the call produced ", meta_str(outputs[i].meta()));
}

/// The same call as a one-node graph run by the executor (planned buffers, the registry's kernel).
void check_graph_run(const fuzz::OpCall& call, const std::vector<Tensor>& outputs) {
  for (const Tensor& t : call.inputs)
    if (t.is_weak()) return;  // graphs have no weak scalars; the funnel aligned them before the kernel ran
  auto g = std::make_shared<graph::Graph>();
  std::vector<graph::ValueRef> refs;
  for (const Tensor& t : call.inputs) refs.push_back(g->add_input(t.meta()));
  std::vector<graph::ValueRef> results;
  try {
    results = g->add_op(*call.op, refs, call.attrs);
  } catch (const Error& e) {
    FUZZ_FAIL(call.op->name(), ": eager call succeeded but Graph::add_op rejects it: ", e.what());
  }
  g->set_outputs(results);
  std::vector<Tensor> ran;
  try {
    graph::Executor executor(g);
    ran = executor.run(call.inputs);
  } catch (const Error& e) {
    FUZZ_FAIL(call.op->name(), ": eager call succeeded but the executor fails: ", e.what());
  }
  FUZZ_CHECK(ran.size() == outputs.size(), call.op->name(), ": the executor returned ", ran.size(), " outputs, eager ",
             outputs.size());
  for (std::size_t i = 0; i < ran.size(); ++i)
    FUZZ_CHECK(fuzz::same_bits(ran[i], outputs[i]), call.op->name(), ": output ", i, " differs: eager ",
               outputs[i].str(), ", executor ", ran[i].str());
}

/// Backward through the op's gradient rule: when a differentiable op's call succeeded, the gradient of the sum
/// of its float32 outputs reaches each float32 input with that input's meta (or not at all).
void check_gradient(const fuzz::OpCall& call) {
  if (call.op->has(trait::not_differentiable) || !call.op->has_gradient()) return;
  std::vector<Tensor> sources;
  for (const Tensor& t : call.inputs)
    if (t.dtype() == DType::float32 && !t.is_weak()) sources.push_back(t);
  if (sources.empty()) return;
  GradientTape tape;
  for (const Tensor& s : sources) tape.watch(s);
  std::vector<Tensor> outputs(static_cast<std::size_t>(call.op->num_outputs()));
  execute(*call.op, call.inputs, call.attrs, outputs);
  Tensor target;
  for (const Tensor& y : outputs)
    if (y.dtype() == DType::float32) target = target.defined() ? add(target, reduce_sum(y)) : reduce_sum(y);
  if (!target.defined()) return;
  std::vector<Tensor> grads;
  try {
    grads = tape.gradient(target, sources);
  } catch (const OutOfMemory&) {
    return;
  } catch (const Error& e) {
    FUZZ_FAIL(call.op->name(), ": the call succeeded but its gradient fails: ", e.what());
  }
  for (std::size_t i = 0; i < grads.size(); ++i)
    FUZZ_CHECK(!grads[i].defined() || grads[i].meta() == sources[i].meta(), call.op->name(), ": the gradient of ",
               meta_str(sources[i].meta()), " is ", meta_str(grads[i].meta()));
}

void run(const fuzz::OpCall& call) {
  std::vector<Tensor> outputs(static_cast<std::size_t>(call.op->num_outputs()));
  try {
    execute(*call.op, call.inputs, call.attrs, outputs);
  } catch (const Error&) {
    return;  // rejected with a typed error: what bad input must get
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    FUZZ_CHECK(outputs[i].defined() && !outputs[i].is_symbolic() && outputs[i].shape().is_fully_defined(),
               call.op->name(), ": output ", i, " is not a concrete tensor");
  if (call.checks & 2) check_partial_shape_rule(call, outputs);
  if ((call.checks & 1) && !call.op->has(trait::side_effects)) check_graph_run(call, outputs);
  if (call.checks & 4) check_gradient(call);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  set_log_sink([](LogLevel, std::string_view) {});  // print runs, its text goes nowhere
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FUZZ_GUARD({
    fuzz::ByteReader in(data, size);
    run(fuzz::decode_op_call(in));
  });
  return 0;
}
