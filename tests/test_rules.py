"""Crafted rule edge cases with explicit hands, via ``TrickState`` (one card at a time) and
via ``evolve.play(hands=... / decks=...)``; plus option validation.

Cards are written by name and encoded here from the game docstrings (independently of
``GameInfo.card_id``): id = suit index * number of faces + face index.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import evolve
from evolve.core.errors import UsageError
from evolve.games.registry import GAMES, make_game
from evolve.games.stepper import TrickState

FACES = {
    "spades": "2 3 4 5 6 7 8 9 10 J Q K A".split(),
    "euchre": "9 10 J Q K A".split(),
    "sueca": "2 3 4 5 6 7 J Q K A".split(),
    "jass": "6 7 8 9 10 J Q K A".split(),
}
SUITS = {"spades": "CDHS", "euchre": "CDHS", "sueca": "CDHS", "jass": "DHSC"}


def cid(game, name):
    """'AS' / '10H' -> card id of ``game``."""
    face, suit = name[:-1], name[-1]
    return SUITS[game].index(suit) * len(FACES[game]) + FACES[game].index(face)


def cards(game, names):
    return [cid(game, n) for n in names.split()]


def state(game, hands, mode, leader=0, out_seat=-1, **options):
    """TrickState from hands written as strings of card names."""
    return TrickState(make_game(game, **options), [cards(game, h) for h in hands], mode=mode,
                      leader=leader, out_seat=out_seat)


def legal_names(game, s):
    inv = {cid(game, f + su): f + su for su in SUITS[game] for f in FACES[game]}
    return sorted(inv[c] for c in s.legal())


def play_names(game, s, names):
    for n in names.split():
        s.play(cid(game, n))


def one_trick_winner(game, mode, trick, leader=0, **options):
    """Seat winning a single trick whose four cards (names, in play order from ``leader``)
    are each the only card of its seat's hand (so every card is legal)."""
    hands = [""] * 4
    for q, n in enumerate(trick):
        hands[(leader + q) % 4] = n
    s = state(game, hands, mode, leader, **options)
    play_names(game, s, " ".join(trick))
    return s.trick_winners[0]


# ======================================================================================
# Spades
# ======================================================================================
SP_SPADES = 0  # Spades has a single trump mode, 0 (spades trump)


def test_spades_cannot_lead_spades_until_broken():
    s = state("spades", ["2S AS 3H", "4H", "5H", "6H"], SP_SPADES, 0, break_spades=True)
    assert legal_names("spades", s) == ["3H"], "spades may not be led before they are broken"
    s = state("spades", ["2S AS 3H", "4H", "5H", "6H"], SP_SPADES, 0)
    assert legal_names("spades", s) == ["2S", "3H", "AS"], "default: spades may be led at once"


def test_spades_only_spades_may_be_led_unbroken_and_must_be_followed():
    s = state("spades", ["2S AS", "4S 4H", "5H", "6H"], SP_SPADES, 0, break_spades=True)
    assert legal_names("spades", s) == ["2S", "AS"], "a hand of nothing but spades may lead one"
    s.play(cid("spades", "2S"))
    assert legal_names("spades", s) == ["4S"], "a led spade must be followed"


def test_spades_broken_by_a_discard_when_void():
    # seat 0 leads 3H; seat 1 is void in hearts and trumps with 2S: spades are broken
    s = state("spades", ["3H 4C", "2S 5S 9C", "4H 7C", "5H 8C"], SP_SPADES, 0, break_spades=True)
    assert legal_names("spades", s) == ["3H", "4C"]
    s.play(cid("spades", "3H"))
    assert legal_names("spades", s) == ["2S", "5S", "9C"], "void in hearts: anything"
    play_names("spades", s, "2S 4H 5H")
    assert s.trick_winners == [1], "the only spade (trump) wins the trick"
    assert s.to_move == 1
    assert legal_names("spades", s) == ["5S", "9C"], "after the discard of a spade, spades may be led"


def test_spades_not_broken_by_a_non_spade_discard():
    s = state("spades", ["3H 4C", "2S 5C 9C", "4H 7C", "5H 8C"], SP_SPADES, 0, break_spades=True)
    play_names("spades", s, "3H 5C 4H 5H")
    assert s.trick_winners == [3]
    s2 = state("spades", ["3H", "2S 5C", "4H", "5H 8C 7S"], SP_SPADES, 0, break_spades=True)
    play_names("spades", s2, "3H 5C 4H 5H")
    assert legal_names("spades", s2) == ["8C"], "still unbroken: no spade lead while holding a club"


