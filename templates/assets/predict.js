// The matchup predictor of a league page. The current ratings (data/<league>/ratings.json,
// written by sitegen/predict.py) are fetched from this site when the box is first opened;
// every number is computed here with the formulas of sitegen/rating/*.py, step for step, so
// that it equals the engine's. Names are only ever set as text (textContent, option.value).
// Each result carries its numbers at full precision in data-* attributes.
(function () {
  "use strict";
  var box = document.querySelector("details.predict-box");
  if (!box) return;
  var form = box.querySelector("form.predict-form");
  var out = box.querySelector(".predict-out");
  var system = box.getAttribute("data-system");
  var data = null, byName = null, loading = false;
  var MAX_LOBBY = 16;

  // --- shared math (sitegen/rating/base.py) ---------------------------------------------

  function expected(ra, rb) {
    var x = (rb - ra) / 400;
    if (x > 300) { var t = Math.pow(10, -x); return t / (1 + t); }
    return 1 / (1 + Math.pow(10, x));
  }
  function kFromBands(bands, r) {
    var k = bands[0][1];
    for (var i = 0; i < bands.length; i++) {
      if (r >= bands[i][0]) k = bands[i][1]; else break;
    }
    return k;
  }
  function roundHalfAway(x) { return (x < 0 ? -1 : 1) * Math.floor(Math.abs(x) + 0.5); }

  // --- lunaro.py ------------------------------------------------------------------------

  function lunaro(a, b, opts) {
    var p = data.params;
    var kOf = function (r) { return p.k === "bands" ? kFromBands(p.k_bands, r) : p.k; };
    var ability = function (r, ping) { return r * (1 / Math.cosh(ping / p.ping_influence)); };
    var e = expected(ability(a.r, opts.pings[0]), ability(b.r, opts.pings[1]));
    return pair(a.r, b.r, e, 1 - e, opts.scores, function (s) {
      return [Math.max(0, roundHalfAway(a.r + kOf(a.r) * (s - e))),
              Math.max(0, roundHalfAway(b.r + kOf(b.r) * ((1 - s) - (1 - e))))];
    });
  }

  // --- elo.py ---------------------------------------------------------------------------

  function marginMultiplier(rule, m, d, draw) {
    if (rule === "none") return 1;
    var top, below;
    if (rule === "538-nfl") {
      top = Math.log(Math.max(m, 1) + 1) * 2.2;
      if (draw) return top;
      below = 0.001 * d + 2.2;
    } else {
      top = Math.pow(m + 3, 0.8);
      if (draw) return top / 7.5;
      below = 7.5 + 0.006 * d;
    }
    return below <= 0 ? NaN : top / below;     // off the formula's domain (the engine refuses it)
  }
  function elo(a, b, opts) {
    var p = data.params;
    var ra = "rev" in a ? a.rev : a.r, rb = "rev" in b ? b.rev : b.r;
    var fide = function (st, r) {
      if ((st.games || 0) < p.provisional_games) return p.k_provisional;
      var master = "master" in st ? st.master : r >= p.master_rating;
      return master ? p.k_master : p.k_standard;
    };
    var ks = p.k === "fide" ? [fide(a, ra), fide(b, rb)] : [p.k, p.k];
    if (p.k_of === "challenger") ks = [ks[opts.challenger], ks[opts.challenger]];
    var ha = opts.home === 0 ? p.home_advantage : 0, hb = opts.home === 1 ? p.home_advantage : 0;
    var e = opts.home === null ? expected(ra, rb) : expected(ra + ha, rb + hb);
    return pair(ra, rb, e, 1 - e, opts.scores, function (s) {
      var d = s === 1 ? (ra + ha) - (rb + hb) : (rb + hb) - (ra + ha);
      var m = marginMultiplier(p.margin, s === 0.5 ? 0 : opts.margin, d, s === 0.5);
      var f = 1 * m;
      return [ra + ks[0] * f * (s - e), rb + ks[1] * f * ((1 - s) - (1 - e))];
    });
  }

  // --- glicko2.py -----------------------------------------------------------------------

  var SCALE = 173.7178, MAX_ITERATIONS = 200;
  function g(phi) { return 1 / Math.sqrt(1 + 3 * phi * phi / (Math.PI * Math.PI)); }
  function expectedScore(pl, op) {
    var z = g(op.rd / SCALE) * (pl.r - op.r) / SCALE;
    if (z < -700) { var t = Math.exp(z); return t / (1 + t); }
    return 1 / (1 + Math.exp(-z));
  }
  function newVolatility(sigma, phi, v, delta, tau, epsilon) {
    var a = Math.log(sigma * sigma), phi2 = phi * phi;
    function f(x) {
      var first;
      if (x > 700) {
        var w = Math.exp(-x);
        first = ((delta * delta - phi2 - v) * w - 1) / (2 * Math.pow((phi2 + v) * w + 1, 2));
      } else {
        var ex = Math.exp(x);
        first = ex * (delta * delta - phi2 - v - ex) / (2 * Math.pow(phi2 + v + ex, 2));
      }
      return first - (x - a) / (tau * tau);
    }
    var A = a, B;
    if (delta * delta > phi2 + v) {
      B = Math.log(delta * delta - phi2 - v);
    } else {
      var k = 1;
      while (f(a - k * tau) < 0) { k += 1; if (k > MAX_ITERATIONS * 1000) return NaN; }
      B = a - k * tau;
    }
    var fA = f(A), fB = f(B);
    for (var i = 0; i < MAX_ITERATIONS; i++) {
      if (Math.abs(B - A) <= epsilon) break;
      var C = A + (A - B) * fA / (fB - fA), fC = f(C);
      if (fC * fB <= 0) { A = B; fA = fB; } else { fA /= 2; }
      B = C; fB = fC;
    }
    return Math.exp(A / 2);
  }
  function glickoUpdate(pl, op, s) {
    // One battle in one rating period: steps 2-8 with a single result.
    var p = data.params, phi = pl.rd / SCALE;
    var gj = g(op.rd / SCALE), e = expectedScore(pl, op);
    var info = gj * gj * e * (1 - e), surprise = gj * (s - e);
    if (info === 0) return pl.r;              // no information: the player only ages (step 6)
    var v = 1 / info, delta = v * surprise;
    var sigma = newVolatility(pl.vol, phi, v, delta, p.tau, p.epsilon);
    var phiStar = Math.sqrt(phi * phi + sigma * sigma);
    var phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
    return pl.r + SCALE * (phiNew * phiNew * surprise);
  }
  function glicko2(a, b, opts) {
    return pair(a.r, b.r, expectedScore(a, b), expectedScore(b, a), opts.scores, function (s) {
      return [glickoUpdate(a, b, s), glickoUpdate(b, a, 1 - s)];
    });
  }

  // --- placement.py ---------------------------------------------------------------------

  function lobby(players) {
    var p = data.params, n = players.length;
    return players.map(function (pl) {
      var e = 0;
      players.forEach(function (other) { if (other !== pl) e += 1 / (1 + Math.pow(10, (other.r - pl.r) / 400)); });
      var k = p.k === "bands" ? kFromBands(p.k_bands, pl.r) : p.k;
      if (p.normalize) k = k / (n - 1);
      var after = [];
      for (var place = 1; place <= n; place++) after.push(Math.max(p.floor, pl.r + k * ((n - place) - e)));
      return { player: pl, expected: e, k: k, after: after };
    });
  }

  // --- openskill.py: the openskill package's PlackettLuce (openskill/models/weng_lin) -----

  // erf as statistics.NormalDist.cdf uses it. Below 4 the series
  // erf(x) = 2/sqrt(pi) e^(-x^2) sum x (2x^2)^n / (1·3·…·(2n+1)) has only positive terms (no
  // cancellation); from 4 on, the continued fraction of erfc (erfc(4) is 1.5e-8 already).
  function erf(x) {
    if (x < 0) return -erf(-x);
    if (x < 4) {
      var term = x, sum = x, x2 = 2 * x * x;
      for (var n = 1; n < 500 && term > 1e-17 * sum; n++) { term *= x2 / (2 * n + 1); sum += term; }
      return 2 / Math.sqrt(Math.PI) * Math.exp(-x * x) * sum;
    }
    var f = x;
    for (var k = 120; k >= 1; k--) f = x + (k / 2) / f;
    return 1 - Math.exp(-x * x) / (Math.sqrt(Math.PI) * f);
  }
  function phiMajor(x) { return 0.5 * (1 + erf(x / Math.SQRT2)); }

  // teams: lists of {mu, sigma}; ranks: the places (lower is better). PlackettLuce.rate with
  // the model's tau and limit_sigma, step for step: tau added to every sigma, the teams
  // sorted by rank (stably), _compute, and back to their order.
  function plackettLuceRate(teams, ranks) {
    var p = data.params, tau2 = p.tau * p.tau, beta2 = p.beta * p.beta;
    var order = teams.map(function (_, i) { return i; });
    order.sort(function (i, j) { return ranks[i] - ranks[j] || i - j; });
    var sorted = order.map(function (i) {
      return teams[i].map(function (pl) { return { mu: pl.mu, sigma: Math.sqrt(pl.sigma * pl.sigma + tau2) }; });
    });
    var r = order.map(function (i) { return ranks[i]; });
    // _calculate_rankings: a team's rank is the index of the first team with its place.
    var rank = [], s = 0;
    for (var i = 0; i < r.length; i++) { if (i > 0 && r[i - 1] < r[i]) s = i; rank.push(s); }
    var tr = sorted.map(function (team, i) {
      var mu = 0, ss = 0;
      team.forEach(function (pl) { mu += pl.mu; ss += pl.sigma * pl.sigma; });
      return { mu: mu, ss: ss, rank: rank[i] };
    });
    var c = 0;
    tr.forEach(function (t) { c += t.ss + beta2; });
    c = Math.sqrt(c);
    var sumQ = tr.map(function (tq) {
      var sum = 0;
      tr.forEach(function (ti) { if (ti.rank >= tq.rank) sum += Math.exp(ti.mu / c); });
      return sum;
    });
    var a = tr.map(function (tq) { return tr.filter(function (t) { return t.rank === tq.rank; }).length; });
    var result = tr.map(function (ti, i) {
      var omega = 0, delta = 0, e = Math.exp(ti.mu / c);
      tr.forEach(function (tq, q) {
        var x = e / sumQ[q];
        if (tq.rank <= ti.rank) {
          delta += x * (1 - x) / a[q];
          if (q === i) omega += (1 - x) / a[q]; else omega -= x / a[q];
        }
      });
      omega *= ti.ss / c;
      delta *= ti.ss / (c * c);
      delta *= Math.sqrt(ti.ss) / c;                 // the default gamma: sqrt(sigma_i^2) / c
      return sorted[i].map(function (pl) {
        var share = pl.sigma * pl.sigma / ti.ss;
        return { mu: pl.mu + share * omega, sigma: pl.sigma * Math.sqrt(Math.max(1 - share * delta, p.kappa)) };
      });
    });
    var out = [];
    order.forEach(function (orig, i) { out[orig] = result[i]; });
    if (p.limit_sigma) {
      out.forEach(function (team, t) {
        team.forEach(function (pl, j) { if (pl.sigma > teams[t][j].sigma) pl.sigma = teams[t][j].sigma; });
      });
    }
    return out;
  }
  function predictWin(teams) {
    // PlackettLuce.predict_win for two teams.
    var p = data.params, n = teams[0].length + teams[1].length;
    var sum = teams.map(function (team) {
      var mu = 0, ss = 0;
      team.forEach(function (pl) { mu += pl.mu; ss += pl.sigma * pl.sigma; });
      return { mu: mu, ss: ss };
    });
    var w = phiMajor((sum[0].mu - sum[1].mu) / Math.sqrt(n * (p.beta * p.beta) + sum[0].ss + sum[1].ss));
    return [w, 1 - w];
  }
  var OPENSKILL_PLACES = { 1: [1, 2], 0.5: [1, 1], 0: [2, 1] };
  function openskill(a, b, opts) {
    var z = data.params.z, ka = { mu: a.mu, sigma: a.sigma }, kb = { mu: b.mu, sigma: b.sigma };
    var win = predictWin([[ka], [kb]]);
    var ord = function (k) { return k.mu - z * k.sigma; };
    var r = pair(ord(ka), ord(kb), win[0], win[1], opts.scores, function (s) {
      var after = plackettLuceRate([[ka], [kb]], OPENSKILL_PLACES[s]);
      return [ord(after[0][0]), ord(after[1][0]), after[0][0], after[1][0]];
    });
    r.skills = [ka, kb];
    return r;
  }

  function pair(ra, rb, ea, eb, scores, afters) {
    return { ra: ra, rb: rb, ea: ea, eb: eb, outcomes: scores.map(function (s) {
      var x = afters(s.value);
      var o = { score: s.value, label: s.label, changeA: x[0] - ra, changeB: x[1] - rb };
      if (x.length > 2) o.skills = [x[2], x[3]];     // openskill: each side's mu and sigma after it
      return o;
    }) };
  }

  // --- the form and the result ----------------------------------------------------------

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }
  var decimals = system === "lunaro" ? 0 : 1;
  function fmtChange(x) {
    var t = Math.abs(x).toFixed(decimals);
    if (Number(t) === 0) return "±0";
    return (x > 0 ? "+" : "−") + t;
  }
  function fmtRating(x) { return x.toFixed(decimals); }
  function fmtDelta(x) {
    var t = Math.abs(x).toFixed(2);
    return Number(t) === 0 ? "±0" : (x > 0 ? "+" : "−") + t;
  }
  function fmtE(x) { return x.toFixed(3); }

  function chosen() {
    var inputs = Array.prototype.slice.call(form.querySelectorAll("input[data-player]"));
    var players = [], missing = [];
    inputs.forEach(function (input) {
      var name = input.value.normalize("NFC").trim();
      if (!name) return;
      if (byName.has(name)) players.push(byName.get(name)); else missing.push(name);
    });
    return { players: players, missing: missing };
  }

  function number(selector, fallback) {
    var input = form.querySelector(selector);
    if (!input) return fallback;
    var v = parseFloat(input.value);
    return isFinite(v) && v >= 0 ? v : fallback;
  }

  function scoresFor() {
    var std = system === "lunaro" ? ["20–0", "10–10", "0–20"]
      : system === "glicko2" ? ["all", "equal", "none"] : ["win", "draw", "loss"];
    var scores = [{ value: 1, label: std[0] }, { value: 0.5, label: std[1] }, { value: 0, label: std[2] }];
    if (system === "lunaro") {
      var goals = form.querySelectorAll("input[data-goals]");
      var ga = Math.round(number("#" + goals[0].id, 0)), gb = Math.round(number("#" + goals[1].id, 0));
      var total = ga + gb;
      scores.unshift({ value: total === 0 ? 0.5 : ga / total, label: ga + "–" + gb });
    }
    return scores;
  }

  function render() {
    out.textContent = "";
    var c = chosen();
    if (c.missing.length) {
      out.appendChild(el("p", "No player named “" + c.missing[0] + "” in this league.", { "class": "meta" }));
      return;
    }
    var names = c.players.map(function (p) { return p.n; });
    if (new Set(names).size !== names.length) {
      out.appendChild(el("p", "Choose different players.", { "class": "meta" }));
      return;
    }
    if (c.players.length < 2) return;
    if (system === "placement") return renderLobby(lobby(c.players));
    var a = c.players[0], b = c.players[1];
    var opts = { scores: scoresFor() };
    if (system === "lunaro") {
      var pings = form.querySelectorAll("input[data-ping]");
      opts.pings = [number("#" + pings[0].id, 0), number("#" + pings[1].id, 0)];
    }
    if (system === "elo") {
      var home = form.querySelector("select[data-home]"), ch = form.querySelector("select[data-challenger]");
      opts.home = home && home.value !== "" ? Number(home.value) : null;
      opts.challenger = ch ? Number(ch.value) : 0;
      opts.margin = number("input[data-margin]", 1);
    }
    var r = { lunaro: lunaro, elo: elo, glicko2: glicko2, openskill: openskill }[system](a, b, opts);
    renderPair(a, b, r);
  }

  function renderPair(a, b, r) {
    var what = system === "lunaro" ? "Expected goal share" : system === "glicko2" ? "Expected battle score"
      : system === "openskill" ? "Chance of winning" : "Expected score";
    var summary = el("p", null, { "class": "predict-expected", "data-expected-a": String(r.ea), "data-expected-b": String(r.eb) });
    summary.appendChild(el("span", what + ": "));
    summary.appendChild(el("span", a.n, { "class": "name" }));
    summary.appendChild(el("span", " (" + fmtRating(r.ra) + ") " + fmtE(r.ea) + " · "));
    summary.appendChild(el("span", b.n, { "class": "name" }));
    summary.appendChild(el("span", " (" + fmtRating(r.rb) + ") " + fmtE(r.eb)));
    out.appendChild(summary);
    var wrap = el("div", null, { "class": "table-wrap" });
    var table = el("table", null, { "class": "predict-table" });
    table.appendChild(el("caption", (system === "openskill" ? "Change of the rating μ − 3σ (and of μ and σ) by result, "
      : "Rating change by result, ") + a.n + " first"));
    var head = el("tr");
    head.appendChild(el("th", "Result", { scope: "col" }));
    [[a, r.ra], [b, r.rb]].forEach(function (x) {
      var th = el("th", null, { scope: "col", "class": "num" });
      th.appendChild(el("span", x[0].n, { "class": "name" }));
      head.appendChild(th);
    });
    table.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    r.outcomes.forEach(function (o) {
      // A margin multiplier off its formula's domain (NaN): no value, as the engine refuses it.
      var known = isFinite(o.changeA) && isFinite(o.changeB);
      var tr = el("tr", null, { "data-score": String(o.score), "data-change-a": known ? String(o.changeA) : "",
                                "data-change-b": known ? String(o.changeB) : "" });
      tr.appendChild(el("th", o.label, { scope: "row" }));
      [o.changeA, o.changeB].forEach(function (change, side) {
        var td = tr.appendChild(el("td", known ? fmtChange(change) : "–", { "class": "num" }));
        if (!o.skills) return;
        // openskill: the belief behind the rating μ − 3σ, after the result and its change.
        var before = r.skills[side], after = o.skills[side];
        td.setAttribute("data-mu", String(after.mu));
        td.setAttribute("data-sigma", String(after.sigma));
        // One line each, so that a phone's two columns stay narrow.
        td.appendChild(el("br"));
        td.appendChild(el("span", "μ " + fmtDelta(after.mu - before.mu), { "class": "meta" }));
        td.appendChild(el("br"));
        td.appendChild(el("span", "σ " + fmtDelta(after.sigma - before.sigma), { "class": "meta" }));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    out.appendChild(wrap);
  }

  function renderLobby(rows) {
    var n = rows.length;
    var wrap = el("div", null, { "class": "table-wrap" });
    var table = el("table", null, { "class": "predict-table" });
    table.appendChild(el("caption", "Expected score (duels won, of " + (n - 1) + ") and rating change by finishing place"));
    var head = el("tr");
    head.appendChild(el("th", "Player", { scope: "col" }));
    head.appendChild(el("th", "E", { scope: "col", "class": "num" }));
    // A phone shows the first and the last place; the places between are .opt columns.
    var cls = function (place) { return place === 1 || place === n ? "num" : "num opt"; };
    for (var place = 1; place <= n; place++) head.appendChild(el("th", ordinal(place), { scope: "col", "class": cls(place) }));
    table.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    rows.forEach(function (row) {
      var tr = el("tr", null, { "data-expected": String(row.expected), "data-player": row.player.n });
      tr.appendChild(el("th", null, { scope: "row" })).appendChild(el("span", row.player.n, { "class": "name" }));
      tr.appendChild(el("td", fmtE(row.expected), { "class": "num" }));
      row.after.forEach(function (after, i) {
        var change = after - row.player.r;
        tr.appendChild(el("td", fmtChange(change), { "class": cls(i + 1), "data-place": String(i + 1), "data-change": String(change) }));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    wrap.appendChild(table);
    out.appendChild(wrap);
  }

  function ordinal(n) {
    var s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] || "th";
    return n + s;
  }

  function addPlayer() {
    var holder = form.querySelector(".predict-players");
    var count = holder.querySelectorAll("input[data-player]").length;
    if (count >= MAX_LOBBY) return;
    var id = "predict-p" + (count + 1);
    var field = el("div", null, { "class": "field predict-player" });
    field.appendChild(el("label", "Player " + (count + 1), { "for": id }));
    field.appendChild(el("input", null, { id: id, type: "text", list: "predict-names", spellcheck: "false", "data-player": "" }));
    holder.appendChild(field);
    field.querySelector("input").focus();
  }

  function start() {
    if (data || loading) return;
    loading = true;
    out.textContent = "Loading the current ratings…";
    fetch(box.getAttribute("data-src"), { credentials: "same-origin" })
      .then(function (resp) { if (!resp.ok) throw new Error("HTTP " + resp.status); return resp.json(); })
      .then(function (doc) {
        data = doc;
        byName = new Map(doc.players.map(function (p) { return [p.n, p]; }));
        var list = document.getElementById("predict-names");
        doc.players.forEach(function (p) { var o = document.createElement("option"); o.value = p.n; list.appendChild(o); });
        form.hidden = false;
        out.textContent = "";
        box.setAttribute("data-ready", "");
        render();
      })
      .catch(function () {
        loading = false;
        out.textContent = "The current ratings could not be loaded.";
      });
  }

  box.addEventListener("toggle", function () { if (box.open) start(); });
  if (box.open) start();
  form.addEventListener("input", function () { if (data) render(); });
  form.addEventListener("change", function () { if (data) render(); });
  form.addEventListener("submit", function (ev) { ev.preventDefault(); });
  var add = form.querySelector("button[data-add]");
  if (add) add.addEventListener("click", addPlayer);
})();
