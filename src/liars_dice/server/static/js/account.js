// Accounts (issue 18): sign up, sign in, sign out, change the password, reset
// it with the recovery code, delete the account. Optional: a guest plays with
// a nickname as before. The session is an HttpOnly cookie the page never
// reads; the page keeps only the account's name and the CSRF token the server
// gives it (api.js `session`), sent back in X-CSRF-Token on every POST.
import { h, fill, saveNickname } from "./util.js";
import { api, session } from "./api.js";

const PASSWORD_MIN = 10;

function setSession(data) {
  session.name = data && data.account ? data.account.name : null;
  session.csrf = data && data.account ? data.csrf : null;
  if (session.name) saveNickname(session.name); // the forms' nickname box: the account's name is the seat's name
  renderNav();
}

/**
 * Ask the server who this browser is signed in as (before the first page is
 * shown). A server that does not answer within 3 s does not hold the page up:
 * it is shown as a guest's, and the answer, when it comes, signs it in.
 */
export async function loadAccount() {
  const asked = api.account().then(setSession, () => setSession(null));
  await Promise.race([asked, new Promise((resolve) => setTimeout(resolve, 3000))]);
}

/** The top bar's link: "Sign in", or the account's name. */
export function renderNav() {
  const nav = document.querySelector(".topnav");
  if (!nav) return;
  let link = document.getElementById("account-link");
  if (!link) {
    link = h("a", { id: "account-link", href: "#/account" });
    nav.appendChild(link);
  }
  fill(link, session.name ? h("span", {}, h("span", { class: "visually-hidden" }, "Your account, signed in as "), session.name) : "Sign in");
}

function field(id, label, attrs = {}) {
  const input = h("input", { id, name: id, ...attrs });
  return [h("label", { class: "field", for: id }, h("span", {}, label), input), input];
}

function passwordField(id, label, autocomplete) {
  return field(id, label, {
    type: "password", autocomplete, minlength: PASSWORD_MIN, maxlength: 256, required: true,
    "aria-describedby": autocomplete === "new-password" ? "password-rule" : null,
  });
}

/** A form whose submit runs `action(button)`; its sentence of result or error is read out (role=status/alert). */
function form(id, title, fields, buttonText, action) {
  const note = h("p", { class: "form-note", id: `${id}-note`, role: "status", "aria-live": "polite" });
  const button = h("button", { type: "submit", class: "btn btn-primary", id: `${id}-submit` }, buttonText);
  const el = h("form", {
    id, class: "card account-form", "aria-labelledby": `${id}-title`, novalidate: true,
    onsubmit: async (e) => {
      e.preventDefault();
      button.disabled = true;
      fill(note);
      note.className = "form-note";
      try {
        await action(note);
      } catch (err) {
        note.className = "form-note form-error";
        note.setAttribute("role", "alert");
        fill(note, err.message);
      } finally {
        button.disabled = false;
      }
    },
  }, h("h2", { id: `${id}-title` }, title), ...fields, button, note);
  return el;
}

function recoveryBox(code) {
  return h("div", { class: "card recovery", id: "recovery", role: "alert", tabindex: "-1" },
    h("h2", {}, "Your recovery code"),
    h("p", {}, "Write it down now: it is shown only this once, and it is the only way to reset your password (there is no e-mail)."),
    h("p", { class: "recovery-code", id: "recovery-code" }, code));
}

/** The account page (#/account). */
export function accountPage(ctx) {
  const root = ctx.root;
  const rule = h("p", { id: "password-rule", class: "muted" },
    `A password has at least ${PASSWORD_MIN} characters and is not one of the 10,000 most common passwords; nothing else is asked.`);

  function show(extra = null) {
    if (session.name) signedIn(extra);
    else signedOut(extra);
  }

  function signedOut(extra) {
    const [upNameL, upName] = field("signup-name", "Name", { autocomplete: "username", maxlength: 24, required: true });
    const [upPwL, upPw] = passwordField("signup-password", "Password", "new-password");
    const [inNameL, inName] = field("signin-name", "Name", { autocomplete: "username", maxlength: 24, required: true });
    const [inPwL, inPw] = passwordField("signin-password", "Password", "current-password");
    const [rsNameL, rsName] = field("reset-name", "Name", { autocomplete: "username", maxlength: 24 });
    const [rsCodeL, rsCode] = field("reset-code", "Recovery code", { autocomplete: "off", maxlength: 64, spellcheck: "false" });
    const [rsPwL, rsPw] = passwordField("reset-password", "New password", "new-password");
    fill(root, h("section", { class: "account-page" },
      h("h1", {}, "Your account"),
      h("p", {}, "An account is optional: a guest plays with just a nickname. Signed in, your name is yours alone, marked at the table, and your seat follows you to another device."),
      extra,
      h("div", { class: "account-grid" },
        form("signin-form", "Sign in", [inNameL, inPwL], "Sign in", async () => {
          setSession(await api.signIn(inName.value, inPw.value));
          inPw.value = "";
          ctx.toast(`Signed in as ${session.name}.`, "info");
          show();
        }),
        form("signup-form", "Sign up", [upNameL, upPwL, rule], "Sign up", async () => {
          const data = await api.signUp(upName.value, upPw.value);
          upPw.value = "";
          setSession(data);
          show(recoveryBox(data.recovery_code));
          const box = document.getElementById("recovery");
          if (box) box.focus();
        }),
        h("details", { class: "card" }, h("summary", {}, "Forgot your password?"),
          form("reset-form", "Reset with your recovery code", [rsNameL, rsCodeL, rsPwL], "Reset the password", async () => {
            const data = await api.resetPassword(rsName.value, rsCode.value, rsPw.value);
            rsPw.value = "";
            rsCode.value = "";
            setSession(data);
            show(recoveryBox(data.recovery_code));
          })))));
    const first = document.getElementById("signin-name");
    if (first && !extra) first.focus();
  }

  function signedIn(extra) {
    const [oldL, oldPw] = passwordField("old-password", "Current password", "current-password");
    const [newL, newPw] = passwordField("new-password", "New password", "new-password");
    const [delL, delPw] = passwordField("delete-password", "Your password", "current-password");
    fill(root, h("section", { class: "account-page" },
      h("h1", {}, "Your account"),
      h("p", { id: "signed-in-as" }, "Signed in as ", h("strong", {}, session.name), "."),
      extra,
      h("div", { class: "account-grid" },
        h("div", { class: "card" }, h("h2", {}, "Sign out"),
          h("p", {}, "Signs this browser out; your open tables here stop showing your seat."),
          h("button", { type: "button", class: "btn", id: "sign-out", onclick: async () => {
            try {
              await api.signOut();
            } catch (err) {
              ctx.toast(err.message);
            }
            setSession(null);
            ctx.toast("Signed out.", "info");
            show();
          } }, "Sign out")),
        form("password-form", "Change the password", [oldL, newL, rule], "Change the password", async (note) => {
          await api.changePassword(oldPw.value, newPw.value);
          oldPw.value = "";
          newPw.value = "";
          fill(note, "Password changed; every other browser signed in as you is signed out.");
        }),
        form("delete-form", "Delete the account",
          [h("p", {}, "Your password, your sessions and your recovery code are removed. Your past games stay, shown as “deleted player N”."), delL],
          "Delete my account", async () => {
            if (!window.confirm("Delete your account for good?")) return;
            const data = await api.deleteAccount(delPw.value);
            setSession(null);
            ctx.toast(`Your account is deleted; your past games show “${data.shown_as}”.`, "info");
            show();
          }))));
  }

  show();
  return { destroy() {} };
}
