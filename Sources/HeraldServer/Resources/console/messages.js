// Messages: notifications newest first with filters, and one notification's timeline, asked
// again every second while it is open so it moves without a reload.
import { api, byId, clear, el, query, showFieldError, time } from "./dom.js";

let timelineTimer = null;
let openID = null;

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
  const answer = await api("GET", `/v1/notifications${query({ ...filters(), cursor, limit: 50 })}`);
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
  more.onclick = null;
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
  switch (d.status) {
    case "queued":
      if (d.attempts > 0) events.push(entry("Retrying", d.updatedAt, [attempts, reason, d.nextAttemptAt ? `next at ${new Date(d.nextAttemptAt).toLocaleString()}` : null]));
      break;
    case "sending": events.push(entry("Sending", d.updatedAt, [attempts])); break;
    case "deferred": events.push(entry("Deferred", d.updatedAt, [reason ?? "quiet hours", d.nextAttemptAt ? `until ${new Date(d.nextAttemptAt).toLocaleString()}` : null])); break;
    case "sent": events.push(entry("Sent", d.updatedAt, [attempts, d.providerMessageId ? `provider id ${d.providerMessageId}` : null])); break;
    case "failed": events.push(entry("Failed", d.updatedAt, [attempts, reason])); break;
    case "skipped": events.push(entry("Skipped", d.updatedAt, [reason])); break;
    case "expired": events.push(entry("Expired", d.updatedAt, [attempts, reason])); break;
    default: events.push(entry(d.status, d.updatedAt, [reason]));
  }
  if (d.deviceActive === false) events.push(entry("Token pruned", d.updatedAt, ["the device no longer receives pushes"]));
  return el("li", { class: "device", "data-delivery": d.id, "data-status": d.status },
    el("strong", {}, device), el("ol", {}, events));
}

async function refreshTimeline() {
  const id = openID;
  const [notification, deliveries] = await Promise.all([
    api("GET", `/v1/notifications/${encodeURIComponent(id)}`),
    api("GET", `/v1/notifications/${encodeURIComponent(id)}/deliveries`),
  ]);
  if (id !== openID) return;
  const box = clear(byId("timeline"));
  if (notification.status !== 200) {
    box.append(el("p", { class: "error" }, notification.error.message));
    return;
  }
  const n = notification.json;
  box.append(
    el("h2", { id: "timeline-title" }, n.title),
    el("p", {}, `${n.type} to ${n.userId} · `, n.readAt ? "read " : "unread", n.readAt ? time(n.readAt) : "",
      n.deleted ? " · deleted" : ""),
    el("p", { class: "body-text" }, n.body),
    el("ol", { class: "timeline" }, entry("Created", n.createdAt, [n.push?.send ? "push requested" : "inbox only"]),
      ...(deliveries.json?.items ?? []).map(deliveryEvents)));
  box.dataset.statuses = (deliveries.json?.items ?? []).map((d) => d.status).join(" ");
}

export function openTimeline(id) {
  openID = id;
  byId("timeline").hidden = false;
  clearInterval(timelineTimer);
  refreshTimeline();
  timelineTimer = setInterval(() => { if (openID) refreshTimeline(); }, 1000);
}

export function closeTimeline() {
  openID = null;
  clearInterval(timelineTimer);
  byId("timeline").hidden = true;
}

export function setUpMessages() {
  byId("messages-filter").addEventListener("submit", (event) => { event.preventDefault(); loadMessages(); });
  byId("messages-more").addEventListener("click", () => loadMessages(byId("messages-more").dataset.cursor));
}
