"""The disk cache (serving/diskcache.py): a restarted server reads the Training lab's runs, the pronoun test set and
the meaning page's built-in word sets back instead of computing them, with the same numbers, and never reads an entry the code, the model files or
numpy could have changed."""

import dataclasses
import math
import os
import shutil
import time

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


def test_a_restarted_server_reads_the_runs_back_instead_of_training(model, cache, count_trainings):
    first = shared.training_run(model, **short_run())
    board = shared.builtin_pronoun_scoreboard(model)
    scorings = shared.BUILTIN_PRONOUN_SCORINGS["count"]
    assert count_trainings == ["previous"]
    assert sorted(p.name.split("-")[0] for p in cache.iterdir()) == ["pronoun", "training"]
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    shared.SHARED_RESULTS.clear()  # what a new server process starts with

    again = shared.training_run(model, **short_run())
    assert count_trainings == ["previous"]  # read, not trained
    assert shared.builtin_pronoun_scoreboard(model) is not board
    assert shared.BUILTIN_PRONOUN_SCORINGS["count"] == scorings
    assert_same(again, first)  # every field, every bit, the same types (losses stay a list of floats)
    assert_same(shared.builtin_pronoun_scoreboard(model), board)
    shared.training_run(model, **short_run(seed=1))  # another setting is another entry
    assert count_trainings == ["previous", "previous"]


def test_a_run_that_diverged_reads_back_with_its_infinite_loss(model, cache):
    run = training.TrainingRun(task="copy", d_k=4, scaled=False, steps=2, lr=9.0, losses=[1.0, float("inf")],
                               diverged=True, final_loss=float("inf"), shown_ids=np.arange(8), start_qk_variance=2.0)
    stamp = "a" * 20
    diskcache.save("training", ("a key",), stamp, run)
    assert_same(diskcache.load("training", ("a key",), stamp), run)
    assert diskcache.load("training", ("another key",), stamp) is None
    assert diskcache.load("training", ("a key",), "b" * 20) is None


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


def test_unused_and_surplus_entries_leave_and_nothing_else_is_touched(cache, monkeypatch):
    params = training.HeadParams(np.ones((2, 2)), np.zeros((2, 2)), np.eye(2))
    with pytest.raises(TypeError):  # only the classes it knows are stored (and rebuilt)
        diskcache.to_arrays(dataclasses.make_dataclass("Other", ["x"])(1))
    old, other, new = "0" * 20, "1" * 20, "2" * 20  # fingerprints: older code, another model, this one

    def keep(key, stamp):
        diskcache.save("training", key, stamp, training.TrainingRun("copy", 4, True, 1, 0.1, params=params, heldout_loss=0.1, start_qk_variance=1.0))

    def stamps():
        return sorted(p.name.split("-")[1] for p in cache.glob("training-*-*"))

    keep(("k",), old)
    keep(("k",), other)
    month_ago = time.time() - 31 * 86400
    (entry_of_old,) = cache.glob(f"training-{old}-*")
    os.utime(entry_of_old, (month_ago, month_ago))
    (cache / "my notes.txt").write_text("mine")
    (cache / "training-mine.npz").write_bytes(b"mine")
    (cache / ".writing-left-by-a-killed-worker.npz").write_bytes(b"half")
    os.utime(cache / ".writing-left-by-a-killed-worker.npz", (month_ago, month_ago))
    keep(("k",), new)
    assert stamps() == [other, new]  # the unread one left; another model's, still in use, stays
    assert_same(diskcache.load("training", ("k",), new).params, params)
    assert (cache / "my notes.txt").read_text() == "mine" and (cache / "training-mine.npz").exists()
    assert not list(cache.glob(".writing-*"))

    monkeypatch.setattr(diskcache, "MAX_ENTRIES", 2)  # beyond it, the least recently read leaves
    entry_of_other = next(cache.glob(f"training-{other}-*"))
    os.utime(entry_of_other, (month_ago + 86400, month_ago + 86400))
    assert diskcache.load("training", ("k",), other) is not None  # read now: recently used again
    keep(("another key",), new)
    assert stamps() == [other, new] and entry_of_other.exists()  # the entry of ("k",) under new left
    assert diskcache.load("training", ("k",), new) is None and diskcache.load("training", ("another key",), new)


