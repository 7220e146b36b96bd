// A running version test's page reloads itself: the chart and tables are drawn by the server.
(function () {
  "use strict";
  const root = document.getElementById("versiontest");
  if (!root || root.dataset.status !== "running") {
    return;
  }
  const every = Number(root.dataset.poll) || 5000;
  setTimeout(function () { window.location.reload(); }, every);
})();
