// The match viewer: tells a match step by step (board, events as sentences, every seat's score,
// think time and problems, a move list and a score chart) and follows a running match by
// Server-Sent Events. Boards come drawn and escaped by the server; they are parsed with
// DOMParser and stripped of anything active before they are shown (no innerHTML).
(function () {
  "use strict";
  const root = document.getElementById("viewer");
  if (!root) return;
  const id = root.dataset.id;
  const el = (name) => document.getElementById(name);
  const COLOURS = ["#d1495b", "#2e86ab", "#e8a33d", "#3b8b5a", "#8e5ea2", "#5c6b73"];
  const SVG = "http://www.w3.org/2000/svg";
  const BASE_MS = 500;
  const steps = [];
  let seats = [];
  let at = 0;
  let complete = false;
  let final = null;
  let timer = null;
  let wanted = null;
  let source = null;
  let chartDirty = false;
  let hashTimer = null;
  const hash = /step=(\d+)/.exec(location.hash);
  if (hash) wanted = Number(hash[1]);

  // -- safe insertion of the server's drawings -------------------------------------------------
  function inert(html) {
    const doc = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html");
    for (const bad of doc.body.querySelectorAll("script, iframe, object, embed, foreignObject")) {
      bad.remove();
    }
    for (const node of doc.body.querySelectorAll("*")) {
      for (const attr of Array.from(node.attributes)) {
        const value = attr.value.trim().toLowerCase();
        if (attr.name.startsWith("on") || value.startsWith("javascript:")) {
          node.removeAttribute(attr.name);
        }
      }
    }
    return Array.from(doc.body.childNodes).map((n) => document.importNode(n, true));
  }

  function put(target, html) {
    target.replaceChildren(...inert(html));
  }

  function text(tag, content, className) {
    const node = document.createElement(tag);
    node.textContent = content;
    if (className) node.className = className;
    return node;
  }

  function nameOf(seat) {
    const s = seats.find((x) => x.seat === seat);
    return s ? s.bot : "seat " + seat;
  }

  // -- the step shown --------------------------------------------------------------------------
  function renderFinal() {
    const box = el("final");
    box.replaceChildren();
    if (!final) return;
    box.append(text("h2", "Final ranking" + (final.termination ? " (" + final.termination + ")" : "")));
    const list = document.createElement("ol");
    list.className = "ranking";
    for (const r of final.ranking) {
      const item = text("li", r.bot + " (seat " + r.seat + ") · score " + r.score);
      if (r.rank !== null) item.value = r.rank; // tied seats share a number
      item.dataset.rank = String(r.rank);
      list.appendChild(item);
    }
    box.append(list);
  }

  function renderStory(step) {
    el("to-act").textContent = step.to_act.length
      ? "To decide next: " + step.to_act.map(nameOf).join(", ")
      : complete && at === steps.length - 1
        ? "The match is over."
        : "";
    const events = el("events");
    events.replaceChildren(...step.events.map((line) => text("li", line)));
    if (!step.events.length) events.append(text("li", "no public event", "muted"));
    const body = el("seat-info").tBodies[0];
    body.replaceChildren();
    for (const s of seats) {
      const row = document.createElement("tr");
      row.dataset.seat = String(s.seat);
      const who = text("td", s.bot, "seat");
      who.style.setProperty("--c", COLOURS[s.seat % COLOURS.length]);
      const score = step.scores ? String(step.scores[s.seat]) : "–";
      const think = step.think_ms[s.seat] !== undefined ? step.think_ms[s.seat] + " ms" : "";
      const problem = step.problems[s.seat] || "";
      row.append(who, text("td", score, "num"), text("td", think, "num"), text("td", problem, problem ? "kind" : ""));
      body.appendChild(row);
    }
  }

  function show(index) {
    if (!steps.length) return;
    at = Math.max(0, Math.min(index, steps.length - 1));
    const step = steps[at];
    put(el("board"), step.board);
    el("slider").max = String(steps.length - 1);
    el("slider").value = String(at);
    el("counter").textContent = "step " + at + "/" + (steps.length - 1);
    el("label").textContent = step.decision < 0 ? "setup" : "decision " + step.decision + ": " + step.label;
    el("final").hidden = !(complete && at === steps.length - 1);
    renderStory(step);
    markMove();
    markChart();
    if (!hashTimer) hashTimer = setTimeout(writeHash, 200); // browsers throttle history calls
  }

  function writeHash() {
    hashTimer = null;
    history.replaceState(null, "", "#step=" + at);
  }

  // -- the move list ---------------------------------------------------------------------------
  function addMoves(from) {
    const list = el("moves");
    const items = [];
    for (let i = from; i < steps.length; i++) {
      const s = steps[i];
      const head = s.decision < 0 ? "setup" : s.label;
      const item = document.createElement("li");
      item.value = i;
      item.dataset.step = String(i);
      const button = text("button", head, "move");
      button.type = "button";
      const said = s.events.length ? s.events.join(" ") : "";
      item.append(button, text("span", " " + said, "muted"));
      items.push(item);
    }
    list.append(...items);
  }

  function markMove() {
    const list = el("moves");
    const old = list.querySelector("li.current");
    if (old) old.classList.remove("current");
    const item = list.children[at];
    if (item) {
      item.classList.add("current");
      const top = item.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - item.offsetHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
    }
  }

  // -- the score chart -------------------------------------------------------------------------
  const W = 640;
  const H = 200;
  const PAD = 28;
  function xOf(i) {
    return PAD + (steps.length > 1 ? (i * (W - 2 * PAD)) / (steps.length - 1) : 0);
  }

  function drawChart() {
    chartDirty = false;
    const chart = el("chart");
    chart.replaceChildren();
    const scored = steps.filter((s) => s.scores);
    if (!scored.length) return;
    let top = 1;
    for (const s of scored) for (const v of s.scores) top = Math.max(top, v);
    const yOf = (v) => H - PAD - (v * (H - 2 * PAD)) / top;
    const axis = document.createElementNS(SVG, "path");
    axis.setAttribute("d", "M" + PAD + " " + (H - PAD) + "H" + (W - PAD) + "M" + PAD + " " + PAD + "V" + (H - PAD));
    axis.setAttribute("class", "axis");
    chart.appendChild(axis);
    for (const [label, y] of [[String(top), PAD], ["0", H - PAD]]) {
      const t = document.createElementNS(SVG, "text");
      t.setAttribute("x", "2");
      t.setAttribute("y", String(y + 4));
      t.textContent = label;
      chart.appendChild(t);
    }
    for (const s of seats) {
      const points = [];
      let last = null;
      steps.forEach((step, i) => {
        if (!step.scores) return;
        last = step.scores[s.seat];
        points.push(xOf(i).toFixed(1) + "," + yOf(last).toFixed(1));
      });
      const line = document.createElementNS(SVG, "polyline");
      line.setAttribute("points", points.join(" "));
      line.setAttribute("stroke", COLOURS[s.seat % COLOURS.length]);
      line.setAttribute("class", "series");
      line.dataset.seat = String(s.seat);
      line.dataset.last = String(last);
      const title = document.createElementNS(SVG, "title");
      title.textContent = s.bot + ": " + last;
      line.appendChild(title);
      chart.appendChild(line);
    }
    const marker = document.createElementNS(SVG, "line");
    marker.id = "chart-marker";
    marker.setAttribute("y1", String(PAD / 2));
    marker.setAttribute("y2", String(H - PAD));
    chart.appendChild(marker);
    markChart();
  }

  function markChart() {
    const marker = el("chart-marker");
    if (!marker) return;
    marker.setAttribute("x1", xOf(at).toFixed(1));
    marker.setAttribute("x2", xOf(at).toFixed(1));
    marker.dataset.step = String(at);
  }

  // -- playback --------------------------------------------------------------------------------
  function speed() {
    return Number(el("speed").value) || 1;
  }

  function setPlaying(on) {
    if (timer) clearTimeout(timer);
    timer = null;
    el("play").textContent = on ? "❚❚" : "▶";
    if (!on) return;
    if (complete && at >= steps.length - 1) show(0); // play at the end plays it again
    const tick = function () {
      if (at < steps.length - 1) show(at + 1);
      else if (complete) return setPlaying(false);
      timer = setTimeout(tick, BASE_MS / speed());
    };
    timer = setTimeout(tick, BASE_MS / speed());
  }

  function changeSpeed(by) {
    const box = el("speed");
    box.selectedIndex = Math.max(0, Math.min(box.options.length - 1, box.selectedIndex + by));
  }

  // -- loading and following -------------------------------------------------------------------
  function added(from, following) {
    if (chartDirty === false) {
      chartDirty = true;
      requestAnimationFrame(drawChart);
    }
    addMoves(from);
    if (wanted !== null && wanted < steps.length) {
      show(wanted);
      wanted = null;
    } else if (following || wanted !== null) {
      show(steps.length - 1);
    } else {
      show(at);
    }
  }

  function setMatch(match) {
    seats = match.seats;
    const status = el("m-status");
    status.textContent = match.status;
    status.className = "status " + match.status;
  }

  function ended(reply) {
    complete = true;
    final = reply.final;
    setMatch(reply.match);
    const note = el("live-note");
    if (note) note.remove();
    el("record").hidden = false;
    renderFinal();
    if (wanted !== null) at = wanted; // past the end: the last step (`show` clamps)
    wanted = null;
    show(at);
  }

  async function load() {
    const following = steps.length === 0 || at === steps.length - 1;
    let reply;
    try {
      const response = await fetch("/api/matches/" + id + "/steps?from=" + steps.length + "&limit=500");
      if (!response.ok) throw new Error("HTTP " + response.status);
      reply = await response.json();
    } catch (error) {
      el("label").textContent = "could not load the match: " + error.message;
      setTimeout(load, 3000);
      return;
    }
    if (reply.defs) put(el("defs"), reply.defs);
    if (reply.score_name) el("score-name").textContent = reply.score_name;
    if (reply.score_name) el("chart-name").textContent = "(" + reply.score_name + ")";
    setMatch(reply.match);
    const from = steps.length;
    for (const step of reply.steps) steps.push(step);
    added(from, following);
    if (reply.from + reply.steps.length < reply.total) return load();
    if (reply.complete) return ended(reply);
    follow();
  }

  function follow() {
    if (source) return;
    source = new EventSource("/api/matches/" + id + "/live?from=" + steps.length);
    source.addEventListener("step", function (e) {
      const step = JSON.parse(e.data);
      if (step.index !== steps.length) return; // a step already shown (a resumed stream)
      const following = at === steps.length - 1;
      steps.push(step);
      added(steps.length - 1, following);
    });
    source.addEventListener("end", function (e) {
      source.close();
      ended(JSON.parse(e.data));
    });
    source.addEventListener("problem", function (e) {
      source.close();
      el("label").textContent = JSON.parse(e.data).error;
    });
  }

  el("first").addEventListener("click", () => show(0));
  el("prev").addEventListener("click", () => show(at - 1));
  el("next").addEventListener("click", () => show(at + 1));
  el("last").addEventListener("click", () => show(steps.length - 1));
  el("play").addEventListener("click", () => setPlaying(timer === null));
  el("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  el("moves").addEventListener("click", function (e) {
    const item = e.target.closest("li[data-step]");
    if (item) show(Number(item.dataset.step));
  });
  document.addEventListener("keydown", function (e) {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const keys = {
      ArrowLeft: () => show(at - 1),
      ArrowRight: () => show(at + 1),
      Home: () => show(0),
      End: () => show(steps.length - 1),
      " ": () => setPlaying(timer === null),
      "+": () => changeSpeed(1),
      "=": () => changeSpeed(1),
      "-": () => changeSpeed(-1),
    };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  });
  load();
})();