def test_spades_break_rule_through_play():
    """The forehand (dealer 0 -> seat 1) holds twelve spades and one heart: with
    break_spades it must lead the heart, in every deal."""
    spades_ = [cid("spades", f + "S") for f in FACES["spades"]]
    clubs = [cid("spades", f + "C") for f in FACES["spades"]]
    diamonds = [cid("spades", f + "D") for f in FACES["spades"]]
    hearts = [cid("spades", f + "H") for f in FACES["spades"]]
    hands = [clubs, spades_[:12] + [hearts[0]], diamonds, hearts[1:] + [spades_[12]]]
    deck = np.array(hands).ravel()
    r = evolve.play("spades", "random", None, seed=5, decks=np.tile(deck, (30, 1)), dealer=[0] * 30,
                    record=True, break_spades=True)
    assert (r.plays[:, 0] == hearts[0]).all(), "the only non-spade must be led while spades are unbroken"
    r = evolve.play("spades", "random", None, seed=5, decks=np.tile(deck, (30, 1)), dealer=[0] * 30, record=True)
    assert (r.plays[:, 0] != hearts[0]).any(), "without break_spades a spade may be led"


def test_spades_trick_resolution():
    m = SP_SPADES
    assert one_trick_winner("spades", m, ["2H", "AH", "KH", "3H"]) == 1
    assert one_trick_winner("spades", m, ["2H", "AH", "2S", "3C"]) == 2, "the only spade wins"
    assert one_trick_winner("spades", m, ["2H", "AC", "AD", "3H"]) == 3, "off-suit aces never win"
    for lo, hi in itertools.combinations(FACES["spades"], 2):
        assert one_trick_winner("spades", m, [lo + "S", hi + "S", "2H", "3H"]) == 1
        assert one_trick_winner("spades", m, [lo + "D", hi + "D", "2H", "3H"]) == 1


# ======================================================================================
# Euchre
# ======================================================================================
EU_C, EU_D, EU_H, EU_S = range(4)
LEFT_OF = {"C": "S", "S": "C", "D": "H", "H": "D"}


def test_euchre_left_bower_follows_trump_not_its_printed_suit():
    # hearts trump: J-diamonds is the left bower, a heart
    s = state("euchre", ["9H", "JD 9D", "", ""], EU_H, 0)
    s.play(cid("euchre", "9H"))
    assert legal_names("euchre", s) == ["JD"], "the left bower must follow a trump lead"
    s = state("euchre", ["9D", "JD 9C", "", ""], EU_H, 0)
    s.play(cid("euchre", "9D"))
    assert legal_names("euchre", s) == ["9C", "JD"], "the left bower is not a diamond: void, play anything"
    s = state("euchre", ["9D", "JD 10D", "", ""], EU_H, 0)
    s.play(cid("euchre", "9D"))
    assert legal_names("euchre", s) == ["10D"], "holding a real diamond: must follow with it, not the left bower"
    s = state("euchre", ["JD", "AD AH", "", ""], EU_H, 0)
    s.play(cid("euchre", "JD"))
    assert legal_names("euchre", s) == ["AH"], "a led left bower is a trump lead"


@pytest.mark.parametrize("trump", "CDHS")
def test_euchre_trump_order_right_left_ace(trump):
    left = "J" + LEFT_OF[trump]
    order = ["J" + trump, left] + [f + trump for f in "A K Q 10 9".split()]  # high to low
    plain = [su for su in "CDHS" if su not in (trump, LEFT_OF[trump])][0]
    mode = "CDHS".index(trump)
    for hi, lo in itertools.combinations(order, 2):
        assert one_trick_winner("euchre", mode, [lo, hi, "9" + plain, "10" + plain]) == 1, (hi, lo)
        assert one_trick_winner("euchre", mode, [hi, lo, "9" + plain, "10" + plain]) == 0, (hi, lo)
    # plain suits: A K Q J 10 9 (the same-colour suit has lost its jack)
    for su in "CDHS":
        if su == trump:
            continue
        faces = [f for f in "A K Q J 10 9".split() if not (f == "J" and su == LEFT_OF[trump])]
        for hi, lo in itertools.combinations(faces, 2):
            other = [x for x in "CDHS" if x not in (su, trump, LEFT_OF[trump])][0]
            w = one_trick_winner("euchre", mode, [lo + su, "9" + other, hi + su, "10" + other])
            assert w == 2, (hi, lo, su)
    # the lowest trump beats a plain ace
    assert one_trick_winner("euchre", mode, ["A" + plain, "9" + trump, "K" + plain, "Q" + plain]) == 1


