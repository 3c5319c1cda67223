"""The structural mutants judged by hand not to change what mcpctl does
(`bench/structural_mutation.py` reports them apart and does not run them again).

Each is named by its module, its operator and its line's text as the tool prints it
(" #2" after the text for the module's second mutant of that operator on a line of
that text, and so on), with why.
"""

from __future__ import annotations

# Survivors that behave exactly like the original: (module, operator, stripped line) →
# why. docs/design.md lists them with the run's figures. A reason that starts with COST
# marks a mutant that is only slower or holds a resource longer, never wrong: the
# report counts those apart, and gives the score with and without them.
COST = "cost only: "
_BUILTIN = ("the interpreters mcpctl runs on here have the builtin module, so `builtin` is "
            "never None; the branch is for a Python built without it")
_UNCLOSED = ("a cache left open is closed when the command ends; it is read-only and "
             "immutable, so nothing is lost")
_NO_LOCK = ("the writer's lock not had when the cache's folder is not there yet (a first "
            "pass in a new home) or is: the cache is then written in the command, not aside")
_TEMP = 'fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)'
_TEMP_NAME = ("only the new cache's temporary name changes (it is renamed into place or "
              "removed)")
_GIT_ENV = ('env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, '
            'GIT_TERMINAL_PROMPT="0",')
_REAPED = ("the gits left unreaped when the pipes end are reaped by the caller's `finally` "
           "(`_Run.stop` kills what still runs and reaps)")
_NO_PAGER = ("git pages only to a terminal, and its output here is a pipe")
_NO_ASKPASS = ("the askpass programs run only for a remote's credentials: no command mcpctl "
               "runs contacts a remote, and the caller's `GIT_*` are dropped anyway")
_PATHS = ("both sides are `Path`s: the prefix mutant compares what is not a string whole, "
          "as the original does (the same comparison by a prefix of the text, planted by "
          "hand, is killed by the test its line names in docs/design.md)")
_GATE_STATES = ("if states is None or states.root != root "
                "or states.trust_file != trust_file:")
_FILE_LINE = ("no change line but a file's begins with `file` (the others begin with a "
              "field's name: `transport`, `command`, `args[`, `env `, `header `, ...)")
_SHORT_MODULE = ("an interpreter's module option is `-m` or the empty text: a text whose first 8 "
                 "characters are those of a text shorter than 8 is that text")
_KINDS = ("a candidate's kind is `file`, `program` or `module`, each shorter than 8 "
          "characters: compared by 8, each is compared whole")
_PIN_KINDS = ("a pin set's kind is `remote`, `workspace`, `npx` or `uvx` (`PinSet`'s three "
              "makers): no two share their first 8 characters")
_LOOP_PIPES = ("the event loop's `subprocess_exec` (unlike `create_subprocess_exec`) makes "
               "each of the three standard streams a pipe when it is not named")
_HASHED = ("`_hash` gives `sha256:` and the hex digest, or `unreadable:` or `special:` and "
           "a word: no other begins with `sha256`, so the prefix without its colon decides "
           "as the whole one does")
_STDIN_PIPE = ("`shutdown` runs only on a started server (`spawn` returned, or a cancelled "
               "start's `_started`), whose transport is set and always has a stdin pipe: "
               "`_pipe(0)` is never None there")
_UNREAD = (COST + "the child's message not read, or read and dropped: it is not whole "
           "(`_receive` says so), and the parent hashes the child's half itself")
_HEADLESS = (COST + "the child's message sent without its head, or without the head's "
             "length: it is not whole (`_receive` says so), and the parent hashes the "
             "child's half itself")
_WS = "mcpctl/pinning/workspace.py"
_NO_SPLIT = (COST + "a first pass over many files never split: hashed in this process "
             "alone, as it is where no child can be forked (`_can_fork`), to the same "
             "entries")
_CHILD_SILENT = (COST + "the child sends nothing: what the parent reads is not whole "
                 "(`_receive` says so), and the parent hashes the child's half itself, as "
                 "for a child that failed")
_ONE_LENGTH = ("the child's columns come from one dict and its entries' fields, so they are "
               "of one length: `strict` checks what always holds")
_PINGED_AGAIN = (COST + "a Secret Service that let a ping time out is pinged again on each "
                 "connection keyring opens: each waits its own 5 s (`secret check` "
                 "against a stopped daemon, 25 s) and fails as the first did")
_GIT_KINDS = ("a path's kind in git's listing is `tracked`, `untracked`, `nested` or `ignored`: "
              "no two share their first 8 characters, so the prefix decides as the whole "
              "kind does")
_SOURCES = ("a listing's source is `git` or `folder`, each shorter than 8 characters: "
            "compared by 8, each is compared whole")
_DETACHED = ("the cache's writer left in the caller's session, or holding its standard "
             "streams: it still writes the same cache and lets go of the lock when done; a "
             "reader of the command's output sees its end when the writer ends rather than "
             "the command, which only a clock can tell")
_REPO_ORDER = ("the listings are sorted to write the cache, but `_git_paths` makes one only, "
               "under `\"\"`: one key has one order, whatever the sort's arguments")
_ENDPOINT_WAIT = (COST + "the wait for the `endpoint` event left pending: it is pending only when "
                  "the stream ended first or the time ran out, and `run` then returns, the "
                  "bridge ends, and `asyncio.run` cancels every task still pending")
_ORIGINS = ("`origin` gives a tuple (scheme, host, port), not a string: the prefix helper "
            "compares it whole (`test_sse_origin.py` changes each part alone)")
_NOTHING_RAISED = ("no task `_spawn` starts ends with an exception to mark as retrieved: "
                   "`_post` settles its future with any error, `_answer_all` suppresses "
                   "every one, `_listen` turns each into the channel's failure")
_MARKER = ("a digest is `sha256:`, `sha256-tree:`, `exec:`, `absent` or a kind, or begins "
           "with the marker `unpinned:`: none but a marker begins with `unpinned`")
_MEMO_UNKEPT = COST + "a change report never kept in the memo: made again from the manifest"
_NOT_GUARDED_NOTE = ('if claude is not None and claude.state == "not guarded" and '
                     'claude.fix != ENABLE_FIX \\')
_APP_AUTHOR = ("platformdirs reads `appauthor` only in its Windows class (there it keeps "
               "the folder `mcpctl`, not `mcpctl\\mcpctl`); on Linux and macOS, where "
               "mcpctl and this suite run, the folders are the same with or without it")
_KIND = ("a pin set's kind is `workspace`, `remote`, `absent` or a runner's name (`npx`, "
         "`uvx`, ...): no other kind begins with `workspac`, so the first 8 characters "
         "decide as the whole does")
_TUPLE_PREFIXES = ("`startswith` is given a tuple there, which the operator (it shortens "
                   "a string) leaves as it is: the mutant is the original")
_CHAINER = ("no keyring backend class but keyring's own chainer is named with "
            "`ChainerB` first, so the first 8 characters decide as the whole name does")
_WHOLE = ("neither side is a string (integers such as row flags, lists, dicts, `Path`s): the "
          "prefix mutant compares them whole, as the original does")
_SMALLER_CACHE = (COST + "a pure function's cache kept to 128 names (lru_cache's default) "
                  "instead of 4,096: more names judged again, the same answers")
_ANCHORED = ("`_PREFIX` begins with `^` (and no MULTILINE): it can match once at most, so "
             "`count=1` changes nothing")
_ACTIONS = ("a storage action is `stored`, `replaced` or `unchanged` (`removed`, `kept` "
            "only when forgetting): none shares its first 8 characters with another")
_TABLE_ROW = ("`claude-code` is a row of the client table, a constant: the lookup never "
              "finds nothing")
_EDIT_CHECKED = ("a second check of the JSON editor's result against the document meant: "
                 "it fails only where the editor has a bug, and no input is known that "
                 "makes it differ (the editor's own tests hold it to the same)")

_BOTH_READERS = ("reached only when the fast reader refuses a text that `jsonc.parse` "
                 "reads without a duplicate key; both are `json.loads` over the same text, "
                 "blanked alike, so no input is known that gets there")
_SCOPED_FILTER = ("a server for one workspace reaches only a client with project sections, "
                  "and the only one is Claude Code, whose tool filter is permission rules in "
                  "its settings, never keys of an entry: no filter is ever passed there")
_FLUSHED = ("nothing is left in a buffer when `run` execs its server: it writes nothing to "
            "stdout (the server's protocol channel), and stderr is line-buffered (Python "
            "3.9 and later, a pipe or a file too) and written in whole lines")

def _unfrozen(what: str, how: str = "") -> str:
    """Why `frozen=True` dropped from a dataclass changes nothing."""
    return f"no {what} is hashed or changed after it is made{how}: `frozen` forbids only " \
        "what no code does"


_SESSION_BUS = "jeepney's `open_dbus_connection` opens the session bus unless told otherwise"
_LOCKED = (COST + "a locked collection or item read anyway: the Secret Service answers "
           "`GetSecret` on it with the error `IsLocked` (the specification's), which the read "
           "turns into None, as the check does; only calls are saved")
_LINUX = "`sys.platform` is never a string that starts with `linu` but not `linux`"
_BYTES_SHORTENED = "the text is bytes: the mutant shortens only a string, so nothing changes"
_BYTES_WHOLE = "both sides are bytes: the prefix mutant compares what is not a string whole"
_DEFAULT_PIPE = (COST + "the pipe keeps the system's default size (64 KiB): a large answer "
                 "crosses in more writes and reads")
_RELAY_FAILED = ("the server could not be started: `run` reports it and ends its process, "
                 "so what the relay leaves open or installed (two pipe ends, its signal "
                 "handlers) goes with it")
_RELAY_ENDED = ("the signal handlers left installed once the relay has returned: `run` ends "
                "its process at once with the server's code")
_NOT_PREPARED = (COST + "the answer kept from the last run under this policy is not made a "
                 "template before the server starts: the first `tools/list` answer is "
                 "judged again instead of replayed, to the same bytes (the filter is a "
                 "function of the policy and the answer; `test_run_filter.py` passes "
                 "whole with the call dropped)")
_TRANSPORT_LATER = (COST + "the transport known only when `spawn` returns (`_started`): before "
                    "then a broken cap cannot pause the reading, but what is read is "
                    "dropped (`_ended` is set), and the exit's diagnosis waits for the "
                    "spawn to return (`stdio.py`'s `_opened`) before it asks for the code")
_PIPES_CONNECT = (COST + "a cancelled start is waited for without the 30 s bound (or, past "
                  "it, asked for a result it does not have yet): asyncio connects the "
                  "pipes of a forked child in milliseconds, so the bound is never met")
_PROTOCOL_STUB = ("a stub of the `Channel` protocol class, which no channel inherits: the "
                  "stdio and HTTP channels define their own, so the body never runs")
_ONLY_RPC_ERRORS = ("a channel's futures carry an `RpcError` or a `ChannelError` only, and "
                    "`negotiate` and `_settled_discover` take the `ChannelError` before "
                    "`_discover_verdict`: the error there is always an `RpcError`")
_INTEGERS_WHOLE = "the codes are integers: the prefix mutant compares what is not a string whole"
_NOT_PAUSED = (COST + "the reading is not paused after a broken cap: what is read next is "
               "dropped (`_ended` is set) until the probe shuts the server down")
_HTTPX_CLI = (COST + "httpx imports its command-line module (click, rich): two thirds of its "
              "import time, for `httpx.main`, which mcpctl never calls")
_LINUX_HERE = ("the same on Linux, where the suite runs and /proc is mounted (`sys.platform` "
               "is `linux`, and no other platform's name begins with `linu`); the "
               "guard is for other systems, which no test here can be")
_READ_ON = (COST + "a server that polluted stdout before its spawn returned is read on "
            "until the channel closes: the failure and its diagnosis were set by the line "
            "already")
_DIAGNOSIS_LEFT = (COST + "the exit's diagnosis left running past the close: `asyncio.run` "
                   "cancels it at the loop's end, and the failure it would set is never read")
_ALWAYS_SPAWNED = ("a channel is handed out only once its process has started (`open` "
                   "raises otherwise, and the probe keeps only opened channels), so "
                   "`_process` is never None where it is closed or aborted")


