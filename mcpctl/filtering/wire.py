"""The tool filter on the JSON-RPC lines between a client and a server (pure; issue 29).

`ToolGate` sees every line both ways. A client's `tools/call` to a tool that is off is
answered at once with a JSON-RPC error and never reaches the server; the answer to a
client's `tools/list` has the tools that are off taken out (every page). Client lines
are all parsed: a method name may be written with escapes (`"tools\\/call"`), so no
substring test could be trusted to find a call.

A client's `tools/list` goes to the server under an id of the gate's own (`mcpctl-`, a
random nonce, a counter), mapped back in the answer. The server never sees the
client's id, so an answer the client would take for its own can only come through the
gate; and a server that answers alike answers with the same bytes but for the id, so
an answer already judged is recognised by its bytes (`answers.Templates`, or the disk
store) and written again from the template, without being parsed. Server lines are
parsed only while a `tools/list` answer is awaited; everything else passes through as
the bytes it was.
"""

import json
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from mcpctl.filtering.answers import Judged, Template, Templates, cut, with_id
from mcpctl.filtering.decide import NEW_REASON
from mcpctl.filtering.live import LiveFilter, encoded_definitions, switched_off_message

_SILENT: dict[str, Any] = {"silent": True}  # a refused notification: no answer
_DROP: dict[str, Any] = {"drop": True}  # a server answer to an id it was never sent
INVALID_PARAMS = -32602  # what a server answers for a tool it does not have
INVALID_REQUEST = -32600

Say = Callable[[str], None]  # one line for stderr


class AnswerStore(Protocol):
    """Judged answers kept across sessions (`answer_store.DiskAnswers`)."""

    def get(self, before: bytes, after: bytes) -> Judged | None: ...

    def prepare(self) -> Template | None: ...

    def put(self, before: bytes, after: bytes, judged: Judged) -> None: ...

    def flush(self, timeout: float) -> None: ...


def _key(request_id: Any) -> tuple[str, Any] | None:
    if isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    return (type(request_id).__name__, request_id)


