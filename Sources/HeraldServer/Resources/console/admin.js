// Users, App config, Keys and Overview.
import { api, append, byId, clear, el, query, showFieldError, time } from "./dom.js";

// MARK: Users

function table(headings, rows, empty) {
  if (rows.length === 0) return el("p", { class: "hint" }, empty);
  return el("table", {}, el("thead", {}, el("tr", {}, headings.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((cell) => el("td", {}, cell))))));
}

// A section's table, or the error of the call behind it: a failed call never reads as "none".
function section(title, answer, draw) {
  return [el("h3", {}, title), answer.status === 200 ? draw(answer.json) : el("p", { class: "error" }, answer.error.message)];
}

// Only the newest lookup draws: an older answer arriving late never replaces a newer one.
let lookup = 0;
async function lookUpUser(event) {
  event.preventDefault();
  const mine = ++lookup;
  const id = byId("user-id").value.trim();
  const form = byId("user-form");
  const out = clear(byId("user-result"));
  delete document.body.dataset.user;
  showFieldError(form, null);
  if (!id) { showFieldError(form, { field: "id", message: "Enter a user id." }); return; }
  const path = encodeURIComponent(id);
  const [devices, preferences, inbox, deliveries] = await Promise.all([
    api("GET", `/v1/users/${path}/devices`), api("GET", `/v1/users/${path}/preferences`),
    api("GET", `/v1/notifications${query({ userId: id, limit: 50 })}`), api("GET", `/v1/users/${path}/deliveries`),
  ]);
  if (mine !== lookup) return;
  if (devices.status === 400) { showFieldError(form, devices.error); return; }
  out.append(el("h2", { id: "user-heading", tabindex: "-1" }, `User ${id}`));
  out.append(...section("Devices", devices, (json) => table(["App", "Provider", "Platform", "App version", "State", "Last registered"],
    json.items.map((d) => [d.appId ?? "default", d.provider, d.platform, d.appVersion ?? "—", d.active ? "active" : "pruned",
      time(d.updatedAt)]),
    "No devices.")));
  out.append(...section("Preferences (read-only)", preferences, (p) => preferenceFacts(p)));
  out.append(...section("Inbox", inbox, (json) => table(["Created", "Type", "Title", "Read", "Seen", "Deleted"],
    json.items.map((n) => [time(n.createdAt), n.type, el("a", { href: `#messages/${encodeURIComponent(n.id)}` }, n.title),
      n.readAt ? time(n.readAt) : "unread", n.seenAt ? time(n.seenAt) : "unseen", n.deletedAt ? time(n.deletedAt) : "—"]),
    "No notifications.")));
  out.append(...section("Recent deliveries", deliveries, (json) => table(["Updated", "Device", "Status", "Reason", "Attempts"],
    json.items.map((d) => [time(d.updatedAt), d.provider ? `${d.provider} ${d.deviceToken ?? ""}` : "no device",
      d.status, d.reason ?? "—", String(d.attempts)]),
    "No deliveries.")));
  document.body.dataset.user = "loaded";
}

function preferenceFacts(p) {
  const decision = p.osPermissionGranted === null || p.osPermissionGranted === undefined
    ? "not asked yet" : (p.osPermissionGranted ? "granted" : "denied");
  return el("dl", { class: "facts" },
    el("dt", {}, "Push"), el("dd", {}, p.globalEnabled ? "on" : "off"),
    el("dt", {}, "OS decision"), el("dd", {}, decision),
    el("dt", {}, "Categories"), el("dd", {}, Object.entries(p.categories ?? {}).map(([c, on]) => `${c} ${on ? "on" : "off"}`).join(", ") || "—"),
    el("dt", {}, "Disabled types"), el("dd", {}, (p.disabledTypes ?? []).join(", ") || "none"),
    el("dt", {}, "Quiet hours"), el("dd", {}, p.quietHours ? `${p.quietHours.start}–${p.quietHours.end} ${p.quietHours.timeZone ?? ""}` : "none"));
}

// MARK: App config

let loadedConfig = null;
let loadedETag = null;
let proposed = null;
// Edits not saved yet: coming back to the page keeps them instead of loading over them.
let dirty = false;

function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]));
  }
  return value;
}
const pretty = (value) => JSON.stringify(sorted(value ?? {}), null, 2);

