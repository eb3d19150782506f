// turn_sound.js -- an optional sound when it becomes your (Blokus) turn: two short
// soft tones made with WebAudio (no sound file to fetch). Off by default;
// the room's "Sound on your turn" checkbox turns it on, and the choice is
// remembered in localStorage (tessera.turnSound). A browser lets a page
// start sound only after a click or key on it: ticking the box is one,
// and a later tone resumes the audio context a reload left suspended.

import { el } from "../dom.js";

const KEY = "tessera.turnSound";
const TONES = [[660, 0], [880, 0.12]]; /* [frequency Hz, start s] */
const TONE_SECONDS = 0.1;
const VOLUME = 0.12;
let audio = null;

function isOn() {
  return localStorage.getItem(KEY) === "1";
}

function context() {
  audio = audio || new AudioContext();
  if (audio.state === "suspended") audio.resume().catch(() => {}); /* no gesture yet: silent until one */
  return audio;
}

/* Plays the turn sound if it is on. */
export function playTurnSound() {
  if (!isOn()) return;
  const ctx = context();
  for (const [frequency, start] of TONES) {
    const at = ctx.currentTime + start;
    const tone = new OscillatorNode(ctx, { type: "sine", frequency });
    const gain = new GainNode(ctx, { gain: 0 });
    gain.gain.setValueAtTime(0, at);
    gain.gain.linearRampToValueAtTime(VOLUME, at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.001, at + TONE_SECONDS);
    tone.connect(gain).connect(ctx.destination);
    tone.start(at);
    tone.stop(at + TONE_SECONDS);
  }
}

/* The checkbox that turns it on and off (remembered). */
export function turnSoundToggle() {
  const box = el("input", { type: "checkbox", name: "turn-sound" });
  box.checked = isOn();
  box.addEventListener("change", () => {
    localStorage.setItem(KEY, box.checked ? "1" : "0");
    if (box.checked) context(); /* this click is the gesture that lets it play later */
  });
  return el("label", { class: "check" }, box, " Sound on your turn");
}
