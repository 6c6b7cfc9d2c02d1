#! /usr/bin/python3
# A TensorLayer 2.2.5 static CNN on Fashion-MNIST in the style of its
# examples/basic_tutorials/tutorial_cifar10_cnn_static.py (Conv2d 5x5 -> MaxPool2d, twice, then
# dense layers; its W_init / b_init arguments and LocalResponseNorm dropped: Strata's defaults,
# Glorot-uniform weights and zero biases, are used), trained with strata.train.fit.
# Lines marked "# Strata:" are where TensorFlow's own code was.
import sys
import time

import numpy as np
import strata  # Strata: was `import tensorflow as tf`
import strata.tl as tl  # Strata: was `import tensorlayer as tl`
from strata.tl.layers import Conv2d, Dense, Dropout, Flatten, Input, MaxPool2d
from strata.tl.models import Model

X_train, y_train, X_val, y_val, X_test, y_test = tl.files.load_fashion_mnist_dataset(shape=(-1, 28, 28, 1))


def get_model(inputs_shape):
    ni = Input(inputs_shape)
    nn = Conv2d(32, (5, 5), (1, 1), padding='SAME', act="relu", name='conv1')(ni)  # Strata: act=tf.nn.relu
    nn = MaxPool2d((2, 2), (2, 2), padding='SAME', name='pool1')(nn)
    nn = Conv2d(64, (5, 5), (1, 1), padding='SAME', act="relu", name='conv2')(nn)  # Strata: act=tf.nn.relu
    nn = MaxPool2d((2, 2), (2, 2), padding='SAME', name='pool2')(nn)
    nn = Flatten(name='flatten')(nn)
    nn = Dense(256, act="relu", name='dense1relu')(nn)  # Strata: act=tf.nn.relu
    nn = Dropout(keep=0.5)(nn)
    nn = Dense(10, act=None, name='output')(nn)
    return Model(inputs=ni, outputs=nn, name='cnn')


net = get_model([None, 28, 28, 1])
n_epoch = int(sys.argv[1]) if len(sys.argv) > 1 else 1
optimizer = strata.optim.Adam(net.trainable_weights, lr=0.001)  # Strata: tf.optimizers.Adam(...)
start = time.time()
history = strata.train.fit(net, optimizer, X_train, y_train, epochs=n_epoch, batch_size=128,  # Strata: the loop
                           validation_data=(X_val, y_val))
print("trained in {:.1f} s".format(time.time() - start))
logs = strata.train.evaluate(net, X_test, y_test, batch_size=500)
print("   test loss: {}".format(logs["loss"]))
print("   test acc:  {}".format(logs["accuracy"]))