def test_a_damaged_entry_is_computed_again_and_replaced(model, cache, count_trainings):
    first = shared.training_run(model, **short_run())
    (entry,) = cache.glob("training-*")
    entry.write_bytes(b"not an npz file")
    shared.SHARED_RESULTS.clear()
    assert_same(shared.training_run(model, **short_run()), first)
    assert len(count_trainings) == 2
    shared.SHARED_RESULTS.clear()
    shared.training_run(model, **short_run())
    assert len(count_trainings) == 2  # the replaced entry reads back


@pytest.mark.parametrize("setting", ["off", "shared", "not a folder"])
def test_nothing_is_kept_where_it_is_switched_off_or_others_could_write(model, tmp_path, monkeypatch, setting,
                                                                        count_trainings):
    if setting == "off":
        folder = tmp_path / "unused"
        monkeypatch.setenv(diskcache.CACHE_ENV, "off")
    elif setting == "shared":  # a folder everyone may write to: its files could hold anybody's numbers
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
    written = {path.name: path.stat().st_ino for path in tmp_path.iterdir()}
    # the pronoun test set, the trainings and the meaning page's built-in word sets
    assert len(first) == len(written) == 2 + len(shared.lab_runs()[1]) + len(meaning.BUILT_IN)
    second = worker_results()
    assert {path.name: path.stat().st_ino for path in tmp_path.iterdir()} == written  # read, none written again
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
    assert [p.name.split("-")[0] for p in cache.iterdir()] == ["meaning"]
    shared.MEANING_RESULTS.clear()  # what a new server process starts with
    again = shared.meaning_measurement(model, bank.word, list(bank.meaning_a), list(bank.meaning_b))
    assert calls == ["bank"]  # read, not measured
    assert_same(again, first)
    typed = [*bank.meaning_a[:4], "We had a picnic on the bank of the creek."]
    shared.meaning_measurement(model, "bank", typed, list(bank.meaning_b))
    assert calls == ["bank", "bank"]
    assert len(list(cache.iterdir())) == 1  # a student's sentences stay in the server's memory only


def test_a_measurement_with_missing_and_repeated_sentences_reads_back_whole(model, cache):
    bank = meaning.BUILT_IN["bank"]
    measured = meaning.measure(model, "bank", [*bank.meaning_a, "There is no such word here."],
                               [*bank.meaning_b, "The bank sold the bank next door."])
    assert measured.missing and measured.repeated and measured.head_costs is not None
    stamp = "a" * 20
    diskcache.save("meaning", ("a key",), stamp, measured)
    assert_same(diskcache.load("meaning", ("a key",), stamp, model), measured)
    (entry,) = cache.glob("meaning-*")
    for damage in (lambda arrays, meta: arrays.update(similarity=arrays["similarity"][:, :-1]),
                   lambda arrays, meta: arrays.update(head_costs=arrays["head_costs"][:5]),
                   lambda arrays, meta: meta["layout"]["lists"]["missing"][0]["scalars"].update(group=7),
                   lambda arrays, meta: arrays.update(sentences=np.arange(len(measured.sentences))),  # not words
                   lambda arrays, meta: (arrays.update(sentences=np.arange(len(measured.sentences))),
                                         meta["layout"]["lists"].update(sentences="int"))):
        diskcache.save("meaning", ("a key",), stamp, measured)
        _rewrite(entry, damage)
        assert diskcache.load("meaning", ("a key",), stamp, model) is None


def test_the_pytorch_model_does_not_read_what_the_numpy_pass_kept(model, reference, cache):
    """The same checkpoint run by PyTorch agrees with the numpy pass to 1e-5, not bit for bit: its own entry."""
    shared.builtin_pronoun_scoreboard(model)
    scorings = shared.BUILTIN_PRONOUN_SCORINGS["count"]
    shared.SHARED_RESULTS.clear()
    shared.builtin_pronoun_scoreboard(reference)
    assert shared.BUILTIN_PRONOUN_SCORINGS["count"] == scorings + 1
    assert len(list(cache.glob("pronoun-*"))) == 2


# --- issue 43: only regular files of a bounded size, every field of its type and shape ---------------------------

