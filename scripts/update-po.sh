#!/usr/bin/env bash
# Re-extracts the strings marked for translation (tr("…"), trf("…", …), N_("…")) from the
# sources into po/tfx.pot and merges them into each po/<lang>.po (new strings arrive with an
# empty msgstr; tests/i18n fails until they are translated). Needs Debian's `gettext`.
set -euo pipefail
cd "$(dirname "$0")/.."
find src include -name '*.cpp' -o -name '*.hpp' -o -name '*.inc' | LC_ALL=C sort > /tmp/tfx-po-files.$$
xgettext --language=C++ --from-code=UTF-8 --keyword=tr --keyword=trf --keyword=N_ --keyword=trn:1,2 --keyword=trnf:1,2 --no-wrap \
  --add-comments=TRANSLATORS: --package-name=tfx --sort-by-file --files-from=/tmp/tfx-po-files.$$ -o po/tfx.pot
rm -f /tmp/tfx-po-files.$$
for po in po/*.po; do
  msgmerge --quiet --update --backup=none --no-fuzzy-matching --no-wrap "$po" po/tfx.pot
done
echo "po/tfx.pot: $(grep -c '^msgid ' po/tfx.pot) strings"
