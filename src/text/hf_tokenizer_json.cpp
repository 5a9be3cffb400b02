// tokenizer.json → HfTokenizer::Impl: the model (BPE or WordPiece), normalizers, pre-tokenizer,
// post-processor and added tokens, each checked (kinds tfx does not run are refused by name), and
// the folder's files (tokenizer.json, or vocab.txt / vocab.json + merges.txt) found.
#include "hf_tokenizer_impl.hpp"
#include "tfx/core/i18n.hpp"

namespace tfx {

using namespace hf_detail;

namespace {
[[noreturn]] void bad(const std::string& where, const std::string& what) { throw Error(fmt::format("{}: {}", where, what)); }
}  // namespace

namespace hf_detail {

void add_token(HfTokenizer::Impl& t, const std::string& token, std::size_t id, const std::string& where) {
  // ids run 0…V−1; a few gaps are tolerated, but an id far past the tokens the file declares
  // would only allocate an empty table (a 50-byte file claiming id 47666666)
  if (id >= 2 * t.declared + 1024)
    bad(where, fmt::format(N_("the id {} of '{}' is far past the {} tokens the file declares (ids should run from 0)"), id, token, t.declared));
  if (id >= t.id_to_token.size()) t.id_to_token.resize(id + 1);
  if (!t.id_to_token[id].empty() && t.id_to_token[id] != token)
    bad(where, fmt::format(N_("id {} is both '{}' and '{}'"), id, t.id_to_token[id], token));
  t.id_to_token[id] = token;
  t.token_to_id.emplace(token, id);
}

void add_merge(HfTokenizer::Impl& t, std::string_view a, std::string_view b, std::uint32_t rank, const std::string& where) {
  std::string ab;
  ab.reserve(a.size() + b.size());
  ab.append(a).append(b);
  const auto ia = t.find(a), ib = t.find(b), ic = t.find(ab);
  if (!ia || !ib || !ic) bad(where, fmt::format(N_("merge {} '{} {}': a token of it is not in the vocabulary"), rank, a, b));
  t.merges.emplace((static_cast<std::uint64_t>(*ia) << 32) | *ib, std::pair<std::uint32_t, std::uint32_t>{rank, static_cast<std::uint32_t>(*ic)});
}

}  // namespace hf_detail

namespace {

void sort_added(HfTokenizer::Impl& t) {
  std::stable_sort(t.added.begin(), t.added.end(), [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
  t.added_matcher.build(t.added);
}

void name_kind(HfTokenizer::Impl& t, const std::string& where) {
  if (t.model == Model::wordpiece) {
    t.wordpiece_vocab.name = where;
    t.wordpiece_vocab.tokens = t.id_to_token;
    for (std::size_t i = 0; i < t.id_to_token.size(); ++i)
      if (!t.id_to_token[i].empty()) {
        t.wordpiece_vocab.ids.emplace(t.id_to_token[i], i);
        t.wordpiece_vocab.longest = std::max(t.wordpiece_vocab.longest, t.id_to_token[i].size());
      }
    t.kind = "WordPiece";
  } else if (t.byte_level) {
    t.kind = "byte-level BPE";
  } else if (t.metaspace || t.prepend != Prepend::never) {
    t.kind = t.byte_fallback ? "BPE over ▁ with byte fallback" : "BPE over ▁";
  } else {
    t.kind = "BPE";
  }
}

}  // namespace

void hf_detail::finish(HfTokenizer::Impl& t, const std::string& where) {
  sort_added(t);
  name_kind(t, where);
}

HfTokenizer HfTokenizer::from_impl(std::shared_ptr<const Impl> impl) {
  HfTokenizer h;
  h.impl_ = std::move(impl);
  return h;
}

namespace {


const json& member(const json& j, const char* key, const std::string& where, const std::string& what) {
  if (!j.is_object() || !j.contains(key)) bad(where, fmt::format("no \"{}\" ({})", key, what));
  return j[key];
}

std::string str(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_string()) bad(where, fmt::format(N_("{} should be a string"), what));
  return j.get<std::string>();
}

std::size_t whole(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_number_unsigned() || j.get<std::uint64_t>() >= (1u << 30)) bad(where, fmt::format(N_("{} should be a whole number below 2^30"), what));
  return j.get<std::size_t>();
}

void read_merges(HfTokenizer::Impl& t, const json& merges, const std::string& where) {
  if (!merges.is_array()) bad(where, N_("model.merges should be a list"));
  std::uint32_t rank = 0;
  for (const json& m : merges) {
    std::string a, b;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const std::size_t sp = s.find(' ');
      if (sp == std::string::npos) bad(where, fmt::format(N_("merge {} '{}' should be two tokens separated by a space"), rank, s));
      a = s.substr(0, sp), b = s.substr(sp + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>(), b = m[1].get<std::string>();
    } else {
      bad(where, fmt::format(N_("merge {} should be \"a b\" or [\"a\", \"b\"]"), rank));
    }
    add_merge(t, a, b, rank, where);
    ++rank;
  }
}

Split split_of(const std::string& pattern, const std::string& where) {
  if (pattern.find("\\p{N}{1,3}") != std::string::npos) return Split::llama3;
  if (pattern.find("(?i:'s") != std::string::npos) return Split::qwen2;
  if (pattern.find("'s|'t|'re|'ve|'m|'ll|'d") != std::string::npos) return Split::gpt2;
  bad(where, fmt::format(N_("pre_tokenizer Split pattern '{}' is not one tfx knows (GPT-2's, Llama 3's or Qwen2's)"), pattern));
}

void read_pre_tokenizer(HfTokenizer::Impl& t, const json& p, const std::string& where) {
  if (p.is_null()) return;
  const std::string type = str(member(p, "type", where, "the pre-tokenizer's kind"), where, "pre_tokenizer.type");
  if (type == "Sequence") {
    for (const json& q : member(p, "pretokenizers", where, "a list of pre-tokenizers")) read_pre_tokenizer(t, q, where);
  } else if (type == "ByteLevel") {
    t.byte_level = true;
    t.add_prefix_space = json_bool(p, "add_prefix_space", false, where);
    if (json_bool(p, "use_regex", true, where)) t.split = Split::gpt2;
  } else if (type == "Split") {
    const json& pat = member(p, "pattern", where, "the split pattern");
    if (!pat.is_object() || !pat.contains("Regex")) bad(where, N_("pre_tokenizer Split: only a Regex pattern is supported"));
    t.split = split_of(str(pat["Regex"], where, "Split pattern"), where);
  } else if (type == "BertPreTokenizer" || type == "Whitespace" || type == "WhitespaceSplit") {
    // WordPiece's split (BERT's basic tokenizer) is built into the model
  } else if (type == "Metaspace") {
    t.metaspace = true;
    const std::string scheme = json_string(p, "prepend_scheme", json_bool(p, "add_prefix_space", true, where) ? "always" : "never", where);
    t.prepend = scheme == "always" ? Prepend::always : scheme == "first" ? Prepend::first : Prepend::never;
    t.metaspace_split = json_bool(p, "split", true, where);
  } else if (type == "Digits" || type == "Punctuation") {
    bad(where, fmt::format(N_("pre_tokenizer {} is not supported (supported: ByteLevel, Split, BertPreTokenizer, Metaspace)"), type));
  } else {
    bad(where, fmt::format(N_("pre_tokenizer {} is not supported (supported: ByteLevel, Split, BertPreTokenizer, Metaspace)"), type));
  }
}

void read_normalizer(HfTokenizer::Impl& t, const json& n, const std::string& where) {
  if (n.is_null()) return;
  const std::string type = str(member(n, "type", where, "the normalizer's kind"), where, "normalizer.type");
  if (type == "Sequence") {
    for (const json& m : member(n, "normalizers", where, "a list of normalizers")) read_normalizer(t, m, where);
  } else if (type == "BertNormalizer") {
    NormStep b;
    b.kind = Norm::bert;
    b.clean_text = json_bool(n, "clean_text", true, where);
    b.chinese = json_bool(n, "handle_chinese_chars", true, where);
    b.lower = json_bool(n, "lowercase", true, where);
    b.strip = n.contains("strip_accents") && !n["strip_accents"].is_null() ? json_bool(n, "strip_accents", b.lower, where) : b.lower;
    t.lowercase = b.lower;
    t.norms.push_back(b);
  } else if (type == "Lowercase") {
    t.lowercase = true;
    t.norms.push_back({Norm::lowercase});
  } else if (type == "Prepend") {
    if (json_string(n, "prepend", "", where) != "\xE2\x96\x81") bad(where, N_("normalizer Prepend: only \"▁\" is supported"));
    t.prepend = Prepend::always;
  } else if (type == "Replace") {
    const json& pat = member(n, "pattern", where, "what to replace");
    if (!(pat.is_object() && json_string(pat, "String", "", where) == " " && json_string(n, "content", "", where) == "\xE2\x96\x81"))
      bad(where, N_("normalizer Replace: only \" \" → \"▁\" is supported"));
    t.metaspace = true;
  } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD" || type == "StripAccents") {
    t.norms.push_back({type == "NFC"    ? Norm::nfc
                       : type == "NFD"  ? Norm::nfd
                       : type == "NFKC" ? Norm::nfkc
                       : type == "NFKD" ? Norm::nfkd
                                        : Norm::strip_accents});
  } else {
    bad(where, fmt::format(N_("normalizer {} is not supported (supported: BertNormalizer, Lowercase, NFC, NFD, NFKC, NFKD, "
                           "StripAccents, Prepend, Replace)"), type));
  }
}

TemplatePiece special_piece(const std::string& name, const json& specials, const HfTokenizer::Impl& t, const std::string& where) {
  TemplatePiece p;
  if (specials.is_object() && specials.contains(name)) {
    const json& s = specials[name];
    for (const json& id : member(s, "ids", where, "the special token's ids")) p.ids.push_back(whole(id, where, "a special token id"));
    for (const json& tok : member(s, "tokens", where, "the special token's tokens")) p.tokens.push_back(str(tok, where, "a special token"));
  } else if (const auto id = t.find(name)) {
    p.ids = {*id};
    p.tokens = {name};
  } else {
    bad(where, fmt::format(N_("post_processor: special token '{}' is not in the vocabulary"), name));
  }
  if (p.ids.size() != p.tokens.size()) bad(where, fmt::format(N_("post_processor: '{}' has {} ids and {} tokens"), name, p.ids.size(), p.tokens.size()));
  for (std::size_t id : p.ids)
    if (id >= t.id_to_token.size()) bad(where, fmt::format(N_("post_processor: '{}' has id {}, past the vocabulary ({} tokens)"), name, id, t.id_to_token.size()));
  return p;
}

void read_post_processor(HfTokenizer::Impl& t, const json& p, const std::string& where) {
  if (p.is_null()) return;
  const std::string type = str(member(p, "type", where, "the post-processor's kind"), where, "post_processor.type");
  if (type == "Sequence") {
    for (const json& q : member(p, "processors", where, "a list of post-processors")) read_post_processor(t, q, where);
  } else if (type == "ByteLevel") {
    // offsets only
  } else if (type == "TemplateProcessing") {
    t.single.clear();
    for (const json& piece : member(p, "single", where, "the single-sequence template")) {
      if (piece.contains("Sequence")) {
        TemplatePiece s;
        s.sequence = true;
        t.single.push_back(s);
      } else if (piece.contains("SpecialToken")) {
        t.single.push_back(special_piece(str(member(piece["SpecialToken"], "id", where, "the token"), where, "SpecialToken.id"),
                                          p.value("special_tokens", json::object()), t, where));
      } else {
        bad(where, N_("post_processor template: each piece should be a Sequence or a SpecialToken"));
      }
    }
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    const json& cls = member(p, "cls", where, "[token, id]");
    const json& sep = member(p, "sep", where, "[token, id]");
    auto piece = [&](const json& j) {
      if (!j.is_array() || j.size() != 2) bad(where, fmt::format(N_("post_processor {}: cls and sep should be [token, id]"), type));
      TemplatePiece tp;
      tp.tokens = {str(j[0], where, "the token")};
      tp.ids = {whole(j[1], where, "the id")};
      if (tp.ids[0] >= t.id_to_token.size())
        bad(where, fmt::format(N_("post_processor {}: id {} is past the vocabulary ({} tokens)"), type, tp.ids[0], t.id_to_token.size()));
      return tp;
    };
    TemplatePiece seq;
    seq.sequence = true;
    t.single = {piece(cls), seq, piece(sep)};
  } else {
    bad(where, fmt::format(N_("post_processor {} is not supported (supported: TemplateProcessing, ByteLevel, RobertaProcessing)"), type));
  }
}


std::string read_text(const fs::path& p) { return read_text_input(p.string(), p.filename().string()); }

}  // namespace

