// Messages: notifications newest first with filters, and one notification's timeline, asked
// again every second while it is open and the tab is visible (every five once every delivery
// has ended), so it moves without a reload. It is redrawn only when the answer changed, and only
// a one-line summary is announced to screen readers.
import { api, byId, clear, el, query, showFieldError, time } from "./dom.js";

let timelineTimer = null;
let openID = null;
let shownAnswer = null;
// The filters of the last Filter press: "Load older" pages through those, not through what has
// been typed since.
let submittedFilters = {};
const finalStatuses = new Set(["sent", "failed", "skipped", "expired"]);

function filters() {
  const local = (id) => {
    const raw = byId(id).value;
    return raw ? new Date(raw).toISOString() : undefined;
  };
  return {
    userId: byId("filter-user").value.trim(), type: byId("filter-type").value.trim(),
    status: byId("filter-status").value, from: local("filter-from"), until: local("filter-until"),
  };
}

function tallyText(t) {
  if (!t.total) return "no push";
  const parts = ["sent", "queued", "sending", "deferred", "failed", "skipped", "expired"]
    .filter((name) => t[name] > 0).map((name) => `${t[name]} ${name}`);
  return parts.join(", ");
}

export async function loadMessages(cursor) {
  const form = byId("messages-filter");
  if (!cursor) submittedFilters = filters();
  const answer = await api("GET", `/v1/notifications${query({ ...submittedFilters, cursor, limit: 50 })}`);
  showFieldError(form, answer.error);
  const body = byId("messages-rows");
  if (!cursor) clear(body);
  if (answer.status !== 200) return;
  for (const item of answer.json.items) {
    const open = el("a", { href: `#messages/${encodeURIComponent(item.id)}` }, item.title);
    const states = [item.readAt ? "read" : "unread", item.deletedAt ? "deleted" : null, item.hidden ? "hidden" : null]
      .filter(Boolean).join(", ");
    body.append(el("tr", { "data-id": item.id },
      el("td", {}, time(item.createdAt)), el("td", {}, item.userId), el("td", {}, item.type),
      el("td", {}, open), el("td", {}, states), el("td", {}, tallyText(item.deliveries))));
  }
  if (answer.json.items.length === 0 && !cursor) {
    body.append(el("tr", {}, el("td", { colspan: 6 }, "No notifications match.")));
  }
  const more = byId("messages-more");
  more.hidden = !answer.json.nextCursor;
  more.dataset.cursor = answer.json.nextCursor ?? "";
  document.body.dataset.messages = "loaded";
}

function entry(label, at, details = []) {
  return el("li", { class: "event", "data-status": label.toLowerCase().split(" ")[0] },
    el("span", { class: "event-label" }, label), " ", time(at),
    details.length ? el("span", { class: "event-details" }, ` · ${details.filter(Boolean).join(" · ")}`) : "");
}

function deliveryEvents(d) {
  const device = d.provider ? `${d.provider} ${d.platform ?? ""} ${d.deviceToken ?? ""}`.trim() : "no device";
  const events = [entry("Queued", d.createdAt, [device])];
  const attempts = d.attempts ? `${d.attempts} attempt${d.attempts === 1 ? "" : "s"}` : null;
  const reason = d.reason ? `reason: ${d.reason}` : null;
  // The provider's HTTP status of the last attempt (null before one, or when no answer came).
  const answered = Number.isInteger(d.providerStatus) ? `${d.provider} answered HTTP ${d.providerStatus}` : null;
  switch (d.status) {
    case "queued":
      if (d.attempts > 0) events.push(entry("Retrying", d.updatedAt, [attempts, answered, reason, d.nextAttemptAt ? `next at ${new Date(d.nextAttemptAt).toLocaleString()}` : null]));
      break;
    case "sending": events.push(entry("Sending", d.updatedAt, [attempts])); break;
    case "deferred": events.push(entry("Deferred", d.updatedAt, [reason ?? "quiet hours", d.nextAttemptAt ? `until ${new Date(d.nextAttemptAt).toLocaleString()}` : null])); break;
    case "sent": events.push(entry("Sent", d.updatedAt, [attempts, answered, d.providerMessageId ? `provider id ${d.providerMessageId}` : null])); break;
    case "failed": events.push(entry("Failed", d.updatedAt, [attempts, answered, reason])); break;
    case "skipped": events.push(entry("Skipped", d.updatedAt, [reason])); break;
    case "expired": events.push(entry("Expired", d.updatedAt, [attempts, answered, reason])); break;
    default: events.push(entry(d.status, d.updatedAt, [reason]));
  }
  if (d.deviceActive === false) events.push(entry("Token pruned", d.updatedAt, ["the device no longer receives pushes"]));
  return el("li", { class: "device", "data-delivery": d.id, "data-status": d.status },
    el("strong", {}, device), el("ol", {}, events));
}

