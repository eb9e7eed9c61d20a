"""Python agents' failures, and Python agents in processes of their own (``--isolate-agents``, ``--move-timeout``).

**Failures.**  A Python agent that raises, calls ``sys.exit``, returns ``None`` or a move the game refuses --
or, isolated, runs past the move time limit or whose process dies -- ends the run with an
:class:`AgentFailure`: a picklable exception (it crosses loky's and Dask's process boundaries whole) naming
the game number, the game seed, the seat, the agent spec and the last line of what went wrong, and
carrying the full traceback, which :func:`boardlab.experiments.simulate.run` writes beside the output
(``OUT.error.log``).  The command line prints it as one line and exits with code 1; the finished chunks
stay in ``OUT.parts/`` for ``--resume``.

**Isolation.**  An agent that plays in the runner's process can read anything in it: Python has no sandbox,
so ``sys._getframe(1)`` reaches the caller's frame and the true game.  With :class:`Isolation` on, every
seat that a Python agent plays gets a process of its own (:class:`AgentProcesses`, started with ``spawn``,
so it inherits none of the runner's memory), which only ever holds that seat's observations, legal moves
and generator.  The agent is made there for each game from its spec; each move is one message each way
over a pipe, and the answer must come within the move time limit or the process is killed.  A hanging
agent, or one that calls ``sys.exit`` or ``os._exit``, so ends the run in one line.  The rows are the
same as in one process: the agent's generator is sent with the game's first move, in the state the
runner would have given it.
"""

from __future__ import annotations

import multiprocessing
import signal
import traceback
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Isolation:
    """How Python agents play: in the runner's process (the default), or each seat in a process of its own.

    Attributes
    ----------
    isolate : bool
        Each Python agent's seat in a subprocess of its own (``--isolate-agents``).
    move_timeout : float or None
        Seconds an isolated agent may take for one move (or to be made) before its process is killed and
        the run ends (``--move-timeout``; it implies ``isolate``).  None: no limit.
    """

    isolate: bool = False
    move_timeout: float | None = None

    @property
    def active(self) -> bool:
        """Whether Python agents play in subprocesses."""
        return self.isolate or self.move_timeout is not None


class AgentFailure(RuntimeError):
    """A Python agent failed during a run: one line for the user (``str``), the traceback for the log.

    Parameters
    ----------
    what : str
        The last line of what went wrong (``ValueError: boom``, ``returned None, not a move``).
    details : str
        The full traceback (or what is known instead), for the log file.
    game, game_seed, seat, spec :
        Where: the game number in the run, its seed, the seat (0-based; printed 1-based, as the result
        tables number seats) and the agent spec; filled in as the failure passes up through the runner.
    log : str or None
        The log file holding the details, once written (:meth:`write_log`).
    """

    def __init__(
        self,
        what: str,
        details: str = "",
        game: int | None = None,
        game_seed: int | None = None,
        seat: int | None = None,
        spec: str | None = None,
        log: str | None = None,
    ):
        super().__init__(what)
        self.what, self.details = what, details
        self.game, self.game_seed, self.seat, self.spec, self.log = game, game_seed, seat, spec, log

    def __reduce__(self):
        return (type(self), (self.what, self.details, self.game, self.game_seed, self.seat, self.spec, self.log))

    def __str__(self) -> str:
        where = [f"game {self.game}" if self.game is not None else "", f"game seed {self.game_seed}"]
        where.append(f"seat {self.seat + 1}" if self.seat is not None else "")
        text = f"agent {self.spec or '?'} failed ({', '.join(w for w in where if w and 'None' not in w)}): {self.what}"
        return text + (f"; traceback in {self.log}" if self.log else "")

    def locate(self, **fields) -> AgentFailure:
        """This failure with the given fields filled in where they are still unknown (returns itself).

        Parameters
        ----------
        **fields
            ``game``, ``game_seed``, ``seat``, ``spec`` or ``log`` values.

        Returns
        -------
        AgentFailure
            `self`.
        """
        for k, v in fields.items():
            if getattr(self, k) is None:
                setattr(self, k, v)
        return self

    def write_log(self, path: Path | str) -> Path:
        """Write the one line and the full traceback to `path`; the line names it from then on.

        Parameters
        ----------
        path : Path or str
            The log file (overwritten).

        Returns
        -------
        Path
            The file written.
        """
        path = Path(path)
        path.write_text(f"{self}\n\n{self.details.rstrip()}\n")
        self.log = str(path)
        return path


