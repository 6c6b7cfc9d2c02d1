"""TensorLayer 2.2.5's ``tl.visualize`` pictures over Strata's (strata/viz): ``save_images``,
``tsne_embedding``, ``CNN2d`` and ``draw_weights``. TensorLayer draws with matplotlib and shows
the figure or saves it as ``name + ".pdf"``; here the picture is a PNG written to
``name + ".png"`` when ``saveable``, and returned as a uint8 array [H, W, C] either way
(``second`` and ``fig_idx``, matplotlib's display time and figure number, are accepted and unused).
"""
import numpy as _np

from .._strata import visualize as _viz


def _picture(image, saveable, name):
    if saveable:
        _viz.write_image(name + ".png", image)
    return _np.asarray(image)


def save_images(images, size, image_path="_temp.png"):
    """images [N, H, W(, C)] in a grid of size = [rows, cols], written to image_path."""
    image = _viz.image_grid(images, int(size[0]), int(size[1]))
    _viz.write_image(image_path, image)
    return _np.asarray(image)


def tsne_embedding(embeddings, reverse_dictionary, plot_only=500, second=5, saveable=False, name="tsne",
                   fig_idx=9862):
    """The first plot_only rows of embeddings by t-SNE (perplexity 30, PCA start), each point
    labelled with reverse_dictionary[i], as TensorLayer's word2vec tutorial draws its words."""
    points = _viz.tsne(_np.asarray(embeddings)[:plot_only])
    words = [str(reverse_dictionary[i]) for i in range(min(plot_only, len(embeddings)))]
    return _picture(_viz.plot_embedding(points, texts=words), saveable, name)


def CNN2d(CNN=None, second=10, saveable=True, name="cnn", fig_idx=3119362):  # noqa: N802 (TensorLayer's name)
    """Convolution weights [kh, kw, in, out] (in = 1 or 3) as one picture of all filters."""
    return _picture(_viz.filter_grid(CNN), saveable, name)


def draw_weights(W=None, second=10, saveable=True, shape=None, name="mnist", fig_idx=2396512):  # noqa: N803
    """A dense layer's weights [n_in, units]: each unit's incoming weights as an image of shape
    (default [28, 28]: MNIST's first layer)."""
    return _picture(_viz.weight_images(W, list(shape or [28, 28])), saveable, name)
