// The tfx command line as a function: builds the CLI11 app, registers every command in one
// ordered list, and maps errors to exit codes (2 = usage, 1 = data/output) through one exit path.
// entry.cpp's main() calls it; so do the fuzz targets in tests/fuzz/.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#include "commands.hpp"
#include "run.hpp"
#include "tfx/error.hpp"
#include "tfx/gemm.hpp"

namespace {

int fail(const std::string& message, int code) {
  std::fflush(stdout);
  std::fprintf(stderr, "tfx: error: %s\n", message.c_str());
  return code;
}

}  // namespace

int tfx::cli::run(int argc, char** argv) {
  CLI::App app{"tfx — calculator and visualizer for the building blocks of transformers.\n"
               "Positional encodings, RoPE, word embeddings and attention, as tables, CSV/JSON/.npy and figures.",
               "tfx"};
  app.set_version_flag("--version", std::string("tfx ") + TFX_VERSION);
  app.require_subcommand(1);
  app.footer("\nRun 'tfx COMMAND --help' for a command's flags and examples.");

  // The order here is the order of `tfx --help`.
  tfx::cli::register_pe(app);
  tfx::cli::register_rope(app);
  tfx::cli::register_tokenize(app);
  tfx::cli::register_analogy(app);
  tfx::cli::register_embeddings(app);
  tfx::cli::register_similar(app);
  tfx::cli::register_similarity(app);
  tfx::cli::register_lookup(app);
  tfx::cli::register_direction(app);
  tfx::cli::register_project(app);
  tfx::cli::register_eval_analogies(app);
  tfx::cli::register_eval_similarity(app);
  tfx::cli::register_attention(app);
  tfx::cli::register_encoder(app);
  tfx::cli::register_decoder(app);
  tfx::cli::register_complexity(app);
  tfx::cli::register_patches(app);
  tfx::cli::register_layernorm(app);
  tfx::cli::register_lr(app);

  try {
    // TFX_GEMM_KERNEL=avx512|avx2|generic forces matmul's kernel (tests, benchmarks, bug reports)
    if (const char* kernel = std::getenv("TFX_GEMM_KERNEL"); kernel && *kernel) {
      try {
        tfx::set_gemm_kernel(kernel);
      } catch (const tfx::Error& e) {
        throw tfx::usage_error(std::string("TFX_GEMM_KERNEL: ") + e.what());
      }
    }
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // "tfx bogus" / "tfx rope bogus": name the word and the commands instead of "A subcommand is required"
    const CLI::App* at = &app;
    std::string path = "tfx";
    for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
      const auto subs = at->get_subcommands([](const CLI::App*) { return true; });
      if (subs.empty()) break;
      const CLI::App* next = nullptr;
      std::string names;
      for (const CLI::App* sub : subs) {
        if (sub->check_name(argv[i])) next = sub;
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      if (!next)
        return fail(fmt::format("unknown command '{} {}'; expected one of: {} (see {} --help)", path, argv[i], names, path), 2);
      at = next;
      path += " " + next->get_name();
    }
    return fail(std::string(e.what()) + " (see --help)", 2);
  } catch (const tfx::Error& e) {
    return fail(e.what(), e.kind() == tfx::Error::Kind::usage ? 2 : 1);
  } catch (const std::bad_alloc&) {
    return fail("out of memory; try smaller values", 1);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
  return 0;
}