def test_euchre_lone_maker_partner_sits_out_and_forehand_skip():
    # dealer 0, forehand 1; maker 3 goes alone, so seat 1 sits out and seat 2 leads
    s = TrickState(make_game("euchre"), [cards("euchre", h) for h in ["9C 10C", "AC KC", "JC QC", "AH KH"]],
                   mode=EU_H, leader=1, out_seat=1, dealer=0)
    assert s.to_move == 2, "the forehand sits out: the next seat leads"
    play_names("euchre", s, "JC AH 9C")
    assert s.trick_winners == [3] and s.to_move == 3
    assert s.hand(1) == cards("euchre", "KC AC"), "the sitting-out partner plays no card"
    play_names("euchre", s, "KH 10C QC")
    assert s.trick_winners == [3, 3] and s.tricks_won == [0, 0, 0, 2]


def _check_alone(r, expect_forehand_out):
    assert (r.trump >= 0).all() and (r.alone == 1).all()
    for i in range(r.n_deals):
        out = (int(r.maker[i]) + 2) % 4
        fh = (int(r.dealer[i]) + 1) % 4
        if expect_forehand_out is not None:
            assert (fh == out) == expect_forehand_out
        plays = r.plays[i]
        assert (plays[15:] == -1).all() and (plays[:15] >= 0).all(), "three cards per trick"
        assert not np.isin(r.hands[i, out], plays).any(), "the partner's cards are never played"
        assert r.tricks[i, out] == 0
        expect = (fh + 1) % 4 if fh == out else fh
        assert int(r.first_leader[i]) == expect and int(r.leaders[i, 0]) == expect, "lead (forehand-skip rule)"


def test_euchre_alone_through_play():
    """Makers always go alone (alone threshold 0): the partner sits out and plays nothing."""
    r = evolve.play("euchre", "random:bidder=simple,alone=0,order=0", 100, seed=3, record=True,
                    stick_the_dealer=True)
    _check_alone(r, expect_forehand_out=None)
    # dealer 0: seats 1 and 2 pass, seat 3 orders up alone, so the forehand (seat 1) sits
    # out and seat 2 leads
    never = "random:bidder=simple,order=999,call=999"
    seats = [never, never, never, "random:bidder=simple,order=0,alone=0"]
    r = evolve.play("euchre", seats, 100, seed=3, record=True, dealer=[0] * 100)
    made = np.nonzero(r.maker == 3)[0]
    assert len(made) > 50 and (r.trump[r.maker != 3] == -1).all()
    assert (r.calls[made, :4].tolist() == [[4, 4, 5, -1]] * len(made))
    sub = evolve.play("euchre", seats, None, 3, decks=np.concatenate([r.hands.reshape(100, 20), r.rest], axis=1)[made],
                      record=True, dealer=[0] * len(made))
    assert (sub.maker == 3).all() and (sub.first_leader == 2).all()
    _check_alone(sub, expect_forehand_out=True)


def test_euchre_stick_the_dealer_forbids_the_dealers_pass():
    never = "random:bidder=simple,order=999,call=999"  # passes whenever allowed
    r = evolve.play("euchre", never, 100, seed=1, stick_the_dealer=True)
    assert (r.trump >= 0).all(), "stick the dealer: no deal is passed out"
    assert (r.maker == r.dealer).all(), "everybody else passed, so the dealer named trump"
    assert (r.calls[:, :7] == 4).all() and (r.calls[:, 7] != 4).all() and (r.calls[:, 7] >= 0).all()
    upsuit = r.rest[:, 0] // 6
    assert (r.trump != upsuit).all(), "round 2: a suit other than the turned card's"
    r = evolve.play("euchre", "random", 3000, seed=2, stick_the_dealer=True)
    assert (r.trump >= 0).all()
    assert not ((r.calls[:, 4:8] == 4).all(axis=1)).any()


def test_euchre_passed_out_deals_without_stick():
    never = "random:bidder=simple,order=999,call=999"
    r = evolve.play("euchre", never, 20, seed=1, record=True)
    assert (r.trump == -1).all() and r.passed_out.all()
    assert (r.calls == 4).all(), "eight passes"
    assert (r.score == 0).all() and (r.tricks == 0).all() and (r.maker == -1).all()
    assert (r.plays == -1).all() and (r.game_score == 0).all() and (r.game_winner == -1).all()
    assert r.dealer.tolist() == [i % 4 for i in range(20)], "the deal passes to the next dealer"


