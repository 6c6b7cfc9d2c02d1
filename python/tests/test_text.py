"""strata.data's text corpora and TensorLayer's names for them (tl.files.load_ptb_dataset,
tl.iterate.ptb_iterator), on small corpora written here in the real formats."""
import os

import numpy as np
import pytest

import strata
import strata.tl as tl
from strata import data

PTB = {"train": " the cat sat on the mat \n the dog sat \n", "valid": " the cat ran \n", "test": " a dog sat \n"}


def write_ptb(directory):
    os.makedirs(directory, exist_ok=True)
    for split, text in PTB.items():
        with open(os.path.join(directory, f"ptb.{split}.txt"), "w") as f:
            f.write(text)
    return str(directory)


def test_read_words_and_tokenize_words(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("a b\n c \n")
    assert data.read_words(str(path)) == ["a", "b", "<eos>", "c", "<eos>"]
    assert data.read_words(str(path), eos="") == ["a", "b", "c"]
    assert data.tokenize_words("Hello, World! It's\u2014done.") == ["hello", "world", "it's", "done"]
    with pytest.raises(strata.Error, match="missing.txt"):
        data.read_words(str(tmp_path / "missing.txt"))


def test_vocabulary_ids_by_count_and_its_file(tmp_path):
    vocab = data.Vocabulary.build("b a b c b a".split())
    assert [vocab.word(i) for i in range(len(vocab))] == ["b", "a", "c", "<unk>"]
    assert vocab.count(0) == 3 and "a" in vocab and "z" not in vocab
    assert vocab.words_to_word_ids(["c", "z"]) == [2, vocab.unknown_id]
    assert vocab.word_ids_to_words([1, 0]) == ["a", "b"]
    capped = data.Vocabulary.build("b a b c b a".split(), max_size=2)
    assert len(capped) == 2 and capped.count(capped.unknown_id) == 3  # a and c left out
    vocab.save(str(tmp_path / "vocab.txt"))
    again = data.Vocabulary.load(str(tmp_path / "vocab.txt"))
    assert [again.word(i) for i in range(len(again))] == ["b", "a", "c", "<unk>"]
    with pytest.raises(strata.Error):
        vocab.word(4)


def test_load_ptb_and_tensorlayers_load_ptb_dataset(tmp_path):
    train, valid, test, vocab = data.load_ptb(write_ptb(tmp_path / "flat"))
    # Training words by count: the 3, sat 2, <eos> 2, then the ones alphabetically; <unk> last.
    assert [vocab.word(i) for i in range(len(vocab))] == ["the", "<eos>", "sat", "cat", "dog", "mat", "on", "<unk>"]
    assert train.dtype == "int64" and np.asarray(train).tolist() == [0, 3, 2, 6, 0, 5, 1, 0, 4, 2, 1]
    assert np.asarray(valid).tolist() == [0, 3, vocab.unknown_id, 1]  # "ran" is not a training word
    assert np.asarray(test).tolist() == [vocab.unknown_id, 4, 2, 1]

    # TensorLayer's layout (path/ptb/simple-examples/data) and return convention: lists and a size.
    write_ptb(tmp_path / "data" / "ptb" / "simple-examples" / "data")
    tl_train, tl_valid, tl_test, vocab_size = tl.files.load_ptb_dataset(str(tmp_path / "data"))
    assert tl_train == np.asarray(train).tolist() and tl_valid == np.asarray(valid).tolist()
    assert tl_test == np.asarray(test).tolist() and vocab_size == len(vocab)
    assert tl.files.load_ptb_dataset(str(tmp_path / "flat"))[0] == tl_train
    with pytest.raises(strata.Error, match="ptb.train.txt"):
        data.load_ptb(str(tmp_path / "nowhere"))


def test_split_corpus_splits_lines_ptb_style():
    lines = [f"Line {i}, word{i % 3}!" for i in range(20)]
    train, valid, test, vocab = data.split_corpus(lines, valid=0.1, test=0.1)
    assert len(np.asarray(train)) == 16 * 4 and len(np.asarray(valid)) == 2 * 4 and len(np.asarray(test)) == 2 * 4
    assert vocab.word(0) == "<eos>" or vocab.word(0) == "line"
    assert vocab.word_ids_to_words(np.asarray(train)[:4].tolist()) == ["line", "0", "word0", "<eos>"]
    assert vocab.word_ids_to_words(np.asarray(test)[:4].tolist()) == ["line", "<unk>", "word0", "<eos>"]


def test_ptb_iterator_as_tensorlayers():
    raw = np.arange(23)
    batches = list(tl.iterate.ptb_iterator(raw, batch_size=2, num_steps=3))
    rows = raw[:22].reshape(2, 11)  # 23 // 2 steps per row
    assert len(batches) == (11 - 1) // 3
    for i, (x, y) in enumerate(batches):
        np.testing.assert_array_equal(x, rows[:, 3 * i:3 * i + 3])
        np.testing.assert_array_equal(y, rows[:, 3 * i + 1:3 * i + 4])


WORLD_ENGLISH_BIBLE = "/usr/share/sword/modules/texts/ztext/engWEB2015eb"


@pytest.mark.skipif(not os.path.isdir(WORLD_ENGLISH_BIBLE), reason="Debian's sword-text-web is not installed")
def test_read_sword_ztext_reads_the_world_english_bible_in_order():
    verses = data.read_sword_ztext()  # Debian's module by default
    assert len(verses) > 30000  # 31,102 verses in the Protestant canon, less headings-only entries
    # verses[0] is the module's preface; Genesis 1:1 follows, and Revelation 22:21 ends it.
    assert data.tokenize_words(verses[1])[:6] == ["in", "the", "beginning", "god", "created", "the"]
    assert data.tokenize_words(verses[-1])[:5] == ["the", "grace", "of", "the", "lord"]
    assert not any("<" in v for v in verses)  # the markup is gone


def test_read_sword_ztext_names_what_is_missing(tmp_path):
    with pytest.raises(strata.Error, match="no zText module"):
        data.read_sword_ztext(str(tmp_path))
