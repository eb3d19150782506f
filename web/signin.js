// signin.js -- the header's account control: a guest may sign in to a
// named account or create one (which keeps the guest's games); an account
// may sign out, back to a new guest. The connection (net.js) does the
// talking; this module only draws the control and its small form.
import { el } from "./dom.js";


/* Draws the control into `slot` and keeps it in step with every welcome. */
export function mountSignIn(slot, app) {
  const { connection } = app;
  const name = el("input", { type: "text", name: "name", autocomplete: "username", required: true, minlength: 2, maxlength: 24, "aria-label": "Account name" });
  const password = el("input", { type: "password", name: "password", autocomplete: "current-password", required: true, minlength: 8, maxlength: 128, "aria-label": "Password" });
  const form = el("form", { class: "signin-form panel", hidden: true },
    el("label", {}, "Name ", name),
    el("label", {}, "Password ", password),
    el("div", { class: "row" },
      el("button", { type: "submit", class: "primary", value: "sign-in" }, "Sign in"),
      el("button", { type: "submit", value: "register", title: "Make this guest a named account: its games stay yours" }, "Create account"),
      el("button", { type: "button", onclick: () => close() }, "Cancel")));
  const toggle = el("button", { type: "button", class: "signin-toggle", "aria-expanded": "false" });

  /* Hides the form; the focus, if it was in there, goes back to the toggle. */
  function close() {
    const hadFocus = form.contains(document.activeElement);
    form.hidden = true;
    toggle.setAttribute("aria-expanded", "false");
    if (hadFocus) toggle.focus();
  }

  function refresh() {
    toggle.textContent = connection.isAccount ? "Sign out" : "Sign in";
  }

  async function submit(event) {
    event.preventDefault();
    const registering = event.submitter?.value === "register";
    const buttons = form.querySelectorAll("button");
    buttons.forEach((button) => { button.disabled = true; });
    try {
      if (registering) await connection.register(name.value, password.value);
      else await connection.signInAccount(name.value, password.value);
      password.value = "";
      close();
      toggle.focus(); /* the disabled button had lost it */
    } catch (error) {
      app.showError(error);
    } finally {
      buttons.forEach((button) => { button.disabled = false; });
      if (!form.hidden && !form.contains(document.activeElement)) event.submitter?.focus();
    }
  }

  toggle.addEventListener("click", () => {
    if (connection.isAccount) {
      connection.signOut().catch(app.showError);
      return;
    }
    form.hidden = !form.hidden;
    toggle.setAttribute("aria-expanded", String(!form.hidden));
    if (!form.hidden) name.focus();
  });
  form.addEventListener("submit", submit);
  form.addEventListener("keydown", (event) => { if (event.key === "Escape") close(); });
  connection.on("welcome", refresh);
  refresh();
  slot.replaceChildren(toggle, form);
}