def _euchre_deck(hands_by_seat, rest=None):
    """Deck from four 5-card hands (names); the remaining cards as the upcard + kitty."""
    hs = [cards("euchre", h) for h in hands_by_seat]
    used = set(sum(hs, []))
    rest = cards("euchre", rest) if rest else [c for c in range(24) if c not in used]
    deck = sum(hs, []) + [c for c in rest if c not in used]
    assert sorted(deck) == list(range(24))
    return np.array(deck)


def test_euchre_fixed_spades_setup():
    r = evolve.play("euchre", "random:bidder=simple,alone=0,order=0", 200, seed=4, record=True, setup="fixed_spades")
    assert (r.trump == EU_S).all() and (r.maker == r.dealer).all()
    assert (r.alone == 0).all() and (r.discard == -1).all() and (r.calls == -1).all(), "no bidding, nobody alone"
    fh = (r.dealer.astype(int) + 1) % 4
    assert (r.first_leader == fh).all() and (r.leaders[:, 0] == fh).all(), "the forehand leads"
    assert not (r.plays == r.rest[:, :1]).any(), "the upcard is never picked up"
    assert (r.plays >= 0).all(), "four players, twenty cards"
    assert r.dealer.tolist() == [i % 4 for i in range(200)]


def test_euchre_scoring_march_euchre_and_one_point():
    dealer0 = [0] * 20
    # the dealer (maker) holds the five highest spades: a march, 2 points (nobody alone)
    deck = _euchre_deck(["JS JC AS KS QS", "9H 10H JH QH KH", "9D 10D JD QD KD", "9C 10C QC KC AC"])
    r = evolve.play("euchre", "random", None, 1, decks=np.tile(deck, (20, 1)), dealer=dealer0, setup="fixed_spades")
    assert (r.tricks[:, 0] == 5).all() and (r.score == [2, 0]).all(), "makers take all five: 2"
    # a defender holds them: the makers are euchred, defenders score 2
    deck = _euchre_deck(["9H 10H JH QH KH", "JS JC AS KS QS", "9D 10D JD QD KD", "9C 10C QC KC AC"])
    r = evolve.play("euchre", "random", None, 1, decks=np.tile(deck, (20, 1)), dealer=dealer0, setup="fixed_spades")
    assert (r.tricks[:, 1] == 5).all() and (r.score == [0, 2]).all(), "euchred makers: defenders 2"
    # the dealer holds the three highest trumps, seat 1 the other four: makers take 3 or 4
    deck = _euchre_deck(["JS JC AS 9H 10H", "KS QS 10S 9S AH", "9D 10D JD QD KD", "9C 10C QC KC AC"])
    r = evolve.play("euchre", "random", None, 1, decks=np.tile(deck, (40, 1)), dealer=[0] * 40, setup="fixed_spades")
    made = r.tricks[:, 0] + r.tricks[:, 2]
    assert ((made >= 3) & (made <= 4)).all() and (r.score == [1, 0]).all(), "makers take 3-4 tricks: 1"


def test_euchre_lone_march_scores_four():
    """Seat 1 (the forehand) holds the five highest spades with a spade turned: its simple
    bidder orders up and (alone threshold 0) goes alone, then takes every trick."""
    deck = _euchre_deck(["9H 10H JH QH KH", "JS JC AS KS QS", "9D 10D JD QD KD", "9C 10C QC KC AC"],
                        rest="10S 9S AH AD")
    seats = ["random", "random:bidder=simple,alone=0", "random", "random"]
    r = evolve.play("euchre", seats, None, 3, decks=np.tile(deck, (20, 1)), dealer=[0] * 20, record=True)
    assert (r.calls[:, 0] == 5).all() and (r.maker == 1).all() and (r.alone == 1).all() and (r.trump == EU_S).all()
    assert (r.tricks[:, 1] == 5).all() and (r.score == [0, 4]).all(), "a lone march scores 4"
    assert (r.first_leader == 1).all(), "the forehand leads (its partner, seat 3, sits out)"
    # the dealer picked up the 10S and discarded one card, which is never played
    for i in range(20):
        assert r.discard[i] in list(r.hands[i, 0]) + [deck[20]]
        assert r.discard[i] not in r.plays[i]


