"""The ``assignment-oracle`` command line and its bundled example scenarios."""
