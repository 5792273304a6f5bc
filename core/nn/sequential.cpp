// Sequential: each layer's output feeds the next; the layers build one after another on the first call.
#include "tracelab/nn/layers.h"

namespace tl::layers {

Sequential::Sequential(LayerList layers, std::string name) : Layer(name, "sequential") {
  for (auto& layer : layers) add(std::move(layer));
}

void Sequential::add(std::shared_ptr<Layer> layer) {
  stack_.push_back(track(std::move(layer)));
}

void Sequential::build(const Shape&) {
  TL_CHECK(!stack_.empty(), InvalidArgument, describe(), ": has no layers; add some before calling it");
}

Tensor Sequential::call(const Tensor& x, bool training) {
  Tensor y = x;
  for (const auto& layer : stack_) y = (*layer)(y, training);
  return y;
}

}  // namespace tl::layers