def test_euchre_score_kinds_all_occur():
    """Random bidding over many deals produces every score kind: 1, 2, 4 and euchred 2."""
    r = evolve.play("euchre", "random", 3000, seed=9)
    ok = r.trump >= 0
    side = r.maker[ok] % 2
    made = np.where(side == 0, r.tricks[ok, 0] + r.tricks[ok, 2], r.tricks[ok, 1] + r.tricks[ok, 3])
    maker_score = r.score[ok][np.arange(ok.sum()), side]
    def_score = r.score[ok][np.arange(ok.sum()), 1 - side]
    assert ((made >= 3) == (def_score == 0)).all()
    assert (maker_score[made < 3] == 0).all() and (def_score[made < 3] == 2).all()
    assert (maker_score[(made >= 3) & (made < 5)] == 1).all()
    march = made == 5
    alone = r.alone[ok] == 1
    assert (maker_score[march & alone] == 4).all() and (maker_score[march & ~alone] == 2).all()
    assert (march & alone).any() and (march & ~alone).any() and (made < 3).any()


# ======================================================================================
# Sueca
# ======================================================================================
SUECA_HIGH_TO_LOW = "A 7 K J Q 6 5 4 3 2".split()
SUECA_POINTS = {"A": 11, "7": 10, "K": 4, "J": 3, "Q": 2}


def test_sueca_rank_order():
    for hi, lo in itertools.combinations(SUECA_HIGH_TO_LOW, 2):
        # hearts trump; clubs led
        assert one_trick_winner("sueca", 2, [lo + "C", hi + "C", "2D", "3D"]) == 1, (hi, lo)
        assert one_trick_winner("sueca", 2, [hi + "C", lo + "C", "2D", "3D"]) == 0, (hi, lo)
        assert one_trick_winner("sueca", 2, ["AC", lo + "H", hi + "H", "7C"]) == 2, (hi, lo)
    assert one_trick_winner("sueca", 2, ["AC", "2H", "7C", "KC"]) == 1, "any trump beats the led suit"
    assert one_trick_winner("sueca", 2, ["2C", "AD", "AS", "3C"]) == 3, "off-suit aces never win"


def test_sueca_follow_suit_but_no_obligation_to_trump():
    s = state("sueca", ["2C", "3C 4H", "5D AH", "6S"], 2, 0)
    s.play(cid("sueca", "2C"))
    assert legal_names("sueca", s) == ["3C"]
    s.play(cid("sueca", "3C"))
    assert legal_names("sueca", s) == ["5D", "AH"], "void: may trump or discard"


def test_sueca_points():
    mode = 0
    s = state("sueca", ["AC 2C", "7C 3C", "KC 4C", "JC 5C"], mode, 0)
    play_names("sueca", s, "AC 7C KC JC")
    assert s.side_points == [11 + 10 + 4 + 3, 0] and s.trick_winners == [0]
    play_names("sueca", s, "2C 3C 4C 5C")
    assert s.side_points == [28, 0] and s.trick_winners == [0, 3]
    s = state("sueca", ["QD", "6D", "2D", "KD"], mode, 0)
    play_names("sueca", s, "QD 6D 2D KD")
    assert s.trick_winners == [3] and s.side_points == [0, 2 + 4]


# ======================================================================================
# Jass
# ======================================================================================
J_D, J_H, J_S, J_C, OBE, UNE = range(6)
JASS_TRUMP_HIGH_TO_LOW = "J 9 A K Q 10 8 7 6".split()
JASS_PLAIN_HIGH_TO_LOW = "A K Q J 10 9 8 7 6".split()


def test_jass_trump_order():
    for hi, lo in itertools.combinations(JASS_TRUMP_HIGH_TO_LOW, 2):
        assert one_trick_winner("jass", J_H, [lo + "H", hi + "H", "6D", "7D"]) == 1, (hi, lo)
        assert one_trick_winner("jass", J_H, [hi + "H", lo + "H", "6D", "7D"]) == 0, (hi, lo)
        # side suit led, two trumps played
        assert one_trick_winner("jass", J_H, ["AD", lo + "H", hi + "H", "KD"]) == 2, (hi, lo)


@pytest.mark.parametrize("mode", [J_D, J_S, OBE])
def test_jass_plain_order_top_down(mode):
    su = "H"
    for hi, lo in itertools.combinations(JASS_PLAIN_HIGH_TO_LOW, 2):
        assert one_trick_winner("jass", mode, [lo + su, hi + su, "6C", "7C"]) == 1, (hi, lo)


