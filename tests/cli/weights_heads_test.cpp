// The number of heads with --weights: PyTorch's tensors do not record it, so it comes from
// --heads, else from the file's __metadata__ nhead / num_heads (what --save-weights writes), else
// a one-line usage error asks for --heads. Outputs checked against PyTorch's (reference constants
// of tests/reference/gen_transformer_reference.py), not against tfx's own runs alone.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "reference_files.hpp"
#include "reference/transformer_reference.hpp"
#include "tfx/core/error.hpp"
#include "tfx/model/safetensors.hpp"

using namespace tfx::test;

TEST_CASE("safetensors metadata: read back as written; nhead, else num_heads, is the number of heads") {
  tfx::TensorMap m;
  m["w"] = tfx::Tensor({1, 2});
  m["w"][1] = 2.0f;
  tfx::TensorMetadata meta;
  tfx::parse_safetensors(tfx::encode_safetensors(m, {{"format", "pt"}, {"nhead", "4"}}), "f", &meta);
  CHECK(meta == tfx::TensorMetadata{{"format", "pt"}, {"nhead", "4"}});
  CHECK(tfx::metadata_heads(meta, "f") == 4u);
  CHECK(tfx::metadata_heads({{"num_heads", "2"}}, "f") == 2u);
  CHECK(!tfx::metadata_heads({{"format", "pt"}}, "f").has_value());
  tfx::parse_safetensors(tfx::encode_safetensors(m), "f", &meta);
  CHECK(meta.empty());
  for (const std::string bad : {"x", "0", "-2", "2.5", "", "99999"}) {
    CAPTURE(bad);
    CHECK(has(error_of([&] { tfx::metadata_heads({{"nhead", bad}}, "w.safetensors"); }),
              "w.safetensors: __metadata__ nhead = '" + bad + "' is not a number of heads"));
  }
}

TEST_CASE("--weights without --heads: a file without metadata asks for --heads in one line (exit 2)") {
  check_one_line_error(run_tfx("attention --x " + ref("transformer_x.npy") + " --weights " + ref("mha.safetensors")), 2,
                       "give --heads, the module's nhead (1, 2, 4 or 8 for d_model = 8)");
  check_one_line_error(run_tfx("encoder --x " + ref("transformer_x.npy") + " --weights " + ref("encoder_layer.safetensors")), 2,
                       "PyTorch's tensors do not record it");
  check_one_line_error(run_tfx("decoder --x " + ref("transformer_x.npy") + " --memory-x " + ref("transformer_memory.npy") +
                               " --weights " + ref("decoder_layer.safetensors")),
                       2, "has no __metadata__ nhead");
  // a directory of .npy files carries no metadata either
  TempDir d;
  const tfx::TensorMap enc = tfx::read_safetensors(ref_path("encoder_layer.safetensors"));
  std::filesystem::create_directory(d / "w");
  for (const auto& [name, t] : enc) {
    const std::string shape = t.rank() == 1 ? fmt::format("({},)", t.shape()[0]) : fmt::format("({}, {})", t.shape()[0], t.shape()[1]);
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape);
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xFF) + static_cast<char>(header.size() >> 8) + header;
    bytes.append(reinterpret_cast<const char*>(t.values().data()), t.size() * sizeof(float));
    write_file(d / "w" / (name + ".npy"), bytes);
  }
  check_one_line_error(run_tfx("encoder --x " + ref("transformer_x.npy") + " --weights " + shell_quote((d / "w").string())), 2,
                       "give --heads");
  const auto j = json_of(run_tfx("encoder --x " + ref("transformer_x.npy") + " --heads 2 --format json --weights " +
                                 shell_quote((d / "w").string())));
  CHECK(maxdiff(j["data"], tfx::reference::kEncoderLayer) < 1e-5);
}

TEST_CASE("--weights with __metadata__ nhead: used without --heads, PyTorch's numbers; a contradicting --heads is refused") {
  TempDir d;
  // PyTorch's own encoder-layer weights, re-saved with the metadata a user would add
  // (save_file(sd, path, metadata={"nhead": "2"}))
  const tfx::TensorMap enc = tfx::read_safetensors(ref_path("encoder_layer.safetensors"));
  write_file(d / "enc.safetensors", tfx::encode_safetensors(enc, {{"nhead", "2"}}));
  const Run r = run_tfx("encoder --x " + ref("transformer_x.npy") + " --format json --weights " + shell_quote((d / "enc.safetensors").string()));
  const auto j = json_of(r);
  CHECK(j["params"]["heads"] == 2);
  CHECK(maxdiff(j["data"], tfx::reference::kEncoderLayer) < 1e-5);
  const Run table = run_tfx("encoder --x " + ref("transformer_x.npy") + " --weights " + shell_quote((d / "enc.safetensors").string()));
  CHECK(has(table.out, "heads = 2 (nhead in the file's __metadata__)"));
  check_one_line_error(run_tfx("encoder --x " + ref("transformer_x.npy") + " --heads 4 --weights " +
                               shell_quote((d / "enc.safetensors").string())),
                       2, "--heads 4: --weights " + (d / "enc.safetensors").string() + " was saved with nhead = 2");
  // nn.MultiheadAttention's parameter name works too, for attention
  const tfx::TensorMap mha = tfx::read_safetensors(ref_path("mha.safetensors"));
  write_file(d / "mha.safetensors", tfx::encode_safetensors(mha, {{"num_heads", "2"}}));
  const auto a = json_of(run_tfx("attention --x " + ref("transformer_x.npy") + " --format json --weights " +
                                 shell_quote((d / "mha.safetensors").string())));
  CHECK(maxdiff(a["matrices"]["output"]["data"], tfx::reference::kMhaOutput) < 1e-5);
  // a metadata nhead that does not divide d_model is the file's fault (exit 1), a junk one too
  write_file(d / "three.safetensors", tfx::encode_safetensors(enc, {{"nhead", "3"}}));
  check_one_line_error(run_tfx("encoder --x " + ref("transformer_x.npy") + " --weights " + shell_quote((d / "three.safetensors").string())),
                       1, "__metadata__ nhead = 3 does not divide d_model = 8");
  write_file(d / "junk.safetensors", tfx::encode_safetensors(enc, {{"nhead", "two"}}));
  check_one_line_error(run_tfx("encoder --x " + ref("transformer_x.npy") + " --weights " + shell_quote((d / "junk.safetensors").string())),
                       1, "__metadata__ nhead = 'two' is not a number of heads");
}

TEST_CASE("--save-weights then --weights: the saved nhead comes back, and so do the numbers") {
  TempDir d;
  const std::string sent = "decoder --sentence 'I am a student' --memory '나는 학생 이다' --heads 4 --format json";
  const auto first = json_of(run_tfx(sent + " --save-weights " + shell_quote((d / "dec.safetensors").string())));
  tfx::TensorMetadata meta;
  tfx::read_safetensors((d / "dec.safetensors").string(), &meta);
  CHECK(meta.at("nhead") == "4");
  const auto again = json_of(run_tfx("decoder --sentence 'I am a student' --memory '나는 학생 이다' --format json --weights " +
                                     shell_quote((d / "dec.safetensors").string())));
  CHECK(again["params"]["heads"] == 4);
  CHECK(again["data"] == first["data"]);
}
