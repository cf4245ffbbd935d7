#!/usr/bin/env bash
# Tests the npm packages on this machine (linux-x64): packs the main package
# and the linux-x64 platform package around the release binary, installs both
# tarballs into a fresh project with no network (the other platforms' optional
# dependencies are in no registry: npm drops them), then runs the installed
# `report-lsp` as the CLI and as the language server over stdio, and checks the
# message the launcher prints when the platform package is missing or the
# platform has none. Also runs the launcher's unit tests.
#
#   bash packaging/test/npm.sh [BINARY]    (default: $CARGO_TARGET_DIR/release/report-lsp, target/ if unset)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

binary="${1:-${CARGO_TARGET_DIR:-target}/release/report-lsp}"
if [ ! -x "$binary" ]; then
  echo "npm.sh: no binary at $binary (build it with cargo build --release, or pass its path)" >&2
  exit 1
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

work="$(mktemp -d "${TMPDIR:-/tmp}/report-lsp-npm-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# A cache of its own: nothing outside is read or written, and --offline finds nothing it did not pack.
export npm_config_cache="$work/npm-cache" npm_config_update_notifier=false
export npm_config_audit=false npm_config_fund=false

suite=npm
# shellcheck source=packaging/test/lib.sh
source packaging/test/lib.sh

version="$(workspace_version)"
say "report-lsp $version, binary $binary"

say "unit tests of the launcher (node --test)"
node --test packaging/npm/report-lsp/test/platform.test.js packaging/npm/report-lsp/test/launcher.test.js \
  >"$work/unit" 2>&1 || {
  cat "$work/unit"
  fail "the launcher's unit tests"
}
grep -E '^# (tests|pass|fail)' "$work/unit"
pass "launcher unit tests"

say "pack.mjs main and platform --platform linux-x64"
main_tgz="$(node packaging/npm/pack.mjs main --out "$work/tarballs")"
platform_tgz="$(node packaging/npm/pack.mjs platform --platform linux-x64 --binary "$binary" --out "$work/tarballs")"
echo "$main_tgz"
echo "$platform_tgz"
[ "$(basename "$main_tgz")" = "report-lsp-$version.tgz" ] || fail "main tarball named $main_tgz"
[ "$(basename "$platform_tgz")" = "report-lsp-cli-linux-x64-$version.tgz" ] || fail "platform tarball named $platform_tgz"
tar tzvf "$main_tgz" >"$work/list"
for file in package/package.json package/README.md package/LICENSE-MIT package/LICENSE-APACHE package/bin/report-lsp.js; do
  contains "$work/list" " $file" "the main tarball's files"
done
! grep -q "package/test" "$work/list" || fail "the main tarball ships its tests"
tar tzvf "$platform_tgz" >"$work/list"
for file in package/package.json package/README.md package/LICENSE-MIT package/LICENSE-APACHE; do
  contains "$work/list" " $file" "the platform tarball's files"
done
grep -q '^-rwxr-xr-x .* package/report-lsp$' "$work/list" || {
  cat "$work/list"
  fail "the platform tarball's report-lsp is not mode 0755"
}
tar xzOf "$platform_tgz" package/package.json >"$work/platform.json"
# shellcheck disable=SC2016 # JavaScript, not shell: nothing to expand
node -e '
  const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const want = { name: "@report-lsp/cli-linux-x64", version: process.argv[2], os: ["linux"], cpu: ["x64"], libc: ["glibc"], preferUnplugged: true };
  for (const [key, value] of Object.entries(want)) {
    if (JSON.stringify(m[key]) !== JSON.stringify(value)) {
      console.error(`package.json ${key} is ${JSON.stringify(m[key])}, expected ${JSON.stringify(value)}`);
      process.exit(1);
    }
  }' "$work/platform.json" "$version" || fail "the platform package.json"
pass "both tarballs hold what they should"

say "pack.mjs refuses a version that is not Cargo.toml's"
# On a copy of the packaging folder beside a Cargo.toml of another version.
mkdir -p "$work/repo/packaging"
cp -r packaging/npm packaging/executable.mjs "$work/repo/packaging/"
cp LICENSE-MIT LICENSE-APACHE "$work/repo/" 2>/dev/null || true
sed 's/^version = ".*"/version = "9.9.9"/' Cargo.toml >"$work/repo/Cargo.toml"
expect 1 "pack.mjs with a mismatched version" node "$work/repo/packaging/npm/pack.mjs" main --out "$work/unused"
contains "$work/err" "Cargo.toml's workspace version is 9.9.9" "pack.mjs's mismatch message"
contains "$work/err" "@report-lsp/cli-linux-x64 at $version, not exactly 9.9.9" "pack.mjs's mismatch message"
expect 1 "pack.mjs with a binary of another platform" node packaging/npm/pack.mjs platform --platform darwin-arm64 --binary "$binary" --out "$work/unused"
contains "$work/err" "is not a darwin-arm64 executable" "pack.mjs's wrong-binary message"
[ ! -e "$work/unused" ] || [ -z "$(ls -A "$work/unused")" ] || fail "pack.mjs wrote a tarball after failing"
pass "pack.mjs checks the version and the binary"

