"""python -m evolve.human driven through a pty: card names, numbered choices, bad keys
re-asked, a whole deal to the end, EOF and Ctrl-C leave cleanly."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _terminal_child() -> None:
    """In the child before exec: take the pty as controlling terminal, and SIGINT back to
    its default as in a shell's foreground job. A test run started in the background by a
    non-interactive shell inherits SIGINT ignored, and Python then installs no
    KeyboardInterrupt handler, so Ctrl-C would be lost."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Pty:
    """A child process on a pseudo-terminal: read until a text appears, type lines."""

    def __init__(self, args):
        self.master, slave = pty.openpty()
        env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
        # the pty becomes the child's controlling terminal, so Ctrl-C there is a SIGINT
        self.proc = subprocess.Popen([sys.executable, "-m", "evolve.human", *args], stdin=slave, stdout=slave,
                                     stderr=slave, cwd=ROOT, env=env, close_fds=True, start_new_session=True,
                                     preexec_fn=_terminal_child)
        os.close(slave)
        self.text = ""

    def expect(self, needle: str, timeout: float = 120) -> str:
        end = time.time() + timeout
        while needle not in self.text:
            left = end - time.time()
            if left <= 0 or self.proc.poll() is not None and not select.select([self.master], [], [], 0)[0]:
                raise AssertionError(f"{needle!r} did not appear; got:\n{self.text[-2000:]}")
            if select.select([self.master], [], [], min(left, 1))[0]:
                try:
                    self.text += os.read(self.master, 4096).decode(errors="replace")
                except OSError:      # the child closed the terminal
                    pass
        return self.text

    def send(self, data: str) -> None:
        os.write(self.master, data.encode())

    def close(self) -> int:
        code = self.proc.wait(timeout=120)   # a cold Numba cache on a loaded machine
        try:
            while select.select([self.master], [], [], 0.2)[0]:
                self.text += os.read(self.master, 4096).decode(errors="replace")
        except OSError:
            pass
        os.close(self.master)
        return code


def test_a_whole_jass_deal_in_the_terminal(tmp_path):
    log = tmp_path / "log.json"
    p = Pty(["--game", "jass", "--seats", "me,jass_rule_based,random:bidder=simple,jass_rule_based",
             "--seed", "3", "--dealer", "3", "--deals", "1", "--log", str(log)])
    p.expect("Choose trump [1-7]: ")
    assert "Your hand (seat 0): " in p.text and "7) push" in p.text and "5) obe-abe" in p.text
    p.send("x\n")
    p.expect("'x' is not a choice")
    p.send("8\n")
    p.expect("'8' is not a choice")
    p.send("push\n")                   # a name works too: the partner declares
    p.expect("Your card [1-")
    cards = 0
    while "The table is over." not in p.text:
        p.send("1\n")
        cards += 1
        p.expect("Your card [1-" if cards < 9 else "The table is over.")
    assert p.close() == 0
    assert "trick 9:" in p.text and "Deal 1 over" in p.text and "Traceback" not in p.text
    d = json.loads(log.read_text())
    assert d["over"] and sum(d["results"][0]["points"]) == 157
    assert [a["action"] for a in d["actions"] if a["seat"] == 0][0] == 6
    assert f"seats 0+2: {d['game_score'][0]}, seats 1+3: {d['game_score'][1]}" in p.text


@pytest.mark.parametrize("key,code,message", [("\x04", 0, "bye"), ("\x03", 130, "interrupted")])
def test_eof_and_ctrl_c_leave_cleanly(key, code, message):
    p = Pty(["--game", "euchre", "--seats", "me,random,random,random", "--dealer", "3"])
    p.expect("Order up or pass [1-2]: ")
    p.send(key)
    assert p.close() == code
    assert message in p.text and "Traceback" not in p.text


@pytest.mark.parametrize("args,message", [
    (["--game", "poker", "--seats", "me,random,random,random"], "unknown game"),
    (["--game", "jass", "--seats", "random,random,random,random"], "no 'me'"),
    (["--game", "jass", "--seats", "me,random"], "needs 4 seats"),
    (["--game", "jass", "--seats", "me,nobody,random,random"], "unknown agent"),
    (["--game", "jass", "--seats", "me,random,random,random", "--option", "target=x"], "target"),
])
def test_bad_arguments_are_one_line(args, message):
    p = subprocess.run([sys.executable, "-m", "evolve.human", *args], capture_output=True, text=True, cwd=ROOT,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and message in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
