"""The rtor study (`lossrec reproduce rtor`): its study.py and helper modules."""
