/* Domino's placement picker: click two neighbouring free cells on the board, then one
   of your dominoes, then which half to hide.  The last buttons carry the full notation
   in data-action (taken from the legal list the board was rendered with), so the page's
   client sends them like any other control.  Events are delegated on the document: a
   new render brings a fresh picker and needs no re-binding. */
(function () {
  "use strict";

  /* the choice survives a new render of the board while nothing was placed since */
  var saved = { key: null, cells: "", domino: "" };

  var PLACE = /^\((\d),(\d)\) ([A-I][R-Z]):([A-I][R-Z]) hide ([A-I][R-Z])$/;

  function moves(p) {
    if (!p._moves) {
      var list = [];
      try { list = JSON.parse(p.getAttribute("data-legal") || "[]"); } catch (e) { list = []; }
      p._moves = list.map(function (text) {
        var m = PLACE.exec(text);
        return m ? { text: text, a: m[1], b: m[2], c1: m[3], c2: m[4], hide: m[5] } : null;
      }).filter(Boolean);
    }
    return p._moves;
  }

  function onSpot(m, x, y) { return (m.c1 === x && m.c2 === y) || (m.c1 === y && m.c2 === x); }
  function has(m, x) { return m.c1 === x || m.c2 === x; }
  function mate(m, x) { return m.c1 === x ? m.c2 : m.c1; }

  function pickerFor(el) {
    var board = el.closest(".dm-board");
    return board ? board.querySelector(".dm-picker") : null;
  }

  function say(p, text) {
    var step = p.querySelector(".dm-step");
    if (step) { step.textContent = text; }
  }

  function button(label, aria, cls) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = cls;
    b.textContent = label;
    b.setAttribute("aria-label", aria);
    return b;
  }

  function remember(p) {
    saved = { key: p.getAttribute("data-key"), cells: p.getAttribute("data-cells") || "",
              domino: p.getAttribute("data-domino") || "" };
  }

  function restore() {
    var p = document.querySelector(".dm-picker");
    if (!p || p.getAttribute("data-key") !== saved.key || !saved.cells) { return; }
    var cells = saved.cells.split(" ");
    var ok = moves(p).some(function (m) {
      return cells.length === 1 ? has(m, cells[0]) : onSpot(m, cells[0], cells[1]);
    });
    if (!ok) { return; }
    p.setAttribute("data-cells", saved.cells);
    p.setAttribute("data-domino", saved.domino);
    show(p);
  }

  if (window.BW && window.BW.onRender) { window.BW.onRender(restore); }

  function show(p) {
    var board = p.closest(".dm-board");
    var sel = (p.getAttribute("data-cells") || "").split(" ").filter(Boolean);
    var dom = p.getAttribute("data-domino") || "";
    var all = moves(p);
    var partners = {};
    if (sel.length === 1) {
      all.forEach(function (m) { if (has(m, sel[0])) { partners[mate(m, sel[0])] = true; } });
    }
    board.querySelectorAll(".dm-spot").forEach(function (b) {
      var cell = b.getAttribute("data-cell");
      b.setAttribute("aria-pressed", sel.indexOf(cell) >= 0 ? "true" : "false");
      b.classList.toggle("dm-partner", !!partners[cell]);
    });
    var box = p.querySelector(".dm-choice");
    box.textContent = "";
    box.hidden = true;
    if (sel.length === 0) {
      say(p, "Click two neighbouring free cells on the board (those with a name), then a domino, then the half to hide.");
      return;
    }
    if (sel.length === 1) {
      say(p, sel[0] + " chosen: now click a neighbouring highlighted cell (" + Object.keys(partners).sort().join(", ") + ").");
      return;
    }
    var here = all.filter(function (m) { return onSpot(m, sel[0], sel[1]); });
    box.hidden = false;
    if (!dom) {
      say(p, "On " + sel.join(":") + ": choose a domino.");
      var seen = {};
      here.forEach(function (m) {
        var key = m.a + "," + m.b;
        if (seen[key]) { return; }
        seen[key] = true;
        var b = button("(" + key + ")", "(" + key + "): domino " + m.a + "-" + m.b, "dm-pickdomino");
        b.setAttribute("data-domino", key);
        box.appendChild(b);
      });
      return;
    }
    say(p, "Domino (" + dom + ") on " + sel.join(":") + ": choose where each number goes and which to hide.");
    here.filter(function (m) { return m.a + "," + m.b === dom; }).forEach(function (m) {
      var hidden = m.hide === m.c1 ? m.a : m.b;
      var b = button(m.text,
        m.text + ": " + m.a + " on " + m.c1 + " and " + m.b + " on " + m.c2 + ", hiding the " + hidden + " on " + m.hide,
        "dm-final");
      b.setAttribute("data-action", m.text);
      box.appendChild(b);
    });
  }

  document.addEventListener("click", function (ev) {
    var target = ev.target instanceof Element ? ev.target : null;
    if (!target) { return; }
    var spot = target.closest(".dm-spot");
    var p;
    if (spot && (p = pickerFor(spot))) {
      var cell = spot.getAttribute("data-cell");
      var sel = (p.getAttribute("data-cells") || "").split(" ").filter(Boolean);
      var all = moves(p);
      if (sel.length === 1 && sel[0] === cell) {
        sel = [];
      } else if (sel.length === 1 && all.some(function (m) { return onSpot(m, sel[0], cell); })) {
        sel = [sel[0], cell];
      } else if (all.some(function (m) { return has(m, cell); })) {
        sel = [cell];
      }
      p.setAttribute("data-cells", sel.join(" "));
      p.setAttribute("data-domino", "");
      remember(p);
      show(p);
      return;
    }
    var d = target.closest(".dm-pickdomino");
    if (d && (p = d.closest(".dm-picker"))) {
      p.setAttribute("data-domino", d.getAttribute("data-domino") || "");
      remember(p);
      show(p);
      var first = p.querySelector(".dm-final");
      if (first) { first.focus(); }
      return;
    }
    var reset = target.closest(".dm-reset");
    if (reset && (p = reset.closest(".dm-picker"))) {
      p.setAttribute("data-cells", "");
      p.setAttribute("data-domino", "");
      remember(p);
      show(p);
    }
  });
})();