export async function loadAppConfig({ discardEdits = false } = {}) {
  if (dirty && !discardEdits) {
    byId("config-status").textContent = "Your edits are not saved yet. Review and save them, or reload to discard them.";
    byId("config-status").dataset.kind = "info";
    byId("config-reload").hidden = false;
    return;
  }
  const answer = await api("GET", "/v1/app-config/document");
  if (answer.status !== 200) {
    if (answer.status !== 401) {
      byId("config-status").textContent = answer.error.message;
      byId("config-status").dataset.kind = "error";
    }
    return;
  }
  dirty = false;
  loadedConfig = answer.json;
  loadedETag = answer.headers.get("ETag");
  const update = loadedConfig.update ?? {};
  byId("ios-minimum").value = update.ios?.minimumVersion ?? "";
  byId("ios-store").value = update.ios?.storeURL ?? "";
  byId("android-minimum").value = update.android?.minimumVersion ?? "";
  byId("android-store").value = update.android?.storeURL ?? "";
  byId("android-prompt").checked = update.android?.sideloadPrompt ?? false;
  byId("allowlist").value = (loadedConfig.deepLinks?.allowedPrefixes ?? []).join("\n");
  byId("catalog").value = loadedConfig.catalog ? pretty(loadedConfig.catalog) : "";
  byId("config-version").textContent = `Version ${loadedETag ?? "?"} loaded ${new Date().toLocaleTimeString()}.`;
  clear(byId("config-diff"));
  byId("config-save").hidden = true;
  showFieldError(byId("config-form"), null);
  document.body.dataset.config = "loaded";
}

function edited() {
  const platform = (minimum, store, prompt) => {
    const policy = {};
    if (byId(minimum).value.trim()) policy.minimumVersion = byId(minimum).value.trim();
    if (byId(store).value.trim()) policy.storeURL = byId(store).value.trim();
    if (prompt && byId(prompt).checked) policy.sideloadPrompt = true;
    return Object.keys(policy).length ? policy : undefined;
  };
  const document = { ...loadedConfig };
  const update = { ios: platform("ios-minimum", "ios-store"), android: platform("android-minimum", "android-store", "android-prompt") };
  if (update.ios || update.android) document.update = update; else delete document.update;
  const prefixes = byId("allowlist").value.split("\n").map((line) => line.trim()).filter(Boolean);
  document.deepLinks = { allowedPrefixes: prefixes };
  const catalogText = byId("catalog").value.trim();
  if (catalogText) {
    try { document.catalog = JSON.parse(catalogText); } catch (error) {
      throw { field: "catalog", message: `The catalog is not valid JSON: ${error.message}` };
    }
  } else {
    delete document.catalog;
  }
  return document;
}

// A line diff of the two documents, pretty-printed with sorted keys (longest common subsequence).
function diffLines(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  const lengths = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const lines = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) { lines.push([" ", a[i]]); i++; j++; }
    else if (j < b.length && (i === a.length || lengths[i][j + 1] >= lengths[i + 1][j])) { lines.push(["+", b[j]]); j++; }
    else { lines.push(["-", a[i]]); i++; }
  }
  return lines;
}

function review(event) {
  event.preventDefault();
  const form = byId("config-form");
  if (!loadedETag) {
    showFieldError(form, { field: "*", message: "The app config is not loaded yet: reload it before editing." });
    return;
  }
  try { proposed = edited(); } catch (error) { showFieldError(form, error); return; }
  showFieldError(form, null);
  const lines = diffLines(pretty(loadedConfig), pretty(proposed));
  const changed = lines.some(([mark]) => mark !== " ");
  const box = clear(byId("config-diff"));
  box.append(el("h2", {}, changed ? "Changes to save" : "No changes"),
    el("pre", { class: "diff" }, lines.filter(([mark]) => mark !== " " || changed).map(([mark, text]) =>
      el("span", { class: mark === "+" ? "added" : (mark === "-" ? "removed" : "same") }, `${mark} ${text}\n`))));
  byId("config-save").hidden = !changed;
  if (changed) byId("config-save").focus();
}

