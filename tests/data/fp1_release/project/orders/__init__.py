"""An order service: the project the loom-fp/1 release fixture was built from."""
