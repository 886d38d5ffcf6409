/* Requests that ride out a takeover (docs/server.md, "Several processes"; docs/pages.md).
 *
 * A 503 means nothing was changed and the request may be sent again: the match's server
 * process is being taken over (owner_unavailable), the database is busy
 * (store_unavailable), or the analysis queue is full (busy).  Every page asks it again
 * after its Retry-After (1 s when it names none, at most 30 s, with a little jitter so
 * tabs do not come back in step) until about a minute has passed, and only then shows
 * what the server said.  While it waits, the page's body carries data-retrying="1".
 * A 503 marked X-Blackwhite-Unsure (the match's server process stopped while answering:
 * the request may or may not have been applied) is asked again only if it reads
 * (GET, HEAD); a page that wrote decides itself (bw.js: an action goes again only if
 * the seat's view shows it was not taken).
 * Loaded by base.html before any page's own script. */
(function () {
  "use strict";

  /** Seconds a page keeps asking before it shows the 503. */
  var PATIENCE = 60;
  var waiting = 0;

  function mark(delta) {
    waiting += delta;
    if (document.body) { document.body.setAttribute("data-retrying", waiting > 0 ? "1" : "0"); }
  }

  /** How long a 503 asks the page to wait, in seconds. */
  function retryAfter(response) {
    var after = Number(response.headers.get("Retry-After"));
    return Math.min(30, after > 0 ? after : 1) * (0.85 + Math.random() * 0.3);
  }

  /** fetch, but a 503 is asked again after its Retry-After for up to PATIENCE seconds. */
  function fetchRetrying(url, options, started) {
    started = started || Date.now();
    return fetch(url, options).then(function (r) {
      if (r.status !== 503) { return r; }
      var method = ((options && options.method) || "GET").toUpperCase();
      if (r.headers.get("X-Blackwhite-Unsure") && method !== "GET" && method !== "HEAD") { return r; }
      var wait = retryAfter(r);
      if ((Date.now() - started) / 1000 + wait > PATIENCE) { return r; }
      mark(1);
      return new Promise(function (resolve) { setTimeout(resolve, wait * 1000); })
        .then(function () { mark(-1); return fetchRetrying(url, options, started); });
    });
  }

  window.BWRetry = {fetch: fetchRetrying, PATIENCE: PATIENCE};
})();
