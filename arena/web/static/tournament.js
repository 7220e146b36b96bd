// Live tournament page: follows the tournament's pushed updates and redraws standings, progress
// and rounds in place.
(function () {
  "use strict";
  const root = document.getElementById("tournament");
  if (!root) return;
  const id = root.dataset.id;
  const COLOURS = ["#d1495b", "#2e86ab", "#e8a33d", "#3b8b5a", "#8e5ea2", "#5c6b73"];
  const node = (tag, text, attrs) => {
    const made = document.createElement(tag);
    if (text !== undefined && text !== null) made.textContent = String(text);
    for (const [key, value] of Object.entries(attrs || {})) made.setAttribute(key, value);
    return made;
  };

  function standings(rows) {
    const body = document.querySelector("#standings tbody");
    body.textContent = "";
    for (const s of rows) {
      const tr = node("tr");
      tr.append(node("td", s.position));
      const cell = node("td");
      cell.append(node("a", s.bot, { href: "/bots/" + encodeURIComponent(s.bot) }));
      tr.append(cell);
      for (const value of [s.score, s.tiebreak, s.rating, s.byes, s.rounds_played]) {
        tr.append(node("td", value, { class: "num" }));
      }
      body.append(tr);
    }
  }

  function rounds(list) {
    const holder = document.getElementById("rounds");
    holder.textContent = "";
    for (const r of list.slice().reverse()) {
      const section = node("section", null, { class: "round" });
      section.append(node("h3", "Round " + r.round_no));
      const ul = node("ul", null, { class: "tables" });
      for (const t of r.tables) {
        const li = node("li", "table " + t.table_no + ": ");
        t.bots.forEach(function (bot, i) {
          const tag = node("span", bot, { class: "seat", style: "--c:" + COLOURS[i % 6] });
          if (t.ranks.length) tag.append(node("small", " #" + t.ranks[i]));
          li.append(tag, " ");
        });
        if (t.match_id) {
          li.append(node("a", "match #" + t.match_id, { href: "/matches/" + t.match_id }), " ");
          li.append(node("span", t.status, { class: "status " + t.status }));
        }
        ul.append(li);
      }
      section.append(ul);
      holder.append(section);
    }
  }

  function render(t) {
    const status = document.getElementById("t-status");
    status.textContent = t.status;
    status.className = "status " + t.status;
    document.getElementById("t-round").textContent = t.current_round;
    document.getElementById("t-progress").textContent =
      t.progress.tables_finished + "/" + t.progress.tables;
    standings(t.standings);
    rounds(t.rounds_played);
    root.dataset.status = t.status;
    document.getElementById("t-updated").textContent = "updated " + new Date().toLocaleTimeString();
    if (t.status !== "scheduled") {
      const starts = document.getElementById("t-starts");
      if (starts) starts.hidden = true;
    }
  }

  // Pushed by the server (Server-Sent Events) whenever the tournament changes; no polling.
  function follow() {
    const source = new EventSource("/api/tournaments/" + id + "/live");
    source.addEventListener("update", function (e) {
      const t = JSON.parse(e.data);
      render(t);
      if (t.status === "finished" || t.status === "cancelled") source.close();
    });
    source.addEventListener("error", function () {
      document.getElementById("t-updated").textContent = "reconnecting…";
    });
  }
  if (root.dataset.status !== "finished" && root.dataset.status !== "cancelled") follow();
})();
