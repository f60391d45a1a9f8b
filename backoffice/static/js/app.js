// Behaviour that used to sit in inline attributes, which the Content-Security-Policy
// (script-src 'self') no longer runs.
//   <input type="checkbox" data-select-all="input[name=t]">  checks or clears those boxes
//   <form data-confirm="… {value} …" data-confirm-field="target">  asks before submitting
document.addEventListener("click", function (event) {
  const box = event.target.closest("input[data-select-all]");
  if (box) {
    document.querySelectorAll(box.dataset.selectAll).forEach(function (other) {
      other.checked = box.checked;
    });
  }
});
document.addEventListener("submit", function (event) {
  const form = event.target;
  if (!form.dataset || !form.dataset.confirm) {
    return;
  }
  const field = form.dataset.confirmField ? form.elements[form.dataset.confirmField] : null;
  const question = form.dataset.confirm.replace("{value}", field ? field.value : "");
  if (!window.confirm(question)) {
    event.preventDefault();
  }
});
//   <button data-open-dialog="id">  opens that <dialog>
document.addEventListener("click", function (event) {
  const opener = event.target.closest("[data-open-dialog]");
  if (opener) {
    document.getElementById(opener.dataset.openDialog).showModal();
  }
});
// Keyboard shortcuts of a page that lists them in <dialog data-shortcuts>: each element with
// data-shortcut="key" is focused (a field) or clicked (a link); "?" opens the list; Escape
// leaves a text box. Ignored while typing or with a modifier held.
document.addEventListener("keydown", function (event) {
  const list = document.querySelector("dialog[data-shortcuts]");
  if (!list) {
    return;
  }
  const typing = event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
  if (event.key === "Escape" && typing) {
    event.target.blur();
    return;
  }
  if (typing || event.ctrlKey || event.metaKey || event.altKey) {
    return;
  }
  if (event.key === "?") {
    event.preventDefault();
    list.showModal();
    return;
  }
  const target = document.querySelector('[data-shortcut="' + CSS.escape(event.key) + '"]');
  if (!target) {
    return;
  }
  event.preventDefault();
  if (target.matches("a, button")) {
    target.click();
  } else {
    target.focus();
  }
});
