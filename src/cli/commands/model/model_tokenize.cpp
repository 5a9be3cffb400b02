// `tfx model tokenize DIR TEXT` (or --file FILE, - for stdin): the checkpoint's own tokenizer
// (tokenizer.json, vocab.txt or vocab.json + merges.txt) with the ids Hugging Face gives, special
// tokens added as it adds them; the whole text one sequence (HF `encode`), or each line its own
// (--lines, HF `encode_batch`).
#include <fmt/format.h>

#include "cli/commands/model/model.hpp"
#include "cli/common.hpp"
#include "cli/progress_bar.hpp"
#include "cli/tokenize_input.hpp"
#include "cli/validators.hpp"
#include "tfx/text/hf_tokenizer.hpp"
#include "tfx/text/unicode.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace tfx::cli {

namespace {

struct ModelTokenizeOptions {
  std::string dir, text, file;
  bool no_special = false, lines = false, stats = false;
  OutputFlags out;
  CLI::Option* text_opt = nullptr;
};

// The script a code point counts under in --stats.
enum Script { kHangul, kLatin, kHan, kOther };
Script script_of(char32_t c) {
  if ((c >= 0xAC00 && c <= 0xD7A3) || (c >= 0x1100 && c <= 0x11FF) || (c >= 0x3130 && c <= 0x318F)) return kHangul;
  if (unicode::is_cjk_ideograph(c)) return kHan;
  if ((c >= U'A' && c <= U'Z') || (c >= U'a' && c <= U'z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7)) return kLatin;
  return kOther;
}

// --stats: what the text costs in this tokenizer — characters, bytes and words per script (a word's
// script is that of its first Hangul, Latin or Han character), tokens per word and per character,
// the share of [UNK] / byte-fallback tokens and of tokens that hold only part of a character (byte-
// level BPE), and the most frequent tokens. Special tokens are left out of the counts.
void add_stats(Result& r, const std::string& text, const std::vector<HfEncoding>& encs, const HfTokenizer& tok) {
  std::size_t chars[4] = {}, bytes[4] = {}, words[4] = {};
  bool in_word = false;
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    const std::size_t n = std::max<std::size_t>(1, unicode::utf8_decode(text, i, &c));
    const Script sc = script_of(c);
    ++chars[sc], bytes[sc] += n;
    if (unicode::is_white_space(c)) {
      in_word = false;
    } else if (!in_word) {
      in_word = true;
      // the word's script: its first Hangul, Latin or Han character
      Script ws = kOther;
      for (std::size_t k = i; k < text.size();) {
        char32_t d = 0;
        const std::size_t m = std::max<std::size_t>(1, unicode::utf8_decode(text, k, &d));
        if (unicode::is_white_space(d)) break;
        if (script_of(d) != kOther) {
          ws = script_of(d);
          break;
        }
        k += m;
      }
      ++words[ws];
    }
    i += n;
  }
  std::optional<std::size_t> unk = tok.token_to_id("[UNK]");
  if (!unk) unk = tok.token_to_id("<unk>");
  std::size_t tokens = 0, unknown = 0, byte_tokens = 0, partial = 0;
  std::unordered_map<std::size_t, std::size_t> freq;
  for (const HfEncoding& e : encs)
    for (std::size_t k = 0; k < e.ids.size(); ++k) {
      if (e.special[k]) continue;
      ++tokens;
      ++freq[e.ids[k]];
      if (unk && e.ids[k] == *unk) ++unknown;
      const std::string& t = e.tokens[k];
      if (t.size() == 6 && t.starts_with("<0x") && t.back() == '>') ++byte_tokens;
      if (!e.readable.empty() && e.readable[k].find('/') != std::string::npos && e.readable[k].back() == ')') ++partial;
    }
  const std::size_t all_words = words[0] + words[1] + words[2] + words[3], all_chars = chars[0] + chars[1] + chars[2] + chars[3];
  Records rec;
  rec.name = N_("stats");
  rec.columns = {N_("script"), N_("characters"), N_("bytes"), N_("words")};
  const char* names[4] = {N_("Hangul"), N_("Latin"), N_("Han"), N_("other")};
  nlohmann::json per = nlohmann::json::object();
  for (int k = 0; k < 4; ++k) {
    rec.rows.push_back({std::string(tr_runtime(names[k])), static_cast<long long>(chars[k]), static_cast<long long>(bytes[k]),
                        static_cast<long long>(words[k])});
    per[names[k]] = {{"characters", chars[k]}, {"bytes", bytes[k]}, {"words", words[k]}};
  }
  const double per_word = all_words ? static_cast<double>(tokens) / static_cast<double>(all_words) : 0.0;
  const double per_char = all_chars ? static_cast<double>(tokens) / static_cast<double>(all_chars) : 0.0;
  std::vector<std::pair<std::size_t, std::size_t>> top(freq.begin(), freq.end());
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  if (top.size() > 10) top.resize(10);
  std::vector<std::string> shown;
  nlohmann::json top_json = nlohmann::json::array();
  for (const auto& [id, n] : top) {
    shown.push_back(fmt::format("{} ×{}", tok.readable(id), n));
    top_json.push_back({{"id", id}, {"token", tok.id_to_token(id)}, {"readable", tok.readable(id)}, {"count", n}});
  }
  r.blocks.push_back(Text{trf("stats: {} tokens (specials left out) for {} words, {} characters, {} bytes: {:.2f} tokens per word, {:.3f} "
                              "per character; [UNK] {}, byte-fallback tokens {}, tokens holding part of a character {}",
                              tokens, all_words, all_chars, text.size(), per_word, per_char, unknown, byte_tokens, partial)});
  r.blocks.push_back(std::move(rec));
  r.blocks.push_back(Text{trf("most frequent tokens: {}", fmt::join(shown, ", "))});
  r.summary["stats"] = {{"tokens", tokens},           {"words", all_words},           {"characters", all_chars},
                        {"bytes", text.size()},       {"tokens_per_word", per_word},  {"tokens_per_character", per_char},
                        {"unknown", unknown},         {"byte_fallback", byte_tokens}, {"partial_character", partial},
                        {"scripts", per},             {"most_frequent", top_json}};
}

void run_model_tokenize(const ModelTokenizeOptions& o) {
  const std::string text = document_text(o.text, o.text_opt->count() > 0, o.file);  // a usage error first
  const HfTokenizer tok = HfTokenizer::load(o.dir);
  const bool npy = output_options(o.out).format == Format::npy;
  // the sequences: the whole text, or each line
  std::vector<std::string_view> seqs;
  if (o.lines) seqs = document_lines(text);
  else seqs.push_back(text);
  std::vector<HfEncoding> encs;
  encs.reserve(seqs.size());
  {
    ProgressBar bar(o.file.empty() ? tr("tokenizing") : trf("tokenizing {}", o.file == "-" ? "<stdin>" : o.file), "B");
    std::size_t done = 0;
    for (std::string_view s : seqs) {
      const Progress p = bar.callback() ? Progress([&](std::size_t d, std::size_t) { bar.update(done + d, text.size()); }) : Progress{};
      encs.push_back(tok.encode(s, !o.no_special, !npy || o.stats, p));
      done += s.size() + 1;
    }
  }
  Result r;
  r.command = "model tokenize";
  r.params = {{"model", o.dir}, {"special_tokens", !o.no_special}, {"lines", o.lines}};
  if (o.file.empty()) r.params["text"] = o.text;
  else r.params["file"] = o.file;
  std::size_t count = 0;
  for (const HfEncoding& e : encs) count += e.ids.size();
  const std::string how = o.lines ? trf("{} lines, each its own sequence as Hugging Face's encode_batch sees them", seqs.size())
                                  : tr("the whole text one sequence, as Hugging Face's encode sees it (--lines: each line its own)");
  r.blocks.push_back(Text{trf("{} tokens; {} tokenizer from {} (vocabulary {}){}; {}", count, tok.kind(), tok.source(), tok.vocab_size(),
                              o.no_special ? tr("; no special tokens (--no-special)") : "", how)});
  if (o.stats) add_stats(r, text, encs, tok);
  if (npy) {
    // the ids as float32 (exact below 2^24, above every vocabulary's size)
    Matrix m;
    m.name = "ids";
    m.values = Tensor({count});
    std::size_t k = 0;
    for (const HfEncoding& e : encs)
      for (std::size_t id : e.ids) m.values[k++] = static_cast<float>(id);
    r.blocks.push_back(std::move(m));
    r.primary = "ids";
    present(r, o.out);
    return;
  }
  Records rec;
  rec.name = N_("tokens");
  rec.columns = o.lines ? std::vector<std::string>{N_("line"), N_("position"), N_("token"), N_("readable"), N_("id")}
                        : std::vector<std::string>{N_("position"), N_("token"), N_("readable"), N_("id")};
  rec.rows.reserve(count);
  nlohmann::json ids = nlohmann::json::array(), tokens = nlohmann::json::array(), readable = nlohmann::json::array();
  for (std::size_t l = 0; l < encs.size(); ++l) {
    const HfEncoding& e = encs[l];
    nlohmann::json li = nlohmann::json::array();
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
      if (o.lines)
        rec.rows.push_back({static_cast<long long>(l + 1), static_cast<long long>(i), e.tokens[i], e.readable[i], static_cast<long long>(e.ids[i])});
      else
        rec.rows.push_back({static_cast<long long>(i), e.tokens[i], e.readable[i], static_cast<long long>(e.ids[i])});
      li.push_back(e.ids[i]);
    }
    if (o.lines) {
      ids.push_back(std::move(li));
      tokens.push_back(e.tokens);
      readable.push_back(e.readable);
    } else {
      ids = std::move(li);
      tokens = e.tokens;
      readable = e.readable;
    }
  }
  r.blocks.push_back(std::move(rec));
  r.summary[N_("tokens")] = std::move(tokens);
  r.summary[N_("ids")] = std::move(ids);
  r.summary[N_("readable")] = std::move(readable);
  r.primary = "tokens";
  present(r, o.out);
}

}  // namespace

