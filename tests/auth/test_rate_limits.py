"""Rate limits (issue 10, API.md section 2): failed console sign-ins per email and per
address, failed authentications per address, and requests per key (the organization's
own limit or the server's default), in memory or in Redis shared by several processes.
A refusal is 429 `rate_limited` with Retry-After and RateLimit-* headers."""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
import redis
from limits import parse
from limits.aio.storage import RedisStorage

from corridor.config import Environment, Settings
from corridor.web.ratelimits import InProcessWindows, RateLimiter
from tests.auth.credentials import bearer
from tests.conftest import assert_error, built_app

REDIS_URL = "redis://127.0.0.1:6379/0"
WRONG_KEY = "sk_sandbox_" + "x" * 40


@contextlib.asynccontextmanager
async def limited_app(database_url: str, **settings) -> AsyncIterator:
    """An app on the suite's database with rate limits on (the suite's apps have them off)."""
    async with built_app(
        database_url, Environment.SANDBOX, rate_limits_enabled=True, **settings
    ) as application:
        yield application


def _address() -> str:
    """A client address of its own, so no other test (or earlier run, in Redis) shares it."""
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def client_from(application, address: str, headers: dict[str, str] | None = None):
    transport = httpx.ASGITransport(app=application, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=headers)


def assert_rate_limited(response: httpx.Response) -> dict:
    body = assert_error(response, 429, "rate_limited")
    retry_after = int(response.headers["retry-after"])
    assert retry_after >= 1
    assert int(response.headers["ratelimit-limit"]) >= 1
    assert response.headers["ratelimit-remaining"] == "0"
    assert int(response.headers["ratelimit-reset"]) >= 1
    return body


async def _sign_in(client, email: str, password: str) -> httpx.Response:
    return await client.post("/v1/console/sessions", json={"email": email, "password": password})


# --- Console sign-in ------------------------------------------------------------------------


async def test_failed_sign_ins_lock_the_email_even_for_the_right_password(
    database_url, make_tenant
):
    async with limited_app(database_url) as application:
        tenant = await make_tenant(application)
        async with client_from(application, _address()) as browser:
            for _ in range(10):  # the default: 10 failures per email in 15 minutes
                wrong = await _sign_in(browser, tenant.console_email, "not-it")
                assert_error(wrong, 401, "unauthorized")
            locked = await _sign_in(browser, tenant.console_email, tenant.console_password)
            body = assert_rate_limited(locked)
            assert "sign-in" in body["message"]
            assert int(locked.headers["retry-after"]) <= 15 * 60
        # The lock is the email's: from another address too.
        async with client_from(application, _address()) as elsewhere:
            assert_rate_limited(
                await _sign_in(elsewhere, tenant.console_email, tenant.console_password)
            )


async def test_known_and_unknown_emails_get_the_same_answers(database_url, make_tenant):
    async with limited_app(database_url) as application:
        tenant = await make_tenant(application)
        unknown = f"nobody-{uuid.uuid4().hex[:8]}@example.com"
        answers: dict[str, list[tuple[int, str, str | None]]] = {}
        for email in (tenant.console_email, unknown):
            async with client_from(application, _address()) as browser:
                seen = []
                for _ in range(12):
                    response = await _sign_in(browser, email, "not-it")
                    seen.append(
                        (
                            response.status_code,
                            response.json()["message"],
                            response.headers.get("ratelimit-limit"),
                        )
                    )
                answers[email] = seen
        assert answers[tenant.console_email] == answers[unknown]
        assert [status for status, _, _ in answers[unknown]] == [401] * 10 + [429] * 2


async def test_a_success_clears_the_emails_failures(database_url, make_tenant):
    async with limited_app(database_url) as application:
        tenant = await make_tenant(application)
        async with client_from(application, _address()) as browser:
            for _ in range(2):
                for _ in range(9):
                    assert (await _sign_in(browser, tenant.console_email, "no")).status_code == 401
                right = await _sign_in(browser, tenant.console_email, tenant.console_password)
                assert right.status_code == 201, right.text


