// Find in the transcript of a trial page: the messages (tool calls and results included)
// that contain the words typed are marked, the others dimmed, and Enter or "Next" scrolls to
// the next one, opening a collapsed tool call that holds it. No server round trip.
(function () {
  "use strict";
  function setUp() {
    var input = document.querySelector("[data-find-input]");
    var list = document.querySelector("[data-testid=conversation]");
    if (!input || !list) { return; }
    var status = document.querySelector("[data-find-status]");
    var next = document.querySelector("[data-find-next]");
    var messages = Array.prototype.slice.call(list.querySelectorAll("li.msg"));
    var found = [];
    var at = -1;
    function show(index) {
      if (!found.length) { return; }
      at = (index + found.length) % found.length;
      found.forEach(function (m) { m.classList.remove("find-current"); });
      var message = found[at];
      message.classList.add("find-current");
      message.querySelectorAll("details").forEach(function (d) {
        if (d.textContent.toLowerCase().indexOf(input.value.trim().toLowerCase()) >= 0) { d.open = true; }
      });
      message.scrollIntoView({ block: "center" });
      status.textContent = status.dataset.template
        .replace("__N__", String(at + 1)).replace("__M__", String(found.length));
    }
    function search() {
      var query = input.value.trim().toLowerCase();
      found = [];
      at = -1;
      messages.forEach(function (m) {
        var hit = query !== "" && m.textContent.toLowerCase().indexOf(query) >= 0;
        m.classList.toggle("find-hit", hit);
        m.classList.toggle("find-dim", query !== "" && !hit);
        m.classList.remove("find-current");
        if (hit) { found.push(m); }
      });
      if (query === "") { status.textContent = ""; }
      else if (!found.length) { status.textContent = status.dataset.none; }
      else { show(0); }
    }
    input.addEventListener("input", search);
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { event.preventDefault(); show(at + 1); }
    });
    if (next) { next.addEventListener("click", function () { show(at + 1); }); }
    var toggle = document.querySelector("[data-toggle-calls]");
    if (toggle) {
      toggle.addEventListener("click", function () {
        var calls = list.querySelectorAll("details.toolcall");
        var open = Array.prototype.some.call(calls, function (d) { return d.open; });
        calls.forEach(function (d) { d.open = !open; });
      });
    }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", setUp); }
  else { setUp(); }
})();