def test_jass_une_ufe_reversed():
    for hi, lo in itertools.combinations(JASS_PLAIN_HIGH_TO_LOW[::-1], 2):  # 6 highest ... A lowest
        assert one_trick_winner("jass", UNE, [lo + "S", hi + "S", "6C", "7C"]) == 1, (hi, lo)
        assert one_trick_winner("jass", UNE, [hi + "S", lo + "S", "6C", "6D"]) == 0, (hi, lo)
    assert one_trick_winner("jass", UNE, ["AS", "6C", "6D", "6H"]) == 0, "no trump in Une-ufe"


def test_jass_buur_exception():
    # hearts trump, trump led
    s = state("jass", ["6H", "JH 7D AS", "", ""], J_H, 0)
    s.play(cid("jass", "6H"))
    assert legal_names("jass", s) == ["7D", "AS", "JH"], "only the Buur as trump: may play anything"
    s = state("jass", ["6H", "JH 7H 7D", "", ""], J_H, 0)
    s.play(cid("jass", "6H"))
    assert legal_names("jass", s) == ["7H", "JH"], "Buur plus another trump: must follow trump"
    s = state("jass", ["6H", "7D AS", "", ""], J_H, 0)
    s.play(cid("jass", "6H"))
    assert legal_names("jass", s) == ["7D", "AS"], "no trump: anything"
    # the Buur exception only concerns trump leads: a side-suit lead must still be followed
    s = state("jass", ["6D", "JH 7D", "", ""], J_H, 0)
    s.play(cid("jass", "6D"))
    assert legal_names("jass", s) == ["7D", "JH"], "follow the side suit or trump"


def test_jass_may_trump_instead_of_following():
    s = state("jass", ["6D", "7D 6H 6S", "", ""], J_H, 0)
    s.play(cid("jass", "6D"))
    assert legal_names("jass", s) == ["6H", "7D"], "follow suit or trump, but not discard"
    s = state("jass", ["6D", "6S 6C 6H", "", ""], J_H, 0)
    s.play(cid("jass", "6D"))
    assert legal_names("jass", s) == ["6C", "6H", "6S"], "void: anything"
    s = state("jass", ["6D", "7D 6H 6S", "", ""], OBE, 0)
    s.play(cid("jass", "6D"))
    assert legal_names("jass", s) == ["7D"], "Obe-abe has no trump: follow suit"


def test_jass_undertrump_ban_and_all_trumps_exception():
    # hearts trump; diamonds led, seat 1 trumps with the ace of hearts
    def after_ace(hand3):
        s = state("jass", ["6D", "AH", hand3, ""], J_H, 0)
        play_names("jass", s, "6D AH")
        return legal_names("jass", s)

    assert after_ace("7D 10H 9H 6S") == ["7D", "9H"], "follow, or overtrump (9 > A); 10 would undertrump"
    assert after_ace("10H 9H 6S") == ["6S", "9H"], "void: anything but the undertrump"
    assert after_ace("10H 6H 6S") == ["6S"], "only lower trumps besides a side card: no undertrump"
    assert after_ace("10H 6H") == ["10H", "6H"], "nothing but trumps: undertrumping allowed"
    assert after_ace("JH 6H") == ["6H", "JH"], "nothing but trumps: any trump"
    # the threshold is the *highest* trump in the trick (by trump order), not the lowest
    s = state("jass", ["6D", "10H", "9H", "AH KH 7C"], J_H, 0)
    play_names("jass", s, "6D 10H 9H")
    assert legal_names("jass", s) == ["7C"], "A and K are below the 9 in trump order"


def test_jass_undertrump_all_trumps_single_card():
    s = state("jass", ["6D", "9H", "10H", "AH JH 7C"], J_H, 0)
    play_names("jass", s, "6D 9H")
    assert legal_names("jass", s) == ["10H"], "a hand of one trump may undertrump"
    s.play(cid("jass", "10H"))
    assert legal_names("jass", s) == ["7C", "JH"], "A would undertrump the 9; the Buur overtrumps"


