"""Table output: a dict of columns as a pandas DataFrame when pandas is
installed (and a dict was not asked for)."""

__all__ = []  # private module


def table_output(table, output_dict):
    """The dict of columns ``table`` as a DataFrame, or as it is without
    pandas or with ``output_dict``."""
    if output_dict:
        return table
    try:
        import pandas as pd
    except ImportError:
        return table
    return pd.DataFrame(table)
