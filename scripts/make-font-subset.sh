#!/usr/bin/env bash
# Regenerates the bundled Chinese font subset used by `burstsim plot --lang zh`:
#   assets/fonts/NotoSansSC-burstsim-subset.otf (for the charts)
#   assets/fonts/NotoSansSC-burstsim-labels.otf (a subset of it, embedded in report.zh.html)
# from Noto Sans CJK SC (SIL Open Font License 1.1), keeping every character of GB 2312
# (the 6,763 hanzi of levels 1 and 2 plus its 682 symbols: punctuation, full-width forms,
# kana, Greek, Cyrillic, box drawing), every character src/i18n.rs uses, printable
# ASCII and common punctuation, so that names users write in scenarios render. `cargo
# test` checks the coverage (font_covers_every_chinese_label, gb2312 test).
#
# Needs (once): apt-get install -y fonts-noto-cjk   and   pip install fonttools
# Usage: scripts/make-font-subset.sh [PATH/TO/NotoSansCJK-Regular.ttc]
set -euo pipefail
cd "$(dirname "$0")/.."
ttc="${1:-/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc}"
out=assets/fonts/NotoSansSC-burstsim-subset.otf
[ -f "$ttc" ] || { echo "no $ttc: apt-get install -y fonts-noto-cjk (or give the .ttc path)" >&2; exit 2; }
command -v pyftsubset >/dev/null || { echo "no pyftsubset: pip install fonttools" >&2; exit 2; }
chars=$(mktemp)
trap 'rm -f "$chars"' EXIT
python3 - "$chars" <<'PY'
import sys
text = open("src/i18n.rs", encoding="utf-8").read()
keep = {chr(c) for c in range(0x20, 0x7F)}                        # printable ASCII
keep |= set("±×÷≤≥–—…·•°′″‰％，。：；、（）《》〈〉“”‘’！？【】「」→←↑↓−¥€£µ²³")
keep |= {c for c in text if ord(c) > 0x7F}                        # every label character
gb = set()
for hi in range(0xA1, 0xF8):                                      # GB 2312 rows 1-87
    for lo in range(0xA1, 0xFF):
        try:
            gb.add(bytes([hi, lo]).decode("gb2312"))
        except UnicodeDecodeError:
            pass
print(f"{len(gb)} GB 2312 characters", file=sys.stderr)
keep |= gb
open(sys.argv[1], "w", encoding="utf-8").write("".join(sorted(keep)))
print(f"{len(keep)} characters", file=sys.stderr)
PY
# Face 2 of the collection is Simplified Chinese (0 JP, 1 KR, 2 SC, 3 TC, 4 HK).
pyftsubset "$ttc" --font-number=2 --text-file="$chars" --output-file="$out" \
  --layout-features='kern,palt,vert,locl' --no-hinting --desubroutinize \
  --name-IDs='*' --name-languages='*' --drop-tables+=DSIG
ls -l "$out"
# The small subset the HTML report embeds when it covers the report (issue 26): printable
# ASCII, common punctuation, every non-ASCII character of src/ (the labels of i18n.rs, the
# assumptions in words, …) and of the shipped scenarios.
small=assets/fonts/NotoSansSC-burstsim-labels.otf
python3 - "$chars" <<'PY'
import glob, sys
keep = {chr(c) for c in range(0x20, 0x7F)}
keep |= set("±×÷≤≥–—…·•°′″‰％，。：；、（）《》〈〉“”‘’！？【】「」→←↑↓−¥€£µ²³")
for f in sorted(glob.glob("src/**/*.rs", recursive=True)) + sorted(glob.glob("scenarios/*.toml")):
    keep |= {c for c in open(f, encoding="utf-8").read() if ord(c) > 0x7F}
open(sys.argv[1], "w", encoding="utf-8").write("".join(sorted(keep)))
print(f"{len(keep)} characters in the report subset", file=sys.stderr)
PY
pyftsubset "$out" --text-file="$chars" --output-file="$small" \
  --layout-features='kern,palt,vert,locl' --no-hinting --desubroutinize \
  --name-IDs='*' --name-languages='*'
ls -l "$small"
