/* The host page (/): the new-match form built from the games' options, and the host's matches.
 *
 * The host token lives in this browser (localStorage "bw.host"); opening /?token=T
 * offers to use T, and stores it only when the user chooses so.  Each match's private links are kept in this browser too ("bw.links.<id>"):
 * the server stores tokens only as hashes, so it cannot show them again.
 */
(function () {
  "use strict";

  var games = JSON.parse(document.getElementById("bw-games").textContent);
  var bots = JSON.parse(document.getElementById("bw-bots").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var params = new URLSearchParams(location.search);
  // storage may be refused (private browsing, blocked cookies): then the page still works,
  // with the token of its link only (static/keep.js)
  var store = BWKeep.store;
  // A link's host token is never taken silently: anyone can make one, so /?token=X from
  // someone else would make this browser create its matches under X (host-token fixation).
  // Unless X is already this browser's host, the page asks, and creates nothing meanwhile.
  var linkToken = params.get("token") || "";
  /** Keep this browser's host token in the bw_host cookie too (SameSite=Strict: no other
   *  site's link sends it), so /host/ID opens without ?token= (docs/pages.md). */
  function remember(token) { BWKeep.cookie("bw_host", token); }
  var hostToken = store.get("bw.host") || "";
  // the host link `blackwhite serve` printed (the server says so: only that one token) is
  // taken at once by a browser that is no host yet: the operator's first visit asks nothing
  var servedLink = JSON.parse(($("bw-served-link") || {}).textContent || "false") === true;
  if (linkToken && !hostToken && servedLink) {
    hostToken = linkToken;
    store.set("bw.host", hostToken);
    remember(hostToken);
    try { history.replaceState(null, "", location.pathname); } catch (e) { /* the address stays */ }
  }
  var choosing = !!linkToken && linkToken !== hostToken;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function current() {
    var picked = document.querySelector('input[name="game"]:checked');
    var id = picked ? picked.value : games[0].id;
    return games.filter(function (g) { return g.id === id; })[0];
  }

  // ------------------------------------------------------------------ options

  // Each option is drawn from the game's option metadata (label, one-line help, input
  // kind: number, yes/no, choice, one number per seat, items per seat); the option's own
  // name is never shown.  Only options changed from their defaults are sent.
  function optionField(name, value, info, seats) {
    info = info || {label: name.replace(/_/g, " "), help: "", kind: typeof value === "boolean" ? "bool" : "number"};
    var id = "opt-" + name;
    var helpId = id + "-help";
    var wrap = el(info.kind === "per_seat" || info.kind === "seat_items" ? "fieldset" : "div",
      {"class": "field option", "data-option": name, "data-kind": info.kind, "data-default": JSON.stringify(value)});
    var help = el("span", {"class": "small help", id: helpId}, info.help);
    function numberInput(inputId, v, label) {
      var input = el("input", {type: "number", id: inputId, inputmode: "numeric", step: "1", "aria-describedby": helpId});
      if (info.min !== undefined) { input.min = String(info.min); }
      if (info.max !== undefined) { input.max = String(info.max); }
      input.value = v === null || v === undefined ? "" : String(v);
      if (label) { input.setAttribute("aria-label", label); }
      return input;
    }
    if (info.kind === "bool") {
      var box = el("input", {type: "checkbox", id: id, "aria-describedby": helpId});
      box.checked = !!value;
      wrap.appendChild(box);
      wrap.appendChild(el("label", {"for": id}, info.label));
    } else if (info.kind === "choice") {
      wrap.appendChild(el("label", {"for": id}, info.label));
      var select = el("select", {id: id, "aria-describedby": helpId});
      (info.choices || []).forEach(function (c) {
        var option = el("option", {value: JSON.stringify(c.value)}, c.label);
        if (JSON.stringify(c.value) === JSON.stringify(value)) { option.selected = true; }
        select.appendChild(option);
      });
      wrap.appendChild(select);
    } else if (info.kind === "per_seat") {
      wrap.appendChild(el("legend", null, info.label));
      (value || []).forEach(function (v, seat) {
        var seatId = id + "-" + seat;
        var cell = el("span", {"class": "per-seat"});
        cell.appendChild(el("label", {"for": seatId}, "P" + (seat + 1)));
        cell.appendChild(numberInput(seatId, v));
        wrap.appendChild(cell);
      });
    } else if (info.kind === "seat_items") {
      wrap.appendChild(el("legend", null, info.label));
      for (var seat = 0; seat < seats; seat++) {
        var row = el("div", {"class": "seat-items", role: "group", "aria-label": info.label + " of P" + (seat + 1)});
        row.appendChild(el("span", {"class": "seat-h"}, "P" + (seat + 1)));
        var held = (value && value[String(seat)]) || [];
        (info.choices || []).forEach(function (c) {
          var itemId = id + "-" + seat + "-" + c.value;
          var item = el("input", {type: "checkbox", id: itemId, "data-seat": String(seat), "data-item": c.value});
          item.checked = held.indexOf(c.value) >= 0;
          row.appendChild(item);
          row.appendChild(el("label", {"for": itemId}, c.label));
        });
        wrap.appendChild(row);
      }
    } else {
      wrap.appendChild(el("label", {"for": id}, info.label));
      wrap.appendChild(numberInput(id, value));
      if (info.optional) {
        wrap.setAttribute("data-optional", "1");
        wrap.appendChild(el("span", {"class": "small"}, "(empty: none)"));
      }
    }
    wrap.appendChild(help);
    return wrap;
  }

  /** The engine's message with each option named as the form names it ("max_ties" →
   * "Ties before the advantage wins"): the form never shows an option's API name. */
  function inWords(message) {
    var info = current().option_info || {};
    // the server repeats the options as sent ("options {'max_ties': 7} for swapping: ...")
    message = message.replace(/^options \{[\s\S]*?\} for [a-z-]+: /, "");
    Object.keys(info).forEach(function (name) {
      message = message.replace(new RegExp("\\b[Oo]ption " + name + "\\b", "g"), "\u201c" + info[name].label + "\u201d");
    });
    return message;
  }

  /** The value an option's field holds now, as the API takes it. */
  function optionValue(wrap) {
    var kind = wrap.getAttribute("data-kind");
    var id = "opt-" + wrap.getAttribute("data-option");
    function num(text) {
      // a number the browser cannot read is sent as typed: the engine's message names it
      return text.trim() === "" || isNaN(Number(text)) ? text : Number(text);
    }
    if (kind === "bool") { return $(id).checked; }
    if (kind === "choice") { return JSON.parse($(id).value); }
    if (kind === "per_seat") {
      return Array.prototype.map.call(wrap.querySelectorAll("input"), function (input) { return num(input.value); });
    }
    if (kind === "seat_items") {
      var out = {};
      wrap.querySelectorAll("input[data-item]").forEach(function (box) {
        var seat = box.getAttribute("data-seat");
        out[seat] = out[seat] || [];
        if (box.checked) { out[seat].push(box.getAttribute("data-item")); }
      });
      // seats holding nothing are left out, as the default {} leaves them
      Object.keys(out).forEach(function (seat) { if (!out[seat].length) { delete out[seat]; } });
      return out;
    }
    var text = $(id).value;
    return text.trim() === "" && wrap.hasAttribute("data-optional") ? null : num(text);
  }

  function seatField(i) {
    var wrap = el("div", {"class": "seat", role: "group", "aria-labelledby": "seat-h-" + i});
    wrap.appendChild(el("span", {id: "seat-h-" + i, "class": "seat-h"}, "P" + (i + 1)));
    var kind = el("select", {id: "seat-kind-" + i, "aria-label": "P" + (i + 1) + " is"});
    kind.appendChild(el("option", {value: "person"}, "a person"));
    bots.forEach(function (b) { kind.appendChild(el("option", {value: b.name}, "bot: " + b.name)); });
    if (i > 0) { kind.value = bots.some(function (b) { return b.name === "ismcts"; }) ? "ismcts" : bots[0].name; }
    playerOptions(kind);
    wrap.appendChild(kind);
    var name = el("input", {type: "text", id: "seat-name-" + i, maxlength: "64", "aria-label": "P" + (i + 1) + "'s name"});
    name.value = "P" + (i + 1);
    wrap.appendChild(name);
    var budgetLabel = el("label", {"for": "seat-budget-" + i}, "thinks (s)");
    var budget = el("input", {type: "number", id: "seat-budget-" + i, min: "0.1", max: "30", step: "0.1", value: "1"});
    wrap.appendChild(budgetLabel);
    wrap.appendChild(budget);
    function sync() {
      var bot = bots.filter(function (b) { return b.name === kind.value; })[0];
      name.hidden = !!bot || kind.value.indexOf("player:") === 0;
      budget.hidden = budgetLabel.hidden = !(bot && bot.budget);
    }
    kind.addEventListener("change", sync);
    sync();
    return wrap;
  }

  // ------------------------------------------------------------------ players

  /** The host's players (GET /api/players), offered for each person's seat. */
  var myPlayers = [];

  function playerOptions(select) {
    Array.prototype.slice.call(select.querySelectorAll("option[data-player]")).forEach(function (o) { o.remove(); });
    myPlayers.forEach(function (p) {
      select.appendChild(el("option", {value: "player:" + p.id, "data-player": p.id}, "player: " + p.name));
    });
  }

  function showPlayers() {
    var section = $("host-players");
    if (!section || !hostToken || choosing) { return; }
    BWRetry.fetch("/api/players", {headers: {Authorization: "Bearer " + hostToken}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (players) {
        if (!players) { return; }
        section.hidden = false;
        myPlayers = players;
        var list = $("player-list");
        list.textContent = "";
        if (!players.length) { list.appendChild(el("li", null, "none yet")); }
        players.forEach(function (p) {
          var li = el("li", null, p.name + " ");
          li.appendChild(el("code", null, p.id));
          li.appendChild(document.createTextNode(p.claimed ? " · has logged in" : " · has not logged in yet"));
          if (p.discord_id) { li.appendChild(document.createTextNode(" · Discord " + p.discord_id)); }
          if (!p.claimed) {
            var again = el("button", {type: "button", "aria-label": "A new login link for " + p.name}, "New link");
            again.addEventListener("click", function () {
              BWRetry.fetch("/api/players/" + encodeURIComponent(p.id) + "/links",
                {method: "POST", headers: {Authorization: "Bearer " + hostToken}})
                .then(function (r) { return r.json().then(function (data) { return [r.ok, data]; }); })
                .then(function (res) { showPlayerLink(p.name, res[0] ? res[1].link : null, res[1]); });
            });
            li.appendChild(document.createTextNode(" "));
            li.appendChild(again);
          }
          list.appendChild(li);
        });
        document.querySelectorAll("#seat-fields select[id^=seat-kind-]").forEach(playerOptions);
      })
      .catch(function () { /* the section stays hidden */ });
  }

  function showPlayerLink(name, link, data) {
    var out = $("new-player-out");
    out.textContent = "";
    if (!link) { out.textContent = data && data.error ? inWords(data.error.message) : "The server refused."; return; }
    var url = here(link);
    out.appendChild(document.createTextNode(name + "'s login link (shown once; send it to them only): "));
    var box = el("input", {type: "text", readonly: "", value: url, "class": "link", "aria-label": name + "'s login link"});
    out.appendChild(box);
    var copy = el("button", {type: "button", "class": "copy"}, "Copy");
    copy.addEventListener("click", function () {
      box.select();
      try { navigator.clipboard.writeText(url); copy.textContent = "Copied"; } catch (e) { /* selected: copy by hand */ }
    });
    out.appendChild(copy);
  }

  function newPlayer() {
    var body = {name: $("new-player-name").value};
    if ($("new-player-discord").value.trim()) { body.discord_id = $("new-player-discord").value.trim(); }
    if ($("new-player-email").value.trim()) { body.email = $("new-player-email").value.trim(); }
    BWRetry.fetch("/api/players", {method: "POST", headers: {Authorization: "Bearer " + hostToken, "Content-Type": "application/json"},
      body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (data) { return [r.status, data]; }); })
      .then(function (res) {
        showPlayerLink(body.name, res[0] === 201 ? res[1].link : null, res[1]);
        if (res[0] === 201) { $("new-player-name").value = ""; $("new-player-discord").value = ""; $("new-player-email").value = ""; showPlayers(); }
      })
      .catch(function () { $("new-player-out").textContent = "The server cannot be reached."; });
  }

  function build() {
    var game = current();
    var opts = $("option-fields");
    opts.textContent = "";
    Object.keys(game.options).forEach(function (name) {
      opts.appendChild(optionField(name, game.options[name], (game.option_info || {})[name], game.num_seats));
    });
    if (!Object.keys(game.options).length) { opts.appendChild(el("p", null, "This game has no options.")); }
    var seats = $("seat-fields");
    seats.textContent = "";
    for (var i = 0; i < game.num_seats; i++) { seats.appendChild(seatField(i)); }
    $("create-error").textContent = "";
  }

  function readOptions() {
    var out = {};
    document.querySelectorAll("#option-fields [data-option]").forEach(function (wrap) {
      var value = optionValue(wrap);
      if (JSON.stringify(value) !== wrap.getAttribute("data-default")) { out[wrap.getAttribute("data-option")] = value; }
    });
    return {options: out, problems: []};
  }

  function readSeats() {
    var game = current();
    var seats = [];
    for (var i = 0; i < game.num_seats; i++) {
      var kind = $("seat-kind-" + i).value;
      if (kind === "person") { seats.push({name: $("seat-name-" + i).value}); continue; }
      if (kind.indexOf("player:") === 0) { seats.push({player: kind.slice(7)}); continue; }
      var bot = bots.filter(function (b) { return b.name === kind; })[0];
      var spec = kind;
      if (bot && bot.budget && $("seat-budget-" + i).value.trim() !== "") { spec += ":budget=" + $("seat-budget-" + i).value.trim(); }
      seats.push({bot: spec});
    }
    return seats;
  }

  /** The origin links are handed out on: the server's ``--public-url`` when it has one
      (a meta tag the server writes), else this page's own. */
  var ORIGIN = (document.querySelector('meta[name="bw-public-url"]') || {content: ""}).content || location.origin;

  /** ``link`` on :data:`ORIGIN` (its path and query kept); null stays null. */
  function here(link) {
    if (!link) { return null; }
    try { var u = new URL(link, location.origin); return ORIGIN + u.pathname + u.search; } catch (e) { return null; }
  }

  function create(event) {
    event.preventDefault();
    var error = $("create-error");
    var read = readOptions();
    if (choosing) { error.textContent = "Choose which host you are first."; $("host-keep").focus(); return; }
    if (read.problems.length) { error.textContent = read.problems.join("; "); return; }
    var body = {
      game: current().id, options: read.options, seats: readSeats(),
      host_sees_all: $("host-sees-all").checked, paused: $("start-paused").checked,
      start: startPolicy()
    };
    var pace = readPace();
    if (pace.problem) { error.textContent = pace.problem; if (pace.field) { $(pace.field).focus(); } return; }
    body.pace = pace.pace;
    if (body.start === "at") {
      // the field is in this browser's local time; the server takes Unix seconds
      var at = new Date($("start-at").value).getTime();
      if (!$("start-at").value || isNaN(at)) { error.textContent = "Choose when the clocks start."; $("start-at").focus(); return; }
      body.start_at = at / 1000;
    }
    var headers = {"Content-Type": "application/json"};
    if (hostToken) { headers.Authorization = "Bearer " + hostToken; }
    $("create-button").disabled = true;
    error.textContent = "";
    BWRetry.fetch("/api/matches", {method: "POST", headers: headers, body: JSON.stringify(body)})
      .then(function (r) { return r.json().then(function (data) { return [r.status, data]; }); })
      .then(function (res) {
        $("create-button").disabled = false;
        var status = res[0];
        var data = res[1];
        if (status === 403 && hostToken && data.error && (data.error.code === "wrong_token" || data.error.code === "revoked" || data.error.code === "expired")) {
          // a host token from another server (or a wiped database), or a revoked link: start afresh
          store.remove("bw.host");
          remember("");
          hostToken = "";
          error.textContent = "This browser's host token is not known to this server; press Create again to get a new one.";
          showHost();
          return;
        }
        if (status !== 201) { error.textContent = data.error ? inWords(data.error.message) : "the server refused the match"; return; }
        if (data.host_token) { hostToken = data.host_token; store.set("bw.host", hostToken); remember(hostToken); }
        // the links are kept on this page's own origin (the host page shows no other): behind
        // a proxy the server may name itself otherwise, and players open what the host sees
        var links = JSON.stringify({
          spectator: here(data.pages.spectator), seats: data.pages.seats.map(here), host: here(data.pages.host),
          game: data.match.game, players: data.players || []
        });
        store.set("bw.links." + data.id, links);
        // the links ride along in the fragment too (never sent to the server), for a browser
        // that keeps no storage; the match page stores them and drops the fragment
        location.href = "/host/" + encodeURIComponent(data.id) + "?token=" + encodeURIComponent(hostToken) +
          "#links=" + encodeURIComponent(links);
      })
      .catch(function () {
        $("create-button").disabled = false;
        error.textContent = "The server cannot be reached.";
      });
  }

  // ------------------------------------------------------------------ which host

  /** When the clocks start: the checked choice of the "The clocks start" radio group. */
  function startPolicy() {
    var checked = document.querySelector("#start-policy input[name=start]:checked");
    return checked ? checked.value : "when_joined";
  }

  /** The pace the host chose, as the API takes it ({pace}), or what is wrong ({problem, field}). */
  function readPace() {
    var checked = document.querySelector("#pace input[name=pace]:checked");
    var kind = checked ? checked.value : "live";
    if (kind === "live") { return {pace: {kind: "live"}}; }
    function number(id, words, optional) {
      var text = $(id).value.trim();
      if (text === "" && optional) { return {value: null}; }
      var value = Number(text);
      if (text === "" || !isFinite(value)) { return {problem: words + " must be a number.", field: id}; }
      return {value: value};
    }
    if (kind === "scaled") {
      var factor = number("pace-factor", "The clock's factor");
      return factor.problem ? factor : {pace: {kind: "scaled", factor: factor.value}};
    }
    var pace = {kind: "slow"};
    var fields = [["pace-action-hours", "action_hours", "The hours for each move", false],
                  ["pace-reserve-hours", "reserve_hours", "The reserve", true],
                  ["pace-match-hours", "match_hours", "The hours for the whole match", true]];
    for (var i = 0; i < fields.length; i++) {
      var read = number(fields[i][0], fields[i][2], fields[i][3]);
      if (read.problem) { return read; }
      if (read.value !== null && !(fields[i][1] === "reserve_hours" && read.value === 0)) { pace[fields[i][1]] = read.value; }
    }
    if ($("pace-quiet").checked) {
      pace.quiet = {from: $("pace-quiet-from").value, to: $("pace-quiet-to").value, tz: $("pace-quiet-tz").value.trim()};
    }
    return {pace: pace};
  }

  /** Show the slow pace's fields only when it is chosen; the night's zone starts as this browser's. */
  function showPace() {
    var checked = document.querySelector("#pace input[name=pace]:checked");
    $("pace-slow-fields").hidden = !checked || checked.value !== "slow";
  }

  /** A host as the user can tell it apart: the start of its token (enough to see two differ). */
  function hostName(token) { return "host " + token.slice(0, 6) + "…"; }

  /** Say on the form whom a new match will belong to, and allow creating once that is settled. */
  function showHost() {
    var line = $("create-host");
    if (choosing) { line.textContent = "Choose above which host you are before creating a match."; }
    else if (hostToken) { line.textContent = "New matches belong to " + hostName(hostToken) + ", this browser's host."; }
    else { line.textContent = "Your first match makes this browser a new host."; }
    $("create-button").disabled = choosing;
  }

  function settle(useLink) {
    if (useLink) { hostToken = linkToken; store.set("bw.host", hostToken); remember(hostToken); }
    choosing = false;
    $("host-choice").hidden = true;
    // the token leaves the address bar: a reload asks nothing and shows no secret
    try { history.replaceState(null, "", location.pathname); } catch (e) { /* the address stays */ }
    showHost();
    listMine();
    showLinks();
    showPlayers();
    $("create-button").focus();
  }

  function askHost() {
    var box = $("host-choice");
    $("host-choice-text").textContent = hostToken
      ? "The link you opened carries another host's token (" + hostName(linkToken) + "). This browser is " +
        hostName(hostToken) + ". Matches you create belong to the host you choose, who can see, pause and cancel them."
      : "The link you opened carries a host's token (" + hostName(linkToken) + "). Use it only if it is your own " +
        "host link: matches you create belong to that host, who can see, pause and cancel them.";
    $("host-keep").textContent = hostToken ? "Stay " + hostName(hostToken) : "Not my host link: ignore it";
    $("host-switch").textContent = hostToken ? "Switch to " + hostName(linkToken) : "It is mine: use " + hostName(linkToken);
    $("host-keep").addEventListener("click", function () { settle(false); });
    $("host-switch").addEventListener("click", function () { settle(true); });
    box.hidden = false;
    $("host-keep").focus();
  }

  /** The host a token logs in as ({id, links}), or null (not a host's token, revoked, unreachable). */
  function whoIs(token) {
    return BWRetry.fetch("/api/host", {headers: {Authorization: "Bearer " + token}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .catch(function () { return null; });
  }

  /** The host's login links: each with its label and a revoke button, and a button for a new one. */
  function showLinks() {
    var box = $("host-links");
    if (!box) { return; }
    if (choosing || !hostToken) { box.hidden = true; return; }
    whoIs(hostToken).then(function (host) {
      if (!host) { box.hidden = true; return; }
      box.hidden = false;
      $("host-id").textContent = host.id;
      // only an owner link makes links (one limited to matches, or the Discord bot's): no form
      var maker = $("new-link");
      if (maker) { maker.parentNode.hidden = host.scope !== "owner"; }
      var list = $("host-link-list");
      list.textContent = "";
      host.links.forEach(function (link) {
        var li = el("li");
        li.appendChild(el("code", null, link.id));
        var when = new Date(link.created * 1000).toLocaleString();
        var expired = link.expires && link.expires * 1000 <= Date.now();
        li.appendChild(document.createTextNode(" " + (link.label || "a link") + ", made " + when +
          (link.scope === "matches" ? ", creates and runs matches only" :
            link.scope === "discord" ? ", the Discord bot's: runs matches and DMs players their notices" : "") +
          (link.expires && !expired ? ", until " + new Date(link.expires * 1000).toLocaleString() +
            (link.until_used ? " unless opened before" : "") : "") +
          (link["this"] ? " (this browser's)" : "") + (link.revoked ? ": revoked" : expired ? ": expired" : "")));
        // only an owner link manages links (any other sees itself alone, with no button)
        if (!link.revoked && !expired && host.scope === "owner") {
          var button = el("button", {type: "button", "aria-label": "Revoke link " + link.id}, "Revoke");
          button.addEventListener("click", function () {
            if (!window.confirm("Revoke this link? Whoever holds it can no longer control your matches" +
                (link["this"] ? " (this browser holds it: choose another link here first)" : "") + ".")) { return; }
            BWRetry.fetch("/api/host/links/" + encodeURIComponent(link.id) + "/revoke",
                  {method: "POST", headers: {Authorization: "Bearer " + hostToken}})
              .then(function () { showLinks(); });
          });
          li.appendChild(document.createTextNode(" "));
          li.appendChild(button);
        }
        list.appendChild(li);
      });
    });
  }

  function newLink() {
    BWRetry.fetch("/api/host/links", {method: "POST", headers: {Authorization: "Bearer " + hostToken, "Content-Type": "application/json"},
                              body: JSON.stringify({label: $("new-link-label").value.trim() || null,
                                                    scope: $("new-link-scope") ? $("new-link-scope").value : "owner",
                                                    expires_in: $("new-link-expires") && $("new-link-expires").value
                                                      ? Number($("new-link-expires").value) : null})})
      .then(function (r) { return r.json().then(function (data) { return [r.status, data]; }); })
      .then(function (res) {
        var out = $("new-link-out");
        out.textContent = "";
        if (res[0] !== 201) { out.textContent = res[1].error ? res[1].error.message : "refused"; return; }
        // shown once: the server keeps only its hash
        var link = location.origin + "/?token=" + encodeURIComponent(res[1].token);
        out.appendChild(document.createTextNode("The new link (shown only now; keep it private): "));
        out.appendChild(el("input", {type: "text", readonly: "", value: link, "class": "link", "aria-label": "The new link"}));
        showLinks();
      });
  }

  function listMine() {
    var note = $("host-token-note");
    var list = $("my-matches");
    if (choosing || !hostToken) {
      // the list the server drew for the link's token is not this browser's until chosen
      note.textContent = choosing ? "Choose which host you are (above) to see your matches."
        : "Your first match makes you a host; this browser keeps your host token.";
      list.textContent = "";
      list.appendChild(el("li", null, "none yet"));
      return;
    }
    var link = ORIGIN + "/?token=" + encodeURIComponent(hostToken);
    note.textContent = "Your host link (keep it private; it opens your matches from any browser): ";
    note.appendChild(el("a", {href: link}, "host link"));
    BWRetry.fetch("/api/matches", {headers: {Authorization: "Bearer " + hostToken}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (matches) {
        if (!matches) { return; }
        list.textContent = "";
        if (!matches.length) { list.appendChild(el("li", null, "none yet")); }
        matches.slice().reverse().forEach(function (m) {
          var li = el("li");
          var a = el("a", {href: "/host/" + encodeURIComponent(m.id) + "?token=" + encodeURIComponent(hostToken)});
          a.appendChild(el("code", null, m.id));
          li.appendChild(a);
          li.appendChild(document.createTextNode(" " + m.game + ": " + (m.waiting || m.status) + ", version " + m.version));
          list.appendChild(li);
        });
      })
      .catch(function () { /* the list stays as the server rendered it */ });
  }

  document.querySelectorAll('input[name="game"]').forEach(function (r) { r.addEventListener("change", build); });
  if ($("new-link")) { $("new-link").addEventListener("click", newLink); }
  if ($("new-player")) { $("new-player").addEventListener("click", newPlayer); }
  document.querySelectorAll("#start-policy input[name=start]").forEach(function (radio) { radio.addEventListener("change", function () {
    $("start-at").hidden = $("start-at-label").hidden = startPolicy() !== "at";
  }); });
  document.querySelectorAll("#pace input[name=pace]").forEach(function (radio) { radio.addEventListener("change", showPace); });
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone) { $("pace-quiet-tz").value = zone; }
    var zones = Intl.supportedValuesOf ? Intl.supportedValuesOf("timeZone") : [];
    zones.forEach(function (z) { var o = document.createElement("option"); o.value = z; $("pace-zones").appendChild(o); });
  } catch (e) { /* an old browser: the field keeps UTC, and the server names a zone it does not know */ }
  showPace();
  $("create").addEventListener("submit", create);
  build();
  showHost();
  if (hostToken && !choosing) { remember(hostToken); }
  if (choosing && hostToken) {
    // two links of the same host (a new link printed by a restart): nothing to choose
    Promise.all([whoIs(hostToken), whoIs(linkToken)]).then(function (hosts) {
      if (hosts[0] && hosts[1] && hosts[0].id === hosts[1].id) { remember(hostToken); settle(false); }
      else { askHost(); }
    });
  } else if (choosing) { askHost(); }
  listMine();
  showLinks();
  showPlayers();
})();
