// The whole tfx command line as a function (run.cpp): main.cpp's main() and the fuzz targets in
// tests/fuzz/ call it.
#pragma once

namespace tfx::cli {

// Parses argv, runs the command, prints any error; returns the exit code (0, 1 data, 2 usage).
int run(int argc, char** argv);

}  // namespace tfx::cli
