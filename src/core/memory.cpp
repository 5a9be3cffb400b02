// The memory budget (memory.hpp).
#include "tfx/core/memory.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "tfx/core/error.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

namespace {
std::size_t budget = 0;  // 0 = not set: the default
std::string how = N_("set TFX_MEMORY_LIMIT (e.g. 16G) to change it");

// 3/4 of an address-space limit (ulimit -v), when one is set: the rest is the program, its
// libraries and its threads' stacks
std::size_t address_space_budget() {
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return static_cast<std::size_t>(rl.rlim_cur / 4 * 3);
}
}  // namespace

// Half of the physical memory, and at most 3/4 of an address-space limit (ulimit -v): a step
// the limit would make fail mid-allocation is refused by the budget first, with its estimate.
std::size_t default_memory_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::size_t half = pages <= 0 || page <= 0 ? std::size_t{4} << 30 : static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2;
  return std::min(half, address_space_budget());
}

std::size_t memory_budget() { return budget ? budget : default_memory_budget(); }

void set_memory_budget(std::size_t bytes, const std::string& how_to_change) {
  budget = bytes;
  how = how_to_change;
}

namespace {
// 6.0 GiB, 143.6 KiB: the unit that keeps a small budget's numbers readable (the same for both)
std::string memory_amount(double bytes, double unit_of) {
  if (unit_of >= double(1u << 30)) return fmt::format("{:.1f} GiB", bytes / (1u << 30));
  if (unit_of >= double(1u << 20)) return fmt::format("{:.1f} MiB", bytes / (1u << 20));
  return fmt::format("{:.1f} KiB", bytes / 1024);
}
}  // namespace

void check_memory(double bytes, const std::string& what) {
  const double limit = static_cast<double>(memory_budget());
  if (bytes <= limit) return;
  throw Error(fmt::format(N_("{} needs about {}, over the memory budget of {} ({}); use smaller inputs, or {}"),
                          what, memory_amount(bytes, limit), memory_amount(limit, limit),
                          budget                                          ? "TFX_MEMORY_LIMIT"
                          : address_space_budget() <= default_memory_budget() ? N_("3/4 of the address-space limit, ulimit -v")
                                                                          : N_("half of this machine's memory"),
                          how));
}

}  // namespace tfx