async def test_failed_sign_ins_from_one_address_are_limited_across_emails(database_url):
    async with limited_app(
        database_url, rate_limit_sign_in_failures_per_address="5 per 15 minutes"
    ) as application:
        async with client_from(application, _address()) as browser:
            for index in range(5):
                wrong = await _sign_in(browser, f"guess{index}@example.com", "password")
                assert wrong.status_code == 401
            assert_rate_limited(await _sign_in(browser, "another@example.com", "password"))


async def test_a_lock_ends_when_its_window_has_room_again(database_url, make_tenant):
    # The window is long enough for two failed sign-ins (a password hash each) to fall in it
    # on a loaded machine, where 4 seconds was once too short.
    async with limited_app(
        database_url, rate_limit_sign_in_failures_per_email="2 per 10 seconds"
    ) as application:
        tenant = await make_tenant(application)
        async with client_from(application, _address()) as browser:
            for _ in range(2):
                await _sign_in(browser, tenant.console_email, "no")
            locked = await _sign_in(browser, tenant.console_email, tenant.console_password)
            assert_rate_limited(locked)
            await asyncio.sleep(int(locked.headers["retry-after"]) + 0.5)
            right = await _sign_in(browser, tenant.console_email, tenant.console_password)
            assert right.status_code == 201, right.text


# --- Failed authentications per address -----------------------------------------------------


async def test_failed_authentications_are_throttled_and_valid_credentials_still_served(
    database_url, make_tenant
):
    """Past 30 failures a minute from one address, failures answer 429; a valid key, a
    console session or a platform session from that address is served all the while (a
    NAT or proxy shares one address between good clients and a misconfigured one)."""
    async with limited_app(database_url) as application:
        tenant = await make_tenant(application)
        platform = await make_tenant(application, kind="PLATFORM")
        address = _address()
        async with client_from(application, address, platform.headers()) as platform_key:
            business = await platform_key.post(
                "/v1/customers/business",
                json={"legalName": "Widgets Ltd", "email": "finance@widgets.example"},
            )
        assert business.status_code == 201, business.text
        platform_session = business.json()["sessionToken"]
        async with client_from(application, address) as browser:
            signed_in = await _sign_in(browser, tenant.console_email, tenant.console_password)
        assert signed_in.status_code == 201, signed_in.text
        console_session = signed_in.json()["token"]
        async with client_from(
            application, address, {"Authorization": f"Bearer {WRONG_KEY}"}
        ) as bad:
            for _ in range(30):  # the default: 30 failures per address a minute
                assert_error(await bad.get("/v1/customers"), 401, "unauthorized")
            body = assert_rate_limited(await bad.get("/v1/customers"))
            assert "do not authenticate" in body["message"]
            # A revoked or expired session is a failure like any other.
            assert_rate_limited(await bad.get("/v1/customers", headers=bearer("cs_" + "x" * 40)))
        for secret, path in (
            (tenant.secret, "/v1/customers"),
            (console_session, "/v1/customers"),
            (platform_session, "/v1/accounts"),
        ):
            async with client_from(application, address, bearer(secret)) as good:
                served = await good.get(path)
                assert served.status_code == 200, served.text
                # Its own per-credential window, not the address's failures.
                assert int(served.headers["ratelimit-remaining"]) >= 1
        # The console's pages, signed in by cookie, are served too.
        async with client_from(application, address) as browser:
            browser.cookies.set("corridor_session", console_session)
            page = await browser.get("/console")
            assert page.status_code == 200, page.text[:300]
        # The address's failures are still throttled.
        async with client_from(
            application, address, {"Authorization": f"Bearer {WRONG_KEY}"}
        ) as bad:
            assert_rate_limited(await bad.get("/v1/customers"))


