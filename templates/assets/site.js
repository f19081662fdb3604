// Draws every chart of the page with the site's own Vega bundles. A chart whose Vega-Lite spec the
// page carries is drawn by vega-embed from vega.js (900 KB: Vega, the Vega-Lite compiler and
// vega-embed); a player's history chart, compiled to Vega ahead of time (history.vg.json, written
// by scripts/vendor_vega_runtime.py), needs only vega-runtime.js (440 KB), and its drawing is cut
// into steps that each leave the main thread free for a moment. Either bundle is fetched only on
// pages that have such a chart, only after the page has loaded and only once a chart comes near
// the screen, so it never holds up the first paint and a leaderboard read from the top never
// pays for its histogram at the bottom.
(function () {
  "use strict";
  var charts = document.querySelectorAll("div.vega[data-spec], div.vega[data-spec-url], div.vega[data-vega-url]");
  if (!charts.length) return;
  var self = document.currentScript || document.querySelector("script[src$='site.js']");
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var scripts = {};

  // A bundle once per page; it resolves when the bundle has defined `global`.
  function script(name, global) {
    if (!scripts[name]) {
      scripts[name] = new Promise(function (resolve, reject) {
        if (window[global]) return resolve();
        var s = document.createElement("script");
        s.src = new URL(name, self.src).href;
        s.onload = function () { if (window[global]) resolve(); else reject(new Error(name + " defines no " + global)); };
        s.onerror = function () { reject(new Error(name + " could not be loaded")); };
        document.head.appendChild(s);
      });
    }
    return scripts[name];
  }

  function json(url) {
    return fetch(url).then(function (r) { if (!r.ok) throw new Error(url + ": " + r.status); return r.json(); });
  }

  // Vega draws into a layer over the box, so that the preview drawn at build time stays in
  // place (and the box keeps its size) until the chart is there; then the preview goes.
  function layer(el) {
    if (!el._live) {
      el._live = document.createElement("div");
      el._live.className = "vega-live";
      el.appendChild(el._live);
    }
    return el._live;
  }

  function drawn(el) {
    el.classList.add("drawn");
    var still = el.querySelector("svg.preview");
    if (still) still.remove();
  }

  function failed(el, err) {
    if (el._live) el._live.remove();
    el._live = null;
    var note = document.createElement("p");
    note.className = "chart-error";
    note.textContent = "The interactive chart could not be drawn: " + err.message;
    el.appendChild(note);
  }

  function embed(el, spec) {
    var options = { actions: false, renderer: "svg" };
    if (dark) options.theme = "dark";
    if (el._view) el._view.finalize();
    return window.vegaEmbed(layer(el), spec, options).then(function (result) {
      el._view = result;
      drawn(el);
      if (dark) result.view.background("transparent").run();
    }).catch(function (err) { failed(el, err); });
  }

  // The rows of a player's chart: the rated games of the player's data file (games.js loads it
  // once for the chart and the games list).
  function historyRows(el) {
    var load = window.sitegenGames || json;
    return load(el.getAttribute("data-rows")).then(function (doc) {
      var rows = [];
      doc.games.forEach(function (g, i) {
        if (g[6] === null) return;        // rated with a later game of its period
        rows.push({ date: g[0], game: i + 1, rating: g[6], match: g[2].replace(/^m-/, ""),
                    opponent: g[3], result: g[4], change: g[5] });
      });
      return rows;
    });
  }

  // A chart's switches: the x axis and the range (the rows from a game number on).
  function switches(controls, redraw) {
    var state = { x: "date", first: 1 };
    controls.querySelectorAll("button").forEach(function (button) {
      button.addEventListener("click", function () {
        var group = button.parentNode;
        group.querySelectorAll("button").forEach(function (b) {
          b.setAttribute("aria-pressed", String(b === button));
        });
        if (button.hasAttribute("data-x")) state.x = button.getAttribute("data-x");
        if (button.hasAttribute("data-first")) state.first = Number(button.getAttribute("data-first"));
        redraw(state);
      });
    });
    return state;
  }

  // A Vega-Lite history chart (a theme's own player page may still name history.vl.json):
  // spec.usermeta.x holds one encoding per axis; every switch draws the chart again.
  function embedHistory(el, controls) {
    var url = el.getAttribute("data-spec-url");
    Promise.all([json(url), historyRows(el), script("vega.js", "vegaEmbed")]).then(function (all) {
      var spec = all[0], rows = all[1], meta = spec.usermeta, drawing = Promise.resolve();
      function redraw(state) {
        // One drawing at a time: quick presses must not leave two charts in the box.
        drawing = drawing.then(function () {
          var next = Object.assign({}, spec);
          if (meta && meta.x) next.encoding = Object.assign({}, spec.encoding, { x: meta.x[state.x] });
          next.datasets = {};
          next.datasets[meta.dataset] = rows.filter(function (r) { return r.game >= state.first; });
          return embed(el, next);
        });
        return drawing;
      }
      var state = controls && meta && meta.x ? switches(controls, redraw) : { x: "date", first: 1 };
      redraw(state).then(function () { if (controls && el._view) controls.hidden = false; });
    }, function () { /* the preview stays */ });
  }

  // The next step of a drawing in a task of its own: the page answers input in between.
  function later(value) {
    return new Promise(function (resolve) { setTimeout(function () { resolve(value); }, 0); });
  }

  // A player's history chart from its compiled specs (one per theme and axis): parsed, run and
  // rendered in separate tasks. A range switch gives the view its rows again; an axis switch
  // builds the other axis's view and swaps it in once it is ready.
  function vegaHistory(el, controls) {
    var url = el.getAttribute("data-vega-url");
    Promise.all([json(url), historyRows(el), script("vega-runtime.js", "vega")]).then(function (all) {
      var compiled = all[0], rows = all[1], specs = compiled[dark ? "dark" : "light"];
      var name = compiled.dataset, current = null, drawing = Promise.resolve();
      var show = new window.vegaTooltip.Handler().call;

      // A point's tooltip is its row (the compiled spec says `datum`), formatted here when it is
      // hovered rather than for every point as the chart is drawn: the fields, titles and formats
      // of the Vega-Lite spec, with the view's own number and time formats.
      function handler(h, event, item, value) {
        var text = null;
        if (value) {
          var locale = this.locale();
          text = {};
          compiled.tooltip.forEach(function (f) {
            var v = value[f.field];
            if (v === null) text[f.title] = "null";         // as Vega's format functions say it
            else if (f.utc !== undefined) text[f.title] = locale.utcFormat(f.utc)(v instanceof Date ? v : new Date(v));
            else if (f.format !== undefined) text[f.title] = locale.format(f.format)(v);
            else text[f.title] = String(v);
          });
        }
        return show.call(this, h, event, item, text);
      }

      function kept(state) {
        // Fresh objects: Vega marks each row it takes in, and a view is given its rows more than once.
        return rows.filter(function (r) { return r.game >= state.first; })
                   .map(function (r) { return Object.assign({}, r); });
      }

      // The new view gets a layer of its own, hidden until it is drawn: Vega empties the element
      // it is given, and the chart on screen stays there until its successor replaces it.
      function build(state) {
        var vega = window.vega, view, next = document.createElement("div");
        next.className = "vega-live";
        next.style.visibility = "hidden";
        el.appendChild(next);
        return later(specs[state.x]).then(function (spec) {
          return later(vega.parse(spec));
        }).then(function (runtime) {
          view = new vega.View(runtime, { renderer: "none" });
          view.tooltip(handler);
          view.data(name, kept(state));
          return later();
        }).then(function () {
          // The dataflow without a renderer first: the sizes come from the box (containerSize()).
          return view.initialize(next).runAsync();
        }).then(later).then(function () {
          return view.renderer("svg").initialize(next).runAsync();
        }).then(function () {
          if (current) current.view.finalize();
          if (el._live) el._live.remove();
          next.style.visibility = "";
          el._live = next;
          el._view = view;
          current = { view: view, x: state.x };
        }, function (err) {
          if (view) view.finalize();
          next.remove();
          throw err;
        });
      }

      // One drawing at a time, in the order of the presses; after a failure the note stays.
      // aria-busy while any is to come: the chart on screen is not yet the one asked for.
      var waiting = 0;
      function redraw(state) {
        waiting += 1;
        el.setAttribute("aria-busy", "true");
        drawing = drawing.then(function (ok) {
          if (ok === false) return false;
          var step = current && current.x === state.x ? current.view.data(name, kept(state)).runAsync()
                                                       : build(state);
          return step.then(function () { drawn(el); return true; }, function (err) {
            if (current) current.view.finalize();
            current = null;
            failed(el, err);
            return false;
          });
        }).then(function (ok) {
          waiting -= 1;
          if (!waiting) el.removeAttribute("aria-busy");
          return ok;
        });
        return drawing;
      }

      var state = controls ? switches(controls, redraw) : { x: "date", first: 1 };
      redraw(state).then(function (ok) { if (ok && controls) controls.hidden = false; });
    }, function () { /* the preview stays */ });
  }

  function start() {
    charts.forEach(function (el) {
      var controls = document.getElementById(el.getAttribute("data-controls") || "");
      if (el.hasAttribute("data-vega-url")) return vegaHistory(el, controls);
      if (el.hasAttribute("data-spec-url")) return embedHistory(el, controls);
      var source = document.getElementById(el.getAttribute("data-spec"));
      if (!source) return;
      // Without the bundle the preview stays: the box is never empty.
      script("vega.js", "vegaEmbed").then(function () { embed(el, JSON.parse(source.textContent)); },
                                          function () {});
    });
  }

  function whenNear() {
    if (!("IntersectionObserver" in window)) return start();
    var watch = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) {
        watch.disconnect();
        start();
      }
    }, { rootMargin: "600px 0px" });
    charts.forEach(function (el) { watch.observe(el); });
  }

  if (document.readyState === "complete") whenNear();
  else window.addEventListener("load", whenNear);
})();
