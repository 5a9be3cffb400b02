// The tfx command line as a function (main.cpp's main() and the fuzz targets in tests/fuzz/ call
// it): builds the CLI11 app, registers every command in one ordered list, and maps errors to exit
// codes (2 = usage, 1 = data/output) through one exit path. Parse errors are reworded for
// people: unknown commands and flags get "did you mean", a sentence left unquoted gets told to
// quote it. `tfx --generate man|bash|zsh` writes the man page and completions from the same
// command table as --help.
#include <CLI/CLI.hpp>
#include <unistd.h>
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <string_view>

#include "cli/language_env.hpp"
#include "cli/commands.hpp"
#include "cli/flags/flag_names.hpp"
#include "cli/help.hpp"
#include "cli/run.hpp"
#include "cli/present/terminal.hpp"
#include "cli/flags/validators.hpp"
#include "tfx/core/error.hpp"
#include "tfx/core/memory.hpp"
#include "tfx/io/emit_together.hpp"
#include "tfx/io/mapped_file.hpp"
#include "tfx/io/temp_file.hpp"
#include "tfx/core/gemm.hpp"
#include "tfx/core/i18n.hpp"

namespace {

// CLI11's own messages (its parse errors and validators, English inside the library), marked so
// the catalog has them and the exit path translates a parse error as it does tfx's own.
[[maybe_unused]] constexpr const char* kCli11Messages[] = {
    N_("The value {} is not an allowed value for {}"), N_("Could not convert: {} = {}"), N_("{}: too many inputs for a flag"),
    N_("{}: Should be true/false or a number"), N_("{} is required"), N_("Requires at least {} subcommands"),
    N_("A subcommand is required"), N_("Expected exactly {} arguments to {}, got {}"), N_("Expected at least {} arguments to {}, got {}"),
    N_("{}: At least {} required but received {}"), N_("{}: At Most {} required but received {}"), N_("{}: {} required {} missing"),
    N_("{} requires {}"), N_("{} excludes {}"), N_("The following arguments were not expected: {}"),
    N_("The following argument was not expected: {}"), N_("{} not in {}"), N_("Value {} not in range {} to {}"),
    N_("Value {} could not be converted"), N_("Failed parsing {} as a {}"), N_("File does not exist: {}"),
    N_("File is actually a directory: {}"), N_("Directory does not exist: {}"), N_("Path does not exist: {}"),
};

// The one error line: every control character, escape sequence or invalid byte a message carries
// from a file (a newline that would forge a second "tfx: error:" line, ESC/OSC, a NUL in a shard
// name that would cut the line) is written escaped.
int fail(const std::string& message, int code) {
  std::fflush(stdout);
  // Korean (--lang ko or a Korean locale): the English message translated through the catalog's
  // format strings (tfx::translate_message); a message the library already worded in Korean,
  // or one nothing matches, passes unchanged
  const std::string line = "tfx: error: " + tfx::escape_for_message(tfx::translate_message(message), std::string::npos) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  return code;
}

// Out of memory, said without allocating (there may be nothing left to allocate): the one error
// line, the temporaries removed, exit 1.
constexpr char kOutOfMemory[] = "tfx: error: out of memory; try smaller values (or set TFX_MEMORY_LIMIT to be told sooner)\n";
int fail_out_of_memory() {
  std::fflush(stdout);
  tfx::remove_live_temporaries();
  [[maybe_unused]] const auto n = ::write(2, kOutOfMemory, sizeof kOutOfMemory - 1);
  return 1;
}

// std::terminate's handler: a std::bad_alloc that escaped the exit path below (thrown in a
// destructor during unwinding, in a noexcept function, on a thread) is still the one error line,
// not "terminate called after throwing an instance of 'std::bad_alloc'" and SIGABRT.
[[noreturn]] void terminate_on_bad_alloc() {
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      _exit(fail_out_of_memory());
    } catch (...) {
    }
  }
  std::abort();
}

// "-x…" or "--x…", not a negative number ("-3", "-.5") nor "-" alone
bool looks_like_flag(std::string_view w) { return w.size() >= 2 && w[0] == '-' && !(w[1] >= '0' && w[1] <= '9') && w[1] != '.'; }

