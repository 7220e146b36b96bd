// The match viewer: steps through the public views of a match, and follows a running one.
// Boards come drawn (and escaped) by the server; this script only swaps them.
(function () {
  "use strict";
  const root = document.getElementById("viewer");
  if (!root) return;
  const id = root.dataset.id;
  const poll = Number(root.dataset.poll) || 1000;
  const el = (name) => document.getElementById(name);
  const steps = [];
  let at = 0;
  let complete = false;
  let final = null;
  let timer = null;
  let wanted = null;
  const hash = /step=(\d+)/.exec(location.hash);
  if (hash) wanted = Number(hash[1]);

  function renderFinal() {
    const box = el("final");
    box.textContent = "";
    if (!final) return;
    const title = document.createElement("h2");
    title.textContent = "Final ranking" + (final.termination ? " (" + final.termination + ")" : "");
    const list = document.createElement("ol");
    list.className = "ranking";
    for (const r of final.ranking) {
      const item = document.createElement("li");
      item.dataset.rank = String(r.rank);
      item.textContent = "#" + r.rank + " " + r.bot + " (seat " + r.seat + ") score " + r.score;
      list.appendChild(item);
    }
    box.append(title, list);
  }

  function show(index) {
    if (!steps.length) return;
    at = Math.max(0, Math.min(index, steps.length - 1));
    const step = steps[at];
    el("board").innerHTML = step.board;
    el("slider").max = String(steps.length - 1);
    el("slider").value = String(at);
    el("counter").textContent = "step " + at + "/" + (steps.length - 1);
    el("label").textContent =
      step.decision < 0 ? "setup" : "decision " + step.decision + ": " + step.label;
    el("final").hidden = !(complete && at === steps.length - 1);
    history.replaceState(null, "", "#step=" + at);
  }

  function setPlaying(on) {
    if (timer) clearInterval(timer);
    timer = null;
    el("play").textContent = on ? "❚❚" : "▶";
    if (on) {
      timer = setInterval(function () {
        if (at < steps.length - 1) show(at + 1);
        else if (complete) setPlaying(false);
      }, 500);
    }
  }

  async function load() {
    const following = steps.length === 0 || at === steps.length - 1;
    let reply;
    try {
      const response = await fetch("/api/matches/" + id + "/steps?from=" + steps.length);
      if (!response.ok) throw new Error("HTTP " + response.status);
      reply = await response.json();
    } catch (error) {
      el("label").textContent = "could not load the match: " + error.message;
      setTimeout(load, poll * 3);
      return;
    }
    if (reply.defs) el("defs").innerHTML = reply.defs;
    for (const step of reply.steps) steps.push(step);
    const status = el("m-status");
    status.textContent = reply.match.status;
    status.className = "status " + reply.match.status;
    complete = reply.complete;
    final = reply.final;
    if (complete) renderFinal();
    if (wanted !== null && wanted < steps.length) {
      show(wanted);
      wanted = null;
    } else if (following && wanted === null) {
      show(steps.length - 1);
    } else {
      show(at);
    }
    if (reply.from + reply.steps.length < reply.total) load();
    else if (!complete) setTimeout(load, poll);
  }

  el("first").addEventListener("click", () => show(0));
  el("prev").addEventListener("click", () => show(at - 1));
  el("next").addEventListener("click", () => show(at + 1));
  el("last").addEventListener("click", () => show(steps.length - 1));
  el("play").addEventListener("click", () => setPlaying(timer === null));
  el("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  document.addEventListener("keydown", function (e) {
    if (e.target instanceof HTMLInputElement) return; // the slider handles its own arrows
    const keys = {
      ArrowLeft: () => show(at - 1),
      ArrowRight: () => show(at + 1),
      Home: () => show(0),
      End: () => show(steps.length - 1),
      " ": () => setPlaying(timer === null),
    };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  });
  load();
})();
