"""``np.genfromtxt`` (MXNet's np has it; jax.numpy has not): the values MXNet 1.9.1 reads from a
tab-separated text (its ``float32`` result when asked for float32)."""

import io

from framework import np


def test_genfromtxt_reads_tab_separated_floats():
    a = np.genfromtxt(io.StringIO("1\t2.5\n3\t4\n"), dtype=np.float32, delimiter="\t")
    assert str(a.dtype) == "float32" and a.tolist() == [[1.0, 2.5], [3.0, 4.0]]
    b = np.genfromtxt(io.StringIO("1,2\n"), delimiter=",")
    assert b.tolist() == [1.0, 2.0]
