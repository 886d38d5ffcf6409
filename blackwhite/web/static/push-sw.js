/* blackwhite's service worker: shows the server's Web Push notifications (docs/pages.md,
 * "Notifications").  A message is {title, body, url, items, unsubscribe}: a click opens
 * url (a single-use link to the seat's page); "Stop these" posts to unsubscribe. */
"use strict";

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {body: event.data ? event.data.text() : ""}; }
  var options = {body: data.body || "", tag: "blackwhite", renotify: true, data: {url: data.url, unsubscribe: data.unsubscribe}};
  if (data.unsubscribe) { options.actions = [{action: "stop", title: "Stop these"}]; }
  event.waitUntil(self.registration.showNotification(data.title || "blackwhite", options));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var data = event.notification.data || {};
  if (event.action === "stop" && data.unsubscribe) {
    event.waitUntil(fetch(data.unsubscribe, {method: "POST"}));
    return;
  }
  if (data.url) { event.waitUntil(self.clients.openWindow(data.url)); }
});
