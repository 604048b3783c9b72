import numpy as np
import pytest

from lessons import pronoun as pr


def test_words_join_pieces_and_skip_specials():
    tokens = ["[CLS]", "the", "un", "##believ", "##able", "dog", "[SEP]"]
    word_ids = [None, 0, 1, 1, 1, 2, None]
    words = pr.words_of(tokens, word_ids)
    assert [w.text for w in words] == ["the", "unbelievable", "dog"]
    assert words[1].pieces == (2, 3, 4)


def test_multi_piece_candidate_sums_its_pieces():
    tokens = ["a", "aard", "##vark", "ate", "it"]
    words = pr.words_of(tokens, [0, 1, 1, 2, 3])
    attn = np.zeros((5, 5))
    attn[4] = [0.1, 0.2, 0.3, 0.1, 0.3]
    it, aardvark, ate = words[3], words[1], words[2]
    assert pr.weight_on(attn, it, aardvark) == pytest.approx(0.5)
    assert pr.preference(attn, it, aardvark, ate) == pytest.approx(0.5 / 0.6)


def test_find_pronoun():
    words = pr.words_of(["a", "dog", "saw", "it"], [0, 1, 2, 3])
    assert pr.find_pronoun(words) == 3
    assert pr.find_pronoun(words[:3]) is None


def test_scoreboard_on_a_hand_checked_case():
    """Two pairs, a 1-layer model with 2 heads; the answers below are worked out by hand."""
    pairs = [
        (pr.PronounCase("x1", "it", ("dog", "food"), "dog"), pr.PronounCase("x2", "it", ("dog", "food"), "food")),
        (pr.PronounCase("y1", "it", ("cat", "mouse"), "cat"), pr.PronounCase("y2", "it", ("cat", "mouse"), "mouse")),
    ]
    # tokens: 0 a, 1 <A>, 2 ate, 3 <B>, 4 it
    # head 0 always prefers the first candidate (a 'subject' head): right on x1, y1 only.
    # head 1 prefers A in x1, B in x2, A in y1, A in y2: right on x1, x2, y1 (3 of 4), one pair fully right.
    prefs = {"x1": (0.7, 0.6), "x2": (0.8, 0.3), "y1": (0.9, 0.55), "y2": (0.6, 0.9)}
    names = {"x": ("dog", "food"), "y": ("cat", "mouse")}

    def attentions_of(sentence):
        a_name, b_name = names[sentence[0]]
        tokens = ["a", a_name, "ate", b_name, "it"]
        attn = np.full((1, 2, 5, 5), 0.2)
        for head, share_a in enumerate(prefs[sentence]):
            attn[0, head, 4] = [0.0, 0.5 * share_a, 0.5, 0.5 * (1 - share_a), 0.0]
        return attn, tokens, [0, 1, 2, 3, 4]

    board = pr.score_heads(pairs, attentions_of, held_out=(), selection=())
    assert board.head_correct.tolist() == [[2, 3]]
    assert board.head_pairs.tolist() == [[0, 1]]
    assert board.head_accuracy.tolist() == [[0.5, 0.75]]
    assert board.subject_correct == 2
    assert board.nearest_correct == 2  # nearest before "it" is always B: right on x2 and y2
    assert (board.n_sentences, board.n_pairs) == (4, 2)


def test_builtin_pairs_resolve_on_the_real_tokenizer(model):
    for pair in pr.PAIRS:
        assert pair[0].answer != pair[1].answer
        for case in pair:
            analysis = model.analyze(case.sentence)
            pr.case_words(case, analysis.tokens, analysis.word_ids)


def words_and_sentence(sentence, tokens):
    """Words as the model's tokenizer would give them: here one word per listed token."""
    return sentence, pr.words_of(tokens, list(range(len(tokens))))


def texts(words, indices):
    return [words[i].text for i in indices]


