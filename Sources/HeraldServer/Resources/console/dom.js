// The console's one DOM and HTTP toolkit. Every string from the server or a person is placed
// with text nodes (never parsed as HTML); the one exception, the detail preview's sanitized
// HTML, goes through sanitizedFragment below.

export const byId = (id) => document.getElementById(id);

// el("p", {class: "x", "data-field": "title"}, "text", child): attributes by setAttribute,
// children as nodes, strings as text nodes. `on*` attributes are refused: handlers are attached
// with addEventListener, and the CSP refuses inline ones anyway.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.toLowerCase().startsWith("on")) throw new Error(`refused attribute ${name}`);
    node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

// A time in the viewer's time zone, with the exact UTC instant as its title.
export function time(iso) {
  if (!iso) return el("span", {}, "—");
  const date = new Date(iso);
  return el("time", { datetime: iso, title: date.toISOString() }, date.toLocaleString());
}

let csrfToken = null;
let onSignedOut = () => {};

export function setSession(token, signedOut) {
  csrfToken = token;
  if (signedOut) onSignedOut = signedOut;
}

// One call to this origin's API: JSON in and out, the session cookie and, for anything that
// changes state, the CSRF token. A 401 means the session ended: the console signs out.
export async function api(method, path, body, extraHeaders = {}) {
  const headers = { Accept: "application/json", ...extraHeaders };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (csrfToken && method !== "GET" && method !== "HEAD") headers["X-CSRF-Token"] = csrfToken;
  let response;
  try {
    response = await fetch(path, {
      method, headers, credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { status: 0, json: null, headers: new Headers(), error: { message: "The server did not answer." } };
  }
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  const error = response.ok ? null : (json?.error ?? { message: `The server answered ${response.status}.` });
  if (response.status === 401 && path !== "/console/session") onSignedOut("Your session ended. Sign in again.");
  return { status: response.status, json, headers: response.headers, error };
}

export function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : "";
}

// The detail page's HTML as the server's sanitizer stored it, parsed in an inert document (no
// script runs, no image loads) and copied over element by element: tags outside the detail
// page's small set become their text, and only href, src and alt survive (see allowedTarget).
// The server already did this; this is the second lock on the same door.
const allowedTags = new Set([
  "P", "BR", "B", "STRONG", "I", "EM", "U", "S", "SMALL", "SUB", "SUP", "UL", "OL", "LI", "H1", "H2", "H3",
  "H4", "H5", "H6", "BLOCKQUOTE", "CODE", "PRE", "A", "IMG", "SPAN", "DIV", "HR",
]);

// The server sanitizer's URL rule: links are http, https, mailto or relative, images https
// only. A scheme is whatever comes before a `:` that precedes any `/`, `?` or `#`, read as the
// browser reads it (tabs and newlines removed, control characters and spaces trimmed), so
// `java\tscript:` is a scheme that is not allowed, never a relative path.
const linkSchemes = new Set(["http", "https", "mailto"]);
const imageSchemes = new Set(["https"]);
function allowedTarget(value, schemes) {
  if (value === null) return null;
  const url = value.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
  const scheme = /^([^:/?#]*):/.exec(url);
  if (scheme) return schemes.has(scheme[1].toLowerCase()) ? url : null;
  return schemes === imageSchemes ? null : url;
}

export function sanitizedFragment(html) {
  const parsed = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html");
  const fragment = document.createDocumentFragment();
  const copy = (source, target) => {
    for (const child of source.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        target.append(document.createTextNode(child.textContent));
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        if (!allowedTags.has(child.tagName)) {
          if (child.tagName !== "SCRIPT" && child.tagName !== "STYLE") copy(child, target);
          continue;
        }
        const node = document.createElement(child.tagName.toLowerCase());
        const href = node.tagName === "A" ? allowedTarget(child.getAttribute("href"), linkSchemes) : null;
        const src = node.tagName === "IMG" ? allowedTarget(child.getAttribute("src"), imageSchemes) : null;
        if (node.tagName === "IMG" && src === null) continue;
        if (href !== null) node.setAttribute("href", href);
        if (src !== null) node.setAttribute("src", src);
        if (child.hasAttribute("alt")) node.setAttribute("alt", child.getAttribute("alt"));
        if (node.tagName === "A") node.setAttribute("rel", "noopener noreferrer");
        copy(child, node);
        target.append(node);
      }
    }
  };
  copy(parsed.body, fragment);
  return fragment;
}

// Shows each server error beside its field: the element with data-error-for="<field>" (or the
// nearest one for a prefix: data.orderId -> data, recipients[3] -> recipients).
export function showFieldError(form, error) {
  for (const node of form.querySelectorAll("[data-error-for]")) node.textContent = "";
  if (!error) return null;
  let field = error.field ?? "";
  while (field) {
    const target = form.querySelector(`[data-error-for="${CSS.escape(field)}"]`);
    if (target) {
      target.textContent = error.message;
      return target;
    }
    const cut = Math.max(field.lastIndexOf("."), field.lastIndexOf("["));
    field = cut > 0 ? field.slice(0, cut) : "";
  }
  const general = form.querySelector('[data-error-for="*"]');
  if (general) general.textContent = error.message;
  return general;
}

// A fresh Idempotency-Key: 128 random bits in hex (getRandomValues works on plain HTTP too).
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
