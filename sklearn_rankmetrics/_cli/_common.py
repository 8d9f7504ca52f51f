"""What every part of the command line shares: the program's name as the
user called it, the usage error and trec_eval's counts.  Light: the
parser, ``--help`` and ``--version`` import nothing else of the package
(no numpy)."""

__all__ = []  # private module

# how the user called the command line: ``python -m sklearn_rankmetrics``
# sets it (``__main__``); read when printing, through prog()
PROG = "rankmetrics"


def prog():
    """The program's name for the messages and the usage line."""
    return PROG


class UsageError(Exception):
    """Bad command-line input: exit status 2 with the message."""


# trec_eval's counts: summed over queries, printed as integers, not compared
_COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret")
