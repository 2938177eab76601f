"""The studies, one package per folder: ``lossrec reproduce`` imports each as
``lossrec_experiments.<folder>`` (:func:`lossrec.lab.studies.package`), and with the
checkout on ``sys.path`` they import as ``experiments.<folder>`` too (a folder whose
name has a dash through ``importlib.import_module("experiments.spurious-rto.study")``).
A study's modules import each other relatively: ``from . import figures``."""
