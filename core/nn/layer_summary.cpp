// Layer::summary(): Keras' model.summary() table for sequential-like models — 65 characters wide with columns
// at 29 / 55 / 65 (wider when a name or shape needs it), one row per direct sub-layer, then the totals with
// thousands separators. Lines carry no trailing spaces (Keras pads them).
#include <algorithm>
#include <sstream>

#include "tracelab/base/log.h"
#include "tracelab/nn/layer.h"

namespace tl::layers {
namespace {

struct Row {
  std::string layer, shape, params;
};

/// 1234567 -> "1,234,567" (Keras prints the totals with "{:,}").
std::string with_commas(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

Row row_of(const Layer& layer) {
  Row row{layer.name() + " (" + layer.type_name() + ")", "?", "0 (unbuilt)"};
  if (layer.output_shape()) row.shape = layer.output_shape()->str();  // unknown dims print as None
  if (layer.built()) row.params = std::to_string(layer.count_params());
  return row;
}

/// The fields padded to the column ends, right-trimmed.
std::string line_of(const Row& row, std::size_t end1, std::size_t end2) {
  std::string line = row.layer;
  line.resize(std::max(line.size() + 1, end1), ' ');
  line += row.shape;
  line.resize(std::max(line.size() + 1, end2), ' ');
  line += row.params;
  return line;
}

}  // namespace

std::string Layer::summary() const {
  TL_CHECK(built_, InvalidArgument, describe(), ": summary: the model is not built yet; call it once on an input "
           "(inside a tl::function with an input signature to see None for unknown dims)");
  std::vector<Row> rows;
  if (layers_.empty()) rows.push_back(row_of(*this));
  for (const auto& layer : layers_) rows.push_back(row_of(*layer));
  Row header{"Layer (type)", "Output Shape", "Param #"};
  std::size_t width1 = 29, width2 = 26, width3 = 10;
  for (const Row& row : rows) {
    width1 = std::max(width1, row.layer.size() + 1);
    width2 = std::max(width2, row.shape.size() + 1);
    width3 = std::max(width3, row.params.size());
  }
  std::size_t width = width1 + width2 + width3;
  std::int64_t trainable = 0, non_trainable = 0;
  for (const Variable& weight : weights())
    (weight.trainable() ? trainable : non_trainable) += weight.shape().num_elements();

  std::ostringstream out;
  out << "Model: \"" << name_ << "\"\n" << std::string(width, '_') << '\n';
  out << line_of(header, width1, width1 + width2) << '\n' << std::string(width, '=') << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out << std::string(width, '_') << '\n';
    out << line_of(rows[i], width1, width1 + width2) << '\n';
  }
  out << std::string(width, '=') << '\n';
  out << "Total params: " << with_commas(trainable + non_trainable) << '\n';
  out << "Trainable params: " << with_commas(trainable) << '\n';
  out << "Non-trainable params: " << with_commas(non_trainable) << '\n';
  out << std::string(width, '_') << '\n';
  return out.str();
}

void Layer::print_summary() const {
  std::string text = summary();
  text.pop_back();  // the sink adds the final newline
  log_message(LogLevel::info, text);
}

}  // namespace tl::layers
