"""The chaos soak's Prometheus stand-in: scrapes every process's /metrics at a fixed interval.

One thread per target fetches `http://<host>:<port>/metrics` at each tick (tick i at
`began + i * interval`) and records, in an `arena.chaos.alerts.Scrape`, the series the alert rules
read, labelled with `job` and `instance` as Prometheus labels them, and `up` (1 when the scrape
answered within its timeout, 0 when it did not: a killed, paused or cut-off process).
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from chaos_faults import Record
from prometheus_client.parser import text_string_to_metric_families

from arena.chaos.alerts import Incident, Report, Scrape, check, horizon, load_rules

_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))
"""Scrapes go straight to the target, whatever proxy the environment names."""
RULES = Path(__file__).resolve().parents[1] / "deploy" / "prometheus" / "alerts.yml"


def rules_document() -> dict[str, Any]:
    """deploy/prometheus/alerts.yml, parsed."""
    loaded: dict[str, Any] = yaml.safe_load(RULES.read_text())
    return loaded


class Scraper:
    """Scrapes `targets` ((job, host, port)) every `interval` seconds until `stop`."""

    def __init__(
        self, targets: Sequence[tuple[str, str, int]], names: frozenset[str], interval: float = 5.0
    ) -> None:
        self.targets = list(targets)
        self.names = names
        self.scrape = Scrape(interval)
        self.began = 0.0
        self.stopping = threading.Event()
        self.failures = 0
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Start scraping (tick 0 is now)."""
        self.began = time.monotonic()
        for job, host, port in self.targets:
            instance = f"{host}:{port}"
            thread = threading.Thread(target=self._loop, args=(job, instance), daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        """Stop scraping and wait for the threads."""
        self.stopping.set()
        for thread in self._threads:
            thread.join()

    def at(self, moment: float) -> float:
        """A `time.monotonic()` moment in seconds from tick 0."""
        return moment - self.began

    def _loop(self, job: str, instance: str) -> None:
        tick = 0
        interval = self.scrape.interval
        while not self.stopping.wait(max(0.0, self.began + tick * interval - time.monotonic())):
            self._once(tick, job, instance, timeout=min(2.0, 0.8 * interval))
            # A scrape that overran its tick skips the ticks it missed, as Prometheus does.
            tick = max(tick + 1, int((time.monotonic() - self.began) // interval) + 1)

    def _once(self, tick: int, job: str, instance: str, timeout: float) -> None:
        target = {"job": job, "instance": instance}
        url = f"http://{instance}/metrics"
        try:
            with _DIRECT.open(url, timeout=timeout) as reply:
                text = reply.read().decode()
            kept = [
                (sample.name, {**sample.labels, **target}, float(sample.value))
                for family in text_string_to_metric_families(text)
                for sample in family.samples
                if sample.name in self.names
            ]
        except (OSError, urllib.error.URLError, ValueError):
            with self._lock:
                self.failures += 1
                self.scrape.add(tick, "up", target, 0.0)
            return
        with self._lock:
            self.scrape.add(tick, "up", target, 1.0)
            for name, labels, value in kept:
                self.scrape.add(tick, name, labels, value)


def incidents(
    scraper: Scraper, targets: Sequence[tuple[str, str, int]], records: Sequence[Record]
) -> list[Incident]:
    """The injector's records as the alert check sees them (healed faults only)."""
    instances = {
        kind: [f"{host}:{port}" for job, host, port in targets if job == f"arena-{kind}"]
        for kind in ("referee", "worker")
    }
    out = []
    for record in sorted(records, key=lambda r: r.began):
        fault = record.fault
        if not record.healed:
            continue
        what = fault.kind.split("-")[0]
        instance = instances[what][fault.target] if what in instances else ""
        out.append(
            Incident(
                " ".join(str(fault).split()),
                fault.kind,
                scraper.at(record.began),
                scraper.at(record.healed),
                instance,
                record.takeover is not None,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class AlertWait:
    """How long the soak kept scraping after settling, and why it stopped."""

    waited: float
    """Seconds spent waiting here."""
    longest: float
    """The most it was allowed to wait (`--alert-wait`)."""
    needed: float
    """Seconds from the first scrape that the alert assertions need the scrape to reach."""
    reached: float
    """Seconds from the first scrape that the scrape reached when the wait ended."""

    def line(self) -> str:
        """The summary's words for it: a 0 s wait says whether it was not needed or not allowed."""
        if self.reached >= self.needed:
            why = "enough" if self.waited >= 1 else "no wait needed: settling had passed it"
        else:
            why = f"short by {self.needed - self.reached:.0f}s: --alert-wait {self.longest:g}"
        return (
            f"scraped to t={self.reached:.0f}s of the t={self.needed:.0f}s the alert assertions "
            f"need, waited {self.waited:.0f}s of --alert-wait {self.longest:g} ({why})"
        )


def wait_for_alerts(scraper: Scraper, found: Sequence[Incident], longest: float) -> AlertWait:
    """Keep scraping (at most `longest` seconds) until every alert assertion about `found` can
    be made."""
    needed = (
        horizon(found, load_rules(rules_document()), scraper.scrape.interval)
        + scraper.scrape.interval
    )
    began = time.monotonic()
    while scraper.at(time.monotonic()) < needed and time.monotonic() < began + longest:
        time.sleep(1.0)
    now = time.monotonic()
    return AlertWait(now - began, longest, needed, scraper.at(now))


def alert_check(scraper: Scraper, found: Sequence[Incident], folder: Path) -> Report:
    """Stop scraping and run the `alerts` check on what was scraped."""
    scraper.stop()
    return check(scraper.scrape, found, RULES, load_rules(rules_document()), folder)
