"""A small shop whose flows reach helpers in several first-party modules."""