class ToolGate:
    def __init__(self, live: LiveFilter, say: Say, *, nonce: str = "0",
                 store: AnswerStore | None = None):
        self.live = live
        self.say = say
        self.prefix = f"mcpctl-{nonce}-"
        self.count = 0
        self.slots: dict[str, Any] = {}  # the gate's ids of tools/list in flight → the client's
        self.clients: dict[tuple[str, Any], str] = {}  # the client's id → the gate's
        self.templates = Templates()
        self.store = store
        self.learned: Judged | None = None  # whose definitions the filter has now
        self.unsaved: list[Template] = []  # judged, not yet handed to the store
        self.reported: set[str] = set()  # tools already said to be off as new

    def prepare(self) -> None:
        """What the store needs for its first answer, made while the server starts: the
        answer the server gave last under this policy is the first template."""
        if self.store is not None:
            latest = self.store.prepare()
            if latest is not None:
                self.templates.add(latest)

    def store_judged(self) -> None:
        """Hand answers judged since the last call to the store: called once the client
        has its answer, so storing never delays one."""
        unsaved, self.unsaved = self.unsaved, []
        if self.store is None:
            return
        for template in unsaved:
            judged = template.judged
            encoded = encoded_definitions(judged.tools or ()) if self.live.remembers else b""
            self.store.put(template.before, template.after,
                           judged._replace(tools=None, encoded=encoded))

    def flush(self, timeout: float) -> None:
        """Let answers still being stored finish (bounded): the relay is ending."""
        if self.store is not None:
            self.store.flush(timeout)

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
        forward, answer = self._judge(message)
        if answer is not None:
            return None, None if answer is _SILENT else _dump(answer)
        return (line if forward is message else _dump(forward)), None

    def _batch(self, messages: list[Any], line: bytes) -> tuple[bytes | None, bytes | None]:
        judged = [self._judge(m) for m in messages]
        rest = [forward for forward, answer in judged if answer is None]
        answers = [a for _, a in judged if a is not None and a is not _SILENT]
        if len(rest) == len(messages) and all(f is m for f, m in zip(rest, messages,
                                                                     strict=True)):
            return line, None
        return (_dump(rest) if rest else None), (_dump(answers) if answers else None)

    def _judge(self, message: Any) -> tuple[Any, dict[str, Any] | None]:
        """(the message to send on, rewritten or as it was; or a refusal)."""
        if not isinstance(message, dict):
            return message, None
        method = message.get("method")
        if method == "tools/list" and "id" in message:
            return self._listing(message)
        if method == "notifications/cancelled":
            return self._cancelled(message), None
        if method != "tools/call":
            return message, None
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        # A name that is not a string is refused here too: a lenient server might read
        # ["write"] or {"0": …} as a tool this gate never judged.
        reason = self.live.verdict_for_call(name) if isinstance(name, str) \
            else "a tool name must be a string"
        if not reason:
            return message, None
        if "id" not in message:
            return None, _SILENT  # a notification gets no answer, and is not sent on
        text = switched_off_message(self.live.server, name, reason) if isinstance(name, str) \
            else f"mcpctl: tools/call refused: {reason}"
        return None, {"jsonrpc": "2.0", "id": message["id"],
                      "error": {"code": INVALID_PARAMS, "message": text}}

    def _listing(self, message: dict[str, Any]) -> tuple[Any, dict[str, Any] | None]:
        key = _key(message["id"])
        if key is None:  # MCP ids are strings or integers; nothing else can be mapped back
            return None, {"jsonrpc": "2.0", "id": None, "error": {
                "code": INVALID_REQUEST,
                "message": "mcpctl: a request id must be a string or an integer"}}
        self.count += 1
        slot = f"{self.prefix}{self.count}"
        self.slots[slot] = message["id"]
        self.clients[key] = slot
        return {**message, "id": slot}, None

    def _cancelled(self, message: dict[str, Any]) -> Any:
        """A cancellation names the client's id; the server knows the gate's."""
        params = message.get("params")
        if not isinstance(params, dict):
            return message
        key = _key(params.get("requestId"))
        slot = self.clients.get(key) if key is not None else None
        if slot is None:
            return message
        return {**message, "params": {**params, "requestId": slot}}

    def from_server(self, line: bytes) -> bytes | None:
        """What the client gets for a server line (None: nothing)."""
        if not self.slots:
            return line
        # A copy made in one step: the client's thread adds ids while this one reads.
        ids = {_quoted(slot): slot for slot in tuple(self.slots)}
        hit = self.templates.match(line, ids)
        if hit is not None:
            return self._replay(*hit)
        stored = self._stored(line, ids)
        if stored is not None:
            return stored
        try:
            message = json.loads(line)
        except ValueError:
            return line
        if isinstance(message, list):  # the answers to a batch, each filtered
            answers = [self._filtered(m) for m in message]
            if all(new is old for new, old in zip(answers, message, strict=True)):
                return line
            kept = [_whole(a) for a in answers if a is not _DROP]
            return _dump(kept) if kept else None
        filtered = self._filtered(message)
        if filtered is _DROP:
            return None
        if not isinstance(filtered, _Answer):
            return line if filtered is message else _dump(filtered)
        if filtered.judged is not None:
            self._keep(line, filtered)
        return filtered.encoded()

    def replayed(self, buffer: bytearray, end: int) -> bytes | None:
        """The answer for the line `buffer[:end]` when it is a template's (else None, and
        the line goes through `from_server`): the relay's fast path, with no copy."""
        if not self.slots or not self.templates.entries:
            return None
        ids = {_quoted(slot): slot for slot in tuple(self.slots)}
        hit = self.templates.match_in(buffer, end, ids)
        return None if hit is None else self._replay(*hit)

    def _replay(self, template: Template, slot: str) -> bytes:
        judged = template.judged
        client_id = self._answered(slot)
        if self.learned is not judged:
            if judged.tools is not None:
                self.live.learn(judged.tools)
            else:
                self.live.learn_encoded(judged.encoded)
            self.learned = judged
        for name in judged.new:
            self._report_new(name)
        return with_id(_dump_id(client_id), judged.rest)

    def _stored(self, line: bytes, ids: dict[bytes, str]) -> bytes | None:
        """The answer the disk store has for `line`, if it has one."""
        if self.store is None:
            return None
        for id_bytes, slot in ids.items():
            edges = cut(line, id_bytes)
            if edges is None:
                continue
            judged = self.store.get(*edges)
            if judged is None:
                return None
            template = Template(*edges, judged)
            self.templates.add(template)
            return self._replay(template, slot)
        return None

    def _answered(self, slot: str) -> Any:
        client_id = self.slots.pop(slot)
        key = _key(client_id)
        if key is not None and self.clients.get(key) == slot:
            del self.clients[key]
        return client_id

    def _filtered(self, message: Any) -> Any:
        """The message as it was; an `_Answer` to a tools/list in flight; or _DROP for an
        answer to a client id the server was never sent (a forgery)."""
        if not isinstance(message, dict) or "method" in message:
            return message
        request_id = message.get("id")
        key = _key(request_id)
        if key is not None and key in self.clients:
            return _DROP
        if not isinstance(request_id, str) or request_id not in self.slots:
            return message
        client_id = self._answered(request_id)
        rest = {k: v for k, v in message.items() if k != "id"}
        result = message.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return _Answer(client_id, request_id, rest, None)  # an error: only the id changes
        # Always written again from what was judged: what the client reads is then what
        # this gate judged, even if a tool wrote "name" twice (a parser keeping the
        # first would otherwise see a name the gate never judged).
        tools = result["tools"]
        kept, new = self._kept(tools)
        rest["result"] = {**result, "tools": kept}
        # The definitions are kept to be learnt again on a hit only where they matter.
        definitions = [t for t in tools if isinstance(t, dict)] if self.live.remembers else []
        judged = Judged(_dump(rest)[1:], new, definitions)
        self.learned = judged
        return _Answer(client_id, request_id, rest, judged)

    def _keep(self, line: bytes, answer: "_Answer") -> None:
        """Remember a judged answer by its bytes, for this session and the store."""
        edges = cut(line, _quoted(answer.slot))
        judged = answer.judged
        if edges is None or judged is None:
            return
        template = Template(*edges, judged)
        self.templates.add(template)
        if self.store is not None:
            self.unsaved.append(template)

    def _kept(self, tools: list[Any]) -> tuple[list[Any], tuple[str, ...]]:
        self.live.learn([t for t in tools if isinstance(t, dict)])
        kept, new = [], []
        for tool in tools:
            reason = self.live.verdict(tool) if isinstance(tool, dict) else "not a tool"
            if not reason:
                kept.append(tool)
            elif reason == NEW_REASON:
                new.append(str(tool.get("name")))
                self._report_new(new[-1])
        return kept, tuple(new)

    def _report_new(self, name: str) -> None:
        if name in self.reported:
            return
        self.reported.add(name)
        self.say(f"mcpctl: server {self.live.server!r} lists a new tool {name!r}; "
                 f"it is off until you switch it on: "
                 f"mcpctl tools {self.live.server} --enable {name}")


class _Answer(NamedTuple):
    """A server's answer to a tools/list in flight, for the client."""

    client_id: Any
    slot: str
    rest: dict[str, Any]  # all but the id, the tools judged
    judged: Judged | None  # None: not a list of tools (an error)

    def encoded(self) -> bytes:
        if self.judged is not None:
            return with_id(_dump_id(self.client_id), self.judged.rest)
        return _dump(_whole(self))


def _whole(answer: Any) -> Any:
    return {"id": answer.client_id, **answer.rest} if isinstance(answer, _Answer) else answer


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


def _quoted(slot: str) -> bytes:
    return b'"' + slot.encode() + b'"'  # the gate's ids need no escapes


def _dump_id(request_id: Any) -> bytes:
    return json.dumps(request_id, ensure_ascii=False).encode()


def _dump(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
