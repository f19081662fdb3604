// Draws every chart whose Vega-Lite spec the page carries, with the site's own Vega bundle.
// The bundle is 900 KB: it is fetched only on pages that have a chart, only after the page
// has loaded and only once a chart comes near the screen, so it never holds up the first
// paint and a leaderboard read from the top never pays for its histogram at the bottom.
(function () {
  "use strict";
  var charts = document.querySelectorAll("div.vega[data-spec], div.vega[data-spec-url]");
  if (!charts.length) return;
  var self = document.currentScript || document.querySelector("script[src$='site.js']");
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;

  // Vega draws into a layer over the box, so that the preview drawn at build time stays in
  // place (and the box keeps its size) until the chart is there; then the preview goes.
  function draw(el, spec) {
    var options = { actions: false, renderer: "svg" };
    if (dark) options.theme = "dark";
    if (el._view) el._view.finalize();
    if (!el._live) {
      el._live = document.createElement("div");
      el._live.className = "vega-live";
      el.appendChild(el._live);
    }
    return window.vegaEmbed(el._live, spec, options).then(function (result) {
      el._view = result;
      el.classList.add("drawn");
      var still = el.querySelector("svg.preview");
      if (still) still.remove();
      if (dark) result.view.background("transparent").run();
    }).catch(function (err) {
      el._live.remove();
      el._live = null;
      var note = document.createElement("p");
      note.className = "chart-error";
      note.textContent = "The interactive chart could not be drawn: " + err.message;
      el.appendChild(note);
    });
  }

  // A history chart's switches: the x axis (spec.usermeta.x holds one encoding per choice)
  // and the range (the rows from a game number on).
  function controlled(el, spec, controls) {
    var meta = spec.usermeta;
    var rows = spec.datasets[meta.dataset];
    var state = { x: "date", first: 1 };
    var drawing = Promise.resolve();
    function redraw() {
      // One drawing at a time: quick presses must not leave two charts in the box.
      drawing = drawing.then(function () {
        var next = Object.assign({}, spec);
        next.encoding = Object.assign({}, spec.encoding, { x: meta.x[state.x] });
        next.datasets = {};
        next.datasets[meta.dataset] = rows.filter(function (r) { return r.game >= state.first; });
        return draw(el, next);
      });
      return drawing;
    }
    controls.querySelectorAll("button").forEach(function (button) {
      button.addEventListener("click", function () {
        var group = button.parentNode;
        group.querySelectorAll("button").forEach(function (b) {
          b.setAttribute("aria-pressed", String(b === button));
        });
        if (button.hasAttribute("data-x")) state.x = button.getAttribute("data-x");
        if (button.hasAttribute("data-first")) state.first = Number(button.getAttribute("data-first"));
        redraw();
      });
    });
    return redraw().then(function () { controls.hidden = false; });
  }

  // A player's chart: the spec is a shared asset, the rows the rated games of the player's
  // data file (games.js loads it once for the chart and the games list).
  function fetched(el) {
    var load = window.sitegenGames || function (url) {
      return fetch(url).then(function (r) { if (!r.ok) throw new Error(url + ": " + r.status); return r.json(); });
    };
    var specUrl = el.getAttribute("data-spec-url");
    var spec = fetch(specUrl).then(function (r) { if (!r.ok) throw new Error(specUrl + ": " + r.status); return r.json(); });
    return Promise.all([spec, load(el.getAttribute("data-rows"))]).then(function (both) {
      var spec = both[0], doc = both[1], rows = [];
      doc.games.forEach(function (g, i) {
        if (g[6] === null) return;        // rated with a later game of its period
        rows.push({ date: g[0], game: i + 1, rating: g[6], match: g[2].replace(/^m-/, ""),
                    opponent: g[3], result: g[4], change: g[5] });
      });
      spec.datasets[spec.usermeta.dataset] = rows;
      return spec;
    });
  }

  function show(el, spec) {
    var controls = document.getElementById(el.getAttribute("data-controls") || "");
    if (controls && spec.usermeta && spec.usermeta.x) controlled(el, spec, controls);
    else draw(el, spec);
  }

  function start() {
    charts.forEach(function (el) {
      if (el.hasAttribute("data-spec-url")) {
        fetched(el).then(function (spec) { show(el, spec); }, function () { /* the preview stays */ });
        return;
      }
      var source = document.getElementById(el.getAttribute("data-spec"));
      if (!source) return;
      show(el, JSON.parse(source.textContent));
    });
  }

  // Without the bundle the previews stay: the box is never empty.
  function fail() {}

  function load() {
    // A page may still carry the bundle itself; then it has run before this script.
    if (typeof window.vegaEmbed === "function") return start();
    var script = document.createElement("script");
    script.src = new URL("vega.js", self.src).href;
    script.onload = function () { if (typeof window.vegaEmbed === "function") start(); else fail(); };
    script.onerror = fail;
    document.head.appendChild(script);
  }

  function whenNear() {
    if (!("IntersectionObserver" in window)) return load();
    var watch = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) {
        watch.disconnect();
        load();
      }
    }, { rootMargin: "600px 0px" });
    charts.forEach(function (el) { watch.observe(el); });
  }

  if (document.readyState === "complete") whenNear();
  else window.addEventListener("load", whenNear);
})();