namespace {

// model.vocab and model.merges taken out of the document while it is parsed (lean_parse): the
// vocabulary's (token, id) pairs and the merges' two tokens, one compact copy instead of a JSON
// value per entry (a 150,000-token vocabulary's document is ~10 × its text)
struct Captured {
  bool vocab = false, merges = false;  // taken out (the document then has them empty)
  std::vector<std::pair<std::string, std::uint64_t>> vocab_items;
  std::vector<std::pair<std::string, std::string>> merge_items;
};

std::shared_ptr<HfTokenizer::Impl> interpret(const json& j, const std::string& where, const Captured* cap = nullptr) {
  auto t = std::make_shared<HfTokenizer::Impl>();
  t->source = where;
  const json& model = member(j, "model", where, "the tokenizer model");
  const std::string type = model.contains("type") ? str(model["type"], where, "model.type")
                           : model.contains("merges") ? "BPE"
                                                      : "WordPiece";
  const json& vocab = member(model, "vocab", where, "the vocabulary");
  if (!vocab.is_object()) bad(where, N_("model.vocab should be an object {token: id}"));
  const std::size_t added_n = j.contains("added_tokens") && j["added_tokens"].is_array() ? j["added_tokens"].size() : 0;
  if (cap && cap->vocab) {
    // the document's order: keys sorted, a repeated key's last value
    std::vector<std::size_t> order(cap->vocab_items.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cap->vocab_items[a].first < cap->vocab_items[b].first; });
    std::vector<std::size_t> kept;
    kept.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      if (i + 1 == order.size() || cap->vocab_items[order[i + 1]].first != cap->vocab_items[order[i]].first) kept.push_back(order[i]);
    t->declared = kept.size() + added_n;
    t->id_to_token.reserve(kept.size() + added_n);
    t->token_to_id.reserve(kept.size() + added_n);
    for (std::size_t i : kept) {
      const auto& [token, id] = cap->vocab_items[i];
      if (id >= (1u << 30)) bad(where, fmt::format(N_("{} should be a whole number below 2^30"), fmt::format("the id of '{}'", token)));
      add_token(*t, token, static_cast<std::size_t>(id), where);
    }
  } else {
    t->declared = vocab.size() + added_n;
    for (const auto& [token, id] : vocab.items()) add_token(*t, token, whole(id, where, fmt::format("the id of '{}'", token)), where);
  }
  // added tokens (special ones and others), matched in the text before anything else
  if (j.contains("added_tokens") && j["added_tokens"].is_array())
    for (const json& a : j["added_tokens"]) {
      AddedToken at;
      at.content = str(member(a, "content", where, "an added token's text"), where, "added_tokens content");
      at.id = whole(member(a, "id", where, "an added token's id"), where, "added_tokens id");
      at.special = json_bool(a, "special", false, where);
      at.lstrip = json_bool(a, "lstrip", false, where);
      at.rstrip = json_bool(a, "rstrip", false, where);
      at.single_word = json_bool(a, "single_word", false, where);
      if (at.content.empty()) bad(where, N_("an added token is empty"));
      add_token(*t, at.content, at.id, where);
      t->added.push_back(at);
    }
  sort_added(*t);
  if (model.contains("unk_token") && model["unk_token"].is_string()) t->unk = t->find(model["unk_token"].get<std::string>());
  if (type == "BPE") {
    t->model = Model::bpe;
    if (cap && cap->merges) {
      t->merges.reserve(cap->merge_items.size());
      std::uint32_t rank = 0;
      for (const auto& [a, b] : cap->merge_items) add_merge(*t, a, b, rank++, where);
    } else {
      read_merges(*t, member(model, "merges", where, "the BPE merges"), where);
    }
    t->byte_fallback = json_bool(model, "byte_fallback", false, where);
    t->fuse_unk = json_bool(model, "fuse_unk", false, where);
    t->ignore_merges = json_bool(model, "ignore_merges", false, where);
  } else if (type == "WordPiece") {
    t->model = Model::wordpiece;
    t->continuing_prefix = json_string(model, "continuing_subword_prefix", "##", where);
    t->max_word_chars = json_whole(model, "max_input_chars_per_word", 100, std::size_t{1} << 20, where);
    if (t->continuing_prefix != "##") bad(where, N_("WordPiece: only the \"##\" continuing prefix is supported"));
  } else {
    bad(where, fmt::format(N_("model type '{}' is not supported (supported: BPE, WordPiece)"), type));
  }
  read_normalizer(*t, j.value("normalizer", json()), where);
  read_pre_tokenizer(*t, j.value("pre_tokenizer", json()), where);
  read_post_processor(*t, j.value("post_processor", json()), where);
  name_kind(*t, where);
  return t;
}

}  // namespace

