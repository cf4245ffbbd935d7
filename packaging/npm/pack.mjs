#!/usr/bin/env node
// Packs the npm packages, in the shape biome and esbuild use: the main
// package `report-lsp` (a launcher) and one `@report-lsp/cli-<platform>` per
// platform, holding that platform's binary.
//
//   node packaging/npm/pack.mjs platform --platform <npm-name> --binary <path> --out <dir>
//   node packaging/npm/pack.mjs main --out <dir>
//
// Each stages its package in a temporary folder (with the licence files from
// the repository's root), runs `npm pack` there and prints the tarball's path
// on standard output. The version is the workspace's, in Cargo.toml: the
// main package's package.json must say the same, for itself and for every
// platform package it depends on. The platforms are the launcher's list.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { executableMismatch } from "../executable.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..", "..");
const mainDir = path.join(here, "report-lsp");
const templateDir = path.join(here, "cli");
const licences = ["LICENSE-MIT", "LICENSE-APACHE"];
const require = createRequire(import.meta.url);
const { PLATFORMS, binaryName } = require("./report-lsp/bin/report-lsp.js");

const usage = `usage:
  node packaging/npm/pack.mjs platform --platform <${Object.keys(PLATFORMS).join("|")}> --binary <path> --out <dir>
  node packaging/npm/pack.mjs main --out <dir>`;

class Failure extends Error {}

function fail(message) {
  throw new Failure(message);
}

/** `[workspace.package]`'s version and license in Cargo.toml. */
function workspacePackage() {
  const file = path.join(root, "Cargo.toml");
  const text = fs.readFileSync(file, "utf8");
  const fields = {};
  let inSection = false;
  for (const line of text.split(/\r?\n/)) {
    const header = line.match(/^\s*\[([^\]]*)\]/);
    if (header) {
      inSection = header[1].trim() === "workspace.package";
      continue;
    }
    const field = inSection && line.match(/^\s*(version|license)\s*=\s*"([^"]*)"/);
    if (field) {
      fields[field[1]] = field[2];
    }
  }
  if (!fields.version) {
    fail(`${file} has no version in [workspace.package]`);
  }
  return fields;
}

/** The main package's manifest, checked against Cargo.toml and the launcher's platforms. */
function checkedManifest(cargo) {
  const file = path.join(mainDir, "package.json");
  const manifest = JSON.parse(fs.readFileSync(file, "utf8"));
  const problems = [];
  if (manifest.version !== cargo.version) {
    problems.push(`its version is ${manifest.version}, Cargo.toml's workspace version is ${cargo.version}`);
  }
  if (cargo.license && manifest.license !== cargo.license) {
    problems.push(`its license is ${manifest.license}, Cargo.toml's is ${cargo.license}`);
  }
  const dependencies = manifest.optionalDependencies || {};
  const expected = Object.keys(PLATFORMS).map((name) => `@report-lsp/cli-${name}`);
  for (const name of expected) {
    if (!(name in dependencies)) {
      problems.push(`optionalDependencies lacks ${name}`);
    } else if (dependencies[name] !== cargo.version) {
      problems.push(`optionalDependencies has ${name} at ${dependencies[name]}, not exactly ${cargo.version}`);
    }
  }
  for (const name of Object.keys(dependencies)) {
    if (!expected.includes(name)) {
      problems.push(`optionalDependencies has ${name}, which the launcher has no platform for`);
    }
  }
  if (problems.length > 0) {
    fail(`${file} does not match:\n  ${problems.join("\n  ")}`);
  }
  return manifest;
}

/** Fails unless the file starts like an executable of the platform's format and CPU. */
function checkBinary(file, target) {
  const mismatch = executableMismatch(file, target.os, target.cpu);
  if (mismatch) {
    fail(mismatch);
  }
}

function copyLicences(stage) {
  for (const name of licences) {
    const source = path.join(root, name);
    if (!fs.existsSync(source)) {
      fail(`${source} is missing: every package carries ${licences.join(" and ")}`);
    }
    fs.copyFileSync(source, path.join(stage, name));
  }
}

