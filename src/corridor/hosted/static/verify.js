// The hosted verification page's uploads: each file goes to its own signed upload URL
// (POST …/uploads for it, PUT the bytes, POST …/confirm). No framework, no build step.
"use strict";

(function () {
  const form = document.getElementById("verification");
  if (!form) return;
  const session = form.dataset.session;
  const token = form.dataset.token;
  const csrf = form.dataset.csrf;
  const submit = document.getElementById("submit");
  let inFlight = 0;

  function call(path, body) {
    return fetch(`/verify/${session}${path}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Verification-Token": token,
        "X-Corridor-CSRF": csrf,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (response) => {
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(answer.message || `Upload failed (${response.status})`);
      return answer;
    });
  }

  async function upload(input) {
    const file = input.files && input.files[0];
    const status = form.querySelector(`[data-status-for="${input.dataset.purpose}"]`);
    if (!file) return;
    inFlight += 1;
    submit.disabled = true;
    status.className = "status busy";
    status.textContent = `Uploading ${file.name}…`;
    try {
      const target = await call("/uploads", {
        purpose: input.dataset.purpose,
        fileName: file.name,
        contentType: file.type || "application/octet-stream",
        size: file.size,
      });
      const headers = Object.assign({}, target.uploadHeaders);
      delete headers["Content-Length"]; // the browser sets it
      const put = await fetch(target.uploadUrl, { method: "PUT", headers, body: file });
      if (!put.ok) {
        const answer = await put.json().catch(() => ({}));
        throw new Error(answer.message || `Upload failed (${put.status})`);
      }
      await call(`/uploads/${target.documentId}/confirm`);
      status.className = "status done";
      status.textContent = `Uploaded: ${file.name}`;
    } catch (error) {
      status.className = "status failed";
      status.textContent = error.message;
      input.value = "";
    } finally {
      inFlight -= 1;
      submit.disabled = inFlight > 0;
    }
  }

  form.querySelectorAll("input[type=file][data-purpose]").forEach((input) => {
    input.addEventListener("change", () => upload(input));
  });
})();
