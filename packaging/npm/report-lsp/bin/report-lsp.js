#!/usr/bin/env node
// Runs the report-lsp binary that the platform package installed
// (@report-lsp/cli-<platform>, an optional dependency: npm installs only the
// one whose os, cpu and libc match), passing the arguments through and
// inheriting standard input, output and error, so it serves as the
// language server over stdio as well as the CLI. REPORT_LSP_BINARY, a path,
// runs that binary instead.
//
// The one program it starts is that binary: its own platform package's, or
// the one the user's environment names. Nothing a project, its git config or
// a report names is run (the binary itself starts nothing either), and no
// shell is involved: the arguments go through as they are.
"use strict";

const { spawn } = require("node:child_process");
const { constants } = require("node:os");

const SCOPE = "@report-lsp/cli-";

// Every platform package, by the name after the scope: the only list of them
// (pack.mjs builds the packages from it and checks package.json against it).
const PLATFORMS = {
  "linux-x64": { os: "linux", cpu: "x64", libc: "glibc" },
  "linux-arm64": { os: "linux", cpu: "arm64", libc: "glibc" },
  "linux-x64-musl": { os: "linux", cpu: "x64", libc: "musl" },
  "darwin-x64": { os: "darwin", cpu: "x64" },
  "darwin-arm64": { os: "darwin", cpu: "arm64" },
  "win32-x64": { os: "win32", cpu: "x64" },
};

/**
 * The platform package for a `process.platform`, `process.arch` and, on
 * Linux, C library ("glibc" or "musl"; ignored elsewhere), or undefined
 * when none is published for it.
 */
function platformPackage(platform, arch, libc) {
  for (const [name, target] of Object.entries(PLATFORMS)) {
    if (
      target.os === platform &&
      target.cpu === arch &&
      (platform !== "linux" || target.libc === libc)
    ) {
      return SCOPE + name;
    }
  }
  return undefined;
}

/** The binary's file name inside its package. */
function binaryName(platform) {
  return platform === "win32" ? "report-lsp.exe" : "report-lsp";
}

/** "glibc" or "musl" on Linux (as biome tells them: glibc's runtime version is in the report), undefined elsewhere. */
function detectLibc() {
  if (process.platform !== "linux") {
    return undefined;
  }
  try {
    // The network part of the report can take seconds (it resolves host names).
    process.report.excludeNetwork = true;
    const header = process.report.getReport().header;
    return header.glibcVersionRuntime ? "glibc" : "musl";
  } catch {
    return "glibc";
  }
}

function describe(platform, arch, libc) {
  return platform === "linux" ? `${platform}-${arch} (${libc})` : `${platform}-${arch}`;
}

function fail(problem) {
  process.stderr.write(
    `report-lsp: ${problem}. Alternatives: \`pip install report-lsp\`, \`cargo install report-lsp\`, ` +
      "or set REPORT_LSP_BINARY to the path of a report-lsp binary.\n",
  );
  process.exit(1);
}

/** The binary to run: REPORT_LSP_BINARY, else the platform package's; exits with a message when there is none. */
function findBinary() {
  const override = process.env.REPORT_LSP_BINARY;
  if (override) {
    return override;
  }
  const { platform, arch } = process;
  const libc = detectLibc();
  const name = platformPackage(platform, arch, libc);
  if (name === undefined) {
    fail(
      `no npm package has a binary for ${describe(platform, arch, libc)} ` +
        `(there are packages for ${Object.keys(PLATFORMS).join(", ")})`,
    );
  }
  try {
    return require.resolve(`${name}/${binaryName(platform)}`);
  } catch {
    fail(
      `${name}, the package with the binary for ${describe(platform, arch, libc)}, is not installed ` +
        "(npm installs it with report-lsp unless optional dependencies are omitted, as by --omit=optional, " +
        "or node_modules came from another machine: reinstall report-lsp)",
    );
  }
}

function main() {
  const binary = findBinary();
  const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
  // A signal sent to the launcher (an editor stopping its server) goes to the binary;
  // the launcher ends when the binary does, the same way.
  const forwarded = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"].filter(
    (signal) => process.platform !== "win32" || signal !== "SIGQUIT",
  );
  const forward = (signal) => {
    child.kill(signal);
  };
  for (const signal of forwarded) {
    process.on(signal, forward);
  }
  child.on("error", (error) => {
    const how = process.env.REPORT_LSP_BINARY ? " (named by REPORT_LSP_BINARY)" : "";
    process.stderr.write(`report-lsp: cannot run ${binary}${how}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    for (const each of forwarded) {
      process.removeListener(each, forward);
    }
    if (signal) {
      // Die of the same signal; should it be ignored here (SIGPIPE is), exit as a shell reports it.
      process.kill(process.pid, signal);
      process.exit(128 + (constants.signals[signal] || 0));
    }
    process.exit(code === null ? 1 : code);
  });
}

module.exports = { PLATFORMS, platformPackage, binaryName, detectLibc };

if (require.main === module) {
  main();
}
