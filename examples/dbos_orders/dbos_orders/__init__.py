"""Order workflows on DBOS, versioned by loom (see README.md)."""
