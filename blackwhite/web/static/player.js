/* The player's page (/me): log in with a player's link, rename, email, login links,
 * and the deadlines of the matches waiting for the player, counted down.
 *
 * A player's token lives in this browser (localStorage "bw.player") and in the bw_player
 * cookie (SameSite=Strict: no other site's link sends it), which lets /me and the play
 * pages of the player's seats open without ?token=.  A link's token is never taken
 * silently: the page asks first (someone else's link would make this browser play as them).
 */
(function () {
  "use strict";

  var config = JSON.parse(document.getElementById("bw-player").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var params = new URLSearchParams(location.search);
  var store = BWKeep.store;  // static/keep.js
  function remember(token) {
    BWKeep.cookie("bw_player", token);
    if (token) { store.set("bw.player", token); } else { store.remove("bw.player"); }
  }
  function dropToken() {
    try { history.replaceState(null, "", location.pathname); } catch (e) { /* the address stays */ }
  }

  var linkToken = params.get("token") || "";
  var own = store.get("bw.player") || "";
  // the token this page was rendered with: the link's, else this browser's own
  var token = linkToken || own;

  if (linkToken && config.id) {
    if (linkToken === own) {
      remember(own);
      dropToken();
    } else {
      var choice = $("player-choice");
      choice.hidden = false;
      $("player-choice-text").textContent = "This is a login link of player " + config.name + ". " +
        (own ? "This browser is logged in as another player; log in as " + config.name + " instead?"
             : "Log in as " + config.name + " in this browser? Do so only if the link was sent to you.");
      $("player-login").textContent = "Log in as " + config.name;
      $("player-ignore").focus();
      $("player-login").addEventListener("click", function () {
        remember(linkToken);
        choice.hidden = true;
        dropToken();
      });
      $("player-ignore").addEventListener("click", function () {
        choice.hidden = true;
        dropToken();
        location.replace("/me");
      });
    }
  }

  // ------------------------------------------------------------------ deadlines

  var skew = (config.now || Date.now() / 1000) - Date.now() / 1000;
  function leftText(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    if (s >= 86400) { return Math.floor(s / 86400) + " d " + Math.floor((s % 86400) / 3600) + " h left"; }
    if (s >= 3600) { return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min left"; }
    var r = s % 60;
    return Math.floor(s / 60) + ":" + (r < 10 ? "0" : "") + r + " left";
  }
  function tick() {
    var now = Date.now() / 1000 + skew;
    Array.prototype.forEach.call(document.querySelectorAll(".deadline[data-deadline]"), function (node) {
      var at = parseFloat(node.getAttribute("data-deadline"));
      if (!isNaN(at)) { node.textContent = leftText(at - now); }
    });
  }
  setInterval(tick, 1000);

  // ------------------------------------------------------------------ the player's own

  function say(text, bad) {
    var out = $("me-out");
    if (!out) { return; }
    out.textContent = text;
    out.className = bad ? "small error" : "small";
  }
  function call(method, path, body) {
    var init = {method: method, headers: {"Authorization": "Bearer " + token}};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return BWRetry.fetch(path, init).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) { throw new Error((data.error && data.error.message) || ("refused: " + r.status)); }
        return data;
      });
    });
  }
  function on(id, handler) { var node = $(id); if (node) { node.addEventListener("click", handler); } }

  on("me-rename", function () {
    call("PATCH", "/api/player", {name: $("me-name").value}).then(function (me) {
      $("player-name").textContent = me.name;
      say("Renamed: new matches show you as " + me.name + ".");
    }, function (err) { say(err.message, true); });
  });
  on("me-save-email", function () {
    var value = $("me-email").value.trim();
    call("PATCH", "/api/player", {email: value || null}).then(function (me) {
      say(me.email ? "Saved: notifications go to " + me.email + "." : "No email kept.");
    }, function (err) { say(err.message, true); });
  });
  on("me-clear-discord", function () {
    call("PATCH", "/api/player", {discord_id: null}).then(function () {
      $("me-discord").textContent = "not linked";
      $("me-clear-discord").hidden = true;
      say("Your Discord account is no longer linked.");
    }, function (err) { say(err.message, true); });
  });
  Array.prototype.forEach.call(document.querySelectorAll(".revoke-link"), function (button) {
    button.addEventListener("click", function () {
      var id = button.getAttribute("data-link");
      call("POST", "/api/player/links/" + encodeURIComponent(id) + "/revoke").then(function (link) {
        button.replaceWith(document.createTextNode("revoked"));
        if (link.this) { remember(""); say("That was this browser's link: you are logged out here."); }
        else { say("Revoked: that link logs in no more."); }
      }, function (err) { say(err.message, true); });
    });
  });
  on("new-player-link", function () {
    var label = $("new-player-link-label").value.trim();
    call("POST", "/api/player/links", label ? {label: label} : {}).then(function (made) {
      var out = $("new-player-link-out");
      out.textContent = "";
      out.appendChild(document.createTextNode("Your new link (shown once; keep it private): "));
      var box = document.createElement("input");
      box.type = "text";
      box.readOnly = true;
      box.value = location.origin + "/me?token=" + made.token;
      box.setAttribute("aria-label", "your new login link");
      out.appendChild(box);
    }, function (err) { say(err.message, true); });
  });
  on("player-logout", function () {
    remember("");
    location.replace("/me");
  });
}());
