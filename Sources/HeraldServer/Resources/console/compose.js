// Compose: the form, the server's previews beside it as you type, and sending (a test to one
// user, one user, a list, everyone). The product rules (push cut, chips, chevrons, layouts, the
// sanitizer) are the server's: this page draws what POST /v1/previews answers.
import { api, append, byId, clear, el, newKey, sanitizedFragment, showFieldError } from "./dom.js";

let composeKey = newKey();
let previewTimer = null;
let previewSerial = 0;
let catalogLoaded = false;
// Ids of data-pair inputs: never reused, so a removed row's label never names another input.
let pairSerial = 0;
// Field errors from a preview appear only once the form was edited: an empty Compose page does
// not announce "type is required" before anyone typed.
let touched = false;

const form = () => byId("compose-form");
const value = (id) => byId(id).value.trim();
const optional = (id) => value(id) || undefined;

function dataPairs() {
  const pairs = {};
  for (const row of byId("data-pairs").querySelectorAll(".pair")) {
    const key = row.querySelector(".pair-key").value.trim();
    if (key) pairs[key] = row.querySelector(".pair-value").value;
  }
  return Object.keys(pairs).length ? pairs : undefined;
}

// The draft as the API takes it (a publish without its audience).
export function draft() {
  const detail = {
    heroImageURL: optional("detail-hero"), html: optional("detail-html"), actionLabel: optional("detail-label"),
    actionPath: optional("detail-path"), actionURL: optional("detail-url"),
  };
  const push = { send: byId("push-send").checked };
  if (value("push-priority")) push.priority = value("push-priority");
  if (value("push-ttl")) {
    // A number as typed (never NaN, which JSON writes as null): anything else is the server's
    // to refuse, beside the field, with its own message.
    const ttl = value("push-ttl");
    push.ttlSeconds = /^-?\d+$/.test(ttl) ? Number(ttl) : ttl;
  }
  if (value("push-collapse")) push.collapseId = value("push-collapse");
  if (value("push-sound")) push.sound = value("push-sound");
  return {
    type: value("compose-type"), title: byId("compose-title").value, body: byId("compose-body").value,
    data: dataPairs(), deepLink: optional("compose-deeplink"),
    detail: Object.values(detail).some((part) => part !== undefined) ? detail : undefined, push,
  };
}

function addPair(key = "", pairValue = "") {
  const index = pairSerial++;
  const row = el("div", { class: "pair" },
    el("label", { class: "visually-hidden", for: `pair-key-${index}` }, `Data key ${index + 1}`),
    el("input", { id: `pair-key-${index}`, class: "pair-key", placeholder: "key", value: key }),
    el("label", { class: "visually-hidden", for: `pair-value-${index}` }, `Data value ${index + 1}`),
    el("input", { id: `pair-value-${index}`, class: "pair-value", placeholder: "value", value: pairValue }),
    el("button", { type: "button", class: "quiet", "aria-label": `Remove data pair ${index + 1}` }, "Remove"));
  row.querySelector("button").addEventListener("click", () => {
    row.remove();
    byId("add-pair").focus();
    touched = true;
    schedulePreview();
  });
  byId("data-pairs").append(row);
}

function counter(id, text, cut) {
  const length = [...text].length;
  byId(id).textContent = cut
    ? `${length} characters: the push shows the first 150 (cut with …).`
    : `${length} of 150 characters in the push.`;
  byId(id).classList.toggle("warn", cut);
}

export function schedulePreview() {
  composeKeyStale();
  clearTimeout(previewTimer);
  previewTimer = setTimeout(preview, 250);
}

// A changed compose is another message: it gets its own Idempotency-Key once one was used.
let keyUsed = false;
function composeKeyStale() {
  if (keyUsed) { composeKey = newKey(); keyUsed = false; }
}

async function preview() {
  const serial = ++previewSerial;
  document.body.dataset.preview = "loading";
  const answer = await api("POST", "/v1/previews", draft());
  if (serial !== previewSerial) return;
  if (touched || !answer.error) showFieldError(form(), answer.error);
  if (answer.status !== 200) {
    byId("previews").classList.add("stale");
    document.body.dataset.preview = "invalid";
    return;
  }
  byId("previews").classList.remove("stale");
  renderPreview(answer.json);
  document.body.dataset.preview = "ready";
}

