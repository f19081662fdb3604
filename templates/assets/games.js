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

  var button = document.getElementById("games-all");
  var tbody = document.getElementById("games-rows");
  if (!button || !tbody) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    button.disabled = true;
    button.textContent = "Loading all games…";
    games(button.getAttribute("data-rows")).then(function (doc) {
      fill(tbody, doc, button.getAttribute("data-root"));
      button.hidden = true;
      tbody.setAttribute("data-all", "true");
    }).catch(function (err) {
      button.disabled = false;
      button.textContent = "The games could not be loaded (" + err.message + "); try again";
    });
  });
})();
