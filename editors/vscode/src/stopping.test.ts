import { test } from "node:test";
import assert from "node:assert/strict";

import { STOP_TIMEOUT_MS, stopQuietly } from "./stopping";

test("a stop that times out is logged, not thrown, so the restart after it runs", async () => {
  const logged: string[] = [];
  const asked: (number | undefined)[] = [];
  const slow = {
    stop: async (timeout?: number) => {
      asked.push(timeout);
      throw new Error("Stopping the server timed out");
    },
  };
  await assert.doesNotReject(stopQuietly(slow, (line) => logged.push(line)));
  assert.deepEqual(asked, [STOP_TIMEOUT_MS]);
  assert.equal(logged.length, 1);
  assert.match(logged[0], /did not stop cleanly .*it had 5 s/);
  assert.match(logged[0], /Stopping the server timed out/);
});

test("a clean stop logs nothing and passes the timeout on", async () => {
  const logged: string[] = [];
  const asked: (number | undefined)[] = [];
  await stopQuietly({ stop: async (timeout?: number) => void asked.push(timeout) }, (line) => logged.push(line), 250);
  assert.deepEqual(asked, [250]);
  assert.deepEqual(logged, []);
});
