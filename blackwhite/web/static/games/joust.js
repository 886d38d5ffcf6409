/* Joust Black & White boards: the bid picker.  The "bid N" button's data-action
 * follows the number typed (bw.js sends it on click); a number outside the legal
 * range disables it.  Enter in the box sends the bid.  The board is re-rendered on
 * every push, so which sets' lots (and the sales list) the player opened or closed is
 * kept here and put back. */
(function () {
  "use strict";
  var opened = {}; // details data-key -> open?

  function sync(input) {
    var send = input.closest(".jb-picker").querySelector("[data-role='bid-send']");
    var v = parseInt(input.value, 10);
    var lo = parseInt(input.min, 10), hi = parseInt(input.max, 10);
    var ok = /^\s*[0-9]+\s*$/.test(input.value) && v >= lo && v <= hi;
    var text = "bid " + (ok ? v : lo);
    send.setAttribute("data-action", text);
    send.textContent = text;
    send.setAttribute("aria-label", text + ": bid the number in the box");
    send.disabled = !ok;
  }

  function bind() {
    document.querySelectorAll("input[data-role='bid']").forEach(sync);
    document.querySelectorAll(".jb-board details[data-key]").forEach(function (d) {
      var key = d.getAttribute("data-key");
      if (Object.prototype.hasOwnProperty.call(opened, key)) { d.open = opened[key]; }
    });
  }

  // "toggle" does not bubble: listen in the capture phase
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (d && d.matches && d.matches(".jb-board details[data-key]")) { opened[d.getAttribute("data-key")] = d.open; }
  }, true);

  document.addEventListener("input", function (e) {
    if (e.target.matches && e.target.matches("input[data-role='bid']")) sync(e.target);
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && e.target.matches && e.target.matches("input[data-role='bid']")) {
      e.preventDefault();
      var send = e.target.closest(".jb-picker").querySelector("[data-role='bid-send']");
      if (!send.disabled) send.click();
    }
  });

  if (window.BW && typeof window.BW.onRender === "function") window.BW.onRender(bind);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bind);
  else bind();
})();