def _rewrite(entry, change):
    """The entry as a hand-made file would have it: its arrays and description changed by change(arrays, meta)."""
    import json

    with np.load(entry, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    meta = json.loads(str(arrays.pop("__meta__")))
    change(arrays, meta)
    with open(entry, "wb") as file:
        np.savez(file, __meta__=np.array(json.dumps(meta)), **arrays)


def _read_again_within(seconds, read):
    """read() in a thread: a page must never hang on an entry (a named pipe once blocked every reader for good)."""
    import threading

    done = []
    worker = threading.Thread(target=lambda: done.append(read()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert done, f"reading the entry hung for {seconds} s"
    return done[0]


def _wrong_type(arrays, meta):
    meta["layout"]["scalars"]["d_k"] = "four"


def _float_where_an_array_belongs(arrays, meta):
    arrays["shown_ids"] = np.array(3.5)


def _wrong_shape(arrays, meta):
    arrays["snapshots.0"] = arrays["snapshots.0"][:, :-1]  # no longer square


def _wrong_weights(arrays, meta):
    arrays["params.w_q"] = arrays["params.w_q"][:, :3]  # not the run's d_k


def _losses_as_a_matrix(arrays, meta):
    arrays["losses"] = np.stack([arrays["losses"], arrays["losses"]])


def _nan_losses_behind_diverged(arrays, meta):
    arrays["losses"] = np.full_like(arrays["losses"], np.nan)
    meta["layout"]["scalars"]["diverged"] = True


@pytest.mark.parametrize("damage", [_wrong_type, _float_where_an_array_belongs, _wrong_shape, _wrong_weights,
                                    _losses_as_a_matrix, _nan_losses_behind_diverged])
def test_an_entry_with_a_field_of_the_wrong_type_or_shape_is_computed_again(model, cache, count_trainings, damage):
    first = shared.training_run(model, **short_run())
    (entry,) = cache.glob("training-*")
    _rewrite(entry, damage)
    shared.SHARED_RESULTS.clear()
    assert_same(_read_again_within(60, lambda: shared.training_run(model, **short_run())), first)
    assert len(count_trainings) == 2  # refused, trained again
    shared.SHARED_RESULTS.clear()
    shared.training_run(model, **short_run())
    assert len(count_trainings) == 2  # and the entry was replaced by one that reads back


def test_a_pronoun_scoreboard_of_the_wrong_shape_is_computed_again(model, cache):
    board = shared.builtin_pronoun_scoreboard(model)
    (entry,) = cache.glob("pronoun-*")
    _rewrite(entry, lambda arrays, meta: arrays.update(head_correct=arrays["head_correct"][:5]))
    shared.SHARED_RESULTS.clear()
    scored = shared.BUILTIN_PRONOUN_SCORINGS["count"]
    assert_same(shared.builtin_pronoun_scoreboard(model), board)
    assert shared.BUILTIN_PRONOUN_SCORINGS["count"] == scored + 1


def test_a_pipe_a_symlink_and_oversized_entries_are_refused_and_computed_again(model, cache, count_trainings,
                                                                                tmp_path):
    import zipfile

    first = shared.training_run(model, **short_run())
    (entry,) = cache.glob("training-*")
    good = tmp_path / "good.npz"
    shutil.copy(entry, good)

    def refused_then_replaced(make_bad):
        trained = len(count_trainings)
        entry.unlink()
        make_bad()
        shared.SHARED_RESULTS.clear()
        assert_same(_read_again_within(60, lambda: shared.training_run(model, **short_run())), first)
        assert len(count_trainings) == trained + 1
        assert entry.is_file() and not entry.is_symlink()  # computed again and written in its place

    refused_then_replaced(lambda: os.mkfifo(entry))  # a named pipe: opening it to read would wait for a writer
    refused_then_replaced(lambda: entry.symlink_to(good))  # a symlink, even to a good entry
    # over the file's bound: the good entry and 9 MB more
    refused_then_replaced(lambda: entry.write_bytes(good.read_bytes() + b"\0" * (9 * 2**20)))

    def expanding():  # 1.2 MB on disk, 41 MB once its members are read
        with np.load(good, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
        with zipfile.ZipFile(entry, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, array in {**arrays, "padding": np.zeros(40 * 2**20, dtype=np.uint8)}.items():
                with archive.open(name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
        assert entry.stat().st_size < diskcache.MAX_ENTRY_BYTES

    refused_then_replaced(expanding)
    assert diskcache._read_entry(good)  # the good copy itself still reads
