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
    // Tags start folded: 130-odd operations unfolded at once stall the page for a minute.
    docExpansion: "none",
  });
});