def test_default_pair_skips_determiners_auxiliaries_and_fragments():
    sentence, words = words_and_sentence(
        "The animal didn't cross the street because it was too tired.",
        ["the", "animal", "didn", "'", "t", "cross", "the", "street", "because", "it", "was", "too", "tired", "."])
    choice = pr.choose(sentence, words)
    assert words[choice.pronoun].text == "it"
    assert texts(words, choice.pair) == ["animal", "street"]
    assert 4 in choice.fragments                    # the "t" of "didn't" is no word of its own


def test_noun_phrase_gives_its_last_word_and_verbs_end_it():
    sentence, words = words_and_sentence(
        "The city council refused the demonstrators a permit because they feared violence.",
        ["the", "city", "council", "refused", "the", "demonstrators", "a", "permit", "because", "they", "feared",
         "violence", "."])
    choice = pr.choose(sentence, words)
    assert texts(words, choice.candidates) == ["council", "demonstrators", "permit"]
    assert texts(words, choice.pair) == ["council", "demonstrators"]


def test_subject_pronoun_before_possessive_and_names_first_for_people():
    sentence, words = words_and_sentence("The man could not lift his son because he was so weak.",
                                         "the man could not lift his son because he was so weak .".split())
    choice = pr.choose(sentence, words)
    assert words[choice.pronoun].text == "he" and texts(words, choice.pair) == ["man", "son"]
    sentence, words = words_and_sentence("Sid explained his theory to Mark but he could not convince him.",
                                         "sid explained his theory to mark but he could not convince him .".split())
    choice = pr.choose(sentence, words)
    assert texts(words, choice.pair) == ["sid", "mark"]       # capitalised names, found in the typed text


def test_a_chosen_pronoun_gets_its_own_candidates_and_none_before_it_gives_none():
    sentence, words = words_and_sentence("It ate the food the dog left.", "it ate the food the dog left .".split())
    choice = pr.choose(sentence, words)
    assert choice.pronoun == 0 and choice.pair == ()
    sentence, words = words_and_sentence("The cat saw the dog and it ran to them.",
                                         "the cat saw the dog and it ran to them .".split())
    assert texts(words, pr.choose(sentence, words, pronoun=9).pair) == ["cat", "dog"]


def test_has_pronoun_reads_whole_words_only():
    assert pr.has_pronoun("The dog ate because IT was hungry")
    assert not pr.has_pronoun("Items on the shelf")
    assert not pr.has_pronoun("I am good.")


WINOGRAD_STYLE = {  # sentence -> the intended pair (the page picks it from the typed text alone)
    "The trophy would not fit in the suitcase because it was too big.": ("trophy", "suitcase"),
    "The animal didn't cross the street because it was too tired.": ("animal", "street"),
    "The man could not lift his son because he was so weak.": ("man", "son"),
    "Joan made sure to thank Susan for all the help she had given.": ("joan", "susan"),
    "Paul tried to call George on the phone, but he wasn't successful.": ("paul", "george"),
    "I poured water from the bottle into the cup until it was full.": ("bottle", "cup"),
    "The firemen arrived after the police because they were coming from so far away.": ("firemen", "police"),
    "The delivery truck zoomed by the school bus because it was going so fast.": ("truck", "bus"),
    "Pete envies Martin although he is very successful.": ("pete", "martin"),
    "Susan knows all about Ann's personal problems because she is nosy.": ("susan", "ann"),
    "The older students were bullying the younger ones, so we rescued them.": ("students", "ones"),
    "Sid explained his theory to Mark but he couldn't convince him.": ("sid", "mark"),
    "The fish ate the worm. It was tasty.": ("fish", "worm"),
    "The aardvark chased the wombat because it was hungry.": ("aardvark", "wombat"),
    "The boy couldn't reach the cookie jar because he was too short.": ("boy", "jar"),
}


def test_default_pairs_on_the_real_tokenizer(model):
    for sentence, pair in WINOGRAD_STYLE.items():
        analysis = model.analyze(sentence)
        words = pr.words_of(analysis.tokens, analysis.word_ids)
        assert tuple(texts(words, pr.choose(sentence, words).pair)) == pair, sentence


