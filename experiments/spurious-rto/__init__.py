"""The spurious-rto study (`lossrec reproduce spurious-rto`): its study.py and helper modules."""