// The message for a parse error: walks argv along the command path to name the command, an
// unknown command or flag (with the closest match), or an unquoted multi-word value.
std::string explain_parse_error(const CLI::App& app, int argc, char** argv, const CLI::ParseError& e) {
  using tfx::cli::closest_match;
  const CLI::App* at = &app;
  std::string path = "tfx";
  const CLI::Option* last_value_of = nullptr;  // the one-value flag whose value the previous word was
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w == "--") break;
    // 1. a flag: known to this command (or a parent), else "did you mean"
    if (looks_like_flag(w)) {
      const std::string name = w.substr(0, w.find('='));
      const CLI::Option* opt = nullptr;
      for (const CLI::App* a = at; a && !opt; a = a->get_parent()) opt = a->get_option_no_throw(name);
      if (!opt) {
        if (name == "-h" || name == "--help") continue;
        // a spelling renamed so that each flag name means one thing (issue 45): name the new one
        struct Renamed {
          const char *command, *old_name, *new_name;
        };
        static constexpr Renamed kRenamed[] = {
            {"tfx pe shift", "--k", "--offset"},        {"tfx pe shift", "--show", "--rotation"},
            {"tfx pe linear", "--k", "--offset"},       {"tfx complexity", "--k", "--kernel"},
            {"tfx project", "--dims", "--components"},  {"tfx project", "--pairs", "--arrows"},
            {"tfx project", "--method", "--projection"}, {"tfx translate", "--layer", "--decoder-layer"},
            {"tfx model quantize", "--show", "--measure"}, {"tfx tokenize train", "--show", "--lesson"},
            {"tfx model generate", "--show", "--candidates"}, {"tfx model ablate", "--head", "--ablate-heads"},
            {"tfx analogy", "--batch", "--queries"},     {"tfx embeddings convert", "--to", "--to-format"},
            {"tfx lr", "--factor", "--lr-factor"},       {"tfx patches", "--height", "--image-height"},
            {"tfx patches", "--width", "--image-width"}};
        for (const Renamed& r : kRenamed)
          if (path == r.command && name == r.old_name)
            return fmt::format(N_("'{}' of '{}' is now called '{}' (each flag name has one meaning in tfx)"), name, path,
                               r.new_name);
        const std::string guess = closest_match(name, tfx::cli::flag_names(at));
        if (!guess.empty()) return fmt::format(N_("unknown flag '{}' for '{}'; did you mean '{}'?"), name, path, guess);
        return fmt::format(N_("unknown flag '{}' for '{}' (see {} --help)"), name, path, path);
      }
      last_value_of = nullptr;
      // its value is the next word, unless that is a flag (`--png -o x.png`: --png's value is optional)
      if (opt->get_expected_max() > 0 && w.find('=') == std::string::npos && i + 1 < argc && !looks_like_flag(argv[i + 1])) {
        ++i;  // its value
        if (opt->get_expected_max() == 1) last_value_of = opt;
      }
      continue;
    }
    // 2. more words after a one-value flag's value: a sentence that needed quotes, when the
    // error is about words left over (a value out of range, or a missing flag, says its own)
    const auto subs = tfx::cli::visible_subcommands(at);
    const bool is_sub = std::any_of(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->check_name(w); });
    if (last_value_of && !is_sub && dynamic_cast<const CLI::ExtrasError*>(&e)) {
      std::string words = argv[i - 1];
      int n = i;
      for (; n < argc && argv[n][0] != '-'; ++n) words += " " + std::string(argv[n]);
      const std::string flag = argv[i - 2];
      return fmt::format(N_("{} takes one value but got {} words; quote them: {} \"{}\""), flag, n - i + 1, flag, words);
    }
    last_value_of = nullptr;
    // 3. a word naming a subcommand (CLI11 takes it as one even where the command has positionals:
    // tokenize train), else "unknown command" (commands with positionals take it)
    if (subs.empty()) continue;
    if (!is_sub && !at->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) continue;
    if (!is_sub) {
      std::vector<std::string> names;
      for (const CLI::App* sub : subs) names.push_back(sub->get_name());
      const std::string guess = closest_match(w, names);
      const std::string where = at == &app ? "" : fmt::format(N_(" for '{}'"), path);
      if (!guess.empty()) return fmt::format(N_("unknown command '{}'{}; did you mean '{} {}'?"), w, where, path, guess);
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      return fmt::format(N_("unknown command '{}'{}; expected one of: {} (see {} --help)"), w, where, list, path);
    }
    for (const CLI::App* sub : subs)
      if (sub->check_name(w)) at = sub;
    path += " " + at->get_name();
  }
  // CLI11 lists left-over words last first ("not expected: 4 3 2 1"): in the order given
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const std::vector<std::string> extra = at->remaining(false);
    if (!extra.empty()) {
      std::string words;
      for (const std::string& x : extra) words += (words.empty() ? "" : " ") + x;
      const std::string what = extra.size() == 1 ? fmt::format(N_("The following argument was not expected: {}"), words)
                                                 : fmt::format(N_("The following arguments were not expected: {}"), words);
      return fmt::format(N_("{} (see {} --help)"), what, path);
    }
  }
  return fmt::format(N_("{} (see {} --help)"), e.what(), path);
}

}  // namespace

