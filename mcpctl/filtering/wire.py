"""The tool filter on the JSON-RPC lines between a client and a server (pure; issue 29).

`ToolGate` sees every line both ways. A client's `tools/call` to a tool that is off is
answered at once with a JSON-RPC error and never reaches the server; the answer to a
client's `tools/list` has the tools that are off taken out (every page). Server lines
are parsed only while a `tools/list` answer is awaited, so everything else passes
through as the bytes it was. Client lines are all parsed: a method name may be written
with escapes (`"tools\\/call"`), so no substring test could be trusted to find a call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcpctl.filtering.decide import NEW_REASON
from mcpctl.filtering.live import LiveFilter, switched_off_message

_SILENT: dict[str, Any] = {"silent": True}  # a refused notification: no answer
INVALID_PARAMS = -32602  # what a server answers for a tool it does not have
INVALID_REQUEST = -32600

Say = Callable[[str], None]  # one line for stderr


def _key(request_id: Any) -> tuple[str, Any] | None:
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    return (type(request_id).__name__, request_id)


class ToolGate:
    def __init__(self, live: LiveFilter, say: Say):
        self.live = live
        self.say = say
        self.pending: set[tuple[str, Any]] = set()  # ids of tools/list requests in flight
        self.reported: set[str] = set()  # tools already said to be off as new

    def from_client(self, line: bytes) -> tuple[bytes | None, bytes | None]:
        """(what to send the server, what to answer the client with)."""
        duplicated: list[str] = []
        try:
            message = json.loads(line, object_pairs_hook=lambda pairs: _object(pairs,
                                                                              duplicated))
        except ValueError:
            return line, None  # the server answers it with its own parse error
        if duplicated:
            # Parsers disagree on which of two `method` or `name` keys wins: a server
            # that takes the first could run a call this gate read as something else.
            return None, _dump({"jsonrpc": "2.0", "id": _id_or_null(message),
                                "error": {"code": INVALID_REQUEST, "message":
                                          f"mcpctl: key {duplicated[0]!r} written twice "
                                          "in one object; not sent to the server"}})
        if isinstance(message, list):
            return self._batch(message, line)
        refusal = self._refusal(message)
        if refusal is not None:
            return None, None if refusal is _SILENT else _dump(refusal)
        return line, None

    def _batch(self, messages: list[Any], line: bytes) -> tuple[bytes | None, bytes | None]:
        refusals = [self._refusal(m) for m in messages]
        if all(r is None for r in refusals):
            return line, None
        rest = [m for m, r in zip(messages, refusals, strict=True) if r is None]
        answers = [r for r in refusals if r is not None and r is not _SILENT]
        return (_dump(rest) if rest else None), (_dump(answers) if answers else None)

    def _refusal(self, message: Any) -> dict[str, Any] | None:
        if not isinstance(message, dict):
            return None
        method = message.get("method")
        if method == "tools/list":
            key = _key(message.get("id"))
            if key is not None:
                self.pending.add(key)
            return None
        if method != "tools/call":
            return None
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        # A name that is not a string is refused here too: a lenient server might read
        # ["write"] or {"0": …} as a tool this gate never judged.
        reason = self.live.verdict_for_call(name) if isinstance(name, str) \
            else "a tool name must be a string"
        if not reason:
            return None
        if "id" not in message:
            return _SILENT  # a notification gets no answer, and is not sent on
        text = switched_off_message(self.live.server, name, reason) if isinstance(name, str) \
            else f"mcpctl: tools/call refused: {reason}"
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": INVALID_PARAMS, "message": text}}

    def from_server(self, line: bytes) -> bytes:
        if not self.pending:
            return line
        try:
            message = json.loads(line)
        except ValueError:
            return line
        if isinstance(message, list):  # the answers to a batch, each filtered
            answers = [self._filtered(m) for m in message]
            if all(new is old for new, old in zip(answers, message, strict=True)):
                return line
            return _dump(answers)
        filtered = self._filtered(message)
        return line if filtered is message else _dump(filtered)

    def _filtered(self, message: Any) -> Any:
        """The message, or a copy without the tools that are off when it answers an
        awaited tools/list."""
        if not isinstance(message, dict) or "method" in message:
            return message
        key = _key(message.get("id"))
        if key is None or key not in self.pending:
            return message
        self.pending.discard(key)
        result = message.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return message
        # Always a new object, so always written again: what the client reads is then
        # what this gate judged, even if a tool wrote "name" twice (a parser keeping the
        # first would otherwise see a name the gate never judged).
        return {**message, "result": {**result, "tools": self._kept(result["tools"])}}

    def _kept(self, tools: list[Any]) -> list[Any]:
        self.live.learn([t for t in tools if isinstance(t, dict)])
        kept = []
        for tool in tools:
            reason = self.live.verdict(tool) if isinstance(tool, dict) else "not a tool"
            if not reason:
                kept.append(tool)
            elif reason == NEW_REASON and tool.get("name") not in self.reported:
                name = str(tool.get("name"))
                self.reported.add(name)
                self.say(f"mcpctl: server {self.live.server!r} lists a new tool {name!r}; "
                         f"it is off until you switch it on: "
                         f"mcpctl tools {self.live.server} --enable {name}")
        return kept


def _object(pairs: list[tuple[str, Any]], duplicated: list[str]) -> dict[str, Any]:
    made = dict(pairs)
    if len(made) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                duplicated.append(key)
            seen.add(key)
    return made


def _id_or_null(message: Any) -> Any:
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if _key(request_id) is not None else None


def _dump(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
