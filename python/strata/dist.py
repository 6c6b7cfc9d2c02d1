"""Data-parallel training on MPI: ``mpirun -n 2 python train.py`` with

    world = strata.dist.init()
    net = strata.dist.DataParallel(model)   # a built model
    strata.train.fit(net, opt, x, y)        # each rank trains on its slice of every batch

MPI is loaded only when this module is imported (the _strata_dist extension, over
libstrata_dist)."""
from ._strata_dist import DataParallel, all_gather, all_reduce_sum, barrier, broadcast, init  # noqa: F401
