import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";

import { DEFAULT_FILES } from "./config";
import {
  EMPTY_SCHEMA,
  SCHEMA_SCHEME,
  SCHEMA_URL,
  SchemaSwitch,
  ServerState,
  jsonValidationPatterns,
  servedFor,
} from "./schema";

// A schema with non-ASCII text, as the real one may carry.
const FULL = JSON.stringify({ $comment: "報告 📋", required: ["promotion_candidates"] });

function recorder(initial?: ServerState, readFull: () => string = () => FULL) {
  const events: string[] = [];
  let reads = 0;
  const missing: unknown[] = [];
  const schema = new SchemaSwitch(
    () => {
      reads++;
      return readFull();
    },
    (served) => {
      assert.equal(served, schema.served);
      events.push(schema.content());
    },
    initial,
    (error) => missing.push(error),
  );
  return { schema, events, missing, reads: () => reads };
}

test("the JSON server gets nothing while report-lsp runs or starts, the full schema otherwise", () => {
  assert.equal(servedFor("starting"), "empty");
  assert.equal(servedFor("running"), "empty");
  assert.equal(servedFor("stopped"), "full");
  assert.equal(servedFor("unavailable"), "full");
  const { schema } = recorder();
  assert.equal(schema.current, "starting");
  assert.equal(schema.content(), EMPTY_SCHEMA);
  assert.deepEqual(JSON.parse(schema.content()), {});
  schema.set("unavailable");
  assert.equal(schema.content(), FULL);
});

test("every switch between the two schemas fires the change event, and only a switch", () => {
  const { schema, events } = recorder();
  schema.set("running"); // starting -> running: still empty
  assert.deepEqual(events, []);
  schema.set("stopped"); // a crash: the full schema
  assert.deepEqual(events, [FULL]);
  schema.set("stopped");
  schema.set("unavailable"); // still full
  assert.deepEqual(events, [FULL]);
  schema.set("starting"); // a restart: empty again, before the server answers
  schema.set("running");
  assert.deepEqual(events, [FULL, EMPTY_SCHEMA]);
  schema.set("stopped");
  schema.set("starting");
  assert.deepEqual(events, [FULL, EMPTY_SCHEMA, FULL, EMPTY_SCHEMA]);
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