def failure_of(e: BaseException, what: str | None = None) -> AgentFailure:
    """An AgentFailure for exception `e` raised by an agent (or by the game refusing its move: `what`).

    Parameters
    ----------
    e : BaseException
        The exception (a SystemExit included).
    what : str or None
        What the game said of the move, prefixed to the line; None: the agent raised.

    Returns
    -------
    AgentFailure
        Its line (the exception's type and first line) and the traceback as details.
    """
    if isinstance(e, SystemExit):
        line = f"called sys.exit({e.code!r})"
    else:
        lines = [x for x in str(e).splitlines() if x.strip()]
        line = f"{type(e).__name__}: {lines[0].strip()}" if lines else type(e).__name__
        line += " (...)" if len(lines) > 1 else ""
    details = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return AgentFailure(f"{what}: {line}" if what else line, details)


# --- isolated agents -------------------------------------------------------------------------------------------


class AgentProcesses:
    """The subprocesses of one runner's isolated seats, one per seat, started on first use; a context manager
    (leaving it stops them all).

    Parameters
    ----------
    game_id : str
        The game (its registry parses the agent specs in the subprocess).
    timeout : float or None
        Seconds an agent may take per move (None: no limit).
    """

    def __init__(self, game_id: str, timeout: float | None = None):
        self.game_id, self.timeout = game_id, timeout
        self._procs: dict[int, _Seat] = {}

    def agent(self, seat: int, spec: str, prefers: str | None = None) -> RemoteAgent:
        """A fresh agent of `spec` for `seat`'s next game, playing in that seat's subprocess (started, or restarted
        when it died).

        Parameters
        ----------
        seat : int
            The seat (0-based).
        spec : str
            The agent's spec.
        prefers : str or None
            The move family a restricted agent is offered whenever one is listed (boardlab.agents.generic.prefers).

        Returns
        -------
        RemoteAgent
            The agent's stand-in in this process.
        """
        proc = self._procs.get(seat)
        if proc is None or not proc.alive():
            proc = self._procs[seat] = _Seat(self.game_id, self.timeout)
        return RemoteAgent(proc, self.game_id, spec, prefers)

    def close(self) -> None:
        """Stop every subprocess."""
        for proc in self._procs.values():
            proc.stop()
        self._procs.clear()

    def __enter__(self) -> AgentProcesses:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RemoteAgent:
    """An agent in a subprocess, for one game: ``act`` sends the observation and the moves, and returns its move.

    The first call sends the agent's generator too (in the state the runner made it), which the subprocess
    keeps for the game; the generator given to later calls is not used.

    Parameters
    ----------
    proc : _Seat
        The seat's subprocess.
    game_id : str
        The game's id (the subprocess builds the agent through its registry).
    spec : str
        The agent's spec.
    prefers : str or None
        The move family the runner restricts the moves to.
    """

    def __init__(self, proc: _Seat, game_id: str, spec: str, prefers: str | None = None):
        self.proc, self.game_id, self.spec, self.started = proc, game_id, spec, False
        self.prefers = prefers  # the runner offers a restricted agent its family's moves

    def act(self, observation, legal_moves, rng):
        """The subprocess's agent's move (the agent is made there at the first call).

        Parameters
        ----------
        observation : boardlab.sim.observation.Observation or None
            What the seat may see.
        legal_moves : list
            The moves offered.
        rng : numpy.random.Generator
            The agent's generator (sent at the first call only).

        Returns
        -------
        object
            The move (AgentFailure when the agent fails, dies or runs out of time).
        """
        if not self.started:
            self.proc.call(("new", self.game_id, self.spec, rng), "to be made")
            self.started = True
        return self.proc.call(("act", observation, legal_moves), "for a move")


