// A GGUF file's tokenizer (gguf_model.hpp): tokenizer.ggml.* written out as the tokenizer.json
// Hugging Face would have for the same vocabulary, read by tfx's HfTokenizer:
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
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "tfx/model/builtin_models.hpp"
#include "tfx/core/error.hpp"
#include "tfx/model/gguf_model.hpp"
#include "tfx/model/mapped_weights.hpp"

namespace tfx {

namespace {

using json = nlohmann::json;

[[noreturn]] void tok_bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }

const std::vector<GgufValue>& array_of(const GgufFile& f, const char* key, GgufValueType elem, const std::string& where,
                                       bool required = true) {
  static const std::vector<GgufValue> none;
  const GgufValue* v = f.find(key);
  if (!v) {
    if (required) tok_bad(where, fmt::format("no metadata {} (the tokenizer needs it)", key));
    return none;
  }
  if (v->type != GgufValueType::array || (v->elem != elem && !(elem == GgufValueType::i32 && v->items.empty())))
    tok_bad(where, fmt::format("metadata {} should be an array of {}", key, elem == GgufValueType::string ? "strings" : "numbers"));
  return v->items;
}

constexpr const char* kLlama3Split =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr const char* kQwen2Split =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

bool is_wordpiece_special(const std::string& t) { return t.size() >= 2 && t.front() == '[' && t.back() == ']'; }

}  // namespace

