// Fuzz target: the flags that take lists of numbers or words, parsed by the commands themselves
// (--vector, --x, --gamma, --beta, --ids, --warmup, --words, --arrows, --from …). Input: one byte
// choosing the flag, then its value(s): each '\n'-separated piece (at most 4) is one occurrence
// of the flag, as in `tfx lookup --ids 0,2 --ids 1,3`.
#include <iterator>

#include "fuzz_cli.hpp"

namespace {

struct Flag {
  std::vector<std::string> before;  // the command and any flags the value needs
  std::string flag;
};

const Flag kFlags[] = {
    {{"rope", "rotate"}, "--vector"},
    {{"rope", "rotate", "--dim", "4"}, "--vector"},
    {{"layernorm"}, "--x"},
    {{"layernorm"}, "--gamma"},
    {{"layernorm"}, "--beta"},
    {{"layernorm", "--x", "1,2;3,4"}, "--tokens"},
    {{"lookup"}, "--ids"},
    {{"lookup"}, "--words"},
    {{"lr", "--steps", "100", "--rows", "5"}, "--warmup"},
    {{"similar", "king"}, "--negative"},
    {{"project"}, "--words"},
    {{"project"}, "--arrows"},
    {{"direction", "--to", "queen,woman"}, "--from"},
    {{"similarity"}, "--words"},
    {{"rope", "freqs", "--dim", "8"}, "--scaling"},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Flag& f = kFlags[data[0] % std::size(kFlags)];
  std::vector<std::string> args = f.before;
  const std::string text = tfx::fuzz::as_argument(data + 1, size - 1);
  std::size_t start = 0;
  for (int n = 0; n < 4 && start <= text.size(); ++n) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos || n == 3) end = text.size();
    args.push_back(f.flag);
    args.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  tfx::fuzz::run_cli(args);
  return 0;
}
