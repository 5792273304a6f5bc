// Command-line flags for the lesson examples (graphs_vs_eager, tracing_rules, side_effects, custom_loop_cnn,
// keras_transfer): `--name VALUE` for integers and paths, `--name` alone for switches, `-h` / `--help`.
// A bad flag is an error that names the flag and what was expected; parse() then prints it with the usage to
// stderr and returns exit code 2 (help returns 0).
//
//   std::int64_t repeats = 15;
//   examples::Flags flags("graphs_vs_eager", "eager vs tl::function on small ops and on a convolution");
//   flags.integer("--repeats", &repeats, 1, 1000, "timed samples per measurement");
//   if (auto exit_code = flags.parse(argc, argv)) return *exit_code;
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace examples {

class Flags {
 public:
  Flags(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {}

  /// An integer flag in [min, max].
  Flags& integer(const std::string& name, std::int64_t* target, std::int64_t min, std::int64_t max,
                 const std::string& help) {
    std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    add(name, "N", help + " (default " + std::to_string(*target) + ", " + range + ")", [=](const std::string& text) {
      std::size_t used = 0;
      long long value = 0;
      try {
        value = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size()) fail(name + ": expected an integer in " + range + ", got '" + text + "'");
      if (value < min || value > max) fail(name + " must be in " + range + ", got " + text);
      *target = value;
    });
    return *this;
  }

  /// A path flag (a file to write); it must not be empty.
  Flags& path(const std::string& name, std::string* target, const std::string& help) {
    add(name, "PATH", help + " (default " + *target + ")", [=](const std::string& value) {
      if (value.empty()) fail(name + ": expected a file path, got an empty value");
      *target = value;
    });
    return *this;
  }

  /// A switch: present means true.
  Flags& toggle(const std::string& name, bool* target, const std::string& help) {
    flags_.push_back({name, "", help, [target](const std::string&) { *target = true; }});
    return *this;
  }

  /// Reads argv. Returns nothing to go on, or the exit code to leave with (0 after --help, 2 on an error).
  std::optional<int> parse(int argc, char** argv) const {
    try {
      for (int i = 1; i < argc; ++i) {
        std::string name = argv[i];
        if (name == "-h" || name == "--help") {
          std::cout << usage();
          return 0;
        }
        const Flag& flag = find(name);
        if (flag.value_name.empty()) {
          flag.apply("");
          continue;
        }
        if (i + 1 >= argc) fail(name + ": needs a value (" + flag.value_name + ")");
        flag.apply(argv[++i]);
      }
    } catch (const BadFlag& error) {
      std::cerr << program_ << ": " << error.what() << "\n\n" << usage();
      return 2;
    }
    return std::nullopt;
  }

  /// The usage text: the summary, then one line per flag.
  std::string usage() const {
    std::ostringstream out;
    out << "usage: " << program_ << " [options]\n  " << summary_ << "\n";
    for (const Flag& flag : flags_) {
      std::string left = flag.name + (flag.value_name.empty() ? "" : " " + flag.value_name);
      out << "  " << left << std::string(left.size() < 22 ? 22 - left.size() : 1, ' ') << flag.help << "\n";
    }
    out << "  -h, --help            this text\n";
    return out.str();
  }

 private:
  struct BadFlag : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  struct Flag {
    std::string name, value_name, help;
    std::function<void(const std::string&)> apply;
  };

  [[noreturn]] static void fail(const std::string& message) { throw BadFlag(message); }

  void add(const std::string& name, const std::string& value_name, const std::string& help,
           std::function<void(const std::string&)> apply) {
    flags_.push_back({name, value_name, help, std::move(apply)});
  }

  const Flag& find(const std::string& name) const {
    for (const Flag& flag : flags_)
      if (flag.name == name) return flag;
    fail("unknown option '" + name + "' (see --help)");
  }

  std::string program_, summary_;
  std::vector<Flag> flags_;
};

}  // namespace examples