EQUIVALENT: dict[tuple[str, str, str], str] = {
    ("mcpctl/credentials/keyring_store.py", "drop-keyword",
     'data = json.loads(index.read_text(encoding="utf-8"))'):
        "the index is mcpctl's own: written by `json.dumps`, which escapes every character "
        "past ASCII, of names `check_secret_name` keeps to ASCII; every locale encoding "
        "reads ASCII alike",
    ("mcpctl/clients/guarded.py", "prefix-eq", "if client_id != GUARDED_CLIENT:"):
        "the client ids are `claude-code`, `claude-desktop`, `gemini`, `codex`, `vscode`, "
        "`cursor`, `windsurf`: none other begins `claude-c`",
    ("mcpctl/clients/guarded.py", "prefix-eq",
     "return any(without_key(line[1:]) == list(GUARD_ARGS) and key_in(line) is not None"):
        _WHOLE,
    ("mcpctl/clients/guarded.py", "drop-keyword", "os_key=machine.os_key)"):
        "`os_key` defaults to `linux`, which `machine.os_key` is on Linux, where this suite "
        "runs; on macOS the keyword names the managed-settings file under /Library",
    ("mcpctl/clients/guarded.py", "prefix-eq",
     "start = here if here == root or root in here.parents else root"): _WHOLE,
    ("mcpctl/clients/guarded.py", "prefix-eq", "if folder == root or not path.is_file():"):
        _WHOLE,
    ("mcpctl/credentials/keyring_store.py", "prefix-starts",
     "if type(backend).__module__.startswith(_NO_KEYRING) or _is_empty_chainer(backend):"):
        _TUPLE_PREFIXES,
    ("mcpctl/credentials/keyring_store.py", "prefix-starts",
     'if kind.__module__.startswith(_FILE_BACKENDS) or hasattr(kind, "file_path") \\'):
        _TUPLE_PREFIXES,
    ("mcpctl/credentials/keyring_store.py", "prefix-eq",
     'chained = getattr(backend, "backends", None) if type(backend).__name__ == '
     '"ChainerBackend" \\'): _CHAINER,
    ("mcpctl/credentials/keyring_store.py", "prefix-eq",
     'return type(backend).__name__ == "ChainerBackend" and not getattr(backend, '
     '"backends", [1])'): _CHAINER,
    ("mcpctl/credentials/keyring_store.py", "prefix-starts",
     'if name.startswith("keyring.backends.SecretService"):'):
        "no keyring backend module begins `keyring.backends.SecretServic` but the Secret "
        "Service's own",
    ("mcpctl/credentials/keyring_store.py", "prefix-eq", 'if state == "unreachable":'):
        "the collection's states are `ok`, `locked`, `absent` and `unreachable`: none "
        "other begins `unreacha`",
    ("mcpctl/launch.py", "prefix-eq", "whole = pins is not None and pins.kind == WORKSPACE"):
        _KIND,
    ("mcpctl/launch.py", "prefix-eq", "whole = pins is not None and pins.kind == WORKSPACE #2"):
        _KIND,
    **{("mcpctl/paths.py", "drop-keyword", f"platformdirs.user_{kind}_path(APP, "
        "appauthor=False),"): _APP_AUTHOR for kind in ("config", "data", "cache")},
    ("mcpctl/paths.py", "prefix-starts",
     'if not (platform.startswith("linux") or platform == "darwin") or _android(environ):'):
        _LINUX,
    ("mcpctl/sha256.py", "widen-bound", "LONG = 64 * 1024"):
        "only which module hashes input of 64 KiB to 1 MiB changes: the same digest at "
        "another speed (speed is the bench's, and the tests take LONG from the module)",
    ("mcpctl/sha256.py", "drop-if", "if builtin is not None:"):
        _BUILTIN,
    ("mcpctl/sha256.py", "if-true", "if builtin is not None:"):
        _BUILTIN,
    ("mcpctl/pinning/candidates.py", "if-true", "if value:"):
        "an empty env value as a candidate: joined to the cwd or the root it names that "
        "folder, which is no file (`paths.inside`), and its one token is the same empty text",
    ("mcpctl/pinning/digests.py", "prefix-starts", "if digest.startswith(UNPINNED):"):
        "a file's digest starts `sha256:` or is a marker; only a marker starts `unpinned`",
    ("mcpctl/pinning/digests.py", "widen-bound", "_CHUNK = 1024 * 1024"):
        COST + "a pinned file read 16 MiB at a time: more memory for a big file, the "
        "same digest, the same byte budget",
    ("mcpctl/pinning/digests.py", "drop-call", "os.close(handle)"):
        COST + "a descriptor left open per pinned file until the command ends: at most "
        "MAX_FILES and MAX_TREE_ENTRIES a server, under the usual limit of 1,024",
    ("mcpctl/pinning/folder_snapshot.py", "prefix-starts",
     'whole = {path for path in ignored if path.endswith("/")}'):
        "`whole` is only asked about folder paths, which end in `/`: an ignored file put "
        "in it matches none of them",
    ("mcpctl/pinning/folder_snapshot.py", "drop-if", "if data is None:"):
        "a kept `null` then fails to unpack into three lists: the TypeError is caught, "
        "and the answer is None as before",
    ("mcpctl/pinning/git.py", "drop-keyword", "index_files=index_files) as round_:"):
        "no caller of `_git_outputs` gives `index_files` (only `Changes` does, to its "
        "`GitRound` directly): it is always the empty default",
    ("mcpctl/pinning/git.py", "return-early", "def __exit__(self, *_: object) -> None:"):
        "`GitRound` is entered only in `_git_outputs`, whose body is `outputs()`, which "
        "stops every git in its own `finally` (`Changes` stops its round itself)",
    ("mcpctl/pinning/git.py", "drop-call", "self.stop()"):
        "`GitRound.__exit__` runs after `outputs()`, which has stopped every git in its "
        "own `finally` (see the return-early mutant of the same method)",
    ("mcpctl/pinning/git.py", "drop-call",
     "self.stop()  # none is left running, whatever ended the wait"):
        "every round is left through a `with` that stops it (`_git_outputs`' and "
        "`Changes`', both `with` statements in `workspace.py`): the gits are stopped a few "
        "lines later, before anything else runs",
    ("mcpctl/pinning/git.py", "drop-raise", "raise GitUnavailable(str(error)) from None #2"):
        "not reached: `poll` and `read` on the round's own open pipes do not fail (an "
        "interrupted call is retried by Python, PEP 475), so `_read_all` raises no "
        "OSError for the clause to turn into GitUnavailable",
    ("mcpctl/pinning/git.py", "if-true", 'if "160000 " in text:'):
        COST + "the loop that marks gitlinks run where the listing has none: it marks none",
    ("mcpctl/pinning/git.py", "drop-keyword",
     "for meta, name in zip(metas, names, strict=True):"):
        "`metas` and `names` come from one split of `ls-files -z -s`, two by two (or one "
        "partition an entry): always as many, so `strict` never finds a difference",
    ("mcpctl/pinning/git.py", "prefix-starts", 'if meta.startswith("160000 "):'):
        "a mode in `ls-files -s` is six octal digits and a space: no mode but 160000 "
        "begins with `160000`",
    ("mcpctl/pinning/git.py", "prefix-eq",
     "self.known = known[1] if known is not None and self.before == known[0] else None"):
        _WHOLE,
    ("mcpctl/pinning/git.py", "prefix-starts",
     'env = {key: value for key, value in environ.items() if not key.startswith("GIT_")}'):
        "this environment goes to git alone: a variable that starts `GIT` but not `GIT_` "
        "(`GITHUB_TOKEN`) means nothing to git, kept or dropped",
    ("mcpctl/pinning/git.py", "drop-keyword", _GIT_ENV + " #3"):
        "`GIT_TERMINAL_PROMPT`: git prompts only for a remote's credentials, and no "
        "command mcpctl runs contacts a remote (stdin is /dev/null besides)",
    ("mcpctl/pinning/git.py", "drop-keyword",
     'GIT_PAGER="cat", PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="",'): _NO_PAGER,
    ("mcpctl/pinning/git.py", "drop-keyword",
     'GIT_PAGER="cat", PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="", #2'): _NO_PAGER,
    ("mcpctl/pinning/git.py", "drop-keyword",
     'GIT_PAGER="cat", PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="", #3'): _NO_ASKPASS,
    ("mcpctl/pinning/git.py", "drop-keyword",
     'GIT_PAGER="cat", PAGER="cat", GIT_ASKPASS="", SSH_ASKPASS="", #4'): _NO_ASKPASS,
    ("mcpctl/pinning/git.py", "drop-keyword", 'GIT_OPTIONAL_LOCKS="0", LC_ALL="C")'):
        "no command mcpctl runs takes an optional lock: none of them is `status`, the one "
        "that refreshes the index as it reads it",
    ("mcpctl/pinning/git.py", "drop-keyword", 'GIT_OPTIONAL_LOCKS="0", LC_ALL="C") #2'):
        "only the language of a git error mcpctl quotes changes: its paths come NUL- or "
        "line-separated and unquoted whatever the locale",
    ("mcpctl/pinning/git.py", "drop-call", "poller.unregister(finished)"):
        COST + "a closed pipe left in the poller: poll reports it invalid at once and it "
        "is skipped, so the wait spins until the other gits end; nothing opens a new "
        "descriptor meanwhile that could take its number",
    ("mcpctl/pinning/git.py", "skip-loop", "for run in runs:"): _REAPED,
    ("mcpctl/pinning/git.py", "drop-if", "if run.status is None:"): _REAPED,
    ("mcpctl/pinning/git.py", "drop-call", "run.reap()"): _REAPED,
    ("mcpctl/pinning/git.py", "if-true", "if run.status is None:"):
        "only a git stopped at the output bound is reaped already; reaping it again fails "
        "(ECHILD), which ends in GitUnavailable, as that bound does anyway",
    ("mcpctl/pinning/git.py", "if-false", 'if text.count("\\t") == text.count("\\0"):'):
        COST + "every listing split entry by entry, as one holding a tab in a path is: the "
        "same paths, more slowly",
    ("mcpctl/pinning/git.py", "prefix-eq", 'if text.count("\\t") == text.count("\\0"):'):
        "two counts, never strings: the helper compares them whole",
    ("mcpctl/pinning/git.py", "prefix-starts",
     '[name for name in names if name.endswith("/")], self.before,'):
        "the one reader of `Since.others` (`workspace.py`'s fast path) keeps only the "
        "names that end in `/` itself: the files the mutant adds are passed over there",
    ("mcpctl/pinning/git.py", "prefix-eq", 'return out.rstrip(b"\\0") == os.fsencode(relative)'):
        "`ls-files` with the literal pathspec of one file lists that file or nothing (a "
        "pathspec reaches further only below a folder of that name, and `_ignored` asks "
        "for a folder's `__init__.py`): equal or empty, never another path",
    ("mcpctl/pinning/ignored.py", "prefix-starts",
     "return stat.S_ISREG(mode) and (bool(mode & 0o111) or name.endswith(CODE_SUFFIXES))"):
        "the suffixes are a tuple: the mutant shortens only a string, so nothing changes "
        "(the last suffix dropped by hand is killed by `test_ignored_loadable.py`)",
    ("mcpctl/pinning/git.py", "widen-bound", "_CHUNK = 1024 * 1024"):
        COST + "git's output read 16 MiB at a time: the same bytes, the same bound",
    ("mcpctl/pinning/git_index.py", "prefix-eq",
     'return hasher.digest() == data[-20:] and path.name == f"{data[-20:].hex()}.index"'):
        "two SHA-1 checksums compared by their first 8 bytes: a file changed by accident "
        "(a flipped bit, a torn write) has a checksum that shares them with the one it "
        "carries 1 time in 2^64; whoever makes a file so on purpose can write the user's "
        "cache, and could as well write a whole index that hashes to its name",
    ("mcpctl/pinning/git_index.py", "prefix-eq",
     'return hasher.digest() == data[-20:] and path.name == f"{data[-20:].hex()}.index" #2'):
        "an index is named by its checksum: one put under another index's name shares "
        "its first 8 hex digits by chance, 1 time in 2^32, and only someone who can write "
        "the user's cache puts it there (who could as well write one that hashes to its "
        "name)",
    ("mcpctl/pinning/git_index.py", "if-true", "if not intact(path):"):
        COST + "an index already there written again: it is named by the checksum of its "
        "content, so the same bytes replace it",
    ("mcpctl/pinning/git_index.py", "drop-keyword",
     "atomic_write_bytes(path, data + trailer, mode=0o600)"):
        "a new file is made 0600 anyway (`files/atomic.py`), and one there already that "
        "is not intact keeps the mode mcpctl gave it",
    ("mcpctl/pinning/interpreters.py", "prefix-eq", "if expecting == cli.module:"):
        _SHORT_MODULE,
    ("mcpctl/pinning/interpreters.py", "prefix-eq", "if option == cli.module and value:"):
        _SHORT_MODULE,
    ("mcpctl/pinning/interpreters.py", "prefix-eq",
     "if option == cli.module or (option in cli.valued and value is None):"): _SHORT_MODULE,
    ("mcpctl/pinning/manifest.py", "prefix-starts",
     'if digest.startswith("sha256:") and len(digest) == 71:'):
        "a file's digest of 71 characters is `sha256:` and 64 hex digits; the others (an "
        "executable's, a link's, a marker) begin with their kind: none begins with "
        "`sha256` without the colon",
    ("mcpctl/pinning/pin_set.py", "prefix-eq", "if self.kind == REMOTE:"): _PIN_KINDS,
    ("mcpctl/pinning/pin_set.py", "prefix-eq", "if self.kind == WORKSPACE:"): _PIN_KINDS,
    ("mcpctl/pinning/pin_set.py", "prefix-eq",
     'how = "git\'s tracked and unignored files" if self.source != FOLDER \\'):
        "a workspace set's source is `git` or `folder`, both shorter than 8 characters: "
        "compared by 8, each is compared whole",
    ("mcpctl/pinning/pin_set.py", "if-true",
     "if extra:  # an ignored file the definition names: this server's set is its own"):
        COST + "with nothing extra, the shared set copied into a dict and its digest "
        "computed again (the same files, the same digest), and the cache's memo not "
        "given, so a change report is made again rather than recalled",
    ("mcpctl/pinning/pin_set.py", "if-true", "if key not in lookups.shared:"):
        COST + "the workspace set made again for each server of the command, not once: "
        "from the same listing, so the same files and digest",
    ("mcpctl/pinning/pin_set.py", "drop-if",
     'if known is not None and known.count(" ") == 1:'):
        COST + "the set's digest kept in the cache's memo never recalled: computed again "
        "from the same entries, it is the one the memo holds",
    ("mcpctl/pinning/pin_set.py", "if-true", "if kept:"):
        COST + "the set with no folder excluded built by the general filter (nothing is "
        "under no folder), the MCP config files left out either way: the same files",
    ("mcpctl/pinning/pin_set.py", "drop-if", "if workspace.memo is not None:"):
        COST + "the set's digest never kept in the cache's memo (the whole statement "
        "gone): the next command computes it again from the same entries",
    ("mcpctl/pinning/pin_set.py", "drop-call",
     'workspace.memo.remember(memo_key, f"{digest} {len(files)}")'):
        COST + "the set's digest never kept in the cache's memo: the next command "
        "computes it again from the same entries",
    ("mcpctl/pinning/pin_set.py", "if-true",
     "if real.is_file():  # its size and lines, for the diffstat `trust` shows"):
        "a folder's size entry is `Entry(digest)` (not a regular file: no size, no lines), "
        "which is what every reader puts in place of a missing one "
        "(`trust/actions.py`, `trust/status.py`)",
    ("mcpctl/pinning/pin_set.py", "drop-if",
     "if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):"):
        "reached only when a FIFO replaces the file between its digest and this read; "
        "opened without blocking and with no writer, it reads as empty: `Entry(digest, "
        "0, 0)`, which is `Entry(digest)`",
    ("mcpctl/pinning/pin_set.py", "prefix-starts", "if digest.startswith(UNPINNED):"):
        _MARKER,
    ("mcpctl/pinning/pinned_files.py", "prefix-starts", "if digest.startswith(UNPINNED):"):
        _MARKER,
    ("mcpctl/pinning/pinned_files.py", "drop-if", "if spec.command is None:"):
        "a URL server's reach names no program, argument, variable or file: `pins_of` "
        "finds nothing in it, so the answer is the same empty list",
    ("mcpctl/pinning/pinned_files.py", "if-true", "if root not in self.real_roots:"):
        COST + "the root's real path looked up again for each server of the command, "
        "not once (`Lookups` lasts one command)",
    ("mcpctl/pinning/pinned_files.py", "if-true", "if key not in self.programs:"):
        COST + "a command looked up on PATH again for each server that names it, not "
        "once per command",
    ("mcpctl/pinning/reach.py", "drop-if",
     "if AT_LAUNCH in text or (home is None and at_home(text)):"):
        "a text with a secret (a NUL) fails at the read that follows, which is caught: "
        "None as before; `home` is None only through `pinned_files()`'s default, which "
        "no command uses (each passes the machine's home)",
    ("mcpctl/pinning/reach.py", "drop-if", "if spec.env_file is None:"):
        "its one caller (`trust_cmd._env_file_lines`) returns before the call when the "
        "definition has no envFile",
    ("mcpctl/pinning/reach.py", "os-environ", "reach = reach_of(spec, root, environ, home)"):
        "its one caller passes `machine.environ`, the process's environment copied as "
        "the command began, which nothing changes",
    ("mcpctl/pinning/runner_inputs.py", "drop-if", "if not text.strip():"):
        "an empty or blank manifest then fails `json.loads` (a ValueError), which is "
        "caught: None as before",
    ("mcpctl/pinning/reach.py", "drop-if", 'if "${" not in text:'):
        COST + "a text with no variable expanded anyway: `expand` gives it back as it is",
    ("mcpctl/pinning/paths.py", "prefix-eq", "key = (text, kind == MODULE)"): _KINDS,
    ("mcpctl/pinning/paths.py", "prefix-eq",
     "wanted[key] = wanted.get(key, False) or kind == PROGRAM"): _KINDS,
    ("mcpctl/pinning/paths.py", "drop-if", "if not candidate or AT_LAUNCH in candidate:"):
        "the `stat` that follows fails for both and is caught: the empty text names no "
        "file (ENOENT), and a text with a NUL (a secret, known only at launch) is a "
        "ValueError; the answer is None as before",
    ("mcpctl/pinning/workspace.py", "widen-bound",
     "MAX_FAST = 4096  # paths git names as changed past which the exact pass runs instead"):
        COST + "the fast path kept for up to 65,536 changed paths, where the exact pass "
        "would list them: both give the same files and digests",
    ("mcpctl/pinning/workspace.py", "widen-bound",
     "MAX_OVERLAY = 256  # rows read over the cache, past which it is written again"):
        COST + "up to 4,096 rows read over the cache before it is written again: the same "
        "rows, read each start until then",
    ("mcpctl/pinning/workspace.py", "widen-bound", "_CHUNK = 1024 * 1024"):
        COST + "reads of up to 16 MiB where 1 MiB was: files under it read in one call, "
        "the pipe from the child made larger; the byte bound is counted before any read, "
        "so the same files are hashed to the same digests",
    (_WS, "widen-bound",
     "SPLIT_AT = 4096  # files with no cached row past which a pass is split over two processes"):
        COST + "a pass split over two processes only past 65,536 unhashed files: the same "
        "files hashed in one process, to the same digests",
    (_WS, "widen-bound",
     "_MAX_PAYLOAD = 1024**3  # the child's rows: about 150 bytes a file, at most MAX_FILES / 2"):
        COST + "the bound on what mcpctl's own forked child hands back, about 150 bytes a "
        "file for at most half of MAX_FILES files, stays far under 1 GiB: a wider bound "
        "is never reached",
    (_WS, "drop-keyword", "else dict.fromkeys(_walk(real_root, bound=max_files), True)"):
        COST + "the walk stopped at MAX_FILES, not at a lower bound a test asks for: the "
        "count checked next refuses the same listings",
    (_WS, "prefix-eq",
     "cached = {path: row for path, row in previous.items() if row.flag == SETTLED}"): _WHOLE,
    (_WS, "drop-if", "if len(paths) >= SPLIT_AT and not self.cached:"):
        _NO_SPLIT,
    (_WS, "if-true", "if not _can_fork():"):
        _NO_SPLIT,
    (_WS, "drop-call", "fcntl.fcntl(writer, fcntl.F_SETPIPE_SZ, _CHUNK)"):
        COST + "the split's pipe keeps the system's default size: the child's entries "
        "cross in more, smaller reads",
    (_WS, "drop-call", "os.close(reader)"):
        COST + "when the fork fails, the pipe's two ends stay open until the command ends",
    (_WS, "drop-call", "os.close(writer)"):
        COST + "when the fork fails, the pipe's two ends stay open until the command ends",
    (_WS, "drop-call", "os.close(reader) #2"):
        "the child's copy of the pipe's read end left open: the child only writes, and "
        "`os._exit` closes every descriptor it has",
    (_WS, "drop-call", "self._send(self._entries(islice(paths.items(), half, None)), pipe)"):
        _CHILD_SILENT,
    (_WS, "return-early",
     "def _send(self, found: dict[str, Entry], pipe: BinaryIO) -> None:  # pragma: no cover"):
        _CHILD_SILENT,
    (_WS, "drop-call", 'pipe.write(len(head).to_bytes(8, "big"))'):
        _HEADLESS,
    (_WS, "drop-call", "pipe.write(head)"):
        _HEADLESS,
    (_WS, "drop-call", "os.close(reader)  # a child past the bound ends on the closed pipe"):
        COST + "the parent's read end left open until the command ends: it has read to the "
        "pipe's end, as the child's rows (at most MAX_FILES / 2, about 150 bytes each) stay "
        "far under `_MAX_PAYLOAD`",
    (_WS, "drop-if",
     'if after == key and digest.removeprefix(EXECUTABLE).startswith("sha256:") \\'):
        COST + "a file hashed outside the quick path never kept as settled: it is watched, "
        "and read and hashed again at each start, to the same digest",
    (_WS, "prefix-eq",
     'if after == key and digest.removeprefix(EXECUTABLE).startswith("sha256:") \\'):
        "both sides are tuples of integers (a file's stat key): the prefix helper compares "
        "them whole",
    (_WS, "skip-loop", "while size <= limit and (chunk := os.read(fd, _CHUNK)):"):
        _UNREAD,
    (_WS, "drop-call", "parts.append(chunk)"):
        _UNREAD,
    (_WS, "drop-keyword", "strict=True)), strict=True))"):
        _ONE_LENGTH,
    (_WS, "drop-keyword", "strict=True)), strict=True)) #2"):
        _ONE_LENGTH,
    (_WS, "drop-call", "self.new_targets.update(targets)"):
        COST + "the link targets the child hashed are not remembered in the cache: the "
        "next start hashes them again",
    (_WS, "if-true", "if row is None:"):
        COST + "no cached row taken: every file of the pass is read and hashed again, to "
        "the same entries",
    (_WS, "drop-if", "if (is_regular(status.st_mode)"):
        COST + "a cached row that still holds is not taken: the file is read and hashed "
        "again (`entry`), to the same entry",
    (_WS, "if-true", "if fresh:"):
        "`_fresh` of no paths reads nothing and returns an empty dict: `found` is the "
        "same",
    (_WS, "drop-if", 'if not hasattr(os, "fork"):'):
        "every system mcpctl runs on here has `os.fork` (Linux); the guard is for one "
        "that does not, which no test here can be",
    (_WS, "if-true", 'if not hasattr(os, "fork"):'):
        _NO_SPLIT,
    (_WS, "drop-if",
     "if regular(status.st_mode) and size < _CHUNK and self.total + size <= MAX_BYTES:"):
        COST + "a small file not read on the quick path: `entry` reads and hashes it, to "
        "the same entry",
    (_WS, "if-true",
     "if status is None or data is None or len(data) != size:  # else: read to its end"):
        COST + "a small file read whole is hashed again by `entry`, to the same entry",
    (_WS, "drop-if", "if len(found) > max_files:"):
        COST + "the listing read on past MAX_FILES paths: the caller checks the count and "
        "refuses the same listings, after the rest is listed",
    (_WS, "drop-keyword", "bound=max_files)), False))"):
        COST + "a repository inside walked to MAX_FILES, not to the lower bound a caller "
        "asks for: the count checked after it refuses the same listings",
    (_WS, "prefix-starts",
     "and raw.startswith(start) and not (inner and raw.startswith(inner))] #2"):
        _TUPLE_PREFIXES,
    (_WS, "drop-if", "if cache is not None:"): COST + _UNCLOSED,
    (_WS, "drop-call", "cache.close()"): COST + _UNCLOSED,
    (_WS, "drop-keyword",
     "hasher = _Hasher(real_root, cached, modes=source == GIT, targets=_targets(cache)) #2"):
        COST + "the digests of links' targets not taken from the cache: each link's target "
        "is read and hashed again, to the same digest",
    (_WS, "prefix-eq",
     "hasher = _Hasher(real_root, cached, modes=source == GIT, targets=_targets(cache))"):
        _SOURCES,
    (_WS, "prefix-eq", "fast = source == GIT and unpinned is None"): _SOURCES,
    (_WS, "if-true", "if hasher.deferred or hasher.rows != previous or fast or fast_before \\"):
        COST + "the cache written again when it would hold the same rows",
    (_WS, "prefix-eq", "if hasher.deferred or hasher.rows != previous or fast or fast_before \\"):
        _WHOLE,
    (_WS, "prefix-eq", "or hasher.new_targets != hasher.targets:"): _WHOLE,
    (_WS, "prefix-eq", "for raw, row in encoded if row.flag == SETTLED"): _WHOLE,
    (_WS, "prefix-eq", '"skipped": str(sum(1 for row in unsettled if row.flag == SKIPPED)),'):
        _WHOLE,
    (_WS, "prefix-eq", 'if kind == NESTED or (kind == UNTRACKED and path.endswith("/")))'):
        _GIT_KINDS,
    (_WS, "prefix-eq", 'if kind == NESTED or (kind == UNTRACKED and path.endswith("/"))) #2'):
        _GIT_KINDS,
    (_WS, "prefix-eq", "ignored = [path for path, kind in listed.items() if kind == IGNORED]"):
        _GIT_KINDS,
    (_WS, "prefix-eq", "if kind == IGNORED:"): _GIT_KINDS,
    (_WS, "prefix-eq", 'if (path.endswith("/") or kind == NESTED) \\'): _GIT_KINDS,
    (_WS, "prefix-eq", 'found[path.rstrip("/")] = kind == TRACKED'): _GIT_KINDS,
    (_WS, "prefix-eq", "sum(1 for row in self.rows.values() if row.flag == SKIPPED)))"): _WHOLE,
    (_WS, "prefix-eq",
     "return sum(1 for row in self.rows.values() if row.flag == SKIPPED) + sum("): _WHOLE,
    (_WS, "prefix-eq", "and row.size == status.st_size and row.mtime == status.st_mtime_ns"):
        _WHOLE,
    (_WS, "prefix-eq", "and row.size == status.st_size and row.mtime == status.st_mtime_ns #2"):
        _WHOLE,
    (_WS, "prefix-eq", "and row.ctime == status.st_ctime_ns and row.ino == status.st_ino"):
        _WHOLE,
    (_WS, "prefix-eq", "and row.ctime == status.st_ctime_ns and row.ino == status.st_ino #2"):
        _WHOLE,
    (_WS, "prefix-eq", "and row.mode == status.st_mode and row.uid == status.st_uid"): _WHOLE,
    (_WS, "prefix-eq", "and row.mode == status.st_mode and row.uid == status.st_uid #2"):
        _WHOLE,
    (_WS, "prefix-eq", "and row.gid == status.st_gid):"): _WHOLE,
    (_WS, "prefix-eq", "if isinstance(known, list) and len(known) == 6 and known[:5] == key \\"):
        _WHOLE,
    (_WS, "prefix-eq",
     'if after is not None and list(after) == key[1:] and digest.startswith("sha256:") \\'):
        _WHOLE,
    (_WS, "prefix-starts",
     "and raw.startswith(start) and not (inner and raw.startswith(inner))]"): _BYTES_SHORTENED,
    (_WS, "drop-keyword",
     "hasher.total, old_indexes, targets=hasher.new_targets, generation=generation))"):
        COST + "the cache written without its links' target digests: the next start reads "
        "and hashes each target again, to the same digest",
    (_WS, "drop-if", "if lock is not None:"):
        COST + "the cache always written inside the command (the writer's lock, taken "
        "aside, is held until the command ends): the same cache, the answer later",
    (_WS, "if-true", "if os.fork() == 0:  # the writer, a grandchild: nothing has to reap it"):
        COST + "the child writes the cache as well as the grandchild: the same rows twice, "
        "each put in place by a rename",
    (_WS, "drop-call", "_detach()"): COST + _DETACHED,
    (_WS, "return-early", "def _detach() -> None:  # pragma: no cover - runs in the writer"):
        COST + _DETACHED,
    (_WS, "drop-call", "os.setsid()"): COST + _DETACHED,
    (_WS, "skip-loop", "for fd in (0, 1, 2):"): COST + _DETACHED,
    (_WS, "drop-call", "os.dup2(devnull, fd)"): COST + _DETACHED,
    (_WS, "drop-call", "os.close(devnull)"):
        COST + "one descriptor of /dev/null left open in the writer until it ends",
    (_WS, "drop-call", "os.close(lock)  # the writer holds it now"):
        COST + "the command keeps its copy of the writer's lock until it ends: a start "
        "meanwhile waits that much longer, or (past its wait) goes without the cache",
    (_WS, "drop-if", "if child > 0 and os.waitpid(child, 0)[1] == 0:"):
        COST + "the cache written inside the command as well as by the writer: the same "
        "rows, the answer later (the child is reaped when the command ends)",
    (_WS, "if-true", "if child > 0 and os.waitpid(child, 0)[1] == 0:"):
        COST + "a memo made for a writer that failed: it is tied to that writer's "
        "generation, which no cache on disk has, so nothing kept through it is read back",
    (_WS, "drop-if", "if cache is None:"):
        "None has no `meta`: the AttributeError is caught below, and the answer is the "
        "empty set as before",
    (_WS, "os-environ", "with Changes(folder, index, environ, stat_known) as asked:"):
        "every command passes the process's environment (`machine.environ`), which is "
        "`os.environ`; the first round's call, which tests reach with another, is killed",
    (_WS, "if-false", "if self.total > MAX_BYTES:"):
        COST + "a file past the byte bound read and hashed anyway: the total already counts "
        "it, so the set is refused as before (`_past_bytes`)",
    (_WS, "prefix-starts", 'if tracked and self.modes and digest.startswith("sha256:") \\'):
        _HASHED,
    (_WS, "prefix-starts",
     'if after == key and digest.removeprefix(EXECUTABLE).startswith("sha256:") \\'):
        _HASHED,
    (_WS, "prefix-starts",
     'if after is not None and list(after) == key[1:] and digest.startswith("sha256:") \\'):
        _HASHED,
    (_WS, "prefix-starts",
     'found = sorted(path.rstrip("/") for path in since.others if path.endswith("/"))'):
        COST + "every name git lists as new is taken for a repository inside, so a new file "
        "makes the exact pass run, which lists the same files",
    (_WS, "drop-if",
     "if since.index_stat is not None and since.index_stat != seen:"):
        COST + "the index's new stat not kept: the next start has git read the index again",
    (_WS, "if-true",
     "if since.index_stat is not None and since.index_stat != seen:"):
        COST + "the index's stat kept again when it is the same",
    (_WS, "prefix-eq",
     "if since.index_stat is not None and since.index_stat != seen:"):
        _WHOLE,
    (_WS, "drop-call",
     "cache.remember(f\"index:{prefix}\", json.dumps(since.index_stat))"):
        COST + "the index's new stat not kept: the next start has git read the index again",
    (_WS, "drop-if",
     "if len(candidates) > MAX_FAST:"):
        COST + "the fast path kept past 4,096 changed paths (see `MAX_FAST`)",
    (_WS, "if-true",
     "if snapshots[prefix] != kept:"):
        COST + "the same folder snapshot kept again",
    (_WS, "prefix-eq",
     "if snapshots[prefix] != kept:"):
        _WHOLE,
    (_WS, "if-true",
     "if row is not None:"):
        COST + "a path with no cached row looked up as None: it is hashed, as a new path is",
    (_WS, "if-true",
     "if new != old:"):
        COST + "rows that did not change carried as changes: the same digests, more rows read "
        "over the cache",
    (_WS, "prefix-eq",
     "if new != old:"):
        _WHOLE,
    (_WS, "drop-if",
     "if hasher.new_targets != hasher.targets:"):
        COST + "links' target digests not kept: hashed again at the next start",
    (_WS, "if-true",
     "if hasher.new_targets != hasher.targets:"):
        COST + "the same target digests kept again",
    (_WS, "prefix-eq",
     "if hasher.new_targets != hasher.targets:"):
        _WHOLE,
    (_WS, "drop-call",
     "cache.remember(\"targets\", json.dumps(hasher.new_targets))"):
        COST + "links' target digests not kept: hashed again at the next start",
    (_WS, "prefix-eq",
     "if any(path.rsplit(\"/\", 1)[-1] == \".gitignore\" for path in differs):"):
        COST + "a file whose name begins `.gitigno` also sends the start to the exact pass, "
        "which lists the same files",
    (_WS, "if-true",
     "if len(changes) <= MAX_OVERLAY:"):
        COST + "any number of changed rows read over the cache (see `MAX_OVERLAY`)",
    (_WS, "drop-call",
     "cache.close() #2"):
        COST + _UNCLOSED,
    (_WS, "drop-keyword",
     "hasher.new_targets, generation=generation))"):
        COST + "the cache written without its links' target digests: hashed again at the next "
        "start",
    (_WS, "prefix-eq",
     "skipped = sum(1 for row in every.values() if row.flag == SKIPPED)"):
        _WHOLE,
    (_WS, "drop-if",
     "if recorded == _file_stat(status):"):
        COST + "the private index checked by its content every time, not trusted by its stat",
    (_WS, "prefix-eq",
     "if recorded == _file_stat(status):"):
        _WHOLE,
    (_WS, "drop-keyword",
     "return folder_snapshot.dumps(snapshot._replace(others=[]) if snapshot else "
     "None)"):
        COST + "names git listed as new kept in the snapshot: the next start hashes them again",
    (_WS, "if-true",
     "if row is None or row.flag != SETTLED or not stat.S_ISREG(status.st_mode) or ("):
        COST + "every walked path of a repository inside hashed again",
    (_WS, "prefix-eq",
     "if row is None or row.flag != SETTLED or not stat.S_ISREG(status.st_mode) or ("):
        _WHOLE,
    (_WS, "prefix-eq",
     "if row.flag != SETTLED]).encode(\"utf-8\", \"surrogateescape\"))"):
        _WHOLE,
    (_WS, "drop-keyword",
     "for row in rows.values()], key=itemgetter(0))  # git's order"):
        "sorted by the whole pair, not by its path: the paths are a dict's keys, never "
        "equal, so the row is never compared and the order is the same",
    (_WS, "prefix-eq",
     "unsettled = [row for _, row in encoded if row.flag != SETTLED]  # few: one pass"):
        _WHOLE,
    (_WS, "prefix-eq",
     "return was != now or (now and old is not None and old.digest != new.digest)"):
        "`was` and `now` are booleans: the prefix helper compares anything but two strings "
        "whole, so the program is unchanged",
    (_WS, "drop-keyword", "prefixes = sorted(repos, key=len, reverse=True)"):
        _REPO_ORDER,
    (_WS, "drop-keyword", "prefixes = sorted(repos, key=len, reverse=True) #2"):
        _REPO_ORDER,
    ("mcpctl/pinning/digest_cache.py", "widen-bound", "SCHEMA_VERSION = 3"):
        "the cache's schema number is written and read by the same constant: any value "
        "new to this mcpctl behaves the same (older caches differ from it either way)",
    ("mcpctl/pinning/digest_cache.py", "if-true", "if self._memo is None:"):
        COST + "the memo read from its file at every recall, not once: `remember` writes "
        "every value it keeps to that file first, so the same values come back",
    ("mcpctl/pinning/digest_cache.py", "drop-keyword",
     'data = json.loads(self.path.with_suffix(".memo").read_text(encoding="utf-8"))'):
        "the memo is written by `json.dumps` with its default `ensure_ascii`: pure ASCII, "
        "which every locale's encoding reads alike",
    ("mcpctl/pinning/digest_cache.py", "drop-keyword",
     '{"generation": self.generation(), "values": memos}), mode=0o600)'):
        "a new file is written 0600 without the keyword too (`atomic_write_text`); only a "
        "memo the user widened by hand keeps its mode",
    ("mcpctl/pinning/digest_cache.py", "drop-keyword",
     'cache = Cache(sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True,'):
        "`uri=True` left out: the SQLite this Python links is built with USE_URI, so it "
        "reads the name as a URI anyway (`pragma compile_options`); where it is not, no "
        "cache opens and every start runs the exact pass (cost only)",
    ("mcpctl/pinning/digest_cache.py", "prefix-eq",
     'if cache.meta("schema") == str(SCHEMA_VERSION) and cache.meta("root") == real_root:'):
        "the schema's number is one digit: its first 8 characters are all of it",
    ("mcpctl/pinning/digest_cache.py", "drop-keyword", "check_same_thread=False), path)"):
        "`check_same_thread` only matters when another thread reads the connection: "
        "no thread but the main one reads a cache",
    ("mcpctl/pinning/digest_cache.py", "return-early", "def close(self) -> None:"):
        COST + _UNCLOSED,
    ("mcpctl/pinning/digest_cache.py", "drop-call", "self._db.close()"): COST + _UNCLOSED,
    ("mcpctl/pinning/digest_cache.py", "drop-call", "cache.close()"): COST + _UNCLOSED,
    ("mcpctl/pinning/digest_cache.py", "drop-call",
     "path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)"):
        COST + _NO_LOCK,
    ("mcpctl/pinning/digest_cache.py", "drop-keyword",
     "path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)"): COST + _NO_LOCK,
    ("mcpctl/pinning/digest_cache.py", "drop-keyword",
     "path.parent.mkdir(parents=True, exist_ok=True, mode=0o700) #6"):
        "`save`'s folder mode: the folder is made 0700 before any save, by the writer's "
        "lock (`writing`) or by `workspace._save`, so this mkdir never makes it",
    ("mcpctl/pinning/digest_cache.py", "drop-call", "time.sleep(pause)"):
        COST + "the wait for a writer polls without a pause: CPU until the writer lets go "
        "or the bound, which is unchanged",
    ("mcpctl/pinning/digest_cache.py", "drop-call", "os.close(fd) #2"):
        COST + "the lock's descriptor of a start that waited is left open until the "
        "command ends (one a command)",
    ("mcpctl/pinning/digest_cache.py", "drop-call", "os.close(fd) #3"):
        COST + "the new cache's temporary descriptor is left open until the command (or "
        "the writer) ends",
    ("mcpctl/pinning/digest_cache.py", "drop-call", "os.chmod(temp, 0o600)"):
        "`mkstemp` makes the file 0600 already",
    ("mcpctl/pinning/digest_cache.py", "drop-call", "os.unlink(temp)"):
        COST + "a new cache whose write failed is left in the folder as a temporary file "
        "(after a rename there is nothing to remove)",
    ("mcpctl/pinning/digest_cache.py", "drop-keyword", _TEMP): COST + _TEMP_NAME,
    ("mcpctl/pinning/digest_cache.py", "drop-keyword", _TEMP + " #2"): COST + _TEMP_NAME,
    ("mcpctl/pinning/digest_cache.py", "drop-keyword", _TEMP + " #3"):
        COST + "the new cache made in the system's temp folder: renamed into place as "
        "before on one filesystem (0600, as `mkstemp` makes it); across two the rename "
        "fails and the cache is not written (every start then runs the exact pass)",
    ("mcpctl/pinning/digest_cache.py", "drop-call", "os.close(fd)"):
        COST + "the descriptor of a lock another writer holds is left open until the "
        "command ends (one a command)",
    ("mcpctl/trust/fingerprint.py", "drop-if", "if not files:"):
        COST + "no files: `PinSet` is imported, `()` is not one, and `(None, ())` is "
        "returned as before; a user-tier server's fingerprint loads the pin-set module",
    ("mcpctl/trust/gate.py", "os-environ",
     "status = status_of(definition, root, {}, environ, home)"):
        "the definition is the user tier's, for which `status_of` returns before it reads "
        "`environ` (nothing of the user tier is pinned)",
    ("mcpctl/trust/gate.py", "prefix-eq", _GATE_STATES): _PATHS,
    ("mcpctl/trust/gate.py", "prefix-eq", _GATE_STATES + " #2"): _PATHS,
    ("mcpctl/trust/actions.py", "prefix-eq",
     "return [d for d in read if folder_of(d.source, here) == here]"): _PATHS,
    ("mcpctl/trust/state.py", "prefix-eq", "if old.get(label, []) != new.get(label, []):"):
        "both sides are lists: the prefix mutant compares what is not a string whole",
    ("mcpctl/trust/state.py", "prefix-starts",
     'files = [change.removeprefix("file ") for change in changes '
     'if change.startswith("file ")]'): _FILE_LINE,
    ("mcpctl/trust/state.py", "prefix-starts",
     'others = [change for change in changes if not change.startswith("file ")]'):
        _FILE_LINE,
    ("mcpctl/trust/gate.py", "drop-raise",
     'raise TrustRefused(f"server {name!r} is {status.state}; not started")'):
        "the fail-closed default of the match is not reached: a workspace definition's "
        "status is trusted, untrusted, changed or unpinnable (`status_of`, `state_of`), "
        "each with its own case",
    ("mcpctl/credentials/extraction.py", "prefix-eq",
     "for text in sorted({t for i, t in carried if i == index}, key=len, reverse=True):"):
        "both sides are argument numbers (ints): the prefix mutant compares them whole",
    ("mcpctl/credentials/extraction.py", "prefix-eq",
     "if netloc != parts.netloc or changed != query: #2"):
        _WHOLE,
    ("mcpctl/credentials/names.py", "drop-keyword", "@functools.lru_cache(maxsize=4096)"):
        _SMALLER_CACHE,
    ("mcpctl/credentials/names.py", "drop-keyword",
     "@functools.lru_cache(maxsize=4096)  # a config repeats its key names thousands of "
     "times"):
        _SMALLER_CACHE,
    ("mcpctl/credentials/names.py", "prefix-starts",
     'return any(word in _PASSWORD_WORDS or word.removesuffix("s").endswith(_PASSWORD_STEMS)'):
        _TUPLE_PREFIXES,
    ("mcpctl/credentials/names.py", "prefix-starts",
     "return singular.endswith(_STEMS) and singular not in _NOT_SECRET_WORDS"):
        _TUPLE_PREFIXES,
    ("mcpctl/credentials/placeholders.py", "drop-keyword",
     "or _is_filler(re.sub(_PREFIX, \"\", value, count=1)):"):
        _ANCHORED,
    ("mcpctl/credentials/placeholders.py", "drop-keyword",
     'body = re.sub(_PREFIX, "", value, count=1)'):
        _ANCHORED,
    ("mcpctl/cli/run_start.py", "drop-if", "if not (path.exists() or path.is_symlink()):"):
        COST + "a folder without a `.mcp.json` read anyway: `repo_server_names` of a "
        "missing file is no names, so the search goes on as it would",
    ("mcpctl/cli/run_start.py", "drop-if", 'if words == ["--guard"]:'):
        COST + "`run --guard` without a key is then left to typer's parser, which reads it "
        "the same way (`run_cmd`'s `--guard`): only its start is slower",
    ("mcpctl/cli/run_start.py", "if-true", "if launch.cwd is not None:"):
        "a command's `cwd` is always set by `resolve_launch`: its own, else the workspace "
        "root (a repo's server) or the home folder (the password database's when HOME is "
        "unset); only a URL server has none, and it is bridged before this line",
    ("mcpctl/cli/run_start.py", "drop-call", "sys.stdout.flush()"):
        _FLUSHED,
    ("mcpctl/cli/run_start.py", "drop-call", "sys.stderr.flush()"):
        _FLUSHED,
    ("mcpctl/cli/run_start.py", "drop-call", "sys.stderr.flush() #2"):
        _FLUSHED,
    ("mcpctl/cli/run_start.py", "os-environ",
     "remote = resolve_launch(admission, environ, home, reference)"):
        "`environ` is `machine.environ`, the copy of `os.environ` `run` took as it began, "
        "and nothing in `run` changes `os.environ` before a remote is printed",
    ("mcpctl/cli/run_start.py", "if-true",
     "if policy.budget is not None or policy.deny_destructive or policy.deny_open_world:"):
        COST + "the cached probe loaded where neither a budget nor an annotation rule reads "
        "it (`LiveFilter` keeps definitions only for those): a file read more",
    ("mcpctl/cli/list_start.py", "if-true", 'if "origin" in row.definition.spec.extra:'):
        COST + "the origin note of an entry without `origin` is empty (`origin_of` gives "
        "None): only its module imported for every row",
    ("mcpctl/cli/list_start.py", "drop-keyword",
     "for row, status, guard in zip(detail.rows, detail.statuses, detail.guards, strict=True):"):
        "`show_report` builds the statuses and guards one per row, from the rows: the three "
        "lists are always as long, so `strict` never finds a difference",
    ("mcpctl/cli/list_start.py", "prefix-eq",
     'if key == "origin" and source.tier == Tier.USER and _origin_note(spec):'):
        "a tier is `user`, `workspace` or `client` (a StrEnum, so compared as text): the "
        "first 8 characters tell them apart (`key == \"origin\"` is too short to mutate)",
    ("mcpctl/cli/list_start.py", "prefix-eq", _NOT_GUARDED_NOTE):
        "a guard state is `guarded`, `guarded by system policy`, `not guarded` or `nothing "
        "to guard`: only `not guarded` begins with `not guar`",
    ("mcpctl/cli/list_start.py", "prefix-eq", _NOT_GUARDED_NOTE + " #2"):
        "Claude Code's fixes are the enable line (`mcpctl clients enable ...`), `mcpctl "
        "sync`, the `sudo` line, the managed-settings advice, or none: only the enable "
        "line begins with `mcpctl c`",
    ("mcpctl/clients/write/adoption.py", "prefix-eq", "if entry_from_spec(imported) != wanted:"):
        _WHOLE,
    ("mcpctl/clients/write/claude_denials.py", "drop-if",
     "if client is None:  # pragma: no cover - a row of the table"):
        _TABLE_ROW,
    ("mcpctl/clients/write/claude_denials.py", "drop-raise", "raise LookupError(CLIENT_ID)"):
        _TABLE_ROW,
    ("mcpctl/clients/write/claude_denials.py", "if-true", "if report.plan.writes:"):
        COST + "a dry run's diff made when no deny rule changes: its plan then has no change "
        "at all (each is an addition or a removal), and such a report is never shown "
        "(`_claude_denials` keeps only a report with an error or a change)",
    ("mcpctl/clients/write/claude_denials.py", "drop-if", "if json.loads(new) != expected:"):
        _EDIT_CHECKED,
    ("mcpctl/clients/write/claude_denials.py", "drop-raise",
     'raise ConfigError(f"{path}: the edited file would not mean what was intended; the "'):
        _EDIT_CHECKED,
    ("mcpctl/clients/write/diff.py", "drop-if", 'if key is not None and key.startswith("-"):'):
        "the word after an option is then judged by `masked_value(value, option)`, which is "
        "what `masked_args([option, value])` does with it, but for a `NAME=VALUE` word, "
        "which `masked_value`'s detector reads as the same assignment: the same mask "
        "either way (`--token hunter2`, `--set db.password=...`, `-e API_KEY=...` checked)",
    ("mcpctl/clients/write/diff.py", "if-true", "if masked != value:"):
        COST + "every string of the file kept with itself as its masked form: replacing a "
        "literal by itself changes no line of the diff",
    ("mcpctl/clients/write/edit.py", "prefix-eq",
     'return tomllib.loads(text.removeprefix("\\ufeff")) == expected'):
        _WHOLE,
    ("mcpctl/clients/write/edit.py", "prefix-eq", "return value is not None and value == expected"):
        _WHOLE,
    # filter_relay.py: `run` under a tool policy ends its process with `os._exit`
    # (`cli/main.py`) as soon as the relay returns or fails to start the server.
    ("mcpctl/protocol/filter_relay.py", "widen-bound", "PIPE_BYTES = 1024 * 1024"):
        COST + "the server's pipe made 16 MiB where the system allows it, and read 16 MiB "
        "at a time: memory, not what is relayed",
    ("mcpctl/protocol/filter_relay.py", "prefix-starts", 'if not data.endswith(b"\\n"):'):
        _BYTES_SHORTENED,
    ("mcpctl/protocol/filter_relay.py", "prefix-eq", "if line == TOO_LONG:"):
        _BYTES_WHOLE,
    ("mcpctl/protocol/filter_relay.py", "prefix-eq", "if line is not None and line != TOO_LONG:"):
        _BYTES_WHOLE,
    ("mcpctl/protocol/filter_relay.py", "return-early", "def widen(fd: int) -> None:"):
        _DEFAULT_PIPE,
    ("mcpctl/protocol/filter_relay.py", "drop-call",
     "fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)"):
        _DEFAULT_PIPE,
    ("mcpctl/protocol/filter_relay.py", "drop-call", "widen(self.from_child)"):
        _DEFAULT_PIPE,
    ("mcpctl/protocol/filter_relay.py", "drop-call", "widen(from_bridge_r)"):
        _DEFAULT_PIPE,
    ("mcpctl/protocol/filter_relay.py", "drop-if", "if self.gone:"):
        COST + "once the client has stopped reading, each later line is written and fails "
        "as the first did",
    ("mcpctl/protocol/filter_relay.py", "drop-keyword",
     "threading.Thread(target=stop, daemon=True).start() #2"):
        "the stop after EOF made a non-daemon thread: it ends as soon as the server is "
        "reaped (its every wait is on that), and `run` reaps the server before it ends, "
        "by `os._exit` on the fast path or the interpreter's exit through typer",
    ("mcpctl/protocol/filter_relay.py", "drop-call", "os.close(self.to_child)"):
        _RELAY_FAILED,
    ("mcpctl/protocol/filter_relay.py", "drop-call", "os.close(self.from_child)"):
        _RELAY_FAILED,
    ("mcpctl/protocol/filter_relay.py", "drop-call", "restore()"):
        _RELAY_FAILED,
    ("mcpctl/protocol/filter_relay.py", "drop-call", "restore() #2"):
        _RELAY_ENDED,
    ("mcpctl/protocol/filter_relay.py", "return-early", "def restore() -> None:"):
        _RELAY_ENDED,
    ("mcpctl/protocol/filter_relay.py", "skip-loop", "for signum, handler in previous.items():"):
        _RELAY_ENDED,
    ("mcpctl/protocol/filter_relay.py", "drop-call",
     "signal.signal(signum, handler)  # type: ignore[arg-type]"):
        _RELAY_ENDED,
    ("mcpctl/protocol/filter_relay.py", "drop-call", "os.close(to_child_r)"):
        "the relay's copy of the read end of the server's stdin left open: the server "
        "still reads EOF when the relay closes the write end (a pipe ends when its last "
        "writer goes); only a write after the server's end would block on a full pipe "
        "instead of failing, on a daemon thread, and the relay ends with the server's reap",
    ("mcpctl/protocol/filter_relay.py", "drop-call", "os.close(from_child_w)"):
        COST + "the relay's copy of the write end of the server's stdout left open: its "
        "reader sees no EOF, so after the server's exit the relay waits TERM_GRACE (1 s) "
        "for it; every line the server wrote has been read by then",
    ("mcpctl/protocol/lines.py", "drop-if",
     "if whole is not None and not pending and not skipping \\"):
        COST + "the fast path never offered a line: `whole` is the relay's replay of an "
        "answer judged before, and the line it would have taken goes to `put` instead, "
        "which judges it again (`from_server`) to the same bytes",
    ("mcpctl/protocol/lines.py", "prefix-eq",
     "and buffer[size - 1] == _NEWLINE and whole(buffer, size - 1):"):
        "a bytearray's item and `_NEWLINE` are integers: the prefix mutant compares what "
        "is not a string whole",
    ("mcpctl/protocol/lines.py", "if-true", "if pending:"):
        COST + "a line with nothing pending before it is appended to the empty `pending` "
        "and copied out of it: the same bytes, one copy more",
    ("mcpctl/protocol/lines.py", "if-true", "if pending and not skipping:"):
        "`pending` is empty whenever `skipping` is set (it is cleared when the cap is "
        "passed and nothing is added until the line ends), and an empty line at EOF is "
        "dropped by `_put_line`: nothing more is handed on",
    ("mcpctl/protocol/lines.py", "drop-call", "pending.clear() #2"):
        COST + "the part of a line read before it passed the cap (at most the cap and one "
        "read) is held until the line ends: while skipping, nothing is added to it, and "
        "neither the end of the line nor EOF hands it on",
    ("mcpctl/protocol/bridge_relay.py", "drop-raise", "raise"):
        "a cancelled request's task that swallows its cancellation ends as done instead "
        "of cancelled: its id is forgotten once more (a no-op), and nothing reads how it "
        "ended (`_spawn` keeps it in a set; the waits on it use `asyncio.wait`)",
    ("mcpctl/protocol/bridge_relay.py", "drop-call", "sys.stderr.flush()"):
        "stderr is line-buffered (Python 3.9 and later, a terminal or not) and each "
        "warning is one line ending in a newline: it is written at once either way",
    ("mcpctl/protocol/filter_relay.py", "drop-call", "gate.prepare()  # while the server starts"):
        _NOT_PREPARED,
    ("mcpctl/protocol/filter_relay.py", "drop-call", "os.close(from_bridge_w)"):
        COST + "the relay's copy of the bridge's stdout left open once the bridge has "
        "returned: its reader sees no EOF, so the relay waits EOF_GRACE (5 s) for it "
        "before it ends; every line the bridge wrote has been read by then",
    ("mcpctl/protocol/filter_relay.py", "drop-call", "gate.flush(TERM_GRACE) #2"):
        COST + "answers judged in the bridge's last moments may not reach the answer "
        "store before `run` ends: the next start judges them again (the store is a cache "
        "keyed by the policy and the exact bytes)",
    ("mcpctl/protocol/filter_relay.py", "drop-call", "os.close(to_bridge_r)"):
        "the read end of the bridge's stdin left open after the bridge has returned: "
        "`run` returns and its process ends at once, which closes it",
    ("mcpctl/protocol/filter_relay.py", "drop-call", "gate.prepare()"):
        _NOT_PREPARED,
    # process.py
    ("mcpctl/protocol/process.py", "drop-call", "time.sleep(_POLL)"):
        COST + "the sweep goes round again at once, not after 20 ms: CPU for the 2 s it "
        "may last, the same orphans stopped",
    ("mcpctl/protocol/process.py", "if-true", "if not zombie:"):
        "a zombie has ended already: SIGKILL to it changes nothing, and it is reaped on "
        "the next line as before",
    ("mcpctl/protocol/process.py", "drop-if", "if pipe is not None:"):
        _STDIN_PIPE,
    ("mcpctl/protocol/process.py", "if-true", "if pipe is not None:"):
        _STDIN_PIPE,
    ("mcpctl/protocol/process.py", "drop-keyword",
     "stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,"):
        _LOOP_PIPES,
    ("mcpctl/protocol/process.py", "drop-keyword",
     "stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, #2"):
        _LOOP_PIPES,
    ("mcpctl/protocol/process.py", "drop-keyword",
     "stderr=asyncio.subprocess.PIPE, env=dict(env), cwd=cwd,"):
        _LOOP_PIPES,
    ("mcpctl/protocol/process.py", "widen-bound", "_POLL = 0.02"):
        COST + "the group's end and the orphans' sweep are looked at every 0.32 s, not "
        "0.02 s: seen later, within the same bounds",
    ("mcpctl/protocol/process.py", "widen-bound", "_SWEEP_SECONDS = 2.0"):
        COST + "the sweep of orphans may go on for 32 s, not 2 s: it ends as soon as none "
        "is left",
    ("mcpctl/protocol/process.py", "widen-bound",
     "_START_WAIT = 30.0  # a cancelled start still connecting its pipes"):
        COST + "a start cancelled while asyncio connects its pipes is waited for up to 8 "
        "minutes, not 30 s: connecting pipes takes milliseconds",
    ("mcpctl/protocol/process.py", "drop-call", "self._partial.clear()"):
        "`close` runs once, when stderr's pipe is lost, and nothing is fed after it: the "
        "partial line it has just added is never read again",
    ("mcpctl/protocol/process.py", "return-early",
     "def connection_made(self, transport: asyncio.BaseTransport) -> None:"):
        _TRANSPORT_LATER,
    ("mcpctl/protocol/process.py", "drop-if",
     "if isinstance(transport, asyncio.SubprocessTransport):"):
        _TRANSPORT_LATER,
    ("mcpctl/protocol/process.py", "if-true",
     "if isinstance(transport, asyncio.SubprocessTransport):"):
        "asyncio's subprocess machinery calls `connection_made` with its subprocess "
        "transport, always: the test is for the type checker",
    ("mcpctl/protocol/process.py", "drop-keyword",
     "await asyncio.wait({start}, timeout=_START_WAIT)"):
        _PIPES_CONNECT,
    ("mcpctl/protocol/process.py", "drop-if", "if not start.done():"):
        _PIPES_CONNECT,
    ("mcpctl/protocol/process.py", "drop-call", "self._signal(signal.SIGKILL)"):
        COST + "a start cancelled by Ctrl-C is shut down in steps (EOF, SIGTERM, SIGKILL, "
        "up to a second each) instead of killed at once: its group ends either way",
    ("mcpctl/protocol/process.py", "drop-if", "if self._transport is None:"):
        "`_pipe` is asked for only once the transport is known: a write goes through a "
        "channel that has its process (`spawn` returned), and a shutdown follows "
        "`_started`",
    ("mcpctl/protocol/process.py", "drop-if", "if self._ended:"):
        COST + "what is read after stdout has ended (at most what was in flight before "
        "the reading paused) is counted and buffered, never handed on: the split and "
        "the caps check `_ended` themselves",
    ("mcpctl/protocol/process.py", "drop-if", "if self._ended: #2"):
        "stdout's end heard twice (a broken cap, then the pipe's end): the channel keeps "
        "the first failure (`StdioChannel._fail` sets it once), and the exit's diagnosis "
        "the second end starts sets nothing new",
    ("mcpctl/protocol/process.py", "drop-if", "if error is not None:"):
        _NOT_PAUSED,
    ("mcpctl/protocol/process.py", "if-true", "if error is not None:"):
        "the reading paused at the end of stdout too: asyncio's read pipe transport has "
        "stopped reading by then, and `pause_reading` on it does nothing",
    ("mcpctl/protocol/process.py", "drop-if", "if isinstance(reader, asyncio.ReadTransport):"):
        _NOT_PAUSED,
    ("mcpctl/protocol/process.py", "drop-call", "reader.pause_reading()"):
        _NOT_PAUSED,
    ("mcpctl/protocol/process.py", "if-true", "if isinstance(reader, asyncio.ReadTransport):"):
        "the transport is known by then (`connection_made`), and the pipe transport of "
        "stdout it gives is always asyncio's read pipe transport",
    # http.py, http_wire.py, probe.py, jsonrpc.py, bridge.py
    ("mcpctl/protocol/http.py", "prefix-eq",
     'if message.get("method") == "initialize" and "mcp-session-id" in reply.headers:'):
        "of what the probe posts (`server/discover`, `initialize`, "
        "`notifications/initialized`, `tools/list`, answers with no method), only "
        "`initialize` begins with `initiali`",
    ("mcpctl/protocol/http.py", "drop-if", "if not task.cancelled():"):
        _NOTHING_RAISED,
    ("mcpctl/protocol/http_wire.py", "return-early", "def skip_httpx_cli() -> None:"):
        _HTTPX_CLI,
    ("mcpctl/protocol/http_wire.py", "drop-call",
     'sys.modules.setdefault("httpx._main", ModuleType("httpx._main"))'):
        _HTTPX_CLI,
    ("mcpctl/protocol/http_wire.py", "drop-if", 'if "httpx" not in sys.modules:'):
        "the stand-in for httpx's command-line module put in when httpx is loaded "
        "already: `setdefault` leaves a module that is there, and mcpctl never imports "
        "that one",
    ("mcpctl/protocol/http_wire.py", "if-true", 'if "httpx" not in sys.modules:'):
        "the stand-in for httpx's command-line module put in when httpx is loaded "
        "already: `setdefault` leaves a module that is there, and mcpctl never imports "
        "that one",
    ("mcpctl/protocol/http_wire.py", "drop-if", 'if urlsplit(url).scheme == "http":'):
        COST + "a plain http url verified against the CA bundle, loaded for nothing: no "
        "TLS happens on it (redirects are not followed, an SSE endpoint keeps the origin)",
    ("mcpctl/protocol/http_wire.py", "drop-keyword",
     "found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)"):
        "the resolver gives the same addresses once per socket type: every address is "
        "loopback or not alike",
    ("mcpctl/protocol/http_wire.py", "drop-keyword",
     'return kind.split(";", maxsplit=1)[0].strip().lower()'):
        "the first piece of the split is the same however many pieces follow",
    ("mcpctl/protocol/http_wire.py", "prefix-starts",
     'held = b"\\r" if pending.endswith(b"\\r") else b""'):
        _BYTES_SHORTENED,
    ("mcpctl/protocol/http_wire.py", "if-true", "if pending:"):
        "an empty line yielded when nothing is pending ends an event with no data, "
        "which is skipped, and the end of the stream follows anyway",
    ("mcpctl/protocol/probe.py", "drop-if", "if not isinstance(error, Exception):"):
        "`_diagnosis` is given an `Exception` always: having no channel means the "
        "conversation raised one",
    ("mcpctl/protocol/jsonrpc.py", "drop-call", "super().__init__(text)"):
        "an exception keeps the arguments it was made with (`BaseException.__new__` sets "
        "`args`), so `str(NotJsonRpc(text))` is the text without the call",
    ("mcpctl/protocol/bridge_relay.py", "drop-call",
     "task.add_done_callback(lambda _: self._posts.pop(request_id, None))"):
        COST + "an ended request's task kept by its id until the bridge ends: a later "
        "cancellation of that id cancels a task already done, which does nothing, and a "
        "new request with the id takes its place",
    ("mcpctl/protocol/bridge_relay.py", "drop-call", "self._end(None) #3"):
        "a notification's or an answer's POST writes nothing to the client in either "
        "bridge (no reply is relayed for it, and `_refused` writes through `_emit`, which "
        "takes a gone client itself), so `ClientGone` never reaches that handler",
    ("mcpctl/protocol/bridge_relay.py", "drop-call", "self._settled.set() #2"):
        COST + "a request that ends without an answer read (the bridge's own error, a "
        "cancellation) does not wake the wait after the client's EOF: an answer read wakes "
        "it (`_observe`), and otherwise it wakes at its 5 s deadline",
    ("mcpctl/protocol/bridge_relay.py", "drop-call", "self._settled.set() #3"):
        COST + "an answer read does not wake the wait after the client's EOF by itself: "
        "the Streamable HTTP bridge's request end (`_forget`) wakes it moments later, and "
        "the SSE bridge's wait wakes at its 5 s deadline instead",
    ("mcpctl/protocol/bridge_relay.py", "prefix-eq",
     'if not isinstance(item, dict) or item.get("jsonrpc") != jsonrpc.JSONRPC:'):
        "`JSONRPC` is `2.0`, three characters: a value's first 8 equal it only when the "
        "value is `2.0`",
    ("mcpctl/protocol/jsonrpc.py", "prefix-eq",
     'if not isinstance(item, dict) or item.get("jsonrpc") != JSONRPC:'):
        "`JSONRPC` is `2.0`, three characters: a value's first 8 equal it only when the "
        "value is it",
    ("mcpctl/protocol/bridge.py", "drop-keyword", "follow_redirects=False,"):
        "httpx's client follows no redirect unless told to: `follow_redirects` is False by "
        "default (httpx 0.28, the version locked)",
    ("mcpctl/protocol/bridge.py", "drop-keyword", "verify=tls_verify(remote.url)) as client:"):
        COST + "httpx's default verification for a plain http url too: the CA bundle is "
        "loaded for a connection that never speaks TLS (an https url gets that default "
        "either way)",
    ("mcpctl/protocol/bridge.py", "drop-call", "skip_httpx_cli()"):
        _HTTPX_CLI,
    ("mcpctl/protocol/process.py", "drop-if",
     "if self._exited.is_set() and not group_alive(self.pid):"):
        COST + "each step of a shutdown waits its whole grace before it looks whether the "
        "group has ended (the check after the loop)",
    ("mcpctl/protocol/process.py", "if-true", "if self.pid:"):
        "`_signal` is reached only once `_started` has set the pid (a spawn that fails "
        "returns no process, and a cancelled start that failed returns before it)",
    ("mcpctl/protocol/process.py", "if-true",
     "if self._transport is not None and not self._transport.is_closing():"):
        "the transport is known by the shutdown, and asyncio's subprocess transport "
        "closed twice does nothing the second time",
    ("mcpctl/protocol/process.py", "drop-call", "os.killpg(pgid, 0)"):
        COST + "the group looked for in /proc alone, without asking the kernel first: "
        "the same answer where /proc is mounted",
    ("mcpctl/protocol/process.py", "drop-if", "if not proc.is_dir():"):
        _LINUX_HERE,
    ("mcpctl/protocol/process.py", "if-true", "if not proc.is_dir():"):
        COST + "every group taken as still running: each step of a shutdown waits its "
        "whole grace, and the group is killed by the last one anyway",
    ("mcpctl/protocol/process.py", "prefix-eq",
     'return len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X")'):
        "a process group's id has 7 digits at most (Linux's `pid_max` is at most "
        "4,194,304): the first 8 characters are all of it",
    ("mcpctl/protocol/process.py", "if-true",
     'if not cls.subreaper and sys.platform.startswith("linux"):'):
        "becoming the subreaper again is the same `prctl` call, and the same state, on "
        "Linux",
    ("mcpctl/protocol/process.py", "prefix-starts",
     'if not cls.subreaper and sys.platform.startswith("linux"):'):
        _LINUX_HERE,
    ("mcpctl/protocol/process.py", "drop-keyword", "libc = ctypes.CDLL(None, use_errno=True)"):
        "errno is never read after the `prctl` call, only its result",
    # session.py
    ("mcpctl/protocol/session.py", "drop-call", "super().__init__(message)"):
        "an exception keeps the arguments it was made with (`BaseException.__new__` sets "
        "`args`), so `str(ChannelError(text))` is the text without the call",
    ("mcpctl/protocol/session.py", "return-early",
     "async def notify(self, method: str, params: Json | None = None) -> None: ..."):
        _PROTOCOL_STUB,
    ("mcpctl/protocol/session.py", "return-early", "async def aclose(self) -> None: ..."):
        _PROTOCOL_STUB,
    ("mcpctl/protocol/session.py", "return-early", "def abort(self) -> None: ..."):
        _PROTOCOL_STUB,
    ("mcpctl/protocol/session.py", "drop-keyword",
     "server_info: Json = field(default_factory=dict)"):
        "a `Handshake` is made in two places, each giving every field: the default is "
        "never used",
    ("mcpctl/protocol/session.py", "if-true", "if pending and len(pending) == len(futures):"):
        "every call of `_first` passes futures that are all still pending: the race's "
        "loop returns or drops each one that is done before it waits again, and an "
        "empty list raises `Respawn` first",
    ("mcpctl/protocol/session.py", "if-true", "if isinstance(error, RpcError):"):
        _ONLY_RPC_ERRORS,
    ("mcpctl/protocol/session.py", "drop-raise", "raise error"):
        _ONLY_RPC_ERRORS,
    ("mcpctl/protocol/session.py", "prefix-eq",
     "if error.code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:"):
        _INTEGERS_WHOLE,
    ("mcpctl/protocol/session.py", "prefix-eq",
     "return isinstance(error, RpcError) and error.code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION"):
        _INTEGERS_WHOLE,
    ("mcpctl/protocol/session.py", "prefix-eq", 'if handshake.style == "initialize":'):
        "a handshake's style is `discover` or `initialize`, whose first 8 characters "
        "differ",
    ("mcpctl/protocol/session.py", "drop-call", "future.cancel()"):
        "a `tools/list` that timed out ends the probe: the channel is closed next, which "
        "fails the request's future (and an HTTP channel cancels its tasks): nothing "
        "reads it either way",
    # stdio.py
    ("mcpctl/protocol/stdio.py", "drop-keyword",
     "argv, env, cwd, on_line=channel._line, on_end=channel._ended, limits=limits, #3"):
        "the process's limits left to their default, `LIMITS`, which is what the probe, "
        "the channel's only maker, gives (it never passes `limits`)",
    ("mcpctl/protocol/stdio.py", "drop-call",
     'self._dispatcher.fail_all(ChannelError("the connection was closed"))'):
        "the requests still open at the close left pending: no one awaits them, since the "
        "probe closes a channel only once its own waits have ended (answered, failed, timed "
        "out or cancelled), and a future never done is dropped without a word",
    ("mcpctl/protocol/stdio.py", "drop-call", "self._process.fail(OutputError(diagnosis))"):
        COST + "the reading not stopped after stdout pollution: what the server writes next "
        "is read and passed over (`_failure` is set, so `_line` returns at once) until the "
        "probe shuts the server down",
    ("mcpctl/protocol/process.py", "prefix-eq",
     "if len(fields) > 19 and fields[1] == me and int(fields[19]) >= since:"):
        "a parent's pid and this process's are decimal texts of at most 7 digits (Linux's "
        "largest pid_max is 2^22): their first 8 characters are the whole of them",
    ("mcpctl/credentials/secret_service.py", "drop-if", "if bus in _UNANSWERED:"):
        _PINGED_AGAIN,
    ("mcpctl/credentials/secret_service.py", "drop-raise",
     'raise TimeoutError("the Secret Service did not answer a ping")'):
        _PINGED_AGAIN,
    ("mcpctl/credentials/secret_service.py", "drop-call", "_UNANSWERED.add(bus)"):
        _PINGED_AGAIN,
    ("mcpctl/credentials/secret_service.py", "drop-raise", "raise"):
        COST + "a ping that timed out let pass: the call after it on that connection times "
        "out as the ping did, and its caller (a read, the collection's state, keyring's "
        "connection) takes that failure as it took the ping's",
    ("mcpctl/protocol/stdio.py", "drop-if", "if channel._failure is not None:"):
        _READ_ON,
    ("mcpctl/protocol/stdio.py", "drop-call",
     "channel._process.fail(OutputError(str(channel._failure)))"):
        _READ_ON,
    ("mcpctl/protocol/stdio.py", "drop-if", "if self._ending is not None:"):
        _DIAGNOSIS_LEFT,
    ("mcpctl/protocol/stdio.py", "drop-call", "self._ending.cancel()"):
        _DIAGNOSIS_LEFT,
    ("mcpctl/protocol/stdio.py", "if-true", "if self._process is not None:"):
        _ALWAYS_SPAWNED,
    ("mcpctl/protocol/stdio.py", "if-true", "if self._process is not None: #2"):
        _ALWAYS_SPAWNED,
    # protocol/: each class's uses read by hand (only `Limits` is hashed: it is
    # `Remote.limits`' default, which Python 3.11 requires to be hashable).
    ("mcpctl/protocol/bridge_relay.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("bridge `Remote`", " (built once per bridge, its fields only read; its "
                  "`headers` dict would make it unhashable anyway)"),
    ("mcpctl/protocol/jsonrpc.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("JSON-RPC `Response`", " (pending requests are keyed by its `id`, a field, "
                  "never by the message)"),
    ("mcpctl/protocol/jsonrpc.py", "drop-keyword", "@dataclass(frozen=True) #2"):
        _unfrozen("JSON-RPC `Request`", " (told apart by `isinstance`, its fields read)"),
    ("mcpctl/protocol/jsonrpc.py", "drop-keyword", "@dataclass(frozen=True) #3"):
        _unfrozen("JSON-RPC `Notification`", " (told apart by `isinstance`)"),
    ("mcpctl/protocol/probe.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("`LaunchPlan`", " (kept in lists beside its outcome; its environment "
                  "dict would make it unhashable anyway)"),
    ("mcpctl/protocol/probe.py", "drop-keyword", "@dataclass(frozen=True) #2"):
        _unfrozen("`ProbeResult`", " (stored in an `Outcome`, whose own fields are what is "
                  "assigned; its mappings would make it unhashable anyway)"),
    ("mcpctl/protocol/probe.py", "drop-keyword", "@dataclass(frozen=True) #3"):
        _unfrozen("`ProbeFailure`", " (carried by its exception and read)"),
    ("mcpctl/protocol/session.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("session `Options`", " (made once per probe and passed down, its fields "
                  "read)"),
    ("mcpctl/clients/write/guard.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("guard `Workspace`", " (they are grouped in lists and sorted by their folder)"),
    ("mcpctl/clients/write/claude_denials.py", "prefix-eq", "if json.loads(new) != expected:"):
        _WHOLE,
    ("mcpctl/clients/write/guard.py", "prefix-eq", "if current == desired:"):
        _WHOLE,
    ("mcpctl/clients/write/guard.py", "drop-keyword",
     "changes: list[EntryChange] = field(default_factory=list)"):
        "an `AllowlistPlan` is made in one place (`plan_allowlist`), always with its "
        "changes: the default is never used",
    ("mcpctl/clients/write/guard.py", "drop-if",
     "if not plan.changes and (ALLOWLIST_KEY in value or drop_empty):"):
        COST + "an allowlist already in step given to the JSON editor again: it returns "
        "the text unchanged for a value already there (or a key already absent), and an "
        "unchanged file is not written",
    ("mcpctl/clients/write/guard.py", "prefix-eq",
     "meant = {key: item for key, item in value.items() if key != ALLOWLIST_KEY}"):
        "no key of Claude Code's settings but `allowedMcpServers` begins with `allowedM`, "
        "so the first 8 characters decide as the whole name does (a made-up key that did "
        "would make the second check refuse the write: it fails closed)",
    ("mcpctl/clients/write/guard.py", "drop-if", "if jsonc.parse(new, jsonc=False).value != ("):
        _EDIT_CHECKED,
    ("mcpctl/clients/write/guard.py", "prefix-eq", "if jsonc.parse(new, jsonc=False).value != ("):
        _WHOLE,
    ("mcpctl/clients/write/guard.py", "if-true", "if key is not None:"):
        "a server for every workspace (no `workspace` key) gathered under the key None "
        "too, where no workspace's folder looks it up",
    ("mcpctl/clients/write/guard.py", "drop-call",
     "report.path.parent.mkdir(parents=True, exist_ok=True)"):
        "the atomic writer makes the file's folder itself, the same way (`parents`, "
        "`exist_ok`), before the first byte is written",
    ("mcpctl/clients/write/guard.py", "drop-raise",
     'raise ConfigError(f"{report.path}: the edited file would not mean what was "'):
        _EDIT_CHECKED,
    ("mcpctl/clients/write/plan.py", "drop-keyword",
     "same_server=same_server, tool_filter=filters.get(spec.name), #2"):
        _SCOPED_FILTER,
    ("mcpctl/clients/write/plan.py", "drop-keyword",
     "same_server=same_server, tool_filter=tool_filter, key=key) #2"):
        _SCOPED_FILTER,
    ("mcpctl/clients/write/plan.py", "prefix-eq", "if wanted == current:"):
        _WHOLE,
    ("mcpctl/clients/write/plan.py", "prefix-eq",
     'if not isinstance(wanted, Mapping) or set(current["env"]) != set(wanted):'):
        _WHOLE,
    ("mcpctl/clients/write/toml_edit.py", "prefix-eq", "return tomllib.loads(text) == expected"):
        _WHOLE,
    ("mcpctl/clients/write/tool_filters.py", "drop-if", "if keys is None:"):
        "`entry_filters` is called only for a client in `ENTRY_FILTERS` "
        "(`export._tool_filters` checks first), so its keys are always found",
    ("mcpctl/clients/write/tool_filters.py", "prefix-eq", "return None if new == rules else new"):
        _WHOLE,
    ("mcpctl/clients/write/unguard.py", "if-true", "if report.path.exists():"):
        COST + "with no `~/.claude.json` the dry run's plan is worked out from nothing: no "
        "guard entry, so the same empty plan, with more work",
    ("mcpctl/clients/write/plan.py", "if-true", "if client.project_key is not None:"):
        "a client without project sections is given none (`projects` is None), so there "
        "is nothing of its to prune there",
    ("mcpctl/clients/write/plan.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("`EntryChange`", " (it holds a dict, so it could not be hashed frozen either; "
                  "a changed copy is made with `dataclasses.replace`)"),
    ("mcpctl/clients/write/plan.py", "drop-keyword", "@dataclass(frozen=True) #2"):
        _unfrozen("`ExportPlan`", " (it holds a list, so it could not be hashed frozen either)"),
    ("mcpctl/clients/write/parse.py", "if-true", "if document.duplicates:"):
        _BOTH_READERS,
    ("mcpctl/clients/write/parse.py", "drop-raise",
     'raise ConfigError(f"{path}: cannot be read as JSON; the file was not changed")'):
        _BOTH_READERS,
    ("mcpctl/credentials/redact.py", "drop-if", "if not secrets:"):
        COST + "with no secret to hide the tree is walked anyway: each string, key and "
        "branch past the bound comes back as it was (`hide_known` of no secrets is the "
        "text itself)",
    ("mcpctl/credentials/redact.py", "drop-if", "if found.text not in shown:"):
        COST + "a hit that cannot be masked where it stands is found again on each turn "
        "(replacing it changes nothing) until the loop's bound, which hides the same text "
        "whole: up to 64 more scans of it, the same answer",
    ("mcpctl/credentials/rotation.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("`SecretAction`"),
    ("mcpctl/credentials/rotation.py", "prefix-eq", "if action == REPLACED and not replace:"):
        _ACTIONS,
    ("mcpctl/credentials/rotation.py", "prefix-eq", "if action.action != SAME:"):
        _ACTIONS,
    ("mcpctl/credentials/rotation.py", "if-true", "if action.action != SAME:"):
        COST + "a secret the keyring already holds with this value written again: the same "
        "value, and its index entry keeps its date (`set_secret`)",
    ("mcpctl/credentials/scrub.py", "drop-keyword", "@dataclass(frozen=True)"):
        _unfrozen("`Scrubbed`"),
    ("mcpctl/credentials/scrub.py", "drop-if", "if not old or old not in text:"):
        COST + "a value not in the text: the pattern then finds nothing and `replace` "
        "replaces nothing; no form of a secret value is empty",
    ("mcpctl/credentials/secret_service.py", "prefix-starts",
     'if not sys.platform.startswith("linux") or not environ.get("DBUS_SESSION_BUS_ADDRESS"):'):
        _LINUX,
    ("mcpctl/credentials/secret_service.py", "drop-keyword",
     'with open_dbus_connection(bus="SESSION") as connection:'):
        _SESSION_BUS,
    ("mcpctl/credentials/secret_service.py", "drop-keyword",
     'with open_dbus_connection(bus="SESSION") as connection: #2'):
        _SESSION_BUS,
    ("mcpctl/credentials/secret_service.py", "drop-if",
     "if locked(_DEFAULT, collection_interface):"):
        _LOCKED,
    ("mcpctl/credentials/secret_service.py", "drop-if",
     'if not items or locked(items[0], "org.freedesktop.Secret.Item"):'):
        _LOCKED,
    ("mcpctl/credentials/secret_service.py", "drop-call",
     'call(session, "org.freedesktop.Secret.Session", "Close")'):
        COST + "the session is not closed by hand; it ends with the connection, which the "
        "`with` around the read closes right after",
    ("mcpctl/credentials/secretlike.py", "if-true", 'if "://" in literal:'):
        COST + "the userinfo pattern is searched in every value: it holds `://` itself, so "
        "it finds nothing where the check said there was nothing to find",
    ("mcpctl/credentials/secretlike.py", "if-true", 'if "@" in literal and "(" in literal:'):
        COST + "the DSN pattern is searched in every value: it holds `@` and `(` itself",
    ("mcpctl/credentials/secretlike.py", "if-true", 'if ":" in literal:'):
        COST + "every value is read as a header: the header pattern holds `:` itself",
    ("mcpctl/credentials/secretlike.py", "prefix-starts",
     "if len(token) >= SHORTEST_KNOWN and token.startswith(PREFIXES) and _varied(token):"):
        _TUPLE_PREFIXES,
    ("mcpctl/credentials/secretlike.py", "prefix-starts",
     "if token.startswith(prefixes) and re.fullmatch(pattern, token)), None)"):
        _TUPLE_PREFIXES,
    ("mcpctl/credentials/secretlike.py", "if-true", "if needle in literal:"):
        COST + "each searched format's pattern is run on every value: every match holds "
        "the format's needle (`-----BEGIN`, `:AA`, `hooks.slack.com`, `/api/webhooks/`)",
    ("mcpctl/credentials/secretlike.py", "prefix-eq",
     "if credential != value and _is_named_credential(credential) and len(credential) >= 8 \\"):
        "`credential` is `value` with its leading auth scheme taken off, so the two differ "
        "exactly when a scheme was there, and then their first 8 characters differ too "
        "unless the value repeats its own scheme (`Bot Bot Bot …`), which no header holds",
    ("mcpctl/credentials/secretlike.py", "if-true", 'if "=" in literal:'):
        COST + "the assignment pattern is searched in every value: it holds `=` itself",
    ("mcpctl/credentials/secretlike.py", "if-true", "if len(literal) >= _GUESS_LENGTH:"):
        COST + "every value is read for guesses: a guess is a token, or the whole value as "
        "lowercase hex, of 32 characters at least, which a shorter value does not hold",
    ("mcpctl/paths.py", "prefix-eq", "if expanded == home:"):
        "`home` begins with `~`; `expanduser` either leaves it whole or gives an absolute "
        "path, which begins with `/`: the first character already decides",
    ("mcpctl/trust/view.py", "if-true", "if root not in self._approvals:"):
        COST + "a folder's approvals taken from the store in memory again for each "
        "status (`approvals_in` is pure over the store read once)",
    ("mcpctl/trust/status.py", "prefix-eq", 'and old.get("pinSet") == pins.kind:'):
        "no two kinds of pin set share their first 8 characters (`workspace`, `npx`, "
        "`uvx`, `remote`); only a hand-edited store could hold another, and then only the "
        "report's form changes (a file list where a pinSet line was)",
    ("mcpctl/trust/status.py", "if-false",
     "if known is not None:  # this very change was reported from this cache before"):
        COST + "a change report kept in the cache's memo made again from the approved "
        "manifest (the same list; with that manifest lost, the line that says so)",
    ("mcpctl/trust/status.py", "drop-if",
     "if pins.memo is not None and len(file_changes) <= _KEPT_CHANGES:"):
        _MEMO_UNKEPT,
    ("mcpctl/trust/status.py", "drop-call",
     "pins.memo.remember(memo_key, _encoded(file_changes))"):
        _MEMO_UNKEPT,
    ("mcpctl/protocol/http.py", "drop-keyword",
     "headers=dict(headers), timeout=httpx.Timeout(timeout), follow_redirects=False, #3"):
        "httpx's client follows no redirect unless told to: `follow_redirects=False` is its "
        "default, so leaving it out changes nothing (`test_redirects_are_not_followed`)",
    ("mcpctl/protocol/http.py", "drop-keyword", "verify=tls_verify(url),"):
        COST + "httpx's own verification, with the CA bundle loaded, for a plain http url "
        "too: no TLS ever happens there (`tls_verify`), only the start is slower; for "
        "https both verify against the bundle",
    ("mcpctl/protocol/http.py", "drop-call", "skip_httpx_cli()"):
        COST + "httpx's command-line module (click, rich, pygments) imported with httpx: "
        "only the start is slower",
    ("mcpctl/protocol/http.py", "drop-call", "task.add_done_callback(self._tasks.discard)"):
        COST + "a finished task kept in the channel's set until it closes: one per request, "
        "and cancelling a finished task at the close does nothing",
    ("mcpctl/protocol/http.py", "drop-call", "task.add_done_callback(_seen)"):
        _NOTHING_RAISED,
    ("mcpctl/protocol/http.py", "prefix-eq", "if origin(endpoint) != origin(self._url):"):
        _ORIGINS,
    ("mcpctl/protocol/bridge_sse.py", "prefix-eq",
     "if origin(endpoint) != origin(self._remote.url):"):
        _ORIGINS,
    ("mcpctl/protocol/http.py", "return-early", "def _seen(task: asyncio.Task[None]) -> None:"):
        _NOTHING_RAISED,
    ("mcpctl/protocol/http.py", "drop-call", "task.exception()"):
        _NOTHING_RAISED,
    ("mcpctl/protocol/http.py", "drop-keyword", "limits=limits, secrets=secrets)"):
        "the SSE channel's limits left to their default, `LIMITS`, which is what the "
        "probe, its only maker, gives (it never passes `limits`)",
    ("mcpctl/protocol/bridge_relay.py", "prefix-eq",
     'shown = "longer than the line cap" if line == TOO_LONG else "not JSON"'):
        "a line and `TOO_LONG` are bytes: the prefix helper compares them whole",
    ("mcpctl/protocol/bridge_relay.py", "drop-call", "settled.cancel()"):
        COST + "a wait for the next settled request left pending past the grace's turn: "
        "it ends when the event is set or `asyncio.run` cancels it at the bridge's end",
    ("mcpctl/protocol/bridge_relay.py", "drop-call", "self._settled.clear()"):
        COST + "the grace's loop wakes at once while a request is still running, so it "
        "spins until the last answer or the grace's end (EOF_GRACE bounds it either way)",
    ("mcpctl/protocol/bridge_relay.py", "drop-keyword", "timeout=CLOSE_TIMEOUT)"):
        COST + "a server that never answers the DELETE ending its session holds the "
        "bridge's end up to the server's `timeout`, not 1 s (the DELETE's failure is "
        "ignored either way)",
    ("mcpctl/protocol/bridge_sse.py", "skip-loop", "for future in waiting - {self._ended}:"):
        _ENDPOINT_WAIT,
    ("mcpctl/protocol/bridge_sse.py", "drop-call", "future.cancel()"):
        _ENDPOINT_WAIT,
    ("mcpctl/trust/status.py", "widen-bound",
     "_KEPT_CHANGES = 1000  # a longer report is computed again each time"):
        COST + "reports of up to 16,000 changes kept in the memo: a larger memo file",
    ("mcpctl/trust/status.py", "prefix-eq",
     "after = {path: short(digest) for path, digest in pins.files.items() if digest != ABSENT}"):
        "no digest but `absent` itself begins with `absent` (the others begin with "
        "`sha256:` or a marker before it)",
    ("mcpctl/trust/store.py", "drop-if", "if path.exists():"):
        COST + "a manifest already there written again: it is named by the digest of its "
        "content, so the same bytes replace it",
    ("mcpctl/trust/store.py", "prefix-starts",
     'token = of_file[7:23] if len(of_file) == 71 and of_file.startswith("sha256:") \\'):
        "a digest of 71 characters is `sha256:` and 64 hex digits: none begins with "
        "`sha256` without the colon",
    ("mcpctl/trust/store.py", "drop-keyword", "atomic_write_bytes(path, data, mode=0o600)"):
        "a new file is made 0600 anyway (`files/atomic.py`), and a manifest already there "
        "is never written again",
    ("mcpctl/trust/store.py", "prefix-starts", "if not data.startswith(_MAGIC):"):
        "the header is bytes: the mutant shortens only a string, so nothing changes",
    ("mcpctl/trust/store.py", "prefix-eq", "if _checksum(digest, body) != data[head:head + 64]:"):
        "both sides are bytes: the prefix mutant compares what is not a string whole",
}
# Whatever the module: a block only the type checker reads (`from __future__ import
# annotations` everywhere, so no annotation is evaluated at run time).
EQUIVALENT_ANYWHERE: dict[tuple[str, str], str] = {
    ("drop-if", "if TYPE_CHECKING:"): "imports for the type checker only: annotations are "
                                      "never evaluated at run time",
    ("if-true", "if TYPE_CHECKING:"): "the type checker's imports made at run time too: "
                                      "only what is imported, and when, changes",
}

# Never planted: with the mutant in, a test that reaches it would harm the machine the run
# is on. Each counts as a survivor (the score does not gain by it), with the reason.
UNSAFE: dict[tuple[str, str, str], str] = {
    ("mcpctl/protocol/process.py", "if-true",
     "if len(fields) > 19 and fields[1] == me and int(fields[19]) >= since:"):
        "every process on the machine taken as an orphan of the prober's: the sweep would "
        "SIGKILL each one the user may signal, the run's own included",
}