HfTokenizer gguf_tokenizer(const GgufFile& f, const std::string& where) {
  // a Hugging Face tokenizer.json carried whole (GGUF's tokenizer.huggingface.json: what tfx model
  // quantize writes for a folder that has one) is the tokenizer exactly
  if (const auto hf = f.get_string("tokenizer.huggingface.json", where))
    return HfTokenizer::from_json(*hf, where + " (tokenizer.huggingface.json)");
  const std::optional<std::string> model = f.get_string("tokenizer.ggml.model", where);
  if (!model) tok_bad(where, "no metadata tokenizer.ggml.model (the file carries no tokenizer; give --ids)");
  const std::vector<GgufValue>& tokens = array_of(f, "tokenizer.ggml.tokens", GgufValueType::string, where);
  const GgufValue* types_v = f.find("tokenizer.ggml.token_type");
  const std::vector<GgufValue> no_types;
  const std::vector<GgufValue>& types = types_v && types_v->type == GgufValueType::array ? types_v->items : no_types;
  auto type_of = [&](std::size_t i) { return i < types.size() ? types[i].i : 1; };
  std::vector<std::string> spelled(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) spelled[i] = tokens[i].s;
  json j;
  json vocab = json::object(), added = json::array();
  if (*model == "bert") {
    for (std::string& t : spelled) {
      if (t.rfind("\xE2\x96\x81", 0) == 0) t = t.substr(3);
      else if (!is_wordpiece_special(t)) t = "##" + t;
    }
  }
  for (std::size_t i = 0; i < spelled.size(); ++i) {
    const std::int64_t type = type_of(i);
    if (type == 3 || type == 4) {
      added.push_back({{"id", i}, {"content", spelled[i]}, {"special", type == 3}});
      continue;
    }
    if (!vocab.contains(spelled[i])) vocab[spelled[i]] = i;
  }
  json m;
  if (*model == "gpt2") {
    m = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}};
    for (const GgufValue& merge : array_of(f, "tokenizer.ggml.merges", GgufValueType::string, where)) m["merges"].push_back(merge.s);
    const std::string pre = f.get_string("tokenizer.ggml.pre", where).value_or("gpt-2");
    if (pre == "gpt-2" || pre == "default") {
      j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
    } else if (pre == "llama-bpe" || pre == "llama3" || pre == "qwen2" || pre == "deepseek-r1-qwen") {
      j["pre_tokenizer"] = {{"type", "Sequence"},
                            {"pretokenizers",
                             {{{"type", "Split"}, {"pattern", {{"Regex", pre.rfind("llama", 0) == 0 ? kLlama3Split : kQwen2Split}}}},
                              {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
    } else {
      tok_bad(where, fmt::format("tokenizer.ggml.pre \"{}\" is not supported (gpt-2, llama-bpe, qwen2)", pre));
    }
  } else if (*model == "llama") {
    // SentencePiece → BPE merges: every split of a token into two tokens, ranked by the token's score
    const std::vector<GgufValue>& scores = array_of(f, "tokenizer.ggml.scores", GgufValueType::f32, where);
    if (scores.size() != tokens.size()) tok_bad(where, "tokenizer.ggml.scores and tokenizer.ggml.tokens differ in length");
    std::unordered_map<std::string, std::size_t> id;
    for (std::size_t i = 0; i < spelled.size(); ++i) id.emplace(spelled[i], i);
    struct Merge {
      double score;
      std::size_t merged, left, right;
      std::size_t cut;
    };
    std::vector<Merge> merges;
    for (std::size_t i = 0; i < spelled.size(); ++i) {
      const std::string& t = spelled[i];
      if (type_of(i) != 1) continue;
      for (std::size_t k = 1; k < t.size(); ++k) {
        if ((static_cast<unsigned char>(t[k]) & 0xC0) == 0x80) continue;  // inside a character
        const auto l = id.find(t.substr(0, k)), r = id.find(t.substr(k));
        if (l != id.end() && r != id.end()) merges.push_back({scores[i].f, i, l->second, r->second, k});
      }
    }
    std::stable_sort(merges.begin(), merges.end(), [](const Merge& a, const Merge& b) {
      if (a.score != b.score) return a.score > b.score;
      if (a.merged != b.merged) return a.merged < b.merged;
      return a.left != b.left ? a.left < b.left : a.right < b.right;
    });
    m = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}, {"byte_fallback", true}, {"fuse_unk", true}};
    for (const Merge& g : merges) m["merges"].push_back(json::array({spelled[g.left], spelled[g.right]}));
    if (const auto unk = f.get_uint("tokenizer.ggml.unknown_token_id", where); unk && *unk < spelled.size()) m["unk_token"] = spelled[*unk];
    const bool prefix = [&] {
      const GgufValue* v = f.find("tokenizer.ggml.add_space_prefix");
      return !v || v->i != 0;
    }();
    j["normalizer"] = {{"type", "Sequence"}, {"normalizers", json::array()}};
    if (prefix) j["normalizer"]["normalizers"].push_back({{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}});
    j["normalizer"]["normalizers"].push_back({{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}});
  } else if (*model == "bert") {
    m = {{"type", "WordPiece"}, {"vocab", vocab}, {"continuing_subword_prefix", "##"}};
    if (const auto unk = f.get_uint("tokenizer.ggml.unknown_token_id", where); unk && *unk < spelled.size()) m["unk_token"] = spelled[*unk];
    j["normalizer"] = {{"type", "BertNormalizer"}, {"lowercase", true}};
    j["pre_tokenizer"] = {{"type", "BertPreTokenizer"}};
  } else {
    tok_bad(where, fmt::format("tokenizer.ggml.model \"{}\" is not supported (gpt2, llama, bert)", *model));
  }
  j["model"] = m;
  j["added_tokens"] = added;
  // the template: <bos> TEXT <eos> as the file asks (bert: [CLS] … [SEP])
  auto flag = [&](const char* key, bool fallback) {
    const GgufValue* v = f.find(key);
    return v ? v->i != 0 : fallback;
  };
  json single = json::array(), specials = json::object();
  auto special = [&](const char* key) {
    const auto id = f.get_uint(key, where);
    if (!id || *id >= spelled.size()) return;
    single.push_back({{"SpecialToken", {{"id", spelled[*id]}, {"type_id", 0}}}});
    specials[spelled[*id]] = {{"id", spelled[*id]}, {"ids", {*id}}, {"tokens", {spelled[*id]}}};
  };
  const bool bert = *model == "bert";
  if (flag("tokenizer.ggml.add_bos_token", bert)) special(bert ? "tokenizer.ggml.cls_token_id" : "tokenizer.ggml.bos_token_id");
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  if (flag("tokenizer.ggml.add_eos_token", bert)) special(bert ? "tokenizer.ggml.seperator_token_id" : "tokenizer.ggml.eos_token_id");
  if (single.size() > 1) j["post_processor"] = {{"type", "TemplateProcessing"}, {"single", single}, {"special_tokens", specials}};
  return HfTokenizer::from_json(j.dump(), where + " (tokenizer.ggml)");
}

HfTokenizer load_model_tokenizer(const std::string& named) {
  const std::string dir = model_files_dir(named);  // a built-in name (teaching-gpt): its cached files
  if (!is_gguf_file(dir)) return HfTokenizer::load(dir);
  const MappedWeights map = MappedWeights::map_whole(dir);
  return gguf_tokenizer(parse_gguf(map.mapped_file(), dir), dir);
}

}  // namespace tfx
