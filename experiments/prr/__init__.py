"""The prr study (`lossrec reproduce prr`): its study.py and helper modules."""
