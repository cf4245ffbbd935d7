// node --test packaging/npm/report-lsp/test/platform.test.js
"use strict";

const test = require("node:test");
const assert = require("node:assert/strict");
const { PLATFORMS, platformPackage, binaryName } = require("../bin/report-lsp.js");
const manifest = require("../package.json");

test("each supported platform, architecture and C library has its package", () => {
  const cases = [
    ["linux", "x64", "glibc", "@report-lsp/cli-linux-x64"],
    ["linux", "arm64", "glibc", "@report-lsp/cli-linux-arm64"],
    ["linux", "x64", "musl", "@report-lsp/cli-linux-x64-musl"],
    ["darwin", "x64", undefined, "@report-lsp/cli-darwin-x64"],
    ["darwin", "arm64", undefined, "@report-lsp/cli-darwin-arm64"],
    ["win32", "x64", undefined, "@report-lsp/cli-win32-x64"],
    // The C library matters on Linux only.
    ["darwin", "arm64", "glibc", "@report-lsp/cli-darwin-arm64"],
    ["win32", "x64", "musl", "@report-lsp/cli-win32-x64"],
  ];
  for (const [platform, arch, libc, expected] of cases) {
    assert.equal(platformPackage(platform, arch, libc), expected, `${platform} ${arch} ${libc}`);
  }
});

test("a platform with no package has none", () => {
  const cases = [
    ["linux", "arm64", "musl"],
    ["linux", "ia32", "glibc"],
    ["linux", "x64", undefined],
    ["win32", "arm64", undefined],
    ["win32", "ia32", undefined],
    ["freebsd", "x64", undefined],
    ["darwin", "ppc64", undefined],
    ["android", "arm64", undefined],
  ];
  for (const [platform, arch, libc] of cases) {
    assert.equal(platformPackage(platform, arch, libc), undefined, `${platform} ${arch} ${libc}`);
  }
});

test("the binary is report-lsp.exe on Windows only", () => {
  assert.equal(binaryName("win32"), "report-lsp.exe");
  assert.equal(binaryName("linux"), "report-lsp");
  assert.equal(binaryName("darwin"), "report-lsp");
});

test("package.json depends optionally on every platform package at its own version", () => {
  const expected = Object.fromEntries(
    Object.keys(PLATFORMS).map((name) => [`@report-lsp/cli-${name}`, manifest.version]),
  );
  assert.deepEqual(manifest.optionalDependencies, expected);
});
