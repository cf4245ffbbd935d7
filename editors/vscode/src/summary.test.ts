import { test } from "node:test";
import assert from "node:assert/strict";

import {
  Debouncer,
  Latest,
  Timers,
  asSummaryAnswer,
  contentSecurityPolicy,
  entryAsked,
  entryRange,
  makeNonce,
  shownFor,
  shownForError,
  webviewPage,
} from "./summary";

const range = (line: number, character: number) => ({ start: { line, character }, end: { line: line + 3, character: 5 } });

test("an entry's index maps to its range from the answer's entries", () => {
  const answer = asSummaryAnswer({
    format: "html",
    content: "<p>x</p>",
    entries: [
      { index: 0, range: range(20, 4) },
      { index: 12, range: range(310, 4) },
      { index: "3", range: range(1, 1) }, // not an index: left out
      { index: 4 }, // no range: left out
    ],
    fromDisk: false,
  });
  assert.ok(answer);
  assert.equal(answer.entries.length, 2);
  assert.deepEqual(entryRange(answer, 12), range(310, 4));
  assert.deepEqual(entryRange(answer, 0), range(20, 4));
  assert.equal(entryRange(answer, 4), undefined, "an entry the summary does not name");
  assert.equal(entryRange(undefined, 0), undefined, "no answer yet");
});

test("an answer that is not a summary is refused", () => {
  assert.equal(asSummaryAnswer(null), undefined);
  assert.equal(asSummaryAnswer("text"), undefined);
  assert.equal(asSummaryAnswer({ content: "x" }), undefined);
  assert.deepEqual(asSummaryAnswer({ format: "html", content: "x" }), { format: "html", content: "x", entries: [], fromDisk: false });
});

test("the webview's messages: only a whole, non-negative entry index is taken", () => {
  assert.equal(entryAsked({ entry: 7 }), 7);
  assert.equal(entryAsked({ entry: 0 }), 0);
  for (const bad of [{ entry: -1 }, { entry: 1.5 }, { entry: "7" }, { ready: true }, null, undefined, 7]) {
    assert.equal(entryAsked(bad), undefined, JSON.stringify(bad));
  }
});

test("what the panel shows: the page, where it came from, and errors over the last page", () => {
  const answer = asSummaryAnswer({ format: "html", content: "<p>12 entries</p>", entries: [], fromDisk: false })!;
  assert.deepEqual(shownFor(answer), { html: "<p>12 entries</p>" });
  const fromDisk = shownFor({ ...answer, fromDisk: true });
  assert.equal(fromDisk.html, "<p>12 entries</p>");
  assert.match(fromDisk.note ?? "", /^Read from disk/);
  // JSON content (another format) is shown escaped.
  assert.equal(shownFor({ ...answer, content: { a: "<b>" } }).html, '<pre>{\n  &quot;a&quot;: &quot;&lt;b&gt;&quot;\n}</pre>');
  assert.deepEqual(shownForError("gone", undefined), { note: "gone", error: true });
  assert.deepEqual(shownForError("gone", { html: "<p>old</p>" }), { html: "<p>old</p>", note: "Not current: gone", error: true });
  assert.deepEqual(shownForError("still gone", { note: "gone", error: true }), { note: "still gone", error: true });
});

test("the page: a strict policy, and the script carries its nonce", () => {
  const nonce = makeNonce();
  assert.match(nonce, /^[A-Za-z0-9]{32}$/);
  assert.notEqual(makeNonce(), nonce);
  assert.equal(
    contentSecurityPolicy(nonce),
    `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-${nonce}';`,
  );
  const page = webviewPage(nonce, "Summary: <a>.report.json");
  assert.ok(page.includes(`<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(nonce)}">`));
  const scripts = page.match(/<script[^>]*>/g) ?? [];
  assert.deepEqual(scripts, [`<script nonce="${nonce}">`], "one script, with the nonce");
  assert.ok(page.includes("<title>Summary: &lt;a&gt;.report.json</title>"), "the title is escaped");
  assert.ok(page.includes('closest("[data-entry]")'), "clicks on data-entry elements are taken");
  assert.ok(page.includes("vscode.postMessage({ entry: entry })"));
});

/** Timers run by hand: `advance(ms)` fires those due. */
function fakeTimers(): Timers & { advance(ms: number): void; count(): number } {
  let now = 0;
  let next = 0;
  const due = new Map<number, { at: number; run: () => void }>();
  return {
    setTimeout(run, ms) {
      const id = ++next;
      due.set(id, { at: now + ms, run });
      return id;
    },
    clearTimeout(handle) {
      due.delete(handle as number);
    },
    advance(ms) {
      now += ms;
      for (const [id, t] of [...due]) {
        if (t.at <= now) {
          due.delete(id);
          t.run();
        }
      }
    },
    count: () => due.size,
  };
}

test("keystrokes within the delay give one refresh, 300 ms after the last", () => {
  const timers = fakeTimers();
  let runs = 0;
  const d = new Debouncer(300, () => runs++, timers);
  d.schedule();
  timers.advance(200);
  d.schedule();
  timers.advance(200);
  d.schedule();
  timers.advance(299);
  assert.equal(runs, 0);
  assert.ok(d.pending);
  timers.advance(1);
  assert.equal(runs, 1);
  assert.ok(!d.pending);
  assert.equal(timers.count(), 0);
});

test("a save refreshes at once, dropping the scheduled refresh; disposed, nothing runs", () => {
  const timers = fakeTimers();
  let runs = 0;
  const d = new Debouncer(300, () => runs++, timers);
  d.schedule();
  d.now();
  assert.equal(runs, 1);
  timers.advance(1000);
  assert.equal(runs, 1, "the scheduled one was dropped");
  d.schedule();
  d.dispose();
  timers.advance(1000);
  d.schedule();
  d.now();
  timers.advance(1000);
  assert.equal(runs, 1);
});

test("the latest request wins: an earlier answer is dropped and its request cancelled", async () => {
  const latest = new Latest();
  const cancelled: number[] = [];
  const first = latest.begin(() => cancelled.push(1));
  const second = latest.begin(() => cancelled.push(2));
  assert.deepEqual(cancelled, [1], "the first request is cancelled when the second starts");
  assert.equal(latest.current(first), false);
  assert.equal(latest.current(second), true);
  latest.done(first); // the first's late answer changes nothing
  latest.done(second);
  latest.begin();
  assert.deepEqual(cancelled, [1], "a request that is done is not cancelled");
  const third = latest.begin(() => cancelled.push(3));
  latest.dispose();
  assert.deepEqual(cancelled, [1, 3], "closing the panel cancels the request on its way");
  assert.equal(latest.current(third), false);
});

test("answers arriving out of order: only the latest is shown", async () => {
  const latest = new Latest();
  const shown: string[] = [];
  const request = async (text: string, ms: number) => {
    const ticket = latest.begin();
    await new Promise((r) => setTimeout(r, ms));
    if (latest.current(ticket)) {
      shown.push(text);
    }
  };
  await Promise.all([request("slow, older", 30), request("fast, newer", 1)]);
  assert.deepEqual(shown, ["fast, newer"]);
});
