#include "grad_check.h"

#include <cmath>
#include <sstream>

namespace tl::testing {
namespace {

/// loss = sum_k sum(outputs[k] * weights[k]) computed in double from concrete outputs (no tape involved).
double projected_loss(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                      const std::vector<Tensor>& weights, Subgraphs subgraphs) {
  std::vector<Tensor> outputs(op.num_outputs(attrs, subgraphs));
  execute(op, inputs, attrs, outputs, subgraphs);
  double total = 0;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k].dtype() != float32) continue;
    auto values = outputs[k].to_vector<float>();
    auto w = weights[k].to_vector<float>();
    for (std::size_t i = 0; i < values.size(); ++i) total += static_cast<double>(values[i]) * w[i];
  }
  return total;
}

}  // namespace

std::string check_gradients(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                            const GradCheckOptions& options, Subgraphs subgraphs) {
  // Random weights make every output element matter with a distinct factor.
  std::vector<Tensor> probe(op.num_outputs(attrs, subgraphs));
  execute(op, inputs, attrs, probe, subgraphs);
  Generator gen(1234);
  std::vector<Tensor> weights;
  for (const Tensor& out : probe) weights.push_back(gen.uniform(out.shape(), 0.5, 1.5));

  // Analytic: the tape's gradient of the same projected loss.
  std::vector<Tensor> sources;
  for (const Tensor& t : inputs)
    if (t.dtype() == float32) sources.push_back(t);
  GradientTape tape;
  for (const Tensor& t : sources) tape.watch(t);
  std::vector<Tensor> outputs(probe.size());
  execute(op, inputs, attrs, outputs, subgraphs);
  Tensor loss = scalar(0.f);
  for (std::size_t k = 0; k < outputs.size(); ++k)
    if (outputs[k].dtype() == float32) loss = loss + reduce_sum(outputs[k] * weights[k]);
  std::vector<Tensor> analytic = tape.gradient(loss, sources, UnconnectedGradients::zero);

  std::ostringstream report;
  int mismatches = 0;
  std::size_t source = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != float32) continue;
    auto base = inputs[i].to_vector<float>();
    auto grad = analytic[source++].to_vector<float>();
    for (std::size_t e = 0; e < base.size(); ++e) {
      std::vector<Tensor> shifted = inputs;
      auto values = base;
      values[e] = base[e] + options.epsilon;
      shifted[i] = constant(values, inputs[i].shape());
      double up = projected_loss(op, shifted, attrs, weights, subgraphs);
      values[e] = base[e] - options.epsilon;
      shifted[i] = constant(values, inputs[i].shape());
      double down = projected_loss(op, shifted, attrs, weights, subgraphs);
      double numeric = (up - down) / (2.0 * options.epsilon);
      double error = std::fabs(numeric - grad[e]);
      if (!(error <= options.atol + options.rtol * std::fabs(numeric)) && ++mismatches <= 5)
        report << op.name() << ": input " << i << " element " << e << ": analytic " << grad[e] << ", numeric "
               << numeric << "\n";
    }
  }
  if (mismatches > 5) report << "... " << mismatches << " mismatches in all\n";
  return report.str();
}

}  // namespace tl::testing
