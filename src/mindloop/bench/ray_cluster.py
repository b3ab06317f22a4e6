"""Connecting to Ray as ``--executor ray`` does: the token found the way Ray's own tools find it, and a failure
to connect told in one line that names the address and what to do.

Recent Ray turns token authentication on for a cluster whenever a token exists on the machine (``ray start``
enables it when it finds one; ``ray.init()`` without an address, which ``--executor ray`` without
``--ray-address`` does, creates one in ``~/.ray/auth_token``). A client then needs the token too, but
``ray.init(address=...)`` does not look for it unless ``RAY_AUTH_MODE=token`` is set. :func:`connect` does what
Ray's command-line tools do: with ``RAY_AUTH_MODE`` unset and a token available (``RAY_AUTH_TOKEN``, the file
``RAY_AUTH_TOKEN_PATH`` names, or ``~/.ray/auth_token``) it turns token mode on for this process, so the
documented ``ray start --head`` / ``mindloop ... --ray-address`` pair works as written on one machine, and on
several once the token is given to each. ``RAY_AUTH_MODE`` set either way is respected as it is.

What can go wrong becomes a :class:`~mindloop.errors.ClusterError`: nothing listening at the address, the
cluster asking for a token this process lacks or refusing the one it sent (with the command that fixes it),
a Ray version that differs between client and cluster, or whatever else Ray said, cut to one line.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from mindloop.errors import ClusterError, DependencyError

_REACH_TIMEOUT_S = 5.0
"""How long :func:`connect` waits for the cluster's address to accept a TCP connection before saying nothing
listens there."""

_TOKEN_HELP = "https://docs.ray.io/en/latest/ray-security/token-auth.html"


def import_ray() -> ModuleType:
    """The ``ray`` module, or a :class:`~mindloop.errors.DependencyError` naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise DependencyError("--executor ray needs Ray: pip install 'mindloop[scale]'") from None
    return ray


def find_token() -> str | None:
    """Where this process has a Ray authentication token, as Ray looks for one (``None``: nowhere):
    ``RAY_AUTH_TOKEN``, then the file ``RAY_AUTH_TOKEN_PATH`` names, then ``~/.ray/auth_token``."""
    if os.environ.get("RAY_AUTH_TOKEN", "").strip():
        return "RAY_AUTH_TOKEN"
    named = os.environ.get("RAY_AUTH_TOKEN_PATH")
    candidates = [Path(named).expanduser()] if named else [Path.home() / ".ray" / "auth_token"]
    for path in candidates:
        try:
            if path.read_text().strip():
                return str(path)
        except OSError:
            continue
    return None


def _split(address: str) -> tuple[str, int] | None:
    """``host`` and ``port`` of an address such as ``10.0.0.1:6379`` or ``ray://host:10001`` (``None`` when it
    names no port, e.g. ``auto``)."""
    bare = address.split("://", 1)[-1].rstrip("/")
    host, sep, port = bare.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def _reach(address: str) -> None:
    """Refuse an address where nothing listens, in seconds (Ray itself retries for a minute or more)."""
    parts = _split(address)
    if parts is None:
        return
    host, port = parts
    try:
        with socket.create_connection((host, port), timeout=_REACH_TIMEOUT_S):
            pass
    except OSError as exc:
        why = "connection refused" if isinstance(exc, ConnectionRefusedError) else (exc.strerror or str(exc))
        raise ClusterError(
            f"cannot reach the Ray cluster at {address}: nothing listens there ({why}); start its head with "
            f"`ray start --head --port {port}` or give --ray-address the head's address"
        ) from None


def _use_token_like_ray_cli() -> str | None:
    """Turn token authentication on for this process as Ray's command-line tools do: when ``RAY_AUTH_MODE`` is
    unset and a token is available. Returns where the token is when token mode is on (``None`` otherwise)."""
    mode = os.environ.get("RAY_AUTH_MODE")
    token = find_token()
    if mode is None and token is not None:
        os.environ["RAY_AUTH_MODE"] = "token"
        _refresh_ray_config()
        return token
    return token if (mode or "").lower() == "token" else None


def _refresh_ray_config() -> None:
    """Make an already imported Ray read ``RAY_AUTH_MODE`` again (it reads its configuration at import)."""
    config = _raylet_attribute("Config")
    if config is not None:  # else a Ray without token authentication: nothing to refresh
        config.initialize("")


def _probe(address: str) -> None:
    """Ask the cluster's GCS for its id, as Ray does first when it connects, and raise what that meets.

    A refused token comes back at once here, where ``ray.init`` would retry for tens of seconds and then say only
    that it failed to connect. Ray's core logs the refusal on standard error, so standard error is closed to it
    for the moment of the question. Skipped for a Ray client address (``ray://``) and a Ray without this client.
    """
    gcs_client = _raylet_attribute("GcsClient")
    if "://" in address or gcs_client is None:
        return
    with _stderr_silenced():
        gcs_client(address=address)


