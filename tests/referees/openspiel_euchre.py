"""Referee adapter: replay one Euchre hand in OpenSpiel's ``euchre`` game.

The point of this module is to let the trick-evolve Numba engine be checked
against an independent implementation (OpenSpiel 2.0.2, ``pyspiel``) on many
random deals.  ``replay_euchre(dealer, deck, actions)`` forces the deal with
chance actions, applies the decisions given in our neutral form, checks each of
them against OpenSpiel's legal-action list, and reports what OpenSpiel says.

Source citations below are to google-deepmind/open_spiel,
``open_spiel/games/euchre/euchre.cc`` and ``euchre.h`` (read at commits
0882fe9d9031 and 334b3c13c648; the parts quoted are identical in both, and
every behaviour stated here is also exercised against the installed binary by
``test_openspiel_euchre_adapter.py``).


Encodings
---------
* Seats: our seat ``s`` == OpenSpiel player ``s`` (0=N, 1=E, 2=S, 3=W).  Turn
  order is increasing player id mod 4 everywhere: bidding
  (``ApplyBiddingAction``: ``current_player_ = (current_player_ + 1) % 4``),
  play (``ApplyPlayAction``: ``+1`` mod 4, skipping inactive seats).
  Partnerships are {0,2} and {1,3} (``declarer_partner_ = (declarer_+2)%4``).
  No seat mapping is needed.
* Cards: **different**.  Ours: ``suit*6 + rank``; OpenSpiel (euchre.h):
  ``Card(suit, rank) = rank * kNumSuits + suit``.  Suits (C,D,H,S = 0..3) and
  ranks (9,T,J,Q,K,A = 0..5) have the same meaning in both, so
  ``os = (ours % 6) * 4 + ours // 6`` and ``ours = (os % 4) * 6 + os // 4``
  (see ``to_os_card`` / ``to_our_card``).
* Trump suit: same ids (``state.trump_suit()``; -1 before trump is fixed).
* Actions: 0..23 cards, 24 pass, 25..28 trump = clubs..spades, 29 go alone,
  30 play with partner.  "Order up" in round 1 is the trump action of the
  upcard's suit.

Chance / deal layout (``ApplyDealerSelectionAction``, ``ApplyDealAction``)
----------------------------------------------------------------------------
Chance action 0 is the dealer (0..3).  Then 20 chance actions deal cards: the
i-th dealt card (i = 0..19) goes to player ``(dealer + i) % 4`` -- i.e. the
*dealer* receives the first card, not the forehand.  The 21st dealt card is the
upcard, and bidding starts with ``(dealer + 1) % 4``.  The other 3 cards (the
kitty) are never dealt.  The adapter therefore deals, for i = 0..19, card
``deck[5*s + i // 4]`` with ``s = (dealer + i) % 4``, then ``deck[20]``;
``deck[21:24]`` is ignored.

Phase order (``Phase`` enum and the Apply* functions) -- same as our form
---------------------------------------------------------------------------
1. Bidding round 1: from the forehand, each seat passes or orders up (only the
   upcard's suit is legal).  Round 2 (after 4 passes): each seat passes or
   names one of the 3 other suits.  The first non-pass ends bidding; the bidder
   is the declarer.
2. Discard -- only if trump was fixed in round 1: the upcard is put into the
   dealer's hand (``holder_[upcard_] = dealer_``) and the dealer discards.
   **Quirk:** ``DiscardLegalActions`` excludes the upcard, so the dealer picks
   one of its 5 *original* cards; it may not discard the upcard itself.
   This happens **before** the go-alone decision, so when the dealer's partner
   orders up and then goes alone, the dealer still picks up and discards and
   then sits out (the upcard is dead).
3. Go alone: the declarer chooses ``Alone``/``Partner``.  If (and only if)
   ``allow_lone_defender=True``, the defenders are then asked in turn, the
   first from ``(dealer+1)%4`` onward skipping the makers; the first defender
   to go alone ends the phase and sits their partner out, otherwise after both
   say ``Partner`` play starts.  Our neutral form for those is
   ``("defend_alone", bool)`` (optional extension; our engine does not need it).
4. Play: 5 tricks, 4 cards each, or 3 when one player sits out (2 if both a
   lone declarer and a lone defender).  The first lead is the forehand
   ``(dealer+1)%4``; if the forehand sits out (partner of a lone player), the
   lead passes to the next active seat clockwise, i.e. ``(dealer+2)%4``.  Each
   later trick is led by the previous trick's winner.  Follow-suit rules treat
   the left bower as trump (``PlayLegalActions``).

No-trump hand: with ``stick_the_dealer=True`` (the default) the dealer may not
pass in round 2 (pass is removed from the legal actions when
``num_passes_ == 7``).  With ``stick_the_dealer=False``, after 8 passes the
state is terminal right away (``phase_ = kGameOver``), no trick is played and
``returns()`` is ``[0, 0, 0, 0]`` (``points_`` is initialised to zeros and
``ComputeScore`` is never called).  The adapter then reports trump = declarer
= None, alone = False, no tricks.

Scoring (``EuchreState::ComputeScore``)
---------------------------------------
``makers`` = declarer + declarer's partner; ``m`` = tricks they won::

    m in 0..2 : makers_score = -4 if a defender went alone
                                     (lone_defender_ >= 0, only possible with
                                      allow_lone_defender=True)
                               else -2
    m in 3..4 : makers_score = +1            (alone or not)
    m == 5    : makers_score = +4 if the declarer went alone, else +2

    returns[p] = +makers_score for p in {declarer, partner}
                 -makers_score for the two defenders

So every hand is scored on its own (no match to 10); each player gets their
team's score, including a player who sat out; the four returns sum to 0; the
range is [-4, 4] (``kMinScore``/``kMaxScore``).

Scoring quirks vs. common North-American rules:
* **No "super-euchre":** euchre.h's header comment says the makers lose 4 if
  they take no trick, but the code gives -2 for 0, 1 or 2 tricks alike.
* A euchred lone *declarer* loses just 2 (m <= 2 ignores
  ``declarer_go_alone_``): this is the sense in which OpenSpiel "scores -2, not
  -4" when someone plays alone -- only a *lone defender* doubles the euchre,
  and that needs ``allow_lone_defender=True`` (default False, in which case no
  defender can ever go alone and a euchre is always 2 points).  A lone defender
  changes nothing when the makers take 3+ tricks (+1, +2, or +4 for a lone
  march).
* 3-4 tricks by a lone declarer score just 1 (standard).

Trick results: ``state.tricks()`` returns 5 ``Trick`` objects with
``leader()``, ``cards()`` (OpenSpiel card ids, in play order), ``winner()``
and ``winning_card()``; tricks not yet played have leader/winner -3.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Sequence, Tuple

import pyspiel

NUM_SEATS = 4
NUM_CARDS = 24

from evolve.interop.openspiel import EUCHRE_ALONE as GO_ALONE  # noqa: E402
from evolve.interop.openspiel import EUCHRE_PARTNER as WITH_PARTNER  # noqa: E402
from evolve.interop.openspiel import EUCHRE_PASS as PASS  # noqa: E402
from evolve.interop.openspiel import EUCHRE_TRUMP_BASE as TRUMP_BASE  # noqa: E402  (25..28 = clubs..spades)

_EU = pyspiel.euchre
_PH_BIDDING = _EU.Phase.BIDDING
_PH_DISCARD = _EU.Phase.DISCARD
_PH_GO_ALONE = _EU.Phase.GO_ALONE
_PH_PLAY = _EU.Phase.PLAY

SUIT_CHARS = "CDHS"
RANK_CHARS = "9TJQKA"


class RefereeIllegalAction(ValueError):
    """A neutral action is not legal (or not of the expected kind) in OpenSpiel."""


# the card mapping of the bots (evolve.interop.openspiel), checked here against OpenSpiel
from evolve.interop.openspiel import to_os_card, to_our_card  # noqa: E402


def card_name(card: int) -> str:
    """Our card id -> e.g. 'HJ' (suit char then rank char, OpenSpiel style)."""
    return SUIT_CHARS[card // 6] + RANK_CHARS[card % 6]


@functools.lru_cache(maxsize=None)
def load_game(stick_the_dealer: bool = True, allow_lone_defender: bool = False):
    return pyspiel.load_game(
        "euchre",
        {"stick_the_dealer": bool(stick_the_dealer),
         "allow_lone_defender": bool(allow_lone_defender)},
    )


def deal_state(dealer: int, deck: Sequence[int], *, stick_the_dealer: bool = True,
               allow_lone_defender: bool = False):
    """New OpenSpiel state with the deal forced: seat s holds deck[5s:5s+5],
    upcard deck[20].  Returns the state at the first bidding decision."""
    dealer = int(dealer)
    deck = [int(c) for c in deck]
    if not 0 <= dealer < NUM_SEATS:
        raise ValueError(f"dealer must be 0..3, got {dealer}")
    if sorted(deck) != list(range(NUM_CARDS)):
        raise ValueError(f"deck must be a permutation of 0..23, got {deck}")
    state = load_game(stick_the_dealer, allow_lone_defender).new_initial_state()
    state.apply_action(dealer)
    for i in range(20):
        seat = (dealer + i) % NUM_SEATS
        state.apply_action(to_os_card(deck[5 * seat + i // NUM_SEATS]))
    state.apply_action(to_os_card(deck[20]))
    return state


def _neutral_of(state, os_action: int) -> Tuple:
    """OpenSpiel action at the current (player) node -> neutral tuple."""
    phase = state.current_phase()
    if phase == _PH_BIDDING:
        if os_action == PASS:
            return ("pass",)
        if state.num_passes() < NUM_SEATS:
            return ("order",)
        return ("call", os_action - TRUMP_BASE)
    if phase == _PH_DISCARD:
        return ("discard", to_our_card(os_action))
    if phase == _PH_GO_ALONE:
        kind = "alone" if state.declarer_go_alone() is None else "defend_alone"
        return (kind, os_action == GO_ALONE)
    if phase == _PH_PLAY:
        return ("play", to_our_card(os_action))
    raise RefereeIllegalAction(f"no player decision in phase {phase}")


def _os_of(state, action: Sequence[Any], step: int) -> int:
    """Neutral tuple -> OpenSpiel action id, checking the kind fits the phase."""
    phase = state.current_phase()
    kind = action[0]
    if phase == _PH_BIDDING:
        if kind == "pass":
            return PASS
        if kind == "order":
            if state.num_passes() >= NUM_SEATS:
                raise RefereeIllegalAction(
                    f"step {step}: 'order' in bidding round 2 (use 'call')")
            return TRUMP_BASE + state.upcard() % 4
        if kind == "call":
            if state.num_passes() < NUM_SEATS:
                raise RefereeIllegalAction(
                    f"step {step}: 'call' in bidding round 1 (use 'order')")
            return TRUMP_BASE + int(action[1])
    elif phase == _PH_DISCARD and kind == "discard":
        return to_os_card(action[1])
    elif phase == _PH_GO_ALONE:
        expected = "alone" if state.declarer_go_alone() is None else "defend_alone"
        if kind == expected:
            return GO_ALONE if bool(action[1]) else WITH_PARTNER
    elif phase == _PH_PLAY and kind == "play":
        return to_os_card(action[1])
    raise RefereeIllegalAction(
        f"step {step}: action {tuple(action)!r} does not fit OpenSpiel phase {phase}")


def _sort_key(t: Tuple):
    return (t[0],) + tuple(int(x) for x in t[1:])


def replay_euchre(dealer: int, deck: Sequence[int], actions: Sequence[Sequence[Any]],
                  *, stick_the_dealer: bool = True, allow_lone_defender: bool = False,
                  require_terminal: bool = True) -> Dict[str, Any]:
    """Replay one hand in OpenSpiel and report its results.

    dealer:  seat 0..3.
    deck:    permutation of 0..23 (our ids); seat s holds deck[5s:5s+5],
             deck[20] is the upcard, deck[21:24] (kitty) is ignored.
    actions: neutral decisions in the order they happen:
               ("pass",) | ("order",)          bidding round 1, from the forehand
               ("pass",) | ("call", suit)      bidding round 2
               ("discard", card)               dealer, only if ordered up in round 1
               ("alone", bool)                 declarer
               ("defend_alone", bool)          defenders, only if allow_lone_defender
               ("play", card)                  15 or 20 of them (10 if lone vs lone)
    Every action is checked against ``state.legal_actions()``; an illegal or
    misplaced one raises ``RefereeIllegalAction`` (message gives the step, the
    actor and the legal set).  With ``require_terminal`` (default) the hand
    must be over after the last action.

    Returns a dict:
      trick_winners   list of seats, one per completed trick (from state.tricks())
      trick_leaders   list of seats, one per completed trick
      trick_cards     list of lists of our card ids in play order, per trick
      tricks_per_seat [4] ints
      returns         [4] floats, state.returns() (zeros if not terminal)
      trump           our suit id, or None if nobody named trump
      declarer        seat or None
      alone           bool, declarer went alone
      lone_defender   seat or None
      legal           per ("play", c) action: sorted legal cards (our ids)
      legal_by_step   per action: sorted list of legal neutral tuples
      actors          per action: the seat that took it
      terminal        bool
      discard         our card id or None
    """
    state = deal_state(dealer, deck, stick_the_dealer=stick_the_dealer,
                       allow_lone_defender=allow_lone_defender)
    legal_plays: List[List[int]] = []
    legal_by_step: List[List[Tuple]] = []
    actors: List[int] = []
    for step, action in enumerate(actions):
        if state.is_terminal():
            raise RefereeIllegalAction(
                f"step {step}: action {tuple(action)!r} after the hand ended")
        player = state.current_player()
        os_legal = state.legal_actions()
        neutral_legal = sorted((_neutral_of(state, a) for a in os_legal), key=_sort_key)
        os_action = _os_of(state, action, step)
        if os_action not in os_legal:
            raise RefereeIllegalAction(
                f"step {step}: seat {player} action {tuple(action)!r} is illegal in "
                f"phase {state.current_phase()}; legal: {neutral_legal}")
        if action[0] == "play":
            legal_plays.append([t[1] for t in neutral_legal])
        legal_by_step.append(neutral_legal)
        actors.append(player)
        state.apply_action(os_action)

    terminal = state.is_terminal()
    if require_terminal and not terminal:
        raise RefereeIllegalAction(
            f"hand not finished after {len(actions)} actions; seat "
            f"{state.current_player()} to act in phase {state.current_phase()}")

    n_active = sum(1 for a in state.active_players() if a)
    n_complete = state.num_cards_played() // n_active
    trick_winners, trick_leaders, trick_cards = [], [], []
    for t in state.tricks()[:n_complete]:
        trick_winners.append(t.winner())
        trick_leaders.append(t.leader())
        trick_cards.append([to_our_card(c) for c in t.cards()])
    tricks_per_seat = [0] * NUM_SEATS
    for w in trick_winners:
        tricks_per_seat[w] += 1

    trump = state.trump_suit()
    declarer = state.declarer()
    lone_def = state.lone_defender()
    discard = state.discard()
    return {
        "trick_winners": trick_winners,
        "trick_leaders": trick_leaders,
        "trick_cards": trick_cards,
        "tricks_per_seat": tricks_per_seat,
        "returns": [float(r) for r in state.returns()],
        "trump": trump if trump >= 0 else None,
        "declarer": declarer if declarer >= 0 else None,
        "alone": bool(state.declarer_go_alone()),
        "lone_defender": lone_def if lone_def >= 0 else None,
        "legal": legal_plays,
        "legal_by_step": legal_by_step,
        "actors": actors,
        "terminal": terminal,
        "discard": to_our_card(discard) if discard >= 0 else None,
    }


def openspiel_score(makers_tricks: int, declarer_alone: bool,
                    lone_defender: bool = False) -> int:
    """The makers' score per EuchreState::ComputeScore (defenders get minus it)."""
    if makers_tricks <= 2:
        return -4 if lone_defender else -2
    if makers_tricks <= 4:
        return 1
    return 4 if declarer_alone else 2