namespace {

// The document without model.vocab's entries and model.merges' elements, which go to `cap` as they
// are read; nullopt when an entry is not what tokenizer.json holds (a vocabulary id that is not a
// whole number, a merge that is neither "a b" nor ["a", "b"]): the caller then reads the whole
// document, whose checks name the problem.
std::optional<json> lean_parse(std::string_view text, const std::string& where, Captured& cap) {
  check_json_depth(text, where);
  std::string keys[4];  // the key at depths 1 … 3
  std::string pending;  // a vocabulary token waiting for its id
  std::vector<std::string> pair;
  bool odd = false;
  auto in_model = [&](const char* member) { return keys[1] == "model" && keys[2] == member; };
  const json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    if (odd) return true;
    if (event == json::parse_event_t::key && depth >= 1 && depth <= 3) {
      keys[depth] = parsed.get<std::string>();
      for (int d = depth + 1; d < 4; ++d) keys[d].clear();
    }
    if (depth == 2 && event == json::parse_event_t::object_start && in_model("vocab")) cap.vocab = true;
    if (depth == 2 && event == json::parse_event_t::array_start && in_model("merges")) cap.merges = true;
    if (depth == 3 && in_model("vocab")) {
      if (event == json::parse_event_t::key) {
        pending = parsed.get<std::string>();
        return false;
      }
      if (event == json::parse_event_t::value) {
        if (!parsed.is_number_unsigned()) odd = true;
        else cap.vocab_items.emplace_back(std::move(pending), parsed.get<std::uint64_t>());
        return false;
      }
      odd = true;  // a nested value
      return true;
    }
    if (depth >= 3 && in_model("merges") && keys[3].empty()) {
      if (depth == 3 && event == json::parse_event_t::value) {
        if (!parsed.is_string()) {
          odd = true;
          return true;
        }
        const std::string m = parsed.get<std::string>();
        const std::size_t sp = m.find(' ');
        if (sp == std::string::npos) odd = true;
        else cap.merge_items.emplace_back(m.substr(0, sp), m.substr(sp + 1));
        return false;
      }
      if (depth == 3 && event == json::parse_event_t::array_start) {
        pair.clear();
        return true;
      }
      if (depth == 4 && event == json::parse_event_t::value) {
        if (!parsed.is_string()) odd = true;
        else pair.push_back(parsed.get<std::string>());
        return false;
      }
      if (depth == 3 && event == json::parse_event_t::array_end) {
        if (pair.size() != 2) odd = true;
        else cap.merge_items.emplace_back(std::move(pair[0]), std::move(pair[1]));
        return false;
      }
      if (depth >= 4) odd = true;  // deeper than ["a", "b"]
    }
    return true;
  };
  json j = json::parse(text, cb);  // a syntax error: the caller's parse_json names it
  if (odd) return std::nullopt;
  return j;
}

}  // namespace

