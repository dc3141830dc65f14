"""`read_npy`, kept here for kernelfile.py, which imports it from this module;
the data words moved to words/arraydata.py. This module goes when kernelfile.py
imports from there."""
from __future__ import annotations

from .words.arraydata import read_npy

__all__ = ["read_npy"]