// `--lang en|ko` may stand anywhere before `--` (`tfx pe --lang ko --png`, `tfx --lang ko pe`):
// it is taken out of argv before CLI11 parses, so every command has it without declaring it,
// and the language is set before any command computes. Without it, the environment decides
// (LC_ALL / LC_MESSAGES / LANG, LANGUAGE). Returns the message of a bad value, or "".
static std::string take_language_flag(int& argc, char** argv) {
  std::optional<tfx::Language> chosen;
  int out = 1;
  bool done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (!done && a == "--") done = true;
    if (!done && (a == "--lang" || a.rfind("--lang=", 0) == 0)) {
      std::string_view value;
      if (a == "--lang") {
        if (i + 1 >= argc)
          return fmt::format(N_("--lang: expected {} after it"), tfx::choice_list<tfx::Language>(tfx::kLanguageChoices, true));
        value = argv[++i];
      } else {
        value = a.substr(7);
      }
      try {
        chosen = tfx::parse_language(value, "--lang");
      } catch (const tfx::Error& e) {
        return e.what();
      }
      continue;
    }
    argv[out++] = argv[i];
  }
  if (out < argc) argv[out] = nullptr;
  argc = out;
  const tfx::Language lang = chosen ? *chosen : tfx::cli::language_from_environment();
  if (const std::string why = tfx::set_language(lang, tfx::cli::catalog_settings_from_environment()); !why.empty() && chosen)
    std::fprintf(stderr, "tfx: note: --lang %s: %s\n", tfx::language_code(lang), why.c_str());
  return {};
}

