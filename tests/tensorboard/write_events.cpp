// Writes one TensorBoard event file of every value kind into the folder it is given, and beside it expected.json,
// the list of what it wrote, for tests/tensorboard/check_events.py to compare with what it parses:
//   write_events LOGDIR
// Scalars (through the writer and through the default-writer scope; negative, huge and non-finite values and
// steps), histograms (spread, all equal, empty, int32), and the graph of a traced function with a variable read, an
// assignment, constants, op attributes and a tl::cond (sub-graphs).
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "tracelab/tracelab.h"

namespace {

using Json = nlohmann::json;

Json scalar(tl::summary::EventFileWriter& writer, const std::string& tag, double value, std::int64_t step) {
  writer.scalar(tag, value, step);
  Json v = std::isfinite(value) ? Json(value) : Json(std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf");
  return {{"kind", "scalar"}, {"tag", tag}, {"step", step}, {"value", v}};
}

Json histogram(tl::summary::EventFileWriter& writer, const std::string& tag, const tl::Tensor& values,
               std::int64_t step, int buckets) {
  writer.histogram(tag, values, step, buckets);
  return {{"kind", "histogram"}, {"tag", tag}, {"step", step}, {"values", values.to_vector<double>()}, {"buckets", buckets}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_events LOGDIR\n";
    return 2;
  }
  const std::string logdir = argv[1];
  try {
    auto writer = tl::summary::create_file_writer(logdir);
    Json events = Json::array();
    events.push_back(scalar(writer, "loss", 0.1, 0));
    events.push_back(scalar(writer, "loss", 2.5e-8, 1));
    events.push_back(scalar(writer, "train/accuracy", -123.456, -4));
    events.push_back(scalar(writer, "big", 3.0e38, std::int64_t{1} << 40));
    events.push_back(scalar(writer, "odd", std::numeric_limits<double>::quiet_NaN(), 2));
    events.push_back(scalar(writer, "odd", -std::numeric_limits<double>::infinity(), 3));
    {
      tl::summary::DefaultWriter scope(writer, 9);  // tl::summary::scalar inside the scope goes to this file
      tl::summary::scalar("scoped", 0.75);
      events.push_back({{"kind", "scalar"}, {"tag", "scoped"}, {"step", 9}, {"value", 0.75}});
    }

    std::mt19937 random(7);
    std::normal_distribution<float> normal(0.5f, 2.0f);
    std::vector<float> spread(1000);
    for (float& v : spread) v = normal(random);
    events.push_back(histogram(writer, "weights", tl::constant(spread, {10, 100}), 0, 30));
    events.push_back(histogram(writer, "weights", tl::constant({1.f, 2.f, 2.f, 9.f}), 1, 7));
    events.push_back(histogram(writer, "constant", tl::fill({5}, tl::scalar(3.f)), 2, 30));
    events.push_back(histogram(writer, "empty", tl::zeros({0, 4}), 3, 30));
    events.push_back(histogram(writer, "labels", tl::constant({0, 1, 1, 2, 9, 9}), 4, 5));

    tl::Variable w(tl::constant({1.f, -2.f, 0.5f}), "dense/w");
    tl::Variable count(tl::scalar(0.f), "count");
    auto step = tl::function([&](const tl::Tensor& x, const tl::Tensor& flag) {
      count.assign_add(tl::scalar(1.f));
      tl::Tensor y = tl::reduce_sum(tl::relu(x * w), tl::Ints{1}, true);
      return tl::cond(flag, [&] { return y * 2.f; }, [&] { return y - 1.f; });
    });
    tl::ConcreteFunction& concrete = step.get_concrete_function(tl::TensorSpec({-1, 3}), tl::TensorSpec({}, tl::bool_));
    writer.graph(concrete.graph(), 5);
    events.push_back({{"kind", "graph"}, {"step", 5}, {"graph", Json::parse(concrete.graph().to_json())}});
    writer.flush();
    std::ofstream(logdir + "/expected.json") << Json{{"events", events}}.dump(1) << '\n';
    std::cout << "write_events: " << events.size() << " events in " << writer.path() << '\n';
  } catch (const std::exception& e) {
    std::cerr << "write_events: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