def rows_for(weights_a, weights_b, n=5):
    """[1, H, n] rows from the pronoun (token 4) with the given weights on A (token 1) and B (token 3)."""
    rows = np.zeros((1, len(weights_a), n))
    for h, (wa, wb) in enumerate(zip(weights_a, weights_b)):
        rows[0, h, 1], rows[0, h, 3] = wa, wb
        rows[0, h, 2] = 1 - wa - wb
    return rows


def test_verdict_ranks_by_absolute_weight_not_by_share():
    # head 0: 99% share but almost nothing on either word (the bug); head 1: most weight on A.
    rows = rows_for([0.0099, 0.40, 0.05], [0.0001, 0.30, 0.25])
    words = pr.words_of(["a", "dog", "was", "food", "it"], [0, 1, 2, 3, 4])
    v = pr.verdict(rows, words[1], words[3])
    assert v.best == (0, 1)
    assert v.looks_elsewhere.tolist() == [[True, False, False]]
    assert (v.n_prefer_a, v.n_prefer_b, v.n_same, v.n_heads) == (2, 1, 0, 3)
    # one head looks elsewhere; of the two that look at the words, one prefers A
    assert (v.looking, v.n_looking, v.n_looking_a) == ("some", 2, 1)
    # "was" gets 30% in the best head, as much as "food": A (40%) is its largest target, under half
    assert (v.best_reading, v.top) == ("largest", 1)
    assert (v.weight_a[v.best], v.weight_b[v.best]) == pytest.approx((0.40, 0.30))


def test_verdict_says_most_when_most_and_names_the_real_top_token():
    words = pr.words_of(["a", "dog", "was", "food", "it"], [0, 1, 2, 3, 4])
    most = pr.verdict(rows_for([0.7], [0.1]), words[1], words[3])
    assert (most.best_reading, most.looking) == ("most", "all")
    little = pr.verdict(rows_for([0.2], [0.1]), words[1], words[3])
    assert (little.best_reading, little.top, little.top_weight) == ("other", 2, pytest.approx(0.7))  # "was"
    nowhere = pr.verdict(rows_for([0.04, 0.02], [0.01, 0.05]), words[1], words[3])
    assert (nowhere.looking, nowhere.n_looking) == ("none", 0)
    tie = pr.verdict(rows_for([0.2, 0.3], [0.2, 0.1]), words[1], words[3])
    assert (tie.n_prefer_a, tie.n_prefer_b, tie.n_same) == (1, 0, 1)


def test_the_grids_paragraph_says_the_verdicts_numbers_and_its_branch():
    """The paragraph under the grids shows the fact's counts and shares, and one text per branch of the facts."""
    from ui.sections.pronoun_verdict import numbers_say

    tokens = ["a", "dog", "was", "food", "it"]
    words = pr.words_of(tokens, [0, 1, 2, 3, 4])
    texts = set()
    for weights_a, weights_b in (([0.7], [0.1]), ([0.2], [0.1]), ([0.04, 0.02], [0.01, 0.05]),
                                 ([0.0099, 0.40, 0.05], [0.0001, 0.30, 0.25])):
        v = pr.verdict(rows_for(weights_a, weights_b), words[1], words[3])
        text = numbers_say(v, "it", "dog", "food", tokens)
        for number in (f"**{v.n_prefer_a} of {v.n_heads} heads**", f"{100 * v.weight_a[v.best]:.0f}%",
                       f"{100 * v.weight_b[v.best]:.0f}%", "10%"):
            assert number in text, (number, text)
        assert ("“was”" in text) == (v.best_reading == "other") and "\n" not in text
        texts.add(text)
    assert len(texts) == 4


def test_one_guessers_range_is_its_5th_to_95th_percentile():
    from math import comb

    for n_pairs in (4, 8, 9, 20):
        low, high = pr.guessing_range(n_pairs)
        cdf = np.cumsum([comb(n_pairs, k) * 0.25 ** k * 0.75 ** (n_pairs - k) for k in range(n_pairs + 1)])
        assert cdf[low] >= 0.05 and (low == 0 or cdf[low - 1] < 0.05)
        assert cdf[high] >= 0.95 and (high == 0 or cdf[high - 1] < 0.95)


