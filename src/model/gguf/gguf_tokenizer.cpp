// A GGUF file's tokenizer (gguf_model.hpp): tokenizer.ggml.* made into the tables tfx's HfTokenizer
// would read from the tokenizer.json Hugging Face has for the same vocabulary:
//   gpt2   byte-level BPE: tokens, merges, the pre-tokenizer's split by tokenizer.ggml.pre
//          (gpt-2: GPT-2's; llama-bpe / llama3: Llama 3's; qwen2: Qwen2's)
//   llama  SentencePiece: BPE over ▁ with byte fallback, the merges made from the scores the way
//          Hugging Face's LlamaConverter makes them (every split of a token into two tokens, ranked
//          by the token's score, highest first)
//   bert   WordPiece: llama.cpp's converter wrote word-initial pieces with ▁ and continuations
//          bare ("##" removed); that is undone
// CONTROL tokens (token_type 3) are special added tokens, USER_DEFINED (4) added tokens;
// tokenizer.ggml.add_bos_token (and add_eos_token) become the post-processor's template.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "tfx/model/builtin_models.hpp"
#include "tfx/core/error.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/mapped_weights.hpp"
#include "text/hf_tokenizer_impl.hpp"

namespace tfx {

namespace {

[[noreturn]] void tok_bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

const GgufValue* array_of(const GgufFile& f, const char* key, GgufValueType elem, const std::string& where, bool required = true) {
  const GgufValue* v = f.find(key);
  if (!v) {
    if (required) tok_bad(where, fmt::format("no metadata {} (the tokenizer needs it)", key));
    return nullptr;
  }
  if (v->type != GgufValueType::array || (v->elem != elem && !(elem == GgufValueType::i32 && v->size() == 0)))
    tok_bad(where, fmt::format("metadata {} should be an array of {}", key, elem == GgufValueType::string ? "strings" : "numbers"));
  return v;
}

bool is_wordpiece_special(std::string_view t) { return t.size() >= 2 && t.front() == '[' && t.back() == ']'; }

}  // namespace

// Built directly into the tokenizer's tables, as HfTokenizer::from_json would build them from the
// tokenizer.json Hugging Face has for the same vocabulary (no JSON in between: the token and merge
// arrays are read as views into the mapped file).
HfTokenizer gguf_tokenizer(const GgufFile& f, const std::string& where) {
  using hf_detail::Model;
  using hf_detail::Prepend;
  using hf_detail::Split;
  // a Hugging Face tokenizer.json carried whole (GGUF's tokenizer.huggingface.json: what tfx model
  // quantize writes for a folder that has one) is the tokenizer exactly
  if (const auto hf = f.get_string_view("tokenizer.huggingface.json", where))
    return HfTokenizer::from_json(*hf, where + " (tokenizer.huggingface.json)");
  const std::optional<std::string> model = f.get_string("tokenizer.ggml.model", where);
  if (!model)
    tok_bad(where,
            "no metadata tokenizer.ggml.model (the file carries no tokenizer: model logits, next, hidden and attention read "
            "token ids with --ids instead of TEXT)");
  if (*model != "gpt2" && *model != "llama" && *model != "bert")
    tok_bad(where, fmt::format("tokenizer.ggml.model \"{}\" is not supported (gpt2, llama, bert)", *model));
  const std::string here = where + " (tokenizer.ggml)";
  const std::vector<std::string_view> tokens = array_of(f, "tokenizer.ggml.tokens", GgufValueType::string, where)->strings();
  const GgufValue* types_v = f.find("tokenizer.ggml.token_type");
  const bool typed = types_v && types_v->type == GgufValueType::array;
  auto type_of = [&](std::size_t i) -> std::int64_t { return typed && i < types_v->size() ? types_v->int_at(i) : 1; };
  const bool bert = *model == "bert";
  // bert: llama.cpp's converter wrote word-initial pieces with ▁ and continuations bare
  std::vector<std::string> respelled;
  if (bert) {
    respelled.reserve(tokens.size());
    for (std::string_view t : tokens) {
      if (t.rfind("\xE2\x96\x81", 0) == 0) respelled.emplace_back(t.substr(3));
      else if (!is_wordpiece_special(t)) respelled.push_back("##" + std::string(t));
      else respelled.emplace_back(t);
    }
  }
  auto spelled = [&](std::size_t i) -> std::string_view { return bert ? std::string_view(respelled[i]) : tokens[i]; };
  const std::size_t n = tokens.size();
  auto t = std::make_shared<HfTokenizer::Impl>();
  t->source = here;
  // the vocabulary: every token but the added ones (types 3 and 4), a repeated spelling keeping its
  // first id; then the added tokens (CONTROL: special)
  t->declared = n;  // vocabulary + added: at most every token
  t->token_to_id.reserve(n);
  std::string tok;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t type = type_of(i);
    if (type == 3 || type == 4) continue;
    tok.assign(spelled(i));
    if (t->token_to_id.count(tok)) continue;
    hf_detail::add_token(*t, tok, i, here);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t type = type_of(i);
    if (type != 3 && type != 4) continue;
    hf_detail::AddedToken at;
    at.content.assign(spelled(i));
    at.id = i;
    at.special = type == 3;
    if (at.content.empty()) tok_bad(here, "an added token is empty");
    hf_detail::add_token(*t, at.content, at.id, here);
    t->added.push_back(std::move(at));
  }
  if (*model == "gpt2") {
    t->model = Model::bpe;
    const std::vector<std::string_view> merges = array_of(f, "tokenizer.ggml.merges", GgufValueType::string, where)->strings();
    t->merges.reserve(merges.size());
    std::uint32_t rank = 0;
    for (std::string_view m : merges) {
      const std::size_t sp = m.find(' ');
      if (sp == std::string_view::npos)
        tok_bad(here, fmt::format("merge {} '{}' should be two tokens separated by a space", rank, m));
      hf_detail::add_merge(*t, m.substr(0, sp), m.substr(sp + 1), rank, here);
      ++rank;
    }
    const std::string pre = f.get_string("tokenizer.ggml.pre", where).value_or("gpt-2");
    t->byte_level = true;
    t->add_prefix_space = false;
    if (pre == "gpt-2" || pre == "default") t->split = Split::gpt2;
    else if (pre == "llama-bpe" || pre == "llama3") t->split = Split::llama3;
    else if (pre == "qwen2" || pre == "deepseek-r1-qwen") t->split = Split::qwen2;
    else tok_bad(where, fmt::format("tokenizer.ggml.pre \"{}\" is not supported (gpt-2, llama-bpe, qwen2)", pre));
  } else if (*model == "llama") {
    // SentencePiece → BPE merges: every split of a token into two tokens, ranked by the token's
    // score, highest first (Hugging Face's LlamaConverter)
    const GgufValue* scores = array_of(f, "tokenizer.ggml.scores", GgufValueType::f32, where);
    if (scores->size() != n) tok_bad(where, "tokenizer.ggml.scores and tokenizer.ggml.tokens differ in length");
    std::unordered_map<std::string_view, std::size_t> id;
    id.reserve(n);
    for (std::size_t i = 0; i < n; ++i) id.emplace(spelled(i), i);
    struct Merge {
      double score;
      std::size_t merged, left, right;
    };
    std::vector<Merge> merges;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string_view s = spelled(i);
      if (type_of(i) != 1) continue;
      for (std::size_t k = 1; k < s.size(); ++k) {
        if ((static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) continue;  // inside a character
        const auto l = id.find(s.substr(0, k)), r = id.find(s.substr(k));
        if (l != id.end() && r != id.end()) merges.push_back({static_cast<double>(static_cast<float>(scores->float_at(i))), i, l->second, r->second});
      }
    }
    std::stable_sort(merges.begin(), merges.end(), [](const Merge& a, const Merge& b) {
      if (a.score != b.score) return a.score > b.score;
      if (a.merged != b.merged) return a.merged < b.merged;
      return a.left != b.left ? a.left < b.left : a.right < b.right;
    });
    t->model = Model::bpe;
    t->merges.reserve(merges.size());
    std::uint32_t rank = 0;
    for (const Merge& g : merges) hf_detail::add_merge(*t, spelled(g.left), spelled(g.right), rank++, here);
    t->byte_fallback = true;
    t->fuse_unk = true;
    if (const auto unk = f.get_uint("tokenizer.ggml.unknown_token_id", where); unk && *unk < n) t->unk = t->find(spelled(*unk));
    const GgufValue* prefix = f.find("tokenizer.ggml.add_space_prefix");
    if (!prefix || prefix->i != 0) t->prepend = Prepend::always;
    t->metaspace = true;  // ' ' → ▁
  } else {  // bert
    t->model = Model::wordpiece;
    if (const auto unk = f.get_uint("tokenizer.ggml.unknown_token_id", where); unk && *unk < n) t->unk = t->find(spelled(*unk));
    hf_detail::NormStep b;  // BertNormalizer, lower-cased, accents stripped
    b.kind = hf_detail::Norm::bert;
    b.lower = b.strip = true;
    t->lowercase = true;
    t->norms.push_back(b);
  }
  // the template: <bos> TEXT <eos> as the file asks (bert: [CLS] … [SEP])
  auto flag = [&](const char* key, bool fallback) {
    const GgufValue* v = f.find(key);
    return v ? v->i != 0 : fallback;
  };
  std::vector<hf_detail::TemplatePiece> single;
  auto special = [&](const char* key) {
    const auto id = f.get_uint(key, where);
    if (!id || *id >= n) return;
    hf_detail::TemplatePiece p;
    p.ids = {static_cast<std::size_t>(*id)};
    p.tokens = {std::string(spelled(*id))};
    if (*id >= t->id_to_token.size())
      tok_bad(here, fmt::format("post_processor: '{}' has id {}, past the vocabulary ({} tokens)", p.tokens[0], *id, t->id_to_token.size()));
    single.push_back(std::move(p));
  };
  if (flag("tokenizer.ggml.add_bos_token", bert)) special(bert ? "tokenizer.ggml.cls_token_id" : "tokenizer.ggml.bos_token_id");
  hf_detail::TemplatePiece seq;
  seq.sequence = true;
  single.push_back(seq);
  if (flag("tokenizer.ggml.add_eos_token", bert)) special(bert ? "tokenizer.ggml.seperator_token_id" : "tokenizer.ggml.eos_token_id");
  if (single.size() > 1) t->single = std::move(single);
  hf_detail::finish(*t, here);
  return HfTokenizer::from_impl(std::move(t));
}

HfTokenizer load_model_tokenizer(const std::string& named) {
  const std::string dir = model_files_dir(named);  // a built-in name (teaching-gpt): its cached files
  if (!is_gguf_file(dir)) return HfTokenizer::load(dir);
  const MappedWeights map = MappedWeights::map_whole(dir);
  return gguf_tokenizer(parse_gguf(map.mapped_file(), dir, GgufArrays::views), dir);
}

}  // namespace tfx
