/* The API documentation page (/docs): Swagger UI, vendored (static/vendor/swagger-ui),
   over the server's own /openapi.json.  A file, not an inline script, so the page keeps
   the pages' Content-Security-Policy (script-src 'self'). */
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-schema"),
    domNode: root,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // no badge fetched from validator.swagger.io: the page talks to this server only
    validatorUrl: null,
    tryItOutEnabled: false
  });
})();
