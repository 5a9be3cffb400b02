// The text of a progress bar line (progress.hpp): percentage, bar, counts, elapsed<remaining and
// rate, as tqdm prints them, fitted to a terminal width. Pure: the command layer draws it.
#include "tfx/core/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tfx/core/text_width.hpp"

namespace tfx {

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{:02}:{:02}", s / 60, s % 60);
}

namespace {

// "2.10 GB" style scaling for bytes; plain counts for other units.
std::string amount(double v, const std::string& unit) {
  if (unit != "B") return fmt::format("{}", static_cast<long long>(v));
  const char* prefixes[] = {"", "k", "M", "G", "T"};
  int p = 0;
  while (v >= 1000 && p < 4) v /= 1000, ++p;
  return p == 0 ? fmt::format("{} B", static_cast<long long>(v)) : fmt::format("{:.2f} {}B", v, prefixes[p]);
}

std::string rate_text(double per_second, const std::string& unit) {
  if (!(per_second > 0) || !std::isfinite(per_second)) return "?/s";
  if (unit == "B") return amount(per_second, unit) + "/s";
  return fmt::format("{:.3g} {}/s", per_second, unit.empty() ? "it" : unit);
}

std::string bar(double fraction, int cells, bool unicode) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  std::string out;
  if (!unicode) {
    const int full = static_cast<int>(fraction * cells);
    return std::string(static_cast<std::size_t>(full), '#') + std::string(static_cast<std::size_t>(cells - full), '.');
  }
  static const char* eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const int total8 = static_cast<int>(fraction * cells * 8);
  const int full = total8 / 8, part = total8 % 8;
  for (int i = 0; i < full; ++i) out += "█";
  int used = full;
  if (part && used < cells) out += eighths[part], ++used;
  out += std::string(static_cast<std::size_t>(cells - used), ' ');
  return out;
}

}  // namespace

std::string progress_line(const ProgressState& s, int width, bool unicode) {
  const double rate = s.elapsed > 0 ? static_cast<double>(s.done) / s.elapsed : 0;
  std::string counts, times, pct;
  if (s.total > 0) {
    const double f = std::min(1.0, static_cast<double>(s.done) / static_cast<double>(s.total));
    pct = fmt::format("{:3}%", static_cast<int>(f * 100));
    const std::string unit_suffix = s.unit == "B" || s.unit.empty() ? "" : " " + s.unit;
    if (s.unit == "B") {
      counts = fmt::format("{}/{}", amount(static_cast<double>(s.done), s.unit), amount(static_cast<double>(s.total), s.unit));
    } else {
      counts = fmt::format("{}/{}{}", s.done, s.total, unit_suffix);
    }
    const double remaining = rate > 0 ? static_cast<double>(s.total - std::min(s.done, s.total)) / rate : NAN;
    times = fmt::format("[{}<{}, {}]", format_duration(s.elapsed), format_duration(remaining), rate_text(rate, s.unit));
  } else {
    counts = s.unit == "B" ? amount(static_cast<double>(s.done), s.unit)
                           : fmt::format("{}{}", s.done, s.unit.empty() ? "" : " " + s.unit);
    times = fmt::format("[{}, {}]", format_duration(s.elapsed), rate_text(rate, s.unit));
  }
  const auto W = static_cast<std::size_t>(std::max(width, 1));
  // label: pct|bar| counts times — the bar takes what is left (at least 10 cells, else dropped);
  // the label is shortened before the numbers are
  const std::string tail = " " + counts + " " + times;
  std::string label = s.label.empty() ? "" : s.label + ": ";
  auto assemble = [&](const std::string& lab, int cells) {
    if (s.total == 0) return lab + counts + " " + times;
    return lab + pct + (cells > 0 ? "|" + bar(static_cast<double>(s.done) / static_cast<double>(s.total), cells, unicode) + "|" : "") + tail;
  };
  const std::size_t fixed = display_width(label) + display_width(pct) + 2 + display_width(tail);
  int cells = fixed + 10 <= W ? static_cast<int>(std::min<std::size_t>(W - fixed, 40)) : 0;
  std::string line = assemble(label, cells);
  if (display_width(line) > W) {
    // drop the bar, then shorten the label, then cut what remains
    const std::size_t rest = display_width(assemble("", 0));
    label = rest + 8 <= W ? clip_to_width(s.label, W - rest - 2) + ": " : "";
    line = assemble(label, 0);
  }
  return clip_to_width(line, W);
}

}  // namespace tfx
