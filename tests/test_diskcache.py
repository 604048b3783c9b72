"""The disk cache (serving/diskcache.py, joblib.Memory): a restarted server reads the Training lab's runs, the pronoun
test set and the meaning page's built-in word sets back instead of computing them, with the same numbers; it never
reads an entry the code, the model files or the libraries could have changed, nor one from a folder others may
write to (joblib's files are pickles)."""

import dataclasses
import math
import os
import shutil

import numpy as np
import pytest

from lessons import meaning, training
from serving import diskcache, shared


def assert_same(a, b):
    """Equal values of equal types, arrays with equal dtypes and bits (NaN equal to NaN)."""
    assert type(a) is type(b), (type(a), type(b))
    if dataclasses.is_dataclass(a):
        for field in dataclasses.fields(a):
            assert_same(getattr(a, field.name), getattr(b, field.name))
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    else:
        assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)), (a, b)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv(diskcache.CACHE_ENV, str(folder))
    shared.SHARED_RESULTS.clear()
    shared.MEANING_RESULTS.clear()
    yield folder
    shared.SHARED_RESULTS.clear()
    shared.MEANING_RESULTS.clear()


@pytest.fixture
def count_trainings(monkeypatch):
    calls = []
    original = training.train
    monkeypatch.setattr(training, "train", lambda *a, **k: calls.append(a[0]) or original(*a, **k))
    return calls


def short_run(**changes):
    main, _ = shared.lab_runs()
    return {**main, "steps": 20, "snapshots": (0, 20), **changes}


def entries(folder) -> list:
    return sorted(folder.rglob("output.pkl"))


def test_a_restarted_server_reads_the_runs_back_instead_of_training(model, cache, count_trainings):
    first = shared.training_run(model, **short_run())
    board = shared.builtin_pronoun_scoreboard(model)
    scorings = shared.BUILTIN_PRONOUN_SCORINGS["count"]
    assert count_trainings == ["previous"] and len(entries(cache)) == 2
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    shared.SHARED_RESULTS.clear()  # what a new server process starts with

    again = shared.training_run(model, **short_run())
    assert count_trainings == ["previous"]  # read, not trained
    assert shared.builtin_pronoun_scoreboard(model) is not board
    assert shared.BUILTIN_PRONOUN_SCORINGS["count"] == scorings
    assert_same(again, first)  # every field, every bit, the same types (losses stay a list of floats)
    assert_same(shared.builtin_pronoun_scoreboard(model), board)
    shared.training_run(model, **short_run(seed=1))  # another setting is another entry
    assert count_trainings == ["previous", "previous"] and len(entries(cache)) == 3


def test_another_fingerprint_is_computed_again_and_a_damaged_entry_is_replaced(model, cache, count_trainings,
                                                                               monkeypatch):
    first = shared.training_run(model, **short_run())
    [entry] = entries(cache)
    entry.write_bytes(b"not a pickle")
    shared.SHARED_RESULTS.clear()
    assert_same(shared.training_run(model, **short_run()), first)  # computed again, not a crash
    assert len(count_trainings) == 2
    shared.SHARED_RESULTS.clear()
    shared.training_run(model, **short_run())
    assert len(count_trainings) == 2  # the rewritten entry reads back

    monkeypatch.setattr(diskcache, "fingerprint", lambda path: "other code")  # an edit to lessons/, a new numpy
    shared.SHARED_RESULTS.clear()
    shared.training_run(model, **short_run())
    assert len(count_trainings) == 3


def test_an_error_of_the_computation_itself_reaches_the_caller_once(model, cache):
    calls = []

    def fails():
        calls.append(1)
        raise ValueError("a word set that cannot be measured")

    with pytest.raises(ValueError):
        diskcache.stored("meaning", ("a key",), model, fails)
    assert calls == [1] and not entries(cache)


def test_a_change_to_the_code_or_a_model_file_changes_the_fingerprint(tmp_path):
    code = tmp_path / "core.py"
    code.write_text("SCALE = 1\n")
    model_folder = tmp_path / "model"
    model_folder.mkdir()
    weights = model_folder / "model.safetensors"
    weights.write_bytes(b"1234")
    before = diskcache.fingerprint(str(model_folder), diskcache.code_digest((code,)))
    diskcache.fingerprint.cache_clear()
    assert diskcache.fingerprint(str(model_folder), diskcache.code_digest((code,))) == before  # nothing changed

    code.write_text("SCALE = 2\n")
    after_code = diskcache.fingerprint(str(model_folder), diskcache.code_digest((code,)))
    weights.write_bytes(b"5678")  # same size; its change time moves
    os.utime(weights, ns=(0, 0))
    diskcache.fingerprint.cache_clear()
    after_model = diskcache.fingerprint(str(model_folder), diskcache.code_digest((code,)))
    assert len({before, after_code, after_model}) == 3
    diskcache.fingerprint.cache_clear()
    # The code a process runs is read when it starts: an edit on disk meanwhile does not relabel its results.
    assert diskcache.fingerprint(str(model_folder)) == diskcache.fingerprint(str(model_folder),
                                                                              diskcache._CODE_DIGEST)


