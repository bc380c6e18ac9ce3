"""One module per ``loom`` sub-command; each is a thin click shell over a library call."""
