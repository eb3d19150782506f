// turn_sound.test.mjs -- the optional sound on your turn (issue 20): off by
// default, a checkbox in the room turns it on and a reload remembers it;
// on, each turn of yours begins with one sound (two WebAudio tones). The
// page's AudioContext is replaced by a recorder: headless Chromium has no
// speakers to listen to, and the recorder counts the tones started.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { closeLeftBrowsers, openBrowser } from "./harness.mjs";
import { blokusSuite, createRoomWithBots, firstLegal, playMove, readPosition } from "./blokus_play.mjs";

after(closeLeftBrowsers); /* a test that failed before its browser.close() */

const suite = blokusSuite();

function recordTones() {
  window.tonesStarted = 0;
  const param = { setValueAtTime() {}, linearRampToValueAtTime() {}, exponentialRampToValueAtTime() {} };
  window.AudioContext = class { constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; } resume() { return Promise.resolve(); } };
  window.GainNode = class { constructor() { this.gain = param; } connect(node) { return node; } };
  window.OscillatorNode = class { connect(node) { return node; } start() { window.tonesStarted++; } stop() {} };
}

test("the turn sound is off by default, remembered once on, and sounds as each turn begins", async () => {
  const browser = await openBrowser("sound");
  const { page } = browser;
  await browser.context.addInitScript(recordTones);
  await createRoomWithBots(page, suite.server, "4p", 3);
  const toggle = page.getByLabel("Sound on your turn");
  assert.equal(await toggle.isChecked(), false, "off by default");
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  assert.equal(await page.evaluate(() => window.tonesStarted), 0, "silent while off");

  await toggle.check();
  assert.equal(await page.evaluate(() => localStorage.getItem("tessera.turnSound")), "1");
  await playMove(page, firstLegal(suite.pieces, await readPosition(page)));
  await page.locator(".turn:not(.mine)").waitFor();
  await page.locator(".turn.mine").waitFor();
  assert.equal(await page.evaluate(() => window.tonesStarted), 2, "one sound of two tones as the turn came back");

  await page.reload();
  await page.locator(".turn.mine").waitFor();
  assert.equal(await page.getByLabel("Sound on your turn").isChecked(), true, "remembered");
  await browser.close();
});
