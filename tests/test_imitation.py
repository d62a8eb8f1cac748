"""Imitation warm start: demonstrations are the teacher's legal choices, training is
reproducible and learns a deterministic teacher, and a run starts from the clone."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import evolve
from evolve.agents.network.architecture import Architecture
from evolve.agents.registry import AgentSpec
from evolve.core.stats import paired_difference
from evolve.evolution.checkpoint import load_checkpoint
from evolve.evolution.config import load_config
from evolve.evolution.runner import Evolution
from evolve.games.registry import make_game
from evolve.learn.imitation import collect, teacher_seats, train

TINY = Path(__file__).parent / "configs" / "tiny_spades.toml"


@pytest.mark.parametrize("game_name,encoding",
                         [("spades", "card"), ("euchre", "hand"), ("jass", "card"), ("sueca", "hand"),
                          ("euchre", "seat"), ("jass", "seat")])
def test_demonstrations_are_the_teachers_legal_choices(game_name, encoding):
    g = make_game(game_name)
    arch = Architecture.for_game(g, encoding, (8, 8))
    demos = collect(g, arch, "highlow", ["random"], 30, seed=4)
    seats, mine = teacher_seats(g, "highlow", ["random"])
    assert mine == ([0, 2] if g.partnership else [0])
    n = len(demos)
    assert n > 30 and demos.inputs.shape == (n, arch.n_in) and demos.legal.shape == (n, arch.n_out)
    assert demos.legal[np.arange(n), demos.target].all()          # the chosen output is a legal one
    assert (demos.legal.sum(axis=1) >= 2).all()                     # forced moves are not examples
    assert set(np.unique(demos.inputs)) <= ({0.0, 1.0} if encoding != "hand" else set(range(0, 14)))


@pytest.mark.parametrize("game_name", ["euchre", "jass"])
def test_seat_encoding_demonstrations_are_what_the_teacher_network_saw(tmp_path, game_name):
    """A seat-encoding network as the teacher: its float64 forward pass on each collected
    input vector picks the card it played in the engine (the examples' inputs are the
    kernel's, voids and the ordered-up Euchre card included)."""
    from evolve.agents.genomes.champion import Champion, save_champion
    from evolve.agents.genomes.evolvable import NetworkAgent

    g = make_game(game_name)
    arch = Architecture.for_game(g, "seat", (16, 16))
    genome = arch.random_genome(np.random.default_rng(3))
    save_champion(tmp_path, Champion(NetworkAgent(arch, "simple"), genome, {"game": game_name}))
    demos = collect(g, arch, f"champion:{tmp_path}", ["random"], 40, seed=2)
    p = arch.unpack(genome)
    out = np.tanh(np.tanh(demos.inputs @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]) @ p["W3T"].T + p["b3"]
    out = np.where(demos.legal, out, -np.inf)
    n = len(demos)
    assert n > 40
    assert (out[np.arange(n), demos.target] >= out.max(axis=1) - 2e-3).all()


def test_training_is_reproducible_clamped_and_learns_highlow():
    g = make_game("spades")
    arch = Architecture.for_game(g, "card", (24, 24))
    demos = collect(g, arch, "highlow", ["random"], 1000, seed=1)
    a, hist = train(arch, demos, epochs=10, learning_rate=0.01, batch=256, seed=5)
    b, _ = train(arch, demos, epochs=10, learning_rate=0.01, batch=256, seed=5)
    assert np.array_equal(a, b)
    assert np.abs(a).max() <= 1.0
    assert hist[-1]["loss"] < hist[0]["loss"] and hist[-1]["accuracy"] > 0.85, hist
    clone = AgentSpec("clone", arch.kind, arch.pack(a), 0, np.zeros(0), arch.work_size)
    untrained = AgentSpec("start", arch.kind, arch.pack(0.3 * arch.random_genome(np.random.default_rng(0))), 0,
                          np.zeros(0), arch.work_size)
    r = evolve.play(g, [clone, "random", "random", "random"], 3000, seed=9)
    u = evolve.play(g, [untrained, "random", "random", "random"], 3000, seed=9)
    gain, _ = paired_difference(r.tricks[:, 0], u.tricks[:, 0])
    assert gain.low > 0.4, gain        # HighLow takes ~4.24 tricks per round, a random net ~3.2


class _Stop(Exception):
    """Stands for the interrupt that ends a process mid-training."""


@pytest.mark.parametrize("stop_after", [1, 7, 13])
def test_an_interrupted_training_goes_on_from_its_partial_file_to_the_same_genome(tmp_path, monkeypatch, stop_after):
    import evolve.learn.imitation as imitation

    g = make_game("spades")
    arch = Architecture.for_game(g, "card", (16, 16))
    demos = collect(g, arch, "highlow", ["random"], 200, seed=3)
    settings = dict(epochs=3, learning_rate=0.01, batch=256, seed=4, schedule="cosine")
    whole, whole_history = train(arch, demos, **settings)
    batches_per_epoch = -(-len(demos) // 256)
    assert 3 * batches_per_epoch > stop_after + 1       # the stop falls inside the training

    partial = tmp_path / "partial.npz"
    real = imitation._forward_backward
    calls = {"n": 0}

    def stopping(*args, **kw):
        if kw.get("grad", True):
            calls["n"] += 1
            if calls["n"] > stop_after:
                raise _Stop
        return real(*args, **kw)

    monkeypatch.setattr(imitation, "_forward_backward", stopping)
    with pytest.raises(_Stop):
        train(arch, demos, **settings, partial=partial, every_seconds=0.0)
    monkeypatch.setattr(imitation, "_forward_backward", real)
    assert partial.is_file()
    resumed, resumed_history = train(arch, demos, **settings, partial=partial, every_seconds=0.0)
    assert np.array_equal(resumed, whole) and resumed_history == whole_history


def test_a_partial_training_of_another_network_is_one_clear_error(tmp_path):
    from evolve.core.errors import UsageError

    g = make_game("spades")
    small = Architecture.for_game(g, "card", (8, 8))
    demos = collect(g, small, "highlow", ["random"], 20, seed=3)
    partial = tmp_path / "partial.npz"
    shuffler = np.random.default_rng(0).bit_generator.state
    np.savez(partial, genome=np.zeros(3), m=np.zeros(3), v=np.zeros(3),
             position=np.array(json.dumps({"step": 1, "epoch": 0, "row": 0, "shuffler": shuffler, "history": []})))
    with pytest.raises(UsageError, match="another network"):
        train(small, demos, epochs=1, learning_rate=0.01, batch=64, seed=1, partial=partial)
    np.savez(partial, genome=np.zeros(small.genome_size), m=np.zeros(small.genome_size), v=np.zeros(small.genome_size),
             position=np.array(json.dumps({"step": 1, "epoch": 0, "row": 0, "shuffler": {"bit": 1}, "history": []})))
    with pytest.raises(UsageError, match="not a part-finished imitation training"):
        train(small, demos, epochs=1, learning_rate=0.01, batch=64, seed=1, partial=partial)
    partial.write_bytes(b"not a zip")
    with pytest.raises(UsageError, match="part-finished imitation training"):
        train(small, demos, epochs=1, learning_rate=0.01, batch=64, seed=1, partial=partial)


def test_run_starts_from_the_clone_and_keeps_it_as_a_candidate(tmp_path):
    cfg = load_config(TINY)
    cfg = cfg.with_overrides(imitation={"teacher": "highlow", "deals": 60, "epochs": 2, "noise": 0.02},
                             evolution={"generations": 2, "max_generations": 2, "champion": "validated",
                                        "validation_deals": 200})
    assert cfg.hash() != load_config(TINY).hash()
    evo = Evolution(cfg, run_dir=tmp_path / "r", plot_dir=tmp_path / "p", progress=False)
    first = evo.initial_state()
    founder = first.founders[0]
    assert np.array_equal(first.population[0], founder)
    spread = np.abs(first.population[1:] - founder)
    assert 0 < spread.mean() < 0.05
    state = evo.run()
    assert np.array_equal(load_checkpoint(evo.checkpoint_path).founders[0], founder)
    summary = json.loads((tmp_path / "r" / "imitation.json").read_text())
    assert summary["teacher"] == "highlow" and summary["decisions"] > 100 and len(summary["history"]) == 2
    champ = evo.champion(state)
    assert len(champ.meta["validation_scores"]) == 1 + len(state.elite) + 1
    names = champ.meta["validation_candidates"]
    assert names[0] == "hall of fame" and names[-1] == "founder" and len(names) == len(champ.meta["validation_scores"])
    best = int(np.argmax(champ.meta["validation_scores"]))
    assert champ.meta["chosen"] == names[best]
    assert champ.meta["imitation"]["teacher"] == "highlow"


def test_founder_unless_better_keeps_the_founder_against_a_lead_within_noise(tmp_path, monkeypatch):
    from evolve.evolution.config import ConfigError

    cfg = load_config(TINY).with_overrides(imitation={"teacher": "highlow", "deals": 60, "epochs": 2},
                                           evolution={"champion": "founder_unless_better", "validation_deals": 400})
    evo = Evolution(cfg, run_dir=tmp_path / "r", plot_dir=tmp_path / "p", progress=False)
    noise = np.random.default_rng(0).normal(0.0, 1.0, 400)
    founder, rival = np.zeros(3), np.ones(3)
    names = ["hall of fame", "founder"]

    wobble = np.random.default_rng(1).normal(0.0, 1.0, 400)
    wobble -= wobble.mean()

    def scores_with_lead(lead):
        # the rival's per-deal scores: the founder's plus the lead and deal-to-deal noise
        monkeypatch.setattr(evo, "fixed_deal_scores", lambda genome, deals, seed: (
            3.0 + noise[:deals] + (lead + wobble[:deals]) * genome[0]))

    scores_with_lead(0.02)           # ahead by a hair: the best mean, not better
    chosen, scores, margin = evo.validate_candidates([rival, founder], names, 7, "founder_unless_better")
    assert scores[0] > scores[1] and margin["low"] < 0 < margin["high"] and names[chosen] == "founder"
    assert evo.validate_candidates([rival, founder], names, 7, "validated")[0] == 0
    scores_with_lead(0.5)            # clearly better: evolution helped
    chosen, _, margin = evo.validate_candidates([rival, founder], names, 7, "founder_unless_better")
    assert margin["low"] > 0 and names[chosen] == "hall of fame"
    # the run's champion says which rule chose it and by how much
    state = evo.initial_state()
    champ = evo.champion(state)
    assert champ.meta["champion_selection"] == "founder_unless_better"
    assert set(champ.meta["best_minus_founder"]) == {"mean", "low", "high"}
    assert champ.meta["chosen"] in champ.meta["validation_candidates"]
    with pytest.raises(ConfigError, match="evolution.champion: got 'founder_unless_better' but the run has no founder"):
        load_config(TINY).with_overrides(evolution={"champion": "founder_unless_better"})
    # a parametric agent's start point is a founder too, unless it is drawn uniformly
    assert cfg.founder_source == "imitation"
    markov = {"kind": "markov", "init": "default"}
    assert load_config(TINY).with_overrides(agent=markov, evolution={"champion": "founder_unless_better"}
                                            ).founder_source == "start point"
    with pytest.raises(ConfigError, match="the run has no founder"):
        load_config(TINY).with_overrides(agent={**markov, "init": "uniform"},
                                         evolution={"champion": "founder_unless_better"})


def _dagger_settings(**kw):
    return {"teacher": "highlow", "opponents": ["random"], "deals": 120, "epochs": 3, "learning_rate": 0.01,
            "batch": 128, "dagger_rounds": 2, "dagger_deals": 120, "dagger_epochs": 3, **kw}


def test_dagger_labels_the_students_own_decisions_with_the_teachers_card():
    from evolve.agents.genomes.evolvable import NetworkAgent
    from evolve.games.observation import observations
    from evolve.learn.imitation import dagger_seed, relabel
    from evolve.runtime.decide import agent

    g = make_game("spades")
    arch = Architecture.for_game(g, "card", (8, 8))
    student = NetworkAgent(arch, "simple")
    genome = 0.3 * arch.random_genome(np.random.default_rng(3))
    demos, agree = relabel(g, student, genome, "highlow", ["random"], 40, seed=5, round_=1)
    assert len(demos) > 200 and demos.legal[np.arange(len(demos)), demos.target].all()
    # the student's own deals, replayed: every decision of its seat with a choice is an
    # example, labelled with HighLow's card there (card outputs are card ids)
    spec = student.specs(genome[None, :], ["student"])[0]
    r = evolve.play(g, [spec, "random", "random", "random"], 40, seed=dagger_seed(5, 1), record=True)
    highlow = agent("highlow", "spades")
    labels, played = [], []
    for i in range(40):
        for obs, card in observations(r, i):
            if obs.seat == 0 and obs.decision == "card" and len(obs.legal()) > 1:
                labels.append(highlow.play(obs))
                played.append(card)
    assert np.array_equal(demos.target, labels)
    assert agree == pytest.approx(np.mean(np.array(labels) == np.array(played)))
    # a random network plays HighLow's card far less often than a clone of HighLow does
    clone, _ = train(arch, collect(g, arch, "highlow", ["random"], 600, seed=1), epochs=8, learning_rate=0.01,
                     batch=128, seed=1)
    _, agree_clone = relabel(g, student, clone, "highlow", ["random"], 40, seed=5, round_=1)
    assert agree_clone > 0.8 > agree


def test_dagger_rounds_are_the_same_on_any_workers_and_resume_from_stored_chunks(tmp_path):
    from evolve.agents.genomes.evolvable import NetworkAgent
    from evolve.learn.imitation import imitate

    g = make_game("spades")
    arch = Architecture.for_game(g, "card", (8, 8))
    student = NetworkAgent(arch, "simple")
    one, summary = imitate(g, arch, _dagger_settings(), 3, workers=1, student=student, cache=tmp_path / "a")
    two, _ = imitate(g, arch, _dagger_settings(), 3, workers=2, student=student, cache=tmp_path / "b")
    assert np.array_equal(one, two)
    assert [d["round"] for d in summary["dagger"]] == [1, 2]
    assert summary["dagger"][1]["decisions"] > summary["dagger"][0]["decisions"] > summary["decisions"]
    # DAgger moves the clone: without its rounds the genome differs
    plain, _ = imitate(g, arch, _dagger_settings(dagger_rounds=0), 3, student=student)
    assert not np.array_equal(plain, one)
    # an interrupted start: a lost chunk and a lost training are made again, the rest read back
    stored = sorted((tmp_path / "a").glob("*.npz"))
    assert any(p.name.startswith("dagger1-") for p in stored) and any(p.name.startswith("trained-") for p in stored)
    for p in stored[::2]:
        p.unlink()
    again, _ = imitate(g, arch, _dagger_settings(), 3, workers=1, student=student, cache=tmp_path / "a")
    assert np.array_equal(again, one)
    # other settings never read these chunks
    other, _ = imitate(g, arch, _dagger_settings(deals=150), 3, workers=1, student=student, cache=tmp_path / "a")
    fresh, _ = imitate(g, arch, _dagger_settings(deals=150), 3, workers=1, student=student)
    assert np.array_equal(other, fresh)


def test_dagger_config_keys_are_checked(tmp_path):
    from evolve.evolution.config import ConfigError

    text = TINY.read_text() + "\n"
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("[evolution]", "[imitation]\nteacher = \"highlow\"\ndagger_rounds = -1\n\n[evolution]"))
    with pytest.raises(ConfigError, match="imitation.dagger_rounds.*non-negative integer"):
        load_config(bad)


def test_a_dagger_teacher_of_its_own_labels_the_rounds_at_its_own_step(tmp_path):
    """``dagger_teacher`` relabels the clone's decisions (the teacher's games stay the first
    training's); ``dagger_data = "relabelled"`` trains on those labels alone and
    ``dagger_learning_rate`` sets the step of that training."""
    from evolve.agents.genomes.evolvable import NetworkAgent
    from evolve.evolution.config import ConfigError
    from evolve.learn.imitation import imitate, relabel

    g = make_game("spades")
    arch = Architecture.for_game(g, "card", (8, 8))
    student = NetworkAgent(arch, "simple")
    one_round = dict(dagger_rounds=1, dagger_teacher="low")
    genome, summary = imitate(g, arch, _dagger_settings(**one_round), 3, student=student)
    assert summary["dagger"][0]["teacher"] == "low"
    assert summary["dagger"][0]["decisions"] == summary["decisions"] + summary["dagger"][0]["student_decisions"]
    plain, _ = imitate(g, arch, _dagger_settings(dagger_rounds=1), 3, student=student)
    assert not np.array_equal(plain, genome)
    # the round's labels are Low's cards at the clone's decisions, not HighLow's
    clone, _ = imitate(g, arch, _dagger_settings(dagger_rounds=0), 3, student=student)
    low, _ = relabel(g, student, clone, "low", ["random"], 120, 3, 0)
    highlow, _ = relabel(g, student, clone, "highlow", ["random"], 120, 3, 0)
    assert np.array_equal(low.inputs, highlow.inputs) and not np.array_equal(low.target, highlow.target)
    alone, summary = imitate(g, arch, _dagger_settings(**one_round, dagger_data="relabelled"), 3, student=student)
    assert summary["dagger"][0]["decisions"] == summary["dagger"][0]["student_decisions"] == len(low)
    assert not np.array_equal(alone, genome)
    slower, _ = imitate(g, arch, _dagger_settings(**one_round, dagger_data="relabelled", dagger_learning_rate=0.001),
                        3, student=student)
    assert not np.array_equal(slower, alone)
    # the smaller step moves the clone less
    assert np.abs(slower - clone).sum() < np.abs(alone - clone).sum()
    text = TINY.read_text() + "\n"
    bad = tmp_path / "bad.toml"
    for line, message in (('dagger_teacher = "nobody"', "imitation.dagger_teacher: seat 'nobody'"),
                          ('dagger_data = "all"', "imitation.dagger_data: got 'all'; expected joined"),
                          ("dagger_learning_rate = -1", "imitation.dagger_learning_rate: .*non-negative"),
                          ('targets = "visits"\ndagger_teacher = "low"', "imitation.dagger_teacher: got 'low'; visit")):
        bad.write_text(text.replace("[evolution]", f'[imitation]\nteacher = "highlow"\n{line}\n\n[evolution]'))
        with pytest.raises(ConfigError, match=message):
            load_config(bad)


def test_visit_targets_are_the_ismcts_root_shares_and_train_the_clone():
    from evolve.agents.genomes.evolvable import NetworkAgent
    from evolve.learn.imitation import relabel

    g = make_game("jass")
    arch = Architecture.for_game(g, "card", (8, 8))
    teacher = "ismcts:iterations=60,bidder=simple"
    demos = collect(g, arch, teacher, ["jass_rule_based:bidder=simple"], 20, seed=2, targets="visits")
    n = len(demos)
    assert demos.soft is not None and demos.soft.shape == (n, arch.n_out)
    assert np.allclose(demos.soft.sum(axis=1), 1.0, atol=1e-5)
    assert not (demos.soft * ~demos.legal).any()            # shares only on legal cards
    # 60 iterations spread over at most 9 cards: every legal card is tried, none takes all
    assert ((demos.soft > 0) == demos.legal).all() and demos.soft.max() < 1.0
    # the label is the card the search plays: one of its most visited
    assert np.array_equal(demos.soft[np.arange(n), demos.target], demos.soft.max(axis=1))
    student = NetworkAgent(arch, "simple")
    extra, _ = relabel(g, student, 0.3 * arch.random_genome(np.random.default_rng(1)), teacher,
                       ["jass_rule_based:bidder=simple"], 10, seed=2, round_=0, targets="visits")
    assert extra.soft is not None and np.allclose(extra.soft.sum(axis=1), 1.0, atol=1e-5)
    a, hist = train(arch, demos, epochs=4, learning_rate=0.01, batch=64, seed=1)
    assert hist[-1]["loss"] < hist[0]["loss"]
    hard, _ = train(arch, type(demos)(demos.inputs, demos.legal, demos.target), epochs=4, learning_rate=0.01,
                    batch=64, seed=1)
    assert not np.array_equal(a, hard)


def test_visit_targets_need_an_ismcts_teacher(tmp_path):
    from evolve.evolution.config import ConfigError

    cfg = load_config(TINY).with_overrides(imitation={"teacher": "highlow", "targets": "visits"})
    with pytest.raises(ConfigError, match="imitation.targets.*expected an ismcts teacher"):
        Evolution(cfg, run_dir=tmp_path / "r", plot_dir=tmp_path / "p", progress=False)


def test_cosine_schedule_and_held_out_decisions():
    """``schedule = "cosine"`` decays the step size to near 0; the held-out decisions are
    the teacher's last ones, never trained on, and their figures are reported per epoch."""
    from evolve.learn.imitation import HeldOutError, split_held_out, step_size

    assert step_size(0.01, "constant", 9, 10) == 0.01
    rates = [step_size(0.01, "cosine", e, 10) for e in range(10)]
    assert rates[0] == 0.01 and all(a > b for a, b in zip(rates, rates[1:])) and 0 < rates[-1] < 0.0005
    g = make_game("spades")
    arch = Architecture.for_game(g, "card", (24, 24))
    demos = collect(g, arch, "highlow", ["random"], 400, seed=1)
    fit, held = split_held_out(demos, 500)
    assert len(held) == 500 and len(fit) + 500 == len(demos)
    assert np.array_equal(held.inputs, demos.inputs[-500:]) and np.array_equal(fit.target, demos.target[:-500])
    assert split_held_out(demos, 0) == (demos, None)
    with pytest.raises(HeldOutError, match="imitation.holdout: .* the teacher made only"):
        split_held_out(demos, len(demos))
    cosine, hist = train(arch, fit, epochs=6, learning_rate=0.01, batch=256, seed=5, schedule="cosine", held_out=held)
    constant, _ = train(arch, fit, epochs=6, learning_rate=0.01, batch=256, seed=5)
    assert not np.array_equal(cosine, constant)
    assert all("held_out_accuracy" in h for h in hist)
    # HighLow is a function of the position: what the clone learnt carries to deals it never saw
    assert hist[-1]["held_out_accuracy"] > max(0.65, hist[0]["held_out_accuracy"] + 0.05), hist
    assert hist[-1]["held_out_loss"] < hist[0]["held_out_loss"], hist


def test_holding_out_more_than_the_teacher_made_is_a_config_error(tmp_path):
    from evolve.evolution.config import ConfigError

    cfg = load_config(TINY).with_overrides(imitation={"teacher": "highlow", "deals": 5, "epochs": 1,
                                                      "holdout": 100000})
    evo = Evolution(cfg, run_dir=tmp_path / "r", plot_dir=tmp_path / "p", progress=False)
    with pytest.raises(ConfigError, match=r"tiny_spades.toml: imitation.holdout: 100000 decisions held out"):
        evo.run()


def test_fan_in_start_scales_each_layer_and_zeroes_biases():
    """``init = "fan_in"``: weights of variance 1 / fan-in (W3T is stored [outputs,
    inputs]), zero biases and direct connections; ``small``: 0.3 x U(-1, 1)."""
    from evolve.learn.imitation import initial_genome

    arch = Architecture.for_game(make_game("jass"), "seat", (256, 128), True, direct=True)
    w = arch.unpack(initial_genome(arch, np.random.default_rng(2), "fan_in"))
    for name, fan_in in (("W1", arch.n_in), ("W2", 256), ("W3T", 128)):
        assert abs(w[name].std() * np.sqrt(fan_in) - 1.0) < 0.05, name
    assert not any(w[b].any() for b in ("b1", "b2", "b3", "D"))
    small = arch.unpack(initial_genome(arch, np.random.default_rng(2), "small"))
    assert 0.29 < np.abs(small["W2"]).max() <= 0.3 and small["b1"].any() and not small["D"].any()
    with pytest.raises(ValueError, match="unknown imitation init 'xavier'"):
        initial_genome(arch, np.random.default_rng(2), "xavier")


def test_linear_logits_train_a_wide_clone_that_the_tanh_logits_leave_behind():
    """The softmax over the output sums (what the agent's argmax compares) keeps its
    gradient where 5 x tanh saturates: on the same HighLow examples and budget, a wide
    clone trained with linear logits agrees with the teacher more often on decisions it
    never saw, and the agent plays the argmax the trainer scored."""
    from evolve.agents.genomes.evolvable import NetworkAgent
    from evolve.learn.imitation import initial_genome, split_held_out

    g = make_game("spades")
    arch = Architecture.for_game(g, "seat", (256, 128))
    fit, held = split_held_out(collect(g, arch, "highlow", ["random"], 600, seed=1), 1500)
    common = dict(epochs=3, learning_rate=0.001, batch=128, seed=5, held_out=held)
    linear, hl = train(arch, fit, init="fan_in", logits_of="linear", **common)
    _, ht = train(arch, fit, init="small", logits_of="tanh", **common)
    assert np.abs(linear).max() <= 1.0
    assert hl[-1]["held_out_accuracy"] > ht[-1]["held_out_accuracy"] + 0.05, (hl[-1], ht[-1])
    # in the engine (which skips the output tanh) the clone plays like HighLow, far above a random start
    student = NetworkAgent(arch)
    clone, start = student.specs(np.stack([linear, initial_genome(arch, np.random.default_rng(0), "fan_in")]),
                                 ["clone", "start"])
    r = evolve.play(g, [clone, "random", "random", "random"], 2000, seed=9)
    u = evolve.play(g, [start, "random", "random", "random"], 2000, seed=9)
    gain, _ = paired_difference(r.tricks[:, 0], u.tricks[:, 0])
    assert gain.low > 0.25, gain     # a random network is ~0.4 tricks below its clone


def test_teacher_examples_are_shared_by_students_of_any_width(tmp_path):
    """The stored teacher chunks depend on the encoding, not the hidden layers: a wider
    student reads them back instead of replaying the teacher."""
    g = make_game("jass")
    narrow = Architecture.for_game(g, "seat", (8, 8))
    wide = Architecture.for_game(g, "seat", (32, 16))
    a = collect(g, narrow, "highlow", ["random"], 30, seed=4, cache=tmp_path)
    stored = sorted(p.name for p in tmp_path.iterdir())
    b = collect(g, wide, "highlow", ["random"], 30, seed=4, cache=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == stored
    assert np.array_equal(a.inputs, b.inputs) and np.array_equal(a.target, b.target)
    card = collect(g, Architecture.for_game(g, "card", (8, 8)), "highlow", ["random"], 30, seed=4, cache=tmp_path)
    assert len(list(tmp_path.iterdir())) > len(stored) and card.inputs.shape[1] != a.inputs.shape[1]


@pytest.mark.parametrize("key,value,expected", [("init", "xavier", "small or fan_in"),
                                                ("logits", "softmax", "tanh or linear")])
def test_init_and_logits_keys_are_checked(tmp_path, key, value, expected):
    from evolve.evolution.config import ConfigError

    bad = tmp_path / "bad.toml"
    table = f"[imitation]\nteacher = \"highlow\"\n{key} = \"{value}\"\n\n[evolution]"
    bad.write_text(TINY.read_text().replace("[evolution]", table))
    with pytest.raises(ConfigError, match=rf"bad.toml: imitation.{key}.*{expected}"):
        load_config(bad)


def _tiny_champion(tmp_path, seed=3):
    """A champion of the tiny config (two generations), in ``tmp_path / "first"``."""
    cfg = load_config(TINY).with_overrides(evolution={"generations": 2, "max_generations": 2},
                                           experiment={"seed": seed})
    evo = Evolution(cfg, run_dir=tmp_path / "first", plot_dir=tmp_path / "p1", progress=False)
    evo.export_champion(evo.run())
    return tmp_path / "first"


def test_run_starts_from_a_committed_champion(tmp_path):
    from evolve.agents.genomes.champion import load_champion

    first = _tiny_champion(tmp_path)
    cfg = load_config(TINY).with_overrides(evolution={"founder": str(first), "generations": 2, "max_generations": 2,
                                                      "champion": "founder_unless_better", "validation_deals": 200},
                                           imitation={"noise": 0.02})
    assert cfg.founder_source == "champion"
    evo = Evolution(cfg, run_dir=tmp_path / "second", plot_dir=tmp_path / "p2", progress=False)
    state = evo.initial_state()
    genome = load_champion(first).genome
    assert np.array_equal(state.population[0], genome) and np.array_equal(state.founders[0], genome)
    assert 0 < np.abs(state.population[1:] - genome).mean() < 0.05
    champ = evo.champion(evo.run())
    assert champ.meta["founder"] == str(first) and "founder" in champ.meta["validation_candidates"]
    # the founder's bytes are part of the run: another champion at that path is another run
    before = cfg.hash()
    other = _tiny_champion(tmp_path / "other", seed=4)
    (first / "champion.npz").write_bytes((other / "champion.npz").read_bytes())
    assert cfg.hash() != before


@pytest.mark.parametrize("founder, teacher, needle", [
    ("{first}", "highlow", "expected one warm start"),
    ("{tmp}/missing", "", "expected a champion's folder"),
])
def test_founder_errors_are_one_line(tmp_path, founder, teacher, needle):
    from evolve.evolution.config import ConfigError

    first = _tiny_champion(tmp_path)
    with pytest.raises(ConfigError) as e:
        load_config(TINY).with_overrides(evolution={"founder": founder.format(first=first, tmp=tmp_path)},
                                         imitation={"teacher": teacher})
    assert "evolution.founder" in str(e.value) and needle in str(e.value) and "\n" not in str(e.value)


def test_founder_of_another_game_or_network_is_refused(tmp_path):
    from evolve.evolution.config import ConfigError

    first = _tiny_champion(tmp_path)
    with pytest.raises(ConfigError, match="is a spades champion; expected a sueca one"):
        load_config(TINY).with_overrides(experiment={"game": "sueca"}, evolution={"founder": str(first)})
    cfg = load_config(TINY).with_overrides(network={"hidden": [16, 10]}, evolution={"founder": str(first)})
    with pytest.raises(ConfigError, match=r"evolution.founder: .* differs from the run's agent in n_h1 12 "
                                          r"\(the run's: 16\)"):
        Evolution(cfg, run_dir=tmp_path / "second", plot_dir=tmp_path / "p2", progress=False)


def test_a_float32_champion_founds_a_run_that_plays_in_int16(tmp_path):
    """The second layer's number format leaves the genome as it is, so a float32 champion
    may found an int16 run (evolved and validated in int16); other differences are
    refused (the test above)."""
    from evolve.agents.genomes.champion import load_champion

    first = _tiny_champion(tmp_path)
    cfg = load_config(TINY).with_overrides(network={"layer2": "int16"}, evolution={"founder": str(first)})
    evo = Evolution(cfg, run_dir=tmp_path / "second", plot_dir=tmp_path / "p2", progress=False)
    assert evo.agent.to_json()["architecture"]["layer2"] == "int16"
    assert "layer2" not in load_champion(first).agent.to_json()["architecture"]
    assert np.array_equal(evo.initial_state().founders[0], load_champion(first).genome)
