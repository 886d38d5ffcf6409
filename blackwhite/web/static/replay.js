/* The replay page: a finished match step by step, from a stored match or an uploaded file.
 *
 * The record stays in this page; each step is drawn by the server (POST /replay/step,
 * the record in the body), which replays it with the engine and renders the board as
 * the chosen seat, the public, or the full record sees it.  Keys: left/right arrows,
 * Home, End.
 */
(function () {
  "use strict";

  var $ = function (id) { return document.getElementById(id); };
  var record = null;  // the record's text, sent back with every step
  var outline = null;
  var current = 0;
  var pending = 0;
  var hooks = [];
  var loaded = {};

  // a game's board script (static/games/<game>.js) may run here too: it gets a BW
  // whose send does nothing (a replay takes no action) and whose onRender hooks run
  // after each step is drawn
  window.BW = {
    config: {mode: "replay", seat: null},
    send: function () { return false; },
    onRender: function (fn) { hooks.push(fn); },
    payload: function () { return null; }
  };

  function loadAssets(info) {
    if (info.css && !loaded[info.css]) {
      loaded[info.css] = true;
      document.head.appendChild(el("link", {rel: "stylesheet", href: info.css}));
    }
    if (info.js && !loaded[info.js]) {
      loaded[info.js] = true;
      document.body.appendChild(el("script", {src: info.js}));
    }
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function post(path, body) {
    return fetch(path, {method: "POST", headers: {"Content-Type": "application/octet-stream"}, body: body})
      .then(function (r) { return r.json().then(function (data) { return [r.ok, data]; }); });
  }

  function fail(message) { $("replay-error").textContent = message; }

  function open(text) {
    fail("");
    post("/replay/outline", text).then(function (res) {
      if (!res[0]) { $("viewer").hidden = true; fail(res[1].error.message); return; }
      record = text;
      outline = res[1];
      loadAssets(outline);
      $("replay-title").textContent = outline.title + " — " + outline.seats.map(function (n, i) {
        return n === "P" + (i + 1) ? n : "P" + (i + 1) + " " + n;
      }).join(", ");
      var audience = $("audience");
      audience.textContent = "";
      audience.appendChild(el("option", {value: "full"}, "the full record"));
      audience.appendChild(el("option", {value: "public"}, "a spectator"));
      outline.seats.forEach(function (n, i) { audience.appendChild(el("option", {value: String(i)}, "P" + (i + 1) + " " + n)); });
      $("step").max = String(outline.steps - 1);
      $("step-number").max = String(outline.steps - 1);
      $("viewer").hidden = false;
      go(0);
    }).catch(function () { fail("The server cannot be reached."); });
  }

  function go(n) {
    if (!outline) { return; }
    n = Math.max(0, Math.min(outline.steps - 1, n));
    var ticket = ++pending;
    var audience = $("audience").value;
    post("/replay/step?n=" + n + "&audience=" + encodeURIComponent(audience), record).then(function (res) {
      if (ticket !== pending) { return; }  // a later step was asked for meanwhile
      if (!res[0]) { fail(res[1].error.message); return; }
      var s = res[1];
      current = s.step;
      $("step").value = String(s.step);
      $("step-number").value = String(s.step);
      $("step").setAttribute("aria-valuetext", "step " + s.step + " of " + (s.steps - 1));
      var result = "";
      if (s.finished) {
        result = s.winner === null ? " — finished: a draw" : " — finished: P" + (s.winner + 1) + " wins";
      }
      $("step-label").textContent = "Step " + s.step + " of " + (s.steps - 1) + ": " + s.label + result;
      var boards = $("boards");
      boards.textContent = "";
      s.boards.forEach(function (b) {
        var sec = el("section", {"class": "replay-board", "aria-label": b.title});
        sec.appendChild(el("h3", null, b.title));
        var inner = el("div");
        inner.innerHTML = b.html;  // rendered and escaped by the server's templates
        sec.appendChild(inner);
        boards.appendChild(sec);
      });
      var log = $("log");
      log.textContent = "";
      s.log.forEach(function (line) {
        var li = el("li", null, line.to ? "[only " + line.to + " sees] " + line.text : line.text);
        if (line.to) { li.className = "private"; }
        log.appendChild(li);
      });
      log.scrollTop = log.scrollHeight;
      document.body.setAttribute("data-step", String(s.step));
      // a replay has no live controls: its buttons only show what was on the board
      boards.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      hooks.forEach(function (fn) { try { fn({replay: s}); } catch (e) { if (window.console) { console.error(e); } } });
    }).catch(function () { fail("The server cannot be reached."); });
  }

  $("first").addEventListener("click", function () { go(0); });
  $("back").addEventListener("click", function () { go(current - 1); });
  $("forward").addEventListener("click", function () { go(current + 1); });
  $("last").addEventListener("click", function () { go(outline ? outline.steps - 1 : 0); });
  $("step").addEventListener("change", function () { go(Number($("step").value)); });
  $("step-number").addEventListener("change", function () {
    var n = parseInt($("step-number").value, 10);
    if (!isNaN(n)) { go(n); }
  });
  $("audience").addEventListener("change", function () { go(current); });
  document.addEventListener("keydown", function (event) {
    if (!outline || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" && event.target.type !== "range" || tag === "select" || tag === "textarea") { return; }
    var moves = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: outline.steps - 1};
    if (event.key in moves) { event.preventDefault(); go(moves[event.key]); }
  });

  var upload = $("upload");
  if (upload) {
    upload.addEventListener("submit", function (event) {
      event.preventDefault();
      var file = $("record-file").files[0];
      if (!file) { fail("Choose a record file first."); return; }
      // the bytes as they are: the server reads them as the referee reads a file
      file.arrayBuffer().then(function (buf) { open(buf); });
    });
    $("record-file").addEventListener("change", function () {
      if ($("record-file").files[0]) { upload.requestSubmit(); }
    });
  }
  var stored = $("bw-record");
  if (stored) { open(stored.textContent); }
})();
