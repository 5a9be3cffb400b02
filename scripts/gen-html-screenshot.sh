#!/usr/bin/env bash
# Regenerates docs/img/model_html.png, the picture of the --html attention page in docs/models.md:
# the tiny GPT-2 test checkpoint's page opened in headless Chromium (Debian chromium) on layer 1,
# heads 0 and 2, with the last token hovered (the page's #layer=…&head=…&query=… link).
# Usage: scripts/gen-html-screenshot.sh [path/to/tfx] [scale]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tfx="$(realpath "${1:-$root/build/tfx}")"
scale="${2:-1}"
chromium="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$chromium" ] || { echo "gen-html-screenshot: needs chromium (Debian: apt-get install chromium)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && "$tfx" model attention tests/data/hf_models/gpt2 "the cat sat on the mat" --html "$tmp/page.html" >/dev/null)
out="$root/docs/img/model_html.png"
[ "$scale" = 1 ] || out="$tmp/model_html@$scale.png"
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --user-data-dir="$tmp/profile" \
  --force-device-scale-factor="$scale" --window-size=1000,820 --virtual-time-budget=3000 \
  --screenshot="$out" "file://$tmp/page.html#layer=1&head=0,2&query=6" 2>/dev/null
[ "$scale" = 1 ] || cp "$out" "${3:-/tmp/model_html@$scale.png}"
echo "gen-html-screenshot: wrote ${3:-$out}" >&2
