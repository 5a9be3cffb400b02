// Learning-rate schedules from the lecture: the Transformer's warm-up schedule
// (Vaswani et al. 2017, §5.3), a.k.a. the "Noam" schedule.
#pragma once
#include <cstddef>
#include <vector>

namespace tfx {

// lrate = d_model^(−0.5) · min(step^(−0.5), step · warmup^(−1.5)), for step ≥ 1.
// Rises linearly for the first `warmup` steps, peaks at step = warmup with
// d_model^(−0.5) · warmup^(−0.5), then decays as 1/√step. `scale` multiplies the whole curve.
double warmup_learning_rate(double step, double d_model, double warmup, double scale = 1.0);

}  // namespace tfx
