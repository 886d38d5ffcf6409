/* Grouping Black & White boards: the grouping builder and the ante-proposal picker.
 *
 * The board is re-rendered on every push, so the grouping being built is kept here
 * (per set) and put back after each render: a push in the middle of a choice (the
 * opponent grouping, a proposal) does not lose it.  The submit button's data-action
 * always holds the grouping's notation; bw.js sends it on click.  A grouping the
 * engine would refuse (wrong sizes, or beyond the Final's regrouping limits) is not
 * offered: the button is disabled and the check line says why.
 */
(function () {
  "use strict";
  var kept = {}; // data-key -> {tile: group}

  function builderState(fs) {
    var sel = {};
    fs.querySelectorAll(".gb-gbtn[aria-pressed='true']").forEach(function (b) {
      sel[b.getAttribute("data-tile")] = b.getAttribute("data-group");
    });
    return sel;
  }

  function notation(sel) {
    var g = { A: [], B: [], C: [] };
    for (var t = 0; t < 9; t++) { if (sel[t]) g[sel[t]].push(t); }
    return { text: "group A=" + g.A.join(",") + " B=" + g.B.join(",") + " C=" + g.C.join(","), sizes: g };
  }

  function refresh(fs) {
    var sel = builderState(fs);
    kept[fs.getAttribute("data-key")] = sel;
    var n = notation(sel);
    var legal = (fs.getAttribute("data-legal") || "").split("|");
    var ok = legal.indexOf(n.text) >= 0;
    var check = fs.querySelector("[data-role='check']");
    var submit = fs.querySelector("[data-role='submit']");
    var sizes = "A " + n.sizes.A.length + "/2 · B " + n.sizes.B.length + "/3 · C " + n.sizes.C.length + "/4";
    var why = "";
    if (!ok) {
      if (n.sizes.A.length !== 2 || n.sizes.B.length !== 3 || n.sizes.C.length !== 4) {
        why = " — A needs 2 tiles, B 3 and C 4";
      } else {
        why = " — not allowed now (too many tiles moved from your groups)";
      }
    }
    if (check) {
      check.textContent = sizes + why;
      check.classList.toggle("gb-bad", !ok);
    }
    if (submit) {
      submit.textContent = n.text;
      submit.setAttribute("data-action", n.text);
      submit.setAttribute("aria-label", "Submit " + n.text);
      submit.disabled = !ok;
    }
  }

  function bind() {
    document.querySelectorAll(".gb-builder").forEach(function (fs) {
      var sel = kept[fs.getAttribute("data-key")];
      if (sel) {
        fs.querySelectorAll(".gb-gbtn").forEach(function (b) {
          var on = sel[b.getAttribute("data-tile")] === b.getAttribute("data-group");
          b.setAttribute("aria-pressed", on ? "true" : "false");
        });
      }
      refresh(fs);
    });
    document.querySelectorAll("input[data-role='propose']").forEach(syncPropose);
  }

  function syncPropose(input) {
    var send = input.closest(".gb-picker").querySelector("[data-role='propose-send']");
    var v = parseInt(input.value, 10);
    var lo = parseInt(input.min, 10), hi = parseInt(input.max, 10);
    var ok = !isNaN(v) && v >= lo && v <= hi;
    var text = "propose ante " + (ok ? v : lo);
    send.setAttribute("data-action", text);
    send.textContent = text;
    send.setAttribute("aria-label", text + ": propose the ante in the box");
    send.disabled = !ok;
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest(".gb-gbtn") : null;
    if (!b) return;
    var fs = b.closest(".gb-builder");
    var t = b.getAttribute("data-tile");
    fs.querySelectorAll(".gb-gbtn[data-tile='" + t + "']").forEach(function (o) {
      o.setAttribute("aria-pressed", o === b ? "true" : "false");
    });
    refresh(fs);
  });

  document.addEventListener("input", function (e) {
    if (e.target.matches && e.target.matches("input[data-role='propose']")) syncPropose(e.target);
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && e.target.matches && e.target.matches("input[data-role='propose']")) {
      e.preventDefault();
      var send = e.target.closest(".gb-picker").querySelector("[data-role='propose-send']");
      if (!send.disabled) send.click();
    }
  });

  if (window.BW && typeof window.BW.onRender === "function") window.BW.onRender(bind);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bind);
  else bind();
})();
