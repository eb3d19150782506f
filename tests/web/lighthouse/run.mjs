// run.mjs -- the Lighthouse benchmark of the web client (issue 20): a fresh
// `tessera serve`, a room started with three bots (its owner, in a
// Playwright tab, keeps it open), then Lighthouse 12.2.3 (pinned in this
// folder's package.json; the last that npm installs on Debian 12's Node
// 18) on the lobby and on that room as a visitor sees it, each as a phone
// (Lighthouse's default mobile emulation and throttling) and as a desktop.
// It prints the four category scores of each, and the audits that cost
// points. A benchmark, not a test: it always exits 0 once it has measured.
//
//   cd tests/web && npm ci && cd lighthouse && npm ci
//   TESSERA_BIN=build/tessera node tests/web/lighthouse/run.mjs [REPORT_DIR]
// With REPORT_DIR, each run's whole report is saved there as JSON
// (lobby-mobile.json, ...), to look into what a score lost.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import { openBrowser, startServer } from "../harness.mjs";
import { createRoomWithBots } from "../blokus_play.mjs";

const CHROMIUM = process.env.TESSERA_CHROMIUM || "/usr/bin/chromium";
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"];
const REPORT_DIR = process.argv[2];

/* One Lighthouse run: {scores: {category: 0..100}, lost: [audit titles]}. */
async function measure(url, port, formFactor, name) {
  const flags = { port, output: "json", logLevel: "error", onlyCategories: CATEGORIES };
  const result = await lighthouse(url, flags, formFactor === "desktop" ? desktopConfig : undefined);
  if (REPORT_DIR) {
    mkdirSync(REPORT_DIR, { recursive: true });
    writeFileSync(join(REPORT_DIR, `${name}-${formFactor}.json`), result.report);
  }
  const { categories, audits } = result.lhr;
  const scores = Object.fromEntries(CATEGORIES.map((name) => [name, Math.round(categories[name].score * 100)]));
  const lost = CATEGORIES.flatMap((name) => categories[name].auditRefs
    .filter((ref) => ref.weight > 0 && audits[ref.id].score !== null && audits[ref.id].score < 1)
    .map((ref) => `${name}: ${audits[ref.id].title}${audits[ref.id].displayValue ? ` (${audits[ref.id].displayValue})` : ""}`));
  return { scores, lost };
}

const server = await startServer();
const owner = await openBrowser("lighthouse-owner");
const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"] });
try {
  const code = await createRoomWithBots(owner.page, server, "4p", 3);
  await owner.page.getByRole("button", { name: "Start" }).click();
  await owner.page.locator(".turn.mine").waitFor();
  const pages = { lobby: `${server.url}/#/`, room: `${server.url}/#/room/${code}` };
  for (const [name, url] of Object.entries(pages)) {
    for (const formFactor of ["mobile", "desktop"]) {
      const { scores, lost } = await measure(url, chrome.port, formFactor, name);
      console.log(`${name} ${formFactor}: ${CATEGORIES.map((category) => `${category} ${scores[category]}`).join(", ")}`);
      for (const line of lost) console.log(`  - ${line}`);
    }
  }
} finally {
  await chrome.kill();
  await owner.close();
  await server.stop();
}
