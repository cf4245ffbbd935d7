// Opens the summary page (`report-lsp summary --format html`) from its
// file in headless Chromium, with every other request refused and
// recorded, takes a full-page screenshot in the light and the dark scheme,
// and prints as JSON what the page says: each table's number cells as
// their text and their `data-value`, the headline figures, the charts and
// what labels them, and the colours the charts' parts take in each scheme.
// Run by tests/summary_html.rs: node read_page.js PAGE.html SHOTS_DIR.
// playwright-core comes from editors/vscode/test-e2e (npm ci there).

"use strict";

const path = require("path");
const { createRequire } = require("module");
const { pathToFileURL } = require("url");

const requireE2e = createRequire(
  path.join(__dirname, "..", "..", "editors", "vscode", "test-e2e", "package.json"),
);
const { chromium } = requireE2e("playwright-core");

/** What the page shows, read from its DOM. Runs in the page. */
function readPage() {
  const number = (text) => {
    const digits = text.replace(/[\s\u2009\u202f+±]/g, "").replace("−", "-");
    return /^-?\d+$/.test(digits) ? Number(digits) : null;
  };
  const tables = {};
  for (const table of document.querySelectorAll("table[data-table]")) {
    const rows = {};
    for (const row of table.querySelectorAll("tbody tr[data-key]")) {
      const cells = {};
      for (const cell of row.querySelectorAll("td[data-col]")) {
        cells[cell.dataset.col] = {
          text: cell.innerText,
          number: number(cell.innerText),
          value: cell.dataset.value === undefined ? null : Number(cell.dataset.value),
        };
      }
      rows[row.dataset.key] = {
        label: row.querySelector("td").innerText,
        cells,
      };
    }
    tables[table.dataset.table] = rows;
  }
  const totals = {};
  for (const dd of document.querySelectorAll("dd[id]")) {
    totals[dd.id] = {
      text: dd.innerText,
      number: number(dd.innerText),
      value: Number(dd.dataset.value),
    };
  }
  const charts = [...document.querySelectorAll("figure")].map((figure) => {
    const svg = figure.querySelector("svg");
    const labelledBy = svg && svg.getAttribute("aria-labelledby");
    const label = labelledBy && document.getElementById(labelledBy);
    const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
    return {
      id: figure.id,
      role: svg && svg.getAttribute("role"),
      label: label ? label.innerText : null,
      width: box.width,
      height: box.height,
      marks: svg ? svg.querySelectorAll("rect").length : 0,
    };
  });
  const fill = (selector) => {
    const element = document.querySelector(selector);
    return element ? getComputedStyle(element).fill : null;
  };
  return {
    title: document.title,
    sections: [...document.querySelectorAll("section[id]")].map((s) => s.id),
    scripts: document.querySelectorAll("script").length,
    entryLinks: [...document.querySelectorAll("a[data-entry]")].map((a) => ({
      index: Number(a.dataset.entry),
      text: a.innerText,
    })),
    tables,
    totals,
    charts,
    colours: {
      background: getComputedStyle(document.body).backgroundColor,
      text: getComputedStyle(document.body).color,
      auto: fill("#queue-chart rect.auto"),
      confirm: fill("#queue-chart rect.confirm"),
      added: fill("#since-chart rect.added"),
      gone: fill("#since-chart rect.gone"),
      bar: fill("#by-class-chart rect.bar"),
    },
  };
}

async function main() {
  const [page, shots] = process.argv.slice(2);
  if (!page || !shots) {
    throw new Error("usage: node read_page.js PAGE.html SHOTS_DIR");
  }
  const url = pathToFileURL(path.resolve(page)).href;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    // Running as root in a container: Chromium's sandbox needs user namespaces it may not have.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const out = { url, requests: [], refused: [], schemes: {} };
  try {
    for (const scheme of ["light", "dark"]) {
      const context = await browser.newContext({
        colorScheme: scheme,
        viewport: { width: 1280, height: 900 },
        // The page needs no script; the reading below runs in Playwright's own world.
        javaScriptEnabled: false,
        offline: true,
      });
      await context.route("**/*", (route) => {
        const asked = route.request().url();
        if (asked === url) {
          return route.continue();
        }
        out.refused.push(asked);
        return route.abort();
      });
      const tab = await context.newPage();
      tab.on("request", (request) => out.requests.push(request.url()));
      await tab.goto(url, { waitUntil: "load" });
      const shot = path.join(shots, `summary-${scheme}.png`);
      await tab.screenshot({ path: shot, fullPage: true });
      out.schemes[scheme] = { screenshot: shot, page: await tab.evaluate(readPage) };
      await context.close();
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
