"""tl.nlp: TensorLayer's nlp tools over strata.data (docs/data.md, "NLP tools"): the translate
tokenizer helpers, the word-analogy file and its evaluation, and BLEU as sacrebleu computes it.
Text is str here (TensorLayer's helpers take and return bytes); ids are lists of int."""
import numpy as _np

from strata import data as _data

_START_VOCAB = ["_PAD", "_GO", "_EOS", "_UNK"]
PAD_ID, GO_ID, EOS_ID, UNK_ID = 0, 1, 2, 3


def _text(s):
    return s.decode() if isinstance(s, bytes) else s


def basic_tokenizer(sentence):
    """Whitespace split, then . , ! ? " ' : ; ) ( split off as tokens."""
    return _data.basic_tokenizer(_text(sentence))


def process_sentence(sentence, start_word="<S>", end_word="</S>"):
    """[start_word] + NLTK's word_tokenize of the lower-cased sentence (no punkt sentence
    splitting) + [end_word]; None leaves a word out."""
    return _data.process_sentence(_text(sentence), start_word or "", end_word or "")


def create_vocabulary(vocabulary_path, data_path, max_vocabulary_size, tokenizer=None, normalize_digits=True,
                      _START_VOCAB=None):
    """Writes the vocabulary file (unless it exists): start words, then tokens by count."""
    if tokenizer is not None:
        raise NotImplementedError("create_vocabulary: only basic_tokenizer is supported")
    _data.create_vocabulary(vocabulary_path, data_path, max_vocabulary_size, normalize_digits,
                            [_text(w) for w in (_START_VOCAB or globals()["_START_VOCAB"])])


def initialize_vocabulary(vocabulary_path):
    """(vocab: token -> id, rev_vocab: list of tokens) from a vocabulary file."""
    return _data.initialize_vocabulary(vocabulary_path)


def sentence_to_token_ids(sentence, vocabulary, tokenizer=None, normalize_digits=True, UNK_ID=3, start_id=None,
                          end_id=None):
    """The sentence's token ids; start_id / end_id (GO_ID, EOS_ID) frame it for a decoder."""
    if tokenizer is not None:
        raise NotImplementedError("sentence_to_token_ids: only basic_tokenizer is supported")
    vocab = {_text(k): v for k, v in vocabulary.items()}
    return _data.sentence_to_token_ids(_text(sentence), vocab, normalize_digits, UNK_ID, start_id, end_id)


def data_to_token_ids(data_path, target_path, vocabulary_path, tokenizer=None, normalize_digits=True, UNK_ID=3):
    """Every line of data_path as space-separated ids into target_path (unless it exists)."""
    if tokenizer is not None:
        raise NotImplementedError("data_to_token_ids: only basic_tokenizer is supported")
    _data.data_to_token_ids(data_path, target_path, vocabulary_path, normalize_digits, UNK_ID)


def read_analogies_file(eval_file="questions-words.txt", word2id=None):
    """int32 [n, 4] word ids of the file's questions; lines with unknown words are skipped."""
    ids, _skipped = _data.read_analogies_file(eval_file, {_text(k): v for k, v in (word2id or {}).items()})
    return _np.asarray(ids)


def evaluate_analogies(embeddings, analogy_questions):
    """(correct, total): d is the word nearest n(b) - n(a) + n(c) among the rest (word2vec's rule)."""
    return _data.evaluate_analogies(_np.ascontiguousarray(embeddings, dtype=_np.float32),
                                    _np.ascontiguousarray(analogy_questions, dtype=_np.int64))


def corpus_bleu(hypotheses, references, lowercase=False):
    """sacrebleu.corpus_bleu(hypotheses, references) (13a, exp smoothing): a dict with score
    (0..100), precisions, counts, totals, bp, sys_len, ref_len. `references` is a list of
    reference streams, each with one sentence per hypothesis."""
    return _data.corpus_bleu(list(hypotheses), [list(r) for r in references], lowercase)

