// fuzz_saved_model: tl::saved_model::from_bytes on fuzzed saved-model bytes. The first input byte is the mode:
// bit 0 re-signs the header (its length and CRC recomputed from the header text the input holds), so mutations get
// past the checksum to the header's and the graphs' validation behind it.
//
// Must hold: loading either succeeds or throws a tl::Error. After a success every function has the signature the
// header declares, runs on zeros that fit it (unknown dims as 2; skipped above 2^16 elements) or throws a tl::Error,
// returning one tensor per declared output whose meta fits the declared spec; and the loaded model saves again
// (to_bytes) and loads again with the same names, signatures and variable count.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "saved_model_format.h"

namespace {

using namespace tl;

/// The input's bytes, re-signed when the mode asks (the input's own magic kept, mutations included).
std::vector<std::uint8_t> prepare(const std::uint8_t* bytes, std::size_t size, std::uint8_t mode) {
  std::vector<std::uint8_t> raw(bytes, bytes + size);
  if ((mode & fuzz::kSavedModelResign) == 0 || size < fuzz::kSavedModelHeader) return raw;
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < 8; ++i) length |= std::uint64_t{raw[8 + i]} << (8 * i);
  length = std::min<std::uint64_t>(length, size - fuzz::kSavedModelHeader);
  auto begin = raw.begin() + static_cast<std::ptrdiff_t>(fuzz::kSavedModelHeader);
  std::string header(begin, begin + static_cast<std::ptrdiff_t>(length));
  std::vector<std::uint8_t> data(begin + static_cast<std::ptrdiff_t>(length), raw.end());
  return fuzz::saved_model_bytes(header, data, std::span<const std::uint8_t>(raw).first(8));
}

/// Zeros fitting `spec` (unknown dims as 2), or nothing when that would be large.
std::optional<Tensor> zeros_for(const TensorSpec& spec) {
  std::vector<std::int64_t> dims;
  std::int64_t count = 1;
  for (std::int64_t d : spec.shape().dims()) {
    dims.push_back(d < 0 ? 2 : d);
    if (dims.back() > (1 << 16) || (count *= std::max<std::int64_t>(dims.back(), 1)) > (1 << 16)) return std::nullopt;
  }
  return zeros(Shape(dims), spec.dtype());
}

void run_function(const saved_model::LoadedFunction& f) {
  std::vector<Tensor> inputs;
  for (const TensorSpec& spec : f.signature().inputs) {
    std::optional<Tensor> t = zeros_for(spec);
    if (!t) return;
    inputs.push_back(*t);
  }
  std::vector<Tensor> outputs;
  try {
    outputs = f(inputs);
  } catch (const Error&) {
    return;  // a kernel may reject what the shape rules let through (e.g. a gather index)
  }
  const std::vector<TensorSpec>& declared = f.signature().outputs;
  FUZZ_CHECK(outputs.size() == declared.size(), f.name(), " returned ", outputs.size(), " outputs, declares ",
             declared.size());
  for (std::size_t i = 0; i < outputs.size(); ++i)
    FUZZ_CHECK(declared[i].is_compatible_with(outputs[i].meta()), f.name(), " output ", i, " is ",
               meta_str(outputs[i].meta()), ", declared ", declared[i].str());
}

void check(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  std::vector<std::uint8_t> bytes = prepare(data + 1, size - 1, data[0]);
  saved_model::SavedModel model;
  try {
    model = saved_model::from_bytes(bytes);
  } catch (const Error&) {
    return;
  }
  std::vector<saved_model::Signature> signatures = model.signatures();
  std::vector<saved_model::Named> named;
  for (const std::string& name : model.function_names()) {
    const saved_model::LoadedFunction& f = model.function(name);
    FUZZ_CHECK(f.signature().inputs.size() == f.concrete_function().input_specs().size(), name,
               ": the signature and the concrete function disagree on the inputs");
    run_function(f);
    named.emplace_back(name, f);
  }
  saved_model::SavedModel again;
  try {
    again = saved_model::from_bytes(saved_model::to_bytes(named));
  } catch (const Error& e) {
    FUZZ_FAIL("a loaded model does not save and load again: ", e.what());
  }
  FUZZ_CHECK(again.function_names() == model.function_names(), "the names differ after saving again");
  FUZZ_CHECK(again.variables().size() <= model.variables().size(), "saving again added variables");
  for (std::size_t i = 0; i < signatures.size(); ++i)
    FUZZ_CHECK(again.signatures()[i].str() == signatures[i].str(), "signature ", i, " differs after saving again: ",
               again.signatures()[i].str(), " vs ", signatures[i].str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FUZZ_GUARD(check(data, size));
  return 0;
}
