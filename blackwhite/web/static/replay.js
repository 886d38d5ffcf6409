/* The replay page: a finished match step by step, from a stored match or an uploaded file.
 *
 * The record stays in this page; each step is drawn by the server (POST /replay/step,
 * the record in the body), which replays it with the engine and renders the board as
 * the chosen seat, the public, or the full record sees it.  Keys: left/right arrows,
 * Home, End.
 *
 * "Analyse" starts the match analysis on the server (POST /replay/analysis, polled
 * every second at GET /replay/analysis/{job}) and draws each seat's win-chance curve
 * as inline SVG, its marked decisions as focusable marks and as a list; choosing a mark
 * jumps to the step just after that decision.  The chart is fetched as the chosen
 * audience may read it: another seat's marks come without their action text.
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
    return BWRetry.fetch(path, {method: "POST", headers: {"Content-Type": "application/octet-stream"}, body: body})
      .then(function (r) { return r.json().then(function (data) { return [r.ok, data]; }); });
  }

  function fail(message) { $("replay-error").textContent = message; }

  function open(text) {
    fail("");
    post("/replay/outline", text).then(function (res) {
      if (!res[0]) { $("viewer").hidden = true; fail(res[1].error.message); return; }
      record = text;
      outline = res[1];
      resetAnalysis();
      loadAssets(outline);
      // seats as players say them ("P2 ismcts bot"), the record's names when the server gives none
      var names = outline.names || outline.seats;
      $("replay-title").textContent = outline.title + " — " + names.map(function (n, i) {
        return n === "P" + (i + 1) ? n : "P" + (i + 1) + " " + n;
      }).join(", ");
      $("replay-pace").textContent = outline.pace ? "Pace: " + outline.pace : "";
      var audience = $("audience");
      audience.textContent = "";
      audience.appendChild(el("option", {value: "full"}, "the full record"));
      audience.appendChild(el("option", {value: "public"}, "a spectator"));
      names.forEach(function (n, i) {
        audience.appendChild(el("option", {value: String(i)}, n === "P" + (i + 1) ? n : "P" + (i + 1) + " " + n));
      });
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
      drawNow();
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
  $("audience").addEventListener("change", function () {
    go(current);
    if (analysis.chart) { poll(); }  // the marks' texts depend on who is watching
  });
  document.addEventListener("keydown", function (event) {
    if (!outline || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" && event.target.type !== "range" || tag === "select" || tag === "textarea") { return; }
    var moves = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: outline.steps - 1};
    if (event.key in moves) { event.preventDefault(); go(moves[event.key]); }
  });


  // ------------------------------------------------------------------ the analysis

  var SVG = "http://www.w3.org/2000/svg";
  // the chart's width in its own units follows the box's width in pixels (320..640), so
  // its text keeps a readable size on a phone as on a desktop
  var W = 480, H = 220, LEFT = 40, RIGHT = 12, TOP = 12, BOTTOM = 30;
  var SEAT_STYLES = [
    {color: "#1a56c4", dash: ""}, {color: "#b0125b", dash: "7 4"}, {color: "#1b7a2e", dash: "2 4"}
  ];
  var MARK_STYLES = {
    inaccuracy: {color: "#8a6d00", shape: "circle"},
    mistake: {color: "#c25400", shape: "square"},
    blunder: {color: "#b00000", shape: "triangle"}
  };
  var analysis = {job: null, chart: null, timer: null, ticket: 0};

  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); }); }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function seatStyle(seat) { return SEAT_STYLES[seat % SEAT_STYLES.length]; }
  function seatName(seat) { return "P" + (seat + 1); }
  /** A record's seat name as players say it: "bot ismcts:budget=1" is "ismcts bot". */
  function inWords(name) {
    return /^bot /.test(name || "") ? (name.slice(4).split(":")[0].trim() || "a") + " bot" : name;
  }
  function xOf(step, steps) { return LEFT + (W - LEFT - RIGHT) * step / Math.max(1, steps - 1); }
  function yOf(win) { return TOP + (H - TOP - BOTTOM) * (1 - win); }
  function pct(win) { return Math.round(win * 100) + "%"; }
  function points(n) { return Math.round(n) + (Math.round(n) === 1 || Math.round(n) === -1 ? " point" : " points"); }

  /* "P1 move 4: place 8 0 3 — blunder, lost 27 points (best: place 0 3 8)"; without the
   * actions when the server left them out (another seat's secret choices) */
  function markText(m) {
    var text = seatName(m.seat) + " move " + m.move;
    if (m.action) { text += ": " + m.action; }
    text += " — " + m.mark + ", lost " + points(m.loss);
    if (m.best) { text += " (best: " + m.best + ")"; }
    return text;
  }

  function resetAnalysis() {
    if (analysis.timer) { clearTimeout(analysis.timer); }
    analysis = {job: null, chart: null, timer: null, ticket: analysis.ticket + 1};
    if (!$("analysis")) { return; }
    $("analyse").disabled = false;
    $("analysis-status").hidden = true;
    $("analysis-result").hidden = true;
    $("analysis-error").textContent = "";
    document.body.removeAttribute("data-analysis");
  }

  function showProgress(data) {
    $("analysis-status").hidden = false;
    var bar = $("analysis-progress");
    if (data.total > 0) {
      bar.max = data.total;
      bar.value = data.done;
      $("analysis-progress-text").textContent = data.done + " of " + data.total + " decisions";
    } else {
      bar.removeAttribute("value");  // not started yet: an indeterminate bar
      $("analysis-progress-text").textContent = data.state === "queued" ? "Waiting for the analyser…" : "Starting…";
    }
    document.body.setAttribute("data-analysis", data.state);
  }

  function answer(ticket, res) {
    if (ticket !== analysis.ticket) { return; }  // another record or a newer request
    var data = res[1];
    if (!res[0]) {
      $("analyse").disabled = false;
      $("analysis-status").hidden = true;
      $("analysis-error").textContent = data.error ? data.error.message : "The analysis could not be started.";
      document.body.setAttribute("data-analysis", "failed");
      return;
    }
    analysis.job = data.job;
    showProgress(data);
    if (data.state === "failed") {
      $("analyse").disabled = false;
      $("analysis-error").textContent = data.error || "The analysis failed.";
      return;
    }
    if (data.state === "done" && data.chart) {
      analysis.chart = data.chart;
      $("analysis-status").hidden = true;
      drawAnalysis();
      return;
    }
    if (data.state !== "done") { analysis.timer = setTimeout(poll, 1000); }
    else { poll(); }  // the start answer carries no chart
  }

  function poll() {
    if (!analysis.job) { return; }
    if (analysis.timer) { clearTimeout(analysis.timer); analysis.timer = null; }
    var ticket = analysis.ticket;
    BWRetry.fetch("/replay/analysis/" + encodeURIComponent(analysis.job) + "?audience=" + encodeURIComponent($("audience").value))
      .then(function (r) { return r.json().then(function (data) { return [r.ok, data]; }); })
      .then(function (res) { answer(ticket, res); })
      .catch(function () {
        if (ticket !== analysis.ticket) { return; }
        $("analysis-error").textContent = "The server cannot be reached; trying again.";
        analysis.timer = setTimeout(poll, 3000);
      });
  }

  function startAnalysis() {
    if (!record) { return; }
    resetAnalysis();
    $("analyse").disabled = true;
    showProgress({state: "queued", done: 0, total: 0});
    var ticket = analysis.ticket;
    post("/replay/analysis", record).then(function (res) { answer(ticket, res); })
      .catch(function () {
        if (ticket !== analysis.ticket) { return; }
        $("analyse").disabled = false;
        $("analysis-error").textContent = "The server cannot be reached.";
      });
  }

  function markShape(kind, x, y) {
    var style = MARK_STYLES[kind] || MARK_STYLES.blunder;
    var attrs = {fill: style.color, stroke: "#fff", "stroke-width": 1.5};
    if (style.shape === "circle") { attrs.cx = x; attrs.cy = y; attrs.r = 6; return svg("circle", attrs); }
    if (style.shape === "square") {
      attrs.x = x - 5.5; attrs.y = y - 5.5; attrs.width = 11; attrs.height = 11; return svg("rect", attrs);
    }
    attrs.points = [x, y - 8, x + 7, y + 5, x - 7, y + 5].join(" ");
    return svg("polygon", attrs);
  }

  function bindJump(node, step) {
    node.addEventListener("click", function () { go(step); });
    node.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); go(step); }
    });
  }

  function drawAnalysis() {
    var chart = analysis.chart;
    var steps = chart.steps;
    var box = $("analysis-chart");
    box.textContent = "";
    W = Math.max(320, Math.min(640, Math.round(box.clientWidth || 480)));
    var root = svg("svg", {viewBox: "0 0 " + W + " " + H, role: "group", "aria-labelledby": "analysis-chart-title",
                           preserveAspectRatio: "xMidYMid meet", "class": "curve"});
    root.appendChild(svg("title", {id: "analysis-chart-title"}, "Each seat's estimated win chance by replay step (0 to " + (steps - 1) + ")"));
    [0, 0.5, 1].forEach(function (win) {
      root.appendChild(svg("line", {x1: LEFT, x2: W - RIGHT, y1: yOf(win), y2: yOf(win), stroke: "#ccc", "stroke-width": 1}));
      root.appendChild(svg("text", {x: LEFT - 5, y: yOf(win) + 4, "text-anchor": "end", "font-size": 11, fill: "#333"}, pct(win)));
    });
    var ticks = Math.min(steps - 1, 6);
    for (var t = 0; t <= ticks; t++) {
      var step = Math.round(t * (steps - 1) / Math.max(1, ticks));
      root.appendChild(svg("text", {x: xOf(step, steps), y: H - BOTTOM + 16, "text-anchor": "middle", "font-size": 11, fill: "#333"}, String(step)));
    }
    root.appendChild(svg("text", {x: (LEFT + W - RIGHT) / 2, y: H - 2, "text-anchor": "middle", "font-size": 11, fill: "#333"}, "step"));
    root.appendChild(svg("line", {id: "analysis-now", x1: 0, x2: 0, y1: TOP - 4, y2: H - BOTTOM + 4, stroke: "#444",
                                  "stroke-width": 1.5, "stroke-dasharray": "3 3"}));
    chart.curves.forEach(function (curve) {
      if (!curve.points.length) { return; }
      var style = seatStyle(curve.seat);
      var line = svg("polyline", {
        "class": "seat-curve", "data-seat": curve.seat, fill: "none", stroke: style.color, "stroke-width": 2.5,
        "stroke-linejoin": "round", points: curve.points.map(function (p) { return xOf(p.step, steps) + "," + yOf(p.win); }).join(" ")
      });
      if (style.dash) { line.setAttribute("stroke-dasharray", style.dash); }
      line.appendChild(svg("title", null, seatName(curve.seat) + " " + inWords(curve.name) + ": win chance from " +
        pct(curve.points[0].win) + " to " + pct(curve.points[curve.points.length - 1].win)));
      root.appendChild(line);
    });
    chart.marks.forEach(function (m) {
      var text = markText(m);
      var g = svg("g", {"class": "mark mark-" + m.mark, tabindex: 0, role: "button", "aria-label": text, "data-step": m.step});
      g.appendChild(svg("title", null, text));
      g.appendChild(markShape(m.mark, xOf(m.step, steps), yOf(m.win)));
      bindJump(g, m.step);
      root.appendChild(g);
    });
    box.appendChild(root);

    var legend = $("analysis-legend");
    legend.textContent = "";
    chart.curves.forEach(function (curve) {
      var style = seatStyle(curve.seat);
      var li = el("li");
      var key = svg("svg", {viewBox: "0 0 30 10", width: 30, height: 10, "aria-hidden": "true", focusable: "false"});
      var sample = svg("line", {x1: 0, x2: 30, y1: 5, y2: 5, stroke: style.color, "stroke-width": 2.5});
      if (style.dash) { sample.setAttribute("stroke-dasharray", style.dash); }
      key.appendChild(sample);
      li.appendChild(key);
      li.appendChild(document.createTextNode(" " + seatName(curve.seat) + (curve.name !== seatName(curve.seat) ? " " + inWords(curve.name) : "")));
      legend.appendChild(li);
    });
    Object.keys(MARK_STYLES).forEach(function (kind) {
      var li = el("li");
      var key = svg("svg", {viewBox: "-8 -9 16 16", width: 16, height: 16, "aria-hidden": "true", focusable: "false"});
      key.appendChild(markShape(kind, 0, 0));
      li.appendChild(key);
      li.appendChild(document.createTextNode(" " + kind));
      legend.appendChild(li);
    });

    var list = $("analysis-marks");
    list.textContent = "";
    if (!chart.marks.length) { list.appendChild(el("li", null, "No decision was marked.")); }
    chart.marks.forEach(function (m) {
      var li = el("li");
      var button = el("button", {type: "button", "class": "mark-button mark-" + m.mark, "data-step": String(m.step)}, markText(m));
      button.addEventListener("click", function () { go(m.step); });
      li.appendChild(button);
      list.appendChild(li);
    });

    var sums = $("analysis-summaries");
    sums.textContent = "";
    chart.summaries.forEach(function (s) {
      var marks = ["blunder", "mistake", "inaccuracy"].map(function (k) {
        var n = (s.marks && s.marks[k]) || 0;
        return n + " " + (k === "inaccuracy" ? (n === 1 ? "inaccuracy" : "inaccuracies") : k + (n === 1 ? "" : "s"));
      }).join(", ");
      var outcome = s.outcome === null || s.outcome === undefined ? "the match is unfinished"
        : s.outcome === 1 ? "won" : s.outcome === 0 ? "lost" : "a draw";
      var signed = function (n) { return (n > 0 ? "+" : n < 0 ? "−" : "") + points(Math.abs(n)); };
      var text = seatName(s.seat) + (s.name !== seatName(s.seat) ? " " + inWords(s.name) : "") + ": " + s.decisions +
        (s.decisions === 1 ? " decision" : " decisions") + "; " + marks + "; start " +
        (s.start === null || s.start === undefined ? "—" : pct(s.start)) + ", outcome: " + outcome +
        "; skill " + signed(s.skill) + ", luck " + signed(s.luck) + ".";
      sums.appendChild(el("li", {"data-seat": String(s.seat)}, text));
    });
    $("analysis-result").hidden = false;
    $("analyse").disabled = true;
    document.body.setAttribute("data-analysis", "done");
    drawNow();
  }

  /* the vertical line at the step shown */
  function drawNow() {
    var line = document.getElementById("analysis-now");
    if (!line || !analysis.chart) { return; }
    var x = xOf(Math.min(current, analysis.chart.steps - 1), analysis.chart.steps);
    line.setAttribute("x1", String(x));
    line.setAttribute("x2", String(x));
    document.body.setAttribute("data-now", String(current));
  }

  if ($("analyse")) { $("analyse").addEventListener("click", startAnalysis); }
  var resizing = null;
  window.addEventListener("resize", function () {
    if (resizing) { clearTimeout(resizing); }
    resizing = setTimeout(function () {
      var box = $("analysis-chart");
      if (analysis.chart && box && Math.abs(box.clientWidth - W) > 40) { drawAnalysis(); }
    }, 100);
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
