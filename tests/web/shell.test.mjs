// shell.test.mjs -- the client's frame: the page loads from the server,
// signs in as a guest over the websocket, keeps that guest across a reload
// (token in localStorage), and shows a lost connection until it is back.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { closeLeftBrowsers, openBrowser, screenshot, startServer, visit } from "./harness.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

test("a guest is signed in and stays the same guest after a reload", async () => {
  const browser = await openBrowser("guest");
  const { page } = browser;
  await visit(page, server, "#/no-such-page");
  const who = await page.locator("#who").textContent();
  assert.match(who, /^Signed in as guest-\d+$/);
  await page.reload();
  await page.locator("#who").filter({ hasText: "Signed in as" }).waitFor();
  assert.equal(await page.locator("#who").textContent(), who);
  await screenshot(page, "shell");
  await browser.close();
});

test("a stale token whose name an account or a bot holds comes back as a fresh guest", async () => {
  const browser = await openBrowser("stale");
  const { page } = browser;
  /* Guests follow the account name rules and take no account's or bot's name
   * (issue 16, item 10): the name kept from before is refused, not the sign-in. */
  await page.addInitScript(() => {
    localStorage.setItem("tessera.token", "0".repeat(48));
    localStorage.setItem("tessera.name", "greedy");
    localStorage.setItem("tessera.account", "1");
  });
  await visit(page, server, "#/no-such-page");
  assert.match(await page.locator("#who").textContent(), /^Signed in as guest-\d+$/);
  await browser.close();
});

test("an unknown page says so", async () => {
  const browser = await openBrowser("unknown");
  await visit(browser.page, server, "#/no-such-page");
  assert.equal(await browser.page.locator("#page").textContent(), "No such page.");
  await browser.close();
});

test("the page runs under its Content-Security-Policy, and a violation is a console error", async () => {
  const browser = await openBrowser("csp");
  const { page } = browser;
  const response = await page.goto(`${server.url}/#/`);
  assert.match(response.headers()["content-security-policy"], /default-src 'self'/);
  await page.locator("#who").filter({ hasText: "Signed in as" }).waitFor(); // its websocket works
  assert.deepEqual(browser.errors, []);
  await page.evaluate(() => {
    const script = document.createElement("script");
    script.textContent = "window.inlineRan = true";
    document.body.append(script);
    document.body.setAttribute("style", "color: red");
  });
  await page.waitForFunction(() => window.cspViolations >= 2);
  assert.equal(await page.evaluate(() => window.inlineRan), undefined);
  assert.equal(browser.errors.filter((error) => /Content Security Policy/.test(error)).length >= 2, true, browser.errors);
  browser.errors.length = 0; // seen: the close() check is for the ones not provoked here
  await browser.close();
});
