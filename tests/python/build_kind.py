"""What a Python check needs to know about the tfx build it drives.

The sanitizer build (cmake --preset asan: clang -O1, ASan + UBSan) is marked by TFX_SANITIZED=1 in
the environment ctest gives the checks (cmake/tests/python.cmake). There, training runs 10-20 times
slower than in the Release build and follows another float path, so:
- a documented command that trains for LONG_TRAINING_STEPS steps or more is not run (the Release
  suite runs it; the short training commands run the same code under the sanitizers);
- numbers a training run prints are compared masked.
"""
import os
import re
import shlex

LONG_TRAINING_STEPS = 100
DEFAULT_TRAIN_STEPS = 3000  # tfx train's --steps default


def sanitizer_build():
    return os.environ.get("TFX_SANITIZED") == "1"


def training_steps(command):
    """The steps a `tfx train …` command line trains for (its --steps, else the default), or 0
    when it is not a training command (`tfx tokenize train` trains no model)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return 0
    if words and os.path.basename(words[0]) == "tfx":
        words = words[1:]
    if not words or words[0] != "train":
        return 0
    for i, w in enumerate(words):
        m = re.fullmatch(r"--steps(?:=(\d+))?", w)
        if m:
            value = m.group(1) or (words[i + 1] if i + 1 < len(words) else "")
            return int(value) if value.isdigit() else 0
    return DEFAULT_TRAIN_STEPS


def skip_long_training(command):
    """Why `command` is not run in this build, or None when it runs."""
    steps = training_steps(command)
    if sanitizer_build() and steps >= LONG_TRAINING_STEPS:
        return (f"it trains {steps} steps, which the Release suite runs; under the sanitizers the "
                f"short training commands run the same code")
    return None
