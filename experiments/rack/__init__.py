"""The rack study (`lossrec reproduce rack`): its study.py and helper modules."""
