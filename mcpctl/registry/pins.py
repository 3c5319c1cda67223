"""Which way of running a registry server mcpctl takes, and the exact pin it writes (pure).

A package becomes one exact launch: `npx -y pkg@X.Y.Z`, `uvx pkg==X.Y.Z`, or
`docker run … image:tag` / `image@sha256:…`. Identifiers and versions come from a
registry, so each is checked against its package type's own naming rule before it can
reach a command line: no option (`-…`), no range (`^1.2`, `>=1`, `1.x`), no `latest`,
no whitespace. nuget and mcpb packages, and packages that serve HTTP themselves, are
not run by mcpctl; a remote is used instead when there is one.
"""

import re
from typing import NamedTuple

from mcpctl.errors import UsageError
from mcpctl.registry.document import Package, Remote, ServerDocument

RUNNABLE = ("npm", "pypi", "oci")
USES = ("npm", "pypi", "oci", "remote")
_NPM = re.compile(r"^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$", re.IGNORECASE)
_PYPI = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
_VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$")
_RANGE = re.compile(r"(^|[.])(x|X|\*)($|[.])")
# [host[:port]/]path[:tag][@sha256:digest], the distribution spec's grammar, simplified.
_IMAGE = re.compile(
    r"^(?P<repo>(?:[a-z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:[._-][a-z0-9]+)*"
    r"(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*)"
    r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?$")


class Pin(NamedTuple):
    """The launch's pinned word (`pkg@1.2.3`) and how mcpctl names the package."""

    word: str
    package: str  # "npm:@scope/pkg", "pypi:pkg", "oci:ghcr.io/owner/image"
    only_tag: bool = False  # an image known by tag only (a tag can be moved)


def choose(document: ServerDocument, use: str | None) -> Package | Remote:
    """The package or remote to add: `use` names its kind; by default the first
    runnable stdio package, else the first remote."""
    if use is not None and use not in USES:
        raise UsageError(f"--use must be one of {', '.join(USES)}, not {use!r}")
    if use == "remote":
        if not document.remotes:
            raise UsageError(f"{document.name} has no remote; {_offer(document)}")
        return document.remotes[0]
    refusals: list[str] = []
    for package in document.packages:
        if use is not None and package.registry_type != use:
            continue
        why = _unrunnable(package)
        if why is None:
            return package
        refusals.append(why)
    if use is None and document.remotes:
        return document.remotes[0]
    wanted = f"{use} package mcpctl can run" if use else "package or remote mcpctl can use"
    detail = f" ({'; '.join(refusals)})" if refusals else ""
    raise UsageError(f"{document.name}@{document.version} has no {wanted}{detail}; "
                     f"{_offer(document)}")


def _offer(document: ServerDocument) -> str:
    kinds = sorted({p.registry_type for p in document.packages if _unrunnable(p) is None})
    if document.remotes:
        kinds.append("remote")
    if not kinds:
        return "mcpctl cannot add it; add it by hand with `mcpctl add NAME -- COMMAND`"
    return "it offers: " + ", ".join(f"--use {kind}" for kind in kinds)


def _unrunnable(package: Package) -> str | None:
    if package.registry_type not in RUNNABLE:
        return f"mcpctl does not run {package.registry_type[:20]} packages"
    if package.transport != "stdio":
        return f"the {package.registry_type} package serves {package.transport} itself"
    try:
        pin_of(package)
    except UsageError as error:
        return str(error)
    return None


def pin_of(package: Package) -> Pin:
    """The exact, pinned package word for the launch; UsageError when none can be made."""
    kind, identifier, version = package.registry_type, package.identifier, package.version
    if kind == "oci":
        return _image_pin(package)
    rule = _NPM if kind == "npm" else _PYPI
    if not rule.match(identifier) or len(identifier) > 214:
        raise UsageError(f"{identifier[:80]!r} is not a valid {kind} package name")
    _check_version(kind, identifier, version)
    word = f"{identifier}@{version}" if kind == "npm" else f"{identifier}=={version}"
    return Pin(word, f"{kind}:{identifier}")


def _check_version(kind: str, identifier: str, version: str | None) -> None:
    if not version:
        raise UsageError(f"the {kind} package {identifier} declares no version, so it "
                         "cannot be pinned")
    if version.lower() == "latest" or not _VERSION.match(version) or _RANGE.search(version):
        raise UsageError(f"the {kind} package {identifier} declares version {version[:40]!r}, "
                         "which is not one exact version")


def _image_pin(package: Package) -> Pin:
    reference = package.identifier
    match = _IMAGE.match(reference)
    if match is None:
        raise UsageError(f"{reference[:80]!r} is not an OCI image reference mcpctl can pin")
    repo, tag, digest = match["repo"], match["tag"], match["digest"]
    if tag is None and digest is None and package.version:
        _check_version("oci", reference, package.version)
        tag = package.version
    host = _base_host(package.registry_base_url)
    first = repo.split("/")[0]
    names_a_host = "/" in repo and ("." in first or ":" in first or first == "localhost")
    if host and not names_a_host:
        repo = f"{host}/{repo}"
    if digest is None and (tag is None or tag == "latest"):
        said = f"is tagged {tag!r}, which moves" if tag else "names no tag or digest"
        raise UsageError(f"the image {reference[:80]} {said}: it cannot be pinned")
    word = repo + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")
    return Pin(word, f"oci:{repo}", only_tag=digest is None)


def _base_host(url: str | None) -> str | None:
    """`https://ghcr.io` → `ghcr.io`; Docker Hub's default needs no prefix."""
    if not url:
        return None
    host = re.sub(r"^https?://", "", url).strip("/")
    if not re.fullmatch(r"[a-z0-9.-]+(?::[0-9]+)?", host) or host in ("docker.io",
                                                                         "index.docker.io"):
        return None
    return host
