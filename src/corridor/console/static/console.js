// The console's one script (no inline script: the Content-Security-Policy forbids it).
// Every htmx request carries the session's CSRF token, read from <meta name="corridor-csrf">.
"use strict";
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="corridor-csrf"]');
  if (meta) {
    event.detail.headers["X-Corridor-CSRF"] = meta.getAttribute("content");
  }
});
// A list that reloads itself (data-poll) waits while the person is working in it: no
// reload while focus is inside it or one of its fields holds typed text.
document.addEventListener("htmx:beforeRequest", function (event) {
  var region = event.detail.elt;
  if (!region || !region.hasAttribute || !region.hasAttribute("data-poll")) {
    return;
  }
  var typed = Array.prototype.some.call(
    region.querySelectorAll("input[type=text], textarea"),
    function (field) { return field.value !== ""; }
  );
  if (typed || region.contains(document.activeElement)) {
    event.preventDefault();
  }
});
// The assistant panel: a run that has not ended is followed over its SSE stream (the
// session cookie authenticates GET /v1/assistant/runs/{id}/events). Its text appears as it
// is written; once the run waits for a confirmation or ends, the page reloads to show the
// messages and the confirmation cards as the server renders them.
document.addEventListener("DOMContentLoaded", function () {
  var live = document.querySelector("[data-run-events]");
  if (!live || typeof EventSource === "undefined") {
    return;
  }
  var text = live.querySelector("[data-run-text]");
  var state = live.querySelector("[data-run-state]");
  var stream = new EventSource(live.getAttribute("data-run-events"));
  var settled = ["awaiting_confirmation", "completed", "failed", "cancelled"];
  stream.addEventListener("text.delta", function (event) {
    var data = JSON.parse(event.data);
    text.textContent += data.text;
  });
  stream.addEventListener("run.status", function (event) {
    var status = JSON.parse(event.data).status;
    state.textContent = status.replace(/_/g, " ");
    if (settled.indexOf(status) !== -1) {
      stream.close();
      window.location.replace(window.location.pathname);
    }
  });
});
// Narrow screens: the navigation folds behind the Menu button (console.css shows the
// button below 900 px only).
document.addEventListener("DOMContentLoaded", function () {
  var toggle = document.querySelector(".menu-toggle");
  if (!toggle) {
    return;
  }
  toggle.addEventListener("click", function () {
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    toggle.closest(".topbar").classList.toggle("open", open);
  });
});
