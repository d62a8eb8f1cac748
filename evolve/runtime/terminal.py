"""The terminal drawing of a table: what happens at it (calls, tricks, finished deals) and
what a seat sees, as plain lines of text, and the question a human seat answers.
``python -m evolve.human`` plays with it; ``evolve.env``'s environments render with it."""

from __future__ import annotations

import sys
from typing import Sequence, TextIO

from evolve.core.errors import UsageError
from evolve.games.stepper import trick_pairs
from evolve.runtime.session import BotError, Table

DECISION_TEXT = {"card": "Your card", "discard": "Discard a card", "bid": "Your bid", "order": "Order up or pass",
                 "call": "Name trump or pass", "alone": "Go alone?", "trump": "Choose trump"}
# how the log line of a private decision reads ("you: passes QS", "seat 2: discards a card (face down)")
PRIVATE_VERBS = {"discard": "discards", "pass": "passes"}


class Terminal:
    """Prints what happens at the table for the human seats and asks them for decisions."""

    def __init__(self, table: Table, out: TextIO = sys.stdout, inp: TextIO = sys.stdin,
                 me: Sequence[int] | None = None):
        """``me``: the seats shown as "you" (by default the human seats; ``()`` for an
        onlooker, who sees every seat by its number and seat string)."""
        self.t, self.out, self.inp = table, out, inp
        self.seen_actions = 0
        self.seen_tricks = 0
        self.seen_results = 0
        self.me = [s for s, p in enumerate(table.players) if p.human] if me is None else [int(s) for s in me]

    def say(self, text: str = "") -> None:
        """Print one line."""
        print(text, file=self.out, flush=True)

    def who(self, seat: int) -> str:
        """"you" for the seats in ``me``, else "seat N (its seat string)"."""
        return "you" if seat in self.me else f"seat {seat} ({self.t.players[seat].seat_string})"

    def card(self, c: int) -> str:
        """The name of card ``c`` ("QS")."""
        return self.t.info.card_name(c)

    def sides(self, values) -> str:
        """Figures per side (per seat in cut-throat games) as text."""
        if len(values) == 2:
            return f"seats 0+2: {values[0]}, seats 1+3: {values[1]}"
        return ", ".join(f"seat {s}: {v}" for s, v in enumerate(values))

    def news(self) -> None:
        """Print the calls, finished tricks and finished deals since the last call, deal by deal."""
        t = self.t
        new = t.actions[self.seen_actions:]
        self.seen_actions = len(t.actions)
        done = {r["deal"]: r for r in t.results[self.seen_results:]}
        self.seen_results = len(t.results)
        for d in sorted({a["deal"] for a in new} | set(done) | {t.deal_index}):
            for a in new:
                if a["deal"] == d and a["decision"] != "card":
                    self.say(f"  {self.who(a['seat'])}: {self.call_text(a)}")
            if d in done:
                self.print_result(done[d])
                self.seen_tricks = 0
            elif d == t.deal_index and t.state is not None:
                tricks = t.view(self.me[0] if self.me else 0)["tricks"]      # the tricks are public
                for k, trick in enumerate(tricks[self.seen_tricks:], start=self.seen_tricks + 1):
                    plays = ", ".join(f"{self.who(s)} {self.card(c)}" for s, c in trick)
                    self.say(f"  trick {k}: {plays} -> won by {self.who(t.state.trick_winners[k - 1])}")
                self.seen_tricks = len(tricks)

    def call_text(self, a: dict) -> str:
        """A call as the seats at the table see it (another seat's discard stays face down)."""
        if a["decision"] in self.t.game.protocol.private_decisions:
            verb = PRIVATE_VERBS.get(a["decision"], a["decision"])
            return f"{verb} {a['name']}" if a["seat"] in self.me else f"{verb} a card (face down)"
        if a["decision"] == "alone":
            return "goes alone" if a["name"] == "alone" else "plays with the partner"
        return a["name"]

    def print_result(self, r: dict) -> None:
        """Print a finished deal: its tricks not shown yet, trump and the scores."""
        info = self.t.info
        for k, tr in enumerate(r["tricks_per_trick"][self.seen_tricks:], start=self.seen_tricks + 1):
            out = (r["maker"] + 2) % 4 if r["alone"] else -1
            plays = ", ".join(f"{self.who(s)} {self.card(c)}" for s, c in trick_pairs(tr["leader"], tr["cards"], out))
            self.say(f"  trick {k}: {plays} -> won by {self.who(tr['winner'])}")
        trump = info.mode_names[r["trump"]] if r["trump"] >= 0 else "none (passed out)"
        self.say(f"Deal {r['deal'] + 1} over (trump {trump}). Score: {self.sides(r['score'])}. "
                 f"Game: {self.sides(r['game_score'])}" + (f" -- game won by side {r['game_winner']}"
                                                            if r["game_winner"] >= 0 else ""))
        self.say()

    def show(self, seat: int) -> None:
        """Print what ``seat`` sees: the deal's header, the figures, the trick and its hand."""
        t = self.t
        v = t.view(seat)
        info = t.info
        head = [f"Deal {t.deal_index + 1}, dealer {self.who(t.dealer)}"]
        if v["trump"] >= 0:
            head.append(f"trump {info.mode_names[v['trump']]}")
        if v["upcard"] >= 0:
            head.append(f"{t.protocol.upcard_name} {self.card(v['upcard'])}")
        if v["maker"] >= 0:
            head.append(f"maker {self.who(v['maker'])}" + (" (alone)" if v["out_seat"] >= 0 else ""))
        self.say(" | ".join(head))
        self.say(f"{t.protocol.counts.capitalize()} this deal: {self.sides(v['score'])} | game: "
                 f"{self.sides(v['game_score'])}")
        if v["trick"]:
            self.say("Trick: " + ", ".join(f"{self.who(s)} {self.card(c)}" for s, c in v["trick"]))
        self.say(f"Your hand (seat {seat}): " + " ".join(self.card(c) for c in v["hand"]))

    def decision_text(self, decision: str) -> str:
        """The prompt of ``decision``: ``DECISION_TEXT``, or "<Decision> a card" for a card
        decision of the game's own (the Hearts pass)."""
        if decision in DECISION_TEXT:
            return DECISION_TEXT[decision]
        if decision in self.t.game.protocol.card_decisions:
            return f"{decision.capitalize()} a card"
        return decision

    def ask(self, seat: int) -> int:
        """Ask ``seat`` for its decision until the answer is one of the legal ones."""
        obs = self.t.observation(seat)
        legal = obs.legal()
        names = [obs.action_name(a) for a in legal]
        self.show(seat)
        self.say("  " + "  ".join(f"{k}) {n}" for k, n in enumerate(names, start=1)))
        prompt = f"{self.decision_text(obs.decision)} [1-{len(legal)}]: "
        while True:
            self.out.write(prompt)
            self.out.flush()
            line = self.inp.readline()
            if not line:
                raise EOFError
            text = line.strip()
            if text.isdigit() and 1 <= int(text) <= len(legal):
                return legal[int(text) - 1]
            lowered = [n.lower() for n in names]
            if text.lower() in lowered:
                return legal[lowered.index(text.lower())]
            self.say(f"  '{text}' is not a choice: type a number 1..{len(legal)} or a name ({', '.join(names)})")

    def play(self) -> None:
        """Play the table to its end, asking the human seats for their decisions."""
        t = self.t
        self.say(f"{t.game.name} ({', '.join(f'{k}={v}' for k, v in t.game.options.items())}), seed {t.seed}; "
                 f"seats: " + ", ".join(f"{s} {'you' if p.human else p.seat_string}" for s, p in enumerate(t.players)))
        while True:
            try:
                t.advance()
            except BotError as e:
                raise UsageError(str(e)) from None
            self.news()
            if t.over:
                self.say("The table is over." + (f" Side {t.winner} won the game." if t.winner >= 0 else ""))
                return
            seat = t.to_act
            action = self.ask(seat)
            t.act(seat, action)
            self.news()
