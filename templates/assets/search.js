// The search page: asks the site's own search index (search/index/, written at build time)
// and lists the leagues, players and matches found. Only the files a query needs are
// fetched, once something is searched. Every text from the index is set with textContent:
// names may hold markup, quotes or "</script>", and none of it may ever become HTML.
(function () {
  "use strict";
  var script = document.currentScript;
  var form = document.querySelector("form.search-form");
  if (!script || !form) return;
  // The site's root is the folder above assets/: record URLs are relative to it, so the
  // site works under any sub-path.
  var root = new URL("../", script.src);
  var base = new URL("search/index/", root);
  var input = form.querySelector("input[name=q]");
  var kind = form.querySelector("select[name=kind]");
  var league = form.querySelector("select[name=league]");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var more = document.getElementById("search-more");
  var PAGE = 20;
  var KINDS = { player: "Player", league: "League", match: "Match" };
  var ORDER = ["player", "league", "match"];     // a name's own page before the matches naming it
  var manifest = null;     // the promise of manifest.json
  var files = {};          // promises of the fetched shards and record chunks, by path
  var current = 0;         // the latest search; an older one's answer is dropped
  var found = [];          // the latest search's record numbers, not yet shown past `shown`
  var shown = 0;
  var query = "";          // the latest search's text, as typed

  function fetchJSON(path) {
    if (!files[path]) {
      files[path] = fetch(new URL(path, base).href).then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status + " for " + path);
        return r.json();
      });
      files[path].catch(function () { delete files[path]; });   // tried again next time
    }
    return files[path];
  }

  function load() {
    if (!manifest) {
      manifest = fetchJSON("manifest.json").then(function (m) {
        if (m.format !== 1) throw new Error("unknown search index format " + m.format);
        m.keySet = new Set(m.keys);
        return m;
      });
      manifest.catch(function () { manifest = null; });
    }
    return manifest;
  }

  function say(text) { status.textContent = text; }

  // As the index splits texts (sitegen/output/search.py, words()): NFKC, lower case, runs of
  // letters, marks and digits.
  function words(q) {
    return q.normalize("NFKC").toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) || [];
  }

  function hex(text) {
    return Array.from(new TextEncoder().encode(text), function (b) {
      return (b < 16 ? "0" : "") + b.toString(16);
    }).join("");
  }

  // The record numbers of one query word: every indexed word it begins (a word of one
  // character: only that word, which has its own shard).
  function numbersOf(m, word) {
    var key = Array.from(word).slice(0, m.key_chars).join("");
    if (!m.keySet.has(key)) return Promise.resolve(new Set());
    return fetchJSON("words/" + hex(key) + ".json").then(function (shard) {
      var out = new Set();
      Object.keys(shard).forEach(function (w) {
        if (w.startsWith(word)) {
          var n = 0;
          shard[w].forEach(function (d) { n += d; out.add(n); });
        }
      });
      return out;
    });
  }

  function kindOf(lg, n) {
    for (var i = 0; i < ORDER.length; i++) {
      var r = lg[ORDER[i]];
      if (n >= r[0] && n < r[1]) return ORDER[i];
    }
    return null;
  }

  // Every record holding all the query's words, in the filters, players first, then leagues,
  // then matches newest first.
  function find(m, q) {
    var ws = Array.from(new Set(words(q)));
    if (!ws.length) return Promise.resolve([]);
    return Promise.all(ws.map(function (w) { return numbersOf(m, w); })).then(function (sets) {
      sets.sort(function (a, b) { return a.size - b.size; });
      var hits = [];
      sets[0].forEach(function (n) {
        if (sets.every(function (s) { return s.has(n); })) hits.push(n);
      });
      var wantKind = kind && kind.value;
      var wantLeague = league && league.value;
      var out = [];
      hits.forEach(function (n) {
        var lg = m.leagues.find(function (l) { return n >= l.league[0] && n < l.match[1]; });
        if (!lg) return;
        var k = kindOf(lg, n);
        if (!k || (wantKind && k !== wantKind) || (wantLeague && lg.slug !== wantLeague)) return;
        out.push({ n: n, kind: k, league: lg.name });
      });
      out.sort(function (a, b) {
        var byKind = ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind);
        if (byKind) return byKind;
        return a.kind === "match" ? b.n - a.n : a.n - b.n;
      });
      return out;
    });
  }

  function remember(q) {
    // The address keeps the search, so reload, back and a shared link show the same results.
    var url = new URL(window.location.href);
    url.search = "";
    if (q) url.searchParams.set("q", q);
    if (kind && kind.value) url.searchParams.set("kind", kind.value);
    if (league && league.value) url.searchParams.set("league", league.value);
    window.history.replaceState(null, "", url.href);
  }

  // A big league's matches are found by the match-file pages that list them, a record a page
  // (sitegen/output/search.py): a search for one match's id leads to its row on that page, at
  // "#m-" and the id (sitegen/model/groups.py). A page that does not hold it opens at the top.
  var MATCH_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

  function item(hit, record, q) {
    var href = new URL(record[0], root);
    if (href.origin !== root.origin) return null;   // only pages of this site
    if (hit.kind === "match" && !href.hash && MATCH_ID.test(q)) href.hash = "m-" + q;
    var li = document.createElement("li");
    li.className = "search-result";
    var a = document.createElement("a");
    a.href = href.href;
    a.textContent = record[1] || record[0];
    var tags = document.createElement("span");
    tags.className = "search-tags";
    var k = document.createElement("span");
    k.className = "search-kind is-" + hit.kind;
    k.textContent = KINDS[hit.kind];
    tags.appendChild(k);
    if (hit.kind !== "league") {
      var lg = document.createElement("span");
      lg.className = "search-league";
      lg.textContent = hit.league;
      tags.appendChild(lg);
    }
    li.appendChild(a);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(tags);
    if (record[2]) {
      var p = document.createElement("p");
      p.className = "meta";
      p.textContent = record[2];
      li.appendChild(p);
    }
    return li;
  }

  // The next PAGE results, once their record chunks have arrived; the first batch replaces the list.
  function showMore(id, first) {
    var batch = found.slice(shown, shown + PAGE);
    return load().then(function (m) {
      return Promise.all(batch.map(function (hit) {
        return fetchJSON("records/" + Math.floor(hit.n / m.chunk) + ".json").then(function (chunk) {
          return chunk[hit.n % m.chunk];
        });
      }));
    }).then(function (records) {
      if (id !== current) return false;
      if (first) list.replaceChildren();
      shown += batch.length;
      records.forEach(function (record, i) {
        var li = record && item(batch[i], record, query);
        if (li) list.appendChild(li);
      });
      more.hidden = shown >= found.length;
      return true;
    });
  }

  function search() {
    var q = input.value.trim();
    var id = ++current;
    remember(q);
    if (!q) {
      list.replaceChildren();
      more.hidden = true;
      say("");
      return Promise.resolve();
    }
    if (!manifest) say("Loading the search index\u2026");
    return load().then(function (m) {
      return find(m, q);
    }).then(function (results) {
      if (id !== current) return;
      found = results;
      shown = 0;
      query = q;
      return showMore(id, true).then(function (drawn) {
        if (!drawn) return;
        // Said once the results are on the page, so the count read out matches what is shown.
        var n = found.length;
        say(n === 0 ? "Nothing found for \u201c" + q + "\u201d."
          : n + (n === 1 ? " result" : " results") + " for \u201c" + q + "\u201d.");
      });
    }).catch(function (err) {
      if (id !== current) return;
      list.replaceChildren();
      more.hidden = true;
      say("Search could not be loaded (" + (err && err.message ? err.message : err) +
        "). It needs the site to be served over http(s).");
    });
  }

  var timer = null;
  function soon() {
    window.clearTimeout(timer);
    timer = window.setTimeout(search, 150);
  }

  var params = new URLSearchParams(window.location.search);
  input.value = params.get("q") || "";
  if (kind && params.get("kind") && KINDS[params.get("kind")]) kind.value = params.get("kind");
  if (league && params.get("league")) {
    league.value = params.get("league");
    if (league.value !== params.get("league")) league.value = "";   // not a league of this site
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    window.clearTimeout(timer);
    search();
  });
  input.addEventListener("input", soon);
  if (kind) kind.addEventListener("change", search);
  if (league) league.addEventListener("change", search);
  more.addEventListener("click", function () { showMore(current, false); });
  if (input.value.trim()) search();
})();
