import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { DEFAULT_FILES } from "./config";
import {
  EMPTY_SCHEMA,
  FULL_AFTER_MS,
  SCHEMA_SCHEME,
  SCHEMA_URL,
  SchemaSwitch,
  ServerState,
  Timer,
  jsonValidationPatterns,
  servedFor,
} from "./schema";

// A schema with non-ASCII text, as the real one may carry.
const FULL = JSON.stringify({ $comment: "報告 📋", required: ["promotion_candidates"] });

/** A timer that runs only when told to. */
function fakeTimer() {
  const waiting = new Map<number, { callback: () => void; ms: number }>();
  let next = 0;
  const timer: Timer = {
    set: (callback, ms) => {
      waiting.set(++next, { callback, ms });
      return next;
    },
    clear: (handle) => {
      waiting.delete(handle as number);
    },
  };
  const elapse = () => {
    const due = [...waiting.values()];
    waiting.clear();
    for (const { callback } of due) callback();
  };
  return { timer, elapse, waiting };
}

function recorder(initial?: ServerState, readFull: () => string = () => FULL) {
  const events: string[] = [];
  let reads = 0;
  const missing: unknown[] = [];
  const clock = fakeTimer();
  const schema = new SchemaSwitch(
    () => {
      reads++;
      return readFull();
    },
    (served) => {
      assert.equal(served, schema.served);
      events.push(schema.content());
    },
    { initial, onMissing: (error) => missing.push(error), timer: clock.timer },
  );
  return { schema, events, missing, reads: () => reads, clock };
}

test("the JSON server gets nothing while report-lsp runs or starts, the full schema otherwise", () => {
  assert.equal(servedFor("starting"), "empty");
  assert.equal(servedFor("running"), "empty");
  assert.equal(servedFor("stopped"), "full");
  assert.equal(servedFor("unavailable"), "full");
  const { schema, clock } = recorder();
  assert.equal(schema.current, "starting");
  assert.equal(schema.content(), EMPTY_SCHEMA);
  assert.deepEqual(JSON.parse(schema.content()), {});
  schema.set("unavailable");
  clock.elapse();
  assert.equal(schema.content(), FULL);
});

test("every switch between the two schemas fires the change event, and only a switch", () => {
  const { schema, events, clock } = recorder();
  schema.set("running"); // starting -> running: still empty
  assert.deepEqual(events, []);
  schema.set("stopped"); // stopped for good: the full schema, once the wait is over
  assert.deepEqual(events, []);
  assert.equal(schema.content(), EMPTY_SCHEMA);
  clock.elapse();
  assert.deepEqual(events, [FULL]);
  schema.set("stopped");
  schema.set("unavailable"); // still full
  clock.elapse();
  assert.deepEqual(events, [FULL]);
  schema.set("starting"); // a restart: empty again at once, before the server answers
  assert.deepEqual(events, [FULL, EMPTY_SCHEMA]);
  schema.set("running");
  schema.set("unavailable");
  clock.elapse();
  schema.set("starting");
  assert.deepEqual(events, [FULL, EMPTY_SCHEMA, FULL, EMPTY_SCHEMA]);
});

test("a crash the client restarts at once never hands the report to the JSON server", () => {
  const { schema, events, clock } = recorder("running");
  schema.set("stopped");
  schema.set("starting");
  schema.set("running");
  assert.equal(clock.waiting.size, 0, "the pending switch is dropped");
  clock.elapse();
  assert.deepEqual(events, []);
  // A stop, a start that does not last, a stop: one wait, one switch.
  schema.set("stopped");
  schema.set("starting");
  schema.set("stopped");
  assert.equal(clock.waiting.size, 1);
  clock.elapse();
  assert.deepEqual(events, [FULL]);
});

test("the wait is the one asked for, and none when it is zero", () => {
  const { schema, clock } = recorder("running");
  schema.set("unavailable");
  assert.deepEqual([...clock.waiting.values()].map((w) => w.ms), [FULL_AFTER_MS]);
  schema.dispose();
  assert.equal(clock.waiting.size, 0);

  const events: string[] = [];
  const now = new SchemaSwitch(() => FULL, (served) => events.push(served), { initial: "running", fullAfterMs: 0 });
  now.set("stopped");
  assert.deepEqual(events, ["full"]);
});

test("a binary missing from the start serves the full schema at once", () => {
  const { schema, events } = recorder("unavailable");
  assert.equal(schema.content(), FULL);
  assert.deepEqual(events, []);
});

test("the full schema is read once, and an unreadable one stands in as empty", () => {
  const ok = recorder("stopped");
  ok.schema.content();
  ok.schema.set("running");
  ok.schema.set("stopped");
  ok.clock.elapse();
  ok.schema.content();
  assert.equal(ok.reads(), 1);

  const absent = recorder("stopped", () => {
    throw new Error("ENOENT: no such file");
  });
  assert.equal(absent.schema.content(), EMPTY_SCHEMA);
  assert.equal(absent.missing.length, 1);

  const broken = recorder("stopped", () => '{"truncated": ');
  assert.equal(broken.schema.content(), EMPTY_SCHEMA);
  assert.equal(broken.missing.length, 1);
});

test("package.json contributes the schema URL for the report files and activates for its scheme", () => {
  const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
  const validation = manifest.contributes.jsonValidation;
  assert.deepEqual(validation, [{ fileMatch: jsonValidationPatterns(DEFAULT_FILES), url: SCHEMA_URL }]);
  assert.deepEqual(jsonValidationPatterns(DEFAULT_FILES), ["*.report.json", "machine-report*.json"]);
  assert.ok(SCHEMA_URL.startsWith(`${SCHEMA_SCHEME}://`));
  assert.ok(manifest.activationEvents.includes(`onFileSystem:${SCHEMA_SCHEME}`));
});
