// The process entry point. Everything else lives in tfx::cli::run (run.cpp), which the fuzz
// targets in tests/fuzz/ call without this file.
#include "run.hpp"

int main(int argc, char** argv) { return tfx::cli::run(argc, argv); }
