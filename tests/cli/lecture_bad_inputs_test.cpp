// Issue 15's "Bad input" list, item by item, end to end: each gives one `tfx: error:` line that
// names the flag or file (and the tensor), the right exit code (2 usage, 1 data), and no output
// file. The safetensors files are written byte by byte here, independently of tfx's writer.
#include <cstdint>
#include <filesystem>

#include "helpers.hpp"
#include "reference_files.hpp"

using namespace tfx::test;

namespace {

// A safetensors file: 8-byte little-endian header length, the header, then `buffer_bytes` bytes.
std::string safetensors(const std::string& header, std::size_t buffer_bytes) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + std::string(buffer_bytes, '\0');
}

// nn.MultiheadAttention with d_model = 8: in_proj_weight [24, 8] (768 bytes), in_proj_bias [24] (96).
std::string mha_header(const std::string& bias_dtype, std::size_t bias_begin, std::size_t bias_end, const std::string& extra = "") {
  return "{\"in_proj_weight\":{\"dtype\":\"F32\",\"shape\":[24,8],\"data_offsets\":[0,768]},"
         "\"in_proj_bias\":{\"dtype\":\"" + bias_dtype + "\",\"shape\":[24],\"data_offsets\":[" + std::to_string(bias_begin) + "," +
         std::to_string(bias_end) + "]}" + extra + "}";
}

void check_no_file(const Run& r, int code, const std::string& part, const std::filesystem::path& out) {
  check_one_line_error(r, code, part);
  CHECK(!std::filesystem::exists(out));
}

}  // namespace

TEST_CASE("issue 15 bad inputs: safetensors files that lie, overlap, miss or misshape a tensor, or use an unknown dtype") {
  TempDir d;
  const std::string x = "attention --x " + ref("transformer_x.npy") + " --heads 2 -o out.csv --weights ";
  auto put = [&](const std::string& name, const std::string& bytes) {
    write_file(d / name, bytes);
    return x + shell_quote((d / name).string());
  };
  const std::filesystem::path out = d / "out.csv";
  // a header length past the end of the file
  check_no_file(run_tfx(put("lying.safetensors", std::string("\x40\x42\x0f\0\0\0\0\0{}", 10)), d.path), 1,
                "header length 1000000 runs past the end of the file", out);
  // offsets past the end of the buffer
  check_no_file(run_tfx(put("past.safetensors", safetensors(mha_header("F32", 768, 1264), 864)), d.path), 1,
                "tensor 'in_proj_bias': data_offsets [768, 1264] run past the end of the 864-byte buffer", out);
  // overlapping tensors
  check_no_file(run_tfx(put("overlap.safetensors", safetensors(mha_header("F32", 672, 768), 768)), d.path), 1,
                "tensors 'in_proj_weight' [0, 768] and 'in_proj_bias' [672, 768] overlap", out);
  // an unknown dtype
  check_no_file(run_tfx(put("dtype.safetensors", safetensors(mha_header("I8", 768, 792), 792)), d.path), 1,
                "tensor 'in_proj_bias': dtype 'I8' is not supported", out);
  // a missing tensor, named
  check_no_file(run_tfx(put("missing.safetensors", safetensors(mha_header("F32", 768, 864), 864)), d.path), 1,
                "no tensor 'out_proj.weight' [8, 8]", out);
  // a misshapen tensor, named with both shapes
  const std::string misshapen = mha_header("F32", 768, 864,
                                           ",\"out_proj.weight\":{\"dtype\":\"F32\",\"shape\":[8,9],\"data_offsets\":[864,1152]},"
                                           "\"out_proj.bias\":{\"dtype\":\"F32\",\"shape\":[8],\"data_offsets\":[1152,1184]}");
  check_no_file(run_tfx(put("misshapen.safetensors", safetensors(misshapen, 1184)), d.path), 1,
                "tensor 'out_proj.weight' is [8, 9]; expected [8, 8]", out);
}

TEST_CASE("issue 15 bad inputs: --heads not dividing d, --ffn 0, --layers 0, empty sentences, bad vocab files, --memory off the decoder") {
  TempDir d;
  const std::filesystem::path out = d / "out.csv";
  const std::string enc = "encoder --sentence 'I am a student' -o out.csv ";
  check_no_file(run_tfx(enc + "--heads 3", d.path), 2, "--heads 3 does not divide d_model = 16", out);
  check_no_file(run_tfx("attention --sentence 'I am a student' --heads 3 -o out.csv", d.path), 2, "--heads 3 does not divide d_model = 64", out);
  check_no_file(run_tfx(enc + "--weights " + ref("encoder_layer.safetensors") + " --heads 3", d.path), 2,
                "--heads 3 does not divide d_model = 8", out);
  check_no_file(run_tfx(enc + "--ffn 0", d.path), 2, "--ffn", out);
  check_no_file(run_tfx(enc + "--layers 0", d.path), 2, "--layers", out);
  check_no_file(run_tfx("decoder --sentence 'I am' --memory x --layers 0 -o out.csv", d.path), 2, "--layers", out);
  check_no_file(run_tfx("encoder --sentence '' -o out.csv", d.path), 2, "--sentence: text '' has no tokens", out);
  check_no_file(run_tfx("decoder --sentence ' ' --memory x -o out.csv", d.path), 2, "--sentence: text ' ' has no tokens", out);
  check_no_file(run_tfx("decoder --sentence 'I am' --memory '' -o out.csv", d.path), 2, "--memory: text '' has no tokens", out);
  check_no_file(run_tfx("attention --sentence '' -o out.csv", d.path), 2, "--sentence '' has no words", out);
  write_file(d / "dup.txt", "[UNK]\nplay\n##ing\nplay\n");
  write_file(d / "gap.txt", "[UNK]\nplay\n\n##ing\n");
  check_no_file(run_tfx("tokenize playing --vocab dup.txt -o out.csv", d.path), 1, "dup.txt:4: duplicate token 'play' (first on line 2)", out);
  check_no_file(run_tfx("tokenize playing --vocab gap.txt -o out.csv", d.path), 1, "gap.txt:3: empty line", out);
  check_no_file(run_tfx("tokenize playing --vocab '' -o out.csv", d.path), 2, "--vocab: expected a file name, got an empty one", out);
  check_no_file(run_tfx(enc + "--memory '나는 학생 이다'", d.path), 2, "--memory goes with tfx decoder", out);
  check_no_file(run_tfx(enc + "--memory-x z.npy", d.path), 2, "--memory-x goes with tfx decoder", out);
  check_no_file(run_tfx("attention --sentence 'I am' --memory x -o out.csv", d.path), 2, "--memory", out);
}
