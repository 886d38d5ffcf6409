/* Swapping's place picker: three of the seat's unplaced tiles, picked in order, make
   one "place a b c"; the send button carries it in data-action, so the page's client
   sends it like any other control.  Events are delegated on the document, so a new
   render of the board (a fresh picker) needs no re-binding. */
(function () {
  "use strict";

  /* the picks survive a new render of the board (another seat's answer arrives while
     this seat is picking) as long as it is the same round of the same game */
  var saved = { key: null, order: "", focus: "" };

  function picker(el) { return el.closest(".sw-picker"); }

  function chosen(p) {
    var order = p.getAttribute("data-order");
    return order ? order.split(" ") : [];
  }

  function show(p) {
    var picks = chosen(p);
    var first = parseInt(p.getAttribute("data-first") || "1", 10);
    p.querySelectorAll(".sw-pick").forEach(function (b) {
      var k = picks.indexOf(b.getAttribute("data-pick"));
      b.setAttribute("aria-pressed", k >= 0 ? "true" : "false");
      var tag = b.querySelector(".sw-order");
      if (k >= 0) {
        if (!tag) { tag = document.createElement("span"); tag.className = "sw-order"; b.appendChild(tag); }
        tag.textContent = "→" + (first + k);
      } else if (tag) {
        tag.remove();
      }
    });
    var out = p.querySelector(".sw-chosen output");
    if (out) {
      out.textContent = picks.length
        ? picks.map(function (t, i) { return "position " + (first + i) + ": " + t; }).join(", ")
        : "none yet";
    }
    var send = p.querySelector(".sw-send");
    if (send) {
      var text = picks.length === 3 ? "place " + picks.join(" ") : "";
      send.setAttribute("data-action", text);
      send.disabled = picks.length !== 3;
      send.textContent = text || "place " + picks.concat(["…"]).slice(0, 3).join(" ");
      send.setAttribute("aria-label", text ? text + ": send these three tiles" : send.textContent + ": pick three tiles first");
    }
  }

  function restore() {
    var p = document.querySelector(".sw-picker");
    if (!p || p.getAttribute("data-key") !== saved.key) { return; }
    var free = [];
    p.querySelectorAll(".sw-pick").forEach(function (b) { free.push(b.getAttribute("data-pick")); });
    var order = saved.order.split(" ").filter(function (t) { return free.indexOf(t) >= 0; });
    p.setAttribute("data-order", order.join(" "));
    show(p);
    var again = saved.focus && p.querySelector(saved.focus);
    if (again && (!document.activeElement || document.activeElement === document.body)) { again.focus(); }
  }

  if (window.BW && window.BW.onRender) { window.BW.onRender(restore); }

  document.addEventListener("click", function (ev) {
    var target = ev.target instanceof Element ? ev.target : null;
    if (!target) { return; }
    var pick = target.closest(".sw-pick");
    if (pick && picker(pick)) {
      var p = picker(pick);
      var picks = chosen(p);
      var t = pick.getAttribute("data-pick");
      var k = picks.indexOf(t);
      if (k >= 0) { picks.splice(k, 1); } else if (picks.length < 3) { picks.push(t); }
      p.setAttribute("data-order", picks.join(" "));
      saved = { key: p.getAttribute("data-key"), order: picks.join(" "), focus: '.sw-pick[data-pick="' + t + '"]' };
      show(p);
      return;
    }
    var clear = target.closest(".sw-clear");
    if (clear && picker(clear)) {
      picker(clear).setAttribute("data-order", "");
      saved = { key: null, order: "", focus: "" };
      show(picker(clear));
    }
  });

  /* the prompt says how many tiles go to which positions ("choose 3 tiles to place in
     positions 1-3, in order"), where the game's own phrase says only "place" */
  if (window.BW && window.BW.hint) {
    window.BW.hint(function (p, legal, phrases) {
      var first = legal.filter(function (t) { return t.indexOf("place ") === 0; })[0];
      if (!first) { return phrases; }
      var k = first.split(" ").length - 1;
      var row = (p.view || {}).my_row || [];
      var from = row.indexOf(null) + 1 || 1;
      var say = "choose " + k + " tile" + (k === 1 ? "" : "s") + " to place in position" +
        (k === 1 ? " " + from : "s " + from + "-" + (from + k - 1)) + ", in order";
      return phrases.map(function (s) { return s.indexOf("choose tiles to place") === 0 ? say : s; });
    });
  }
})();
