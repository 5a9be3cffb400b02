// The memory budget: what one tfx run may allocate for its results. Steps whose size grows with
// the square of their input (attention's T × S weights per head, L × L similarity and RoPE score
// tables) estimate their bytes before allocating and are refused with the estimate and the
// budget, instead of running the machine out of memory. The default is half of the machine's
// memory; the command layer sets another (TFX_MEMORY_LIMIT).
#pragma once
#include <cstddef>
#include <string>

namespace tfx {

// The budget in bytes, and how a user changes it (said in the refusal).
std::size_t memory_budget();
void set_memory_budget(std::size_t bytes, const std::string& how_to_change);

// Half of the physical memory (sysconf), or 4 GiB when it cannot be asked.
std::size_t default_memory_budget();

// Throws tfx::Error "WHAT needs about X GiB, over the memory budget of Y GiB (…)" when `bytes`
// exceeds the budget. `what` says what and which sizes ("attention over 30000 × 30000 positions,
// 1 head"), so the user knows what to make smaller.
void check_memory(double bytes, const std::string& what);

}  // namespace tfx
