"""Order workflows on Temporal, versioned by loom (see README.md)."""
