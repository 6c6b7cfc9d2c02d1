#!/usr/bin/env python3
"""Fixtures for tests/data/test_mat_file.cpp, test_tl_datasets.cpp and test_tl_nlp.cpp: small
files in each data set's real format, written by the real tools, and TensorLayer 2.2.5's own
output on them (its loader functions' source, taken from the installed package and run here with
the download steps replaced by "the file is already there"). The output is committed under
tests/data/tl_fixtures/; rerun after changing this script:

  python -m venv ~/.cache/strata-tl-venv
  ~/.cache/strata-tl-venv/bin/pip install numpy==1.26.4 scipy==1.11.4 sacrebleu==2.4.3 six==1.17.0
  ~/.cache/strata-tl-venv/bin/pip install --no-deps tensorlayer==2.2.5
  ~/.cache/strata-tl-venv/bin/python tests/data/make_tl_fixtures.py tests/data/tl_fixtures

TensorLayer is installed without its dependencies (TensorFlow): only its source is read.
"""
import ast
import json
import logging
import os
import pickle
import re
import shutil
import sys
import tempfile

import numpy as np
import scipy
import scipy.io as sio

assert np.__version__ == "1.26.4" and scipy.__version__ == "1.11.4", "pinned versions differ"


def tl_function(module_file, name, **names):
    """TensorLayer's function `name` from its source file, with the given globals."""
    import importlib.util
    spec = importlib.util.find_spec("tensorlayer")
    path = os.path.join(os.path.dirname(spec.origin), module_file)
    tree = ast.parse(open(path).read())
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    scope = dict(names)
    exec(compile(ast.Module(body=[node], type_ignores=[]), path, "exec"), scope)
    return scope[name]


class Quiet:
    def info(self, *args):
        pass


def write_mat_basics(out):
    # Values are formulas the C++ test recomputes; each class and container once.
    values = {
        "d": np.arange(6, dtype=np.float64).reshape(2, 3) / 4 - 0.5,
        "u8": (np.arange(24).reshape(2, 3, 4) * 7 % 256).astype(np.uint8),
        "i16": (np.arange(6).reshape(3, 2) * -300).astype(np.int16),
        "f32": np.array([[1.5, -2.25, 3e-3]], dtype=np.float32),
        "i64": np.array([[-(2**40), 2**40 + 3]], dtype=np.int64),
        "flags": np.array([[True, False, True]]),
        "s": "hello, MAT",
        "rows": np.array(["ab", "cd"]),
        "c": np.array([[1.0, "xy", np.arange(3.0)]], dtype=object),
        "st": np.array([[(1.0, "one"), (2.0, "two")]], dtype=[("a", "O"), ("b", "O")]),
        "empty": np.zeros((0, 0)),
    }
    sio.savemat(os.path.join(out, "basic.mat"), values, do_compression=False)
    sio.savemat(os.path.join(out, "basic_compressed.mat"), values, do_compression=True)


def write_svhn(out):
    # X [32, 32, 3, N] uint8 and y [N, 1] (10 for the digit 0), as train_32x32.mat has them.
    root = os.path.join(out, "cropped_svhn")
    os.makedirs(root, exist_ok=True)
    for name, n, seed in (("train", 5, 1), ("test", 3, 2)):
        rng = np.random.RandomState(seed)
        x = rng.randint(0, 256, size=(32, 32, 3, n)).astype(np.uint8)
        y = np.array([[10], [3], [9], [1], [10]][:n], dtype=np.uint8)
        sio.savemat(os.path.join(root, f"{name}_32x32.mat"), {"X": x, "y": y}, do_compression=True)
    # TensorLayer's loader on them (it converts to .npz and deletes the .mat: run on a copy).
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(root, os.path.join(tmp, "cropped_svhn"))
        load = tl_function("files/utils.py", "load_cropped_svhn", os=os, np=np, sio=sio, time=__import__("time"),
                           logging=Quiet(), file_exists=os.path.isfile, del_file=os.remove,
                           maybe_download_and_extract=lambda f, p, u, **k: os.path.join(p, f))
        x_train, y_train, x_test, y_test = load(path=tmp, include_extra=False)
    expected = {"train_shape": list(x_train.shape), "train_labels": y_train.tolist(),
                "test_shape": list(x_test.shape), "test_labels": y_test.tolist(),
                "train_sum": float(x_train.sum()), "train_first": x_train[0, 0, 0].tolist(),
                "train_at_4_31_0": x_train[4, 31, 0].tolist(), "test_at_2_5_7": x_test[2, 5, 7].tolist()}
    json.dump(expected, open(os.path.join(out, "svhn_expected.json"), "w"), indent=1)


