// A player's whole history from their data file (leagues/<league>/players/<slug>/games.json, written
// by sitegen/output/gamesdata.py): the rows of the rating chart (read by site.js through
// window.sitegenGames) and the "Show all games" list. Same site only, no other requests.
(function () {
  "use strict";
  var loaded = {};

  // The file once per page, however many parts of the page ask for it.
  function games(url) {
    if (!loaded[url]) {
      loaded[url] = fetch(url).then(function (r) {
        if (!r.ok) throw new Error(url + ": " + r.status);
        return r.json();
      });
    }
    return loaded[url];
  }
  window.sitegenGames = games;

  function cell(row, text, cls) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  // The same columns as the page's own rows (templates/_games_rows.html), newest first.
  function fill(tbody, doc, root) {
    var decimals = Number(tbody.getAttribute("data-decimals") || 0);
    var rows = document.createDocumentFragment();
    for (var i = doc.games.length - 1; i >= 0; i--) {
      var g = doc.games[i];
      var tr = document.createElement("tr");
      cell(tr, String(i + 1));
      var a = document.createElement("a");
      a.href = root + doc.league + doc.groups[g[1]] + "#" + g[2];
      var time = document.createElement("time");
      time.dateTime = g[0];
      time.textContent = g[0].slice(0, 10);
      a.appendChild(time);
      cell(tr, "").appendChild(a);
      cell(tr, g[3]);
      cell(tr, g[4]);
      var change = g[5];
      cell(tr, change, change.charAt(0) === "+" ? "up" : change.charAt(0) === "\u2212" ? "down" : "");
      cell(tr, g[6] === null ? "" : g[6].toLocaleString("en", { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).replace("-", "\u2212"));
      rows.appendChild(tr);
    }
    tbody.replaceChildren(rows);
  }

  // A change as the tables write it (fmt_delta in sitegen/output/render.py): +12, −3, ±0.
  function delta(value, decimals) {
    if (value === null) return "new";
    if (value === 0) return "\u00b10";
    var text = Math.abs(value).toLocaleString("en", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    return (value > 0 ? "+" : "\u2212") + text;
  }

  // By code point, as the build sorts names (JavaScript's < compares UTF-16 units).
  function byCodePoint(a, b) {
    var x = Array.from(a), y = Array.from(b);
    for (var i = 0; i < x.length && i < y.length; i++) {
      var d = x[i].codePointAt(0) - y[i].codePointAt(0);
      if (d) return d;
    }
    return x.length - y.length;
  }

  // Every opponent's cells after the name, in the table's order: the file's "opponents" rows,
  // or, where it has none (a league of duels), counted from its games as the build checked:
  // games, the results' first words, the last game's change unless "opponent_changes" has it.
  function opponents(doc, decimals) {
    var columns = doc.opponent_columns;
    var change = columns.indexOf("change");
    if (doc.opponents) {
      return doc.opponents.map(function (o) {
        return [o[0], o.slice(1).map(function (v, i) { return i + 1 === change ? delta(v, decimals) : String(v); })];
      });
    }
    var counts = columns.length - 2 - (change >= 0 ? 1 : 0) > 0;      // won, drawn, lost
    var outcomes = ["win", "draw", "loss"];
    var count = new Map();
    doc.games.forEach(function (g) {
      var c = count.get(g[3]);
      if (!c) count.set(g[3], c = [0, 0, 0, 0, ""]);
      c[0]++;
      var k = outcomes.indexOf(g[4].split(" ")[0]);
      if (k >= 0) c[1 + k]++;
      c[4] = g[5];
    });
    var names = Array.from(count.keys()).sort(function (a, b) {
      return count.get(b)[0] - count.get(a)[0] || byCodePoint(a, b);
    });
    var sums = doc.opponent_changes || {};
    return names.map(function (name) {
      var c = count.get(name);
      var cells = [String(c[0])];
      if (counts) cells.push(String(c[1]), String(c[2]), String(c[3]));
      if (change >= 0) cells.push(Object.prototype.hasOwnProperty.call(sums, name) ? delta(sums[name], decimals) : c[4]);
      return [name, cells];
    });
  }

  // A big league's head to head (templates/player.html, no opponents page): every opponent,
  // the same cells as the table's own rows (rival_rows in sitegen/output/rows.py), most
  // games first.
  function fillOpponents(tbody, doc, root, decimals) {
    var rows = document.createDocumentFragment();
    var players = root + doc.league + "players/";
    var list = opponents(doc, decimals);
    list.forEach(function (o) {
      var name = o[0];
      var slug = Object.prototype.hasOwnProperty.call(doc.slugs, name) ? doc.slugs[name] : name.toLowerCase();
      var tr = document.createElement("tr");
      var a = document.createElement("a");
      a.href = players + encodeURIComponent(slug) + "/";
      a.className = "name";
      a.textContent = name;
      if (Array.from(name).length > 12) a.title = name;     // where a narrow column may cut the name
      cell(tr, "").appendChild(a);
      o[1].forEach(function (text) { cell(tr, text); });
      rows.appendChild(tr);
    });
    tbody.replaceChildren(rows);
    return list.length;
  }

  // A button that loads the data file once and then draws its part of it into the page.
  function expander(id, target, what, draw) {
    var button = document.getElementById(id);
    var tbody = target(button);
    if (!button || !tbody) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      button.disabled = true;
      button.textContent = "Loading all " + what + "…";
      games(button.getAttribute("data-rows")).then(function (doc) {
        draw(button, tbody, doc, button.getAttribute("data-root"));
        button.hidden = true;
        tbody.setAttribute("data-all", "true");
      }).catch(function (err) {
        button.disabled = false;
        button.textContent = "The " + what + " could not be loaded (" + err.message + "); try again";
      });
    });
  }

  expander("games-all", function () { return document.getElementById("games-rows"); }, "games",
    function (button, tbody, doc, root) { fill(tbody, doc, root); });
  expander("opponents-all", function (button) {
    var section = button && button.closest("section");
    return section && section.querySelector("table.h2h tbody");
  }, "opponents", function (button, tbody, doc, root) {
    var n = fillOpponents(tbody, doc, root, Number(button.getAttribute("data-decimals") || 0));
    button.parentNode.replaceChildren("Every opponent, " + n + " of them, most games first.");
  });

  // A big league's player page: where the player stands (rank, opponent pool, predictions) is on
  // standing.html beside it, a page of the same folder, so its links read the same here. Each
  // element with data-standing takes the children of the element whose id its data-part names;
  // where the page cannot be read, the link to it stays.
  var slots = document.querySelectorAll("[data-standing]");
  if (slots.length && window.DOMParser) {
    fetch(slots[0].getAttribute("data-standing")).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (text) {
      var doc = new DOMParser().parseFromString(text, "text/html");
      slots.forEach(function (slot) {
        var part = doc.getElementById(slot.getAttribute("data-part"));
        if (!part) return;
        var nodes = document.createDocumentFragment();
        Array.from(part.childNodes).forEach(function (n) { nodes.appendChild(document.importNode(n, true)); });
        slot.replaceChildren(nodes);
      });
    }).catch(function () {});
  }
})();
