// Home page: the live matches list follows the server's pushed updates (Server-Sent Events).
(function () {
  "use strict";
  const holder = document.getElementById("live");
  if (!holder || !window.EventSource) return;
  const COLOURS = ["#d1495b", "#2e86ab", "#e8a33d", "#3b8b5a", "#8e5ea2", "#5c6b73"];
  const node = (tag, text, attrs) => {
    const made = document.createElement(tag);
    if (text !== undefined && text !== null) made.textContent = String(text);
    for (const [key, value] of Object.entries(attrs || {})) made.setAttribute(key, value);
    return made;
  };

  function row(m) {
    const tr = node("tr");
    const link = node("td");
    link.append(node("a", "#" + m.match_id, { href: "/matches/" + m.match_id }));
    const status = node("td");
    status.append(node("span", m.status, { class: "status " + m.status }));
    const seats = node("td", null, { class: "wrap" });
    for (const s of m.seats) {
      const tag = node("a", s.bot, { class: "seat", href: "/bots/" + encodeURIComponent(s.bot) });
      tag.style.setProperty("--c", COLOURS[s.seat % COLOURS.length]);
      seats.append(tag, " ");
    }
    const tournament = node("td");
    if (m.tournament_id) {
      const href = "/tournaments/" + m.tournament_id;
      tournament.append(node("a", "T" + m.tournament_id + " r" + m.round_no, { href: href }));
    }
    tr.append(link, node("td", m.game), status, seats, tournament);
    return tr;
  }

  function render(live) {
    if (!live.length) {
      holder.replaceChildren(node("p", "no match is being played right now", { class: "muted" }));
      return;
    }
    const table = node("table");
    const head = node("tr");
    for (const title of ["match", "game", "status", "seats", "tournament"]) {
      head.append(node("th", title));
    }
    table.append(node("thead"), node("tbody"));
    table.tHead.append(head);
    for (const m of live) table.tBodies[0].append(row(m));
    const scroll = node("div", null, { class: "scroll" });
    scroll.append(table);
    holder.replaceChildren(scroll);
  }

  const source = new EventSource("/api/home/live");
  source.addEventListener("update", (e) => render(JSON.parse(e.data).live));
})();