def mpii_struct(fields, rows):
    """A 1 x len(rows) MATLAB struct array with the given fields."""
    arr = np.zeros((1, len(rows)), dtype=[(f, "O") for f in fields])
    for i, row in enumerate(rows):
        for f in fields:
            arr[0, i][f] = row[f]
    return arr


def write_mpii(out):
    # The RELEASE struct as the MPII file lays it out: annolist(i).image.name,
    # annolist(i).annorect(k).{x1,y1,x2,y2,annopoints.point(j).{id,x,y,is_visible}}, img_train(i).
    root = os.path.join(out, "mpii_human_pose")
    ann_dir = os.path.join(root, "mpii_human_pose_v1_u12_2")
    img_dir = os.path.join(root, "images")
    os.makedirs(ann_dir, exist_ok=True)
    os.makedirs(img_dir, exist_ok=True)

    def person(x1, joints, visible_as):
        points = []
        for j, (jid, x, y) in enumerate(joints):
            vis = {"num": np.array([[j % 2]], dtype=np.uint8), "char": str(j % 2), "empty": np.zeros((0, 0))}[visible_as]
            points.append({"id": np.array([[jid]], dtype=np.uint8), "x": np.array([[x]]), "y": np.array([[y]]),
                           "is_visible": vis})
        point = mpii_struct(["id", "x", "y", "is_visible"], points)
        annopoints = mpii_struct(["point"], [{"point": point}])
        return {"x1": np.array([[x1]], dtype=np.int16), "y1": np.array([[x1 + 1]], dtype=np.int16),
                "x2": np.array([[x1 + 40]], dtype=np.int16), "y2": np.array([[x1 + 50]], dtype=np.int16),
                "annopoints": annopoints}

    sixteen = [(j, 100.0 + j, 200.5 - j) for j in range(16)]
    images = [
        ("001.jpg", 1, mpii_struct(["x1", "y1", "x2", "y2", "annopoints"],
                                   [person(10, sixteen, "num"), person(20, sixteen[:5], "char")])),
        ("002.jpg", 0, mpii_struct(["x1", "y1", "x2", "y2", "annopoints"],
                                   [person(30, sixteen, "empty"),
                                    {"x1": np.array([[1]]), "y1": np.array([[2]]), "x2": np.array([[3]]),
                                     "y2": np.array([[4]]), "annopoints": np.zeros((0, 0))}])),
        ("003.jpg", 1, np.zeros((0, 0))),  # an image with no people annotated
        ("004.jpg", 1, mpii_struct(["x1", "y1", "x2", "y2", "annopoints"], [person(5, sixteen[3:], "num")])),
    ]
    annolist = mpii_struct(["image", "annorect"], [
        {"image": mpii_struct(["name"], [{"name": name}]), "annorect": rect} for name, _, rect in images])
    release = {"annolist": annolist, "img_train": np.array([[t for _, t, _ in images]], dtype=np.uint8)}
    sio.savemat(os.path.join(ann_dir, "mpii_human_pose_v1_u12_1.mat"), {"RELEASE": release}, do_compression=True)
    for name, _, _ in images:
        open(os.path.join(img_dir, name), "wb").close()

    load_file_list = tl_function("files/utils.py", "load_file_list", os=os, re=re, logging=Quiet())
    load = tl_function("files/utils.py", "load_mpii_pose_dataset", os=os, sio=sio, logging=Quiet(),
                       folder_exists=os.path.isdir, load_file_list=load_file_list)
    expected = {}
    for only16 in (False, True):
        img_train, ann_train, img_test, ann_test = load(path=out, is_16_pos_only=only16)
        strip = lambda names: [os.path.basename(n) for n in names]
        expected["only16" if only16 else "all"] = {
            "img_train": strip(img_train), "img_test": strip(img_test),
            "ann_train": ann_train, "ann_test": ann_test}
    json.dump(expected, open(os.path.join(out, "mpii_expected.json"), "w"), indent=1, default=int)


