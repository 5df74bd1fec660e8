#!/usr/bin/env bash
# The release artifacts of burstsim for x86_64 Linux with glibc 2.17 or newer (issue 47;
# docs/RELEASE.md): a campus login node (CentOS 7, Rocky 8) runs them without Rust.
#
#   scripts/release.sh [--allow-dirty] [--no-check]
#
# builds into target/dist/:
#   burstsim                                          the binary (every GLIBC_ symbol <= 2.17)
#   burstsim-VERSION-cp39-abi3-manylinux2014_x86_64…  the Python wheel (abi3, manylinux_2_17)
#   burstsim-VERSION-x86_64-unknown-linux-gnu.tar.gz  the binary, scenarios/, LICENSE files (and the
#                                                     fonts' licences), README.md
# then checks them (unless --no-check): the binary from the unpacked tarball runs `run -n 2`
# and `advise` on tests/fixtures/snapshot; the wheel installs into a fresh virtualenv whose
# PATH has no cargo and runs the example of docs/PYTHON.md. The last lines it prints are the
# three paths, one a line. VERSION is Cargo.toml's; python/Cargo.toml must say the same.
#
# Tools come from the registries only, into target/release-tools/: zig and maturin from
# PyPI (a virtualenv), cargo-zigbuild from crates.io. Versions are pinned below.
#
#   scripts/release.sh --glibc-ceiling MAX FILE...
#
# only checks that every versioned GLIBC_ symbol FILE needs (objdump -T) is at most MAX;
# exit 1 naming the file and the symbols above it (the test suite uses this mode).
set -euo pipefail
cd "$(dirname "$0")/.."

ZIGLANG_VERSION=0.17.1
MATURIN_VERSION=1.16.0
CARGO_ZIGBUILD_VERSION=0.24.1
GLIBC_MAX=2.17
TARGET=x86_64-unknown-linux-gnu

say() { echo "release: $*" >&2; }
die() { echo "release: error: $*" >&2; exit 1; }

# glibc_ceiling MAX FILE: fails when FILE needs a GLIBC_ symbol version newer than MAX.
glibc_ceiling() {
  local max=$1 file=$2 dump above
  command -v objdump >/dev/null || die "objdump is needed (Debian: apt-get install binutils)"
  dump=$(objdump -T "$file") || die "objdump -T '$file' failed"
  # Lines such as `0000… DF *UND* … (GLIBC_2.34) __libc_start_main` (the version is in
  # parentheses when hidden). `sort -V` orders 2.3 < 2.17 < 2.34, as glibc numbers them.
  above=$(grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+\)? +[^ ]+$' <<<"$dump" | tr -d ')' | while read -r ver sym; do
    v=${ver#GLIBC_}
    if [ "$v" != "$max" ] && [ "$(printf '%s\n%s\n' "$v" "$max" | sort -V | tail -n 1)" = "$v" ]; then
      echo "$sym@$ver"
    fi
  done | sort -u)
  if [ -n "$above" ]; then
    echo "release: error: '$file' needs glibc newer than $max: $(tr '\n' ' ' <<<"$above")" >&2
    return 1
  fi
  grep -q 'GLIBC_' <<<"$dump" || die "'$file' has no GLIBC_ symbol: not a dynamically linked glibc file?"
  say "$file: every GLIBC_ symbol is at most $max (newest: $(grep -oE 'GLIBC_[0-9.]+' <<<"$dump" | sort -uV | tail -n 1))"
}

if [ "${1:-}" = "--glibc-ceiling" ]; then
  [ $# -ge 3 ] || die "usage: scripts/release.sh --glibc-ceiling MAX FILE..."
  max=$2
  shift 2
  rc=0
  for f in "$@"; do glibc_ceiling "$max" "$f" || rc=1; done
  exit $rc
fi

allow_dirty=0
check=1
for arg in "$@"; do
  case $arg in
    --allow-dirty) allow_dirty=1 ;;
    --no-check) check=0 ;;
    *) die "unknown argument '$arg'; allowed: --allow-dirty, --no-check, --glibc-ceiling MAX FILE..." ;;
  esac
done

# The [package] version of a Cargo.toml.
package_version() { sed -n '/^\[package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' "$1"; }
version=$(package_version Cargo.toml)
[ -n "$version" ] || die "Cargo.toml: no version in [package]"
py_version=$(package_version python/Cargo.toml)
[ "$py_version" = "$version" ] || die "python/Cargo.toml: version = \"$py_version\", but Cargo.toml says \"$version\"; the wheel takes python/Cargo.toml's, so make them equal"
commit=$(git rev-parse --short=12 HEAD 2>/dev/null) || die "not a git checkout: the binary's --version names the commit it was built from"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  [ $allow_dirty = 1 ] || die "the work tree has uncommitted changes; commit them (the binary names commit $commit) or pass --allow-dirty for a trial build"
  say "warning: uncommitted changes: the artifacts are not exactly commit $commit"
fi