void register_model_tokenize(CLI::App& model) {
  auto [cmd, o] = add_command(model, "tokenize", tr("The checkpoint's own tokenizer: tokens and ids as Hugging Face gives them"), run_model_tokenize);
  cmd->add_option("DIR", o->dir, tr("Checkpoint folder with tokenizer.json (or vocab.txt, or vocab.json + merges.txt)"))->required();
  o->text_opt = cmd->add_option("TEXT", o->text, tr("The text to tokenize (or --file)"));
  cmd->add_option("--file", o->file,
                  tr("Tokenize this UTF-8 file (- = standard input) instead of TEXT: the whole document one sequence, as "
                     "Hugging Face's encode sees it"))
      ->type_name("FILE");
  cmd->add_flag("--lines", o->lines, tr("Each line its own sequence (as Hugging Face's encode_batch), special tokens around each"));
  cmd->add_flag("--stats", o->stats,
                tr("What the text costs: characters, bytes and words per script (Hangul, Latin, Han, other), tokens per word "
                   "and per character, [UNK] / byte-fallback share, the most frequent tokens"));
  cmd->add_flag("--no-special", o->no_special, tr("Leave out the tokens the post-processor adds ([CLS] … [SEP], <s>)"));
  add_output_flags(cmd, o->out, false);
  set_examples(cmd, {tr("tfx model tokenize gpt2/ \"Hello, my dog is cute\"          # 15496 11 616 3290 318 13779"),
                     tr("tfx model tokenize bert-base-uncased/ \"Hello, my dog is cute\" --format json"),
                     tr("tfx model tokenize gpt2/ --file book.txt --format npy -o ids.npy"),
                     tr("cat notes.txt | tfx model tokenize llama3/ --file - --lines --format json")});
}

}  // namespace tfx::cli