function renderPreview(p) {
  counter("title-count", byId("compose-title").value, p.push.titleCut);
  counter("body-count", byId("compose-body").value, p.push.bodyCut);
  const chip = byId("type-chip");
  chip.textContent = p.hidden ? "Hidden (admin): no app user sees it" : (p.chip ?? "All only (no category chip)");
  chip.classList.toggle("none", !p.chip);
  const link = byId("deeplink-check");
  link.textContent = p.deepLink ? p.deepLink.message : "";
  link.classList.toggle("warn", p.deepLink ? !p.deepLink.allowed : false);

  const note = p.hidden ? "Hidden type: no push."
    : !p.pushes ? "Push is off: inbox only."
    : p.background ? "Background update: the device shows nothing; the app wakes to refresh." : null;
  clear(byId("preview-ios")).append(
    el("div", { class: "banner ios" },
      el("div", { class: "banner-app" }, "YOUR APP", el("span", {}, "now")),
      el("div", { class: "banner-title", "data-part": "title" }, p.ios.title),
      p.ios.subtitle ? el("div", { class: "banner-subtitle", "data-part": "subtitle" }, p.ios.subtitle) : "",
      el("div", { class: "banner-body", "data-part": "body" }, p.ios.body)),
    note ? el("p", { class: "hint" }, note) : "");
  clear(byId("preview-android")).append(
    el("div", { class: "banner android" },
      el("div", { class: "banner-app" }, "Your app · now"),
      el("div", { class: "banner-title", "data-part": "title" }, p.android.title),
      el("div", { class: "banner-body", "data-part": "body" }, p.android.body)),
    note ? el("p", { class: "hint" }, note) : "");

  const rowBox = clear(byId("preview-row"));
  if (p.inboxRow) {
    const row = p.inboxRow;
    rowBox.append(el("div", { class: "inbox-row", "data-chevron": row.chevron ? "yes" : "no" },
      row.unreadDot ? el("span", { class: "unread-dot", "aria-label": "Unread" }) : "",
      el("div", { class: "row-text" },
        row.chip ? el("span", { class: "chip" }, row.chip) : "",
        el("div", { class: "row-title" }, row.title),
        el("div", { class: "row-body" }, row.body)),
      row.chevron ? el("span", { class: "chevron", "aria-label": "Opens" }, "›") : ""),
      el("p", { class: "hint" }, row.chevron
        ? `A tap opens ${row.destination.kind === "detail" ? "the detail page" : row.destination.path}.`
        : "No destination: no chevron, a tap does nothing."));
  } else {
    rowBox.append(el("p", { class: "hint" }, "Hidden type: not in any inbox."));
  }

  const pageBox = clear(byId("preview-detail"));
  const page = p.detailPage;
  if (page) {
    const body = page.html !== undefined && page.html !== null
      ? el("div", { class: "detail-html", "data-part": "html" }, sanitizedFragment(page.html))
      : el("p", { class: "detail-text", "data-part": "text" }, page.text ?? "");
    pageBox.append(el("div", { class: `detail ${page.layout}`, "data-layout": page.layout },
      page.layout === "hero"
        ? el("div", { class: "hero" }, el("img", { src: page.heroImageURL, alt: "" }),
          el("span", { class: "hero-back", "aria-label": "Back" }, "‹"))
        : el("div", { class: "compact-back" }, "‹ Back"),
      el("div", { class: "detail-head" }, el("h4", {}, page.title),
        page.badge ? el("span", { class: "badge" }, page.badge) : ""),
      body,
      page.action ? el("span", { class: "cta", "data-part": "cta" }, page.action.label) : ""),
      page.plain ? el("p", { class: "hint" }, "No rich content: the page shows the push title and text.") : "",
      page.html ? el("details", {}, el("summary", {}, "HTML as stored"), el("pre", { class: "stored-html" }, page.html)) : "");
  } else {
    pageBox.append(el("p", { class: "hint" }, "Hidden type: no detail page."));
  }
}

function audience() {
  const kind = form().querySelector('input[name="audience"]:checked').value;
  if (kind === "user") return { kind, users: [value("audience-user")] };
  if (kind === "list") {
    const users = [...new Set(byId("audience-list").value.split(/[\s,;]+/).filter(Boolean))];
    return { kind, users };
  }
  return { kind };
}

