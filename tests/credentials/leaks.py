"""Is a secret anywhere it must not be? Every file under a folder and every output,
searched for the value as is and base64-, hex- and URL-encoded (issue 14)."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote


def encodings(secret: str) -> list[bytes]:
    """The byte strings a leak of `secret` would contain: plain, URL-encoded, hex, and
    base64 (standard and URL-safe) at each of the three alignments. For an aligned
    encoding only the characters that do not depend on the neighbours are kept, and only
    while that leaves enough to be a real leak, not a chance match."""
    raw = secret.encode()
    forms = {raw, quote(secret, safe="").encode(), raw.hex().encode(), raw.hex().upper().encode()}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        forms.add(encode(raw).rstrip(b"="))
        for pad in (1, 2):
            encoded = encode(b"\0" * pad + raw)
            start, end = (8 * pad + 5) // 6, 8 * (pad + len(raw)) // 6
            if end - start >= 6:
                forms.add(encoded[start:end])
    return sorted(forms)


def leaks(secret: str, folder: Path, outputs: Iterable[str] = ()) -> list[str]:
    """Where `secret` shows, in any encoding: file paths and output numbers."""
    forms = encodings(secret)
    found = [str(path) for path in sorted(folder.rglob("*"))
             if path.is_file() and not path.is_symlink()
             and any(form in path.read_bytes() for form in forms)]
    found += [f"output {index}" for index, text in enumerate(outputs)
              if any(form in text.encode() for form in forms)]
    return found
