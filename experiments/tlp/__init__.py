"""The tlp study (`lossrec reproduce tlp`): its study.py and helper modules."""
