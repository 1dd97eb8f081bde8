// The Herald console: plain JavaScript modules, no build step, no third-party code. Text from
// the server is only ever placed as text (see dom.js), never parsed as HTML.
import { api, byId, setSession } from "./dom.js";
import { resetCompose, setUpCompose, showCompose } from "./compose.js";
import { closeTimeline, loadMessages, openTimeline, resetMessages, setUpMessages } from "./messages.js";
import { loadAppConfig, loadKeys, loadOverview, resetAdmin, setUpAdmin } from "./admin.js";

const pages = ["overview", "compose", "messages", "users", "app-config", "keys"];

// `#compose`, `#messages/<id>`: the page (and the open notification) live in the address, so a
// reload or a shared link comes back to the same place. Any other fragment (the skip link's
// `#main`) leaves the page as it is. A new page moves the focus to its heading, so a keyboard or
// screen reader user starts there.
function decoded(text) {
  try { return decodeURIComponent(text); } catch { return text; }
}

function route() {
  if (document.body.dataset.session !== "signed-in") return;
  const [name, ...rest] = location.hash.replace(/^#/, "").split("/");
  const shown = document.body.dataset.page;
  if (name && !pages.includes(name) && shown) return;
  const page = pages.includes(name) ? name : "overview";
  for (const id of pages) {
    byId(`page-${id}`).hidden = id !== page;
    const link = document.querySelector(`nav a[href="#${id}"]`);
    if (id === page) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  document.body.dataset.page = page;
  if (shown && shown !== page) byId(`page-${page}`).querySelector("h1").focus();
  if (page !== "messages") closeTimeline();
  switch (page) {
    case "overview": loadOverview(); break;
    case "compose": showCompose(); break;
    case "messages":
      loadMessages();
      if (rest.length) openTimeline(decoded(rest.join("/"))); else closeTimeline();
      break;
    case "app-config": loadAppConfig(); break;
    case "keys": loadKeys(); break;
    default: break;
  }
}

// `data-session` on <body> says what the page knows: "checking" until the server answered,
// then "signed-in" or "signed-out" (tests wait for it instead of guessing).
function showSignedIn(session) {
  setSession(session.csrfToken, showSignedOut);
  document.body.dataset.session = "signed-in";
  byId("sign-in").hidden = true;
  byId("app").hidden = false;
  byId("signed-in-as").textContent = `Key: ${session.key.name} (${session.key.id})`;
  byId("signed-in-as").hidden = false;
  byId("sign-out").hidden = false;
  const ends = new Date(session.expiresAt);
  byId("session-ends").textContent = `This session ends by ${ends.toLocaleString()} at the latest.`;
  route();
}

// Signing out (or a session that ended) leaves nothing of the last session on the page: no key
// secret, user, message or config, and no timer still asking the server.
function showSignedOut(message) {
  setSession(null);
  resetCompose();
  resetMessages();
  resetAdmin();
  delete document.body.dataset.page;
  document.body.dataset.session = "signed-out";
  byId("app").hidden = true;
  byId("sign-in").hidden = false;
  byId("signed-in-as").hidden = true;
  byId("sign-out").hidden = true;
  byId("sign-in-error").textContent = message ?? "";
  byId("api-key").focus();
}

async function signIn(event) {
  event.preventDefault();
  const input = byId("api-key");
  if (!input.value.trim()) {
    byId("sign-in-error").textContent = "Enter a publisher API key.";
    input.focus();
    return;
  }
  const answer = await api("POST", "/console/session", { apiKey: input.value.trim() });
  input.value = "";
  if (answer.status === 201 && answer.json) {
    byId("sign-in-error").textContent = "";
    showSignedIn(answer.json);
  } else {
    showSignedOut(answer.error?.message ?? `Sign-in failed (${answer.status}).`);
  }
}

async function signOut() {
  await api("DELETE", "/console/session");
  showSignedOut("Signed out.");
}

async function start() {
  setSession(null, showSignedOut);
  byId("sign-in-form").addEventListener("submit", signIn);
  byId("sign-out").addEventListener("click", signOut);
  window.addEventListener("hashchange", route);
  setUpCompose();
  setUpMessages();
  setUpAdmin();
  const current = await api("GET", "/console/session");
  if (current.status === 200 && current.json) showSignedIn(current.json);
  else showSignedOut();
}

start();
