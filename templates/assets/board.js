// The leaderboard, improved: sortable columns, a name search and filters. Without
// this script the page shows every player in rank order; nothing here is required.
(function () {
  "use strict";
  var tables = Array.prototype.slice.call(document.querySelectorAll("table.board"));
  if (!tables.length) return;
  var collator = new Intl.Collator(document.documentElement.lang || undefined,
                                   { sensitivity: "base", numeric: true });

  // Case and accents do not count: "zoe" finds "Zoë" (a letter with no decomposition, like Ł, stays).
  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }

  // --- sorting --------------------------------------------------------------------------

  function key(cell, type) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (raw === "") return null;               // no value ("new"): last in either direction
    if (type !== "num") return raw;
    var n = parseFloat(raw);
    return isNaN(n) ? null : n;
  }

  function sortTable(table, th, direction) {
    var tbody = table.tBodies[0];
    if (!table._boardIndexed) {               // the leaderboard's order, for ties
      Array.prototype.forEach.call(tbody.rows, function (row, i) { row._boardIndex = i; });
      table._boardIndexed = true;
    }
    var type = th.getAttribute("data-type");
    var column = th.cellIndex;
    var sign = direction === "ascending" ? 1 : -1;
    var items = Array.prototype.map.call(tbody.rows, function (row) {
      return { row: row, key: key(row.cells[column], type), index: row._boardIndex };
    });
    items.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        if (a.key !== b.key) return a.key === null ? 1 : -1;
      } else {
        var c = type === "num" ? a.key - b.key : collator.compare(a.key, b.key);
        if (c) return sign * c;
      }
      return a.index - b.index;                // ties keep the leaderboard's order
    });
    var fragment = document.createDocumentFragment();
    items.forEach(function (item) { fragment.appendChild(item.row); });
    tbody.appendChild(fragment);
    table.querySelectorAll("thead th[aria-sort]").forEach(function (other) {
      if (other !== th) other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", direction);
  }

  // Only the headers are touched while the page loads; rows are read at the first sort or search.
  tables.forEach(function (table) {
    table.querySelectorAll("thead th[data-type]").forEach(function (th) {
      var button = document.createElement("button");
      button.type = "button";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var now = th.getAttribute("aria-sort");
        var first = th.getAttribute("data-first") ||
                    (th.getAttribute("data-type") === "num" ? "descending" : "ascending");
        var next = now ? (now === "ascending" ? "descending" : "ascending") : first;
        sortTable(table, th, next);
      });
    });
  });

  // --- search and filters --------------------------------------------------------------

  var form = document.querySelector("form.board-tools[role=search]");
  if (!form) return;
  var search = form.querySelector("input[type=search]");
  var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-filter]"));
  var status = form.querySelector(".board-count");
  var rows = null;
  function index() {
    rows = [];
    tables.forEach(function (table) {
      var inactive = table.getAttribute("aria-labelledby") === "inactive-h";
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var name = row.querySelector("th[scope=row]");
        rows.push({ row: row, name: fold(name ? name.textContent : ""), inactive: inactive });
      });
    });
  }

  var timer = null;
  function announce(text) {
    // Said once typing pauses, not at every key.
    clearTimeout(timer);
    timer = setTimeout(function () { status.textContent = text; }, 250);
  }

  var initial = status.textContent;
  function apply() {
    if (!rows) index();
    var query = fold(search.value.trim());
    var wanted = selects.map(function (s) { return [s.getAttribute("data-filter"), s.value]; })
                        .filter(function (f) { return f[1] !== ""; });
    var shownActive = 0, shownInactive = 0, active = 0;
    var ranked = [];
    rows.forEach(function (r) {
      var inGroup = true;
      for (var i = 0; inGroup && i < wanted.length; i++) {
        inGroup = r.row.getAttribute("data-" + wanted[i][0]) === wanted[i][1];
      }
      var ok = inGroup && (!query || r.name.indexOf(query) !== -1);
      if (r.row.hidden === ok) r.row.hidden = !ok;
      if (!r.inactive) {
        active++;
        if (inGroup) ranked.push(r);
      }
      if (ok) {
        if (r.inactive) shownInactive++; else shownActive++;
      }
    });
    rerank(wanted.length ? ranked : null);
    var text = initial;
    if (query || wanted.length) {
      text = shownActive + " of " + active + " active players shown";
      if (shownInactive) text += ", and " + shownInactive + " inactive";
    }
    announce(text);
  }

  // A filter (platform, region, tier) ranks the active players of that group among themselves,
  // ties shared, as the page ranks all active players; a name search keeps the ranks it finds.
  function rerank(group) {
    rows.forEach(function (r) {
      if (r.inactive) return;
      var cell = r.row.cells[0];
      if (r.rank === undefined) r.rank = cell.textContent;
      cell.textContent = r.rank;
    });
    if (!group) return;
    var ratings = group.map(function (r) {
      var rating = r.row.querySelector("th[scope=row]").nextElementSibling;
      return parseFloat(rating.getAttribute("data-sort"));
    });
    // 1 + the number of higher ratings: the first place of that rating in descending order.
    var first = {};
    ratings.slice().sort(function (a, b) { return b - a; }).forEach(function (x, i) {
      if (!(x in first)) first[x] = i;
    });
    group.forEach(function (r, i) { r.row.cells[0].textContent = String(first[ratings[i]] + 1); });
  }

  search.addEventListener("input", apply);
  selects.forEach(function (s) { s.addEventListener("change", apply); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.hidden = false;
  if (search.value || selects.some(function (s) { return s.value; })) apply();   // restored by the browser
})();
