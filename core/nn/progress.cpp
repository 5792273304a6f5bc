#include "tracelab/nn/progress.h"

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace tl {
namespace {

bool stderr_is_terminal() {
#if (defined(__unix__) || defined(__APPLE__)) && !defined(__EMSCRIPTEN__)
  return isatty(fileno(stderr)) != 0;
#else
  return false;
#endif
}

std::string clock_text(double seconds) {
  auto s = static_cast<long long>(seconds + 0.5);
  std::ostringstream out;
  if (s >= 3600) out << s / 3600 << ':' << std::setw(2) << std::setfill('0') << (s / 60) % 60;
  else out << s / 60;
  out << ':' << std::setw(2) << std::setfill('0') << s % 60;
  return out.str();
}

}  // namespace

ProgressBar::ProgressBar(std::int64_t total) : ProgressBar(total, std::cerr, stderr_is_terminal()) {}

ProgressBar::ProgressBar(std::int64_t total, std::ostream& out, bool enabled)
    : total_(total > 0 ? total : 1), out_(out), enabled_(enabled) {}

std::string ProgressBar::line(std::int64_t step, const std::vector<std::pair<std::string, double>>& metrics,
                              double seconds) const {
  constexpr int kWidth = 30;
  std::int64_t done = step < 0 ? 0 : (step > total_ ? total_ : step);
  int filled = static_cast<int>(kWidth * done / total_);
  std::ostringstream out;
  out << '[' << std::string(static_cast<std::size_t>(filled), '=');
  if (filled < kWidth) out << '>' << std::string(static_cast<std::size_t>(kWidth - filled - 1), ' ');
  out << "] " << step << '/' << total_;
  double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  out << std::fixed << std::setprecision(1) << "  " << rate << " it/s";
  out << "  ETA " << (rate > 0 ? clock_text(static_cast<double>(total_ - done) / rate) : std::string("?"));
  for (const auto& [name, value] : metrics) out << "  " << name << ' ' << std::setprecision(4) << value;
  return out.str();
}

void ProgressBar::update(std::int64_t step, const std::vector<std::pair<std::string, double>>& metrics) {
  if (!enabled_) return;
  auto now = Clock::now();
  if (drawn_ && step < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  out_ << '\r' << line(step, metrics, std::chrono::duration<double>(now - start_).count()) << "\x1b[K" << std::flush;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) out_ << '\n' << std::flush;
  drawn_ = false;
}

}  // namespace tl
