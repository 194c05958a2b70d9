from .core import contents, where

__all__ = ["contents", "where"]
__version__ = "2026.10.19"
