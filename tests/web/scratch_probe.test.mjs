import { test } from "node:test";
import { openBrowser, screenshot, startServer, visit } from "./harness.mjs";
test("probe", async () => {
  const server = await startServer();
  const b = await openBrowser("p");
  const { page } = b;
  await page.emulateMedia({ colorScheme: "dark" });
  await visit(page, server, "#/");
  await page.locator("form#create-room select[name=mode]").selectOption("3p");
  await page.locator("input[name=clock_minutes]").fill("1");
  await page.locator("input[name=increment_seconds]").fill("2");
  await page.getByRole("button", { name: "Create room" }).click();
  await page.locator(".room-status", { hasText: "waiting" }).waitFor();
  await screenshot(page, "probe-waiting-dark");
  for (const s of [1,2]) { await page.getByRole("button", { name: "Add bot" }).click(); await page.locator(`.seats li[data-seat="${s}"]`, { hasText: "bot" }).waitFor(); }
  await page.getByRole("button", { name: "Start" }).click();
  await page.locator(".turn.mine").waitFor();
  const c1 = await page.locator('[data-clock-seat="0"]').textContent();
  await page.locator('[data-clock-seat="0"]', { hasNotText: c1 }).waitFor();
  console.log("clock", c1, await page.locator('[data-clock-seat="0"]').textContent());
  await page.locator("#patterns").check();
  await page.locator('.tray-piece[data-piece="F"]').click();
  await page.locator('svg.board g.cell[data-row="1"][data-col="1"]').hover();
  await screenshot(page, "probe-3p-dark");
  // quick play
  const q1 = await openBrowser("q1"), q2 = await openBrowser("q2");
  for (const q of [q1, q2]) { await visit(q.page, server, "#/"); await q.page.locator("select[name=quick]").selectOption("blokus/duo"); await q.page.getByRole("button", { name: "Quick play" }).click(); }
  await q1.page.locator(".room-status", { hasText: "playing" }).waitFor();
  await q2.page.locator(".room-status", { hasText: "playing" }).waitFor();
  await visit(b.page, server, "#/");
  await b.page.locator(".rooms tbody tr").nth(1).waitFor();
  await screenshot(b.page, "probe-lobby-rooms");
  await screenshot(q1.page, "probe-duo");
  console.log(b.errors, q1.errors, q2.errors);
  for (const x of [b, q1, q2]) await x.context.close();
  await server.stop();
});