async def test_a_credentials_own_limit_still_applies_from_a_throttled_address(
    database_url, make_tenant
):
    async with limited_app(
        database_url,
        rate_limit_authentication_failures_per_address="2 per minute",
        rate_limit_requests_per_key=3,
    ) as application:
        tenant = await make_tenant(application)
        address = _address()
        async with client_from(application, address, bearer(WRONG_KEY)) as bad:
            statuses = [(await bad.get("/v1/customers")).status_code for _ in range(3)]
        assert statuses == [401, 401, 429]
        async with client_from(application, address, tenant.headers()) as good:
            answers = await _burst(good, 10)
        statuses = {answer.status_code for answer in answers}
        assert statuses == {200, 429}, statuses
        for answer in answers:
            if answer.status_code == 429:
                assert "at most 3 per second" in assert_rate_limited(answer)["message"]


# --- Requests per key -------------------------------------------------------------------------


async def _burst(client: httpx.AsyncClient, count: int) -> list[httpx.Response]:
    return list(await asyncio.gather(*(client.get("/v1/customers") for _ in range(count))))


async def test_requests_per_key_are_limited_with_ratelimit_headers(database_url, make_tenant):
    async with limited_app(database_url, rate_limit_requests_per_key=5) as application:
        tenant = await make_tenant(application)
        other = await tenant.client.post("/v1/api-keys", json={"name": "b", "scopes": ["*"]})
        async with client_from(application, _address(), tenant.headers()) as client:
            first = await client.get("/v1/customers")
            assert first.status_code == 200
            assert first.headers["ratelimit-limit"] == "5"
            assert first.headers["ratelimit-policy"] == "5;w=1"
            assert 0 <= int(first.headers["ratelimit-remaining"]) <= 4
            answers = await _burst(client, 20)
        refused = [answer for answer in answers if answer.status_code == 429]
        assert refused, [answer.status_code for answer in answers]
        for answer in refused:
            body = assert_rate_limited(answer)
            assert "at most 5 per second" in body["message"]
        assert {answer.status_code for answer in answers} <= {200, 429}
        # Another key of the same organization has its own window.
        async with client_from(
            application, _address(), {"Authorization": f"Bearer {other.json()['secret']}"}
        ) as second:
            assert (await second.get("/v1/customers")).status_code == 200


async def test_an_organization_sets_its_own_limit(database_url, make_tenant):
    async with limited_app(database_url) as application:
        tenant = await make_tenant(application)
        async with client_from(application, _address(), tenant.headers()) as client:
            assert (await client.get("/v1/customers")).headers["ratelimit-limit"] == "300"
            changed = await client.patch(
                "/v1/organizations/current/configuration", json={"requestsPerSecondPerKey": 2}
            )
            assert changed.status_code == 200, changed.text
            assert changed.json()["requestsPerSecondPerKey"] == 2
            answers = await _burst(client, 10)
            assert 429 in {answer.status_code for answer in answers}
            assert answers[0].headers["ratelimit-limit"] == "2"


async def test_a_restricted_key_cannot_change_the_limit(app, tenant):
    restricted = await tenant.client.post(
        "/v1/api-keys", json={"name": "r", "scopes": ["organizations:write"]}
    )
    secret = restricted.json()["secret"]
    async with client_from(app, _address(), {"Authorization": f"Bearer {secret}"}) as client:
        refused = await client.patch(
            "/v1/organizations/current/configuration", json={"requestsPerSecondPerKey": 100000}
        )
        assert_error(refused, 403, "forbidden")
    for value in (0, -1, "10", 1.5, 10_000_000):
        bad = await tenant.client.patch(
            "/v1/organizations/current/configuration", json={"requestsPerSecondPerKey": value}
        )
        assert_error(bad, 422, "validation_error")


# --- Storage ------------------------------------------------------------------------------------


def test_the_embedded_default_counts_in_memory_and_needs_no_redis():
    limiter = RateLimiter(Settings(database_url="sqlite+aiosqlite:///unused.db"))
    assert isinstance(limiter.storage, InProcessWindows)
    assert limiter.enabled


def _redis_reachable() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


