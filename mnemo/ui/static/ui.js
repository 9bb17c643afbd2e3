// mnemo web UI: small progressive enhancements; every page works without this file.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  // A confirmation input (data-must-equal) keeps its button (data-enables) disabled until the
  // typed text matches; the server checks the same.
  for (const input of document.querySelectorAll("input[data-must-equal]")) {
    const button = document.getElementById(input.dataset.enables);
    if (!button) continue;
    const sync = () => { button.disabled = input.value !== input.dataset.mustEqual; };
    input.addEventListener("input", sync);
    sync();
  }
  // A filter select (data-autosubmit) applies as soon as it changes.
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.requestSubmit());
  }
});
