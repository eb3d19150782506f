// keyboard.test.mjs -- a keyboard never loses its place (issue 20,
// accessibility): on the path create -> add bots -> start -> move ->
// resign, done with keys alone, the focus is never dropped to <body>; the
// skip link leads past the header; the tray is one Tab stop whose arrow
// keys move among the pieces; Escape in the sign-in form gives the focus
// back to its button.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser, visit } from "./harness.mjs";
import { blokusSuite, firstLegal, playMoveByKeyboard, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

/* What has the focus: "BUTTON Start", "H1 Blokus 4p · room x", "BODY". */
const focused = (page) => page.evaluate(() => `${document.activeElement.tagName} ${document.activeElement.textContent.trim().slice(0, 40)}`.trim());

async function assertFocusKept(page, step) {
  const now = await focused(page);
  assert.doesNotMatch(now, /^BODY/, `after ${step} the focus fell to <body>`);
  return now;
}

test("create, add bots, start, move and resign by keyboard keep the focus", async () => {
  const browser = await openBrowser("keyboard");
  const { page } = browser;
  await visit(page, suite.server, "#/");

  /* The first Tab reaches the skip link, which leads to the page itself. */
  await page.keyboard.press("Tab");
  assert.equal(await focused(page), "A Skip to content");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.id), "page");

  await page.locator("form#create-room select[name=mode]").selectOption("4p");
  await page.getByRole("button", { name: "Create room" }).focus();
  await page.keyboard.press("Enter");
  await page.locator(".room-status", { hasText: "waiting" }).waitFor();
  assert.match(await assertFocusKept(page, "Create room"), /^H1 Blokus 4p/);

  await page.getByRole("button", { name: "Add bot" }).focus();
  for (let seat = 1; seat <= 3; seat++) {
    await page.keyboard.press("Enter");
    await page.locator(`.seats li[data-seat="${seat}"]`, { hasText: "(bot)" }).waitFor();
    await assertFocusKept(page, `Add bot ${seat}`);
  }
  assert.equal(await focused(page), "BUTTON Start", "the last Add bot hands the focus to Start");
  await page.keyboard.press("Enter");
  await page.locator(".turn.mine").waitFor();
  await assertFocusKept(page, "Start");

  /* The tray is one Tab stop; the arrows move among its pieces. */
  await page.locator(".tray-piece").first().waitFor();
  assert.equal(await page.locator(".tray-piece[tabindex='0']").count(), 1);
  assert.equal(await page.locator(".tray-piece:not([tabindex='0'])").count(), 20);
  await page.locator(".tray-piece[tabindex='0']").focus();
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.piece), "I2");
  await page.keyboard.press("End");
  const last = await page.evaluate(() => document.activeElement.dataset.piece);
  assert.equal(await page.locator(".tray-piece[tabindex='0']").getAttribute("data-piece"), last);
  await page.keyboard.press("Home");
  assert.equal(await page.evaluate(() => document.activeElement.dataset.piece), "I1");

  await playMoveByKeyboard(page, firstLegal(suite.pieces, await readPosition(page)));
  await assertFocusKept(page, "a move");

  const resign = page.getByRole("button", { name: "Resign" });
  await resign.focus();
  await page.keyboard.press("Enter");
  assert.equal(await focused(page), "BUTTON Really resign?");
  await page.keyboard.press("Enter");
  await page.locator(".seats .marker", { hasText: "resigned" }).first().waitFor();
  await assertFocusKept(page, "resigning");
  await page.locator(".game-over").waitFor();
  await assertFocusKept(page, "the game's end");
  await browser.close();
});

test("Escape in the sign-in form gives the focus back to its button", async () => {
  const browser = await openBrowser("signin");
  const { page } = browser;
  await visit(page, suite.server, "#/leaderboards");
  await page.getByRole("button", { name: "Sign in" }).focus();
  await page.keyboard.press("Enter");
  await page.getByLabel("Account name").waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.name), "name");
  await page.keyboard.press("Escape");
  await page.locator(".signin-form").waitFor({ state: "hidden" });
  assert.equal(await focused(page), "BUTTON Sign in");
  await browser.close();
});