// Asks for the open notification and its deliveries, redraws when they changed, and asks again:
// after a second while any delivery can still move, after five once all have ended, never while
// the tab is hidden (visibilitychange starts it again) or after the timeline closed.
async function refreshTimeline() {
  const id = openID;
  if (!id) return;
  const [notification, deliveries] = await Promise.all([
    api("GET", `/v1/notifications/${encodeURIComponent(id)}`),
    api("GET", `/v1/notifications/${encodeURIComponent(id)}/deliveries`),
  ]);
  if (id !== openID) return;
  const items = deliveries.json?.items ?? [];
  const answer = JSON.stringify([notification.status, notification.json, deliveries.status, items]);
  if (answer !== shownAnswer) {
    shownAnswer = answer;
    drawTimeline(notification, deliveries, items);
  }
  if (notification.status === 401 || deliveries.status === 401) return;
  const settled = notification.status === 200 && items.every((d) => finalStatuses.has(d.status));
  scheduleRefresh(settled ? 5000 : 1000);
}

function scheduleRefresh(delay) {
  clearTimeout(timelineTimer);
  timelineTimer = null;
  if (!openID || document.hidden) return;
  timelineTimer = setTimeout(refreshTimeline, delay);
}

function drawTimeline(notification, deliveries, items) {
  const box = clear(byId("timeline-body"));
  const summary = byId("timeline-status");
  if (notification.status !== 200) {
    box.append(el("p", { class: "error" }, notification.error.message));
    summary.textContent = "";
    return;
  }
  if (deliveries.status !== 200) box.append(el("p", { class: "error" }, deliveries.error.message));
  const n = notification.json;
  box.append(
    el("h2", { id: "timeline-title" }, n.title),
    el("p", {}, `${n.type} to ${n.userId} · `, n.readAt ? "read " : "unread", n.readAt ? time(n.readAt) : "",
      n.deleted ? " · deleted" : ""),
    el("p", { class: "body-text" }, n.body),
    el("ol", { class: "timeline" }, entry("Created", n.createdAt, [n.push?.send ? "push requested" : "inbox only"]),
      ...items.map(deliveryEvents)));
  byId("timeline").dataset.statuses = items.map((d) => d.status).join(" ");
  const counts = {};
  for (const d of items) counts[d.status] = (counts[d.status] ?? 0) + 1;
  const parts = Object.entries(counts).map(([status, count]) => `${count} ${status}`);
  summary.textContent = items.length
    ? `${items.length} deliver${items.length === 1 ? "y" : "ies"}: ${parts.join(", ")}.` : "No deliveries.";
}

export function openTimeline(id) {
  if (openID === id) return;
  openID = id;
  shownAnswer = null;
  clear(byId("timeline-body"));
  byId("timeline-status").textContent = "";
  delete byId("timeline").dataset.statuses;
  byId("timeline").hidden = false;
  clearTimeout(timelineTimer);
  refreshTimeline();
}

export function closeTimeline() {
  openID = null;
  shownAnswer = null;
  clearTimeout(timelineTimer);
  timelineTimer = null;
  byId("timeline").hidden = true;
}

// Signed out: no timer left, no rows, no filters of the last session.
export function resetMessages() {
  closeTimeline();
  clear(byId("timeline-body"));
  byId("timeline-status").textContent = "";
  clear(byId("messages-rows"));
  byId("messages-filter").reset();
  byId("messages-more").hidden = true;
  submittedFilters = {};
  delete document.body.dataset.messages;
}

export function setUpMessages() {
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) clearTimeout(timelineTimer);
    else if (openID) refreshTimeline();
  });
  byId("messages-filter").addEventListener("submit", (event) => { event.preventDefault(); loadMessages(); });
  byId("messages-more").addEventListener("click", () => loadMessages(byId("messages-more").dataset.cursor));
}
