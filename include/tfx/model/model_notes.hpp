// What every `tfx model` subcommand says about the checkpoint it ran: the family's one-line summary
// and the note that its weights are random; and the whole numbers their flags take.
#pragma once
#include <optional>
#include <string>

#include "tfx/figure/figure.hpp"
#include "tfx/io/format.hpp"
#include "tfx/model/checkpoint.hpp"

namespace tfx {

// A flag's whole number from 0 in decimal digits ("12"); nullopt for "", "-1", "1.5", "x" or a
// number past unsigned long long.
std::optional<unsigned long long> model_whole_number(const std::string& s);
// The family's one-line summary from the family table ("BERT (encoder, post-LN, learned positions)").
std::string family_name(const ModelConfig& c);
// A checkpoint made with random weights (config.json's tfx_random_weights) says so: a note in the
// Result (table, Markdown, JSON "notes", params.random_weights) and "(random weights)" after the
// figure's title (or its first panel's); nothing for a real checkpoint.
void note_random_weights(Result& r, const ModelConfig& c);
void note_random_weights(Figure& f, const ModelConfig& c);

}  // namespace tfx
