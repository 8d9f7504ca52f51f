"""What every part of the command line shares: the program's name as the
user called it and the usage error."""

__all__ = []  # private module

# how the user called the command line: ``python -m sklearn_rankmetrics``
# sets it (``__main__``); read when printing, through prog()
PROG = "rankmetrics"


def prog():
    """The program's name for the messages and the usage line."""
    return PROG


class UsageError(Exception):
    """Bad command-line input: exit status 2 with the message."""