class GFile:
    """TensorFlow's gfile as TensorLayer's nlp code uses it, on plain files."""
    Exists = staticmethod(os.path.exists)
    GFile = staticmethod(lambda path, mode="r": open(path, mode))


def nlp_function(name, **names):
    import re as regex
    import six
    as_bytes = tl_function("nlp.py", "as_bytes", _six=six)
    scope = dict(re=regex, as_bytes=as_bytes, gfile=GFile, np=np, tl=type("tl", (), {"logging": Quiet()}))
    scope.update(names)
    return tl_function("nlp.py", name, **scope)


def write_text_sets(out):
    import zipfile
    text = " anarchism originated as a term of abuse first used against early working class\n radicals  including the diggers of the english revolution " * 3
    os.makedirs(os.path.join(out, "mm_test8"), exist_ok=True)
    with zipfile.ZipFile(os.path.join(out, "mm_test8", "text8.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("text8", text)
    load = tl_function("files/utils.py", "load_matt_mahoney_text8_dataset", os=os, zipfile=zipfile, logging=Quiet(),
                       maybe_download_and_extract=lambda *a, **k: None)
    words = load(path=out)
    os.makedirs(os.path.join(out, "nietzsche"), exist_ok=True)
    nietzsche = "PREFACE\n\n\nSUPPOSING that Truth is a woman--what then? Is there not ground\nfor suspecting...\n"
    open(os.path.join(out, "nietzsche", "nietzsche.txt"), "w").write(nietzsche)
    load = tl_function("files/utils.py", "load_nietzsche_dataset", os=os, logging=Quiet(),
                       maybe_download_and_extract=lambda f, p, u, **k: os.path.join(p, f))
    json.dump({"text8": words, "nietzsche": load(path=out)}, open(os.path.join(out, "text_expected.json"), "w"), indent=0)


TRANSLATE_EN = [
    "Changing Lives | Changing Society | How It Works | Technology Drives Change",
    "In 1984, the (first) museum opened: it's \"free\" for 25 visitors!",
    "  What's new?  The 2nd of May 2013; 10,000 people came.  ",
    "the museum, the museum; the visitors",
    "",
    "Numbers 12 and 345 and 6789 share the vocabulary entry.",
]
TRANSLATE_FR = ["Changer des vies", "En 1984, le musée a ouvert.", "Quoi de neuf ?", "le musée", "", "Les 12 nombres."]


def write_translate(out):
    import gzip
    root = os.path.join(out, "wmt_en_fr")
    os.makedirs(root, exist_ok=True)
    for lang, lines in ((".en", TRANSLATE_EN), (".fr", TRANSLATE_FR)):
        data = ("\n".join(lines) + "\n").encode()
        with gzip.GzipFile(os.path.join(root, "giga-fren.release2.fixed" + lang + ".gz"), "wb", mtime=0) as f:
            f.write(data)
        open(os.path.join(root, "newstest2013" + lang), "wb").write(data[: len(data) // 2])
    data_path = os.path.join(root, "newstest2013.en")
    open(data_path, "wb").write(("\n".join(TRANSLATE_EN) + "\n").encode())
    basic_tokenizer = nlp_function("basic_tokenizer")
    create_vocabulary = nlp_function("create_vocabulary", basic_tokenizer=basic_tokenizer)
    initialize_vocabulary = nlp_function("initialize_vocabulary")
    sentence_to_token_ids = nlp_function("sentence_to_token_ids", basic_tokenizer=basic_tokenizer)
    data_to_token_ids = nlp_function("data_to_token_ids", initialize_vocabulary=initialize_vocabulary,
                                     sentence_to_token_ids=sentence_to_token_ids)
    expected = {"tokens": [[w.decode() for w in basic_tokenizer(line)] for line in TRANSLATE_EN]}
    with tempfile.TemporaryDirectory() as tmp:
        for size, normalize in ((40, True), (12, False)):
            vocab_path = os.path.join(tmp, f"vocab{size}")
            create_vocabulary(vocab_path, data_path, size, normalize_digits=normalize)
            expected[f"vocabulary{size}"] = open(vocab_path).read()
            vocab, _ = initialize_vocabulary(vocab_path)
            expected[f"ids{size}"] = [sentence_to_token_ids(line.encode(), vocab, normalize_digits=normalize)
                                      for line in TRANSLATE_EN]
            target = os.path.join(tmp, f"ids{size}.txt")
            data_to_token_ids(data_path, target, vocab_path, normalize_digits=normalize)
            expected[f"data_ids{size}"] = open(target).read()
    json.dump(expected, open(os.path.join(out, "translate_expected.json"), "w"), indent=0)


def write_bleu(out):
    import sacrebleu
    assert sacrebleu.__version__ == "2.4.3", "pinned sacrebleu differs"
    hyps = ["The cat sat on the mat.", "It is a guide to action which ensures that the military always obeys",
            "he read the book because he was interested in world history", "Prices rose 3.5% in 2019-2020, (up) & down.",
            "no match at all here", "A  B   C", "the the the the"]
    refs = [["The cat is sitting on the mat.", "It is a guide to action that ensures that the military will forever heed",
             "he was interested in world history because he read the book", "Prices rose 3.5 % in 2019 - 2020, (up) &amp; down.",
             "something else entirely", "A B C D", "the cat"],
            ["There is a cat on the mat.", "It is the guiding principle which guarantees the military forces always being",
             "he read the book", "prices rose 3.5% in 2019-2020 (up) and down", "nothing", "a b c", "The the"]]
    cases = []
    for h, r, lower in ((hyps, refs, False), (hyps, refs[:1], False), (hyps, refs, True), (hyps[:1], [refs[0][:1]], False),
                        (hyps[4:5], [refs[0][4:5]], False)):
        b = sacrebleu.corpus_bleu(h, r, lowercase=lower)
        cases.append({"hypotheses": h, "references": r, "lowercase": lower, "score": b.score, "counts": b.counts,
                      "totals": b.totals, "precisions": b.precisions, "bp": b.bp, "sys_len": b.sys_len, "ref_len": b.ref_len})
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    tok = Tokenizer13a()
    lines = hyps + refs[0] + ["a.b,c 1.5 1,000 x. y, 3-4 a-b <skipped>x -\nnext &quot;q&quot; &lt;t&gt; {}[]~`^_|"]
    json.dump({"cases": cases, "tokenized": [[l, tok(l.rstrip())] for l in lines]},
              open(os.path.join(out, "bleu_expected.json"), "w"), indent=0)


def write_analogy(out):
    words = ["king", "queen", "man", "woman", "paris", "france", "rome", "italy", "big", "bigger", "small", "smaller"]
    word2id = {w: i for i, w in enumerate(words)}
    lines = [": capital-common-countries", "Paris France Rome Italy", "paris france rome italy",
             "Rome Italy Paris France", "Paris France Berlin Germany", ": family", "man woman king queen",
             "King Queen Man Woman", "man woman", "big bigger small smaller", "small  smaller big bigger"]
    path = os.path.join(out, "questions-words.txt")
    open(path, "w").write("\n".join(lines) + "\n")
    read = nlp_function("read_analogies_file")
    ids = read(path, word2id)
    rng = np.random.RandomState(7)
    # Pairs share offsets (capital-of, female-of, -er) plus noise, so some analogies hold and some not.
    offsets = rng.randn(3, 6)
    emb = rng.randn(len(words), 6)
    for i, kind in ((1, 1), (3, 1), (5, 0), (7, 0), (9, 2), (11, 2)):
        emb[i] = emb[i - 1] + offsets[kind] + 1.2 * rng.randn(6)
    emb = emb.astype(np.float32)
    # word2vec's evaluation, independently: nearest unit row to n(b) - n(a) + n(c), a b c excluded.
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    correct = 0
    for a, b, c, d in ids:
        dist = unit @ (unit[b] - unit[a] + unit[c])
        dist[[a, b, c]] = -np.inf
        correct += int(np.argmax(dist) == d)
    json.dump({"words": words, "ids": ids.tolist(), "embedding": emb.tolist(), "correct": correct},
              open(os.path.join(out, "analogy_expected.json"), "w"), indent=0)


def write_image_sets(out):
    """Folders with empty .jpg files: the loaders select and order paths; decoding is read_image's."""
    touch = lambda path: (os.makedirs(os.path.dirname(path), exist_ok=True), open(path, "wb").close())
    load_file_list = tl_function("files/utils.py", "load_file_list", os=os, re=re, logging=Quiet())
    natural_keys = tl_function("files/utils.py", "natural_keys", re=re)
    load_folder_list = tl_function("files/utils.py", "load_folder_list", os=os)
    read_file = tl_function("files/utils.py", "read_file")
    class ImagePath(str):  # what the stubbed read_images returns: the path, shaped like an RGB image
        shape = (1, 1, 3)
    paths_only = type("visualize", (), {"read_images": staticmethod(
        lambda names, path, **k: [ImagePath(os.path.join(path, n)) for n in names])})
    common = dict(os=os, logging=Quiet(), load_file_list=load_file_list, folder_exists=os.path.isdir,
                  read_file=read_file, visualize=paths_only, natural_keys=natural_keys, load_folder_list=load_folder_list)
    expected = {}
    root = os.path.join(out, "flickr25k", "mirflickr")
    for k in range(1, 13):
        touch(os.path.join(root, f"im{k}.jpg"))
        os.makedirs(os.path.join(root, "meta", "tags"), exist_ok=True)
        tags = ["sky", "clouds"] if k % 3 == 0 else ["skyline", "night"] if k % 3 == 1 else ["sea"]
        open(os.path.join(root, "meta", "tags", f"tags{k}.txt"), "w").write("\n".join(tags) + "\n")
    load = tl_function("files/utils.py", "load_flickr25k_dataset", **common)
    expected["flickr25k_sky"] = [os.path.basename(p) for p in load(tag="sky", path=out)]
    expected["flickr25k_all"] = [os.path.basename(p) for p in load(tag=None, path=out)]
    root = os.path.join(out, "flickr1M")
    n = 0
    for part, folders in ((0, (0, 1)), (1, (2,))):
        for folder in folders:
            for _ in range(3):
                touch(os.path.join(root, f"images{part}", str(folder), f"{n}.jpg"))
                os.makedirs(os.path.join(root, "tags", str(folder)), exist_ok=True)
                open(os.path.join(root, "tags", str(folder), f"{n}.txt"), "w").write("sky\n" if n % 2 else "sea\n")
                n += 1
    load = tl_function("files/utils.py", "load_flickr1M_dataset", shutil=shutil, **common)
    expected["flickr1m_sky"] = [os.path.relpath(p, root) for p in load(tag="sky", size=2, path=out)]
    root = os.path.join(out, "cyclegan", "tiny")
    for part, count in (("trainA", 3), ("trainB", 2), ("testA", 1), ("testB", 2)):
        for k in range(count):
            touch(os.path.join(root, part, f"{part}_{k}.jpg"))
    touch(os.path.join(root, "trainA", "notes.txt"))
    load = tl_function("files/utils.py", "load_cyclegan_dataset", np=np, **common)
    expected["cyclegan"] = [sorted(os.path.basename(p) for p in part) for part in load(filename="tiny", path=out)]
    for k in (3, 1, 2):
        touch(os.path.join(out, "celebA", f"00000{k}.jpg"))
    load = tl_function("files/utils.py", "load_celebA_dataset", **common)
    expected["celeba"] = sorted(os.path.basename(p) for p in load(path=out))
    import importlib.util
    spec = importlib.util.find_spec("tensorlayer")
    scope = {}
    exec(open(os.path.join(os.path.dirname(spec.origin), "models", "imagenet_classes.py")).read(), scope)
    expected["imagenet"] = {str(i): scope["class_names"][i] for i in (0, 1, 281, 500, 999)}
    expected["imagenet_count"] = len(scope["class_names"])
    json.dump(expected, open(os.path.join(out, "images_expected.json"), "w"), indent=0)
    # CelebA's attribute file (list_attr_celeba.txt's layout: count, names, rows; values -1/1).
    open(os.path.join(out, "list_attr_celeba.txt"), "w").write(
        "3\n5_o_Clock_Shadow Arched_Eyebrows Attractive \n000001.jpg -1  1  1\n000002.jpg -1 -1  1\n000003.jpg  1 -1 -1\n")


def write_imdb(out):
    # imdb.pkl as TensorLayer reads it: a pickle of (reviews as lists of word indices, labels).
    rng = np.random.RandomState(5)
    x = [rng.randint(1, 30, size=rng.randint(1, 12)).tolist() for _ in range(23)]
    labels = rng.randint(0, 2, size=23).tolist()
    os.makedirs(os.path.join(out, "imdb"), exist_ok=True)
    with open(os.path.join(out, "imdb", "imdb.pkl"), "wb") as f:
        pickle.dump((x, labels), f, protocol=2)  # Python 2's cPickle.HIGHEST_PROTOCOL
    with open(os.path.join(out, "imdb_protocol0.pkl"), "wb") as f:
        pickle.dump((x[:3], labels[:3]), f, protocol=0)

    class RaggedNumpy:
        """NumPy for TensorLayer's code, whose np.array of ragged lists NumPy >= 1.24 refuses."""
        random = np.random

        @staticmethod
        def array(v):
            return np.array(v, dtype=object) if v and isinstance(v[0], list) else np.array(v)

    load = tl_function("files/utils.py", "load_imdb_dataset", os=os, np=RaggedNumpy, cPickle=pickle,
                       gzip=__import__("gzip"), maybe_download_and_extract=lambda *a, **k: None)
    cases = []
    for kwargs in ({}, {"nb_words": 20, "skip_top": 5, "maxlen": 9, "test_split": 0.3, "seed": 7},
                   {"start_char": None, "index_from": 0, "oov_char": 0}):
        x_train, y_train, x_test, y_test = load(path=out, **kwargs)
        cases.append({"kwargs": kwargs, "x_train": [list(map(int, s)) for s in x_train], "y_train": y_train.tolist(),
                      "x_test": [list(map(int, s)) for s in x_test], "y_test": y_test.tolist()})
    json.dump({"cases": cases, "protocol0": [x[:3], labels[:3]]},
              open(os.path.join(out, "imdb_expected.json"), "w"), indent=0)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write_mat_basics(out)
    write_svhn(out)
    write_mpii(out)
    write_imdb(out)
    write_text_sets(out)
    write_translate(out)
    write_bleu(out)
    write_analogy(out)
    write_image_sets(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