def test_choose_head_uses_only_the_rule():
    answer = np.array([[[0.6, 0.5], [0.9, 0.2], [0.8, 0.7]]])   # 1 layer, 3 heads, 2 sentences
    other = np.array([[[0.1, 0.1], [0.1, 0.3], [0.1, 0.1]]])
    # head 1 has the largest mean margin but is wrong on the second sentence: heads 0 and 2 pass, 2 by more.
    assert pr.choose_head(answer, other) == (0, 2, 2)
    assert pr.choose_head(other, answer)[2] == 0                 # nobody passes: still one head, none counted


def test_contrast_counts_heads_and_names_the_chosen_heads_outcome():
    share = np.array([[0.9, 0.8, 0.2, 0.4]])
    contrast = np.array([[0.1, 0.9, 0.3, 0.3]])
    summary = pr.contrast_summary(share, contrast, first_is_a=True)
    assert summary.flipped == [(0, 0)]
    assert (int(summary.right_first.sum()), int(summary.right_second.sum())) == (2, 3)
    assert summary.blank is None and summary.chosen_outcome is None  # nothing said about the grid it was not given
    blank = pr.contrast_summary(share, contrast, first_is_a=True, elsewhere=np.array([[True, False, False, False]]))
    assert blank.blank_heads == [(0, 0)]
    assert pr.contrast_summary(share, contrast, True, chosen=(0, 0)).chosen_outcome == "flips"
    assert pr.contrast_summary(share, contrast, True, chosen=(0, 1)).chosen_outcome == "first_only"
    assert pr.contrast_summary(share, contrast, True, chosen=(0, 2)).chosen_outcome == "contrast_only"
    assert pr.contrast_summary(share, 1 - contrast, True, chosen=(0, 2)).chosen_outcome == "wrong"
    assert pr.contrast_summary(share, contrast, first_is_a=False).flipped == []


def test_the_contrast_paragraph_names_heads_as_people_count():
    from ui.sections.pronoun_verdict import contrast_text

    share = np.array([[0.9, 0.8, 0.2, 0.4]])
    contrast = np.array([[0.1, 0.9, 0.3, 0.3]])
    text = contrast_text(pr.contrast_summary(share, contrast, True, elsewhere=np.array([[True, False, False, False]]),
                                             chosen=(0, 1)), 1)
    assert "**2**" in text and "**3**" in text and "**1**" in text  # right first, on the contrast, both
    assert "(L1 H1)" in text and "L1 H2" in text                        # the blank flipper, the chosen head
    assert "L0" not in text and "H0" not in text


def board_with(pairs_right: int, held_right: int, n_pairs: int = 8) -> pr.Scoreboard:
    """A scoreboard whose chosen head (the code's layer 0, head 0) gets pairs_right pairs and held_right of 10 easy sentences; the fixed
    rules get 5 and 4 of them."""
    head_pairs = np.zeros((1, 2), int)
    head_pairs[0, 0] = pairs_right
    held = np.zeros((1, 2, 10), int)
    held[0, 0, :held_right] = 1
    return pr.Scoreboard(np.zeros((1, 2), int), head_pairs, 2 * n_pairs, n_pairs, n_pairs, n_pairs, 0, 0, 1, 6, held,
                         5, 4, np.full((1, 2), 0.6))


