/* The Final shares the death match's board script: load grouping.js from beside this file
 * (no build step, so no bundling; the page loads this file by the game's id). */
(function () {
  "use strict";
  var me = document.currentScript;
  var s = document.createElement("script");
  s.src = me && me.src ? me.src.replace(/grouping-final\.js(\?.*)?$/, "grouping.js") : "/static/games/grouping.js";
  document.head.appendChild(s);
})();
