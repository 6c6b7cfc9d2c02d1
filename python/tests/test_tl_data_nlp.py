"""strata.tl.files' data sets from local files and strata.tl.nlp, on the fixtures
tests/data/make_tl_fixtures.py wrote with the real tools, against TensorLayer 2.2.5's output and
sacrebleu's scores stored beside them."""
import json
import os
import shutil

import numpy as np
import pytest

import strata
import strata.tl as tl
from strata import data

FIXTURES = os.path.join(os.environ.get("STRATA_TESTS_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "tests")),
                        "data", "tl_fixtures")


def expected(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


def test_read_mat_gives_scipys_values():
    mat = data.read_mat(os.path.join(FIXTURES, "basic_compressed.mat"))
    np.testing.assert_array_equal(np.asarray(mat["d"]), np.arange(6.0).reshape(2, 3) / 4 - 0.5)
    np.testing.assert_array_equal(np.asarray(mat["u8"]), (np.arange(24).reshape(2, 3, 4) * 7 % 256).astype(np.uint8))
    assert mat["s"] == "hello, MAT" and mat["rows"] == ["ab", "cd"]
    assert mat["c"][1] == "xy" and [e["b"] for e in mat["st"]] == ["one", "two"]
    with pytest.raises(strata.Error, match="missing.mat"):
        data.read_mat(os.path.join(FIXTURES, "missing.mat"))


def test_svhn_and_mpii_match_tensorlayer():
    x_train, y_train, x_test, y_test = tl.files.load_cropped_svhn(FIXTURES, include_extra=False)
    want = expected("svhn_expected.json")
    assert list(x_train.shape) == want["train_shape"] and y_train.tolist() == want["train_labels"]
    assert list(x_test.shape) == want["test_shape"] and y_test.tolist() == want["test_labels"]
    assert x_train.sum() == pytest.approx(want["train_sum"])
    img_train, ann_train, img_test, ann_test = tl.files.load_mpii_pose_dataset(FIXTURES)
    want = expected("mpii_expected.json")["all"]
    assert [os.path.basename(p) for p in img_train] == want["img_train"]
    first = ann_train[0][0]
    assert first["head_rect"] == want["ann_train"][0][0]["head_rect"]
    assert {str(k): v for k, v in first["joint_pos"].items()} == want["ann_train"][0][0]["joint_pos"]
    assert first["is_visible"] == want["ann_train"][0][0]["is_visible"]
    assert len(ann_test[0]) == len(want["ann_test"][0])


def test_text_sets_match_tensorlayer(tmp_path):
    want = expected("text_expected.json")
    assert tl.files.load_matt_mahoney_text8_dataset(FIXTURES) == want["text8"]
    assert tl.files.load_nietzsche_dataset(FIXTURES) == want["nietzsche"]
    shutil.copytree(os.path.join(FIXTURES, "wmt_en_fr"), tmp_path / "wmt_en_fr")
    train, dev = tl.files.load_wmt_en_fr_dataset(str(tmp_path))
    assert os.path.isfile(train + ".en") and os.path.isfile(dev + ".fr")
    with pytest.raises(strata.Error, match="text8.zip"):
        tl.files.load_matt_mahoney_text8_dataset(str(tmp_path))


def test_image_sets_choose_tensorlayers_files():
    want = expected("images_expected.json")
    assert [os.path.basename(p) for p in data.load_flickr25k(os.path.join(FIXTURES, "flickr25k"), "sky")] == \
        want["flickr25k_sky"]
    assert tl.files.load_celebA_dataset(FIXTURES) == [os.path.join(FIXTURES, "celebA", n) for n in want["celeba"]]
    assert data.imagenet_classes()[281] == want["imagenet"]["281"]


def test_nlp_matches_tensorlayer_and_sacrebleu(tmp_path):
    want = expected("translate_expected.json")
    source = os.path.join(FIXTURES, "wmt_en_fr", "newstest2013.en")
    lines = open(source).read().split("\n")[:-1]
    assert [tl.nlp.basic_tokenizer(s) for s in lines] == want["tokens"]
    vocab_path = str(tmp_path / "vocab")
    tl.nlp.create_vocabulary(vocab_path, source, 40)
    assert open(vocab_path).read() == want["vocabulary40"]
    vocab, rev = tl.nlp.initialize_vocabulary(vocab_path)
    assert [tl.nlp.sentence_to_token_ids(s, vocab) for s in lines] == want["ids40"]
    framed = tl.nlp.sentence_to_token_ids(lines[0], vocab, start_id=tl.nlp.GO_ID, end_id=tl.nlp.EOS_ID)
    assert framed == [1] + want["ids40"][0] + [2]
    for case in expected("bleu_expected.json")["cases"]:
        b = tl.nlp.corpus_bleu(case["hypotheses"], case["references"], case["lowercase"])
        assert b["score"] == pytest.approx(case["score"], abs=1e-9)
        assert list(b["counts"]) == case["counts"]
    analogy = expected("analogy_expected.json")
    word2id = {w: i for i, w in enumerate(analogy["words"])}
    questions = tl.nlp.read_analogies_file(os.path.join(FIXTURES, "questions-words.txt"), word2id)
    assert questions.tolist() == analogy["ids"]
    correct, total = tl.nlp.evaluate_analogies(np.array(analogy["embedding"], np.float32), questions)
    assert (correct, total) == (analogy["correct"], len(analogy["ids"]))


def test_imdb_matches_tensorlayer():
    for case in expected("imdb_expected.json")["cases"]:
        x_train, y_train, x_test, y_test = tl.files.load_imdb_dataset(FIXTURES, **case["kwargs"])
        assert x_train.dtype == object and [list(s) for s in x_train] == case["x_train"]
        assert y_train.tolist() == case["y_train"] and y_test.tolist() == case["y_test"]
        assert [list(s) for s in x_test] == case["x_test"]


def test_process_sentence_tokenizes_as_nltk():
    # NLTK 3.9.1: word_tokenize("they'll say i can't.", preserve_line=True)
    assert tl.nlp.process_sentence("They'll say I can't.") == ["<S>", "they", "'ll", "say", "i", "ca", "n't", ".",
                                                               "</S>"]
    assert tl.nlp.process_sentence("\"Hi\" (there)", None, None) == ["``", "hi", "''", "(", "there", ")"]
