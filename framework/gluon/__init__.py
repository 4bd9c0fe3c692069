"""Gluon: Blocks, Parameters, losses, Trainer, data."""
