/* Web Push from the page, opt-in (docs/pages.md, "Notifications").
 *
 * On a seat's page (/play/ID) and on the player's page (/me), once the server sends Web
 * Push (GET /api/notify/push gives its key): the page asks once, in its own words, whether
 * to be told even with the page closed; the browser's permission prompt comes only after
 * a yes.  The answer is remembered (localStorage "bw.push.asked"); the box "even with this
 * page closed" changes it later.  A yes registers /static/push-sw.js, subscribes with the
 * server's key and sends the subscription (the seat's token, or the player's); a no, or
 * unticking the box, withdraws it.
 */
(function () {
  "use strict";

  var box = document.getElementById("alert-push");
  var ask = document.getElementById("push-ask");
  var out = document.getElementById("push-out");
  if (!box) { return; }
  var store = BWKeep.store;  // static/keep.js
  var params = new URLSearchParams(location.search);
  var configNode = document.getElementById("bw-config");
  var config = configNode ? JSON.parse(configNode.textContent) : {};
  // a seat's page: its link's token (or this browser's player); the player's page: only
  // this browser's own player, once the player chose to log in here (player.js asks first)
  var token = config.match ? (params.get("token") || store.get("bw.player") || "") : (store.get("bw.player") || "");
  if (!config.match && !token) {
    var login = document.getElementById("player-login");
    if (login) {
      login.addEventListener("click", function () {
        setTimeout(function () { token = store.get("bw.player") || ""; if (token) { start(); } }, 0);
      });
    }
    box.disabled = true;
    return;
  }
  start();

  function start() {
    box.disabled = false;
    var base = config.match ? "/api/matches/" + encodeURIComponent(config.match) + "/push" : "/api/player/push";
    var asked = "bw.push.asked";

    function say(text) { if (out) { out.textContent = text; } }

    function supported() {
      return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
    }

    function post(path, body) {
      return BWRetry.fetch(path, {method: "POST", headers: {"Authorization": "Bearer " + token, "Content-Type": "application/json"},
                          body: JSON.stringify(body)}).then(function (r) {
        if (!r.ok) { return r.json().then(function (e) { throw new Error((e.error && e.error.message) || r.status); }); }
        return r.json();
      });
    }

    function keyBytes(key) {
      var text = key.replace(/-/g, "+").replace(/_/g, "/");
      text += "====".slice(text.length % 4 || 4);
      var raw = atob(text);
      var bytes = new Uint8Array(raw.length);
      for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
      return bytes;
    }

    function registration() {
      return navigator.serviceWorker.register("/static/push-sw.js").then(function (reg) {
        return navigator.serviceWorker.ready ? Promise.race([navigator.serviceWorker.ready, Promise.resolve(reg)]) : reg;
      });
    }

    function subscribe(key) {
      return Notification.requestPermission().then(function (answer) {
        if (answer !== "granted") { throw new Error("the browser's notifications are blocked for this site"); }
        return registration();
      }).then(function (reg) {
        return reg.pushManager.getSubscription().then(function (old) {
          return old || reg.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: keyBytes(key)});
        });
      }).then(function (sub) {
        return post(base, sub.toJSON ? sub.toJSON() : sub);
      });
    }

    function withdraw() {
      return registration().then(function (reg) { return reg.pushManager.getSubscription(); }).then(function (sub) {
        if (!sub) { return null; }
        var endpoint = sub.endpoint;
        return Promise.resolve(sub.unsubscribe ? sub.unsubscribe() : true).then(function () {
          return post(base + "/delete", {endpoint: endpoint});
        });
      });
    }

    function choose(yes, key) {
      store.set(asked, yes ? "yes" : "no");
      if (ask) { ask.hidden = true; }
      box.checked = yes;
      var done = yes ? subscribe(key) : withdraw();
      return done.then(function () {
        say(yes ? "This browser will be told, even with the page closed." : "This browser will not be told by Web Push.");
      }).catch(function (err) {
        box.checked = false;
        if (yes) { store.set(asked, "no"); }
        say("Web Push could not be set up: " + err.message);
      });
    }

    // the player's page: email and Discord are the player's choice too (PATCH /api/player/notify)
    if (!config.match && token) {
      BWRetry.fetch("/api/player/notify", {headers: {"Authorization": "Bearer " + token}}).then(function (r) {
        return r.ok ? r.json() : null;
      }).then(function (channels) {
        if (!channels) { return; }
        ["email", "discord"].forEach(function (name) {
          var tick = document.getElementById("notify-" + name);
          if (!tick) { return; }
          tick.checked = !!channels[name];
          tick.addEventListener("change", function () {
            var body = {};
            body[name] = tick.checked;
            BWRetry.fetch("/api/player/notify", {method: "PATCH", body: JSON.stringify(body),
                                         headers: {"Authorization": "Bearer " + token, "Content-Type": "application/json"}})
              .then(function (r) { say(r.ok ? "Saved." : "Not saved; try again."); });
          });
        });
      });
    }

    if (!supported() || !token) { box.disabled = true; return; }
    BWRetry.fetch("/api/notify/push").then(function (r) { return r.json(); }).then(function (info) {
      var key = info && info.key;
      if (!key) { box.disabled = true; return; }
      var answer = store.get(asked);
      box.checked = answer === "yes";
      box.addEventListener("change", function () { choose(box.checked, key); });
      if (!answer && ask) {
        ask.hidden = false;
        document.getElementById("push-yes").addEventListener("click", function () { choose(true, key); });
        document.getElementById("push-no").addEventListener("click", function () { choose(false, key); });
      }
    }).catch(function () { box.disabled = true; });
  }
}());
