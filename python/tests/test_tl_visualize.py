"""strata.tl.visualize: TensorLayer's pictures (tsne_embedding, CNN2d, draw_weights, save_images)
written as PNG and returned as arrays."""
import numpy as np

import strata
import strata.tl as tl


def test_tsne_embedding_draws_each_word_and_keeps_clusters_apart(tmp_path):
    rng = np.random.default_rng(0)
    embeddings = np.concatenate([rng.normal(m, 0.3, (20, 6)) for m in (0.0, 5.0)]).astype(np.float32)
    words = {i: f"w{i}" for i in range(40)}
    image = tl.visualize.tsne_embedding(embeddings, words, plot_only=40, saveable=True, name=str(tmp_path / "tsne"))
    assert image.shape == (800, 800, 3) and image.dtype == np.uint8
    assert (tmp_path / "tsne.png").stat().st_size > 1000
    assert (image == 0).all(axis=2).sum() > 100  # the words' black text
    points = np.asarray(strata._strata.visualize.tsne(embeddings, perplexity=10))
    nearest = [int(np.argsort(np.linalg.norm(points - p, axis=1))[1]) for p in points]
    assert all(n // 20 == i // 20 for i, n in enumerate(nearest))


def test_cnn2d_and_draw_weights_stretch_each_image(tmp_path):
    w = np.zeros((3, 3, 1, 4), np.float32)
    w[..., 0, 1] = np.arange(9).reshape(3, 3)
    image = tl.visualize.CNN2d(w, name=str(tmp_path / "cnn"))
    assert image.shape == (7, 7, 1) and (tmp_path / "cnn.png").exists()
    assert image[0, 4, 0] == 0 and image[2, 6, 0] == 255  # filter 1 from its minimum to its maximum
    assert image[0, 0, 0] == 128  # filter 0 is constant
    mnist = tl.visualize.draw_weights(np.random.default_rng(1).normal(size=(784, 10)).astype(np.float32),
                                      saveable=False)
    assert mnist.shape == (3 * 28 + 2, 4 * 28 + 3, 1)  # 10 units in 3 rows of 4
    assert mnist[:28, :28].min() == 0 and mnist[:28, :28].max() == 255


def test_save_images_writes_the_grid(tmp_path):
    images = np.linspace(0, 1, 2 * 4 * 4).reshape(2, 4, 4).astype(np.float32)
    grid = tl.visualize.save_images(images, [1, 2], str(tmp_path / "grid.png"))
    assert grid.shape[:2] == (4, 8) and (tmp_path / "grid.png").exists()
