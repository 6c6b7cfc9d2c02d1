"""Datasets and streams with the C++ pipeline: ``strata.data.Dataset.from_tensors(x, y)`` (NumPy
arrays viewed, not copied), ``Dataset.from_function(n, get)``, ``Stream.from_generator(fn)``,
then ``map`` (Python functions), ``filter``, ``shuffle``, ``batch``, ``prefetch``, ``cache``;
``strata.train.fit(model, opt, dataset.shuffle(0).batch(32))`` trains on them. Text corpora:
``read_words``, ``tokenize_words``, ``Vocabulary``, ``load_ptb``, ``split_corpus``, ``ptb_iterator``,
``read_sword_ztext`` (the World English Bible from Debian's sword-text-web)."""
from ._strata.data import Dataset, Stream, image, image_folder, load_cifar10, load_fashion_mnist, read_npy  # noqa: F401
from ._strata.data import (Vocabulary, load_ptb, ptb_iterator, read_sword_ztext, read_words,  # noqa: F401
                           split_corpus, tokenize_words)