int tfx::cli::run(int argc, char** argv) {
  // `tfx … | head -1`: a closed pipe ends tfx quietly, as it does `cat`, even when the parent
  // (a shell after `trap '' PIPE`, some service managers) left SIGPIPE ignored, which would turn it
  // into an EPIPE write error and a "tfx: error:" line
  std::signal(SIGPIPE, SIG_DFL);
  std::set_terminate(terminate_on_bad_alloc);
  // Ctrl-C, kill or a closed terminal during a long write or a first cache load: the temporary
  // files (output, cache) are removed before the process dies of the signal
  tfx::install_temp_file_cleanup();
  // an input file truncated by another program while mapped: one error line naming it, exit 1
  tfx::install_sigbus_handler();
  if (const std::string bad = take_language_flag(argc, argv); !bad.empty()) return fail(bad, 2);
  CLI::App app{tr("tfx — calculator and visualizer for the building blocks of transformers.\n"
                  "Positional encodings, RoPE, word embeddings and attention, as tables, CSV/JSON/.npy and figures."),
               "tfx"};
  app.formatter(tfx::cli::help_formatter(tfx::cli::terminal_size(stdout).columns));
  app.set_version_flag("--version", std::string("tfx ") + TFX_VERSION);
  app.require_subcommand(1);
  // --lang is taken out of argv above (so it may follow the command); declared here and on every
  // command below for --help, the man page and the completions
  static std::string lang_for_help;
  const auto add_lang_option = [](CLI::App* cmd, const char* help) {
    cmd->add_option("--lang", lang_for_help, help)->check(tfx::cli::one_of<tfx::Language>(tfx::kLanguageChoices));
  };
  add_lang_option(&app, tfx::tr("Language of figures, tables and notes: en or ko (default: LANG / LC_MESSAGES); may follow the command"));
  app.footer(std::string("\n") + tr("Run 'tfx COMMAND --help' for a command's flags and examples."));

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
  tfx::cli::register_softmax(app);
  tfx::cli::register_encoder(app);
  tfx::cli::register_decoder(app);
  tfx::cli::register_translate(app);
  tfx::cli::register_trace(app);
  tfx::cli::register_architecture(app);
  tfx::cli::register_model(app);
  tfx::cli::register_train(app);
  tfx::cli::register_complexity(app);
  tfx::cli::register_patches(app);
  tfx::cli::register_layernorm(app);
  tfx::cli::register_lr(app);
  // a command's own subcommands (pe sim, rope freqs, attention variance, embeddings info) are
  // listed under "Subcommands:" in its --help, whatever group the command has at the top level
  for (CLI::App* cmd : app.get_subcommands({}))
    for (CLI::App* sub : cmd->get_subcommands({}))
      if (!sub->get_group().empty()) sub->group(tr("Subcommands"));

  // every decimal flag and argument (CLI11's FLOAT: double, float, their vectors and optionals)
  // refuses nan and infinities by name, after the command's own checks
  std::function<void(CLI::App*)> finite_floats = [&](CLI::App* cmd) {
    for (CLI::Option* opt : cmd->get_options())
      if (opt->get_type_name().find("FLOAT") != std::string::npos) opt->check(tfx::cli::finite_float());
    for (CLI::App* sub : cmd->get_subcommands({})) finite_floats(sub);
  };
  finite_floats(&app);

  std::function<void(CLI::App*)> add_lang = [&](CLI::App* cmd) {
    for (CLI::App* sub : cmd->get_subcommands({})) {
      add_lang_option(sub, tfx::tr("Language of figures, tables and notes: en or ko (default: LANG / LC_MESSAGES)"));
      add_lang(sub);
    }
  };
  add_lang(&app);

  // `tfx` alone: the overview. `tfx --generate man|bash|zsh|python`: documents from the command table.
  if (argc == 1) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--generate") == 0) {
    const std::string what = argv[2];
    if (what == "man") std::fputs(tfx::cli::man_page(app).c_str(), stdout);
    else if (what == "bash") std::fputs(tfx::cli::bash_completion(app).c_str(), stdout);
    else if (what == "zsh") std::fputs(tfx::cli::zsh_completion(app).c_str(), stdout);
    else if (what == "python") std::fputs(tfx::cli::python_commands(app).c_str(), stdout);
    else return fail(fmt::format(N_("--generate: expected man, bash, zsh or python, got '{}'"), what), 2);
    return 0;
  }

  try {
    // TFX_GEMM_KERNEL=avx512|avx2|generic forces matmul's kernel (tests, benchmarks, bug reports)
    if (const char* kernel = std::getenv("TFX_GEMM_KERNEL"); kernel && *kernel) {
      try {
        tfx::set_gemm_kernel(kernel);
      } catch (const tfx::Error& e) {
        throw tfx::usage_error(std::string("TFX_GEMM_KERNEL: ") + e.what());
      }
    }
    // TFX_AMX=off: --activations q8 without AMX tiles (a CPU without them computes the same bits)
    if (const char* amx = std::getenv("TFX_AMX"); amx && *amx) {
      const std::string v = amx;
      if (v != "on" && v != "off") throw tfx::usage_error(fmt::format(N_("TFX_AMX: expected on or off, got '{}'"), v));
      tfx::set_amx(v == "on");
    }
    // TFX_MEMORY_LIMIT=16G|512M|…: the budget big steps are checked against (default: half of RAM)
    if (const char* limit = std::getenv("TFX_MEMORY_LIMIT"); limit && *limit) {
      char* end = nullptr;
      const double v = std::strtod(limit, &end);
      double unit = 1;
      if (end && *end) {
        switch (*end | 0x20) {
          case 'k': unit = 1024.0; break;
          case 'm': unit = 1024.0 * 1024; break;
          case 'g': unit = 1024.0 * 1024 * 1024; break;
          case 't': unit = 1024.0 * 1024 * 1024 * 1024; break;
          default: unit = 0;
        }
        if (unit != 0 && end[1] != '\0' && !((end[1] | 0x20) == 'b' && end[2] == '\0') &&
            !((end[1] | 0x20) == 'i' && (end[2] | 0x20) == 'b' && end[3] == '\0'))
          unit = 0;
      }
      if (end == limit || !(v > 0) || unit == 0 || v * unit > 1e18)
        throw tfx::usage_error(fmt::format(N_("TFX_MEMORY_LIMIT: expected a size such as 16G, 512M or a number of bytes, got '{}'"), limit));
      tfx::set_memory_budget(static_cast<std::size_t>(v * unit), "raise TFX_MEMORY_LIMIT");
    }
    // the command's output files replaced together when it succeeds, none when it fails
    tfx::OutputBatch outputs;
    app.parse(argc, argv);
    outputs.commit();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(explain_parse_error(app, argc, argv, e), 2);
  } catch (const tfx::Error& e) {
    return fail(tfx::cli::message_with_flags(e), e.kind() == tfx::Error::Kind::usage ? 2 : 1);
  } catch (const std::bad_alloc&) {
    return fail_out_of_memory();
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
  return 0;
}
