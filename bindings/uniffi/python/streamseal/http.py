"""The endpoints over httpx, with the core's retry policy: ``Client`` (sync)
and ``AsyncClient`` (asyncio). ``pip install streamseal[http]`` brings httpx.

They hold no logic of their own: ``build_request`` builds and validates,
``parse_response`` reads (an error status raises ``StreamsealError.Api``,
which carries its ``retry`` facts), ``retry_step`` decides whether and when
to send again, ``next_page`` pages. What is here is the I/O: the request,
its timeout, the sleep between attempts, and a bounded read of the body.

    from streamseal.http import Client

    with Client("https://chat.example.test", "ws_...", api_key) as client:
        sent = client.call({"endpoint": "sendMessage", "streamId": stream_id,
                            "body": {"content": "hi"}})
        for page in client.pages({"endpoint": "listStreams", "query": {"type": "channel"}}):
            ...

A ``sendMessage`` or ``invocationMessage`` without a ``clientMessageId``
gets one minted once and reused on every attempt, so a resend cannot post
twice. A call that may have landed and is not safe to resend is never sent
again: the error raised carries ``step`` (a ``RetryStep.READ_BACK`` naming
the read that tells whether it did).

Each attempt is bounded as a whole by ``timeout`` (httpx's own timeout bounds
each connect, read and write); ``on_retry(attempt, step)`` is told of each
retry before its wait.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, AsyncIterator, Callable, Dict, Iterator, List, Optional, Union

import httpx

from . import (
    ApiResponse,
    Context,
    Header,
    HttpRequest,
    HttpResponse,
    RequestBody,
    RetryPolicy,
    RetryStep,
    StreamsealError,
    build_request,
    default_retry_policy,
    next_page,
    no_response_retry_facts,
    parse_response,
    retry_step,
    with_client_message_id,
)

__all__ = ["Client", "AsyncClient", "LostResponse"]

#: The largest response body read; a larger one is refused.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024


class LostResponse(Exception):
    """No response came (timeout, refused or reset connection) and the
    policy does not send the request again: ``step`` says why (``GIVE_UP``,
    or ``READ_BACK`` with the read that tells whether it landed)."""

    def __init__(self, step: RetryStep, cause: BaseException) -> None:
        super().__init__(f"no response, and not sent again: {step}")
        self.step = step
        self.__cause__ = cause


def _now_ms() -> int:
    return int(time.time() * 1000)


class _Core:
    """What both clients share: building, minting, reading, deciding."""

    def __init__(
        self,
        base_url: str,
        workspace_id: str,
        api_key: Optional[str],
        service_version: Optional[str],
        retry: Union[RetryPolicy, bool, None],
        max_response_bytes: int,
    ) -> None:
        self.context = Context(base_url=base_url, workspace_id=workspace_id, api_key=api_key, service_version=service_version)
        if retry is False:
            policy = default_retry_policy()
            policy.max_attempts = 1
            self.policy: Optional[RetryPolicy] = policy
        else:
            self.policy = retry if isinstance(retry, RetryPolicy) else None
        self.max_response_bytes = max_response_bytes
        # Checked once, here: a bad base URL, workspace or key fails at once.
        build_request(self.context, json.dumps({"endpoint": "getMe"}))

    def build(self, request: Dict[str, Any]) -> HttpRequest:
        # The core mints a clientMessageId for a send without one, once.
        return build_request(self.context, with_client_message_id(json.dumps(request), _now_ms()))

    @staticmethod
    def send_args(built: HttpRequest) -> Dict[str, Any]:
        content: Optional[bytes] = None
        if isinstance(built.body, RequestBody.JSON):
            content = built.body.json.encode("utf-8")
        elif built.body is not None:
            raise StreamsealError.InvalidField(
                "INVALID_FIELD", f"{built.endpoint} sends a file: send it with your own multipart request", {}
            )
        return {
            "method": built.method.name,
            "url": built.url,
            "headers": [(h.name, h.value) for h in built.headers],
            "content": content,
        }

    def read(self, built: HttpRequest, status: int, headers: List[tuple[str, str]], body: bytes) -> ApiResponse:
        # A success body must be UTF-8 (a byte-order mark is kept, and the
        # JSON reader refuses it), as Rust and the JS client read it; any
        # other body is read only for its error code, with what is not UTF-8
        # replaced.
        if 200 <= status < 300:
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                raise StreamsealError.MalformedJson(
                    "MALFORMED_JSON", f"malformed JSON: the {status} body is not UTF-8", {}
                ) from None
        else:
            text = body.decode("utf-8", errors="replace")
        return parse_response(built, HttpResponse(status=status, headers=[Header(name=n, value=v) for n, v in headers], body=text))

    def step(self, facts: Any, attempt: int) -> RetryStep:
        return retry_step(facts, attempt, _now_ms(), self.policy)


def _too_large(size: int, limit: int) -> StreamsealError:
    return StreamsealError.InputTooLarge(
        "INPUT_TOO_LARGE", f"the response body is larger than the client's limit ({size} > {limit} bytes)", {}
    )


class Client:
    """The endpoints over a synchronous ``httpx.Client``."""

    def __init__(
        self,
        base_url: str,
        workspace_id: str,
        api_key: Optional[str],
        *,
        service_version: Optional[str] = None,
        retry: Union[RetryPolicy, bool, None] = None,
        timeout: float = 30.0,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        http: Optional[httpx.Client] = None,
        on_retry: Optional[Callable[[int, RetryStep], None]] = None,
    ) -> None:
        self._core = _Core(base_url, workspace_id, api_key, service_version, retry, max_response_bytes)
        self._http = http or httpx.Client(timeout=timeout)
        self._timeout = timeout
        self._on_retry = on_retry

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _fetch(self, built: HttpRequest) -> ApiResponse:
        limit = self._core.max_response_bytes
        # httpx's timeout bounds each read; the attempt as a whole is bounded here.
        deadline = time.monotonic() + self._timeout
        with self._http.stream(**_Core.send_args(built)) as response:
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > limit:
                    raise _too_large(len(body), limit)
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("the attempt took longer than the client's timeout")
            return self._core.read(built, response.status_code, list(response.headers.multi_items()), bytes(body))

    def call(self, request: Dict[str, Any]) -> ApiResponse:
        """One call (``request`` as the bindings' JSON shape, a dict), retried
        as the policy allows. Raises ``StreamsealError`` (``Api`` with
        ``step`` set when the policy stops) or ``LostResponse``."""
        built = self._core.build(request)
        attempt = 1
        while True:
            try:
                return self._fetch(built)
            except StreamsealError.Api as error:
                step = self._core.step(error.retry, attempt)
                if not isinstance(step, RetryStep.RETRY):
                    error.step = step  # type: ignore[attr-defined]
                    raise
            except httpx.RequestError as lost:
                step = self._core.step(no_response_retry_facts(built), attempt)
                if not isinstance(step, RetryStep.RETRY):
                    raise LostResponse(step, lost) from lost
            if self._on_retry is not None:
                self._on_retry(attempt, step)
            time.sleep(step.delay_ms / 1000)
            attempt += 1

    def pages(self, request: Dict[str, Any]) -> Iterator[ApiResponse]:
        """Every page of a paged list (``next_page``)."""
        current: Optional[str] = json.dumps(request)
        while current is not None:
            page = self.call(json.loads(current))
            yield page
            current = next_page(current, page.data_json)


class AsyncClient:
    """The endpoints over an ``httpx.AsyncClient`` (asyncio)."""

    def __init__(
        self,
        base_url: str,
        workspace_id: str,
        api_key: Optional[str],
        *,
        service_version: Optional[str] = None,
        retry: Union[RetryPolicy, bool, None] = None,
        timeout: float = 30.0,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        http: Optional[httpx.AsyncClient] = None,
        on_retry: Optional[Callable[[int, RetryStep], None]] = None,
    ) -> None:
        self._core = _Core(base_url, workspace_id, api_key, service_version, retry, max_response_bytes)
        self._http = http or httpx.AsyncClient(timeout=timeout)
        self._timeout = timeout
        self._on_retry = on_retry

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _fetch(self, built: HttpRequest) -> ApiResponse:
        limit = self._core.max_response_bytes
        async with self._http.stream(**_Core.send_args(built)) as response:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > limit:
                    raise _too_large(len(body), limit)
            return self._core.read(built, response.status_code, list(response.headers.multi_items()), bytes(body))

    async def call(self, request: Dict[str, Any]) -> ApiResponse:
        """As ``Client.call``; the waits between attempts are ``asyncio.sleep``
        (cancelling the task stops the call)."""
        built = self._core.build(request)
        attempt = 1
        while True:
            try:
                return await asyncio.wait_for(self._fetch(built), self._timeout)
            except StreamsealError.Api as error:
                step = self._core.step(error.retry, attempt)
                if not isinstance(step, RetryStep.RETRY):
                    error.step = step  # type: ignore[attr-defined]
                    raise
            except (httpx.RequestError, asyncio.TimeoutError) as lost:
                step = self._core.step(no_response_retry_facts(built), attempt)
                if not isinstance(step, RetryStep.RETRY):
                    raise LostResponse(step, lost) from lost
            if self._on_retry is not None:
                self._on_retry(attempt, step)
            await asyncio.sleep(step.delay_ms / 1000)
            attempt += 1

    async def pages(self, request: Dict[str, Any]) -> AsyncIterator[ApiResponse]:
        """Every page of a paged list (``next_page``)."""
        current: Optional[str] = json.dumps(request)
        while current is not None:
            page = await self.call(json.loads(current))
            yield page
            current = next_page(current, page.data_json)
