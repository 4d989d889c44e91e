// The console's one script (no inline script: the Content-Security-Policy forbids it).
// Every htmx request carries the session's CSRF token, read from <meta name="corridor-csrf">.
"use strict";
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="corridor-csrf"]');
  if (meta) {
    event.detail.headers["X-Corridor-CSRF"] = meta.getAttribute("content");
  }
});
