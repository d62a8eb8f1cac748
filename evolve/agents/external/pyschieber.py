"""pyschieber's Jass players (Murthy10/pyschieber 1.3) as seats: ``ChallengePlayer`` (the
rule-based bot that won the Zühlke Jass Challenge 2017, the Jass paper's "RB" baseline,
its Section 8.3 and footnote 12) and ``GreedyPlayer``.

The adapter keeps one pyschieber player per deal and feeds it the deal as
``pyschieber.game.Game`` would: its nine cards (``set_card``, in our card order), every
card played with the status dictionary ``Game.get_status`` gives at that moment
(``move_made``: ``table`` holds the trick's earlier cards, ``stiche`` the finished tricks),
and, at its turn, ``choose_card(state)``; for the trump call ``choose_trumpf(geschoben)``.
It reads only the seat's observation (its hand, the calls and the cards played), so it is
as honest as our agents. Player ids are our seats (pyschieber plays seat + 1 next and
partners id + 2, as we do); cards map D, H, S, C -> BELL, ROSE, SHIELD, ACORN and rank r
-> value r + 6 (the referee tests' mapping, ``tests/referees/jass_referees.py``).

Rules. pyschieber's legality forbids one card ours allows (its quirk,
``pyschieber/rules/stich_rules.py`` ``does_under_trumpf``): a hand of only trumps must
overtrump when it can, where the standard rule (ours, jass-kit's and Swisslos') lets it
play any trump. Its players choose from pyschieber's allowed cards, a subset of ours, so
every card they play is legal here; in that one position they never undertrump (a
narrower choice than ours, which the adapter leaves as pyschieber has it). Weis and Stöck
play no part (pyschieber scores neither by default and our Jass has neither).

Random choices. ChallengePlayer falls back on ``random.choice`` of Python's global
generator; the adapter lends it a ``random.Random`` seeded from the seat's own stream at
each decision, so a seed fixes its play bit for bit, whatever the workers.
"""

from __future__ import annotations

import random as _random

from evolve.core.errors import UsageError

PLAYERS = ("challenge", "greedy")
_MODULES = {"challenge": ("pyschieber.player.challenge_player.challenge_player", "ChallengePlayer"),
            "greedy": ("pyschieber.player.greedy_player.greedy_player", "GreedyPlayer")}
PUSH = 6


