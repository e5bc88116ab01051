"""How a check reports: its messages, its failure, and meson's exit status
for a skipped test, shared so every check prints and exits alike."""

SKIP = 77


class CheckFailed(Exception):
    """A check found the ABI broken where it cannot go on; exit status 1."""


def log(msg=''):
    print(msg, flush=True)


def fail_list(title, items):
    """Prints title and items, when there are items; True if there were."""
    if items:
        log(title)
        for item in items:
            log('    ' + item)
    return bool(items)
