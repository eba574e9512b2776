"""Who may call what: API keys on every data endpoint, admin keys on the admin API, a rate per key.

Keys are configured (``ZSC_API_KEYS``, ``ZSC_API_KEYS_FILE``): a data endpoint without a valid bearer key is
401 with ``WWW-Authenticate``; health checks, the page's static files and, as configured, /metrics and the
docs stay open. The admin API (/admin) wants an admin key (``ZSC_ADMIN_KEYS``): a data key there is 403.
With ``ZSC_RATE_LIMIT_RPS``, a key over its rate is 429 with the seconds until it may send again. All of it
before the body is read: a caller without a key never makes the replica hold its upload.
"""

from __future__ import annotations

import math
from typing import Any

from service.config import Settings
from service.errors import Forbidden, RateLimited, ServiceError, Unauthorized
from service.http.auth import ApiKeys, KeyRateLimiter, bearer_token, key_id
from service.http.edge.paths import ADMIN, DOCS, HEALTH, METRICS, header, under
from service.http.errors import send_error


class Access:
    def __init__(self, app: Any, settings: Settings) -> None:
        s = settings
        self.app = app
        self.keys = ApiKeys(s.keys_from_env(), s.api_keys_file) if s.auth_enabled else None
        self.admin_keys = ApiKeys(s.admin_key_list()) if s.admin_keys else None
        self.limiter = KeyRateLimiter(s.rate_limit_rps, s.rate_limit_burst) if s.rate_limit_rps else None
        self.open = HEALTH + ((METRICS,) if s.open_metrics == "true" else ()) + (DOCS if s.open_docs == "true" else ())

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                await send_error(send, refusal, scope["path"])
                return
        await self.app(scope, receive, send)

    def refusal(self, scope: dict) -> ServiceError | None:
        path = scope["path"]
        if under(path, (ADMIN,)):
            return self._admin_refusal(header(scope, b"authorization"))
        if self.keys is None or scope["method"] == "OPTIONS" or under(path, self.open):
            return None
        token = bearer_token(header(scope, b"authorization"))
        if token is None:
            return Unauthorized("this service needs an API key: send the header 'Authorization: Bearer <key>'")
        if not self.keys.check(token):
            return Unauthorized("the API key is not valid (rotated or mistyped?)", invalid=True)
        if self.limiter is not None:
            wait = self.limiter.acquire(token)
            if wait > 0:
                return RateLimited(self.limiter.rate, max(1, math.ceil(wait)))
        scope.setdefault("state", {})["zsc_key_id"] = key_id(token)
        return None

    def _admin_refusal(self, authorization: str | None) -> ServiceError | None:
        if self.admin_keys is None:
            return Forbidden("the admin API is off on this replica: set ZSC_ADMIN_KEYS")
        token = bearer_token(authorization)
        if token is None:
            return Unauthorized("the admin API needs an admin key: 'Authorization: Bearer <key>'")
        if self.admin_keys.check(token):
            return None
        if self.keys is not None and self.keys.check(token):
            return Forbidden("a data key (ZSC_API_KEYS) may not call the admin API: use an admin key (ZSC_ADMIN_KEYS)")
        return Unauthorized("the admin key is not valid", invalid=True)