@pytest.mark.parametrize("setting", ["off", "shared", "not a folder"])
def test_nothing_is_kept_where_it_is_switched_off_or_others_could_write(model, tmp_path, monkeypatch, setting,
                                                                        count_trainings):
    if setting == "off":
        folder = tmp_path / "unused"
        monkeypatch.setenv(diskcache.CACHE_ENV, "off")
    elif setting == "shared":  # a folder everyone may write to: a pickle there could run anybody's code
        folder = tmp_path / "everyone"
        folder.mkdir()
        folder.chmod(0o777)
        monkeypatch.setenv(diskcache.CACHE_ENV, str(folder))
    else:  # e.g. a read-only or broken home: the app works, it only computes again
        (tmp_path / "a file").write_text("")
        folder = tmp_path / "a file" / "cache"
        monkeypatch.setenv(diskcache.CACHE_ENV, str(folder))
    assert diskcache.cache_folder() is None
    shared.SHARED_RESULTS.clear()
    first = shared.training_run(model, **short_run())
    shared.SHARED_RESULTS.clear()
    assert_same(shared.training_run(model, **short_run()), first)
    assert len(count_trainings) == 2
    assert not folder.is_dir() or not list(folder.iterdir())
    shared.SHARED_RESULTS.clear()


def test_the_default_folder_follows_xdg_cache_home(tmp_path, monkeypatch):
    monkeypatch.delenv(diskcache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert diskcache.cache_folder() == tmp_path / "attention-explainer"
    shutil.rmtree(tmp_path / "attention-explainer")


def test_a_restarted_warm_up_worker_reads_what_the_first_one_kept(tmp_path):
    """Two workers in a row (two server starts) with one cache folder: the second computes no training and no
    pronoun score (no entry is rewritten) and hands over the same results."""
    import io
    import pickle
    import subprocess
    import sys

    from attention.model import resolve_model_name

    environment = dict(os.environ, **{diskcache.CACHE_ENV: str(tmp_path)})

    def worker_results():
        done = subprocess.run([sys.executable, "-m", "serving.warmup", resolve_model_name(None)], cwd=shared._ROOT,
                              env=environment, capture_output=True, timeout=300, check=True)
        results, stream = [], io.BytesIO(done.stdout)
        while stream.tell() < len(done.stdout):
            results.append(pickle.load(stream))
        return {(kind, repr(key)): value for kind, key, value in results if kind in ("shared", "meaning")}

    first = worker_results()
    written = {path: path.stat().st_ino for path in entries(tmp_path)}
    # the pronoun test set, the trainings and the meaning page's built-in word sets
    assert len(first) == len(written) == 2 + len(shared.lab_runs()[1]) + len(meaning.BUILT_IN)
    second = worker_results()
    assert {path: path.stat().st_ino for path in entries(tmp_path)} == written  # read, none written again
    assert first.keys() == second.keys()
    for key in first:
        assert_same(second[key], first[key])


def test_the_code_fingerprint_covers_every_module_that_computes_a_stored_number():
    """An entry is read only while the code that computed it is unchanged: every module of attention/ and lessons/
    that the stored computations run (the training loop, the pronoun scoring, the meaning measurement and what
    they import) is in the fingerprint. (When training moved to lessons/, the fingerprint kept naming attention/
    alone, and an edit to the training loop read the old runs back.)"""
    import inspect
    import sys
    from pathlib import Path

    from lessons import pronoun

    covered = set(diskcache.CODE_FILES)
    for computes in (training.train, pronoun.score_heads, meaning.measure, shared.training_run):
        assert Path(inspect.getfile(computes)) in covered, computes
    used = {Path(module.__file__) for name, module in list(sys.modules.items())
            if name.split(".")[0] in ("attention", "lessons") and getattr(module, "__file__", None)}
    assert used and used <= covered, sorted(map(str, used - covered))


def _count_measurements(monkeypatch) -> list[str]:
    calls = []
    original = meaning.measure
    monkeypatch.setattr(meaning, "measure", lambda *a, **k: calls.append(a[1]) or original(*a, **k))
    return calls


def test_the_built_in_word_sets_read_back_and_what_a_visitor_typed_is_never_written(model, cache, monkeypatch):
    calls = _count_measurements(monkeypatch)
    bank = meaning.BUILT_IN["bank"]
    first = shared.meaning_measurement(model, bank.word, list(bank.meaning_a), list(bank.meaning_b))
    assert len(entries(cache)) == 1
    shared.MEANING_RESULTS.clear()  # what a new server process starts with
    again = shared.meaning_measurement(model, bank.word, list(bank.meaning_a), list(bank.meaning_b))
    assert calls == ["bank"]  # read, not measured
    assert_same(again, first)
    typed = [*bank.meaning_a[:4], "We had a picnic on the bank of the creek."]
    shared.meaning_measurement(model, "bank", typed, list(bank.meaning_b))
    assert calls == ["bank", "bank"]
    assert len(entries(cache)) == 1  # a student's sentences stay in the server's memory only


def test_the_pytorch_model_does_not_read_what_the_numpy_pass_kept(model, reference, cache):
    """The same checkpoint run by PyTorch agrees with the numpy pass to 1e-5, not bit for bit: its own entry."""
    shared.builtin_pronoun_scoreboard(model)
    scorings = shared.BUILTIN_PRONOUN_SCORINGS["count"]
    shared.SHARED_RESULTS.clear()
    shared.builtin_pronoun_scoreboard(reference)
    assert shared.BUILTIN_PRONOUN_SCORINGS["count"] == scorings + 1
    assert len(entries(cache)) == 2
