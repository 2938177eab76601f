"""The classic-baseline study (`lossrec reproduce classic-baseline`): its study.py and helper modules."""