/** Runs `npm pack` in the staged folder and answers the tarball's path. */
function npmPack(stage, out) {
  fs.mkdirSync(out, { recursive: true });
  const args = ["pack", "--json", "--ignore-scripts", "--pack-destination", out];
  const windows = process.platform === "win32";
  const result = spawnSync(
    windows ? "npm.cmd" : "npm",
    windows ? args.map((arg) => `"${arg}"`) : args,
    { cwd: stage, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], shell: windows },
  );
  if (result.error) {
    fail(`cannot run npm: ${result.error.message}`);
  }
  if (result.status !== 0) {
    fail(`npm pack failed (exit status ${result.status}):\n${result.stdout}`);
  }
  let filename;
  try {
    filename = JSON.parse(result.stdout)[0].filename;
  } catch {
    fail(`cannot read npm pack's answer:\n${result.stdout}`);
  }
  const tarball = path.join(out, filename);
  if (!fs.existsSync(tarball)) {
    fail(`npm pack said it wrote ${tarball}, which is not there`);
  }
  return tarball;
}

function withStage(pack) {
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "report-lsp-npm-"));
  try {
    return pack(stage);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

function packPlatform(options, manifest) {
  const name = options.platform;
  const target = PLATFORMS[name];
  if (!target) {
    fail(`no platform ${JSON.stringify(name)}: it is one of ${Object.keys(PLATFORMS).join(", ")}`);
  }
  const binary = path.resolve(options.binary);
  if (!fs.existsSync(binary) || !fs.statSync(binary).isFile()) {
    fail(`the binary ${binary} is not there`);
  }
  checkBinary(binary, target);
  const packageName = `@report-lsp/cli-${name}`;
  const described = target.libc ? `${target.os}-${target.cpu} (${target.libc})` : `${target.os}-${target.cpu}`;
  const executable = binaryName(target.os);
  return withStage((stage) => {
    const platformManifest = {
      name: packageName,
      version: manifest.version,
      description: `The ${described} binary of report-lsp: install the report-lsp package, not this one`,
      license: manifest.license,
      repository: manifest.repository,
      homepage: manifest.homepage,
      os: [target.os],
      cpu: [target.cpu],
      ...(target.libc ? { libc: [target.libc] } : {}),
      files: [executable, "README.md", ...licences],
      preferUnplugged: true,
    };
    fs.writeFileSync(path.join(stage, "package.json"), `${JSON.stringify(platformManifest, null, 2)}\n`);
    const readme = fs
      .readFileSync(path.join(templateDir, "README.md"), "utf8")
      .replaceAll("{{name}}", packageName)
      .replaceAll("{{target}}", described)
      .replaceAll("{{version}}", manifest.version);
    fs.writeFileSync(path.join(stage, "README.md"), readme);
    fs.copyFileSync(binary, path.join(stage, executable));
    fs.chmodSync(path.join(stage, executable), 0o755);
    copyLicences(stage);
    return npmPack(stage, options.out);
  });
}

function packMain(options) {
  return withStage((stage) => {
    for (const name of ["package.json", "README.md", "bin"]) {
      fs.cpSync(path.join(mainDir, name), path.join(stage, name), { recursive: true });
    }
    fs.chmodSync(path.join(stage, "bin", "report-lsp.js"), 0o755);
    copyLicences(stage);
    return npmPack(stage, options.out);
  });
}

function parse(argv) {
  const [mode, ...rest] = argv;
  const allowed = { platform: ["platform", "binary", "out"], main: ["out"] }[mode];
  if (!allowed) {
    fail(mode ? `no mode ${JSON.stringify(mode)}\n${usage}` : usage);
  }
  const options = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i].replace(/^--/, "");
    if (!rest[i].startsWith("--") || !allowed.includes(flag) || rest[i + 1] === undefined) {
      fail(`unexpected ${JSON.stringify(rest[i])}\n${usage}`);
    }
    options[flag] = rest[i + 1];
  }
  for (const flag of allowed) {
    if (options[flag] === undefined) {
      fail(`${mode} needs --${flag}\n${usage}`);
    }
  }
  options.out = path.resolve(options.out);
  return { mode, options };
}

try {
  const { mode, options } = parse(process.argv.slice(2));
  const manifest = checkedManifest(workspacePackage());
  const tarball = mode === "main" ? packMain(options) : packPlatform(options, manifest);
  process.stdout.write(`${tarball}\n`);
} catch (error) {
  if (!(error instanceof Failure)) {
    throw error;
  }
  process.stderr.write(`pack.mjs: ${error.message}\n`);
  process.exit(1);
}