function status(text, kind = "info") {
  const box = byId("send-status");
  box.textContent = text;
  box.dataset.kind = kind;
}

async function publish(recipients, idempotencyKey) {
  keyUsed = true;
  return api("POST", "/v1/notifications", { recipients, ...draft() }, { "Idempotency-Key": idempotencyKey });
}

// The server answers a repeated Idempotency-Key with the first send's answer and this header:
// nothing was sent again, and the page says so.
const replayed = (answer) => answer.headers.get("Idempotent-Replayed") === "true";
const again = (answer) => (replayed(answer) ? " (already sent: this is the first send's answer, nothing was sent again)" : "");

async function sendTest() {
  const user = value("test-user");
  if (!user) {
    showFieldError(form(), { field: "test-user", message: "Enter the user id to send the test to." });
    return;
  }
  const answer = await publish([user], `${composeKey}-test-${user}`);
  if (answer.status === 202) {
    status(`Test sent to ${user}: notification ${answer.json.notifications[0].id}${again(answer)}. See it in Messages.`, "ok");
    showFieldError(form(), null);
  } else {
    showFieldError(form(), answer.error?.field === "recipients[0]" ? { ...answer.error, field: "test-user" } : answer.error);
    status(answer.error.message, "error");
  }
}

let sending = false;
async function send(event) {
  event.preventDefault();
  if (sending) return;
  const target = audience();
  showFieldError(form(), null);
  if (target.kind === "user" && !target.users[0]) {
    showFieldError(form(), { field: "audience-user", message: "Enter a user id." });
    return;
  }
  if (target.kind === "list" && target.users.length === 0) {
    showFieldError(form(), { field: "audience-list", message: "Paste or upload at least one user id." });
    return;
  }
  if (target.kind !== "user") {
    let size = target.users?.length;
    if (target.kind === "all") {
      const stats = await api("GET", "/v1/stats");
      if (stats.status !== 200) { status(stats.error.message, "error"); return; }
      size = stats.json.users;
    }
    showConfirmation(target, size);
    return;
  }
  sending = true;
  byId("send").disabled = true;
  const answer = await publish(target.users, `${composeKey}-send`);
  sending = false;
  byId("send").disabled = false;
  if (answer.status === 202) {
    const id = answer.json.notifications[0].id;
    status(`Sent to ${target.users[0]}: notification ${id}${again(answer)}.`, "ok");
    byId("send-status").append(" ", el("a", { href: `#messages/${encodeURIComponent(id)}` }, "Open its timeline"));
  } else {
    showFieldError(form(), answer.error?.field?.startsWith("recipients") ? { ...answer.error, field: "audience-user" } : answer.error);
    status(answer.error.message, "error");
  }
}

function showConfirmation(target, size) {
  const box = clear(byId("confirm"));
  const who = target.kind === "all" ? `everyone: ${size} users` : `${size} listed users`;
  box.hidden = false;
  box.append(
    el("p", { id: "confirm-text" }, `Send “${byId("compose-title").value}” to ${who}?`),
    el("button", { type: "button", id: "confirm-send" }, `Send to ${size} users`),
    el("button", { type: "button", id: "confirm-cancel", class: "quiet" }, "Cancel"));
  byId("confirm-cancel").addEventListener("click", () => { box.hidden = true; byId("send").focus(); });
  byId("confirm-send").addEventListener("click", () => broadcast(target));
  // The safe choice has the focus: Enter on a confirmation never sends to everyone by accident.
  byId("confirm-cancel").focus();
}

async function broadcast(target) {
  if (sending) return;
  sending = true;
  byId("confirm-send").disabled = true;
  keyUsed = true;
  const body = { audience: target.kind === "all" ? "all" : { userIds: target.users }, ...draft() };
  const answer = await api("POST", "/v1/broadcasts", body, { "Idempotency-Key": `${composeKey}-broadcast` });
  sending = false;
  byId("confirm").hidden = true;
  if (answer.status !== 202) {
    showFieldError(form(), answer.error?.field?.startsWith("audience") ? { ...answer.error, field: "audience-list" } : answer.error);
    status(answer.error.message, "error");
    return;
  }
  status(`Broadcast ${answer.json.id} ${replayed(answer) ? "was already started by this compose: following it" : "started"}.`, "ok");
  follow(answer.json.id);
}

