"""Invariants of a running arena, checked on its database by the chaos soak (`bench/chaos.py`).

Each check is named and returns the violations it finds, one sentence each naming the match,
bot or tournament concerned. `checks.run` runs the ones that must hold at any moment (`always`)
or, at the end of a soak, all of them. The checks read the tables with plain SQL of their own
and recompute what they compare with (replays, points, rating chains), so that a bug in the
arena's own code for those cannot hide itself.

    checks.py       registry, match statuses, decision numbering, epochs, replays
    ledger.py       ratings and tournaments
    answers.py      bots' logs of acknowledged answers against the decision log
    alerts.py       the `alerts` check: promtool on the soak's scraped series
    netns.py        network namespaces for the `referee-partition` fault
"""
