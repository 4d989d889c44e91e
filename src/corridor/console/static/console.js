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
