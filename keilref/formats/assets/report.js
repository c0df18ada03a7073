(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("keilref-data").textContent);
  var words = data.words || {};
  var views = {};
  var active = null;
  // A source excerpt wider than the screen opens scrolled to its caret: the
  // faulty token is what it is shown for (the caret's line is its last).
  Array.prototype.forEach.call(document.querySelectorAll("pre.source"), function (pre) {
    var lines = pre.textContent.split("\n"), caret = lines[lines.length - 1].length - 1;
    var widest = Math.max.apply(null, lines.map(function (l) { return l.length; }));
    if (pre.scrollWidth <= pre.clientWidth || caret < 0 || !widest) return;
    var perChar = pre.scrollWidth / widest;
    pre.scrollLeft = Math.max(0, caret * perChar - pre.clientWidth / 2);
  });
  var CROWN = [[-0.55, 0.32], [-0.62, -0.38], [-0.3, -0.02], [0, -0.5], [0.3, -0.02], [0.62, -0.38], [0.55, 0.32]];
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    parent.appendChild(e);
    return e;
  }
  // The frames after `prefix`, one per turn; turn numbers go on from `ply`.
  // `shift` is 1 where White plays the first turn (a set-up position): the odd turns are then White's.
  function extend(prefix, turns, ply, shift) {
    var out = prefix.slice(), f = prefix[prefix.length - 1], pos = f.pos.slice(), clk = f.clk.slice();
    turns.forEach(function (t) {
      var ch = t[1], last = -1, caps = [];
      for (var j = 0; j < ch.length; j += 2) {
        var p = ch[j], c = ch[j + 1];
        if (c === ".") caps.push([p, pos[p]]); else if (pos[p] === ".") last = p;
        pos[p] = c;
      }
      ply += 1;
      if (t.length > 2) clk[(ply + shift) % 2 === 1 ? 0 : 1] = t[2];
      out.push({pos: pos.slice(), last: last, caps: caps, clk: clk.slice()});
    });
    return out;
  }
  // Line 0 is the main line; a variation's frames up to its branch are its parent's.
  function lines(g) {
    var start = {pos: g.start.split(""), last: -1, caps: [], clk: [null, null]}, shift = g.whiteFirst ? 1 : 0;
    var all = [{turns: g.turns, notes: g.notes, parent: -1, from: 0, at: "main", fault: g.fault, faultText: g.faultText,
      played: g.turns.length - (g.removal ? 1 : 0), frames: extend([start], g.turns, 0, shift)}];
    (g.lines || []).forEach(function (l) {
      all.push({turns: l.turns, notes: l.notes, parent: l.parent, from: l.from, at: l.at, name: l.name, up: l.up,
        fault: l.fault, faultText: l.faultText, played: l.from + l.turns.length,
        frames: extend(all[l.parent].frames.slice(0, l.from + 1), l.turns, l.from, shift)});
    });
    return all;
  }
  // The line that holds the position after turn t of line L.
  function owner(v, L, t) {
    while (L > 0 && t <= v.lines[L].from) L = v.lines[L].parent;
    return L;
  }
  function entry(v, L, t) {
    var l = v.lines[owner(v, L, t)];
    return l.turns[t - l.from - 1];
  }
  // The annotator's comment on that turn, or null.
  function note(v, L, t) {
    var l = v.lines[owner(v, L, t)], i = t - l.from - 1;
    return l.notes && Object.prototype.hasOwnProperty.call(l.notes, String(i)) ? l.notes[String(i)] : null;
  }
  // The turns that may stand where turn t of the line shown stands: [line, label] each.
  function choices(v, t) {
    if (t < 1 || !v.g.branches) return null;
    return v.g.branches[owner(v, v.line, t - 1) + ":" + (t - 1)] || null;
  }
  function stone(layer, x, y, r, c) {
    var black = c.toLowerCase() === "b", king = c === "B" || c === "W";
    el("circle", {"class": "stone " + (black ? "black" : "white") + (king ? " king" : ""), cx: x, cy: y, r: r,
      fill: black ? "#1b1b1b" : "#fafafa", stroke: "#000", "stroke-width": "1.5"}, layer);
    if (king) {
      el("polygon", {"class": "crown", points: CROWN.map(function (d) { return (x + d[0] * r) + "," + (y + d[1] * r); }).join(" "),
        fill: "#e0a800", stroke: black ? "#fafafa" : "#1b1b1b", "stroke-width": "1.5", "stroke-linejoin": "round"}, layer);
    }
  }
  function drawLines(v, t) {
    var cs = choices(v, t), here = owner(v, v.line, t), had = v.choices.contains(document.activeElement), keep = null;
    while (v.choices.firstChild) v.choices.removeChild(v.choices.firstChild);
    v.choices.hidden = !cs;
    (cs || []).forEach(function (c) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = c[1];
      b.setAttribute("aria-pressed", c[0] === here ? "true" : "false");
      b.setAttribute("data-line", v.lines[c[0]].at);
      b.addEventListener("click", function () { active = v; go(v, c[0], t); });
      v.choices.appendChild(b);
      if (c[0] === here) keep = b;
    });
    // Rebuilt buttons would drop the keyboard's place: keep it on the line now shown, or in the viewer.
    if (had) (keep || v.root).focus();
    if (v.line === 0) {
      if (document.activeElement === v.up) v.root.focus();
      v.up.hidden = true;
    } else {
      v.up.hidden = false;
      v.up.textContent = v.lines[v.line].up;
    }
  }
  function draw(v, t) {
    var l = v.lines[v.line], frames = l.frames;
    t = Math.max(0, Math.min(frames.length - 1, t));
    v.turn = t;
    var f = frames[t], lay = data.layouts[v.g.layout], r = lay.r, layer = v.layer;
    while (layer.firstChild) layer.removeChild(layer.firstChild);
    f.caps.forEach(function (cp) {
      var xy = lay.xy[cp[0]], black = cp[1].toLowerCase() === "b";
      el("circle", {"class": "captured " + (black ? "black" : "white"), cx: xy[0], cy: xy[1], r: r,
        fill: black ? "#1b1b1b" : "#fafafa", "fill-opacity": "0.3", stroke: "#000", "stroke-width": "1.5", "stroke-dasharray": "4 3"}, layer);
    });
    f.pos.forEach(function (c, p) { if (c !== ".") stone(layer, lay.xy[p][0], lay.xy[p][1], r, c); });
    if (f.last >= 0 && f.pos[f.last] !== ".") {
      var xy = lay.xy[f.last];
      el("circle", {"class": "last", cx: xy[0], cy: xy[1], r: r * 0.48, fill: "none",
        stroke: f.pos[f.last].toLowerCase() === "b" ? "#fafafa" : "#1b1b1b", "stroke-width": "3"}, layer);
    }
    var end = t === frames.length - 1, text;
    if (end && l.fault !== undefined && l.fault !== null) {
      var q = lay.xy[l.fault], a = r * 0.86, g = el("g", {"class": "illegal", "stroke-linecap": "round"}, layer);
      [["#fff", 9], ["#c00000", 5]].forEach(function (s) {
        [a, -a].forEach(function (dx) {
          el("line", {x1: q[0] - dx, y1: q[1] - a, x2: q[0] + dx, y2: q[1] + a, stroke: s[0], "stroke-width": s[1]}, g);
        });
      });
    }
    var played = l.played;
    // Before the first turn: the empty board, or the record's set-up position.
    if (t === 0) text = KEILREF_START[v.g.setup ? 1 : 0];
    else if (t > played) text = "after turn " + played + " of " + played + ": " + entry(v, v.line, t)[0];
    else text = "turn " + t + " of " + played + ": " + entry(v, v.line, t)[0];
    if (end && l.faultText) text += KEILREF_NEXT_ILLEGAL + l.faultText;
    if (v.line > 0) text = l.name + ", " + text;
    v.status.textContent = text;
    if (v.clocks) {
      v.clocks.textContent = words.clocks.replace("{B}", f.clk[0] || words.noClock).replace("{W}", f.clk[1] || words.noClock);
    }
    if (v.comment) {
      var said = t > 0 && t <= played ? note(v, v.line, t) : null;
      // As text: a comment holding markup shows that markup, and nothing in it runs.
      v.comment.textContent = said === null ? "" : words.comment.replace("{C}", function () { return said; });
      v.comment.hidden = said === null;
    }
    v.range.value = String(t);
    v.buttons.first.disabled = v.buttons.prev.disabled = t === 0;
    v.buttons.next.disabled = v.buttons.last.disabled = end;
    v.root.setAttribute("data-turn", String(t));
    if (v.choices) drawLines(v, t);
  }
  // Show line L of the game at turn t.
  function go(v, L, t) {
    v.line = L;
    v.range.max = String(v.lines[L].frames.length - 1);
    v.root.setAttribute("data-line", v.lines[L].at);
    draw(v, t);
  }
  function up(v) {
    var l = v.lines[v.line];
    if (v.line > 0) go(v, l.parent, l.from);
  }
  function step(v, how) {
    var n = v.lines[v.line].frames.length - 1;
    draw(v, how === "first" ? 0 : how === "last" ? n : how === "prev" ? v.turn - 1 : v.turn + 1);
  }
  function build(root) {
    var id = root.getAttribute("data-game"), g = data.games[id];
    if (!g || views[id]) return views[id] || null;
    var holder = root.querySelector(".viewer-board");
    holder.innerHTML = data.layouts[g.layout].base;
    var svg = holder.querySelector("svg");
    svg.setAttribute("role", "img");
    var layer = el("g", {"class": "viewer-layer"}, svg);
    var v = {id: id, g: g, root: root, layer: layer, lines: lines(g), line: 0, turn: 0,
      status: root.querySelector(".viewer-status"), range: root.querySelector("input[type=range]"), buttons: {},
      clocks: root.querySelector(".viewer-clocks"), comment: root.querySelector(".viewer-comment"), choices: root.querySelector(".choices"), up: root.querySelector("button.up")};
    Array.prototype.forEach.call(root.querySelectorAll("button[data-step]"), function (b) {
      v.buttons[b.getAttribute("data-step")] = b;
      b.addEventListener("click", function () { active = v; step(v, b.getAttribute("data-step")); });
    });
    v.range.addEventListener("input", function () { active = v; draw(v, parseInt(v.range.value, 10)); });
    if (v.up) v.up.addEventListener("click", function () { active = v; up(v); });
    root.addEventListener("focusin", function () { active = v; });
    root.addEventListener("pointerdown", function () { active = v; });
    views[id] = v;
    if (v.choices) root.setAttribute("data-line", "main");
    draw(v, v.lines[0].frames.length - 1);
    return v;
  }
  var roots = document.querySelectorAll(".viewer");
  // A big report draws a board only as it comes into view, so the page opens at once.
  if (data.eager || !("IntersectionObserver" in window)) {
    Array.prototype.forEach.call(roots, build);
  } else {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting) { build(e.target); seen.unobserve(e.target); }
      });
    }, {rootMargin: "300px 0px"});
    Array.prototype.forEach.call(roots, function (r) { seen.observe(r); });
  }
  // The viewer with the focus, else the one most in view: arrow keys step what the reader looks at.
  function current() {
    var f = document.activeElement, holder = f && f.closest ? f.closest(".viewer") : null;
    if (holder) return build(holder);
    var best = null, most = 0, off = 0, h = window.innerHeight || document.documentElement.clientHeight;
    // Several may be wholly in view: then the one nearest the middle of the window.
    Array.prototype.forEach.call(roots, function (r) {
      var b = r.getBoundingClientRect(), shown = Math.min(b.bottom, h) - Math.max(b.top, 0);
      var away = Math.abs((b.top + b.bottom) / 2 - h / 2);
      if (shown > most + 1 || (shown > 0 && Math.abs(shown - most) <= 1 && away < off)) { most = shown; off = away; best = r; }
    });
    return best ? build(best) : null;
  }
  // Up and down switch lines only while the viewer has the focus: elsewhere they scroll the page.
  function switchLine(v, key, target) {
    if (!v.choices || !v.root.contains(target)) return false;
    if (key === "ArrowUp") {
      if (v.line === 0) return false;
      up(v);
      return true;
    }
    var cs = choices(v, v.turn);
    if (!cs) return false;
    var here = owner(v, v.line, v.turn), i = 0;
    while (i < cs.length && cs[i][0] !== here) i += 1;
    go(v, cs[(i + 1) % cs.length][0], v.turn);
    return true;
  }
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    if (t && (t.type === "range" || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))) return;  // they take their own keys
    active = current();
    if (!active) return;
    var how = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"}[e.key];
    if (how) {
      e.preventDefault();
      step(active, how);
    } else if ((e.key === "ArrowUp" || e.key === "ArrowDown") && switchLine(active, e.key, e.target)) {
      e.preventDefault();
    }
  });
  function fromHash() {
    var m = /game=(\d+)/.exec(location.hash), t = /turn=(\d+)/.exec(location.hash), at = /line=(\d+:\d+)/.exec(location.hash);
    if (!m) return;
    var root = document.querySelector('.viewer[data-game="' + m[1] + '"]'), v = root ? build(root) : null, L = 0;
    if (!v) {
      var section = document.getElementById("game-" + m[1]) || document.getElementById("row-" + m[1]);
      if (section) section.scrollIntoView();
      return;
    }
    active = v;
    if (at) v.lines.forEach(function (l, i) { if (l.at === at[1]) L = i; });
    if (L !== v.line) go(v, L, 0);
    draw(v, t ? parseInt(t[1], 10) : v.lines[L].frames.length - 1);
    var where = document.getElementById("game-" + m[1]) || v.root;
    where.scrollIntoView();
    v.root.focus({preventScroll: true});
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  // The table of every game, built from the rows in the page a page at a time: a browser
  // holds 100,000 rows of data easily, not 100,000 rows of DOM.
  (function () {
    var holder = document.getElementById("keilref-rows"), form = document.querySelector("form.filters");
    if (!holder || !form) return;
    var all = JSON.parse(holder.textContent), files = all.files, rows = all.rows;
    var body = document.querySelector("table.games tbody"), count = document.querySelector(".table-count");
    var pager = document.querySelector("nav.pager"), pageOf = pager.querySelector(".page-of");
    var SIGN = KEILREF_STATUS_SIGNS;
    var PAGE = 100, page = 0, shown = rows, sortCol = 0, sortDir = 1;
    var collate = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"}).compare;
    var KEY = [
      function (r) { return r[0]; }, function (r) { return files[r[1]]; }, function (r) { return r[2]; },
      function (r) { return r[3]; }, function (r) { return r[4]; }, function (r) { return r[5] + " " + r[6]; },
      function (r) { return r[7]; }, function (r) { return r[8]; }, function (r) { return r[9]; },
      function (r) { return r[10]; }];
    function players(r) { return r[5] || r[6] ? (r[5] || "?") + " \u2013 " + (r[6] || "?") : ""; }
    function td(tr, text, label, cls) {
      var c = document.createElement("td");
      c.textContent = text;
      if (label) c.setAttribute("data-label", label);
      if (cls) c.className = cls;
      tr.appendChild(c);
      return c;
    }
    function render() {
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      page = Math.max(0, Math.min(page, pages - 1));
      var frag = document.createDocumentFragment(), from = page * PAGE, to = Math.min(shown.length, from + PAGE);
      for (var i = from; i < to; i++) {
        var r = shown[i], tr = document.createElement("tr");
        tr.id = "row-" + r[0];
        tr.className = r[13] ? "failing" : "passing";
        var first = td(tr, "");
        if (r[13]) {
          var a = document.createElement("a");
          a.href = "#game=" + r[0];
          a.textContent = String(r[0]);
          first.appendChild(a);
        } else first.textContent = String(r[0]);
        td(tr, files[r[1]], null, "file");
        td(tr, String(r[2]), "game");
        td(tr, r[3], "event");
        td(tr, r[4], "round");
        td(tr, players(r));
        td(tr, r[7], "rules");
        var st = td(tr, ""), span = document.createElement("span");
        span.className = "status s-" + r[8];
        span.textContent = SIGN[r[8]] + " " + r[8];
        st.appendChild(span);
        td(tr, r[9] || "\u2013", "computed");
        td(tr, r[10] || "\u2013", "declared");
        frag.appendChild(tr);
      }
      body.textContent = "";
      body.appendChild(frag);
      count.textContent = shown.length === rows.length ? rows.length + " games" :
        shown.length + " of " + rows.length + " games match";
      pageOf.textContent = shown.length ? "rows " + (from + 1) + "\u2013" + to + " of " + shown.length + " (page " + (page + 1) + " of " + pages + ")" : "no rows";
      pager.querySelector('[data-page="first"]').disabled = pager.querySelector('[data-page="prev"]').disabled = page === 0;
      pager.querySelector('[data-page="next"]').disabled = pager.querySelector('[data-page="last"]').disabled = page >= pages - 1;
    }
    function value(name) {
      var f = form.querySelector('[data-filter="' + name + '"]');
      return f ? f.value : "";
    }
    function apply() {
      var status = value("status"), rules = value("rules"), event = value("event"), round = value("round");
      var player = value("player").trim().toLowerCase(), text = value("text").trim().toLowerCase();
      shown = rows.filter(function (r) {
        if (status === "failing" ? !r[13] : status && r[8] !== status) return false;
        if (rules && r[7] !== rules) return false;
        if (event && r[3] !== event) return false;
        if (round && r[4] !== round) return false;
        if (player && r[5].toLowerCase().indexOf(player) < 0 && r[6].toLowerCase().indexOf(player) < 0) return false;
        if (text) {
          var hay = (files[r[1]] + " " + r.slice(2, 11).join(" ")).toLowerCase();
          if (hay.indexOf(text) < 0) return false;
        }
        return true;
      });
      sort();
    }
    function sort() {
      var key = KEY[sortCol];
      if (sortCol !== 0 || sortDir !== 1) {
        shown = shown.slice().sort(function (a, b) {
          var x = key(a), y = key(b);
          var c = typeof x === "number" ? x - y : collate(x, y);
          return c ? c * sortDir : a[0] - b[0];
        });
      }
      Array.prototype.forEach.call(document.querySelectorAll("table.games th[data-col]"), function (th) {
        var col = parseInt(th.getAttribute("data-col"), 10);
        if (col === sortCol) th.setAttribute("aria-sort", sortDir === 1 ? "ascending" : "descending");
        else th.removeAttribute("aria-sort");
      });
      page = 0;
      render();
    }
    form.hidden = false;
    pager.hidden = false;
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    var timer = null;
    Array.prototype.forEach.call(form.querySelectorAll("[data-filter]"), function (f) {
      f.addEventListener(f.tagName === "SELECT" ? "change" : "input", function () {
        clearTimeout(timer);
        timer = setTimeout(apply, f.tagName === "SELECT" ? 0 : 150);
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("table.games th button[data-sort]"), function (b) {
      b.addEventListener("click", function () {
        var col = parseInt(b.getAttribute("data-sort"), 10);
        sortDir = col === sortCol ? -sortDir : 1;
        sortCol = col;
        sort();
      });
    });
    Array.prototype.forEach.call(pager.querySelectorAll("button[data-page]"), function (b) {
      b.addEventListener("click", function () {
        var how = b.getAttribute("data-page");
        page = how === "first" ? 0 : how === "last" ? 1e9 : how === "prev" ? page - 1 : page + 1;
        render();
      });
    });
    document.querySelector("table.games th[data-col='0']").setAttribute("aria-sort", "ascending");
    render();
  })();
})();
