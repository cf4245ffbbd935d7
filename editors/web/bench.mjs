// The module's speed in Node, for BENCHMARKS.md:
//   node editors/web/bench.mjs REPORT [ROUNDS] [MODULE]
// Each round instantiates the module afresh (as a page does), opens REPORT
// and lists its diagnostics, opens it again in the same instance, then
// opens the small invalid golden example, asks its diagnostics and a
// hover, and closes it, 200 times. Prints each round as a JSON line, then
// the medians.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { load } from "./report-wasm.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const [report, rounds = "7", module = path.join(here, "dist/report_wasm.wasm")] = process.argv.slice(2);
if (!report) throw new Error("usage: node bench.mjs REPORT [ROUNDS] [MODULE]");
const big = fs.readFileSync(report);
const small = fs.readFileSync(path.join(here, "../../examples/golden/invalid.report.json"));
const wasm = fs.readFileSync(module);
const ms = (f) => { const t = performance.now(); f(); return performance.now() - t; };
const check = (core, bytes) => {
  const r = core.open(bytes, "report.json");
  r.call("diagnostics");
  r.call("hover", { position: { line: 102, character: 24 } });
  r.close();
};
const all = [];
for (let i = 0; i < Number(rounds); i++) {
  const t = performance.now();
  const core = await load(wasm);
  const round = { load: performance.now() - t };
  round.open = ms(() => check(core, big));
  round.again = ms(() => check(core, big));
  round.small = ms(() => { for (let k = 0; k < 200; k++) check(core, small); }) / 200;
  console.log(JSON.stringify(round));
  all.push(round);
}
const median = (key) => all.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(all.length / 2)];
console.log(JSON.stringify({ median: { load: median("load"), open: median("open"), again: median("again"), small: median("small") } }));