class _Seat:
    """One seat's subprocess and its end of the pipe."""

    def __init__(self, game_id: str, timeout: float | None):
        ctx = multiprocessing.get_context("spawn")  # not fork: the child must hold nothing of the runner's games
        self.conn, child = ctx.Pipe()
        self.timeout = timeout
        self.ready = False
        self.process = ctx.Process(target=serve, args=(child, game_id), daemon=True, name="boardlab-agent")
        self.process.start()
        child.close()

    def _wait_ready(self) -> None:
        """Wait, with no time limit, for the subprocess to have imported the game (the toolkit's start-up, not
        the agent's time), as long as it lives."""
        while not self.conn.poll(0.5):
            if not self.process.is_alive():
                raise EOFError
        if self.conn.recv() != ("ready",):
            raise EOFError
        self.ready = True

    def alive(self) -> bool:
        return self.process.is_alive()

    def call(self, message: tuple, waiting: str):
        """Send `message`, return the agent's answer; AgentFailure on its error, a timeout or its death."""
        try:
            if not self.ready:
                self._wait_ready()
            self.conn.send(message)
            if not self.conn.poll(self.timeout):
                self.stop(kill=True)
                raise AgentFailure(
                    f"no answer within {self.timeout:g} s (--move-timeout) {waiting}; its process was stopped",
                    f"The agent's process gave no answer within {self.timeout:g} s {waiting}.",
                )
            reply = self.conn.recv()
        except (EOFError, OSError):
            self.process.join(5)
            code = self.process.exitcode
            raise AgentFailure(
                f"its process ended (exit code {code}) while waiting {waiting}",
                f"The agent's process ended with exit code {code} (os._exit, a crash or a kill) while the runner"
                f" waited {waiting}.",
            ) from None
        if not isinstance(reply, tuple) or len(reply) != 3 or reply[0] not in ("ok", "error"):
            raise AgentFailure(f"its process answered {type(reply).__name__}, not a move", repr(reply)[:2000])
        if reply[0] == "error":
            raise AgentFailure(reply[1], reply[2])
        return reply[1]

    def stop(self, kill: bool = False) -> None:
        """End the subprocess: asked to stop, or (`kill`, or when it does not) killed."""
        if self.process.is_alive() and not kill:
            try:
                self.conn.send(("stop",))
            except (OSError, ValueError):
                pass
            self.process.join(2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(2)
        self.conn.close()


def serve(conn, game_id: str) -> None:
    """The subprocess's loop: it imports the game's agents and says ``("ready",)``; then ``("new", game, spec,
    rng)`` makes the agent, ``("act", observation, moves)`` asks it for a move, ``("stop",)`` ends; every answer
    is ``("ok", value, "")`` or ``("error", line, traceback)``.

    Parameters
    ----------
    conn : multiprocessing.connection.Connection
        The subprocess's end of the pipe.
    game_id : str
        The game whose agents it plays.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle: it stops this process
    from boardlab.sim.games import get_game

    get_game(game_id).agents()
    conn.send(("ready",))
    agent = rng = None
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "stop":
            return
        try:
            if message[0] == "new":
                _, game_id, spec, rng = message
                agent = get_game(game_id).agents().parse_agent(spec).make()
                answer = ("ok", None, "")
            else:
                answer = ("ok", agent.act(message[1], message[2], rng), "")
            conn.send(answer)
        except BaseException as e:  # sys.exit too: it is the agent's failure, told to the runner
            failure = failure_of(e)
            try:
                conn.send(("error", failure.what, failure.details))
            except (OSError, ValueError):
                return
