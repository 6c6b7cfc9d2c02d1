#! /usr/bin/python3
# TensorLayer 2.2.5's examples/basic_tutorials/tutorial_mnist_mlp_dynamic.py, ported to Strata.
# Lines marked "# Strata:" changed (TensorFlow's own lines); the rest is TensorLayer's code, on
# Fashion-MNIST (Debian's dataset-fashion-mnist) instead of MNIST.
import sys
import time

import numpy as np
import strata  # Strata: was `import tensorflow as tf`
import strata.tl as tl  # Strata: was `import tensorlayer as tl`
from strata.tl.layers import Dense, Dropout
from strata.tl.models import Model

## prepare MNIST data
X_train, y_train, X_val, y_val, X_test, y_test = tl.files.load_fashion_mnist_dataset(shape=(-1, 784))


## define the network
class CustomModel(Model):

    def __init__(self):
        super(CustomModel, self).__init__()
        self.dropout1 = Dropout(keep=0.8)  #(self.innet)
        self.dense1 = Dense(n_units=800, act="relu", in_channels=784)  #(self.dropout1)  # Strata: act=tf.nn.relu
        self.dropout2 = Dropout(keep=0.8)  #(self.dense1)
        self.dense2 = Dense(n_units=800, act="relu", in_channels=800)  #(self.dropout2)  # Strata: act=tf.nn.relu
        self.dropout3 = Dropout(keep=0.8)  #(self.dense2)
        self.dense3 = Dense(n_units=10, act="relu", in_channels=800)  #(self.dropout3)  # Strata: act=tf.nn.relu

    def forward(self, x, foo=None):
        z = self.dropout1(x)
        z = self.dense1(z)
        z = self.dropout2(z)
        z = self.dense2(z)
        z = self.dropout3(z)
        out = self.dense3(z)
        if foo is not None:
            out = strata.relu(out)  # Strata: tf.nn.relu
        return out


MLP = CustomModel()

## start training
n_epoch = int(sys.argv[1]) if len(sys.argv) > 1 else 3  # Strata: 500 in TensorLayer's
batch_size = 500
print_freq = 1
MLP(X_train[:1])  # Strata: weights are made at the first call (as Keras's subclassed models)
train_weights = MLP.trainable_weights
optimizer = strata.optim.Adam(train_weights, lr=0.001)  # Strata: tf.optimizers.Adam(lr=0.0001), 10x for 3 epochs

## the following code can help you understand SGD deeply
for epoch in range(n_epoch):  ## iterate the dataset n_epoch times
    start_time = time.time()
    ## iterate over the entire training set once (shuffle the data via training)
    for X_batch, y_batch in tl.iterate.minibatches(X_train, y_train, batch_size, shuffle=True):
        MLP.train()  # enable dropout
        _logits = MLP(X_batch, foo=1)  # Strata: no tf.GradientTape
        _loss = tl.cost.cross_entropy(_logits, y_batch, name='train_loss')
        optimizer.zero_grad()  # Strata: grad = tape.gradient(_loss, train_weights)
        _loss.backward()
        optimizer.step()  # Strata: optimizer.apply_gradients(zip(grad, train_weights))

    ## use training and evaluation sets to evaluate the model every print_freq epoch
    if epoch + 1 == 1 or (epoch + 1) % print_freq == 0:
        MLP.eval()  # disable dropout
        print("Epoch {} of {} took {}".format(epoch + 1, n_epoch, time.time() - start_time))
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