def jass_points(card, mode):
    """The Jass points table (docs/reference/games.md; faces 6 7 8 9 10 J Q K A)."""
    su, f = divmod(card, 9)
    table = {
        "trump": (0, 0, 0, 14, 10, 20, 3, 4, 11),
        "side": (0, 0, 0, 0, 10, 2, 3, 4, 11),
        "obe": (0, 0, 8, 0, 10, 2, 3, 4, 11),
        "une": (11, 0, 8, 0, 10, 2, 3, 4, 0),
    }
    kind = "obe" if mode == OBE else "une" if mode == UNE else "trump" if su == mode else "side"
    return table[kind][f]


def one_trick_state(mode, trick):
    s = state("jass", trick, mode, 0)
    play_names("jass", s, " ".join(trick))
    return s


@pytest.mark.parametrize("mode,trick,points", [
    (J_H, ["JH", "9H", "6H", "7H"], 20 + 14),           # trump Buur 20, Nell 14
    (J_H, ["AH", "KH", "QH", "10H"], 11 + 4 + 3 + 10),  # trump A K Q 10
    (J_H, ["8H", "JD", "9D", "AD"], 0 + 2 + 0 + 11),    # side J 2, side 9 0
    (J_H, ["10D", "QD", "KD", "8D"], 10 + 3 + 4 + 0),
    (OBE, ["8D", "6D", "7D", "9D"], 8),                 # Obe-abe: 8 counts 8
    (OBE, ["AD", "KD", "QD", "JD"], 11 + 4 + 3 + 2),
    (OBE, ["10D", "9D", "6C", "7C"], 10),
    (UNE, ["6D", "7D", "9D", "AD"], 11),                # Une-ufe: 6 counts 11, A 0
    (UNE, ["8D", "10D", "JD", "QD"], 8 + 10 + 2 + 3),
    (UNE, ["KD", "6S", "7S", "8S"], 4 + 11 + 0 + 8),   # every 6 counts 11, whatever its suit
])
def test_jass_points_tables(mode, trick, points):
    s = one_trick_state(mode, trick)
    assert sum(s.side_points) == points, f"mode {mode}: trick {trick}"


@pytest.mark.parametrize("mode", range(6))
def test_jass_full_deal_157_with_last_trick_bonus(mode):
    deck = np.random.default_rng(mode).permutation(36)
    s = TrickState(make_game("jass"), deck.reshape(4, 9), mode=mode, leader=1)
    while not s.done:
        s.play(s.legal()[-1])
    assert sum(s.side_points) == 157
    last_winner = s.trick_winners[-1]
    hist = s.history()
    assert [h[2] for h in hist] == s.trick_winners and sum(s.tricks_won) == 9
    # recount without the engine: the last trick's winner gets its cards' points + 5
    pts = [0, 0]
    for t, (_, cs, w) in enumerate(hist):
        pts[w % 2] += sum(jass_points(c, mode) for c in cs) + (5 if t == 8 else 0)
    assert s.side_points == pts and pts[last_winner % 2] >= 5


def _jass_deck(suit_of_seat):
    """Seat s holds the whole suit suit_of_seat[s]."""
    return np.array([SUITS["jass"].index(su) * 9 + f for su in suit_of_seat for f in range(9)])


@pytest.mark.parametrize("options,score", [
    ({}, [0, 157]),
    ({"match_bonus": True}, [0, 257]),
    ({"multipliers": True}, [0, 314]),
    ({"match_bonus": True, "multipliers": True}, [0, 514]),
])
def test_jass_match_bonus_and_multipliers(options, score):
    """Dealer 0; the forehand (seat 1) holds all nine spades, declares spades (x2) with the
    ranked bidder, leads trump every trick and takes all nine."""
    deck = _jass_deck("DSHC")
    seats = ["random", "random:bidder=simple", "random", "random"]
    r = evolve.play("jass", seats, None, 2, decks=np.tile(deck, (5, 1)), dealer=[0] * 5, record=True, **options)
    assert (r.trump == J_S).all() and (r.maker == 1).all()
    assert (r.tricks[:, 1] == 9).all()
    pts = 257 if options.get("match_bonus") else 157
    assert (r.points == [0, pts]).all()
    assert (r.score == score).all()


def test_jass_multipliers_per_mode():
    """Same deck under each mode: score = points x (1, 1, 2, 2, 3, 3) with multipliers."""
    r = evolve.play("jass", "random", 300, seed=4, multipliers=True)
    mult = np.array([1, 1, 2, 2, 3, 3])[r.trump]
    assert (r.score == r.points * mult[:, None]).all()
    assert set(r.trump.tolist()) == set(range(6))
    r = evolve.play("jass", "random", 100, seed=4)
    assert (r.score == r.points).all(), "multipliers are off by default"


