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
