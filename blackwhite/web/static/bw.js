/* blackwhite match pages (play, watch, host): a small hand-written client, no build step.
 *
 * The server pushes the view payload over the match's WebSocket (?render=1 adds the
 * board as HTML and, for a seat, its legal actions in notation).  This file draws it,
 * sends the seat's actions, counts the clocks down locally between readings and
 * reconnects by itself with backoff.  Game partials may add pickers in
 * /static/games/<game>.js that call BW.send(notation) and BW.onRender(fn).
 */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("bw-config").textContent);
  var params = new URLSearchParams(location.search);
  var token = params.get("token") || "";
  if (config.mode === "play" && !token) {
    // opened from the player's page (the bw_player cookie let the server in): the player's login
    try { token = localStorage.getItem("bw.player") || ""; } catch (e) { token = ""; }
  }
  if (config.mode === "host") {
    var own = "";
    try { own = localStorage.getItem("bw.host") || ""; } catch (e) { own = ""; }
    // opened without ?token= (the bw_host cookie let the server in): this browser's host token
    if (!token) { token = own; }
    // this browser's own host token (never another link's) rides in the bw_host cookie, so
    // its host pages open without ?token= (docs/pages.md); host.js sets it on the host page too
    if (own && token === own) {
      document.cookie = "bw_host=" + encodeURIComponent(own) + "; Path=/; Max-Age=31536000; SameSite=Strict" +
        (location.protocol === "https:" ? "; Secure" : "");
    }
  }
  var state = {
    payload: null, ws: null, attempt: 0, timer: null, receivedAt: 0, closedByUs: false,
    renderHooks: [], sending: false, sentAt: 0, frozenAt: null, wasMine: false, hint: null,
    // the action sent on the socket and not yet answered: {message, at, again}; "again"
    // once it must be sent again (refused with nothing changed, or lost with the socket)
    inFlight: null
  };
  //: answers that mean "nothing was changed, send it again shortly" (a takeover, a busy database)
  var AGAIN = {owner_unavailable: true, store_unavailable: true};
  var $ = function (id) { return document.getElementById(id); };
  var baseTitle = document.title;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function seatLabel(seat) {
    var base = "P" + (seat + 1);
    var name = config.names[seat];
    return name && name !== base ? base + " " + name : base;
  }

  function fmt(seconds) {
    if (seconds === null || seconds === undefined) { return "–"; }
    var s = Math.max(0, Math.ceil(seconds));
    var m = Math.floor(s / 60);
    var r = s % 60;
    if (s < 3600) { return m + ":" + (r < 10 ? "0" : "") + r; }
    // a slow pace's hours and days: "2 d 3:04:05", "3:04:05"
    var d = Math.floor(s / 86400);
    var h = Math.floor((s % 86400) / 3600);
    m = m % 60;
    var text = h + ":" + (m < 10 ? "0" : "") + m + ":" + (r < 10 ? "0" : "") + r;
    return d ? d + " d " + text : text;
  }

  // ------------------------------------------------------------------ connection

  function setConn(text, cls) {
    var node = $("conn");
    if (!node) { return; }
    node.textContent = text;
    node.className = "conn " + cls;
    document.body.setAttribute("data-conn", cls);
  }

  function connect() {
    if (state.timer) { clearTimeout(state.timer); state.timer = null; }
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var url = scheme + location.host + "/ws/matches/" + encodeURIComponent(config.match) +
      "?render=1&token=" + encodeURIComponent(token);
    var ws;
    try { ws = new WebSocket(url); } catch (e) { scheduleReconnect(); return; }
    state.ws = ws;
    setConn(state.attempt ? "reconnecting…" : "connecting…", "conn-wait");
    ws.onopen = function () { state.attempt = 0; setConn("connected", "conn-on"); };
    // the clocks stay frozen until the server's fresh reading arrives (show() thaws them)
    ws.onmessage = function (event) {
      var msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      if (msg.type === "view") { show(msg); sendAgain(); }
      else if (msg.type === "error" && state.inFlight && AGAIN[msg.error.code]) {
        // nothing was changed (the match is moving to another server process): the same
        // action goes again once the match answers, instead of an error the player must redo
        state.inFlight.again = true;
        setTimeout(sendAgain, 1000 * (0.85 + Math.random() * 0.3));
      }
      else if (msg.type === "error") { state.inFlight = null; showError(msg.error.message, msg.error.code); state.sending = false; }
      else if (msg.type === "ack") { state.inFlight = null; state.sending = false; showError(""); }
    };
    ws.onclose = function (event) {
      if (state.ws !== ws) { return; }
      state.ws = null;
      document.body.setAttribute("data-drops", String(Number(document.body.getAttribute("data-drops") || 0) + 1));
      freezeClocks();
      // an action unanswered when the socket closed (1012: the match moved) goes again
      // after the reconnect, if this seat's view shows it was not taken (see sendAgain)
      if (state.inFlight) { state.inFlight.again = true; }
      if (event.code === 4403 || event.code === 4404) {
        setConn("refused: " + (event.reason || "this link is not valid"), "conn-off");
        return;  // a wrong link does not get better by retrying
      }
      scheduleReconnect();
    };
  }

  /** Send the action in flight again if it must be and still can: the socket is open, it
   *  was sent less than a minute ago, and this seat's version is still the one it was sent
   *  at (a seat's version moves whenever its view does, and its own action taken changes
   *  its view: an unchanged version means the action was not taken, so it is not taken twice). */
  function sendAgain() {
    var flight = state.inFlight;
    if (!flight || !flight.again || !state.ws || state.ws.readyState !== WebSocket.OPEN) { return; }
    var p = state.payload;
    if (!p || p.version !== flight.message.version || performance.now() - flight.at > 60000) {
      state.inFlight = null;
      state.sending = false;
      return;
    }
    flight.again = false;
    state.ws.send(JSON.stringify(flight.message));
  }

  function scheduleReconnect() {
    state.attempt += 1;
    // 0.25 s, 0.5 s, then every second (a little jitter so tabs do not reconnect in step):
    // a server that is back is found well within 2 s; one attempt is one cheap request
    var delay = Math.min(1000, 250 * Math.pow(2, state.attempt - 1)) * (0.85 + Math.random() * 0.3);
    setConn("disconnected; reconnecting…", "conn-off");
    state.timer = setTimeout(connect, delay);
  }

  // a page coming back to the screen or a network coming back retries at once
  function retryNow() {
    if (state.ws || !state.timer) { return; }
    clearTimeout(state.timer);
    state.timer = null;
    connect();
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { retryNow(); } });
  window.addEventListener("online", retryNow);

  // ------------------------------------------------------------------ drawing

  function show(payload) {
    state.payload = payload;
    state.receivedAt = performance.now();
    thawClocks();
    var board = $("board");
    if (board && typeof payload.board === "string") {
      // keep a keyboard user's place: refocus the control with the same action or id
      var focused = document.activeElement;
      var key = focused && board.contains(focused) ?
        (focused.getAttribute("data-action") ? '[data-action="' + cssEscape(focused.getAttribute("data-action")) + '"]' :
          (focused.id ? "#" + cssEscape(focused.id) : null)) : null;
      board.innerHTML = payload.board;
      if (key) {
        var again = board.querySelector(key);
        if (again && !again.disabled) { again.focus(); }
      }
    }
    state.sending = false;
    var fault = $("game-fault");
    if (fault) {  // the host of a match whose game's code failed: paused, and why
      fault.hidden = !payload.fault;
      fault.textContent = payload.fault ? "The match is paused: " + payload.fault +
        ". Resume to try again; the game's package needs fixing if it fails again." : "";
    }
    var all = $("boards-all");
    if (all && payload.boards) {
      // a host who sees everything: every seat's board, each under its seat's name
      all.textContent = "";
      payload.boards.forEach(function (html, seat) {
        var sec = el("section", {"class": "seat-board", "aria-label": seatLabel(seat) + "'s view"});
        sec.appendChild(el("h3", null, seatLabel(seat)));
        var inner = el("div");
        inner.innerHTML = html;  // rendered and escaped by the server's templates
        sec.appendChild(inner);
        all.appendChild(sec);
      });
    }
    var status = $("status");
    if (status) { status.textContent = statusText(payload); }
    if (config.mode === "host" && document.body.getAttribute("data-status") !== payload.status &&
        document.body.hasAttribute("data-status")) { listMatches(); }
    document.body.setAttribute("data-status", payload.status);
    document.body.setAttribute("data-version", String(payload.version));
    drawToMove(payload);
    drawLog(payload.view.log || []);
    drawClocks();
    drawActions(payload);
    var startNow = $("start-now");
    if (startNow) { startNow.hidden = payload.status !== "waiting" && !(payload.start && !payload.start.started); }
    // only what applies: Pause while waiting or running, Resume only once paused
    var pause = $("pause"), resume = $("resume");
    if (pause) { pause.hidden = payload.status !== "waiting" && payload.status !== "running"; }
    if (resume) { resume.hidden = payload.status !== "paused"; }
    var over = payload.status === "finished" || payload.status === "cancelled";
    document.querySelectorAll(".when-over").forEach(function (node) { node.hidden = !over; });
    // an ended match can be neither cancelled nor given time: the host is not offered either
    ["cancel", "give-time"].forEach(function (id) { var node = $(id); if (node) { node.hidden = over; } });
    var mineNow = document.body.getAttribute("data-my-turn") === "1";
    tellTurn(mineNow);
    state.renderHooks.forEach(function (fn) {
      try { fn(payload); } catch (e) { if (window.console) { console.error(e); } }
    });
  }

  function cssEscape(text) {
    return window.CSS && CSS.escape ? CSS.escape(text) : String(text).replace(/["\\]/g, "\\$&");
  }

  function statusText(p) {
    var v = p.view;
    if (p.status === "finished" || v.finished) {
      if (v.winner === null || v.winner === undefined) { return "finished: a draw"; }
      return "finished: " + seatLabel(v.winner) + " wins";
    }
    if (p.status === "cancelled") { return "cancelled by the host"; }
    if (p.status === "paused") { return "paused by the host"; }
    // not started: nobody is charged until the clocks start (docs/server.md, "The start")
    if (p.status === "waiting") { return p.waiting || "waiting for the players to join"; }
    return "running";
  }

  function drawToMove(p) {
    var node = $("to-move");
    if (!node) { return; }
    var waiting = (p.status === "running" || p.status === "paused") ? (p.view.to_move || []) : [];
    var submitted = p.view.submitted || [];
    if (!waiting.length) { node.textContent = ""; return; }
    node.textContent = "to move: " + waiting.map(function (s) {
      return seatLabel(s) + (submitted.indexOf(s) >= 0 ? " (answered)" : "");
    }).join(", ");
  }

  function drawLog(lines) {
    var log = $("log");
    if (!log) { return; }
    var atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40 || log.childElementCount === 0;
    // the log only grows: append what is new, so reading it is not disturbed
    if (log.childElementCount > lines.length) { log.textContent = ""; }
    for (var i = log.childElementCount; i < lines.length; i++) {
      log.appendChild(el("li", null, lines[i]));
    }
    if (atEnd && log.lastElementChild) { log.scrollTop = log.scrollHeight; }
  }

  // What the board's own controls cover: each data-action's notation, and every legal
  // action starting with one of the space-separated prefixes of a data-covers element
  // (a picker that builds "place a b c" from three clicks covers "place").
  function covered() {
    var seen = {};
    var prefixes = [];
    var board = $("board");
    if (board) {
      board.querySelectorAll("[data-action]").forEach(function (node) { seen[node.getAttribute("data-action")] = true; });
      board.querySelectorAll("[data-covers]").forEach(function (node) {
        node.getAttribute("data-covers").split(/\s+/).forEach(function (p) { if (p) { prefixes.push(p); } });
      });
    }
    return function (text) {
      if (seen[text]) { return true; }
      for (var i = 0; i < prefixes.length; i++) { if (text.indexOf(prefixes[i]) === 0) { return true; } }
      return false;
    };
  }

  function drawActions(p) {
    var other = $("other");
    if (!other) { return; }
    var legal = p.legal || [];
    var isCovered = covered();
    other.textContent = "";
    var rest = legal.filter(function (t) { return !isCovered(t); });
    rest.forEach(function (text) {
      var said = describeAction(text);
      other.appendChild(el("button", {type: "button", "data-action": text,
        "aria-label": "Play " + text + (said ? ": " + said : "")}, text));
    });
    $("other-wrap").hidden = rest.length === 0;
    var list = $("legal-list");
    list.textContent = "";
    legal.slice(0, 2000).forEach(function (text) { list.appendChild(el("option", {value: text})); });
    var prompt = $("prompt");
    var mine = config.seat !== null && (p.view.to_move || []).indexOf(config.seat) >= 0 &&
      (p.view.submitted || []).indexOf(config.seat) < 0;
    if (p.status !== "running") { prompt.textContent = "No move: the match is " + statusText(p) + "."; }
    else if (p.view.my_pending) { prompt.textContent = "You answered " + p.view.my_pending + "; waiting for " + othersText(p) + "."; }
    else if (mine && legal.length) { prompt.textContent = "Your move: " + hint(p, legal); }
    else if (legal.length) { prompt.textContent = "You may act now: " + hint(p, legal); }
    else { prompt.textContent = "Waiting for " + ((p.view.to_move || []).map(seatLabel).join(", ") || "the game") + "."; }
    document.body.setAttribute("data-my-turn", mine && legal.length ? "1" : "0");
    var heading = $("actions-h");
    if (heading) { heading.textContent = p.status === "running" && p.view.my_pending ? "Your choice is in" : "Your move"; }
    // once the match is over nothing can be sent: the box and its button say so
    var over = p.status === "finished" || p.status === "cancelled";
    ["resign", "notation"].forEach(function (id) { var node = $(id); if (node) { node.disabled = p.status !== "running"; } });
    var submit = document.querySelector("#notation-form button[type=submit]");
    if (submit) { submit.disabled = p.status !== "running"; }
    var input = $("notation");
    if (input) { input.placeholder = over ? "the match is over" : ""; }
  }

  // Who a seat that has sent its choice still waits for: the one other seat by name,
  // "the others" only when more than one has still to choose.
  function othersText(p) {
    var submitted = p.view.submitted || [];
    var left = (p.view.to_move || []).filter(function (s) { return s !== config.seat && submitted.indexOf(s) < 0; });
    return left.length === 1 ? seatLabel(left[0]) : "the others";
  }

  // What to do now, in the game's words (never a count of legal actions): the phrase the
  // game gives each kind of action it may take now (Game.action_help, in the page's
  // config), joined: "raise your bet, call or fold".  A game's board script may give its
  // own phrases: BW.hint(fn), fn(payload, legal, phrases) returns the list to join.
  // the game's phrase for the action written t (the longest key of its action_help that
  // t starts with, as a word or a prefix such as "("), or null: Game.describe's rule
  function describeAction(t) {
    var help = config.actions || {};
    var best = null;
    Object.keys(help).forEach(function (k) {
      var fits = t === k || t.indexOf(k + " ") === 0 || (!/[A-Za-z0-9]$/.test(k) && t.indexOf(k) === 0);
      if (fits && (best === null || k.length > best.length)) { best = k; }
    });
    return best === null ? null : help[best];
  }

  function hint(p, legal) {
    var phrases = [];
    legal.forEach(function (t) {
      var phrase = describeAction(t);
      if (phrase !== null && phrases.indexOf(phrase) < 0) { phrases.push(phrase); }
    });
    if (state.hint) {
      try { phrases = state.hint(p, legal, phrases.slice()) || phrases; } catch (e) { /* the game's words only */ }
    }
    if (!phrases.length) { return "choose one of the actions below."; }
    var text = phrases.length === 1 ? phrases[0] :
      phrases.slice(0, -1).join(", ") + " or " + phrases[phrases.length - 1];
    return text.charAt(0).toUpperCase() + text.slice(1) + ".";
  }

  // ------------------------------------------------------------------ telling the player

  // "Your move" goes in the tab's title and icon always; a sound, the browser's
  // notification and a short vibration only when the player turned them on (this
  // browser remembers the choice)
  var alerts = {sound: false, notify: false, vibrate: false};
  try { alerts = Object.assign(alerts, JSON.parse(localStorage.getItem("bw.alerts") || "{}")); } catch (e) { /* defaults */ }

  function setIcon(mine) {
    var link = document.querySelector('link[rel="icon"]');
    if (link) { link.href = mine ? "/static/favicon-move.svg" : "/static/favicon.svg"; }
  }

  function beep() {
    try {
      var Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) { return; }
      var ctx = state.audio || (state.audio = new Ctx());
      var osc = ctx.createOscillator();
      var gain = ctx.createGain();
      osc.frequency.value = 660;
      gain.gain.setValueAtTime(0.15, ctx.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.35);
      osc.connect(gain);
      gain.connect(ctx.destination);
      osc.start();
      osc.stop(ctx.currentTime + 0.35);
    } catch (e) { /* no sound: the title still says it */ }
  }

  function tellTurn(mine) {
    document.title = (mine ? "● Your move · " : "") + baseTitle;
    document.body.setAttribute("data-title-move", mine ? "1" : "0");
    setIcon(mine);
    if (mine && !state.wasMine) {
      if (alerts.sound) { beep(); }
      if (alerts.vibrate && navigator.vibrate) { try { navigator.vibrate(200); } catch (e) { /* unsupported */ } }
      if (alerts.notify && window.Notification && Notification.permission === "granted" && document.hidden) {
        try { new Notification("Your move", {body: baseTitle, tag: "bw-" + config.match}); } catch (e) { /* refused */ }
      }
    }
    state.wasMine = mine;
  }

  function alertSettings() {
    ["sound", "notify", "vibrate"].forEach(function (name) {
      var box = $("alert-" + name);
      if (!box) { return; }
      if (name === "vibrate" && !navigator.vibrate) { box.disabled = true; }
      if (name === "notify" && !window.Notification) { box.disabled = true; }
      box.checked = !!alerts[name];
      box.addEventListener("change", function () {
        alerts[name] = box.checked;
        try { localStorage.setItem("bw.alerts", JSON.stringify(alerts)); } catch (e) { /* not kept */ }
        if (name === "notify" && box.checked && window.Notification && Notification.permission !== "granted") {
          Notification.requestPermission().then(function (answer) {
            if (answer !== "granted") { box.checked = alerts.notify = false; }
          });
        }
        if (name === "sound" && box.checked) { beep(); }
      });
    });
  }

  // ------------------------------------------------------------------ clocks

  // While the socket is down the page cannot know whether the server's clocks run (a
  // crashed server keeps none running; a paused match neither), so the page's clocks
  // stop where they were and say so, until the server's fresh reading comes.
  function freezeClocks() {
    if (state.frozenAt === null) { state.frozenAt = performance.now(); }
    var note = $("clocks-note");
    if (note) { note.hidden = false; }
    var table = $("clocks");
    if (table) { table.classList.add("frozen"); }
    drawClocks();
  }

  function thawClocks() {
    state.frozenAt = null;
    var note = $("clocks-note");
    if (note) { note.hidden = true; }
    var table = $("clocks");
    if (table) { table.classList.remove("frozen"); }
  }

  function drawClocks() {
    var p = state.payload;
    var table = $("clocks");
    if (!p || !table || !p.clocks) { return; }
    var now = state.frozenAt === null ? performance.now() : state.frozenAt;
    var elapsed = Math.max(0, (now - state.receivedAt) / 1000);
    // quiet hours of a slow pace: no clock runs during them (the server says whether it is
    // quiet now and in how many seconds that changes)
    var quiet = p.clocks.quiet;
    if (quiet) {
      var change = quiet.change_in;
      elapsed = quiet.now ? Math.max(0, elapsed - change) : Math.min(elapsed, change);
      var note = $("quiet-note");
      if (note) {
        var quietNow = quiet.now ? elapsed === 0 : elapsed >= change;
        note.hidden = !quietNow;
        note.textContent = quietNow ? "Quiet hours: the clocks are stopped for the night." : "";
      }
    }
    // a game without a reserve shows none, until the host gives a seat some
    if (p.clocks.seats.some(function (c) { return c.reserve_left > 0; })) {
      table.querySelectorAll(".reserve-col").forEach(function (node) { node.hidden = false; });
    }
    var running = p.status === "running" && !p.clocks.paused;
    p.clocks.seats.forEach(function (c, seat) {
      var row = table.querySelector('tr[data-seat="' + seat + '"]');
      if (!row) { return; }
      var action = c.action_left;
      var reserve = c.reserve_left;
      if (running && c.awaited) {
        // the server charges the action's allowance first, then the reserve
        var fromAction = Math.min(action, elapsed);
        action -= fromAction;
        reserve = Math.max(0, reserve - (elapsed - fromAction));
      }
      row.querySelector(".action-left").textContent = c.awaited ? fmt(action) : "–";
      row.querySelector(".reserve-left").textContent = fmt(reserve);
      row.classList.toggle("awaited", !!c.awaited && running);
    });
  }

  // ------------------------------------------------------------------ requests

  /** fetch, but a 503 (nothing was changed: a takeover under way, a busy database) is
   *  asked again after its Retry-After before the page shows it (static/retry.js). */
  function fetchRetrying(url, options) { return BWRetry.fetch(url, options); }

  // ------------------------------------------------------------------ acting

  function showError(message, code) {
    var node = $("action-error") || $("host-error");
    // people read the message; the code is for programs (kept on the node for a bug report)
    if (node) { node.textContent = message || ""; node.dataset.code = code || ""; }
  }

  function send(text) {
    text = String(text || "").trim();
    if (!text) { showError("Type an action in notation, or press one of the buttons."); return false; }
    var p = state.payload;
    if (!p) { return false; }
    showError("");
    var message = {type: "action", action: text, version: p.version};
    if (state.ws && state.ws.readyState === WebSocket.OPEN) {
      state.sending = true;
      state.sentAt = performance.now();
      state.inFlight = {message: message, at: state.sentAt, again: false};
      state.ws.send(JSON.stringify(message));
      return true;
    }
    // no socket right now: the REST endpoint takes the same action
    sendRest(text, p.version, Date.now());
    return true;
  }

  /** An action by the REST endpoint.  A 503 that changed nothing is asked again
   *  (static/retry.js); one whose server process stopped while answering
   *  (X-Blackwhite-Unsure: it may or may not have acted) is sent again only if this
   *  seat's view is still at the version it was sent at (its own action taken moves it). */
  function sendRest(text, version, started) {
    var path = "/api/matches/" + encodeURIComponent(config.match);
    var auth = {"Authorization": "Bearer " + token};
    fetchRetrying(path + "/actions", {
      method: "POST",
      headers: {"Content-Type": "application/json", "Authorization": "Bearer " + token},
      body: JSON.stringify({action: text, version: version})
    }).then(function (r) {
      if (r.status === 503 && r.headers.get("X-Blackwhite-Unsure") && Date.now() - started < 60000) {
        return new Promise(function (resolve) { setTimeout(resolve, 1000); })
          .then(function () { return fetchRetrying(path + "/view", {headers: auth}); })
          .then(function (v) { return v.ok ? v.json() : null; })
          .then(function (view) { if (view && view.version === version) { sendRest(text, version, started); } });
      }
      return r.json().then(function (body) { if (!r.ok) { showError(body.error.message, body.error.code); } });
    }).catch(function () { showError("The server cannot be reached; the action was not sent."); });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("[data-action]") : null;
    if (!target || config.mode !== "play") { return; }
    if (!document.getElementById("main").contains(target)) { return; }
    event.preventDefault();
    if (target.disabled || target.getAttribute("aria-disabled") === "true") { return; }
    if (state.sending && performance.now() - state.sentAt < 5000) { return; }  // a double click sends once
    send(target.getAttribute("data-action"));
  });

  var form = $("notation-form");
  if (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var input = $("notation");
      if (send(input.value)) { input.value = ""; }
    });
  }
  var resign = $("resign");
  if (resign) {
    resign.addEventListener("click", function () {
      if (window.confirm("Resign the match? You lose it at once.")) { send("resign"); }
    });
  }

  // ------------------------------------------------------------------ the host's panel

  function hostCall(path, body) {
    return fetchRetrying("/api/matches/" + encodeURIComponent(config.match) + path, {
      method: "POST",
      headers: {"Content-Type": "application/json", "Authorization": "Bearer " + token},
      body: JSON.stringify(body || {})
    }).then(function (r) {
      return r.json().then(function (data) {
        var node = $("host-error");
        if (node) { node.textContent = r.ok ? "" : data.error.message; node.dataset.code = r.ok ? "" : data.error.code; }
        return data;
      });
    }).catch(function () {
      var node = $("host-error");
      if (node) { node.textContent = "The server cannot be reached."; }
    });
  }

  function copyText(text, button) {
    function done(ok) {
      button.textContent = ok ? "Copied" : "Select and copy";
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallbackCopy(text)); });
    } else {
      done(fallbackCopy(text));
    }
  }

  function fallbackCopy(text) {
    var area = el("textarea", {"aria-hidden": "true", readonly: ""});
    area.value = text;
    area.style.position = "fixed";
    area.style.left = "-1000px";
    document.body.appendChild(area);
    area.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    document.body.removeChild(area);
    return ok;
  }

  function hostPanel() {
    if (config.mode !== "host") { return; }
    var stored = null;
    var key = "bw.links." + config.match;
    if (location.hash.indexOf("#links=") === 0) {
      // just created: the links came in the fragment; keep them here and tidy the address
      var given = null;
      try { given = decodeURIComponent(location.hash.slice(7)); stored = JSON.parse(given); } catch (e) { stored = null; }
      try {
        if (stored) {
          localStorage.setItem(key, given);
          if (localStorage.getItem(key) === given) { history.replaceState(null, "", location.pathname + location.search); }
        }
      } catch (e) { /* no storage: the fragment keeps them */ }
    }
    if (!stored) {
      try { stored = JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { stored = null; }
    }
    // only this match's page links on this page's own origin are shown: a hand-made
    // fragment cannot plant look-alike links to another site for the host to hand out
    // (host.js stores the links on this origin when it creates the match)
    // the server's --public-url (written by the server, not by the fragment) is as good as this origin
    var publicOrigin = (document.querySelector('meta[name="bw-public-url"]') || {content: ""}).content || location.origin;
    var own = function (link) {
      if (link === null) { return true; }
      try {
        var u = new URL(link);
        return (u.origin === location.origin || u.origin === publicOrigin) &&
          (u.pathname === "/play/" + config.match || u.pathname === "/watch/" + config.match);
      } catch (e) { return false; }
    };
    if (stored && (!Array.isArray(stored.seats) || !own(stored.spectator) || !stored.seats.every(own))) { stored = null; }
    var list = $("links");
    if (!stored) { $("links-missing").hidden = false; }
    else {
      var rows = [["Spectators", stored.spectator]];
      stored.seats.forEach(function (link, seat) {
        // a bot seat is named "P2 ismcts bot" already
        rows.push([seatLabel(seat) + (link || / bot$/.test(seatLabel(seat)) ? "" : " (bot)"), link]);
      });
      (stored.players || []).forEach(function (player, seat) {
        // a seat bound to a player has no link: the player plays it from their own page
        if (player) { list.appendChild(el("li", {"class": "player-seat"}, seatLabel(seat) + ": plays from their own page (player " + player + ")")); }
      });
      rows.forEach(function (row, i) {
        if (!row[1]) { return; }
        var li = el("li");
        var id = "link-" + i;
        li.appendChild(el("label", {"for": id}, row[0]));
        var input = el("input", {id: id, type: "text", readonly: "", value: row[1], "class": "link"});
        li.appendChild(input);
        var button = el("button", {type: "button", "class": "copy", "aria-label": "Copy the link of " + row[0]}, "Copy");
        button.addEventListener("click", function () { input.select(); copyText(row[1], button); });
        li.appendChild(button);
        li.appendChild(el("a", {href: row[1], target: "_blank", rel: "noopener", "aria-label": "Open the page of " + row[0]}, "open"));
        list.appendChild(li);
      });
    }
    $("start-now").addEventListener("click", function () { hostCall("/start"); });
    $("pause").addEventListener("click", function () { hostCall("/pause"); });
    $("resume").addEventListener("click", function () { hostCall("/resume"); });
    $("cancel").addEventListener("click", function () {
      if (window.confirm("Cancel this match? Nobody can play it any more.")) { hostCall("/cancel"); }
    });
    $("give-time").addEventListener("submit", function (event) {
      event.preventDefault();
      // the amount in the unit chosen (hours at a slow pace); the server caps it by the pace
      var unit = $("time-unit");
      var seconds = Number($("time-amount").value) * Number(unit.value);
      var cap = Number(unit.dataset.cap) || 3600;
      if (!(seconds > 0) || seconds > cap) {
        showError("Extra time is more than nothing and at most " + fmt(cap) + " at once at this match's pace.", "bad_request");
        return;
      }
      var seat = $("time-seat").value;  // "" is the whole match (a slow match's own hours)
      hostCall("/time", {seat: seat === "" ? null : Number(seat), seconds: seconds});
    });
    var bind = $("bind-form");
    if (bind) {
      // a seat of a match still waiting may go to one of the host's players (docs/server.md, "Players")
      fetchRetrying("/api/players", {headers: {Authorization: "Bearer " + token}})
        .then(function (r) { return r.ok ? r.json() : []; })
        .then(function (players) {
          if (!players.length || !$("bind-seat").options.length) { return; }
          players.forEach(function (p) { $("bind-player").appendChild(el("option", {value: p.id}, p.name)); });
          bind.hidden = false;
        })
        .catch(function () { /* the form stays hidden */ });
      bind.addEventListener("submit", function (event) {
        event.preventDefault();
        var seat = Number($("bind-seat").value);
        var picked = $("bind-player").selectedOptions[0];
        hostCall("/seats/" + seat + "/player", {player: $("bind-player").value}).then(function (m) {
          if (m && m.seats) {
            $("bind-out").textContent = seatLabel(seat) + " is " + (picked ? picked.textContent : "the player") +
              "'s now: they play it from their own page, and its link opens it no more.";
          }
        });
      });
    }
    $("cohost-form").addEventListener("submit", function (event) {
      event.preventDefault();
      var id = $("cohost-id").value.trim();
      if (!id) { return; }
      hostCall("/cohosts", {host: id}).then(function (m) { if (m && m.cohosts) { $("cohost-id").value = ""; drawCohosts(m.cohosts); } });
    });
    fetchRetrying("/api/matches/" + encodeURIComponent(config.match), {headers: {Authorization: "Bearer " + token}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (m) { if (m && m.cohosts) { drawCohosts(m.cohosts); } })
      .catch(function () { /* the list is a convenience */ });
    var back = $("back-to-matches");
    if (back) { back.href = "/?token=" + encodeURIComponent(token); }
    listMatches();
  }

  /** The match's co-hosts, each with a button that drops it (only the owner may: else the server says so). */
  function drawCohosts(ids) {
    var list = $("cohosts");
    if (!list) { return; }
    list.textContent = "";
    ids.forEach(function (id) {
      var li = el("li", null, "co-host ");
      li.appendChild(el("code", null, id));
      var drop = el("button", {type: "button", "aria-label": "Drop co-host " + id}, "Drop");
      drop.addEventListener("click", function () {
        fetchRetrying("/api/matches/" + encodeURIComponent(config.match) + "/cohosts/" + encodeURIComponent(id),
              {method: "DELETE", headers: {Authorization: "Bearer " + token}})
          .then(function (r) { return r.json().then(function (m) { return [r.ok, m]; }); })
          .then(function (res) {
            if (res[0]) { drawCohosts(res[1].cohosts); }
            else { $("host-error").textContent = res[1].error.message; }
          });
      });
      li.appendChild(document.createTextNode(" "));
      li.appendChild(drop);
      list.appendChild(li);
    });
  }

  function listMatches() {
    var list = $("my-matches");
    if (!list) { return; }
    fetchRetrying("/api/matches", {headers: {Authorization: "Bearer " + token}})
      .then(function (r) { return r.ok ? r.json() : []; })
      .then(function (matches) {
        list.textContent = "";
        matches.slice().reverse().forEach(function (m) {
          var li = el("li");
          var a = el("a", {href: "/host/" + encodeURIComponent(m.id) + "?token=" + encodeURIComponent(token)});
          a.appendChild(el("code", null, m.id));
          if (m.id === config.match) { a.setAttribute("aria-current", "page"); }
          li.appendChild(a);
          li.appendChild(document.createTextNode(" " + m.game + ": " + (m.waiting || m.status)));
          list.appendChild(li);
        });
      })
      .catch(function () { /* the list is a convenience; the match page works without it */ });
  }

  function fixLinks() {
    // links to the replay of this match carry this page's token (the record is the match's)
    document.querySelectorAll('a[href^="/replay/"]').forEach(function (a) {
      if (a.href.indexOf("token=") < 0) { a.href = a.getAttribute("href") + "?token=" + encodeURIComponent(token); }
    });
  }

  // ------------------------------------------------------------------ public interface

  window.BW = {
    config: config,
    send: send,
    onRender: function (fn) {
      state.renderHooks.push(fn);
      if (state.payload) { try { fn(state.payload); } catch (e) { if (window.console) { console.error(e); } } }
    },
    payload: function () { return state.payload; },
    // a game's own words for the prompt (see hint): the board script gives them once loaded
    hint: function (fn) {
      state.hint = fn;
      if (state.payload) { drawActions(state.payload); }
    },
    // for tests and the curious: drop the socket as a network failure would
    drop: function () { if (state.ws) { state.ws.close(); } }
  };

  hostPanel();
  alertSettings();
  fixLinks();
  show(JSON.parse(document.getElementById("bw-initial").textContent));
  setInterval(drawClocks, 250);
  connect();
})();
