// The search page: asks the site's own Pagefind index (pagefind/, written at build time)
// and lists the players and matches found. Pagefind is imported only once there is
// something to search. Every text from the index is set with textContent: names may
// hold markup, quotes or "</script>", and none of it may ever become HTML.
(function () {
  "use strict";
  var script = document.currentScript;
  var form = document.querySelector("form.search-form");
  if (!script || !form) return;
  // The site's root is the folder above assets/: record URLs are relative to it, so the
  // site works under any sub-path.
  var root = new URL("../", script.src);
  var input = form.querySelector("input[name=q]");
  var kind = form.querySelector("select[name=kind]");
  var league = form.querySelector("select[name=league]");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var more = document.getElementById("search-more");
  var PAGE = 20;
  var KINDS = { player: "Player", match: "Match" };
  var pagefind = null;     // the promise of the imported module
  var current = 0;         // the latest search; an older one's answer is dropped
  var found = [];          // the latest search's results, not yet shown past `shown`
  var shown = 0;

  function load() {
    if (!pagefind) {
      pagefind = import(new URL("pagefind/pagefind.js", root).href).then(function (module) {
        return module.init().then(function () { return module; });
      });
    }
    return pagefind;
  }

  function say(text) { status.textContent = text; }

  function words(q) {
    return q.replace(/[^\p{L}\p{M}\p{N}\s]+/gu, " ").replace(/\s+/g, " ").trim();
  }

  function filters() {
    var f = {};
    if (kind && kind.value) f.kind = kind.value;
    if (league && league.value) f.league = league.value;
    return f;
  }

  // Players first, then matches: a name's own page ranks above the matches that name it.
  function find(module, q) {
    var f = filters();
    var kinds = f.kind ? [f.kind] : ["player", "match"];
    return Promise.all(kinds.map(function (k) {
      return module.search(q, { filters: Object.assign({}, f, { kind: k }) });
    })).then(function (answers) {
      return answers.reduce(function (all, answer) { return all.concat(answer ? answer.results : []); }, []);
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

  function item(data) {
    var href = new URL(data.raw_url || data.url, root);
    if (href.origin !== root.origin) return null;   // only pages of this site
    var meta = data.meta || {};
    var li = document.createElement("li");
    li.className = "search-result";
    var a = document.createElement("a");
    a.href = href.href;
    a.textContent = meta.title || data.raw_url;
    var tags = document.createElement("span");
    tags.className = "search-tags";
    var k = document.createElement("span");
    k.className = "search-kind " + (meta.kind === "player" ? "is-player" : "is-match");
    k.textContent = KINDS[meta.kind] || meta.kind || "";
    tags.appendChild(k);
    if (meta.league) {
      var lg = document.createElement("span");
      lg.className = "search-league";
      lg.textContent = meta.league;
      tags.appendChild(lg);
    }
    li.appendChild(a);
    li.appendChild(document.createTextNode(" "));
    li.appendChild(tags);
    if (meta.detail) {
      var p = document.createElement("p");
      p.className = "meta";
      p.textContent = meta.detail;
      li.appendChild(p);
    }
    return li;
  }

  // The next PAGE results, once their data has arrived; the first batch replaces the list.
  function showMore(id, first) {
    var batch = found.slice(shown, shown + PAGE);
    return Promise.all(batch.map(function (r) { return r.data(); })).then(function (datas) {
      if (id !== current) return false;
      if (first) list.replaceChildren();
      shown += batch.length;
      datas.forEach(function (data) {
        var li = item(data);
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
    if (!pagefind) say("Loading the search index\u2026");
    return load().then(function (module) {
      return find(module, q).then(function (results) {
        // Pagefind drops punctuation inside a query word ("${alert(1)}" becomes "alert1")
        // but splits words at it when indexing: nothing found, try the words alone.
        var plain = words(q);
        if (results.length || !plain || plain === q) return results;
        return find(module, plain);
      });
    }).then(function (results) {
      if (id !== current) return;
      found = results;
      shown = 0;
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
