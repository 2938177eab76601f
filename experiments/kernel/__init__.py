"""The kernel study (`lossrec reproduce kernel`): its study.py and helper modules."""