def test_jass_push_partner_declares_forehand_leads():
    r = evolve.play("jass", "random", 400, seed=6, record=True)
    fh = (r.dealer.astype(int) + 1) % 4
    pushed = r.calls[:, 0] == 6
    assert pushed.sum() > 20
    assert (r.maker[pushed] == (fh[pushed] + 2) % 4).all(), "after a push the partner declares"
    assert (r.trump[pushed] == r.calls[pushed, 1]).all() and (r.calls[pushed, 1] != 6).all(), "no second push"
    assert (r.maker[~pushed] == fh[~pushed]).all() and (r.calls[~pushed, 1] == -1).all()
    assert (r.first_leader == fh).all() and (r.leaders[:, 0] == fh).all(), "the forehand leads either way"


# ======================================================================================
# TrickState input validation
# ======================================================================================


@pytest.mark.parametrize("game,mode", [("spades", 3), ("sueca", -1), ("jass", 6)])
def test_trickstate_rejects_a_mode_the_game_does_not_have(game, mode):
    """ENGINE BUG (evolve/games/stepper.py): TrickState does not check ``mode`` against the
    game's modes and silently indexes other parts of the flat rules array, giving wrong
    legality and trick winners (e.g. Spades with mode=3, the suit index of spades, instead
    of its only mode 0: every card counts as one suit and the leader wins a trick of
    hearts 2H AH KH 3H). Expected: a ValueError naming the valid modes."""
    hands = [[0], [1], [2], [3]]
    try:
        TrickState(make_game(game), hands, mode=mode, leader=0)
    except ValueError:
        return
    pytest.fail(f"ENGINE BUG: TrickState({game!r}, mode={mode}) accepted a mode outside "
                f"0..{GAMES[game].n_modes - 1} instead of raising ValueError")


# ======================================================================================
# option validation
# ======================================================================================


def _usage(fn, *needles):
    with pytest.raises(UsageError) as e:
        fn()
    msg = str(e.value)
    assert "\n" not in msg, f"one-line message expected: {msg!r}"
    for n in needles:
        assert n in msg, f"{n!r} missing from {msg!r}"
    return msg


def test_unknown_game():
    _usage(lambda: make_game("bridge"), "bridge", *GAMES)
    _usage(lambda: evolve.play("skat", "random", 1), "skat", *GAMES)
    assert make_game("SPADES").name == "spades"


@pytest.mark.parametrize("game", list(GAMES))
def test_unknown_option(game):
    _usage(lambda: make_game(game, colour="red"), "colour", *GAMES[game].options)


@pytest.mark.parametrize("game,option,value,valid", [
    ("spades", "bidding", "silly", ["none", "exact", "standard"]),
    ("spades", "partnership", "maybe", ["true", "false"]),
    ("spades", "break_spades", 2, ["true", "false"]),
    ("spades", "target", "lots", ["integer"]),
    ("spades", "target", -5, ["integer >= -1"]),
    ("euchre", "setup", "fixed_hearts", ["standard", "fixed_spades"]),
    ("euchre", "stick_the_dealer", "sometimes", ["true", "false"]),
    ("euchre", "target", 2.5, ["integer"]),
    ("sueca", "setup", "tournament", ["standard", "study"]),
    ("sueca", "trump_card", "middle", ["last", "first"]),
    ("jass", "match_bonus", "yes please", ["true", "false"]),
    ("jass", "multipliers", None, ["true", "false"]),
    ("jass", "target", -1, ["integer >= 0"]),
])
def test_bad_option_values(game, option, value, valid):
    _usage(lambda: make_game(game, **{option: value}), option, repr(value), *valid)
    _usage(lambda: evolve.play(game, "random", 1, **{option: value}), option)


def test_standard_bidding_needs_partnership():
    _usage(lambda: make_game("spades", bidding="standard"), "standard", "partnership")
    _usage(lambda: make_game("spades", bidding="standard", partnership=False), "standard", "partnership")
    assert make_game("spades", bidding="standard", partnership="true").partnership


def test_option_strings_parse():
    g = make_game("euchre", stick_the_dealer="on", target="7")
    assert g.options["stick_the_dealer"] is True and g.target == 7
    assert make_game("spades", bidding="standard", partnership=True).target == 500
    assert make_game("spades").target == 0 and make_game("sueca").target == 4 and make_game("euchre").target == 10