def test_the_record_reads_the_chosen_head_against_one_guesser_and_the_fixed_rules():
    from ui.sections.pronoun_verdict import page_verdict

    words = [pr.Word("dog", (1,)), pr.Word("food", (3,))]
    rows = np.zeros((1, 2, 5))
    rows[0, 0, 1], rows[0, 0, 3] = 0.3, 0.1
    found = pr.verdict(rows, words[0], words[1])
    low, high = pr.guessing_range(8)
    readings = {(1, 9): "cues_only", (high + 1, 9): "cues_and_meaning", (1, 3): "neither",
                (high + 1, 3): "meaning_only"}
    texts = set()
    for (pairs_right, held_right), reading in readings.items():
        record = pr.chosen_record(board_with(pairs_right, held_right))
        assert (record.pairs_right, record.held_right) == (pairs_right, held_right)
        assert (record.subject, record.nearest) == (5, 4)
        assert (record.guess_low, record.guess_high, record.n_checked) == (low, high, 10 + 16)
        assert record.reading == reading and record.looks_at_nouns   # 0.6 of the pronoun's attention on the two
        first_read, measured = page_verdict(found, "dog", "food", "it", board_with(pairs_right, held_right))
        # first its weights on this sentence; one click away its counts, the fixed rules' and one guesser's
        for number in ("30%", "10%"):
            assert number in first_read, (number, first_read)
        for number in (f"{pairs_right} of 8", f"{held_right} of 10", "5", "4", f"{low} to {high}"):
            assert number in measured, (number, measured)
        texts.add(first_read.split("**")[1])
    assert len(texts) == 4    # a verdict of its own for each reading of the numbers
    assert pr.chosen_record(board_with(0, 9)).pairs_against_guessing == ("below" if low > 0 else "within")
    assert page_verdict(found, "dog", "food", "it", pr.Scoreboard(np.zeros((1, 2), int), np.zeros((1, 2), int),
                                                                  16, 8, 8, 8)) == ("", "")


def test_the_real_record_is_the_preset_heads_held_out_record(model):
    """The record computed here case by case from the model, not through score_heads."""
    from ui.sections.pronoun_verdict import page_verdict
    from ui.settings import PRONOUN_HEAD

    def right(case):
        analysis = model.analyze(case.sentence)
        pronoun, a, b = pr.case_words(case, analysis.tokens, analysis.word_ids)
        share = pr.preference(analysis.attentions[PRONOUN_HEAD], pronoun, a, b)
        return bool(share > 0.5) == (case.answer == case.candidates[0])

    def attentions_of(text):
        analysis = model.analyze(text)
        return analysis.attentions, analysis.tokens, analysis.word_ids

    board = pr.score_heads(pr.PAIRS, attentions_of)
    assert board.chosen == PRONOUN_HEAD
    held = sum(right(case) for case in pr.HELD_OUT)
    pairs = sum(right(first) and right(second) for first, second in pr.PAIRS)
    record = pr.chosen_record(board)
    assert (record.held_right, record.pairs_right) == (held, pairs)
    # the branch is the one the numbers call for
    cues = held > max(record.subject, record.nearest)
    above = pairs > record.guess_high
    assert record.reading == {(True, True): "cues_and_meaning", (True, False): "cues_only",
                              (False, True): "meaning_only", (False, False): "neither"}[cues, above]
    analysis = model.analyze(pr.PAIRS[0][0].sentence)
    pronoun, a, b = pr.case_words(pr.PAIRS[0][0], analysis.tokens, analysis.word_ids)
    found = pr.verdict(analysis.attentions[:, :, list(pronoun.pieces)].mean(2), a, b)
    _, text = page_verdict(found, a.text, b.text, "it", board)  # how the verdict was measured
    assert f"{held} of {len(pr.HELD_OUT)}" in text and f"{pairs} of {len(pr.PAIRS)}" in text


def test_rollout_lead():
    assert pr.rollout_lead({"dog": 0.03, "food": 0.02}).reading == "nothing"
    assert pr.rollout_lead({"dog": 0.30, "food": 0.29}).reading == "tie"
    lead = pr.rollout_lead({"dog": 0.10, "food": 0.30})
    assert (lead.reading, lead.top, lead.lead) == ("lead", "food", pytest.approx(0.20))


def test_the_rollout_sentence_shows_each_share_and_the_lead():
    from ui.sections.pronoun_verdict import rollout_text

    text = rollout_text({"dog": 0.30, "food": 0.10}, "it", 12)
    assert "30%" in text and "10%" in text and "“dog”" in text and "20" in text and "8%" in text  # 1/12
