// The Herald console: plain JavaScript modules, no build step, no third-party code. Text from
// the server is only ever placed with textContent, never parsed as HTML.

let csrfToken = null;

const byId = (id) => document.getElementById(id);

async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (csrfToken && method !== "GET" && method !== "HEAD") headers["X-CSRF-Token"] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  return { status: response.status, json };
}

// `data-session` on <body> says what the page knows: "checking" until the server answered,
// then "signed-in" or "signed-out" (tests wait for it instead of guessing).
function showSignedIn(session) {
  csrfToken = session.csrfToken;
  document.body.dataset.session = "signed-in";
  byId("sign-in").hidden = true;
  byId("home").hidden = false;
  byId("signed-in-as").textContent = `Key: ${session.key.name} (${session.key.id})`;
  byId("signed-in-as").hidden = false;
  byId("sign-out").hidden = false;
  const ends = new Date(session.expiresAt);
  byId("session-ends").textContent = `This session ends by ${ends.toLocaleString()} at the latest.`;
}

function showSignedOut(message) {
  csrfToken = null;
  document.body.dataset.session = "signed-out";
  byId("home").hidden = true;
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
  const answer = await call("POST", "/console/session", { apiKey: input.value.trim() });
  input.value = "";
  if (answer.status === 201 && answer.json) {
    byId("sign-in-error").textContent = "";
    showSignedIn(answer.json);
  } else {
    showSignedOut(answer.json?.error?.message ?? `Sign-in failed (${answer.status}).`);
  }
}

async function signOut() {
  await call("DELETE", "/console/session");
  showSignedOut("Signed out.");
}

async function start() {
  byId("sign-in-form").addEventListener("submit", signIn);
  byId("sign-out").addEventListener("click", signOut);
  const current = await call("GET", "/console/session");
  if (current.status === 200 && current.json) showSignedIn(current.json);
  else showSignedOut();
}

start();
