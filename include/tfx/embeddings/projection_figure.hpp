// `tfx project --components 3`'s figure.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tfx/core/stats.hpp"
#include "tfx/figure/figure.hpp"

namespace tfx {

// --components 3: a 3-D scatter seen from fixed angles (orthographic: turned by the azimuth about PC3,
// tilted by the elevation), axes drawn from the mean with their share of the variance, each word a
// dot with its label above it, and the --arrows arrows (indices into the words); one panel per
// azimuth (degrees), `source` (the vectors' file and how they were taken) in the subtitle.
Figure pca_figure_3d(const std::string& source, const std::vector<std::int64_t>& azimuths, double elevation,
                     const std::vector<std::string>& shown, const std::vector<std::pair<std::size_t, std::size_t>>& arrows, const Pca& p);

}  // namespace tfx