async def test_processes_sharing_redis_share_the_counts(database_url, make_tenant):
    """Two apps (two server processes' worth of limiters) on one Redis: one key's requests
    to either count toward one window."""
    assert _redis_reachable(), "the local Redis at 127.0.0.1:6379 is needed for this test"
    settings = {"redis_url": REDIS_URL, "rate_limit_requests_per_key": 4}
    async with (
        limited_app(database_url, **settings) as first_process,
        limited_app(database_url, **settings) as second_process,
    ):
        assert isinstance(first_process.state.rate_limiter.storage, RedisStorage)
        tenant = await make_tenant(first_process)
        address = _address()
        async with (
            client_from(first_process, address, tenant.headers()) as one,
            client_from(second_process, address, tenant.headers()) as two,
        ):
            answers = await asyncio.gather(
                *(client.get("/v1/customers") for _ in range(6) for client in (one, two))
            )
        statuses = [answer.status_code for answer in answers]
        assert 429 in statuses and 200 in statuses
        for answer in answers:
            if answer.status_code == 429:
                assert_rate_limited(answer)


async def test_failed_authentications_are_shared_through_redis(database_url):
    assert _redis_reachable()
    settings = {
        "redis_url": REDIS_URL,
        "rate_limit_authentication_failures_per_address": "3 per minute",
    }
    async with (
        limited_app(database_url, **settings) as first_process,
        limited_app(database_url, **settings) as second_process,
    ):
        address = _address()
        bad = {"Authorization": f"Bearer {WRONG_KEY}"}
        async with client_from(first_process, address, bad) as one:
            for _ in range(3):
                assert (await one.get("/v1/customers")).status_code == 401
        async with client_from(second_process, address, bad) as two:
            assert_rate_limited(await two.get("/v1/customers"))


async def test_an_unreachable_redis_lets_requests_through(database_url, make_tenant):
    """Limits fail open: Redis down must not take the API down (the error is logged)."""
    async with limited_app(database_url, redis_url="redis://127.0.0.1:9/0") as application:
        tenant = await make_tenant(application)
        async with client_from(application, _address(), tenant.headers()) as client:
            response = await client.get("/v1/customers")
        assert response.status_code == 200, response.text
        assert "ratelimit-limit" not in response.headers


@pytest.mark.parametrize("value", ["ten per minute", "5 per fortnight", ""])
def test_a_limit_setting_that_is_not_a_limit_is_refused(value):
    with pytest.raises(ValueError, match="not a rate limit"):
        Settings(rate_limit_sign_in_failures_per_email=value)


# --- The in-memory windows ----------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


async def test_an_in_memory_window_allows_its_amount_then_frees_a_hit_as_it_leaves():
    """As limits' moving window counts: at most `amount` hits in any `window` seconds; the
    oldest hit leaving the window frees one, and the stats say when."""
    clock = Clock()
    windows = InProcessWindows(clock=clock)
    three_in_ten = parse("3 per 10 seconds")
    for second in (0, 1, 2):
        clock.now = 1_000.0 + second
        assert await windows.hit(three_in_ten, "key", "k1")
    assert not await windows.test(three_in_ten, "key", "k1")
    assert not await windows.hit(three_in_ten, "key", "k1")
    assert await windows.hit(three_in_ten, "key", "k2")  # another key has its own window
    stats = await windows.get_window_stats(three_in_ten, "key", "k1")
    assert (stats.reset_time, stats.remaining) == (1_010.0, 0)
    clock.now = 1_010.0  # the first hit leaves the window
    assert await windows.test(three_in_ten, "key", "k1")
    assert await windows.hit(three_in_ten, "key", "k1")
    assert not await windows.hit(three_in_ten, "key", "k1")
    await windows.clear(three_in_ten, "key", "k1")
    assert (await windows.get_window_stats(three_in_ten, "key", "k1")).remaining == 3


async def test_in_memory_windows_forget_keys_gone_quiet():
    clock = Clock()
    windows = InProcessWindows(clock=clock, sweep_every_hits=12)
    one_a_second = parse("1 per second")
    for address in range(10):
        assert await windows.hit(one_a_second, "auth", f"10.0.0.{address}")
    clock.now += 2
    assert await windows.hit(one_a_second, "key", "busy")
    assert not await windows.hit(one_a_second, "key", "busy")  # the 12th hit: a sweep
    assert list(windows._hits) == [one_a_second.key_for("key", "busy")]
