"""Layer 2: reading inputs into arrays.

TREC qrels and runs (``_trec``), ranked id lists (``_idlists``), data frames
by column name through narwhals (``_dataframe``) and the per-partition
column checks of the Dask and Spark integrations (``_columns``).  Imports
``_utils`` only; the surfaces that take a frame pass themselves in (the
frame form of a surface is a call of that surface on the arrays read).
"""
