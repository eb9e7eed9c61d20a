"""Where chunks of work run: this process, worker processes of this machine (loky, via joblib) or a Dask cluster.

:func:`map_chunks` is the one executor of the commands that cut their work into chunks (``simulate`` and
``train``).  A chunk's result is a pure function of the chunk, so where it runs changes no result; what the
caller chooses is the order it gets them in: chunk order (``ordered``, what a sum that must be the same for any
``--jobs`` needs) or the order they finish in.  The chunks are read as the work goes, never listed whole.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

BACKENDS = ("loky", "dask")


def connect(scheduler: str | None, error: type[Exception] = ValueError):
    """A Dask client: of the scheduler at `scheduler`, or of a local cluster of two processes.

    Parameters
    ----------
    scheduler : str or None
        The scheduler's address (``tcp://host:port``); None starts a local cluster.
    error : type[Exception]
        What to raise, one line, when the scheduler cannot be reached (the caller's error for its user).

    Returns
    -------
    distributed.Client
        The client; the caller closes it.
    """
    from dask.distributed import Client

    try:
        if scheduler:
            return Client(scheduler, timeout="20s")
        return Client(processes=True, n_workers=2, threads_per_worker=1)
    except (OSError, TimeoutError, ValueError) as e:  # ValueError: an address that is not one
        raise error(f"--scheduler: cannot reach {scheduler}: {str(e).splitlines()[0]}") from None


def map_chunks(
    fn: Callable[[Any], Any],
    chunks: Iterable[Any],
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: Callable[[Any, Any], None] | None = None,
    *,
    ordered: bool = True,
    client=None,
) -> Iterator[Any]:
    """``fn(chunk)`` for every chunk, run in this process, on `jobs` loky processes or on a Dask cluster.

    Parameters
    ----------
    fn : callable(chunk) -> result
        The work of one chunk: a module-level function or a :func:`functools.partial` of one, since worker
        processes receive it pickled.
    chunks : iterable
        The chunks, read lazily (a generator of any length starts at once).
    jobs : int
        Worker processes with the loky backend; 1 runs every chunk in this process, in order.
    backend : str
        ``loky`` (processes of this machine) or ``dask`` (a cluster).
    scheduler : str or None
        With ``dask`` and no `client`: the scheduler's address, None for a local cluster (connected here and
        closed when the results are exhausted or the generator is closed).
    progress : callable(chunk, result), optional
        Called with each chunk and its result as the result is handed on.
    ordered : bool
        True: the results in chunk order; False: in the order the chunks finish.
    client : distributed.Client, optional
        With ``dask``: the cluster to use (the caller connected it, and closes it).

    Returns
    -------
    iterator
        The results, one per chunk.

    Raises
    ------
    ValueError
        An unknown backend (before any work).
    """
    if backend not in BACKENDS:
        raise ValueError(f"--backend must be {' or '.join(BACKENDS)}, got {backend!r}")
    if backend == "dask":
        results = _on_dask(fn, chunks, client, scheduler, ordered)
    elif jobs == 1:
        results = ((c, fn(c)) for c in chunks)
    else:
        results = _on_loky(fn, chunks, jobs, ordered)
    return _reported(results, progress)


def _reported(results: Iterable[tuple[Any, Any]], progress: Callable[[Any, Any], None] | None) -> Iterator[Any]:
    for chunk, result in results:
        if progress is not None:
            progress(chunk, result)
        yield result


def _with_chunk(fn: Callable[[Any], Any], chunk: Any) -> tuple[Any, Any]:
    return chunk, fn(chunk)


def _on_loky(fn, chunks: Iterable[Any], jobs: int, ordered: bool) -> Iterator[tuple[Any, Any]]:
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs, return_as="generator" if ordered else "generator_unordered", batch_size=1)(
        delayed(_with_chunk)(fn, c) for c in chunks
    )


def _on_dask(fn, chunks: Iterable[Any], client, scheduler: str | None, ordered: bool) -> Iterator[tuple[Any, Any]]:
    """The chunks on the cluster, a few per worker thread in flight (the chunks are read as results come back)."""
    from dask.distributed import as_completed

    own = client is None
    if own:
        client = connect(scheduler)
    try:
        todo = iter(chunks)
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values())
        ahead = max(4, 2 * threads)

        def submit(c):
            return client.submit(_with_chunk, fn, c, pure=False)

        if ordered:
            queue = collections.deque(submit(c) for c in itertools.islice(todo, ahead))
            while queue:
                yield queue.popleft().result()
                queue.extend(submit(c) for c in itertools.islice(todo, 1))
        else:
            pending = as_completed([submit(c) for c in itertools.islice(todo, ahead)])
            for fut in pending:
                yield fut.result()
                for c in itertools.islice(todo, 1):
                    pending.add(submit(c))
    finally:
        if own:
            client.close()