def _load():
    try:
        import importlib

        from pyschieber.card import Card
        from pyschieber.suit import Suit
        from pyschieber.trumpf import Trumpf
    except ImportError:
        raise UsageError("agent 'pyschieber' needs the pyschieber package: pip install pyschieber") from None
    suits = (Suit.BELL, Suit.ROSE, Suit.SHIELD, Suit.ACORN)          # our D, H, S, C
    cards = [Card(suit=suits[c // 9], value=c % 9 + 6) for c in range(36)]
    modes = (Trumpf.BELL, Trumpf.ROSE, Trumpf.SHIELD, Trumpf.ACORN, Trumpf.OBE_ABE, Trumpf.UNDE_UFE)
    classes = {}
    for name, (module, cls) in _MODULES.items():
        mod = importlib.import_module(module)
        classes[name] = (mod, getattr(mod, cls))
    return {"cards": cards, "back": {str(c): i for i, c in enumerate(cards)}, "modes": modes,
            "mode_of": {t: m for m, t in enumerate(modes)} | {Trumpf.SCHIEBEN: PUSH}, "classes": classes}


_PS: dict = {}


def pyschieber_tables() -> dict:
    """The card, mode and player tables of the installed pyschieber (UsageError without it)."""
    if not _PS:
        _PS.update(_load())
    return _PS


class PyschieberSeat:
    """One seat's pyschieber player: ``bid(obs, rngs)`` (its own trump rule) and
    ``play(obs, rngs)`` (its card), ``new_deal()`` between deals; ``quirk_positions``
    counts the decisions where pyschieber's rule allowed fewer cards than ours."""

    def __init__(self, player: str, own_trump: bool = False):
        self.ps = pyschieber_tables()
        self.bids = own_trump             # the trump call is the player's (else the seat's bidder's)
        self.module, self.cls = self.ps["classes"][player]
        self.player_name = player
        self.quirk_positions = 0
        self.decisions = 0
        self.new_deal()

    def new_deal(self) -> None:
        self._player = None
        self._fed: list[tuple[int, int]] = []

    def _rng(self, rngs, seat: int) -> _random.Random:
        from evolve.games.bits import next_u64

        return _random.Random(int(next_u64(rngs, seat)))

    def _fresh(self, seat: int, cards) -> object:
        p = self.cls(name=f"seat{seat}")
        p.id = seat
        for c in sorted(cards):
            p.set_card(self.ps["cards"][c])
        return p

    def bid(self, obs, rngs) -> int:
        """The player's own trump call: a mode 0..5, or 6 (push) when the forehand may."""
        pushed = any(a == PUSH for _, a in obs.calls)
        p = self._fresh(obs.seat, obs.hand)
        mode = self.ps["mode_of"][next(p.choose_trumpf(geschoben=pushed))]
        if mode == PUSH and pushed:
            raise ValueError(f"pyschieber {self.player_name} pushed after a push")
        return mode

    def _status(self, obs, stiche, table) -> dict:
        ps = self.ps
        pushed = any(a == PUSH for _, a in obs.calls)
        return {"stiche": stiche, "trumpf": ps["modes"][obs.trump].name, "geschoben": pushed, "point_limit": 1500,
                "table": [{"player_id": s, "card": str(ps["cards"][c])} for s, c in table],
                "teams": [{"points": 0}, {"points": 0}]}

    def play(self, obs, rngs) -> int:
        """The player's card at ``obs`` (a legal card of ours)."""
        ps = self.ps
        seat = obs.seat
        played = [(int(s), int(c)) for trick in obs.tricks for s, c in trick] + [(int(s), int(c)) for s, c in obs.trick]
        if self._player is None or played[:len(self._fed)] != self._fed:
            mine = [c for s, c in played if s == seat]
            self._player = self._fresh(seat, list(obs.hand) + mine)
            self._fed = []
        p = self._player
        stiche, table = self._history(obs, len(self._fed))
        for k in range(len(self._fed), len(played)):
            s, c = played[k]
            card = ps["cards"][c]
            if s == seat:
                p.cards.remove(card)
            p.move_made(s, card, self._status(obs, stiche, table))
            table.append((s, c))
            if len(table) == 4:
                stiche.append(self._stich(obs, table))
                table = []
            self._fed.append((s, c))
        state = self._status(obs, stiche, table)
        first = obs.tricks[0] if obs.tricks else obs.trick
        # ChallengePlayer sets its role in the first trick; set here the same way, so that a
        # player rebuilt mid-deal has it too (GreedyPlayer ignores it)
        pos = [s for s, _ in first].index(seat) if seat in [s for s, _ in first] else len(first)
        pushed = state["geschoben"]
        p.role = ("Partner" if pushed else "Trumpf") if pos == 0 else \
            ("Trumpf" if pushed else "Partner") if pos == 2 else "Off"
        mod = self.module
        saved = getattr(mod, "random", None)
        if saved is not None:
            mod.random = self._rng(rngs, seat)
        try:
            card = next(p.choose_card(state=state))
        finally:
            if saved is not None:
                mod.random = saved
        legal = obs.legal()
        ours = ps["back"][str(card)]
        self.decisions += 1
        allowed = p.allowed_cards(state)
        if len(allowed) < len(legal):
            self.quirk_positions += 1
        if ours not in legal:
            raise ValueError(f"pyschieber {self.player_name} played {obs.game_obj.info.card_name(ours)}, which is not "
                             "legal here")
        return ours

    def _history(self, obs, upto: int):
        """pyschieber's ``stiche`` and ``table`` after the first ``upto`` cards of the deal."""
        stiche, table, k = [], [], 0
        for trick in list(obs.tricks) + [obs.trick]:
            for s, c in trick:
                if k == upto:
                    return stiche, table
                table.append((int(s), int(c)))
                k += 1
                if len(table) == 4:
                    stiche.append(self._stich(obs, table))
                    table = []
        return stiche, table

    def _stich(self, obs, table) -> dict:
        from pyschieber.rules.stich_rules import stich_rules
        from pyschieber.stich import PlayedCard

        ps = self.ps
        trumpf = ps["modes"][obs.trump]
        winner = stich_rules[trumpf](played_cards=[PlayedCard(player=s, card=ps["cards"][c]) for s, c in table]).player
        return {"player_id": int(winner), "trumpf": trumpf.name,
                "played_cards": [{"player_id": s, "card": str(ps["cards"][c])} for s, c in table]}