def _raylet_attribute(name: str) -> Any:
    """``ray._raylet.<name>`` (Ray's compiled core, no public API), or ``None`` where this Ray has none."""
    try:
        raylet = importlib.import_module("ray._raylet")
    except ImportError:
        return None
    return getattr(raylet, name, None)


@contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 pointed at ``/dev/null`` inside (what a C++ library writes there is dropped)."""
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _is_auth(exc: BaseException) -> bool:
    """Whether Ray refused the connection for its token (missing or wrong)."""
    text = str(exc).lower()
    return type(exc).__name__ == "AuthenticationError" or "invalidauthtoken" in text or "authentication token" in text


def explain(address: str, token: str | None, exc: BaseException) -> ClusterError:
    """The one-line error for a failed connection to the cluster at ``address``, from what Ray raised (``token``:
    where this client's token came from, ``None`` when it sent none)."""
    text = " ".join(str(exc).split())
    where = f"the Ray cluster at {address}"
    if "version mismatch" in text.lower():
        return ClusterError(
            f"cannot use {where}: its Ray or Python version differs from this client's ({text}); install the same "
            "Ray and Python in the client's environment as on the cluster"
        )
    if not _is_auth(exc):
        return ClusterError(f"cannot connect to {where}: {type(exc).__name__}: {text[:400]}")
    fix = (
        "set RAY_AUTH_TOKEN to the cluster's token (`export RAY_AUTH_TOKEN=$(ray get-auth-token)` on the head's "
        f"machine; elsewhere, its output there) and run again; see {_TOKEN_HELP}"
    )
    if (os.environ.get("RAY_AUTH_MODE") or "").lower() == "disabled":
        return ClusterError(
            f"cannot connect to {where}: it asks for an authentication token and RAY_AUTH_MODE=disabled in this "
            f"client's environment sends none; unset RAY_AUTH_MODE and {fix}"
        )
    if token is None:
        return ClusterError(
            f"cannot connect to {where}: it asks for an authentication token and this client has none (no "
            f"RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token); {fix}"
        )
    return ClusterError(
        f"cannot connect to {where}: it refused this client's authentication token (from {token}), which is not the "
        f"cluster's; {fix}"
    )


def connect(address: str | None) -> None:
    """``ray.init`` for ``--executor ray``: join the cluster at ``address``, or start a local Ray when ``None``.

    With an address, it is checked to accept connections first, and the token is found as described in this
    module's documentation; every failure is a :class:`~mindloop.errors.ClusterError`. Ray's SIGTERM handler
    (which exits the process at once) is replaced by the one that was there, so the runner's handler stops the
    run and keeps its samples.
    """
    ray = import_ray()
    token = None
    if address is not None and address not in ("auto", "local"):
        _reach(address)
        token = _use_token_like_ray_cli()
        try:
            _probe(address)
        except Exception as exc:
            if _is_auth(exc):
                raise explain(address, token, exc) from None
            # anything else: ray.init below meets it again and says it its own way
    on_sigterm = signal.getsignal(signal.SIGTERM)
    try:
        # no address: a new local Ray, never a cluster that a file Ray left in /tmp/ray says is there (a stale one
        # made every local run hang); RAY_ADDRESS, when set, is still Ray's to read
        local = "local" if address is None and not os.environ.get("RAY_ADDRESS") else address
        ray.init(address=local, include_dashboard=False, log_to_driver=False, configure_logging=False)
    except Exception as exc:
        if address is None:
            raise
        with _quiet(), contextlib.suppress(Exception):
            ray.shutdown()  # a half-made connection is not left behind
        raise explain(address, token, exc) from None
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, on_sigterm)


@contextmanager
def _quiet() -> Iterator[None]:
    """Ray's own log lines left out inside (a clean-up after a failure already being reported)."""
    logger = logging.getLogger("ray")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextmanager
def ray_session(address: str | None) -> Iterator[None]:
    """One Ray connection for everything inside: joined (or started) on entry unless Ray is already initialised
    in this process, and then shut down on exit. Inside, standard output goes to standard error: Ray's driver prints
    what the cluster reports (a worker that died, a node that is gone) on standard output, from a thread of its own,
    where it would break a ``--json`` command's one object."""
    ray = import_ray()
    if ray.is_initialized():
        yield
        return
    with contextlib.redirect_stdout(sys.stderr):
        connect(address)
        try:
            yield
        finally:
            ray.shutdown()


def executor_session(executor: str, address: str | None) -> contextlib.AbstractContextManager[None]:
    """The connection a run or a suite on ``executor`` holds while it runs: :func:`ray_session` (at ``address``)
    for ``ray``, none for the other executors."""
    return ray_session(address) if executor == "ray" else contextlib.nullcontext()


def current_node() -> str | None:
    """The id of the Ray node this code runs on (``None`` outside Ray)."""
    try:
        import ray
    except ImportError:
        return None
    if not ray.is_initialized():
        return None
    node: str = ray.get_runtime_context().get_node_id()
    return node