// The broadcast's progress, asked every half second until it ends. A newer follow, or signing
// out, ends this one (`following` changes). A call that fails without an answer or with a 5xx is
// tried again, up to five times in a row, a second apart; any other refusal ends the loop.
let following = 0;
async function follow(id) {
  const mine = ++following;
  const bar = byId("broadcast-progress");
  const label = byId("broadcast-label");
  byId("broadcast").hidden = false;
  let failures = 0;
  for (;;) {
    const answer = await api("GET", `/v1/broadcasts/${encodeURIComponent(id)}`);
    if (mine !== following) return;
    if (answer.status !== 200) {
      const transient = answer.status === 0 || answer.status >= 500;
      if (transient && ++failures <= 5) {
        label.textContent = `${answer.error.message} Trying again (${failures} of 5)…`;
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (mine !== following) return;
        continue;
      }
      label.textContent = answer.error.message;
      return;
    }
    failures = 0;
    const b = answer.json;
    const total = b.total ?? 0;
    const percent = b.status === "completed" ? 100 : (total > 0 ? Math.floor((b.processed * 100) / total) : 0);
    bar.max = 100;
    bar.value = percent;
    bar.setAttribute("aria-valuetext", `${percent}%`);
    label.textContent = `${b.processed} of ${b.total ?? "?"} users (${percent}%) · ${b.status}`;
    document.body.dataset.broadcast = b.status;
    if (b.status === "completed" || b.status === "failed") {
      if (b.failureReason) label.textContent += ` · ${b.failureReason}`;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (mine !== following) return;
  }
}

async function loadCatalog() {
  if (catalogLoaded) return;
  const answer = await api("GET", "/v1/app-config");
  if (answer.status !== 200) return;
  catalogLoaded = true;
  const list = clear(byId("type-options"));
  for (const rule of answer.json.catalog.types) {
    if (rule.hidden) continue;
    list.append(el("option", { value: `${rule.prefix}.` }, rule.category ?? "All only"));
  }
}

function readUpload() {
  const file = byId("audience-file").files[0];
  if (!file) return;
  file.text().then((text) => {
    const area = byId("audience-list");
    area.value = (area.value ? `${area.value}\n` : "") + text.trim();
    byId("audience-list-radio").checked = true;
    updateAudience();
    byId("audience-file").value = "";
  });
}

// Another audience is another send: it gets its own Idempotency-Key once one was used.
function updateAudience() {
  composeKeyStale();
  const target = audience();
  byId("audience-user").disabled = target.kind !== "user";
  byId("audience-list").disabled = target.kind !== "list";
  const count = target.kind === "list" ? target.users.length : null;
  byId("audience-count").textContent = count === null ? "" : `${count} user ids`;
}

export function showCompose() {
  loadCatalog();
  schedulePreview();
}

// Signed out: the draft, its previews, any confirmation and the broadcast being followed go.
export function resetCompose() {
  following++;
  clearTimeout(previewTimer);
  previewSerial++;
  form().reset();
  clear(byId("data-pairs"));
  clear(byId("confirm")).hidden = true;
  byId("broadcast").hidden = true;
  byId("broadcast-label").textContent = "";
  status("");
  showFieldError(form(), null);
  for (const id of ["preview-ios", "preview-android", "preview-row", "preview-detail"]) clear(byId(id));
  composeKey = newKey();
  keyUsed = false;
  touched = false;
  sending = false;
  byId("send").disabled = false;
  catalogLoaded = false;
  updateAudience();
}

export function setUpCompose() {
  form().addEventListener("input", (event) => {
    if (event.target.closest("#audience")) { updateAudience(); return; }
    touched = true;
    schedulePreview();
  });
  form().addEventListener("change", (event) => {
    if (event.target.name === "audience") updateAudience();
  });
  form().addEventListener("submit", send);
  byId("add-pair").addEventListener("click", () => { addPair(); byId("data-pairs").lastChild.querySelector("input").focus(); });
  byId("send-test").addEventListener("click", sendTest);
  byId("audience-file").addEventListener("change", readUpload);
  updateAudience();
}
