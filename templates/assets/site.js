// Draws every chart whose Vega-Lite spec the page carries, with the site's own Vega bundle.
(function () {
  "use strict";
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  document.querySelectorAll("div.vega[data-spec]").forEach(function (el) {
    var source = document.getElementById(el.getAttribute("data-spec"));
    if (!source || typeof window.vegaEmbed !== "function") return;
    var spec = JSON.parse(source.textContent);
    var options = { actions: false, renderer: "svg" };
    if (dark) options.theme = "dark";
    window.vegaEmbed(el, spec, options).then(function (result) {
      el.classList.add("drawn");
      if (dark) result.view.background("transparent").run();
    }).catch(function (err) {
      el.textContent = "The chart could not be drawn: " + err.message;
    });
  });
})();
