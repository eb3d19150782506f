// reef_play.mjs -- what the Reef Builder browser tests share: a room made
// from the lobby's form, as a person would make it.
import { visit } from "./harness.mjs";

/* From the lobby: a Reef room of `mode` ("solo" or "race") with seed 7 and
 * a turn cap of `maxTurns`, created and waiting (not started). */
export async function createReefRoom(page, server, mode, maxTurns) {
  await visit(page, server, "#/");
  const form = page.locator("form#create-room");
  await form.locator("select[name=game]").selectOption("reef-builder");
  await form.locator("select[name=mode]").selectOption(mode);
  await form.locator("input[name=seed]").fill("7");
  await form.locator("input[name=max_turns]").fill(String(maxTurns));
  await form.getByRole("button", { name: "Create room" }).click();
  await page.locator(".room-status", { hasText: "waiting" }).waitFor();
}