HfTokenizer HfTokenizer::from_json(std::string_view text, const std::string& where) {
  json j;
  Captured cap;
  bool lean = false;
  try {
    if (std::optional<json> l = lean_parse(text, where, cap)) {
      j = std::move(*l);
      lean = true;
    }
  } catch (const json::exception&) {
  }
  if (!lean) {
    cap = Captured{};
    try {
      j = parse_json(text, where);
    } catch (const json::exception& e) {
      bad(where, fmt::format(N_("not valid JSON ({})"), e.what()));
    }
  }
  HfTokenizer h;
  try {
    h.impl_ = interpret(j, where, lean ? &cap : nullptr);
  } catch (const json::exception& e) {  // a field of a type no check above expected
    bad(where, fmt::format(N_("unexpected JSON structure ({})"), e.what()));
  }
  return h;
}

HfTokenizer HfTokenizer::load(const std::string& dir) {
  const fs::path d(dir);
  std::error_code ec;
  if (!fs::is_directory(d, ec)) throw Error(fmt::format(N_("{}: not a directory (expected a checkpoint folder with tokenizer.json, "
                                                        "vocab.txt or vocab.json + merges.txt)"), dir));
  if (fs::exists(d / "tokenizer.json", ec)) {
    const std::string path = (d / "tokenizer.json").string();
    return from_json(read_text(d / "tokenizer.json"), path);
  }
  auto t = std::make_shared<Impl>();
  if (fs::exists(d / "vocab.txt", ec)) {
    // BERT's vocab.txt: WordPiece, lower-cased unless tokenizer_config.json says do_lower_case false
    t->source = (d / "vocab.txt").string();
    t->model = Model::wordpiece;
    t->wordpiece_vocab = read_vocab(t->source);
    t->id_to_token = t->wordpiece_vocab.tokens;
    for (std::size_t i = 0; i < t->id_to_token.size(); ++i) t->token_to_id.emplace(t->id_to_token[i], i);
    t->lowercase = true;
    if (fs::exists(d / "tokenizer_config.json", ec)) {
      const std::string config = (d / "tokenizer_config.json").string();
      json c;
      try {
        c = parse_json(read_text(d / "tokenizer_config.json"), config);
      } catch (const json::exception& e) {
        bad(config, fmt::format(N_("not valid JSON ({})"), e.what()));
      }
      t->lowercase = json_bool(c, "do_lower_case", true, config);
    }
    NormStep b;  // what BertTokenizerFast builds from vocab.txt
    b.kind = Norm::bert;
    b.lower = b.strip = t->lowercase;
    t->norms.push_back(b);
    t->unk = t->find("[UNK]");
    for (const char* s : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
      if (const auto id = t->find(s)) t->added.push_back({s, *id, true});
    sort_added(*t);
    const auto cls = t->find("[CLS]"), sep = t->find("[SEP]");
    if (cls && sep) {
      TemplatePiece a, seq, b;
      a.ids = {*cls}, a.tokens = {"[CLS]"}, seq.sequence = true, b.ids = {*sep}, b.tokens = {"[SEP]"};
      t->single = {a, seq, b};
    }
    t->kind = "WordPiece";
  } else if (fs::exists(d / "vocab.json", ec) && fs::exists(d / "merges.txt", ec)) {
    // GPT-2's vocab.json + merges.txt: byte-level BPE with GPT-2's pattern, no special tokens added
    t->source = (d / "vocab.json").string() + " + merges.txt";
    json v;
    try {
      v = parse_json(read_text(d / "vocab.json"), (d / "vocab.json").string());
    } catch (const json::exception& e) {
      bad((d / "vocab.json").string(), fmt::format(N_("not valid JSON ({})"), e.what()));
    }
    if (!v.is_object()) bad((d / "vocab.json").string(), "should be an object {token: id}");
    t->declared = v.size();
    for (const auto& [token, id] : v.items()) add_token(*t, token, whole(id, (d / "vocab.json").string(), "an id"), (d / "vocab.json").string());
    json merges = json::array();
    const std::string m = read_text(d / "merges.txt");
    for (std::size_t i = 0; i < m.size();) {
      std::size_t e = m.find('\n', i);
      if (e == std::string::npos) e = m.size();
      std::string line = m.substr(i, e - i);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty() && line.rfind("#version", 0) != 0) merges.push_back(line);
      i = e + 1;
    }
    read_merges(*t, merges, (d / "merges.txt").string());
    t->byte_level = true;
    t->split = Split::gpt2;
    if (const auto id = t->find("<|endoftext|>")) t->added.push_back({"<|endoftext|>", *id, true});
    sort_added(*t);
    t->kind = "byte-level BPE";
  } else {
    throw Error(fmt::format(N_("{}: no tokenizer.json, vocab.txt or vocab.json + merges.txt (the tokenizer files a checkpoint folder needs)"), dir));
  }
  HfTokenizer h;
  h.impl_ = std::move(t);
  return h;
}


}  // namespace tfx
