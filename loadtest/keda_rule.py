"""KEDA's scaling rule for the jobs Deployment, as deploy/k8s's ScaledObject configures it. Pure.

Two ``redis-streams`` triggers on the service's stream and consumer group (``XINFO GROUPS``):

- the lag (entries not yet delivered to any consumer): active above ``activation_lag_count``; its target
  ``lag_count`` entries per replica;
- the pending entries (delivered, not yet acknowledged: chunks at work, or handed back by a stopping or dead
  replica): active above 0; its target ``pending_count`` per replica. Lag alone counts no chunk at work, so
  without this trigger the last chunks would be at the mercy of a scale-down to zero.

KEDA activates the Deployment (0 -> ``max(1, min)``) when any trigger is active and, once every trigger has
been inactive for ``cooldown_s``, scales it back to ``min_replicas`` (0). In between the HPA KEDA made
decides: desired = the largest ``ceil(metric / target)`` over the triggers (external metrics of type
AverageValue), within ``[max(1, min), max]``; a scale-down takes the highest desired count of the last
``scale_down_window_s`` (the HPA's stabilization window; scale-up is immediate). The HPA's 10 % tolerance
is left out: a run here would only see it as a late step.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field


@dataclass
class KedaRule:
    lag_count: int  # lagCount: undelivered entries per replica
    activation_lag_count: int = 0  # activationLagCount: at most this lag, the lag trigger is inactive
    pending_count: int = 1  # pendingEntriesCount of the second trigger: chunks at work per replica
    min_replicas: int = 0  # minReplicaCount
    max_replicas: int = 4  # maxReplicaCount
    cooldown_s: float = 300.0  # cooldownPeriod: inactive this long before scaling to zero
    scale_down_window_s: float = 0.0  # the HPA's scaleDown stabilizationWindowSeconds
    _last_active: float | None = None
    _history: deque = field(default_factory=deque)  # (time, desired) within the window

    def active(self, lag: int, pending: int) -> bool:
        return lag > self.activation_lag_count or pending > 0

    def desired(self, now: float, lag: int, pending: int, current: int) -> int:
        """The replica count KEDA and its HPA settle on now, from the group's lag and pending entries."""
        if self.active(lag, pending):
            self._last_active = now
        elif current == 0 or self._last_active is None or now - self._last_active >= self.cooldown_s:
            self._history.clear()
            return self.min_replicas
        floor = max(1, self.min_replicas)
        wanted = max(math.ceil(lag / self.lag_count), math.ceil(pending / self.pending_count))
        wanted = min(self.max_replicas, max(floor, wanted))
        self._history.append((now, wanted))
        while self._history and self._history[0][0] < now - self.scale_down_window_s:
            self._history.popleft()
        return max(wanted, *(d for _, d in self._history)) if current > 0 else wanted
