#!/usr/bin/env python3
"""Korean output check (issue 24 §16): runs every gallery figure and every command's table
under `--lang ko` and fails on English left in what a person reads.

Two independent checks:
1. tfx itself, run with TFX_I18N_STRICT=1, reports every marked string without a Korean
   translation ("tfx: untranslated: …" on stderr).
2. The output is scanned for English: a word of the English originals (the msgids of po/ko.po)
   that appears in a figure's text (the SVG's <text> elements) or in a table/Markdown output,
   and is neither a kept technical term (KEPT) nor a word of the command line or its data,
   means a string reached the person without going through the catalog (or was never marked).

Usage: check_korean.py TFX [ROOT]   (ROOT = the repository, for po/ko.po and samples/)
"""
import html
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

from report import report

# Terms the Korean notes themselves write in Latin letters (or that are code/formula names).
KEPT = {
    "softmax", "rope", "layernorm", "relu", "gelu", "silu", "pca", "ntk", "yarn", "llama", "llama3",
    "concat", "multihead", "maskedmultihead", "argmax", "logits", "pytorch", "sdpa", "bert", "gpt",
    "wordpiece", "bpe", "cls", "sep", "pad", "unk", "bos", "eos", "mask", "ffn", "vit", "glove",
    "word2vec", "fasttext", "gensim", "numpy", "npy", "csv", "json", "png", "svg", "gif", "html",
    "roformer", "embedding", "nn", "var", "std", "cos", "sin", "exp", "log", "max", "min", "sqrt",
    "float32", "dtype", "true", "false", "none", "linear", "dynamic", "base", "theta", "d_model",
    "d_k", "d_ff", "w_q", "w_k", "w_v", "w_o", "w_out", "pos", "dim", "len", "safetensors",
    "attn_mask", "key_padding_mask", "attention_mask", "is_causal", "multiheadattention",
    "scaled_dot_product_attention", "transformer", "spearman", "pearson", "simlex", "wordsim",
    "bool", "nan", "inf", "hugging", "face", "xavier", "cosadd", "cosmul", "most_similar", "inv_freq", "inv_freq_j",
    "x_a", "x_b", "s_ij", "pe_i", "pe_j", "r_i", "r_j", "r_pos", "s_j", "theta_k", "sum_", "omega", "b_o", "b_q",
    "b_k", "b_v", "tfx", "post", "pre", "txt", "vocab", "api", "generate_square_subsequent_mask", "rad",
    # the paper's schedule formula: lrate = d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)
    "lrate", "warmup", "z_h", "erf", "float", "unit", "mha_bool", "sdpa_bool", "export", "all",
    # names: the optimizer, the stream, Hugging Face's encode() and encode_batch()
    "adam", "stderr", "encode", "encode_batch",
    # a cited work's authors: attention rollout (Abnar & Zuidema 2020)
    "abnar", "zuidema",
}

# In --help only: font names, a named work, and parameter or tool names written as in their docs.
KEPT_HELP = {
    "dejavu", "mistral", "gemma", "ollama", "poster", "sans", "nanumgothic", "annotated", "stride", "uncased", "nfd", "wpe", "git", "clone", "printf", "hello", "llo",
    "nhead", "scores", "scaled", "masked", "weights", "output",  # --show's matrix names, typed by the user
    "cpu", "off",  # the processor, as Korean writes it; TFX_AMX=off, typed by the user
}

GALLERY = os.path.join("scripts", "gen-figures.sh")