say "npm install --offline of both tarballs into a fresh project"
mkdir "$work/project"
cd "$work/project"
npm init -y >/dev/null
npm install --offline --no-audit --no-fund "$main_tgz" "$platform_tgz"
[ -x node_modules/@report-lsp/cli-linux-x64/report-lsp ] || fail "the platform package's binary is not installed executable"
checks_stripped "the platform package's binary" node_modules/@report-lsp/cli-linux-x64/report-lsp
for other in linux-arm64 linux-x64-musl darwin-x64 darwin-arm64 win32-x64; do
  [ ! -e "node_modules/@report-lsp/cli-$other" ] || fail "npm installed @report-lsp/cli-$other"
done
pass "installed, the other platforms' optional dependencies dropped"

say "npx --no-install report-lsp: --version, check"
checks_the_goldens "npx report-lsp" npx --no-install report-lsp

say "the language server over stdio, through npx: initialize, shutdown, exit"
node - <<'NODE' || fail "the language server through the launcher"
const { spawn } = require("node:child_process");
const server = spawn("npx", ["--no-install", "report-lsp"], { stdio: ["pipe", "pipe", "inherit"] });
const send = (message) => {
  const body = JSON.stringify({ jsonrpc: "2.0", ...message });
  server.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
};
const timer = setTimeout(() => {
  console.error("no answer in 30 s");
  server.kill();
  process.exit(1);
}, 30000);
let buffer = Buffer.alloc(0);
server.stdout.on("data", (data) => {
  buffer = Buffer.concat([buffer, data]);
  for (;;) {
    const end = buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const length = Number(/Content-Length: *(\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
    if (buffer.length < end + 4 + length) return;
    const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
    buffer = buffer.subarray(end + 4 + length);
    if (message.id === 1) {
      console.log(`initialize answered by ${message.result.serverInfo?.name} ${message.result.serverInfo?.version}`);
      send({ method: "initialized", params: {} });
      send({ id: 2, method: "shutdown" });
    } else if (message.id === 2) {
      send({ method: "exit" });
    }
  }
});
server.on("exit", (code, signal) => {
  clearTimeout(timer);
  console.log(`the server exited with status ${code}`);
  process.exit(code === 0 ? 0 : 1);
});
send({ id: 1, method: "initialize", params: { processId: process.pid, rootUri: null, capabilities: {} } });
NODE
pass "the language server answers over stdio and exits 0"

say "REPORT_LSP_BINARY runs the binary it names"
expect 0 "REPORT_LSP_BINARY" env REPORT_LSP_BINARY="$binary" node node_modules/report-lsp/bin/report-lsp.js --version
contains "$work/out" "report-lsp $version" "the version through REPORT_LSP_BINARY"
pass "REPORT_LSP_BINARY"

alternatives="Alternatives: \`pip install report-lsp\`, \`cargo install report-lsp\`, or set REPORT_LSP_BINARY"
one_message() { # DESCRIPTION: stderr is one line, stdout empty
  [ "$(wc -l <"$work/err")" = 1 ] || fail "$1: not one line on stderr"
  [ ! -s "$work/out" ] || fail "$1: something on stdout"
  cat "$work/err"
}

say "the main package installed alone (no platform package): one message, exit 1"
mkdir "$work/alone"
cd "$work/alone"
npm init -y >/dev/null
npm install --offline --no-audit --no-fund "$main_tgz"
expect 1 "report-lsp without its platform package" npx --no-install report-lsp --version
one_message "the missing-package message"
contains "$work/err" "@report-lsp/cli-linux-x64, the package with the binary for linux-x64 (glibc), is not installed" "the missing-package message"
contains "$work/err" "$alternatives" "the missing-package message"
pass "a missing platform package is one message naming it"

say "the same on musl (faked: no glibc version in process.report)"
echo 'process.report.getReport = () => ({ header: {} });' >"$work/musl.js"
expect 1 "report-lsp on musl" node --require "$work/musl.js" node_modules/report-lsp/bin/report-lsp.js --version
one_message "the musl message"
contains "$work/err" "@report-lsp/cli-linux-x64-musl, the package with the binary for linux-x64 (musl), is not installed" "the musl message"
pass "musl looks for the musl package"

say "a platform with no package (faked: process.platform = freebsd)"
echo 'Object.defineProperty(process, "platform", { value: "freebsd" });' >"$work/freebsd.js"
expect 1 "report-lsp on freebsd" node --require "$work/freebsd.js" node_modules/report-lsp/bin/report-lsp.js --version
one_message "the unsupported-platform message"
contains "$work/err" "no npm package has a binary for freebsd-$(node -p process.arch)" "the unsupported-platform message"
contains "$work/err" "$alternatives" "the unsupported-platform message"
pass "an unsupported platform is one message naming it"

cd "$root"
echo "npm: $passed passed, 0 failed"
