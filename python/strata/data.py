"""Datasets and streams with the C++ pipeline: ``strata.data.Dataset.from_tensors(x, y)`` (NumPy
arrays viewed, not copied), ``Dataset.from_function(n, get)``, ``Stream.from_generator(fn)``,
then ``map`` (Python functions), ``filter``, ``shuffle``, ``batch``, ``prefetch``, ``cache``;
``strata.train.fit(model, opt, dataset.shuffle(0).batch(32))`` trains on them. Text corpora:
``read_words``, ``tokenize_words``, ``Vocabulary``, ``load_ptb``, ``split_corpus``, ``ptb_iterator``,
``read_sword_ztext`` (the World English Bible from Debian's sword-text-web)."""
from ._strata.data import Dataset, Stream, image, image_folder, load_cifar10, load_fashion_mnist, read_npy  # noqa: F401
from ._strata.data import (Vocabulary, load_ptb, ptb_iterator, read_sword_ztext, read_words,  # noqa: F401
                           split_corpus, tokenize_words)
# TensorLayer's data sets from local files and nlp tools (docs/data.md); strata.tl.files and
# strata.tl.nlp give them TensorLayer's names.
from ._strata.data import (basic_tokenizer, bleu_tokenize_13a, corpus_bleu, create_vocabulary,  # noqa: F401
                           data_to_token_ids, evaluate_analogies, imagenet_classes, initialize_vocabulary,
                           load_celeba, load_cyclegan, load_flickr1m, load_flickr25k, load_imdb, load_mpii_pose,
                           load_nietzsche, load_svhn_cropped, load_text8, load_wmt_en_fr, normalize_digits,
                           process_sentence, read_analogies_file, read_image, read_mat, sentence_to_token_ids,
                           treebank_word_tokenize)
