"""blackwhite: host, referee and play the Black & White family of hidden-information games."""

__version__ = "0.1.0"