// Always conditional: without the ETag of what was reviewed there is nothing to compare with, so
// nothing is saved (a save without If-Match would overwrite whatever is there).
async function save() {
  const form = byId("config-form");
  if (!loadedETag || !proposed) {
    showFieldError(form, { field: "*", message: "Review the changes first: nothing was saved." });
    byId("config-save").hidden = true;
    return;
  }
  byId("config-save").disabled = true;
  const answer = await api("PUT", "/v1/app-config", proposed, { "If-Match": loadedETag });
  byId("config-save").disabled = false;
  if (answer.status === 200) {
    dirty = false;
    await loadAppConfig();
    byId("config-status").textContent = "Saved.";
    byId("config-status").dataset.kind = "ok";
    return;
  }
  if (answer.status === 412) {
    byId("config-status").textContent =
      "Someone else saved the app config since you loaded it. Nothing was saved: reload, reapply your edit and save again.";
    byId("config-status").dataset.kind = "error";
    document.body.dataset.config = "conflict";
    byId("config-reload").hidden = false;
    byId("config-reload").focus();
    return;
  }
  const field = answer.error?.field;
  const mapped = field?.startsWith("update.ios") ? "ios" : field?.startsWith("update.android") ? "android"
    : field?.startsWith("deepLinks") ? "allowlist" : field?.startsWith("catalog") ? "catalog" : "*";
  showFieldError(form, { ...answer.error, field: mapped });
  byId("config-status").textContent = answer.error.message;
  byId("config-status").dataset.kind = "error";
}

// MARK: Keys

export async function loadKeys() {
  const answer = await api("GET", "/v1/keys");
  if (answer.status !== 200) return;
  const body = clear(byId("keys-rows"));
  for (const key of answer.json.items) {
    const revoke = el("button", { type: "button", class: "danger", "aria-label": `Revoke key ${key.name}` }, "Revoke");
    revoke.addEventListener("click", () => confirmRevoke(key, revoke));
    body.append(el("tr", { "data-key": key.id }, el("td", {}, key.name), el("td", {}, el("code", {}, key.id)),
      el("td", {}, time(key.createdAt)), el("td", {}, key.lastUsedAt ? time(key.lastUsedAt) : "never"), el("td", {}, revoke)));
  }
  document.body.dataset.keys = "loaded";
}

function confirmRevoke(key, button) {
  const cell = button.parentElement;
  const yes = el("button", { type: "button", class: "danger" }, `Revoke ${key.name} now`);
  const no = el("button", { type: "button", class: "quiet" }, "Keep it");
  clear(cell).append(yes, no);
  // The safe choice has the focus: Enter never revokes by accident.
  no.focus();
  no.addEventListener("click", async () => {
    await loadKeys();
    byId("keys-rows").querySelector(`tr[data-key="${CSS.escape(key.id)}"] button`)?.focus();
  });
  yes.addEventListener("click", async () => {
    const answer = await api("DELETE", `/v1/keys/${encodeURIComponent(key.id)}`);
    if (answer.status === 204) loadKeys();
    else if (answer.status !== 401) cell.append(el("p", { class: "error" }, answer.error.message));
  });
}

async function createKey(event) {
  event.preventDefault();
  const form = byId("key-form");
  const answer = await api("POST", "/v1/keys", { name: byId("key-name").value });
  showFieldError(form, answer.error);
  if (answer.status !== 201) return;
  byId("key-name").value = "";
  const box = clear(byId("key-secret"));
  box.hidden = false;
  box.append(el("p", {}, `Key “${answer.json.name}” created. Copy it now: it is shown once, and only its hash is stored.`),
    el("code", { id: "new-key" }, answer.json.key));
  loadKeys();
}

// MARK: Overview

const statusColors = {
  sent: "#16a34a", queued: "#2563eb", sending: "#0891b2", deferred: "#ca8a04", failed: "#dc2626",
  skipped: "#6b7280", expired: "#9333ea",
};
const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attributes, ...children) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