# Commands with a table (and no figure) or extra paths the gallery does not take.
TABLES = [
    "pe --dim 4 --pos 1 --i 2",
    "pe --len 6 --dim 4",
    "pe sim --len 6 --dim 8",
    "pe sim --len 16 --dim 8 --profile",
    "pe shift --offset 3 --dim 4",
    "pe curves --len 8 --dim 8 --dims 0,1",
    "pe add --sentence \"I love you\"",
    "pe linear --len 8 --short 4 --dim 8 --dims 0,1",
    "architecture",
    "architecture --model tests/data/hf_models/gpt2",
    "rope --len 4 --dim 4",
    "rope rotate --dim 4 --pos 2 --seed 1",
    "rope relative --dim 8 --len 4",
    "rope freqs --dim 16 --scaling linear --factor 2",
    "rope decay --dim 32 --len 16",
    "tokenize \"I love you\" --vocab wordpiece",
    "tokenize \"나는 고양이 이다\"",
    "lookup --ids 10,45,38",
    "analogy king man woman",
    "embeddings info",
    "similar king -k 5",
    "similarity king queen",
    "lookup --words king,queen --table named-dims",
    "direction --from man,boy --to woman,girl --top 5",
    "project king queen man woman",
    "attention --sentence \"I love you\" --dk 4",
    "attention masks --len 4 --pad 1",
    "attention variance --dk 1,4 --samples 200",
    "softmax 0,-11,7",
    "encoder --sentence \"I am a student\"",
    "decoder --sentence \"I am a student\" --memory \"나는 학생 이다\"",
    "translate \"나는 학생 이다\"",
    "trace \"나는 학생 이다\"",
    "complexity --n 64 --d 32",
    "patches --image 64",
    "layernorm",
    "lr --steps 10",
    "model info tests/data/hf_models/bert",
    "model tokenize tests/data/hf_models/bert \"the cat sat\"",
    "model attention tests/data/hf_models/bert \"the cat sat\" --layer 0 --head 0",
    "model next tests/data/hf_models/gpt2 \"the cat sat\" -k 3 -T 2",
]


def msgid_words(po_path):
    words = set()
    text = open(po_path, encoding="utf-8").read()
    for m in re.finditer(r'^msgid ((?:".*"\n)+)', text, re.M):
        s = "".join(re.findall(r'"(.*)"', m.group(1)))
        s = re.sub(r"\{[^}]*\}", " ", s)
        for w in re.findall(r"[A-Za-z][A-Za-z_]{2,}", s):
            words.add(w.lower())
    return words


def gallery_commands(root):
    cmds = []
    for line in open(os.path.join(root, GALLERY), encoding="utf-8"):
        m = re.match(r'\s*"([^|]+)\|([^|]+)\|(.*)\|[^|]*"\s*$', line)
        if m and m.group(2) != "gif":
            cmds.append(m.group(3).replace('\\"', '"'))
    return cmds


def svg_texts(svg):
    return [html.unescape(re.sub(r"<[^>]+>", "", t)) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]


def choice_names(root):
    """The names of every choice table (k…Choices[] entries' second field) in the headers."""
    names = []
    for d in ("include", "src"):
        for dp, _, fs in os.walk(os.path.join(root, d)):
            for f in fs:
                if f.endswith((".hpp", ".cpp")):
                    t = open(os.path.join(dp, f), encoding="utf-8").read()
                    names += re.findall(r'\{\s*[\w:]+,\s*"([^"]+)"', t)
    return " ".join(names)