start=$(date +%s)
tools=$PWD/target/release-tools
dist=$PWD/target/dist
say "burstsim $version (commit $commit); tools in $tools"
if [ ! -x "$tools/venv/bin/python" ]; then
  python3 -m venv "$tools/venv" || die "python3 with venv is needed for zig and maturin (PyPI)"
fi
"$tools/venv/bin/pip" install --quiet --disable-pip-version-check "ziglang==$ZIGLANG_VERSION" "maturin==$MATURIN_VERSION"
if ! "$tools/bin/cargo-zigbuild" --version 2>/dev/null | grep -qF "$CARGO_ZIGBUILD_VERSION"; then
  nice -n 10 cargo install --quiet --locked --root "$tools" --version "$CARGO_ZIGBUILD_VERSION" cargo-zigbuild
fi
# cargo-zigbuild and maturin find zig as `python3 -m ziglang`: the virtualenv's python3.
export PATH="$tools/bin:$tools/venv/bin:$PATH"
say "tools ready after $(( $(date +%s) - start )) s"

rm -rf "$dist"
mkdir -p "$dist"

# The binary: the target's `.2.17` suffix makes zig link against glibc 2.17's symbols.
t=$(date +%s)
nice -n 10 cargo zigbuild --release --locked --target "$TARGET.$GLIBC_MAX"
cp "target/$TARGET/release/burstsim" "$dist/burstsim"
glibc_ceiling "$GLIBC_MAX" "$dist/burstsim"
say "binary built in $(( $(date +%s) - t )) s"

# The wheel: maturin links through the same zig; manylinux2014 is manylinux_2_17.
t=$(date +%s)
(cd python && nice -n 10 maturin build --release --locked --zig --compatibility manylinux2014 \
  --target "$TARGET" --out "$dist" >&2)
# maturin names both tags of the platform: manylinux2014_x86_64.manylinux_2_17_x86_64.
shopt -s nullglob
wheels=("$dist"/burstsim-"$version"-cp39-abi3-*manylinux_2_17_x86_64*.whl)
shopt -u nullglob
[ ${#wheels[@]} = 1 ] || die "expected one wheel tagged cp39-abi3 and manylinux_2_17_x86_64 for version $version in $dist, found: $(ls "$dist")"
wheel=${wheels[0]}
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
"$tools/venv/bin/python" -m zipfile -e "$wheel" "$unpacked"
glibc_ceiling "$GLIBC_MAX" "$unpacked"/burstsim/_burstsim*.so
say "wheel built in $(( $(date +%s) - t )) s"

# The tarball: a folder of the same name, so that unpacking never scatters files.
name=burstsim-$version-$TARGET
stage=$unpacked/$name
mkdir -p "$stage"
cp "$dist/burstsim" LICENSE-MIT LICENSE-APACHE "$stage/"
# Scenarios that read a log of the shared data (../../shared/…) cannot run from the tarball.
mkdir -p "$stage/scenarios"
for f in scenarios/*; do
  grep -q '\.\./shared/' "$f" || cp "$f" "$stage/scenarios/"
done
# The binary embeds the chart fonts, which keep their own licences.
mkdir -p "$stage/fonts"
cp assets/fonts/OFL.txt assets/fonts/DejaVuSans-LICENSE.txt "$stage/fonts/"
cat >"$stage/README.md" <<EOF
# burstsim $version (commit $commit)

Monte Carlo simulator of a campus GPU queue next to hourly and monthly cloud GPUs: what
each hybrid policy costs and how long jobs wait; \`burstsim advise\` answers "queue or
rent, now" from the live squeue and sinfo of a Slurm login node.

This is the command-line tool for x86_64 Linux with glibc 2.17 or newer (CentOS 7,
Rocky 8 and later); it needs no Rust and no internet.

    ./burstsim --version
    ./burstsim run                      # the built-in scenario: a table, CSVs and charts in output/
    ./burstsim run scenarios/exam-season.toml
    ./burstsim advise --gpus 4 --walltime 2-00:00:00 --runtime 30h --deadline 3d
    ./burstsim --help

Copy \`burstsim\` to a folder on your PATH (e.g. ~/.local/bin) to call it from anywhere.
scenarios/ holds commented example scenarios; copy scenarios/default.toml and edit it for
your group. The documentation is in the source repository's README.md and docs/.

License: MIT OR Apache-2.0 (LICENSE-MIT, LICENSE-APACHE). The chart fonts built into the
binary keep their own: fonts/OFL.txt (Noto Sans SC subset), fonts/DejaVuSans-LICENSE.txt.
EOF
# Owner, order and times fixed, so that the same commit gives the same archive.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git log -1 --format=%ct)" \
  -C "$unpacked" -czf "$dist/$name.tar.gz" "$name"

if [ $check = 1 ]; then
  scripts/release-check.sh "$dist/$name.tar.gz" "$wheel" "$version" "$commit"
fi
say "done in $(( $(date +%s) - start )) s"
echo "$dist/burstsim"
echo "$wheel"
echo "$dist/$name.tar.gz"
