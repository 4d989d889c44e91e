// Starts Swagger UI on /docs. A file, not an inline script, so that a
// Content-Security-Policy of script-src 'self' allows the page.
window.addEventListener("load", function () {
  var element = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: element.dataset.openapiUrl,
    domNode: element,
    deepLinking: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    showExtensions: true,
    showCommonExtensions: true,
    // The default would send the spec to an online validator and show its badge.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // Tags start folded. With "list" (every tag open at once) and 131 operations, Swagger UI
    // 5.35.0 renders the first four tags and gets no further (no error, still re-rendering);
    // 119 operations render in about 5 s. It depends on the count, not on any one schema:
    // docs/decisions.md "API reference pages".
    docExpansion: "none",
  });
});
