/* What a page keeps in this browser (the host's page, the player's page, Web Push).
 *
 * BWKeep.store: localStorage, which may be refused (private browsing, blocked cookies):
 * then a read finds nothing and a write keeps nothing, and the page still works with the
 * token of its link only.  BWKeep.cookie(name, token): a login's cookie for a year
 * (SameSite=Strict: no other site's link sends it; Secure over https), or none for "".
 * Loaded by base.html before any page's own script.
 */
(function () {
  "use strict";

  var store = {
    get: function (key) { try { return localStorage.getItem(key); } catch (e) { return null; } },
    set: function (key, value) { try { localStorage.setItem(key, value); } catch (e) { /* not kept */ } },
    remove: function (key) { try { localStorage.removeItem(key); } catch (e) { /* nothing kept */ } }
  };

  function cookie(name, token) {
    var secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = token
      ? name + "=" + encodeURIComponent(token) + "; Path=/; Max-Age=31536000; SameSite=Strict" + secure
      : name + "=; Path=/; Max-Age=0; SameSite=Strict" + secure;
  }

  window.BWKeep = {store: store, cookie: cookie};
})();