// Stacked bars: one per bucket, one segment per status (all providers), with a text table of
// the same figures per provider for screen readers and exact reading.
function chart(window, buckets, title) {
  const count = Math.round((window.bucketSeconds === 300 ? 3600 : 86400) / window.bucketSeconds);
  const start = new Date(window.since).getTime();
  const columns = Array.from({ length: count }, (_, index) => ({ start: start + index * window.bucketSeconds * 1000, byStatus: {} }));
  for (const bucket of window.buckets) {
    const index = Math.floor((new Date(bucket.start).getTime() - start) / (window.bucketSeconds * 1000));
    if (index < 0 || index >= count) continue;
    columns[index].byStatus[bucket.status] = (columns[index].byStatus[bucket.status] ?? 0) + bucket.count;
  }
  const max = Math.max(1, ...columns.map((c) => Object.values(c.byStatus).reduce((a, b) => a + b, 0)));
  const width = 480;
  const height = 140;
  const barWidth = width / count;
  const picture = svg("svg", { viewBox: `0 0 ${width} ${height + 20}`, role: "img", "aria-label": title, class: "chart" });
  columns.forEach((column, index) => {
    let y = height;
    for (const status of Object.keys(statusColors)) {
      const value = column.byStatus[status] ?? 0;
      if (!value) continue;
      const h = (value / max) * (height - 10);
      y -= h;
      picture.append(svg("rect", { x: index * barWidth + 1, y, width: barWidth - 2, height: h, fill: statusColors[status] },
        svg("title", {}, `${new Date(column.start).toLocaleTimeString()}: ${value} ${status}`)));
    }
  });
  picture.append(svg("text", { x: 0, y: height + 15, class: "axis" }, new Date(start).toLocaleString([],
      window.bucketSeconds === 300 ? { hour: "2-digit", minute: "2-digit" } : { weekday: "short", hour: "2-digit", minute: "2-digit" })),
    svg("text", { x: width, y: height + 15, class: "axis", "text-anchor": "end" }, "now"),
    svg("text", { x: width, y: 10, class: "axis", "text-anchor": "end" }, `max ${max}`));
  const totals = {};
  for (const bucket of window.buckets) {
    const provider = bucket.provider ?? "no device";
    totals[provider] ??= {};
    totals[provider][bucket.status] = (totals[provider][bucket.status] ?? 0) + bucket.count;
  }
  const statuses = Object.keys(statusColors);
  return el("figure", { class: "chart-box" }, el("figcaption", {}, title), picture,
    el("p", { class: "legend" }, statuses.map((s) => el("span", { class: "legend-item" }, el("span", { class: "swatch", "data-status": s }), s))),
    table(["Provider", ...statuses], Object.entries(totals).map(([provider, byStatus]) => [provider, ...statuses.map((s) => String(byStatus[s] ?? 0))]),
      "No deliveries in this window."));
}

export async function loadOverview() {
  const answer = await api("GET", "/v1/stats");
  if (answer.status !== 200) return;
  const s = answer.json;
  const box = clear(byId("overview-body"));
  box.append(
    el("dl", { class: "facts" },
      el("dt", {}, "Users"), el("dd", { id: "stat-users" }, String(s.users)),
      el("dt", {}, "Live streams (this server)"), el("dd", { id: "stat-streams" }, String(s.liveStreams)),
      ...s.devices.flatMap((d) => [el("dt", {}, `${d.provider} devices`), el("dd", {}, `${d.active} active, ${d.inactive} pruned`)])),
    chart(s.deliveries.lastHour, s.deliveries.lastHour.buckets, "Deliveries in the last hour (5-minute bars)"),
    chart(s.deliveries.lastDay, s.deliveries.lastDay.buckets, "Deliveries in the last day (hourly bars)"),
    el("p", { class: "hint" }, "Updated ", time(s.generatedAt)));
  document.body.dataset.overview = "loaded";
}

// Signed out: the user looked up, the config and its edits, the key secret shown once, the key
// list and the figures all go.
export function resetAdmin() {
  lookup++;
  clear(byId("user-result"));
  byId("user-form").reset();
  loadedConfig = null;
  loadedETag = null;
  proposed = null;
  dirty = false;
  byId("config-form").reset();
  clear(byId("config-diff"));
  byId("config-save").hidden = true;
  byId("config-reload").hidden = true;
  byId("config-status").textContent = "";
  byId("config-version").textContent = "";
  clear(byId("key-secret")).hidden = true;
  byId("key-form").reset();
  clear(byId("keys-rows"));
  clear(byId("overview-body"));
  for (const name of ["user", "config", "keys", "overview"]) delete document.body.dataset[name];
}

export function setUpAdmin() {
  byId("user-form").addEventListener("submit", lookUpUser);
  byId("config-form").addEventListener("submit", review);
  // Any edit after a review makes the reviewed diff stale: Save hides until the next review.
  byId("config-form").addEventListener("input", () => {
    dirty = true;
    proposed = null;
    byId("config-save").hidden = true;
    clear(byId("config-diff"));
  });
  byId("config-save").addEventListener("click", save);
  byId("config-reload").addEventListener("click", () => {
    byId("config-reload").hidden = true;
    byId("config-status").textContent = "";
    loadAppConfig({ discardEdits: true });
  });
  byId("key-form").addEventListener("submit", createKey);
}
