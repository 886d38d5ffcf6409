/* The Final shares the death match's board script: load joust.js from beside this file
 * (no build step, so no bundling; the page loads this file by the game's id). */
(function () {
  "use strict";
  var me = document.currentScript;
  var s = document.createElement("script");
  s.src = me && me.src ? me.src.replace(/joust-final\.js(\?.*)?$/, "joust.js") : "/static/games/joust.js";
  document.head.appendChild(s);
})();
