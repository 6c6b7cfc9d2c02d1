#! /usr/bin/python3
# TensorLayer 2.2.5's examples/basic_tutorials/tutorial_mnist_mlp_static.py, ported to Strata.
# Lines marked "# Strata:" changed (TensorFlow's own lines); everything else is TensorLayer's
# code as it was, on Fashion-MNIST (Debian's dataset-fashion-mnist) instead of MNIST.
import sys
import time

import numpy as np
import strata  # Strata: was `import tensorflow as tf`
import strata.tl as tl  # Strata: was `import tensorlayer as tl`
from strata.tl.layers import Dense, Dropout, Input
from strata.tl.models import Model

## enable debug logging
# tl.logging.set_verbosity(tl.logging.DEBUG)  # Strata: no logging module

## prepare MNIST data
X_train, y_train, X_val, y_val, X_test, y_test = tl.files.load_fashion_mnist_dataset(shape=(-1, 784))


## define the network
def get_model(inputs_shape):
    ni = Input(inputs_shape)
    nn = Dropout(keep=0.8)(ni)
    nn = Dense(n_units=800, act="relu")(nn)  # Strata: act=tf.nn.relu
    nn = Dropout(keep=0.8)(nn)
    nn = Dense(n_units=800, act="relu")(nn)  # Strata: act=tf.nn.relu
    nn = Dropout(keep=0.8)(nn)
    nn = Dense(n_units=10, act=None)(nn)
    M = Model(inputs=ni, outputs=nn, name="mlp")
    return M


MLP = get_model([None, 784])
n_epoch = int(sys.argv[1]) if len(sys.argv) > 1 else 3  # Strata: 500 in TensorLayer's
batch_size = 500
print_freq = 1

train_weights = MLP.trainable_weights
optimizer = strata.optim.Adam(train_weights, lr=0.001)  # Strata: tf.optimizers.Adam(lr=0.0001), 10x for 3 epochs

## the following code can help you understand SGD deeply
for epoch in range(n_epoch):  ## iterate the dataset n_epoch times
    start_time = time.time()
    ## iterate over the entire training set once (shuffle the data via training)
    for X_batch, y_batch in tl.iterate.minibatches(X_train, y_train, batch_size, shuffle=True):
        MLP.train()  # enable dropout
        _logits = MLP(X_batch)  # Strata: no tf.GradientTape
        _loss = tl.cost.cross_entropy(_logits, y_batch, name='train_loss')
        optimizer.zero_grad()  # Strata: grad = tape.gradient(_loss, train_weights)
        _loss.backward()
        optimizer.step()  # Strata: optimizer.apply_gradients(zip(grad, train_weights))

    ## use training and evaluation sets to evaluate the model every print_freq epoch
    if epoch + 1 == 1 or (epoch + 1) % print_freq == 0:
        MLP.eval()  # disable dropout
        print("Epoch {} of {} took {}".format(epoch + 1, n_epoch, time.time() - start_time))
        train_loss, train_acc, n_iter = 0, 0, 0
        for X_batch, y_batch in tl.iterate.minibatches(X_train, y_train, batch_size, shuffle=False):
            _logits = MLP(X_batch)
            train_loss += tl.cost.cross_entropy(_logits, y_batch, name='eval_loss').item()
            train_acc += np.mean(np.equal(np.argmax(_logits, 1), y_batch))
            n_iter += 1
        print("   train loss: {}".format(train_loss / n_iter))
        print("   train acc:  {}".format(train_acc / n_iter))

        val_loss, val_acc, n_iter = 0, 0, 0
        for X_batch, y_batch in tl.iterate.minibatches(X_val, y_val, batch_size, shuffle=False):
            _logits = MLP(X_batch)  # is_train=False, disable dropout
            val_loss += tl.cost.cross_entropy(_logits, y_batch, name='eval_loss').item()
            val_acc += np.mean(np.equal(np.argmax(_logits, 1), y_batch))
            n_iter += 1
        print("   val loss: {}".format(val_loss / n_iter))
        print("   val acc:  {}".format(val_acc / n_iter))

## use testing data to evaluate the model
MLP.eval()
test_loss, test_acc, n_iter = 0, 0, 0
for X_batch, y_batch in tl.iterate.minibatches(X_test, y_test, batch_size, shuffle=False):
    _logits = MLP(X_batch)
    test_loss += tl.cost.cross_entropy(_logits, y_batch, name='test_loss').item()
    test_acc += np.mean(np.equal(np.argmax(_logits, 1), y_batch))
    n_iter += 1
print("   test loss: {}".format(test_loss / n_iter))
print("   test acc:  {}".format(test_acc / n_iter))
