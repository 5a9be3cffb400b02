// The register function of every top-level command, defined in src/cli/commands/<family>/.
// run.cpp calls them from one ordered list, which sets the order `tfx --help` lists them in (not
// the order here).
#pragma once
#include <CLI/CLI.hpp>

namespace tfx::cli {

void register_pe(CLI::App& app);
void register_rope(CLI::App& app);
void register_layernorm(CLI::App& app);
void register_lr(CLI::App& app);
void register_tokenize(CLI::App& app);
void register_analogy(CLI::App& app);
void register_embeddings(CLI::App& app);
void register_similar(CLI::App& app);
void register_similarity(CLI::App& app);
void register_lookup(CLI::App& app);
void register_direction(CLI::App& app);
void register_project(CLI::App& app);
void register_eval_analogies(CLI::App& app);
void register_eval_similarity(CLI::App& app);
void register_attention(CLI::App& app);
void register_softmax(CLI::App& app);
void register_encoder(CLI::App& app);
void register_decoder(CLI::App& app);
void register_complexity(CLI::App& app);
void register_patches(CLI::App& app);
void register_translate(CLI::App& app);
void register_trace(CLI::App& app);
void register_architecture(CLI::App& app);
void register_model(CLI::App& app);
void register_train(CLI::App& app);

}  // namespace tfx::cli