def data_words_of(tfx, args, root, env):
    """Words of the data a command shows (tokens, neighbours, vocabulary, file names): the
    one-word strings of its English JSON output. Prose cells (with spaces) do not count, so a
    step description left in English is still caught."""
    p = subprocess.run([tfx, *args, "--lang", "en", "--format", "json"], cwd=root, env=env, capture_output=True, text=True)
    words = set()
    if p.returncode != 0:
        return words
    def walk(v, key=""):
        if isinstance(v, str):
            if " " not in v.strip() and key != "notes":
                words.update(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", v))
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
    try:
        walk(json.loads(p.stdout))
    except ValueError:
        pass
    return words


def english_left(text, vocab, allowed):
    # flags, environment variables, paths, URLs and file names are the same in every language
    # (and a metavariable or a hyphenated choice after a flag: --table named-dims), commands, and
    # dotted matrix names such as enc1.self.q, and numbered file names
    text = re.sub(r"--[A-Za-z][A-Za-z0-9-]*(?: [A-Z]+\b| [a-z0-9]+(?:-[a-z0-9]+)+\b)?|\$[A-Z_]+|\S*/\S*|\S*\.(?:py|txt|tsv|zip|npy|json|safetensors|bin|vec|gz)"
                  r"|\btfx(?: [a-z][a-z-]*)+|\b\w+(?:\.\w+)+"
                  r"|\b\d+-[a-z][a-z-]*\b", " ", text)  # numbered file names: trace --slides' 00-poster, 01-tokens
    # code: names with an underscore (rope_theta, state_dict) and keyword arguments (stride=16)
    text = re.sub(r"\b\w*_\w*\b|\b\w+=", " ", text)
    bad = set()
    for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", text):
        lw = w.lower()
        if lw in vocab and lw not in KEPT and lw not in allowed:
            bad.add(w)
    return bad


def run_ok(p, label, failures):
    """Records a failed run, and every "tfx: untranslated:" report of a run; False when it failed."""
    if p.returncode != 0:
        failures.append(f"{label}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return False
    failures.extend(f"{label}: {line}" for line in p.stderr.splitlines() if line.startswith("tfx: untranslated:"))
    return True


def main():
    tfx = os.path.abspath(sys.argv[1])
    root = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", ".."))
    vocab = msgid_words(os.path.join(root, "po", "ko.po"))
    env = dict(os.environ, TFX_I18N_STRICT="1", COLUMNS="200")
    failures = []
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [(c, True) for c in gallery_commands(root)] + [(c, False) for c in TABLES]
        for cmd, figure in jobs:
            args = shlex.split(cmd)
            allowed = {w.lower() for a in args for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", a)}
            outputs = []
            svg = os.path.join(tmp, "f.svg")
            variants = [["--svg", svg]] if figure else [["--format", "table"], ["--format", "md"]]
            for extra in variants:
                p = subprocess.run([tfx, *args, "--lang", "ko", *extra], cwd=root, env=env, capture_output=True, text=True)
                runs += 1
                if not run_ok(p, f"{cmd} {' '.join(extra)}", failures):
                    continue
                if figure:
                    outputs.append("\n".join(svg_texts(open(svg, encoding="utf-8").read())))
                else:
                    outputs.append(p.stdout)
                # notes on stderr are for people too
                outputs.append("\n".join(l for l in p.stderr.splitlines() if not l.startswith("tfx: untranslated:")))
            data_words = data_words_of(tfx, args, root, env)
            if args[:2] == ["embeddings", "info"]:
                # the built-in embedding's axes and their meanings are the data file's own words
                data_words |= {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}",
                                                             open(os.path.join(root, "samples", "teaching_embedding.tsv"), encoding="utf-8").read())}
            bad = set()
            for o in outputs:
                bad |= english_left(o, vocab, allowed | data_words)
            if bad:
                failures.append(f"{cmd}: English left: {', '.join(sorted(bad))}")
        # every command's --help (its descriptions, group headings, example comments)
        spec = json.loads(subprocess.run([tfx, "--generate", "python"], env=dict(env, LC_ALL="C.UTF-8"), capture_output=True,
                                         text=True, check=True).stdout)
        paths = [[]] + [c["command"].split() for c in spec["commands"]]
        values = set()
        for c in spec["commands"]:
            values.update(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", c["command"]))
            for o in c.get("options", []):
                values.update(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", " ".join([o["name"], o["metavar"], o["type"]])))
                values.update(w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", o.get("default", "")))
        # choice values listed in help ("table, csv or json", "{diverging, viridis}") are names, not prose
        values |= {w.lower() for w in re.findall(r"[a-z][a-z_0-9]{2,}", choice_names(root))}
        def is_example(line):
            return line.lstrip().startswith(("tfx ", "printf "))
        pages = []
        typed = set()
        for path in paths:
            p = subprocess.run([tfx, *path, "--help", "--lang", "ko"], cwd=root, env=env, capture_output=True, text=True)
            pages.append((path, p))
            typed |= {w.lower() for l in p.stdout.splitlines() if is_example(l)
                      for w in re.findall(r"[A-Za-z][A-Za-z_0-9]{2,}", l.split("#", 1)[0])}
        for path, p in pages:
            runs += 1
            label = " ".join(["tfx", *path, "--help"])
            if not run_ok(p, label, failures):
                continue
            # example command lines stay as typed: only their comments are prose, and the words the
            # examples type (king, dogs, the sentence) are data wherever the page mentions them
            text = "\n".join(l.split("#", 1)[1] if is_example(l) and "#" in l else ("" if is_example(l) else l)
                             for l in p.stdout.splitlines())
            # code names (rope_theta, state_dict), metavariables and acronyms in capitals (FILE,
            # NUMBER, JPEG), and subword pieces shown as output ("play ##ing") are not prose
            text = re.sub(r"\b[A-Z][A-Z0-9]+\b|\w+ ##\w+", " ", text)
            bad = english_left(text, vocab, values | typed | KEPT_HELP)
            if bad:
                failures.append(f"{label}: English left: {', '.join(sorted(bad))}")
    return report("check_korean", f"{runs} runs", failures)


if __name__ == "__main__":
    sys.exit(main())
