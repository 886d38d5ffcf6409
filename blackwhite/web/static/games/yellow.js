/* Black and Yellow's submission builder: boost and exchange steps are added in order
   (each checked against the seat as the earlier steps leave it, as the rules check
   them), and every "play N" button then carries the whole submission in data-action,
   so the page's client sends it like any other control.  Events are delegated on the
   document: a new render brings a fresh builder and needs no re-binding. */
(function () {
  "use strict";

  /* the steps survive a new render of the board within the same round */
  var saved = { key: null, steps: "" };

  function restore() {
    var f = document.querySelector(".ye-builder");
    if (!f || f.getAttribute("data-key") !== saved.key || !saved.steps) { return; }
    f.setAttribute("data-steps", saved.steps);
    var sim = simulate(f);
    if (!sim.ok) { f.setAttribute("data-steps", ""); return; }  // the seat changed under us
    show(f);
  }

  if (window.BW && window.BW.onRender) { window.BW.onRender(restore); }

  function steps(f) {
    var s = f.getAttribute("data-steps");
    return s ? s.split(" ") : [];
  }

  /* The seat after the steps: inventory (a list of tile values), yellow, garnets, and
     whether every step was allowed when it came. */
  function simulate(f) {
    var inv = (f.getAttribute("data-inv") || "").split(" ").filter(function (x) { return x !== ""; })
      .map(function (x) { return parseInt(x, 10); });
    var y = parseInt(f.getAttribute("data-yellow") || "0", 10);
    var g = parseInt(f.getAttribute("data-garnets") || "0", 10);
    var ok = true;
    steps(f).forEach(function (st) {
      if (st === "boost") { ok = ok && g >= 3; g -= 3; y = (y + 1) % 9; }
      else if (st === "exchange") { ok = ok && y > 0; inv.push(y); y = 0; }
    });
    return { inv: inv, y: y, g: g, ok: ok };
  }

  function show(f) {
    var st = steps(f);
    var sim = simulate(f);
    var prefix = st.length ? st.join(" ") + " " : "";
    var out = f.querySelector(".ye-steps output");
    if (out) { out.textContent = st.length ? st.join(" ") : "none"; }
    var ys = f.querySelector(".ye-y");
    if (ys) { ys.textContent = String(sim.y); }
    var gs = f.querySelector(".ye-g");
    if (gs) { gs.textContent = String(sim.g); }
    f.querySelector(".ye-boost").disabled = sim.g < 3;
    f.querySelector(".ye-exchange").disabled = sim.y === 0;
    f.querySelector(".ye-undo").disabled = st.length === 0;
    var plays = f.querySelector(".ye-plays");
    var values = sim.inv.filter(function (v, i) { return sim.inv.indexOf(v) === i; }).sort(function (a, b) { return a - b; });
    plays.textContent = "";
    values.forEach(function (v) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "ye-play";
      b.setAttribute("data-tile", String(v));
      b.setAttribute("data-action", prefix + "play " + v);
      b.setAttribute("aria-label", prefix + "play " + v + ": " + (st.length ? st.join(", ") + ", then " : "") + "play black tile " + v);
      b.textContent = prefix + "play " + v;
      plays.appendChild(b);
    });
  }

  document.addEventListener("click", function (ev) {
    var target = ev.target instanceof Element ? ev.target : null;
    if (!target) { return; }
    var b = target.closest(".ye-boost, .ye-exchange, .ye-undo");
    var f = b ? b.closest(".ye-builder") : null;
    if (!f || b.disabled) { return; }
    var st = steps(f);
    if (b.classList.contains("ye-undo")) { st.pop(); }
    else { st.push(b.classList.contains("ye-boost") ? "boost" : "exchange"); }
    f.setAttribute("data-steps", st.join(" "));
    saved = { key: f.getAttribute("data-key"), steps: st.join(" ") };
    show(f);
  });
})();
